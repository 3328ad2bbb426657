#!/usr/bin/env python3
"""`lossless simulate`'s fluid model against a peer simulator, HPCC's ns-3 (packet level,
DCQCN as NVIDIA's ConnectX firmware runs it, PFC, a shared-buffer switch MMU), on the same
scenarios with the same constants (docs/simulate.md, "Peer comparison").

Run by hand from the repository root, after benchmarks/peer_sim/build.py:

    python3 benchmarks/peer_sim/compare.py [--program PATH] [--work DIR] [--duration MS]
        [--incast N ...] [--device D --port P] [--no-cc-too] [--dcqcn NAME=VALUE ...]
        [--peer-rate-now] [--markdown]

The scenarios: N:1 incast (16 and 64) into leaf1 Ethernet0 of inventories/lab.yaml (a
Spectrum-4 400G port, SONiC's Mellanox headroom model; its three fan-in ports, 2, 30 and
35 m of cable, repeated as `lossless simulate --incast N` does), 10 ms, DCQCN with NVIDIA's
defaults (lossless/simulate/dcqcn.py) and, with --no-cc-too, congestion control off (PFC
alone). Every constant comes from the plan (`lossless.simulate.scenario`); the peer gets
them through its config file (mapping below, in `peer_config`).

Prints per scenario a table: metric, ours, peer, difference, tolerance, verdict; the
tolerances are the TOLERANCES below, chosen (docs/simulate.md says why) before the first run.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import os
import re
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import NoReturn

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from lossless.inventory import load_inventory  # noqa: E402
from lossless.planner.fabric import plan_fabric  # noqa: E402
from lossless.simulate.dcqcn import Dcqcn, dcqcn, parse_overrides  # noqa: E402
from lossless.simulate.fluid import simulate  # noqa: E402
from lossless.simulate.scenario import Scenario, scenario  # noqa: E402

WORK = Path.home() / ".cache" / "lossless" / "peer-sim"
PROGRAM = WORK / "ns3" / "simulation" / "build" / "scratch" / "third"
START_S = 2.0  # HPCC's experiments start their flows at 2 s; nothing runs before
PG = 3  # the RoCE priority in the peer (its queue 3; queue 0 carries PFC and ACKs)
FLOW_BYTES = 4_000_000_000  # more than any sender can send in the run (a uint32 there)
HEADER = 48  # the peer's data packet around its payload: Ethernet 14, IPv4 20, UDP 8, seq and PG 6
SAMPLE_NS = 100  # the peer samples the egress queue every 100 ns (third.cc), as our step


@dataclasses.dataclass
class Metrics:
    queue_mean: float  # bytes, time-averaged egress queue
    paused_share: float  # of sender time
    dropped: float  # bytes
    throughput: float  # Gb/s, all senders
    fairness: float  # Jain's index of the senders' throughput
    first_pause_us: float | None
    per_sender: list[float]  # Gb/s


# metric: (absolute tolerance, relative tolerance (of the peer's value)), the larger applies;
# keyed by congestion control on/off. docs/simulate.md "Peer comparison" gives the reasons.
TOLERANCES: dict[bool, dict[str, tuple[float, float]]] = {
    True: {
        "queue_mean": (0.0, 0.25),
        "paused_share": (0.05, 0.0),
        "dropped": (9118.0, 0.0),
        "throughput": (40.0, 0.0),
        "fairness": (0.05, 0.0),
        "first_pause_us": (2.0, 0.10),
    },
    False: {
        "queue_mean": (0.0, 0.10),
        "paused_share": (0.05, 0.0),
        "dropped": (9118.0, 0.0),
        "throughput": (20.0, 0.0),
        "fairness": (0.05, 0.0),
        "first_pause_us": (2.0, 0.10),
    },
}
LABELS = {
    "queue_mean": "mean queue (B)",
    "paused_share": "paused share",
    "dropped": "dropped (B)",
    "throughput": "throughput (Gb/s)",
    "fairness": "Jain's fairness",
    "first_pause_us": "first pause (us)",
}


def fail(message: str, code: int = 2) -> NoReturn:
    """Bad input (exit 2) or a failed run (exit 1): one line on stderr, no traceback."""
    print(f"compare.py: {message}", file=sys.stderr)
    sys.exit(code)


def jain(x: list[float]) -> float:
    total = sum(v * v for v in x)
    return sum(x) ** 2 / (len(x) * total) if total else 1.0


def ours(sc: Scenario, cc: Dcqcn | None, duration_s: float) -> tuple[Metrics, float]:
    cpu = time.process_time()
    r = simulate(sc, cc, duration_s)
    cpu = time.process_time() - cpu
    per = [float(x) / 1e9 for x in r.throughput_bps]
    return (
        Metrics(
            queue_mean=float(r.queue.mean()),
            paused_share=r.paused_share,
            dropped=r.dropped_bytes,
            throughput=sum(per),
            fairness=r.fairness,
            first_pause_us=None if r.first_pause_s is None else r.first_pause_s * 1e6,
            per_sender=per,
        ),
        cpu,
    )


def alpha_shift(alpha: float) -> int:
    """The peer's dynamic threshold is (free buffer) >> shift: alpha must be 2^-shift."""
    shift = -math.log2(alpha)
    if shift < 0 or shift != int(shift):
        fail(f"alpha {alpha} is not 2^-k, k >= 0: the peer cannot take it")
    return int(shift)


def peer_config(
    sc: Scenario, cc: Dcqcn | None, duration_s: float, rate_now: bool = False
) -> dict[str, str]:
    """The peer's files (config, topology, flows, trace) for a scenario, keyed by name.

    Nodes 0..N-1 are the senders, N the receiver, N+1 the switch; the switch's devices are
    numbered in link order, so device i+1 is sender i's ingress port and N+1 the egress.
    """
    n = len(sc.senders)
    rate = f"{sc.speed_bps:.0f}bps"
    links = [
        f"{i} {n + 1} {s.speed_bps:.0f}bps {round(s.propagation_s * 1e9)}ns 0"
        for i, s in enumerate(sc.senders)
    ]
    links.append(f"{n} {n + 1} {rate} {round(sc.propagation_s * 1e9)}ns 0")
    topology = "\n".join([f"{n + 2} 1 {n + 1}", f"{n + 1}", *links]) + "\n"
    flows = "\n".join([str(n), *(f"{i} {n} {PG} 100 {FLOW_BYTES} {START_S}" for i in range(n))])
    # the PGs of the rest of the switch sit at the planner's trigger, as in our model: the
    # pool N congested PGs see is B - (n - N) T (fluid.py's background); the peer's MMU
    # subtracts every port's headroom from its buffer, so it gets those too
    background = max(0, sc.sharing_pgs - n) * sc.trigger
    headroom = [s.xoff for s in sc.senders] + [0]  # the egress port takes only ACKs (queue 0)
    buffer = round(sc.pool_bytes - background) + sum(headroom)
    if sc.kmin % 1000 or sc.kmax % 1000:
        fail("the peer takes Kmin and Kmax in whole kB")
    end_ns = round((START_S + duration_s) * 1e9)
    xon = {s.xon for s in sc.senders}
    if len(xon) != 1:
        fail("the peer has one resume offset a switch; the senders differ")
    payload = sc.senders[0].frame - HEADER
    keys: dict[str, object] = {
        "ENABLE_QCN": 1 if cc else 0,
        "USE_DYNAMIC_PFC_THRESHOLD": 1,
        "PACKET_PAYLOAD_SIZE": payload,
        "TOPOLOGY_FILE": "topology.txt",
        "FLOW_FILE": "flow.txt",
        "TRACE_FILE": "trace.txt",
        "TRACE_OUTPUT_FILE": "mix.tr",
        "FCT_OUTPUT_FILE": "fct.txt",
        "PFC_OUTPUT_FILE": "pfc.txt",
        "SIMULATOR_STOP_TIME": f"{START_S + duration_s + 1e-6:.9f}",
        "CC_MODE": 1,  # DCQCN, NVIDIA's ("Mellanox's implementation on CX4 and newer")
        "ERROR_RATE_PER_LINK": 0,
        "L2_CHUNK_SIZE": 4000,
        "L2_ACK_INTERVAL": 1,  # every packet acknowledged; a marked one's ACK is the CNP
        "L2_BACK_TO_ZERO": 0,
        "HAS_WIN": 0,  # DCQCN is rate-based: no window
        "GLOBAL_T": 1,
        "VAR_WIN": 0,
        "FAST_REACT": 1,
        "U_TARGET": 0.95,
        "MI_THRESH": 0,
        "INT_MULTI": 1,
        "MULTI_RATE": 0,
        "SAMPLE_FEEDBACK": 0,
        "RATE_BOUND": 1,  # pace by the DCQCN rate
        "ACK_HIGH_PRIO": 1,  # CNPs on a strict-priority class, as our model assumes
        "LINK_DOWN": "0 0 0",
        "ENABLE_TRACE": 0,
        "KMAX_MAP": f"1 {sc.speed_bps:.0f} {sc.kmax // 1000}",
        "KMIN_MAP": f"1 {sc.speed_bps:.0f} {sc.kmin // 1000}",
        "PMAX_MAP": f"1 {sc.speed_bps:.0f} {sc.pmax}",
        "BUFFER_SIZE": 32,  # MiB, replaced by BUFFER_BYTES
        "BUFFER_BYTES": buffer,
        "HEADROOM_BYTES": " ".join(str(x) for x in [len(headroom), *headroom]),
        "PFC_ALPHA_SHIFT": alpha_shift(sc.alpha),
        "MMU_RESERVE": 0,  # our model has no per-PG guaranteed minimum
        "RESUME_OFFSET": xon.pop(),
        "QLEN_MON_FILE": "qlen.txt",
        "QLEN_MON_START": round(START_S * 1e9),
        "QLEN_MON_END": end_ns,
        "QLEN_DUMP_INTERVAL": end_ns - round(START_S * 1e9),
    }
    if cc is not None:
        us = 1e6
        keys |= {
            "ALPHA_RESUME_INTERVAL": cc.alpha_period * us,  # dce_tcp_rtt
            "RATE_DECREASE_INTERVAL": cc.reduce_period * us,  # rate_reduce_monitor_period
            # clamp_tgt_rate; with it off the peer clamps after a timer increase, as
            # clamp_tgt_rate_after_time_inc 1 does (it has no byte counter)
            "CLAMP_TARGET_RATE": int(cc.clamp_always),
            "RP_TIMER": cc.increase_period * us,  # rpg_time_reset
            "EWMA_GAIN": cc.g,  # (1024 - dce_tcp_g) / 1024
            "FAST_RECOVERY_TIMES": cc.threshold,  # rpg_threshold
            "RATE_AI": f"{cc.ai_rate:.0f}bps",
            "RATE_HAI": f"{cc.hai_rate:.0f}bps",
            "MIN_RATE": f"{cc.min_rate:.0f}bps",
            "DCTCP_RATE_AI": "1000Mb/s",
            # build.py's patch: a DCQCN rate change reschedules the next packet at once
            # (stock: the gap set at the last packet's departure, at the old rate, stands)
            "MLX_RATE_NOW": int(rate_now),
        }
    config = "\n".join(f"{k} {v}" for k, v in keys.items()) + "\n"
    return {
        "config.txt": config,
        "topology.txt": topology,
        "flow.txt": flows + "\n",
        "trace.txt": "0\n",
    }


def _paused(pfc: str, senders: int, start_ns: int, end_ns: int) -> tuple[float, float | None]:
    """(share of sender time paused, the first pause in us) from the peer's PFC log: one line
    a PFC frame a device received, "time node node_type ifindex 1 (pause) | 0 (resume)"."""
    since: dict[int, int] = {}
    total = 0
    first = None
    for line in pfc.splitlines():
        t, node, kind, _, pause = (int(x) for x in line.split())
        if kind != 0 or node >= senders:
            continue
        if pause:
            since.setdefault(node, t)
            first = t if first is None else min(first, t)
        elif node in since:
            total += min(t, end_ns) - max(since.pop(node), start_ns)
    total += sum(end_ns - max(t, start_ns) for t in since.values())
    share = total / (senders * (end_ns - start_ns))
    return share, None if first is None else (first - start_ns) / 1e3


def _queue_mean(qlen: str, port: int) -> float:
    """The egress port's time-averaged queue from the peer's last histogram dump (counts of
    100 ns samples per whole kB; a sample counts as the middle of its kB)."""
    counts: list[int] = []
    for line in qlen.splitlines():
        fields = line.split()
        if fields and fields[0] != "time:" and int(fields[1]) == port:
            counts = [int(x) for x in fields[2:]]
    samples = sum(counts)
    if not samples:
        fail("the peer wrote no queue samples", 1)
    return sum((kb * 1000 + (500 if kb else 0)) * c for kb, c in enumerate(counts)) / samples


def peer(
    program: Path, sc: Scenario, cc: Dcqcn | None, duration_s: float, run: Path, rate_now: bool
) -> tuple[Metrics, float]:
    run.mkdir(parents=True, exist_ok=True)
    for name, text in peer_config(sc, cc, duration_s, rate_now).items():
        (run / name).write_text(text)
    env = dict(os.environ, LD_LIBRARY_PATH=str(program.parents[1]))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(
        [str(program), "config.txt"], cwd=run, env=env, capture_output=True, text=True
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    (run / "stdout.txt").write_text(done.stdout)
    if done.returncode:
        fail(f"{program} failed in {run}:\n{done.stderr[-2000:]}", 1)
    n = len(sc.senders)
    start_ns = round(START_S * 1e9)
    end_ns = round((START_S + duration_s) * 1e9)
    drops = len(re.findall(r"^\d+ \d+ Drop:", done.stdout, re.M))
    per = [0.0] * n
    size = HEADER
    for m in re.finditer(r"^QP (\d+) (\d+) \d+ \d+ (\d+)$", done.stdout, re.M):
        node, acked, size = int(m[1]), int(m[2]), int(m[3])
        if node < n:
            per[node] = acked / (size - HEADER) * size * 8 / duration_s / 1e9
    if size != sc.senders[0].frame:
        fail(f"the peer's packets are {size} B, ours {sc.senders[0].frame} B", 1)
    share, first = _paused((run / "pfc.txt").read_text(), n, start_ns, end_ns)
    return (
        Metrics(
            queue_mean=_queue_mean((run / "qlen.txt").read_text(), n + 1),
            paused_share=share,
            dropped=drops * size,
            throughput=sum(per),
            fairness=jain(per),
            first_pause_us=first,
            per_sender=per,
        ),
        cpu,
    )


def rows(cc_on: bool, a: Metrics, b: Metrics) -> list[tuple[str, str, str, str, str, str]]:
    out = []
    for name, (absolute, relative) in TOLERANCES[cc_on].items():
        x, y = getattr(a, name), getattr(b, name)
        label = LABELS[name]
        if x is None or y is None:
            verdict = "ok" if x is None and y is None else "DIFFERS"
            shown = ["never" if v is None else f"{v:,.1f}" for v in (x, y)]
            out.append((label, shown[0], shown[1], "", "", verdict))
            continue
        tolerance = max(absolute, relative * abs(y))
        diff = x - y
        digits = 3 if name in ("paused_share", "fairness") else 1
        out.append(
            (
                label,
                f"{x:,.{digits}f}",
                f"{y:,.{digits}f}",
                f"{diff:+,.{digits}f}",
                f"{tolerance:,.{digits}f}",
                "ok" if abs(diff) <= tolerance else "DIFFERS",
            )
        )
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--program", type=Path, default=PROGRAM, help="the peer's third")
    parser.add_argument("--work", type=Path, default=WORK / "runs", help="the peer's run dirs")
    parser.add_argument("--inventory", type=Path, default=REPO / "inventories" / "lab.yaml")
    parser.add_argument("--device", default="leaf1")
    parser.add_argument("--port", default="Ethernet0")
    parser.add_argument("--duration", type=float, default=10.0, help="simulated ms (10)")
    parser.add_argument("--incast", type=int, nargs="+", default=[16, 64])
    parser.add_argument("--no-cc-too", action="store_true", help="also PFC alone")
    parser.add_argument(
        "--dcqcn",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a DCQCN constant instead of NVIDIA's default, for both where the peer has it",
    )
    parser.add_argument(
        "--peer-rate-now",
        action="store_true",
        help="the peer's DCQCN rate changes take effect at once (build.py's patch)",
    )
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args()
    if not args.program.exists():
        fail(f"no {args.program}: run benchmarks/peer_sim/build.py first")
    plan = plan_fabric(load_inventory(str(args.inventory)), [args.device])
    duration = args.duration / 1000
    try:
        overrides = parse_overrides(args.dcqcn)
    except ValueError as error:
        fail(str(error))
    modes = [True, False] if args.no_cc_too else [True]
    for cc_on in modes:
        for n in args.incast:
            sc = scenario(plan, args.device, args.port, n)
            cc = dcqcn(overrides) if cc_on else None
            title = (
                f"{args.device} {args.port} {sc.speed_bps / 1e9:g}G, {n}:1, "
                f"{args.duration:g} ms, {'DCQCN' if cc_on else 'congestion control off'}"
                + (f" ({', '.join(args.dcqcn)})" if cc_on and args.dcqcn else "")
                + (", peer rate now" if cc_on and args.peer_rate_now else "")
            )
            a, cpu_a = ours(sc, cc, duration)
            mode = ("dcqcn" + "".join(f"-{p}" for p in args.dcqcn)) if cc_on else "pfc"
            mode += "-rate-now" if cc_on and args.peer_rate_now else ""
            run = args.work.expanduser() / f"{args.device}-{n}-{mode}"
            b, cpu_b = peer(args.program, sc, cc, duration, run, args.peer_rate_now)
            table = rows(cc_on, a, b)
            head = ("metric", "ours", "peer", "difference", "tolerance", "verdict")
            if args.markdown:
                print(f"\n**{title}** (CPU: ours {cpu_a:.1f} s, peer {cpu_b:.1f} s)\n")
                print("| " + " | ".join(head) + " |")
                print("|" + "---|" * len(head))
                for row in table:
                    print("| " + " | ".join(row) + " |")
            else:
                print(f"\n{title} (CPU: ours {cpu_a:.1f} s, peer {cpu_b:.1f} s; peer run {run})")
                widths = [max(len(r[i]) for r in [head, *table]) for i in range(len(head))]
                for row in [head, *table]:
                    print("  " + "  ".join(c.rjust(w) for c, w in zip(row, widths, strict=True)))
            print(
                ("\n" if args.markdown else "")
                + f"  per sender Gb/s: ours {min(a.per_sender):.2f}-{max(a.per_sender):.2f}, "
                f"peer {min(b.per_sender):.2f}-{max(b.per_sender):.2f}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
