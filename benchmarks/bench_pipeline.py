#!/usr/bin/env python3
"""Every stage of the pipeline on rail-optimised 32k (and 64k) GPU fabrics: wall, CPU, RSS.

Run by hand from the repository root (about five minutes on two cores):

    python3 benchmarks/bench_pipeline.py                # 32k all-SONiC and mixed-OS, 64k RSS
    python3 benchmarks/bench_pipeline.py --gpus 8192 --no-64k   # a quick look
    python3 benchmarks/bench_pipeline.py --repeat 3     # each stage's fastest of 3 runs
    python3 benchmarks/bench_pipeline.py --scaling 32768,65536,98304,131072  # growth
    git worktree add /tmp/before main     # then: the same, against the code of main
    python3 benchmarks/bench_pipeline.py --scaling 32768,131072 --before /tmp/before

Fabrics come from inventories/generate_clos.py: 64-port leaves (32 down, 32 up), 128-port
spines, 8 planes with spines of their own (32,768 GPUs: 4,096 servers x 8 NICs, 1,024 leaves
+ 256 spines, 98,304 ports; 65,536 GPUs: two such pods). The mixed fabric gives the planes
SONiC, Cumulus, EOS, NX-OS and Junos in turn, so every OS is rendered, parsed and linted at
scale.

Each stage is one `python3 -m lossless ...` process, start-up included, as a pipeline runs
it. Per stage: wall time, CPU time (user + system, its worker processes included) and peak
RSS of that process (wait4), and its exit code (1 = findings); with --repeat N, the fastest
of N runs. Wall time is noisy where other work shares the machine; CPU
time is the steadier figure. Python writes its bytecode cache to a temporary folder (an
installed package has one; PYTHONDONTWRITEBYTECODE is dropped for the runs).

Stages: validate; plan --format json to a file; plan (text) to a pipe; render; lint;
lint --configs of the rendered folder (every file identical to the render); the same with
1 % of the files changed (one port's MTU: drift, parsed); diff --running of that folder; the
one-device PR lint `lint INVENTORY --configs DIR --device X` with X's file changed;
render --hosts; and `ci`, which does the five pipeline stages in one process (its plan JSON
and configs compared byte for byte with theirs). "pipeline" is validate + plan (json) +
render + lint + lint --configs, each its own process.

Then the render floor, in a process of its own: per OS, rendering the devices of one plan as
`lossless render` does (vendor context + template + the bytes written) against the floor:
the same templates rendered from contexts computed beforehand, with one jinja2 Environment,
and the same bytes written. The ratio is render / floor, both measured in one process.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "inventories"))
sys.path.insert(0, str(REPO))

from generate_clos import generate  # noqa: E402

MIXED = ("sonic", "cumulus", "eos", "nxos", "junos")
# One port's MTU in each OS's rendered text, and what a changed file says instead.
MTU_LINES = {
    "json": (re.compile(r'"mtu": "9100"'), '"mtu": "9000"'),
    "yaml": (re.compile(r"mtu: 9100"), "mtu: 9000"),
    "cfg": (re.compile(r"^( +)mtu 9100$", re.M), r"\1mtu 9000"),
    "conf": (re.compile(r"mtu 9114;"), "mtu 9014;"),
}


@dataclass
class Stage:
    name: str
    wall: float
    cpu: float
    rss_mib: float
    code: int


REPEAT = 1  # --repeat: runs per stage, the fastest kept (noise on a shared machine only adds)
CODE = REPO  # the checkout whose lossless a stage runs (--before: another one, in turn)


def run(name: str, argv: list[str], env: dict[str, str], stdout=None, fresh=None) -> Stage:
    """The fastest of REPEAT runs of one lossless process (see run_once); `fresh`: a folder
    removed before each run (a render into a folder it already wrote writes nothing)."""
    runs = []
    for _ in range(REPEAT):
        if fresh is not None:
            shutil.rmtree(fresh, ignore_errors=True)
        runs.append(run_once(name, argv, env, stdout))
    return min(runs, key=lambda stage: stage.wall)


def run_once(name: str, argv: list[str], env: dict[str, str], stdout=None) -> Stage:
    """One lossless process: wall time, CPU (user + system) and peak RSS from wait4.
    stdout: None (discarded), subprocess.PIPE (read here) or a path to write it to."""
    if isinstance(stdout, Path):
        with stdout.open("wb") as file:
            return run_once(name, argv, env, file)
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "lossless", *argv],
        cwd=CODE,
        env=env,
        stdout=stdout if stdout is not None else subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    if stdout is subprocess.PIPE:
        assert process.stdout is not None
        while process.stdout.read(1 << 20):  # the pipe's reader
            pass
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    return Stage(
        name, wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, process.returncode
    )


def changed_copy(rendered: Path, target: Path, share: float) -> list[str]:
    """A copy of the rendered folder with `share` of the files (every OS) one MTU changed."""
    shutil.rmtree(target, ignore_errors=True)  # a kept folder from an earlier run
    shutil.copytree(rendered, target)
    by_kind = defaultdict(list)
    for path in sorted(target.iterdir()):
        by_kind[path.suffix].append(path)
    step = round(1 / share)
    chosen = [path for paths in by_kind.values() for path in paths[::step]]
    for path in chosen:
        pattern, replacement = MTU_LINES[path.suffix.lstrip(".")]
        text = path.read_text()
        matches = list(pattern.finditer(text))
        last = matches[-1]
        path.write_text(text[: last.start()] + last.expand(replacement) + text[last.end() :])
    return [path.stem for path in chosen]


def environment(cache: Path) -> dict[str, str]:
    env = dict(os.environ, PYTHONPYCACHEPREFIX=str(cache))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def pipeline(label: str, inventory: Path, work: Path, env: dict[str, str]) -> list[Stage]:
    rendered, changed = work / f"{label}-rendered", work / f"{label}-changed"
    inv = str(inventory)
    stages = [
        run("validate", ["validate", inv], env),
        run(
            "plan --format json > file",
            ["plan", inv, "--format", "json"],
            env,
            stdout=work / f"{label}-plan.json",
        ),
        run("plan (text) | pipe", ["plan", inv], env, stdout=subprocess.PIPE),
        run("render", ["render", inv, "-o", str(rendered)], env, fresh=rendered),
        run("lint", ["lint", inv], env),
        run("lint --configs (identical)", ["lint", inv, "--configs", str(rendered)], env),
    ]
    devices = changed_copy(rendered, changed, 0.01)
    stages += [
        run(
            f"lint --configs ({len(devices)} changed)",
            ["lint", inv, "--configs", str(changed)],
            env,
        ),
        run("diff --running", ["diff", inv, "--running", str(changed)], env),
        run(
            f"lint --device {devices[0]} (one PR)",
            ["lint", inv, "--configs", str(changed), "--device", devices[0]],
            env,
        ),
        run(
            "render --hosts",
            ["render", inv, "-o", str(work / f"{label}-hosts"), "--hosts"],
            env,
            fresh=work / f"{label}-hosts",
        ),
        one_process(label, inv, rendered, work, env),
    ]
    return stages


def one_process(
    label: str, inv: str, rendered: Path, work: Path, env: dict[str, str], plan: Path | None = None
) -> Stage:
    """`lossless ci`: the pipeline's five stages in one process, its plan JSON and configs
    checked byte for byte against the separate stages' (a fast wrong answer is no answer)."""
    out = work / f"{label}-ci"
    stage = run(
        CI_STAGE,
        ["ci", inv, "--plan-json", str(out / "plan.json"), "--render", str(out / "configs"),
         "--configs", str(rendered)],
        env,
        fresh=out,
    )  # fmt: skip
    separate_plan = plan or work / f"{label}-plan.json"
    if separate_plan.exists() and not same_file(out / "plan.json", separate_plan):
        raise SystemExit(f"ci's plan JSON differs from plan --format json ({out})")
    differing = [p.name for p in rendered.iterdir() if not same_file(out / "configs" / p.name, p)]
    if differing or len(list((out / "configs").iterdir())) != len(list(rendered.iterdir())):
        raise SystemExit(f"ci's configs differ from render's: {differing[:3]}")
    return stage


def same_file(a: Path, b: Path) -> bool:
    with a.open("rb") as first, b.open("rb") as second:
        while True:
            block = first.read(1 << 20)
            if block != second.read(1 << 20):
                return False
            if not block:
                return True


def render_floor(inventory: Path, work: Path) -> dict[str, tuple[int, float, float]]:
    """OS -> (devices, render CPU s, floor CPU s): the best of three rounds of each, taken in
    turn. Run in a process of its own (--floor): the pipeline's processes are forked from
    this one, and a child's peak RSS counts its parent's memory at the fork."""
    from lossless.inventory import load_inventory
    from lossless.planner.fabric import plan_fabric
    from lossless.vendors.registry import vendor_for
    from lossless.vendors.rendering import environment as jinja_environment
    from lossless.vendors.rendering import file_name, render_device

    plan = plan_fabric(load_inventory(inventory))
    by_os = defaultdict(list)
    for device in plan.devices.values():
        by_os[device.os].append(device)
    out = work / "floor"
    out.mkdir(exist_ok=True)
    results = {}
    for os_name, devices in by_os.items():
        vendor = vendor_for(os_name)
        template = jinja_environment().get_template(vendor.template)
        contexts = [vendor.context(device, plan) for device in devices]
        floor = full = float("inf")
        for _ in range(3):
            started = time.process_time()
            for device, context in zip(devices, contexts, strict=True):
                (out / file_name(device)).write_bytes(template.render(**context).encode())
            floor = min(floor, time.process_time() - started)
            started = time.process_time()
            for device in devices:
                (out / file_name(device)).write_bytes(render_device(device, plan).encode())
            full = min(full, time.process_time() - started)
        results[os_name] = (len(devices), full, floor)
    return results


def print_render_floor(inventory: Path, work: Path, env: dict[str, str]) -> None:
    """render_floor in a process of its own, printed."""
    output = subprocess.run(
        [sys.executable, __file__, "--floor", str(inventory), "--keep", str(work)],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    print("\n  render vs floor (CPU s, best of 3, one process):")
    for os_name, (devices, full, floor) in json.loads(output).items():
        print(
            f"    {os_name:<8} {devices:>5} devices  render {full:6.2f}  floor {floor:6.2f}  "
            f"ratio {full / floor:4.2f}"
        )


PIPELINE = ("validate", "plan --format json > file", "render", "lint", "lint --configs (identical)")
CI_STAGE = "ci: the five in one process"


def report(label: str, stages: list[Stage]) -> None:
    print(f"\n{label}")
    print(f"  {'stage':<36} {'wall s':>7} {'CPU s':>7} {'RSS MiB':>8} {'exit':>4}")
    for stage in stages:
        print(
            f"  {stage.name:<36} {stage.wall:>7.2f} {stage.cpu:>7.2f} {stage.rss_mib:>8.0f} "
            f"{stage.code:>4}"
        )
    chosen = [s for s in stages if s.name in PIPELINE]
    print(
        f"  {'pipeline (' + str(len(chosen)) + ' stages above)':<36} "
        f"{sum(s.wall for s in chosen):>7.2f} {sum(s.cpu for s in chosen):>7.2f} "
        f"{max(s.rss_mib for s in chosen):>8.0f}"
    )


SCALING = (
    "validate",
    "plan --format json > file",
    "render",
    "lint",
    "lint --configs (identical)",
    "lint --device X (one PR)",
    CI_STAGE,
)


def scaling(sizes: list[int], work: Path, env: dict[str, str], before: Path | None) -> None:
    """Each stage at each size (all-SONiC fabrics), and its CPU per 32,768 GPUs: a stage
    whose cost grows faster than the fabric shows a rising ratio. Also the plan JSON's size.
    With `before` (a checkout of the code to compare with), each stage runs there and then
    here, in turn, so both see the machine as it is then; their outputs (plan JSON, configs,
    ci's) are checked byte for byte against each other."""
    codes = {"before": before, "after": REPO} if before is not None else {"here": REPO}
    table: dict[tuple[str, int], list[Stage]] = {}
    sizes_mb: dict[int, float] = {}
    for gpus in sizes:
        results, sizes_mb[gpus] = _one_size(gpus, work, env, codes)
        for tag, stages in results.items():
            table[tag, gpus] = stages
            report(f"{gpus} GPUs, all SONiC{_label(tag, codes)}", stages)
        print(f"  plan JSON (compact): {sizes_mb[gpus]:.1f} MB", flush=True)
    print("\n  CPU s per stage, and per 32,768 GPUs (linear growth: the same figure)")
    print(f"  {'stage':<36}" + "".join(f"{gpus:>16}" for gpus in sizes))
    for index, name in enumerate(SCALING):
        for tag in codes:
            cells = "".join(
                f"{table[tag, g][index].cpu:>7.2f} ({table[tag, g][index].cpu * 32768 / g:5.2f})"
                for g in sizes
            )
            print(f"  {name + _label(tag, codes):<36}{cells}")
    for tag in codes:
        walls = "".join(
            f"{table[tag, g][-1].wall:>7.2f} s {table[tag, g][-1].rss_mib:>5.0f} M" for g in sizes
        )
        print(f"  {'ci wall, peak RSS' + _label(tag, codes):<36}{walls}")
    print("  plan JSON MB" + " " * 24 + "".join(f"{sizes_mb[g]:>16.1f}" for g in sizes))


def _label(tag: str, codes: dict[str, Path]) -> str:
    """ ", before" and ", after" when two codes are compared, else nothing."""
    return f", {tag}" if len(codes) > 1 else ""


def _one_size(
    gpus: int, work: Path, env: dict[str, str], codes: dict[str, Path]
) -> tuple[dict[str, list[Stage]], float]:
    """The SCALING stages at one size, each run by every code in turn: code -> its stages,
    and the plan JSON's size in MB."""
    global CODE
    inventory = work / f"scale-{gpus}.yaml"
    inventory.write_text(generate(gpus, 64, "400G", spine_radix=128, planes=True))
    inv, rendered, plan = str(inventory), work / f"scale-{gpus}", work / f"scale-{gpus}.json"
    changed = work / f"scale-{gpus}-pr"
    device = ""
    steps = [
        lambda tag: run("validate", ["validate", inv], env),
        lambda tag: run(
            "plan --format json > file",
            ["plan", inv, "--format", "json"],
            env,
            stdout=plan.with_suffix(f".{tag}.json"),
        ),
        lambda tag: run(
            "render",
            ["render", inv, "-o", f"{rendered}.{tag}"],
            env,
            fresh=Path(f"{rendered}.{tag}"),
        ),
        lambda tag: run("lint", ["lint", inv], env),
        lambda tag: run(
            "lint --configs (identical)", ["lint", inv, "--configs", str(rendered)], env
        ),
        lambda tag: run(
            "lint --device X (one PR)",
            ["lint", inv, "--configs", str(changed), "--device", device],
            env,
        ),
        lambda tag: one_process(f"scale-{gpus}-{tag}", inv, rendered, work, env, plan),
    ]
    results: dict[str, list[Stage]] = {tag: [] for tag in codes}
    last = list(codes)[-1]
    for number, step in enumerate(steps):
        if number == 4:  # from here the configs are the render of the last code
            _same_outputs(codes, plan, rendered)
            Path(f"{rendered}.{last}").rename(rendered)
            for tag in list(codes)[:-1]:
                shutil.rmtree(f"{rendered}.{tag}")
            shutil.copyfile(plan.with_suffix(f".{last}.json"), plan)
            [device] = changed_copy(rendered, changed, 1 / len(list(rendered.iterdir())))[:1]
        for tag, code in codes.items():
            CODE = code
            results[tag].append(step(tag))
    CODE = REPO
    size = plan.stat().st_size / 1e6
    shutil.rmtree(changed)
    shutil.rmtree(rendered)
    for tag in codes:
        shutil.rmtree(work / f"scale-{gpus}-{tag}-ci")
    return results, size


def _same_outputs(codes: dict[str, Path], plan: Path, rendered: Path) -> None:
    """Every code's plan JSON and rendered configs byte for byte the first's."""
    first, *others = codes
    for tag in others:
        if not same_file(plan.with_suffix(f".{tag}.json"), plan.with_suffix(f".{first}.json")):
            raise SystemExit(f"the plan JSON of {codes[tag]} differs from {codes[first]}'s")
        mine, theirs = Path(f"{rendered}.{tag}"), Path(f"{rendered}.{first}")
        names = sorted(p.name for p in mine.iterdir())
        if names != sorted(p.name for p in theirs.iterdir()) or not all(
            same_file(mine / name, theirs / name) for name in names
        ):
            raise SystemExit(f"the configs {codes[tag]} renders differ from {codes[first]}'s")


def calibration() -> float:
    """CPU seconds of a fixed pure-Python loop: how fast this machine is right now."""
    started = time.process_time()
    sum(range(30_000_000))
    return time.process_time() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gpus", type=int, default=32768)
    parser.add_argument("--no-64k", action="store_true", help="skip the 64k memory run")
    parser.add_argument("--keep", metavar="DIR", help="work in DIR and keep it")
    parser.add_argument(
        "--repeat", type=int, default=1, help="run each stage N times, keep the fastest"
    )
    parser.add_argument("--floor", metavar="INVENTORY", help=argparse.SUPPRESS)
    parser.add_argument(
        "--scaling",
        metavar="GPUS,...",
        help="instead: each stage at these sizes, all SONiC (e.g. 32768,65536,98304,131072)",
    )
    parser.add_argument(
        "--before",
        metavar="DIR",
        help="with --scaling: a checkout of the code to compare with (git worktree add DIR "
        "main), each stage run there and here in turn",
    )
    args = parser.parse_args()
    global REPEAT
    REPEAT = max(1, args.repeat)
    if args.floor:  # the child process of print_render_floor
        print(json.dumps(render_floor(Path(args.floor), Path(args.keep))))
        return
    work = Path(args.keep or tempfile.mkdtemp(prefix="lossless-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    env = environment(work / "pycache")
    run("warm the bytecode cache", ["lint", "inventories/lab.yaml"], env)
    print(f"machine: sum(range(30,000,000)) takes {calibration():.2f} CPU s (scale by it)")
    if args.scaling:
        try:
            before = Path(args.before).resolve() if args.before else None
            scaling([int(g) for g in args.scaling.split(",")], work, env, before)
            print(f"\nmachine at the end: the same loop takes {calibration():.2f} CPU s")
        finally:
            if not args.keep:
                shutil.rmtree(work, ignore_errors=True)
        return
    fabrics = {
        f"{args.gpus} GPUs, all SONiC": generate(
            args.gpus, 64, "400G", spine_radix=128, planes=True
        ),
        f"{args.gpus} GPUs, planes on {', '.join(MIXED)}": generate(
            args.gpus, 64, "400G", spine_radix=128, planes=True, oses=MIXED
        ),
    }
    try:
        for number, (label, text) in enumerate(fabrics.items()):
            inventory = work / f"fabric{number}.yaml"
            inventory.write_text(text)
            report(label, pipeline(f"f{number}", inventory, work, env))
            print_render_floor(inventory, work, env)
        if not args.no_64k:
            inventory = work / "fabric-64k.yaml"
            inventory.write_text(generate(2 * 32768, 64, "400G", spine_radix=128, planes=True))
            stages = [
                run("validate", ["validate", str(inventory)], env),
                run(
                    "render",
                    ["render", str(inventory), "-o", str(work / "64k")],
                    env,
                    fresh=work / "64k",
                ),
                run("lint", ["lint", str(inventory)], env),
                run(
                    "lint --configs", ["lint", str(inventory), "--configs", str(work / "64k")], env
                ),
                run(
                    "plan --format json > file",
                    ["plan", str(inventory), "--format", "json"],
                    env,
                    stdout=work / "64k-plan.json",
                ),
                run(
                    CI_STAGE,
                    [
                        "ci",
                        str(inventory),
                        "--plan-json",
                        str(work / "64k-ci" / "plan.json"),
                        "--render",
                        str(work / "64k-ci" / "configs"),
                        "--configs",
                        str(work / "64k"),
                    ],
                    env,
                    fresh=work / "64k-ci",
                ),
            ]
            report("65536 GPUs, all SONiC (memory)", stages)
        print(f"\nmachine at the end: the same loop takes {calibration():.2f} CPU s")
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
