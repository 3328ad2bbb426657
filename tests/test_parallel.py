"""Work spread over forked processes gives what one process gives, in the same order, and
raises what a worker raised; lint and lint --configs find the same with and without them."""

from __future__ import annotations

import os
import shutil
import time

import pytest
from conftest import INVENTORIES, REPO

from lossless.errors import InputError, Problem, UsageError
from lossless.inventory import load_inventory
from lossless.lint.catalogue import registered_rules
from lossless.lint.configs import fabric_from_configs
from lossless.lint.runner import _tasks, lint
from lossless.plan import replaced
from lossless.planner.fabric import plan_fabric
from lossless.system import parallel

needs_fork = pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork here")


@pytest.fixture
def workers(monkeypatch):
    """Two workers for any number of items (tests have small fabrics)."""
    monkeypatch.setenv("LOSSLESS_JOBS", "2")
    monkeypatch.setattr(parallel, "MIN_ITEMS", 1)


@needs_fork
def test_results_come_back_in_order_from_other_processes(workers):
    def work(index):
        time.sleep(0.001)  # this process would take every item before a worker starts
        return index * index, os.getpid()

    results = list(parallel.ordered_map(work, 300, chunk=7))
    assert [square for square, _ in results] == [i * i for i in range(300)]
    pids = [pid for _, pid in results]
    assert set(pids) - {os.getpid()}  # computed elsewhere too
    assert pids[-1] == os.getpid()  # this process takes from the back


@needs_fork
def test_work_kept_out_of_this_process_comes_back_in_order(workers):
    """here=False: every item is computed by a worker (verify's reading: this process only
    takes the states back), in order, by as many workers as jobs."""
    results = list(parallel.ordered_map(lambda i: (i, os.getpid()), 300, chunk=7, here=False))
    assert [index for index, _ in results] == list(range(300))
    assert os.getpid() not in {pid for _, pid in results}


@needs_fork
def test_large_results_come_back_through_files(workers, monkeypatch):
    def work(index):
        time.sleep(0.001)
        return f"{index} {os.getpid()} ".encode() * 10_000

    results = list(parallel.ordered_bytes(work, 200))
    assert [int(r.split()[0]) for r in results] == list(range(200))
    assert len({r.split()[1] for r in results}) == 2  # both processes made some
    monkeypatch.setenv("LOSSLESS_JOBS", "1")
    assert [r.split()[0] for r in parallel.ordered_bytes(work, 200)] == [
        r.split()[0] for r in results
    ]


@needs_fork
def test_a_workers_error_is_raised_here(workers):
    def work(index):
        if index == 200:
            raise UsageError("config 200 is not a file")
        return index

    with pytest.raises(UsageError, match="config 200 is not a file"):
        list(parallel.ordered_map(work, 300))


@needs_fork
def test_work_in_background_comes_back_from_another_process(workers):
    """What it returns, computed by another process, which forks no workers of its own
    (the CPUs are this process's and its workers')."""
    with parallel.in_background(lambda: (os.getpid(), parallel.jobs()), True) as work:
        pid, jobs = work.result()
    assert pid != os.getpid()
    assert jobs == 1
    assert parallel.jobs() == 2  # this process is not changed


@needs_fork
@pytest.mark.parametrize(
    "error",
    [
        UsageError("--plan-json out/plan.json: cannot write: No space left on device"),
        InputError(
            [
                Problem("inv.yaml", 3, 5, "devices.leaf1", "unknown key"),
                Problem("inv.yaml", 1, 1, "", "x"),
            ]
        ),
    ],
)
def test_an_error_in_background_is_raised_here_as_it_was_raised(workers, error):
    def fail():
        raise error

    with pytest.raises(type(error)) as raised, parallel.in_background(fail, True) as work:
        work.result()
    assert str(raised.value) == str(error)
    if isinstance(error, InputError):
        assert raised.value.problems == error.problems


@needs_fork
def test_background_work_whose_process_dies_is_done_here(workers, tmp_path):
    """A process killed before it answers (the out-of-memory killer) does not lose the work."""
    marker = tmp_path / "done"

    def work():
        if os.getpid() != here:
            os._exit(9)  # dies without a word
        marker.write_text("here")
        return "done"

    here = os.getpid()
    with parallel.in_background(work, True) as background:
        assert background.result() == "done"
    assert marker.read_text() == "here"


@needs_fork
def test_leaving_early_waits_for_the_background_work(workers, tmp_path):
    """An error here before result(): the block still waits for the other process, whose
    clean-up (a temporary file removed) is then done."""
    marker = tmp_path / "finished"

    def work():
        time.sleep(0.2)
        marker.write_text("yes")

    with pytest.raises(KeyError), parallel.in_background(work, True):
        raise KeyError("error here")
    assert marker.read_text() == "yes"


def test_background_work_not_worthwhile_is_done_here_at_once(monkeypatch):
    monkeypatch.setenv("LOSSLESS_JOBS", "4")
    done = []
    background = parallel.in_background(lambda: done.append(os.getpid()) or "x", False)
    assert done == [os.getpid()]  # before result() is asked for
    assert background.result() == "x"
    monkeypatch.setenv("LOSSLESS_JOBS", "1")
    with parallel.in_background(os.getpid, True) as work:
        assert work.result() == os.getpid()


def test_one_job_or_few_items_stay_in_this_process(monkeypatch):
    monkeypatch.setenv("LOSSLESS_JOBS", "1")
    assert {pid for pid in parallel.ordered_map(lambda i: os.getpid(), 500)} == {os.getpid()}
    monkeypatch.setenv("LOSSLESS_JOBS", "4")
    assert {pid for pid in parallel.ordered_map(lambda i: os.getpid(), 5)} == {os.getpid()}


@pytest.mark.parametrize(("stated", "expected"), [("3", 3), ("1", 1), ("0", None), ("x", None)])
def test_lossless_jobs_sets_the_workers(monkeypatch, stated, expected):
    monkeypatch.setenv("LOSSLESS_JOBS", stated)
    if expected is not None:
        assert parallel.jobs() == expected
    else:  # not a count: the CPUs this process may use
        assert 1 <= parallel.jobs() <= parallel.MAX_JOBS


def test_rules_that_share_a_computation_run_together():
    tasks = _tasks(list(registered_rules().values()))
    by_rule = {r.id: index for index, task in enumerate(tasks) for r in task}
    assert by_rule["LL140"] == by_rule["LL141"] == by_rule["LL142"]
    assert len({by_rule[i] for i in ("LL109", "LL130", "LL131", "LL134")}) == 1
    assert by_rule["LL101"] != by_rule["LL102"]


@needs_fork
def test_lint_in_workers_finds_what_one_process_finds(workers, monkeypatch):
    from lossless.lint import runner

    plan = plan_fabric(load_inventory(INVENTORIES / "pod-2048.yaml"))
    for device in list(plan.devices.values())[::5]:  # findings to compare, on some devices
        for name, port in list(device.ports.items())[::3]:
            device.ports[name] = replaced(port, mtu=1500, watchdog=None)
    monkeypatch.setattr(runner, "PORTS_FOR_WORKERS", 1)
    in_workers = lint(plan)
    monkeypatch.setenv("LOSSLESS_JOBS", "1")
    alone = lint(plan)
    assert in_workers.findings and in_workers == alone


@needs_fork
def test_lint_configs_in_workers_finds_what_one_process_finds(workers, tmp_path, monkeypatch):
    plan = plan_fabric(load_inventory(INVENTORIES / "lab.yaml"))
    folder = tmp_path / "configs"
    shutil.copytree(REPO / "golden" / "lab", folder)
    changed = (folder / "leaf3.cfg").read_text().replace("  mtu 9100\n", "  mtu 9000\n", 1)
    (folder / "leaf3.cfg").write_text(changed)
    fabric, findings = fabric_from_configs(plan, folder)
    monkeypatch.setenv("LOSSLESS_JOBS", "1")
    alone_fabric, alone_findings = fabric_from_configs(plan, folder)
    assert findings and findings == alone_findings
    assert fabric.devices == alone_fabric.devices


def test_the_progress_bar_draws_without_a_thread(monkeypatch, capsys):
    """Workers are forked while lint --configs shows its bar: no thread may hold a lock then."""
    import sys
    import threading

    from lossless.report.progress import ProgressReporter

    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    before = threading.active_count()
    with ProgressReporter(3, "lint configs") as advance:
        for name in ("leaf1", "leaf2", "leaf3"):
            advance(name)
        assert threading.active_count() == before


@needs_fork
def test_render_in_workers_writes_what_one_process_writes(workers, tmp_path, monkeypatch):
    from lossless.system.writing import write_rendered
    from lossless.vendors.rendering import render_device

    plan = plan_fabric(load_inventory(INVENTORIES / "lab.yaml"))
    devices = list(plan.devices.values())
    names = [f"{d.name}.txt" for d in devices]

    def text_of(index):
        return render_device(devices[index], plan)

    report = write_rendered(tmp_path / "workers", names, text_of)
    monkeypatch.setenv("LOSSLESS_JOBS", "1")
    write_rendered(tmp_path / "alone", names, text_of)
    assert report.written == names
    for name in names:
        assert (tmp_path / "workers" / name).read_bytes() == (
            tmp_path / "alone" / name
        ).read_bytes()


@needs_fork
def test_a_bad_target_found_by_a_worker_leaves_no_file(workers, tmp_path):
    from lossless.system.writing import TEMP_PREFIX, write_rendered

    out = tmp_path / "out"
    out.mkdir()
    (out / "f7.txt").mkdir()  # a folder where file 7 goes
    with pytest.raises(UsageError, match=r"f7\.txt is a folder"):
        write_rendered(out, [f"f{i}.txt" for i in range(20)], lambda index: f"text {index}\n")
    assert sorted(p.name for p in out.iterdir()) == ["f7.txt"]
    assert not [p for p in out.iterdir() if p.name.startswith(TEMP_PREFIX)]


@needs_fork
def test_render_check_in_workers_finds_what_one_process_finds(workers, tmp_path, monkeypatch):
    from lossless.system.writing import drifted

    folder = tmp_path / "lab"
    shutil.copytree(REPO / "golden" / "lab", folder)
    (folder / "leaf3.cfg").write_text("changed\n")
    (folder / "leaf1.json").unlink()
    names = sorted(p.name for p in (REPO / "golden" / "lab").iterdir() if p.is_file())
    texts = {n: (REPO / "golden" / "lab" / n).read_text() for n in names}
    in_workers = drifted(folder, names, lambda index: texts[names[index]])
    monkeypatch.setenv("LOSSLESS_JOBS", "1")
    assert in_workers == drifted(folder, names, lambda index: texts[names[index]])
    assert in_workers == ["leaf1.json", "leaf3.cfg"]


@needs_fork
def test_diff_running_in_workers_finds_what_one_process_finds(workers, tmp_path, monkeypatch):
    from lossless.deploy.offline import offline_diff

    folder = tmp_path / "running"
    shutil.copytree(REPO / "golden" / "lab", folder)
    for name in ("leaf3.cfg", "leaf4.conf"):
        text = (folder / name).read_text()
        (folder / name).write_text(text.replace("9100", "9000", 1).replace("9114", "9014", 1))
    plan = plan_fabric(load_inventory(INVENTORIES / "lab.yaml"))
    in_workers = offline_diff(plan, folder)
    monkeypatch.setenv("LOSSLESS_JOBS", "1")
    assert in_workers == offline_diff(plan, folder)
    assert [d.device for d in in_workers if d.changes] == ["leaf3", "leaf4"]


@needs_fork
def test_a_worker_that_dies_does_not_hang_the_run(workers):
    """The out-of-memory killer may end a worker: what it had not sent is computed here
    (this process computes items too, from the back: they are not computed twice)."""
    parent = os.getpid()

    computed_here = []

    def work(index):
        if os.getpid() != parent:
            os._exit(9)  # as if killed
        computed_here.append(index)
        return index * 2

    assert list(parallel.ordered_map(work, 300)) == [i * 2 for i in range(300)]
    assert sorted(computed_here) == list(range(300))  # each once


@needs_fork
def test_nics_planned_in_a_worker_are_judged_as_in_one_process(workers, monkeypatch, write):
    """lint plans the NICs where the host rules run: on a large fabric, a worker process."""
    from test_hosts_plan import BASE

    from lossless.lint import runner
    from lossless.planner import fabric as planner

    inventory = load_inventory(write(BASE))
    planned_in = write("", "planned-in.txt")
    original = planner.plan_nics

    def plan_nics(*args):
        planned_in.write_text(str(os.getpid()))
        return original(*args)

    monkeypatch.setattr(planner, "plan_nics", plan_nics)
    monkeypatch.setattr(runner, "PORTS_FOR_WORKERS", 1)
    monkeypatch.setattr(parallel, "_claim_from_back", lambda: None)  # the workers take all
    in_workers = lint(plan_fabric(inventory, hosts="later"))
    assert planned_in.read_text() != str(os.getpid())
    monkeypatch.setenv("LOSSLESS_JOBS", "1")
    alone = lint(plan_fabric(inventory))
    assert {f.rule for f in in_workers.findings} >= {"LL131", "LL132", "LL134"}
    assert in_workers == alone
