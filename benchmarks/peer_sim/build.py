#!/usr/bin/env python3
"""Build the peer simulator of docs/simulate.md's "Peer comparison": HPCC's ns-3 (ns-3.17
with RDMA NICs running DCQCN, PFC and a Broadcom-style shared-buffer switch MMU;
github.com/alibaba-edu/High-Precision-Congestion-Control, `simulation/`).

Run by hand from the repository root (not part of CI, not a dependency of lossless):

    python3 benchmarks/peer_sim/build.py [--source GITDIR|URL] [--work DIR] [--python PY2]

--source: a git directory or clone URL of the repository (default: the mirror at
  /work/.mirror/alibaba-edu+High-Precision-Congestion-Control/repo); its HEAD's
  `simulation/` folder is extracted with `git archive` into --work.
--work: where it is built (default ~/.cache/lossless/peer-sim; never inside this repository).
--python: a Python 2 interpreter for ns-3.17's waf (default: $PYTHON2, then
  /root/.pyenv/versions/2.7.18/bin/python, then `python2` on PATH).

Prints the path of the built `third` program (what benchmarks/peer_sim/compare.py runs).

What is changed in the third-party code, at build time only (nothing of it is copied into
this repository):
* compiler flags, no source change: ns-3.17 predates gcc 12; CXXFLAGS='-std=c++11 -w
  -fpermissive' (its code relies on pre-C++17 rules and the default -Werror of waf's debug
  profile; the optimized profile is built). Only the modules third.cc needs are configured
  (point-to-point, applications, internet and what they pull in).
* scratch/third.cc, the experiment driver, takes more config keys so that the plan's
  numbers reach the switch MMU (switch-mmu.cc itself is untouched; its fields are public):
  BUFFER_BYTES (the MMU's buffer_size in bytes; BUFFER_SIZE is in MiB), HEADROOM_BYTES n
  b1..bn (each switch port's headroom; third.cc otherwise sizes it as 3 x rate x delay),
  PFC_ALPHA_SHIFT (the dynamic threshold's alpha = 2^-shift; third.cc otherwise fixes 1/8
  and halves it per doubling of port speed over the NIC's), MMU_RESERVE (the per-PG
  guaranteed bytes, 4 KiB in switch-mmu.cc) and RESUME_OFFSET (the xon offset, 3 KiB
  there); QLEN_DUMP_INTERVAL sets how often the queue-length histogram is written (a
  variable third.cc has but reads from no key).
* third.cc also prints, once the run ends, each sender queue pair's acknowledged bytes,
  rate and last packet size ("QP ..." lines), for per-sender throughput.
* src/point-to-point/model/rdma-hw.cc: a global switch, lossless_mlx_rate_now (config key
  MLX_RATE_NOW, off by default, so that the stock behaviour is what runs unless asked),
  under which the DCQCN ("Mlx") cut and increases go through RdmaHw::ChangeRate, which
  moves the flow's next packet to the new rate; stock, they assign m_rate and the gap set
  at the last departure, at the old rate, stands (docs/simulate.md, "Peer comparison").
Each patched file's pristine text is kept as NAME.orig and the patches are applied to it,
so that running the script again changes nothing.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import NoReturn

REPO = Path(__file__).resolve().parents[2]
MIRROR = "/work/.mirror/alibaba-edu+High-Precision-Congestion-Control/repo"
WORK = Path.home() / ".cache" / "lossless" / "peer-sim"
CXXFLAGS = "-std=c++11 -w -fpermissive"
MODULES = "point-to-point,applications,internet"
MARK = "// lossless peer_sim patch"

THIRD = "scratch/third.cc"
RDMA_HW = "src/point-to-point/model/rdma-hw.cc"
MLX_HALFWAY = "\tq->m_rate = (q->m_rate / 2) + (q->mlx.m_targetRate / 2);\n"
MLX_CUT = "\t\tq->m_rate = std::max(m_minRate, q->m_rate * (1 - q->mlx.m_alpha / 2));\n"

# (file, anchor, replacement, how many times the anchor occurs in the file)
PATCHES: list[tuple[str, str, str, int]] = [
    (
        THIRD,
        "uint32_t buffer_size = 16;\n",
        "uint32_t buffer_size = 16;\n"
        f"{MARK}: the plan's MMU numbers\n"
        "uint64_t buffer_bytes = 0;\n"
        "int32_t pfc_alpha_shift = -1;\n"
        "int64_t mmu_reserve = -1, resume_offset = -1;\n"
        "std::vector<uint32_t> headroom_bytes;\n",
        1,
    ),
    (
        THIRD,
        '}else if (key.compare("BUFFER_SIZE") == 0){\n',
        '}else if (key.compare("BUFFER_BYTES") == 0){\n'
        "\t\t\t\tconf >> buffer_bytes;\n"
        '\t\t\t}else if (key.compare("PFC_ALPHA_SHIFT") == 0){\n'
        "\t\t\t\tconf >> pfc_alpha_shift;\n"
        '\t\t\t}else if (key.compare("MMU_RESERVE") == 0){\n'
        "\t\t\t\tconf >> mmu_reserve;\n"
        '\t\t\t}else if (key.compare("RESUME_OFFSET") == 0){\n'
        "\t\t\t\tconf >> resume_offset;\n"
        '\t\t\t}else if (key.compare("QLEN_DUMP_INTERVAL") == 0){\n'
        "\t\t\t\tconf >> qlen_dump_interval;\n"
        '\t\t\t}else if (key.compare("HEADROOM_BYTES") == 0){\n'
        "\t\t\t\tuint32_t n_h;\n"
        "\t\t\t\tconf >> n_h;\n"
        "\t\t\t\theadroom_bytes.resize(n_h);\n"
        "\t\t\t\tfor (uint32_t i = 0; i < n_h; i++)\n"
        "\t\t\t\t\tconf >> headroom_bytes[i];\n"
        '\t\t\t}else if (key.compare("BUFFER_SIZE") == 0){\n',
        1,
    ),
    (
        THIRD,
        "\t\t\t\tsw->m_mmu->ConfigHdrm(j, headroom);\n",
        "\t\t\t\tif (j <= headroom_bytes.size())\n"
        f"\t\t\t\t\theadroom = headroom_bytes[j - 1]; {MARK}\n"
        "\t\t\t\tsw->m_mmu->ConfigHdrm(j, headroom);\n",
        1,
    ),
    (
        THIRD,
        "\t\t\t\t\trate /= 2;\n\t\t\t\t}\n",
        "\t\t\t\t\trate /= 2;\n\t\t\t\t}\n"
        "\t\t\t\tif (pfc_alpha_shift >= 0)\n"
        f"\t\t\t\t\tsw->m_mmu->pfc_a_shift[j] = pfc_alpha_shift; {MARK}\n",
        1,
    ),
    (
        THIRD,
        "\t\t\tsw->m_mmu->ConfigBufferSize(buffer_size* 1024 * 1024);\n",
        "\t\t\tsw->m_mmu->ConfigBufferSize(buffer_size* 1024 * 1024);\n"
        f"\t\t\tif (buffer_bytes) sw->m_mmu->ConfigBufferSize(buffer_bytes); {MARK}\n",
        1,
    ),
    (
        THIRD,
        "\t\t\tsw->m_mmu->ConfigNPort(sw->GetNDevices()-1);\n",
        f"\t\t\tif (mmu_reserve >= 0) sw->m_mmu->reserve = mmu_reserve; {MARK}\n"
        "\t\t\tif (resume_offset >= 0) sw->m_mmu->resume_offset = resume_offset;\n"
        "\t\t\tsw->m_mmu->ConfigNPort(sw->GetNDevices()-1);\n",
        1,
    ),
    (
        THIRD,
        "\tSimulator::Run();\n",
        "\tSimulator::Run();\n"
        f"\t{MARK}: each sender's queue pairs at the end\n"
        "\tfor (uint32_t i = 0; i < n.GetN(); i++){\n"
        "\t\tif (n.Get(i)->GetNodeType() != 0)\n"
        "\t\t\tcontinue;\n"
        "\t\tPtr<RdmaDriver> d = n.Get(i)->GetObject<RdmaDriver>();\n"
        "\t\tfor (auto &it : d->m_rdma->m_qpMap)\n"
        '\t\t\tprintf("QP %u %lu %lu %lu %u\\n", i, it.second->snd_una, it.second->snd_nxt,'
        " it.second->m_rate.GetBitRate(), it.second->lastPktSize);\n"
        "\t}\n",
        1,
    ),
    (
        THIRD,
        "using namespace ns3;\n",
        "using namespace ns3;\n"
        + f"namespace ns3 {{ extern bool lossless_mlx_rate_now; }} {MARK}\n",
        1,
    ),
    (
        THIRD,
        '}else if (key.compare("BUFFER_BYTES") == 0){\n',
        '}else if (key.compare("MLX_RATE_NOW") == 0){\n'
        "\t\t\t\tuint32_t v;\n"
        "\t\t\t\tconf >> v;\n"
        "\t\t\t\tlossless_mlx_rate_now = v;\n"
        '\t\t\t}else if (key.compare("BUFFER_BYTES") == 0){\n',
        1,
    ),
    (
        RDMA_HW,
        "namespace ns3{\n",
        f"namespace ns3{{\n\nbool lossless_mlx_rate_now = false; {MARK}\n",
        1,
    ),
    (
        RDMA_HW,
        MLX_HALFWAY,
        f"\tif (lossless_mlx_rate_now) {MARK}\n"
        "\t\tChangeRate(q, (q->m_rate / 2) + (q->mlx.m_targetRate / 2));\n\telse\n" + MLX_HALFWAY,
        3,
    ),
    (
        RDMA_HW,
        MLX_CUT,
        f"\t\tif (lossless_mlx_rate_now) {MARK}\n"
        "\t\t\tChangeRate(q, std::max(m_minRate, q->m_rate * (1 - q->mlx.m_alpha / 2)));\n"
        "\t\telse\n" + MLX_CUT,
        1,
    ),
]


def fail(message: str, code: int = 2) -> NoReturn:
    """Bad input (exit 2) or a failed run (exit 1): one line on stderr, no traceback."""
    print(f"build.py: {message}", file=sys.stderr)
    sys.exit(code)


def run(args: list[str], **kwargs: object) -> subprocess.CompletedProcess:
    """Run a step of the build; a failed one ends it (exit 1) naming the command."""
    done = subprocess.run(args, **kwargs)  # type: ignore[call-overload]
    if done.returncode:
        fail(f"{' '.join(args[:3])} failed (exit {done.returncode})", 1)
    return done


def python2(given: str | None) -> str:
    for candidate in (given, os.environ.get("PYTHON2"), "/root/.pyenv/versions/2.7.18/bin/python"):
        if candidate and Path(candidate).exists():
            return candidate
    found = shutil.which("python2")
    if found:
        return found
    fail("no Python 2 for ns-3.17's waf (--python or $PYTHON2)")


def extract(source: str, work: Path) -> Path:
    """The repository's `simulation/` folder under work/ns3 (extracted once)."""
    tree = work / "ns3" / "simulation"
    if (tree / "wscript").exists():
        return tree
    (work / "ns3").mkdir(parents=True, exist_ok=True)
    git_dir = source
    if not Path(source).is_dir():  # a URL: a bare clone next to the build
        git_dir = str(work / "hpcc.git")
        if not Path(git_dir).exists():
            run(["git", "clone", "--bare", "-q", source, git_dir])
    archive = run(
        ["git", "--git-dir", git_dir, "archive", "HEAD", "simulation"],
        capture_output=True,
    ).stdout
    run(["tar", "-x", "-C", str(work / "ns3")], input=archive)
    return tree


def patch(tree: Path) -> None:
    """Apply PATCHES to the pristine files (kept as NAME.orig); a file is rewritten only if
    its patched text changed, so that waf rebuilds nothing after the first time."""
    for name in (THIRD, RDMA_HW):
        path = tree / name
        orig = path.with_name(path.name + ".orig")
        if not orig.exists():
            if MARK in path.read_text():
                fail(f"{path} is patched but {orig.name} is missing: extract again")
            shutil.copyfile(path, orig)
        text = orig.read_text()
        for where, anchor, replacement, count in PATCHES:
            if where != name:
                continue
            found = text.count(anchor)
            if found != count:
                fail(f"{path}: expected {anchor.strip()!r} {count}x, found {found}", 1)
            text = text.replace(anchor, replacement)
        if path.read_text() != text:
            path.write_text(text)


def build(tree: Path, py2: str) -> Path:
    env = dict(os.environ, CXXFLAGS=CXXFLAGS)
    if not (tree / "build" / "c4che").exists():
        run(
            [
                py2,
                "./waf",
                "configure",
                "--build-profile=optimized",
                f"--enable-modules={MODULES}",
                "--disable-python",
                "--disable-tests",
                "--disable-examples",
            ],
            cwd=tree,
            env=env,
        )
    run([py2, "./waf", "build", f"-j{os.cpu_count() or 1}"], cwd=tree, env=env)
    programs = sorted((tree / "build" / "scratch").glob("*third*"))
    programs = [p for p in programs if p.is_file() and os.access(p, os.X_OK)]
    if not programs:
        fail(f"no third program under {tree / 'build' / 'scratch'}", 1)
    return programs[0]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", default=MIRROR, help="git directory or clone URL")
    parser.add_argument("--work", type=Path, default=WORK, help="build directory")
    parser.add_argument("--python", help="Python 2 for waf")
    args = parser.parse_args()
    work = args.work.expanduser().resolve()
    if work == REPO or REPO in work.parents:
        fail("--work must be outside the repository")
    tree = extract(args.source, work)
    patch(tree)
    print(build(tree, python2(args.python)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
