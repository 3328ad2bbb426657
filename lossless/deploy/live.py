"""Live diff and push through napalm, fanned out with nornir.

Live diff: load_merge_candidate -> compare_config -> discard_config; nothing is committed.
Both first read each device's running config (get_config) and diff it in lossless's own
terms, so every change is classified as hitless or disruptive (deploy/impact.py) and the
devices are ordered so that both ends of a PFC-coupled link change in the same batch
(deploy/order.py, docs/change-impact.md).

Push (docs/reference/ecosystem.md 1 and 3): dry run unless asked to commit; refuses while lint
finds errors (the caller checks), while a running config cannot be read, and (unless told)
while a PFC-coupled change would leave a link peer out; the canary batch first, then batches
in the change order, stopping at the first failure. Where the driver has commit-confirm (eos,
junos) the commit is made with revert_in, the running config is read back and parsed, and only
if it matches the plan for what lossless owns is the commit confirmed; elsewhere (nxos) a
failed post-check rolls back. Any failure before the commit discards the candidate.

Before the first commit every device's running config is saved (save_backup): rolling back
after a push is one mechanism on every OS, that config put back whole (napalm
load_replace_candidate + commit_config, or by hand: Vendor.restore_hint). napalm's own
rollback() cannot undo a confirmed push: Junos's confirm_commit() is a second commit (rollback 1
is then the new config) and EOS's rollback-0 is the startup config (napalm 5.2 junos.py, eos.py).

The gate (PushGate) fails on every error of `verify` and on the GATE_WARNINGS that say the
change may have hurt or hidden something: state that could not be read, a link that went down,
counters that reset; never on what the baseline, judged alone, shows too (not the change's
doing).
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nornir.core import Nornir
from nornir.core.inventory import ConnectionOptions, Defaults, Groups, Host, Hosts, Inventory
from nornir.core.plugins.connections import ConnectionPluginRegister
from nornir.core.task import Task
from nornir.plugins.runners import ThreadedRunner

from lossless.deploy.credentials import CredentialStore
from lossless.deploy.impact import ChangeImpact, classify
from lossless.deploy.order import (
    ChangeOrder,
    batch_lines,
    broken_links,
    change_order,
    link_tiers,
    push_batches,
    tier_warnings,
    wave_batches,
)
from lossless.errors import InputError, UsageError
from lossless.lint.drift import drift
from lossless.lint.registry import Finding
from lossless.plan import DevicePlan, FabricPlan
from lossless.system.files import inside
from lossless.system.writing import check_own_folder, write_atomically
from lossless.text.grammar import first_few, plural
from lossless.vendors.registry import vendor_for
from lossless.vendors.rendering import file_name, render_device
from lossless.vendors.untrusted import diff_text, parse_config
from lossless.verify.collect import Snapshot, commands, reader, snapshot_from_outputs
from lossless.verify.judge import judge

# drivers with revert_in + confirm_commit (docs/reference/ecosystem.md 1)
COMMIT_CONFIRM = {"eos", "junos"}
# The commit-confirm timers those drivers can set, as (least, most, step) seconds. napalm 5
# junos.py commit_config refuses seconds that are not whole minutes (Junos `commit confirmed
# <minutes>`, 1..65535); eos.py writes `commit timer` with strftime("%H:%M:%S"), which wraps
# at 24 hours.
REVERT_IN = {"junos": (60, 65535 * 60, 60), "eos": (1, 24 * 3600 - 1, 1)}
MOCK_DRIVER = "mock"


def napalm_driver(device: DevicePlan) -> str | None:
    """The napalm driver that reaches the device's OS (None: napalm has none)."""
    return vendor_for(device.os).napalm_driver


def check_revert_in(devices: list[DevicePlan], revert_in: int) -> None:
    """A usage error when a device's driver cannot set a commit-confirm timer of revert_in."""
    if revert_in == 0:
        return
    drivers = {driver for driver in map(napalm_driver, devices) if driver}
    for driver in sorted(drivers & REVERT_IN.keys()):
        least, most, step = REVERT_IN[driver]
        if not least <= revert_in <= most or revert_in % step:
            whole = " in whole minutes (a multiple of 60)" if step == 60 else ""
            raise UsageError(
                f"--revert-in {revert_in}: {driver} takes {least} to {most} seconds{whole}"
            )


@dataclass
class LiveResult:
    device: str
    # read, unchanged, would-change, changed, failed, rolled-back, skipped, no-driver
    status: str
    diff: str = ""  # the device's own diff of the candidate (compare_config)
    message: str = ""
    changes: list[Any] = field(default_factory=list)  # lossless's diff of the running config
    impacts: list[ChangeImpact] = field(default_factory=list)  # per change of `changes`
    # `verify --live` and push's gate: the show outputs read (stem -> text), and when
    outputs: dict[str, str] = field(default_factory=dict)
    read_at: float | None = None
    # push: the running config read before it (saved, never printed), and whether a commit
    # of this push stands on the device (rolling back is for those)
    running: str = field(default="", repr=False)
    committed: bool = False

    @property
    def failed(self) -> bool:
        return self.status in ("failed", "rolled-back")

    def to_dict(self, phase: int | None = None) -> dict[str, Any]:
        return {
            "device": self.device,
            "status": self.status,
            "diff": self.diff,
            "message": self.message,
            "changes": self.changes,
            "impacts": [i.to_dict() for i in self.impacts],
            "phase": phase,
        }


# How to put a saved running config back by hand, per driver: the whole config replaces the
# running one, as napalm's load_replace_candidate + commit_config does (napalm 5.2: eos.py
# `rollback clean-config` then the lines, committed and `write memory`; nxos.py `rollback
# running-config file`; junos.py `load override`). Never the rendered fragment: a replace with
# it would remove everything lossless does not own.
@dataclass(frozen=True)
class PushGate:
    """Push waves gated on `verify`: after each wave, wait `settle_s`, read the state of
    every device changed so far and judge it against the baseline read before the push;
    what fails the gate (gate_findings) stops the rollout, and so does a failed device; with
    `rollback`, the devices changed so far get their saved running configs back."""

    settle_s: float
    rollback: bool = False
    sleep: Callable[[float], None] = time.sleep


@dataclass
class GateResult:
    wave: int
    devices: list[str]  # the devices judged: every device changed so far
    errors: list[Finding]
    # what would fail it but the baseline shows too: there before the push (GateVerdict)
    before: list[Finding] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.errors

    def to_dict(self) -> dict[str, Any]:
        return {
            "wave": self.wave,
            "devices": self.devices,
            "passed": self.passed,
            "errors": [_finding_dict(f) for f in self.errors],
            "present_before": [_finding_dict(f) for f in self.before],
        }


def _finding_dict(finding: Finding) -> dict[str, Any]:
    return {
        "rule": finding.rule,
        "device": finding.device,
        "port": finding.port,
        "message": finding.message,
    }


@dataclass
class PushPlan:
    """The change order of the pushed devices and the batches that follow it."""

    order: ChangeOrder
    batches: list[list[str]]
    canary: int
    batch_size: int
    waves: list[int] | None = None  # `--wave` sizes: the batches are waves
    tiers: dict[str, list[str]] = field(default_factory=dict)  # order.link_tiers
    gates: list[GateResult] = field(default_factory=list)
    rollback: list[str] = field(default_factory=list)  # how to roll back after a stop
    backup: str = ""  # the folder the running configs were saved in before the push
    stopped: int | None = None  # the wave (batch) that stopped the rollout
    stop_reason: str = ""

    @property
    def gate_failed(self) -> bool:
        return any(not g.passed for g in self.gates)

    @property
    def unit(self) -> str:
        return "wave" if self.waves else "batch"

    def stop_line(self) -> str:
        """'the rollout stopped at wave N (why)', or '' when it did not stop."""
        if self.stopped is None:
            return ""
        return f"the rollout stopped at {self.unit} {self.stopped} ({self.stop_reason})"

    def lines(self) -> list[str]:
        lines = self.order.lines() + batch_lines(
            self.batches, self.canary, self.batch_size, self.waves, self.tiers
        )
        if self.backup:
            lines.append(f"running configs before the push saved in {self.backup}")
        for gate in self.gates:
            verdict = "passed" if gate.passed else f"FAILED ({plural(len(gate.errors), 'error')})"
            verdict += f"; present before the push: {len(gate.before)}" if gate.before else ""
            lines.append(f"gate after wave {gate.wave} ({', '.join(gate.devices)}): {verdict}")
            lines += [
                f"  {f.rule} {':'.join(x for x in (f.device, f.port) if x)}: {f.message}"
                for f in gate.errors
            ]
        return lines + ([self.stop_line()] if self.stopped is not None else []) + self.rollback

    def to_dict(self) -> dict[str, Any]:
        return {
            **self.order.to_dict(),
            "batches": self.batches,
            "warnings": tier_warnings(self.batches, self.tiers, unit=self.unit),
            "gates": [g.to_dict() for g in self.gates],
            "gate_failed": self.gate_failed,
            "stopped": self.stopped,
            "stop_reason": self.stop_reason,
            "backup": self.backup,
            "rollback": self.rollback,
        }


# -- the gate ---------------------------------------------------------------------------------

# Warnings that fail a gate on a changed device (docs/verify.md): state the gate could not read
# is not shown to be fine (LL310), a link that went down or flapped (LL311) and counters that
# went back, a restart (LL309), are the change's doing until shown otherwise. Excused: what an
# OS's reader always states unread (always_unread), counters the baseline lacks that the change
# made appear (UNCOVERED), a port down in the baseline too (or down then, up now).
GATE_WARNINGS = ("LL309", "LL310", "LL311")
# rules._uncovered's LL310 words for ports and counters the baseline lacks (not a whole switch:
# the baseline refusal makes sure it has every device and planned port)
UNCOVERED = ("the baseline does not cover ", "the baseline lacks counters ")
UNCOVERED_SWITCH = "the baseline does not cover this switch"


@dataclass
class GateVerdict:
    """What fails a gate, and what would but was there before the push (the baseline judged
    alone finds it too): not the change's doing."""

    failing: list[Finding]
    before: list[Finding]


def gate_findings(
    plan: FabricPlan, now: Snapshot, before: Snapshot | None, devices: Collection[str]
) -> GateVerdict:
    """What fails a gate over `devices`: every error verify finds, and each of the
    GATE_WARNINGS it finds that is not excused; but a finding the baseline judged alone
    shows too (same rule, device, port and words) was there before the push."""
    verdict = judge(plan, now, before, devices=devices)
    limits = {name: always_unread(plan.devices[name]) for name in devices}
    found = [
        f
        for f in verdict.findings
        if f.severity == "error"
        or (f.rule in GATE_WARNINGS and not _excused(f, now, before, limits))
    ]
    if before is None:
        return GateVerdict(found, [])
    earlier = {_key(f) for f in judge(plan, _only(before, devices), None, devices=devices).findings}
    return GateVerdict(
        [f for f in found if _key(f) not in earlier], [f for f in found if _key(f) in earlier]
    )


def _key(finding: Finding) -> tuple[str, str | None, str | None, str]:
    return finding.rule, finding.device, finding.port, finding.message


def _only(snapshot: Snapshot, devices: Collection[str]) -> Snapshot:
    """The snapshot's state of `devices` alone, as a gate reads them now: a finding that
    names a link peer's state then says the same of the baseline as of now."""
    return Snapshot(
        {n: s for n, s in snapshot.devices.items() if n in devices},
        {n: f for n, f in snapshot.failures.items() if n in devices},
        {n: a for n, a in snapshot.failed_at.items() if n in devices},
    )


def always_unread(device: DevicePlan) -> set[str]:
    """LL310's words for what the device's OS reader states unread whatever its outputs say
    (EOS and NX-OS count pause frames per port, Junos shows no operational PFC priorities):
    what it states when it reads no output at all, but for the missing outputs themselves
    (observed.read_outputs: "no output of `COMMAND`")."""
    found = reader(device.os)
    if found is None:
        return set()
    missing = {f"no output of `{command}`" for command in commands(device).values()}
    # rules.state_unread's words: should they change, nothing is excused (the gate fails)
    return {
        f"not checked: {what} ({why})"
        for what, why in found.read({}, device).unread
        if why not in missing
    }


def _excused(
    finding: Finding, now: Snapshot, before: Snapshot | None, limits: dict[str, set[str]]
) -> bool:
    if finding.rule == "LL310":
        if finding.message.startswith(UNCOVERED) and not finding.message.startswith(
            UNCOVERED_SWITCH
        ):
            return True  # a counter the change made appear (ECN marking turned on)
        return finding.message in limits.get(finding.device or "", set())
    if finding.rule == "LL311":  # down before the push: down now too, or come up since
        return before is not None and _oper_up(before, finding) is False
    return False


def _oper_up(snapshot: Snapshot, finding: Finding) -> bool | None:
    state = snapshot.devices.get(finding.device or "")
    port = state.ports.get(finding.port or "") if state is not None else None
    return port.oper_up if port is not None else None


# -- the backup -------------------------------------------------------------------------------


def check_backup(folder: Path) -> None:
    """A usage error for a --backup folder that cannot take the backup: a symlink (the
    backup could land anywhere), something else than a folder, one of another user (who
    could swap the config the rollback advice restores), or one that group or others may
    enter (running configs hold secrets)."""
    if folder.is_symlink():
        raise UsageError(f"--backup {folder}: a symlink; refused (give the folder itself)")
    if folder.exists() and not folder.is_dir():
        raise UsageError(f"--backup {folder}: not a folder")
    check_own_folder(folder, "--backup")
    if folder.exists() and not os.access(folder, os.W_OK | os.X_OK):
        raise UsageError(f"--backup {folder}: not writable")
    mode = stat.S_IMODE(folder.stat().st_mode) if folder.exists() else 0
    if mode & 0o077:
        raise UsageError(
            f"--backup {folder}: group or others may open it (mode {mode:o}) and running "
            f"configs hold secrets: `chmod 700 {folder}`, or give another folder"
        )


def save_backup(folder: Path, texts: dict[str, str]) -> None:
    """The running configs read before the push (file name -> text) written into `folder`
    atomically (system/writing.py: all or none), before anything changes: what a rollback
    puts back. Running configs hold secrets: the folder is private (0700, an existing one
    too: check_backup) and so is each file (0600, from its temporary file on). A file of that
    name there already (an earlier push's backup) is a usage error, never overwritten."""
    check_backup(folder)
    for name in texts:
        path = inside(folder, name, "--backup")
        if path.exists() or path.is_symlink():
            raise UsageError(
                f"--backup {folder}: {name} is there already (an earlier push's backup?); "
                "give a new folder"
            )
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as error:
        raise UsageError(f"--backup {folder}: {error.strerror}") from None
    # write_atomically gives its files the umask's mode; nothing else runs meanwhile
    umask = os.umask(0o077)
    try:
        write_atomically(folder, texts)
    finally:
        os.umask(umask)


def live_order(plan: FabricPlan, results: list[LiveResult]) -> ChangeOrder:
    """The phases of the devices read: what lossless's diff of their running configs holds;
    a device that was not read (no driver, a failure) is unknown."""
    read = {"read", "unchanged", "would-change", "changed"}
    return change_order(
        plan,
        {r.device: (r.impacts if r.status in read else None) for r in results},
    )


def _no_driver(device: DevicePlan) -> LiveResult:
    return LiveResult(
        device.name,
        "no-driver",
        message=f"napalm has no driver for {device.os}: use `lossless diff --running` with a "
        "backup"
        + (
            " and push the JSON patch with `config apply-patch`"
            if device.os == "sonic"
            else " and merge the NVUE fragment with `nv config patch` (never `nv config "
            "replace`), then `nv config apply --confirm`"
        ),
    )


class Deployer:
    def __init__(
        self, plan: FabricPlan, credentials: CredentialStore, mock_dir: str | None, workers: int
    ):
        self.plan = plan
        self.credentials = credentials
        self.mock_dir = mock_dir
        self.workers = workers
        # push: device -> (the file its running config was saved in, that config)
        self.saved: dict[str, tuple[Path, str]] = {}

    def _nornir(self, devices: list[DevicePlan], mock_folder: str = "") -> Nornir:
        ConnectionPluginRegister.auto_register()  # nornir_napalm's "napalm" connection
        hosts = {}
        for device in devices:
            creds = (
                self.credentials.for_device(device.name)
                if not self.mock_dir or self.credentials.has(device.name)
                else None
            )
            optional_args: dict[str, Any] = {}
            platform = napalm_driver(device)
            if self.mock_dir:
                platform = MOCK_DRIVER
                path = inside(Path(self.mock_dir), device.name, "--mock")
                optional_args = {"path": str(path / mock_folder if mock_folder else path)}
            hosts[device.name] = Host(
                name=device.name,
                hostname=device.mgmt or device.name,
                username=creds.username if creds else "mock",
                password=creds.password if creds else "mock",
                platform=platform,
                connection_options={
                    "napalm": ConnectionOptions(extras={"optional_args": optional_args})
                },
            )
        inventory = Inventory(hosts=Hosts(hosts), groups=Groups(), defaults=Defaults())
        return Nornir(inventory=inventory, runner=ThreadedRunner(num_workers=self.workers))

    def _run(
        self,
        devices: list[DevicePlan],
        work: Callable[[Any, DevicePlan], LiveResult],
        progress: Callable[[str], None],
        mock_folder: str = "",
    ) -> list[LiveResult]:
        by_name = {d.name: d for d in devices}

        def task(task: Task) -> LiveResult:
            device = by_name[task.host.name]
            try:
                connection = task.host.get_connection("napalm", task.nornir.config)
            except Exception as error:  # cannot connect: nothing was loaded
                result = LiveResult(
                    device.name, "failed", message=self.credentials.scrub(f"connect: {error}")
                )
            else:
                try:
                    result = work(connection, device)
                except BaseException:
                    self._close(task.host)
                    raise
            # after the work: what it did stands (a commit stays committed, to roll back)
            closing = self._close(task.host)
            if closing:
                result.message = "; ".join(x for x in (result.message, closing) if x)
            progress(device.name)
            return result

        aggregated = self._nornir(devices, mock_folder).run(task=task, on_failed=True)
        results = []
        for device in devices:
            multi = aggregated[device.name]
            if multi.failed and multi[0].exception is not None:
                results.append(
                    LiveResult(
                        device.name,
                        "failed",
                        message=self.credentials.scrub(str(multi[0].exception)),
                    )
                )
            else:
                results.append(multi[0].result)
        return results

    def _close(self, host: Host) -> str:
        """Close the host's connections; what went wrong, or ''."""
        try:
            host.close_connections()
        except Exception as error:
            return f"closing the connection failed: {self._error(error)}"
        return ""

    # -- live diff ----------------------------------------------------------------------

    def diff(self, devices: list[DevicePlan], progress: Callable[[str], None]) -> list[LiveResult]:
        supported = [d for d in devices if napalm_driver(d)]

        def work(connection: Any, device: DevicePlan) -> LiveResult:
            read = self._read(connection, device)
            if read.failed:
                return read
            try:
                connection.load_merge_candidate(config=render_device(device, self.plan))
                diff = self._compare(connection)
            except Exception as error:
                failed = LiveResult(device.name, "failed", message=self._error(error))
                return self._discard(connection, failed, "candidate discarded")
            read.status = "would-change" if diff.strip() else "unchanged"
            read.diff = diff
            return self._discard(connection, read)

        done = {r.device: r for r in self._run(supported, work, progress)} if supported else {}
        return [done.get(d.name) or _no_driver(d) for d in devices]

    # -- operational state (verify) -----------------------------------------------------

    def read_state(
        self, devices: list[DevicePlan], progress: Callable[[str], None], reading: int = 0
    ) -> Snapshot:
        """Each device's show outputs through napalm cli(), read by its OS's reader. With
        --mock, reading number `reading` answers from DIR/<device>/state-<reading>/ (one
        folder per read, since each read opens a new mock session)."""
        supported = [d for d in devices if napalm_driver(d)]
        done = (
            self._run(supported, self._show, progress, mock_folder=f"state-{reading}")
            if supported
            else []
        )
        answers: dict[str, dict[str, str] | str] = {
            r.device: (r.outputs if not r.failed else r.message) for r in done
        }
        for device in devices:
            if not napalm_driver(device):
                answers[device.name] = (
                    f"napalm has no driver for {vendor_for(device.os).title}: save its state "
                    "with the collection script (`lossless export state-script`) and use --state"
                )
        read_at = {r.device: r.read_at for r in done}
        return snapshot_from_outputs(self.plan, answers, read_at.get)

    def _show(self, connection: Any, device: DevicePlan) -> LiveResult:
        """The reader's show commands in one cli() call; if the device refuses the call
        (one command it does not know fails them all), each command alone, and a command it
        refuses is left out (its reader says what that leaves unchecked)."""
        stems = commands(device)
        outputs: dict[str, str] = {}
        try:
            answered = connection.cli(list(stems.values()))
            outputs = {stem: answered[command] for stem, command in stems.items()}
        except Exception as error:
            failures = 0
            for stem, command in stems.items():
                try:
                    outputs[stem] = connection.cli([command])[command]
                except Exception:
                    failures += 1
            if failures == len(stems):
                return LiveResult(device.name, "failed", message=f"show: {self._error(error)}")
        texts = {stem: self.credentials.scrub(str(text)) for stem, text in outputs.items()}
        return LiveResult(device.name, "read", outputs=texts, read_at=time.time())

    # -- push ---------------------------------------------------------------------------

    def push(
        self,
        devices: list[DevicePlan],
        commit: bool,
        canary: int,
        batch_size: int,
        revert_in: int,
        progress: Callable[[str], None],
        split_links: bool = False,
        waves: list[int] | None = None,
        gate: PushGate | None = None,
        backup: Path | None = None,
    ) -> tuple[list[LiveResult], PushPlan]:
        """Read every running config, order the devices (docs/change-impact.md), save the
        running configs in `backup` (with commit), then push batch by batch (or wave by
        wave); nothing is pushed while a read failed or, unless split_links, while a
        PFC-coupled change would leave a link's other end out. With a gate (and commit),
        each wave is verified before the next (docs/verify.md). A failed device or gate
        stops the rollout and says how to roll back every device changed so far."""
        if commit:
            check_revert_in(devices, revert_in)
        supported = [d for d in devices if napalm_driver(d)]
        results: dict[str, LiveResult] = {
            d.name: _no_driver(d) for d in devices if not napalm_driver(d)
        }
        reads = (
            {r.device: r for r in self._run(supported, self._read, progress)} if supported else {}
        )
        order = live_order(self.plan, [results.get(d.name) or reads[d.name] for d in devices])
        tiers = link_tiers(self.plan)
        batches = (
            wave_batches(order, waves, tiers)
            if waves
            else push_batches(order, canary, batch_size, tiers)
        )
        plan = PushPlan(order, batches, canary, batch_size, waves, tiers=tiers)
        refusal = self._refusal(reads, order, commit, split_links)
        baseline = None
        if not refusal and commit and gate is not None:
            baseline = self.read_state(supported, lambda _: None)
            refusal = self._baseline_refusal(baseline, [d.name for d in supported])
        if refusal:
            for name, read in reads.items():
                if not read.failed:
                    read.status, read.message = "skipped", refusal
                results[name] = read
            return [results[d.name] for d in devices], plan
        if commit and backup is not None and supported:
            save_backup(backup, {file_name(d): reads[d.name].running for d in supported})
            plan.backup = str(backup)
            self.saved = {d.name: (backup / file_name(d), reads[d.name].running) for d in supported}
        self._roll_out(plan, reads, results, commit, revert_in, progress, baseline, gate)
        return [results[d.name] for d in devices], plan

    def _roll_out(
        self,
        plan: PushPlan,
        reads: dict[str, LiveResult],
        results: dict[str, LiveResult],
        commit: bool,
        revert_in: int,
        progress: Callable[[str], None],
        baseline: Snapshot | None,
        gate: PushGate | None,
    ) -> None:
        """The batches in turn, each gated when there is a gate; the first failed device or
        gate stops the rollout (_stop)."""
        changed_so_far: list[str] = []
        for number, batch in enumerate(plan.batches, start=1):
            if plan.stopped is not None:
                for name in batch:
                    results[name] = reads[name]
                    results[name].status = "skipped"
                    results[name].message = (
                        f"the gate after an earlier {plan.unit} failed"
                        if plan.gate_failed
                        else f"an earlier {plan.unit} failed"
                    ) + f": {plan.stop_line()}"
                continue
            done = self._run(
                [self.plan.devices[name] for name in batch],
                lambda c, d: self._push_one(c, d, commit, revert_in),
                progress,
            )
            for result in done:
                result.changes = reads[result.device].changes
                result.impacts = reads[result.device].impacts
                results[result.device] = result
            failed = {r.device for r in done if r.failed}
            changed = {r.device for r in done if r.status == "changed"}
            for name, links in broken_links(plan.order, failed, changed).items():
                results[name].message += (
                    "; its PFC-coupled link peer failed, so these links disagree on PFC until "
                    "both ends match: " + ", ".join(links)
                )
            changed_so_far += [r.device for r in done if r.committed]
            passed = True
            if baseline is not None and gate is not None and changed_so_far:
                passed = self._gate(plan, number, changed_so_far, baseline, gate)
            why = [f"{', '.join(sorted(failed))} failed"] if failed else []
            why += [] if passed else ["its gate failed"]
            if why:
                self._stop(plan, number, "; ".join(why), results, gate)

    def _baseline_refusal(self, baseline: Snapshot, names: list[str]) -> str:
        """Why the gate has no baseline to judge by ('' when it has): a device that could not
        be read at all, or planned ports it shows no state of. Kinds of state it leaves
        unknown are no reason: the gate excuses what the baseline shows unread too."""
        unread = []
        for name in names:
            state = baseline.devices.get(name)
            if state is None:
                unread.append(f"{name}: not read: {baseline.failures.get(name, 'no state')}")
                continue
            missing = [p for p in self.plan.devices[name].ports if p not in state.ports]
            if missing:
                unread.append(
                    f"{name}: no state for {plural(len(missing), 'planned port')}: "
                    + first_few(missing, 4)
                )
        if not unread:
            return ""
        return "not pushed: the gate needs every device's state before the push (" + (
            "; ".join(unread) + ")"
        )

    def _gate(
        self, plan: PushPlan, wave: int, changed: list[str], baseline: Snapshot, gate: PushGate
    ) -> bool:
        """Verify every device changed so far against the baseline; True when it passes."""
        gate.sleep(gate.settle_s)
        devices = [self.plan.devices[name] for name in changed]
        now = self.read_state(devices, lambda _: None, reading=wave)
        verdict = gate_findings(self.plan, now, baseline, changed)
        plan.gates.append(GateResult(wave, list(changed), verdict.failing, verdict.before))
        return not verdict.failing

    def _stop(
        self,
        plan: PushPlan,
        number: int,
        why: str,
        results: dict[str, LiveResult],
        gate: PushGate | None,
    ) -> None:
        """Stop the rollout at batch `number`: with a gate that rolls back, put the saved
        running config back on every device changed so far; say how for those still
        changed."""
        plan.stopped, plan.stop_reason = number, why
        changed = [name for name, r in results.items() if r.committed]
        if changed and gate is not None and gate.rollback:
            for done in self._run(
                [self.plan.devices[n] for n in changed], self._restore, lambda _: None
            ):
                result = results[done.device]
                result.message = "; ".join(
                    x for x in (result.message, f"{plan.stop_line()}: {done.message}") if x
                )
                result.status = done.status
                result.committed = done.status != "rolled-back"
            changed = [name for name in changed if results[name].committed]
        if changed:
            plan.rollback = self._advice(changed)

    def _advice(self, changed: list[str]) -> list[str]:
        """How to roll back each device still changed: its saved running config put back."""
        lines = [
            f"to roll back the {plural(len(changed), 'device')} changed so far, put back "
            "each one's running config saved before the push, whole (a merge cannot remove "
            "what the push added; never replace with the rendered config); with --gate, "
            "--rollback-on-gate-failure does this through napalm:"
        ]
        for name in changed:
            path, _ = self.saved.get(name, (None, ""))
            hint = vendor_for(self.plan.devices[name].os).restore_hint
            lines.append(
                f"  {name}: {path}: {hint.format(name=path.name)}"
                if path is not None and hint
                else f"  {name}: no saved running config: restore it from your own backup"
            )
        return lines

    def _restore(self, connection: Any, device: DevicePlan) -> LiveResult:
        """Replace the device's running config with the one saved before the push."""
        path, running = self.saved.get(device.name, (None, ""))
        if not running:
            return LiveResult(device.name, "failed", message="not rolled back: nothing saved")
        try:
            connection.load_replace_candidate(config=running)
            connection.commit_config()
        except Exception as error:
            # its text can quote the saved config (pyeapi's CommandError names the command
            # that failed, an snmp community with it): the type alone, never the text
            failed = LiveResult(
                device.name,
                "failed",
                message=f"roll back: {type(error).__name__}: the device refused the saved "
                "running config (its message is not shown: it can quote the config's secrets); "
                "put it back by hand",
            )
            return self._discard(connection, failed)
        return LiveResult(
            device.name, "rolled-back", message=f"rolled back to the running config in {path}"
        )

    @staticmethod
    def _refusal(
        reads: dict[str, LiveResult], order: ChangeOrder, commit: bool, split_links: bool
    ) -> str:
        """Why nothing may be pushed, or ''."""
        unread = sorted(name for name, read in reads.items() if read.failed)
        if unread:
            return (
                f"not pushed: the change order needs every running config ({', '.join(unread)} "
                "could not be read)"
            )
        if commit and order.split_links and not split_links:
            return (
                "not pushed: PFC-coupled changes would leave these links' ends disagreeing: "
                + "; ".join(order.split_links)
                + " (push both ends together, or --split-links if the other end already has "
                "the new PFC settings)"
            )
        return ""

    def _read(self, connection: Any, device: DevicePlan) -> LiveResult:
        """Lossless's diff of the device's running config, each change classified."""
        try:
            running = connection.get_config(retrieve="running")["running"]
            changes = diff_text(
                device.os, running, render_device(device, self.plan), f"{device.name} (running)"
            )
        except Exception as error:
            return LiveResult(device.name, "failed", message=f"read: {self._error(error)}")
        kind = vendor_for(device.os).diff_kind
        return LiveResult(
            device.name,
            "read",
            changes=changes,
            impacts=classify(device.os, kind, changes),
            running=running,
        )

    def _push_one(
        self, connection: Any, device: DevicePlan, commit: bool, revert_in: int
    ) -> LiveResult:
        committed = False
        try:
            connection.load_merge_candidate(config=render_device(device, self.plan))
            diff = self._compare(connection)
            if not diff.strip():
                return self._discard(connection, LiveResult(device.name, "unchanged"))
            if not commit:
                dry_run = LiveResult(device.name, "would-change", diff, "dry run")
                return self._discard(connection, dry_run, "candidate discarded")
            confirm = napalm_driver(device) in COMMIT_CONFIRM and revert_in > 0
            if confirm:
                connection.commit_config(revert_in=revert_in)
            else:
                connection.commit_config()
            committed = True
            problem = self._post_check(connection, device)
            if problem:  # unconfirmed (eos, junos) or just committed (nxos): napalm's
                # rollback() undoes that commit (aborts it, rollback 1, its checkpoint)
                connection.rollback()
                return LiveResult(
                    device.name,
                    "rolled-back",
                    diff,
                    f"post-check failed, not confirmed, rolled back: {problem}",
                )
            if confirm:
                connection.confirm_commit()
            return LiveResult(
                device.name,
                "changed",
                diff,
                "confirmed after post-check" if confirm else "post-check passed",
                committed=True,
            )
        except Exception as error:
            message = self._error(error)
            if committed:
                try:
                    connection.rollback()
                    return LiveResult(device.name, "rolled-back", message=f"{message}; rolled back")
                except Exception as rollback_error:
                    return LiveResult(
                        device.name,
                        "failed",
                        message=f"{message}; rollback failed: {self._error(rollback_error)}",
                        committed=True,
                    )
            failed = LiveResult(device.name, "failed", message=message)
            return self._discard(connection, failed, "candidate discarded")

    def _post_check(self, connection: Any, device: DevicePlan) -> str:
        """Read the running config back and compare what it says with what the config pushed
        says, both read by the OS's parser; '' when they agree. (Not with the plan: a device
        whose ports are all unlinked states no PFC, and its plan's lossless priorities are
        then nowhere in the config; the render's round trip is tested apart.)"""
        vendor = vendor_for(device.os)
        running = connection.get_config(retrieve="running")["running"]
        parsed = parse_config(device.os, running, f"{device.name} (running)", device.name, device)
        pushed = parse_config(
            device.os,
            render_device(device, self.plan),
            f"{device.name} (pushed)",
            device.name,
            device,
        )
        return "; ".join(
            " ".join(x for x in (f.port, f.message) if x) for f in drift(pushed, parsed, vendor)
        )

    def _compare(self, connection: Any) -> str:
        """The device's diff of the candidate; it can hold the running config's own lines
        (`username x secret 0 ...`), so it is scrubbed like any text from a device."""
        return self.credentials.scrub(connection.compare_config() or "")

    def _discard(self, connection: Any, result: LiveResult, done: str = "") -> LiveResult:
        """Discard the candidate, then return result with `done` added to its message; if the
        discard fails the candidate is still on the device: the result is a failure saying so."""
        try:
            connection.discard_config()
        except Exception as error:
            result.status = "failed"
            done = f"candidate NOT discarded: {self._error(error)}"
        result.message = "; ".join(part for part in (result.message, done) if part)
        return result

    def _error(self, error: Exception) -> str:
        if isinstance(error, InputError):  # the running config read back cannot be parsed
            return self.credentials.scrub(str(error))
        return self.credentials.scrub(f"{type(error).__name__}: {error}")
