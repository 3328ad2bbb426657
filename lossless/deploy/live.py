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
"""

from __future__ import annotations

import time
from collections.abc import Callable
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
    push_batches,
    wave_batches,
)
from lossless.errors import InputError, UsageError
from lossless.lint.drift import drift
from lossless.lint.registry import Finding
from lossless.plan import DevicePlan, FabricPlan
from lossless.system.files import inside
from lossless.text.grammar import plural
from lossless.vendors.registry import vendor_for
from lossless.vendors.rendering import render_device
from lossless.vendors.untrusted import diff_text, parse_config
from lossless.verify.collect import Snapshot, commands, snapshot_from_outputs
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


# What napalm's rollback() restores, per driver (napalm 5: eos.py, junos.py, nxos.py)
ROLLBACK = {
    "eos": "`configure replace flash:rollback-0` (the config before the commit)",
    "junos": "`rollback 1` and commit",
    "nxos": "`rollback running-config file rollback_config.txt` (napalm's checkpoint from "
    "before the commit)",
}


@dataclass(frozen=True)
class PushGate:
    """Push waves gated on `verify`: after each wave, wait `settle_s`, read the state of
    every device changed so far and judge it against the baseline read before the push; an
    error stops the rollout (and with `rollback`, rolls the changed devices back)."""

    settle_s: float
    rollback: bool = False
    sleep: Callable[[float], None] = time.sleep


@dataclass
class GateResult:
    wave: int
    devices: list[str]  # the devices judged: every device changed so far
    errors: list[Finding]

    @property
    def passed(self) -> bool:
        return not self.errors

    def to_dict(self) -> dict[str, Any]:
        return {
            "wave": self.wave,
            "devices": self.devices,
            "passed": self.passed,
            "errors": [
                {"rule": f.rule, "device": f.device, "port": f.port, "message": f.message}
                for f in self.errors
            ],
        }


@dataclass
class PushPlan:
    """The change order of the pushed devices and the batches that follow it."""

    order: ChangeOrder
    batches: list[list[str]]
    canary: int
    batch_size: int
    waves: list[int] | None = None  # `--wave` sizes: the batches are waves
    gates: list[GateResult] = field(default_factory=list)
    rollback: list[str] = field(default_factory=list)  # how to roll back after a failed gate

    @property
    def gate_failed(self) -> bool:
        return any(not g.passed for g in self.gates)

    def lines(self) -> list[str]:
        lines = self.order.lines() + batch_lines(
            self.batches, self.canary, self.batch_size, self.waves
        )
        for gate in self.gates:
            verdict = "passed" if gate.passed else f"FAILED ({plural(len(gate.errors), 'error')})"
            lines.append(f"gate after wave {gate.wave} ({', '.join(gate.devices)}): {verdict}")
            lines += [
                f"  {f.rule} {':'.join(x for x in (f.device, f.port) if x)}: {f.message}"
                for f in gate.errors
            ]
        return lines + self.rollback

    def to_dict(self) -> dict[str, Any]:
        return {
            **self.order.to_dict(),
            "batches": self.batches,
            "gates": [g.to_dict() for g in self.gates],
            "rollback": self.rollback,
        }


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
                result = work(connection, device)
            finally:
                task.host.close_connections()
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
    ) -> tuple[list[LiveResult], PushPlan]:
        """Read every running config, order the devices (docs/change-impact.md), then push
        batch by batch (or wave by wave); nothing is pushed while a read failed or, unless
        split_links, while a PFC-coupled change would leave a link's other end out. With a
        gate (and commit), each wave is verified before the next (docs/verify.md)."""
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
        batches = wave_batches(order, waves) if waves else push_batches(order, canary, batch_size)
        plan = PushPlan(order, batches, canary, batch_size, waves)
        refusal = self._refusal(reads, order, commit, split_links)
        by_name = {d.name: d for d in supported}
        baseline = None
        if not refusal and commit and gate is not None:
            baseline = self.read_state(supported, lambda _: None)
            if baseline.failures:
                refusal = "not pushed: the gate needs every device's state before the push (" + (
                    "; ".join(f"{n}: {why}" for n, why in sorted(baseline.failures.items())) + ")"
                )
        if refusal:
            for name, read in reads.items():
                if not read.failed:
                    read.status, read.message = "skipped", refusal
                results[name] = read
            return [results[d.name] for d in devices], plan
        stopped = False
        changed_so_far: list[str] = []
        for number, batch in enumerate(plan.batches, start=1):
            if stopped:
                for name in batch:
                    results[name] = reads[name]
                    results[name].status = "skipped"
                    results[name].message = (
                        "the gate after an earlier wave failed"
                        if plan.gate_failed
                        else "an earlier batch failed"
                    )
                continue
            done = self._run(
                [by_name[name] for name in batch],
                lambda c, d: self._push_one(c, d, commit, revert_in),
                progress,
            )
            for result in done:
                result.changes = reads[result.device].changes
                result.impacts = reads[result.device].impacts
                results[result.device] = result
                stopped = stopped or result.failed
            failed = {r.device for r in done if r.failed}
            changed = {r.device for r in done if r.status == "changed"}
            for name, links in broken_links(plan.order, failed, changed).items():
                results[name].message += (
                    "; its PFC-coupled link peer failed, so these links disagree on PFC until "
                    "both ends match: " + ", ".join(links)
                )
            changed_so_far += [r.device for r in done if r.status == "changed"]
            if baseline is not None and gate is not None and not stopped and changed_so_far:
                stopped = not self._gate(plan, number, changed_so_far, baseline, gate, results)
        return [results[d.name] for d in devices], plan

    def _gate(
        self,
        plan: PushPlan,
        wave: int,
        changed: list[str],
        baseline: Snapshot,
        gate: PushGate,
        results: dict[str, LiveResult],
    ) -> bool:
        """Verify every device changed so far against the baseline; True when it passes.
        A failure says how to roll back, or rolls back when the gate says so."""
        gate.sleep(gate.settle_s)
        devices = [self.plan.devices[name] for name in changed]
        now = self.read_state(devices, lambda _: None, reading=wave)
        verdict = judge(self.plan, now, baseline, devices=changed)
        errors = [f for f in verdict.findings if f.severity == "error"]
        plan.gates.append(GateResult(wave, list(changed), errors))
        if not errors:
            return True
        if gate.rollback:
            for result in self._run(devices, self._roll_back, lambda _: None):
                results[result.device].status = result.status
                results[result.device].message += f"; gate after wave {wave} failed: " + (
                    result.message
                )
            return False
        plan.rollback = [
            f"the gate after wave {wave} failed: the rollout stopped. To roll back the "
            "devices changed so far, push the previous inventory (git checkout the last good "
            "commit; lossless push --commit --device ...), or on each device napalm's "
            "rollback() does:"
        ] + [
            f"  {name}: {ROLLBACK.get(napalm_driver(self.plan.devices[name]) or '', 'n/a')}"
            for name in changed
        ]
        return False

    def _roll_back(self, connection: Any, device: DevicePlan) -> LiveResult:
        try:
            connection.rollback()
        except Exception as error:
            return LiveResult(device.name, "failed", message=f"rollback: {self._error(error)}")
        return LiveResult(device.name, "rolled-back", message="rolled back")

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
            device.name, "read", changes=changes, impacts=classify(device.os, kind, changes)
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
            if problem:
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
