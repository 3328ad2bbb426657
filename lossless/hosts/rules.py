"""Lint rules for the host end of every server link: a NIC's RoCE settings against the switch
port at the other end of its cable (docs/reference/physics.md section 4;
docs/reference/vendors.md section 6).

The NIC side comes from the inventory (what it inherits and overrides) or from a host's saved
state (`lossless lint --host-state`); the switch side from the inventory or a switch config.
One disagreement is one finding, on the switch port, naming both values, at the line that
states the value that differs (_differing_end).
"""

from __future__ import annotations

from collections.abc import Iterator

from lossless.lint.registry import Finding, computed_once, rule
from lossless.plan import DevicePlan, FabricPlan, NicPlan, PortPlan, located
from lossless.planner.headroom_ieee import pause_quanta
from lossless.text.units import format_speed

L2_OVERHEAD = 22  # Ethernet header 14 + FCS 4 + one VLAN tag 4


def nic_ends(fabric: FabricPlan) -> list[tuple[NicPlan, PortPlan, DevicePlan]]:
    """Each server NIC cabled to a planned switch port, with that port and its switch."""
    return computed_once("nic_ends", fabric, lambda: list(_nic_ends(fabric)))


def _nic_ends(fabric: FabricPlan) -> Iterator[tuple[NicPlan, PortPlan, DevicePlan]]:
    for nic in fabric.planned_nics().values():
        node, _, port_name = (nic.peer or "").partition(":")
        device = fabric.devices.get(node)
        if device is not None and port_name in device.ports:
            yield nic, device.ports[port_name], device


def _file(source: str) -> str:
    """The FILE of FILE:LINE:COL."""
    return source.rsplit(":", 2)[0]


def _differing_end(
    fabric: FabricPlan, nic: NicPlan, fields: tuple[str, ...], port: PortPlan
) -> str:
    """Where the value that differs is stated, of the NIC's and the switch port's.

    What was read back from where it runs differs from the intent: the NIC's line in the
    host's saved state (--host-state), else the switch port's line in its config. Otherwise
    both come from the inventory, where a NIC inherits its settings from its switch port:
    the NIC's own line (or its server's host settings) is what overrides them."""
    nic_read = next((nic.sources[f] for f in fields if f in nic.sources), None)
    if nic_read is not None:
        return nic_read
    port_side = located(port, *fields)
    if _file(port_side) != fabric.inventory:  # a config read back
        return port_side
    return nic.where(fields[0])


def _both_ends(
    rule_id: str,
    message: str,
    nic: NicPlan,
    fields: tuple[str, ...],
    port: PortPlan,
    device: DevicePlan,
    fabric: FabricPlan,
    severity: str = "error",
    switch_facts: tuple[str, ...] = (),
) -> list[Finding]:
    """One finding per disagreement between a NIC and its switch port: on the switch port
    (device, port), at the line that states the differing value. The message names neither
    end, so one cause on many ports (NICs written as one range) is one finding.
    `switch_facts`: the switch's facts that differ from the NIC's (Finding.facts)."""
    where = _differing_end(fabric, nic, fields, port)
    return [Finding(where, rule_id, severity, message, device.name, port.name, facts=switch_facts)]


@rule(
    "LL109",
    "server-nic-agreement",
    "error",
    "fabric",
    "docs/reference/physics.md 4 rule 13; docs/reference/vendors.md 6",
    shares="nic_ends",
)
def server_nic_agreement(fabric: FabricPlan):
    """A server-facing port and the NIC behind it run at the same speed, and the switch MTU
    carries the NIC MTU plus L2 overhead (a mismatch truncates or drops jumbo RoCE frames)."""
    for nic, port, device in nic_ends(fabric):
        # 0 or None: a parsed config or host state that does not state it
        if nic.speed_mbps and port.speed_mbps and nic.speed_mbps != port.speed_mbps:
            yield from _both_ends(
                "LL109",
                f"the NIC runs at {format_speed(nic.speed_mbps)}, the port at "
                f"{format_speed(port.speed_mbps)}",
                nic,
                ("speed_mbps",),
                port,
                device,
                fabric,
            )
        if nic.mtu and port.mtu and port.mtu < nic.mtu + L2_OVERHEAD:
            yield from _both_ends(
                "LL109",
                f"port MTU {port.mtu} cannot carry NIC MTU {nic.mtu} plus {L2_OVERHEAD} B of L2 "
                "overhead",
                nic,
                ("mtu",),
                port,
                device,
                fabric,
            )


@rule(
    "LL130",
    "host-trust-dscp",
    "error",
    "fabric",
    "docs/reference/physics.md 4 rule 12; docs/reference/vendors.md 6",
    shares="nic_ends",
)
def host_trust_dscp(fabric: FabricPlan):
    """The NIC classifies received packets by DSCP, as the switches do. A NIC that trusts PCP
    puts the untagged RoCE traffic of a routed port on priority 0, so it pauses (and marks)
    the wrong priority while the switch expects PFC on the RoCE priority."""
    for nic, port, device in nic_ends(fabric):
        if port.lossless and nic.trust is not None and nic.trust != "dscp":
            yield from _both_ends(
                "LL130",
                f"the NIC trusts {nic.trust}, the switch classifies RoCE by DSCP",
                nic,
                ("trust",),
                port,
                device,
                fabric,
            )


@rule(
    "LL131",
    "host-pfc-match",
    "error",
    "fabric",
    "docs/reference/physics.md 4 rule 6",
    shares="nic_ends",
)
def host_pfc_match(fabric: FabricPlan):
    """The NIC enables PFC on the same priorities as its switch port: otherwise the NIC ignores
    the switch's pauses (drops) or pauses a class the switch never stops sending."""
    for nic, port, device in nic_ends(fabric):
        if (
            nic.pfc_priorities is not None
            and nic.pfc_priorities != port.pfc_priorities  # equal lists: equal sorted
            and sorted(nic.pfc_priorities) != sorted(port.pfc_priorities)
        ):
            yield from _both_ends(
                "LL131",
                f"PFC on priorities {sorted(nic.pfc_priorities)} on the NIC but "
                f"{sorted(port.pfc_priorities)} on the port",
                nic,
                ("pfc_priorities",),
                port,
                device,
                fabric,
                switch_facts=("pfc_priorities",),
            )


@rule(
    "LL132",
    "host-roce-class",
    "error",
    "fabric",
    "docs/reference/physics.md 4 rules 6 and 12",
    shares="nic_ends",
)
def host_roce_class(fabric: FabricPlan):
    """RoCE data leaves the NIC with the DSCP the switch expects, the switch maps that DSCP to
    the priority the NIC uses for it, and that priority is lossless on the NIC. Traffic marked
    otherwise rides a lossy queue (the commonest silent RoCE failure: DSCP 0)."""
    for nic, port, device in nic_ends(fabric):
        if nic.roce_dscp is None:
            continue
        if nic.roce_dscp != device.roce_dscp:
            yield from _both_ends(
                "LL132",
                f"the NIC marks RoCE with DSCP {nic.roce_dscp}, the switch expects "
                f"{device.roce_dscp}",
                nic,
                ("roce_dscp",),
                port,
                device,
                fabric,
            )
        switch_class = device.maps.dscp_to_tc.get(nic.roce_dscp)
        if nic.roce_priority is not None and switch_class != nic.roce_priority:
            yield from _both_ends(
                "LL132",
                f"DSCP {nic.roce_dscp} is priority {nic.roce_priority} on the NIC but traffic "
                f"class {switch_class} on the switch",
                nic,
                ("roce_dscp", "roce_priority"),
                port,
                device,
                fabric,
                switch_facts=("dscp_to_tc",),
            )
        if (
            nic.roce_priority is not None
            and nic.pfc_priorities is not None
            and nic.roce_priority not in nic.pfc_priorities
        ):
            yield from _both_ends(
                "LL132",
                f"RoCE priority {nic.roce_priority} is not lossless (no PFC) on the NIC",
                nic,
                ("roce_priority", "pfc_priorities"),
                port,
                device,
                fabric,
            )


@rule(
    "LL133",
    "host-cnp-class",
    "error",
    "fabric",
    "docs/reference/physics.md 3.5 and 4 rules 11 and 21",
    shares="nic_ends",
)
def host_cnp_class(fabric: FabricPlan):
    """CNPs leave the NIC with the DSCP the switch puts in its strict-priority CNP class, and
    on a priority the NIC does not PFC-pause: a CNP that queues behind data, or is paused,
    cannot slow the sender that caused the congestion."""
    for nic, port, device in nic_ends(fabric):
        if nic.cnp_dscp is not None:
            switch_class = device.maps.dscp_to_tc.get(nic.cnp_dscp)
            if nic.cnp_dscp != device.cnp_dscp or switch_class != device.cnp_priority:
                yield from _both_ends(
                    "LL133",
                    f"the NIC sends CNPs with DSCP {nic.cnp_dscp}, which the switch puts in "
                    f"traffic class {switch_class}; its CNP class is DSCP {device.cnp_dscp} -> "
                    f"{device.cnp_priority}",
                    nic,
                    ("cnp_dscp",),
                    port,
                    device,
                    fabric,
                )
        if nic.cnp_priority is not None and nic.cnp_priority in (nic.pfc_priorities or []):
            yield from _both_ends(
                "LL133",
                f"the NIC sends CNPs on priority {nic.cnp_priority}, which has PFC",
                nic,
                ("cnp_priority", "pfc_priorities"),
                port,
                device,
                fabric,
            )


@rule(
    "LL134",
    "host-ecn-on",
    "error",
    "fabric",
    "docs/reference/physics.md 3.4, 3.5 and 4 rule 10",
    shares="nic_ends",
)
def host_ecn_on(fabric: FabricPlan):
    """Where the switch port marks ECN, the NIC runs DCQCN on the RoCE priority: its
    notification point turns CE marks into CNPs and its reaction point slows down on CNPs.
    With either off, ECN does nothing and PFC is left to absorb all congestion."""
    for nic, port, device in nic_ends(fabric):
        if not port.ecn:
            continue
        for field_name, role in (
            ("ecn_np", "notification point (CNPs on CE marks)"),
            ("ecn_rp", "reaction point (slowing down on CNPs)"),
        ):
            if getattr(nic, field_name) is False:
                yield from _both_ends(
                    "LL134",
                    f"the switch marks ECN but the NIC's DCQCN {role} is off on priority "
                    f"{nic.roce_priority}",
                    nic,
                    (field_name,),
                    port,
                    device,
                    fabric,
                )


@rule(
    "LL135",
    "host-no-link-pause",
    "error",
    "fabric",
    "docs/reference/physics.md 4 rule 7",
    shares="nic_ends",
)
def host_no_link_pause(fabric: FabricPlan):
    """802.3x link pause is off on a NIC that runs PFC ("link pause and PFC never on the same
    port"): a link pause stops every class, CNPs included."""
    for nic, port, device in nic_ends(fabric):
        if nic.link_pause and (nic.pfc_priorities or port.pfc_priorities):
            yield from _both_ends(
                "LL135",
                "802.3x link pause is on together with PFC",
                nic,
                ("link_pause",),
                port,
                device,
                fabric,
            )


PAUSE_QUANTUM_BITS = 512  # IEEE 802.3 Annex 31B
PFC_FRAME_BITS = (
    672  # a 64-byte PFC frame with preamble and gap (docs/reference/physics.md 2.1 item 2)
)
FRAME_EXTRA_BITS = (
    160  # preamble and gap around a frame (docs/reference/physics.md 2.1 items 1 and 6)
)
CABLE_BITS_PER_M_MBPS = 1 / 100  # 2 directions x 5 ns/m, per Mb/s of the link


def rx_buffer_floor(speed_mbps: int, mtu: int, cable_m: float) -> int:
    """Bytes a NIC's lossless receive buffer keeps receiving after it sends a PFC pause, with
    no interface delays (not published for NICs): a frame it is sending delays the pause, the
    pause itself, the cable both ways, the peer's response time and the frame the peer had
    begun (docs/reference/physics.md 2.1 without item 3). A smaller buffer drops."""
    frame_bits = 8 * (mtu + L2_OVERHEAD) + FRAME_EXTRA_BITS
    quanta, _ = pause_quanta(speed_mbps)
    bits = (
        2 * frame_bits
        + PFC_FRAME_BITS
        + cable_m * speed_mbps * CABLE_BITS_PER_M_MBPS
        + quanta * PAUSE_QUANTUM_BITS
    )
    return -(-int(bits) // 8)


def _listed(values: list[int]) -> str:
    return ", ".join(map(str, values))


@rule(
    "LL136",
    "host-rx-buffer",
    "error",
    "fabric",
    "docs/reference/physics.md 2.1; Linux mlx5 en/port_buffer.c update_buffer_lossy",
    shares="nic_ends",
)
def host_rx_buffer(fabric: FabricPlan):
    """Every PFC priority of the NIC is received into a buffer of its own that holds what
    keeps arriving after the NIC pauses its peer. A lossless buffer that lossy priorities
    share fills with traffic no pause stops, and drops the lossless priority's packets (the
    mlx5 driver makes a buffer lossless when any of its priorities has PFC: Linux
    drivers/net/ethernet/mellanox/mlx5/core/en/port_buffer.c update_buffer_lossy). A buffer
    smaller than the bytes still in flight after the pause drops them: the floor is
    docs/reference/physics.md 2.1's IEEE 802.1Qbb delay model without the interface delays
    (2 frames of the NIC's MTU, the PFC frame, the cable both ways at 5 ns/m, the peer's
    response in pause quanta), a lower bound. The mlx5 driver itself refuses, for buffers it
    sizes, a lossless buffer below xoff + max MTU with xoff = (301 + 2.16 x cable m) x Gb/s
    + 2.72 x MTU (port_buffer.c calculate_xoff, update_xoff_threshold); the firmware sizes
    them otherwise, by rules not published, so that larger figure is not the floor. Only a
    host's saved state shows the buffers (`mlnx_qos` report; NVIDIA "HowTo Tune Receive
    Buffers on Mellanox Adapter Cards")."""
    for nic, port, device in nic_ends(fabric):
        mapping, pfc = nic.prio2buffer, nic.pfc_priorities
        if mapping is None or not pfc:
            continue
        shared = []
        for priority in sorted(pfc):
            lossy = [q for q in range(8) if mapping[q] == mapping[priority] and q not in pfc]
            if lossy:
                shared.append(
                    f"PFC priority {priority} shares receive buffer {mapping[priority]} with "
                    f"lossy priorities {_listed(lossy)}"
                )
        if shared:
            yield from _both_ends(
                "LL136",
                "; ".join(shared) + ": traffic no pause stops fills the lossless buffer and "
                "drops lossless packets",
                nic,
                ("prio2buffer",),
                port,
                device,
                fabric,
            )
        speed = nic.speed_mbps or port.speed_mbps
        if nic.rx_buffers is None or not speed:
            continue
        mtu = nic.mtu or port.mtu or 1500
        cable = port.cable_m if port.cable_m is not None else (nic.cable_m or 0)
        floor = rx_buffer_floor(speed, mtu, cable)
        small = [
            f"PFC priority {p} is received into buffer {mapping[p]} of "
            f"{nic.rx_buffers[mapping[p]]:,} B"
            for p in sorted(pfc)
            if nic.rx_buffers[mapping[p]] < floor
        ]
        if small:
            yield from _both_ends(
                "LL136",
                "; ".join(small) + f", less than the {floor:,} B that still arrive after the "
                f"NIC pauses its peer at {format_speed(speed)} over {cable:g} m with MTU {mtu}",
                nic,
                ("rx_buffers",),
                port,
                device,
                fabric,
            )


@rule(
    "LL137",
    "host-dcbx-os",
    "warning",
    "fabric",
    "Linux mlx5 en_dcbnl.c (net/mlx5e: Add DCBX control interface); mlnx_qos --dcbx",
    shares="nic_ends",
)
def host_dcbx_os(fabric: FabricPlan):
    """The host, not the NIC's firmware, controls DCBX on a NIC the host script configures
    (`mlnx_qos -i IF --dcbx os`). In firmware-controlled mode, the mlx5 default, the firmware
    reads and sends the DCBX TLVs itself (netdev, "net/mlx5: DCBX firmware controlled by
    default"), and while its nvconfig has DCBX on and willing (mlxconfig LLDP_NB_DCBX_Pn,
    DCBX_WILLING_Pn) it takes the PFC and ETS the switch advertises, overwriting what the
    host set. Not flagged when the saved mlxconfig shows the firmware's DCBX off or not
    willing."""
    for nic, port, device in nic_ends(fabric):
        if nic.dcbx != "firmware" or nic.firmware_dcbx_willing is False:
            continue
        known = " (mlxconfig: on and willing)" if nic.firmware_dcbx_willing else ""
        yield from _both_ends(
            "LL137",
            "DCBX is firmware controlled on the NIC: its firmware's DCBX agent"
            f"{known} can take the switch's PFC and ETS over the host's; `mlnx_qos -i "
            f"{nic.name} --dcbx os` hands them to the host",
            nic,
            ("dcbx",),
            port,
            device,
            fabric,
            severity="warning",
        )


@rule(
    "LL138",
    "host-firmware-cnp-class",
    "warning",
    "fabric",
    "mlxconfig CNP_DSCP_Pn, CNP_802P_PRIO_Pn; NVIDIA nic-configuration-operator roceOptimized",
    shares="nic_ends",
)
def host_firmware_cnp_class(fabric: FabricPlan):
    """The CNP class the NIC's firmware keeps in non-volatile memory (mlxconfig CNP_DSCP_Pn,
    CNP_802P_PRIO_Pn, the value of the next boot) is the switch's CNP class: it is what the
    NIC sends after every boot until something sets the driver's ecn/roce_np knobs, and for
    good on a driver without them (the inbox mlx5). NVIDIA's nic-configuration-operator
    `roceOptimized` writes CNP_DSCP_P1=4 and CNP_802P_PRIO_P1=6 (its README), which a fabric
    whose CNP class is DSCP 48 does not expect. A warning while the running driver's knob
    (sysfs cnp_dscp) is read from the state, since the host script sets it after boot; an
    error without it."""
    for nic, port, device in nic_ends(fabric):
        differs = []
        if nic.firmware_cnp_dscp is not None and nic.firmware_cnp_dscp != device.cnp_dscp:
            differs.append(
                f"DSCP {nic.firmware_cnp_dscp} (the switch's CNP DSCP is {device.cnp_dscp})"
            )
        if (
            nic.firmware_cnp_priority is not None
            and nic.firmware_cnp_priority != device.cnp_priority
        ):
            differs.append(
                f"priority {nic.firmware_cnp_priority} (the switch's CNP priority "
                f"is {device.cnp_priority})"
            )
        if not differs:
            continue
        runtime = nic.cnp_dscp is not None
        yield from _both_ends(
            "LL138",
            "after every boot the NIC's firmware sends CNPs with "
            + " and ".join(differs)
            + (
                " until the host script sets the driver's CNP class"
                if runtime
                else ", and no driver knob overrides it"
            ),
            nic,
            ("firmware_cnp_dscp", "firmware_cnp_priority"),
            port,
            device,
            fabric,
            severity="warning" if runtime else "error",
        )


# The headers the Linux RDMA core takes off an interface MTU for RoCE (include/rdma/ib_addr.h
# iboe_get_mtu): GRH/IPv6 40, UDP 8, BTH 12, XRC 4, AtomicETH 28 (the largest header after
# the BTH), ICRC 4. 12 B more than LL118's 4180, which counts RETH and ImmDt instead.
ROCE_HEADERS = 40 + 8 + 12 + 4 + 28 + 4
ROCE_PATH_MTUS = (4096, 2048, 1024, 512, 256)  # the IB MTUs (enum ib_mtu)


def roce_path_mtu(ip_mtu: int) -> int:
    """The RoCE path MTU an interface MTU gives: the largest IB MTU that fits with the headers
    (iboe_get_mtu; 0 below 352, where RoCE has no path MTU)."""
    return next((p for p in ROCE_PATH_MTUS if ip_mtu >= p + ROCE_HEADERS), 0)


@rule(
    "LL139",
    "host-roce-path-mtu",
    "warning",
    "fabric",
    "docs/reference/physics.md 4 rule 13; Linux include/rdma/ib_addr.h iboe_get_mtu",
    shares="nic_ends",
)
def host_roce_path_mtu(fabric: FabricPlan):
    """The NIC's MTU carries a 4096-byte RoCE payload. The Linux RDMA core gives a RoCE port
    the largest IB MTU (4096, 2048, 1024 ...) that fits in the interface MTU less 96 B of
    headers (include/rdma/ib_addr.h iboe_get_mtu: IPv6/GRH 40, UDP 8, BTH 12, XRC 4,
    AtomicETH 28, ICRC 4), so an interface MTU below 4192 runs RDMA at path MTU 2048 (or
    less): more packets and headers for the same data, and QPs that ask for 4096 (NCCL,
    perftest) get the smaller MTU. One finding per NIC, at the line that states its MTU (its
    saved state when read from a host), on its switch port."""
    for nic, port, device in nic_ends(fabric):
        if not nic.mtu or nic.mtu >= 4096 + ROCE_HEADERS:
            continue
        yield Finding(
            nic.where("mtu"),
            "LL139",
            "warning",
            f"NIC {nic.server}:{nic.name} MTU {nic.mtu} cannot carry a 4096-byte RoCE payload "
            f"(needs {4096 + ROCE_HEADERS} with the RoCE headers): RDMA runs at path MTU "
            f"{roce_path_mtu(nic.mtu)}",
            device.name,
            port.name,
        )


@rule("LL210", "host-drift", "error", "config", "design.md: the plan is the intent")
def host_drift(*_):
    """A NIC setting in a host's saved state (`lossless lint --host-state`) differs from what
    the inventory plans for it, or the state does not show it."""
    return ()


@rule("LL211", "host-state-missing", "warning", "config", "design.md")
def host_state_missing(*_):
    """A server or NIC of the inventory has no saved state in the --host-state folder, or its
    NIC model's state is not read yet: it is checked from the inventory alone."""
    return ()
