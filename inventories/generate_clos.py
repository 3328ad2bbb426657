#!/usr/bin/env python3
"""Write a rail-optimised two-tier RoCE fabric inventory of any size (for benchmarks).

    python3 inventories/generate_clos.py --gpus 16384 --speed 400G > /tmp/big.yaml
    python3 inventories/generate_clos.py --gpus 32768 --radix 64 --spine-radix 128 --planes
    python3 inventories/generate_clos.py --gpus 32768 --radix 64 --spine-radix 128 --planes \\
        --os sonic,cumulus,eos,nxos,junos

Sizes follow docs/reference/physics.md section 6: --radix ports per leaf at the NIC speed, half
down to servers and half up; 8 rails (NIC i of every server on rail i). Without --planes every
leaf meshes to every spine. With --planes each rail is a plane with spines of its own
(--spine-radix ports each, every leaf of the plane to every spine of it); a plane carries at
most spine-radix x radix/2 GPUs, so larger fabrics are several pods of 8 planes, each pod with
servers of its own: 32,768 GPUs on 64-port leaves and 128-port spines are one pod of 1,024
leaves and 256 spines, 65,536 GPUs two such pods.

--os gives the planes their operating systems in turn (rail i's leaves, and with --planes its
spines, run the i-th OS of the list, cycling), each on an ASIC and platform that has the ports;
without --planes the spines run the first OS. Ranges keep the file short: its size grows with
the number of planes, not with the fabric.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass

RAILS = 8  # NICs per server


@dataclass(frozen=True)
class SwitchOS:
    """How one OS names a run of front-panel ports, and a switch to run it on."""

    asic: str
    platform: str | None
    port_number: str  # port i (0-based) as a number in the name: {i0}, {i1} = i + 1, {i4} = 4i
    port_range: str  # ports {first}..{last} as an inventory range


# 400G ports: 51.2 Tb/s parts (128 x 400G) where the catalogue has one for that OS. NX-OS has
# only the Cloud Scale GX (32 x 400G): its planes are for speed, not for a buildable switch.
SWITCH_OS = {
    "sonic": SwitchOS("spectrum-4", "SN5600", "{i4}", "Ethernet[{first}:{last}:4]"),
    "cumulus": SwitchOS("spectrum-4", "SN5600", "{i1}", "swp[{first}:{last}]"),
    "eos": SwitchOS("tomahawk-5", "7060X6-64PE", "{i1}", "Ethernet[{first}:{last}]/1"),
    "nxos": SwitchOS("cisco-cloud-scale-gx", None, "{i1}", "Ethernet1/[{first}:{last}]"),
    "junos": SwitchOS("tomahawk-5", None, "{i0}", "et-0/0/[{first}:{last}]"),
}


def _ports(os_name: str, first: int, last: int) -> str:
    """The inventory range of ports first..last (0-based) of a switch running os_name."""

    def bound(i: int) -> str:
        return SWITCH_OS[os_name].port_number.format(i0=i, i1=i + 1, i4=4 * i)

    return SWITCH_OS[os_name].port_range.format(first=bound(first), last=bound(last))


def _group(name: str, first: int, last: int, width: int) -> str:
    return f"{name}[{first:0{width}d}:{last:0{width}d}]"


def _device_group(
    names: str, role: str, os_name: str, port_runs: list[tuple[int, int, str]]
) -> str:
    switch = SWITCH_OS[os_name]
    lines = [f"  {names}:", f"    role: {role}", f"    os: {os_name}", f"    asic: {switch.asic}"]
    if switch.platform:
        lines.append(f"    platform: {switch.platform}")
    lines.append("    ports:")
    for first, last, profile in port_runs:
        lines.append(f"      {_ports(os_name, first, last)}: {{profile: {profile}}}")
    return "\n".join(lines) + "\n"


def _mesh(leaves: str, leaf_ports: str, spines: str, spine_ports: str, per_pair: int) -> str:
    return (
        f"  - mesh:\n"
        f'      a: {{devices: "{leaves}", ports: "{leaf_ports}"}}\n'
        f'      b: {{devices: "{spines}", ports: "{spine_ports}"}}\n'
        f"      links_per_pair: {per_pair}\n"
        f"    cable_m: 50\n"
    )


def generate(
    gpus: int,
    radix: int,
    speed: str,
    *,
    spine_radix: int | None = None,
    planes: bool = False,
    oses: tuple[str, ...] = ("sonic",),
) -> str:
    """The inventory YAML of the fabric (see the module docstring)."""
    spine_radix = spine_radix or radix
    half = radix // 2
    unknown = [name for name in oses if name not in SWITCH_OS]
    if unknown or not oses:
        raise SystemExit(
            f"--os takes {', '.join(SWITCH_OS)}, not {', '.join(unknown) or 'nothing'}"
        )
    if planes:
        # One plane: every leaf to every spine, at least one link per pair.
        per_plane = spine_radix * half
        pods = -(-gpus // (RAILS * per_plane))
        if gpus % (RAILS * pods * half) or (gpus // (RAILS * pods)) * half % spine_radix:
            raise SystemExit(
                f"--gpus must be a multiple of {RAILS * half} that splits into pods of "
                f"{RAILS} planes of at most {per_plane} GPUs with whole spines"
            )
        leaves_per_plane = gpus // (RAILS * pods * half)
        spines_per_plane = leaves_per_plane * half // spine_radix
    else:
        if gpus % (RAILS * half) or gpus > radix * spine_radix // 2:
            raise SystemExit(
                f"--gpus must be a multiple of {RAILS * half} "
                f"and at most {radix * spine_radix // 2}"
            )
        pods, leaves_per_plane = 1, gpus // (RAILS * half)
        spines_per_plane = gpus // spine_radix  # all spines: one plane shared by the rails
    if half % spines_per_plane:
        raise SystemExit(
            f"{half} uplinks per leaf do not split evenly over {spines_per_plane} spines"
        )
    per_pair = half // spines_per_plane
    servers_per_pod = leaves_per_plane * half
    leaves = pods * RAILS * leaves_per_plane
    spines = pods * RAILS * spines_per_plane if planes else spines_per_plane
    servers = pods * servers_per_pod
    width, spine_width, server_width = len(str(leaves)), len(str(spines)), len(str(servers))

    devices, rails, meshes = "", "", ""
    for pod in range(pods):
        servers_here = _group(
            "gpu", pod * servers_per_pod + 1, (pod + 1) * servers_per_pod, server_width
        )
        for rail in range(RAILS):
            plane = pod * RAILS + rail
            os_name = oses[rail % len(oses)]
            leaf_names = _group(
                "leaf", plane * leaves_per_plane + 1, (plane + 1) * leaves_per_plane, width
            )
            devices += _device_group(
                leaf_names, "leaf", os_name, [(0, half - 1, "gpu"), (half, radix - 1, "fabric")]
            )
            rails += (
                f'  - {{a: "{leaf_names}:{_ports(os_name, 0, half - 1)}", '
                f'b: "{servers_here}:eth{rail}", cable_m: 3}}\n'
            )
            if planes:
                spine_names = _group(
                    "spine",
                    plane * spines_per_plane + 1,
                    (plane + 1) * spines_per_plane,
                    spine_width,
                )
                devices += _device_group(
                    spine_names, "spine", os_name, [(0, spine_radix - 1, "fabric")]
                )
                meshes += _mesh(
                    leaf_names,
                    _ports(os_name, half, radix - 1),
                    spine_names,
                    _ports(os_name, 0, spine_radix - 1),
                    per_pair,
                )
    if not planes:
        spine_os = oses[0]
        spine_names = _group("spine", 1, spines, spine_width)
        devices += _device_group(spine_names, "spine", spine_os, [(0, spine_radix - 1, "fabric")])
        for rail in range(RAILS):
            os_name = oses[rail % len(oses)]
            leaf_names = _group(
                "leaf", rail * leaves_per_plane + 1, (rail + 1) * leaves_per_plane, width
            )
            share = spine_radix // RAILS  # each rail's leaves take their share of every spine
            meshes += _mesh(
                leaf_names,
                _ports(os_name, half, radix - 1),
                spine_names,
                _ports(spine_os, rail * share, (rail + 1) * share - 1),
                per_pair,
            )
    options = f"--gpus {gpus} --radix {radix} --spine-radix {spine_radix} --speed {speed}"
    if planes:
        options += " --planes"
    if oses != ("sonic",):
        options += f" --os {','.join(oses)}"
    return (
        f"# generated by inventories/generate_clos.py {options}\n"
        f"fabric:\n"
        f"  name: clos-{gpus}\n"
        f"  policy:\n"
        f"    mtu: 9100\n"
        f"    ecn: {{preset: nvidia, max_bytes: 500000}}  # Kmax below PFC's 525 kB\n"
        f"    headroom: {{shared_headroom_pool: true, over_subscribe_ratio: 2}}\n"
        f"port_profiles:\n"
        f"  gpu: {{speed: {speed}}}\n"
        f"  fabric: {{speed: {speed}}}\n"
        f"devices:\n{devices}"
        f"servers:\n"
        f"  {_group('gpu', 1, servers, server_width)}:\n"
        f"    nics:\n"
        f"      eth[0:{RAILS - 1}]: {{speed: {speed}}}\n"
        f"links:\n{rails}{meshes}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--gpus", type=int, default=2048)
    parser.add_argument("--radix", type=int, default=128, help="ports per leaf at --speed")
    parser.add_argument("--spine-radix", type=int, help="ports per spine (default: --radix)")
    parser.add_argument("--speed", default="400G")
    parser.add_argument("--planes", action="store_true", help="each rail its own spines")
    parser.add_argument(
        "--os",
        default="sonic",
        help=f"comma list of {', '.join(SWITCH_OS)}, given to the rails in turn",
    )
    args = parser.parse_args()
    oses = tuple(name.strip() for name in args.os.split(",") if name.strip())
    sys.stdout.write(
        generate(
            args.gpus,
            args.radix,
            args.speed,
            spine_radix=args.spine_radix,
            planes=args.planes,
            oses=oses,
        )
    )


if __name__ == "__main__":
    main()
