"""The cases of issue 36, each as a test: rendered values lint did not read back, a deleted
line that gave a cascade of findings (some false), and configs linted alone that passed with
RoCE's class lossy. Each config is the lab's golden render with one line changed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import INVENTORIES, REPO, beyond_the_lab_warning

LAB = INVENTORIES / "lab.yaml"
GOLDEN = REPO / "golden" / "lab"


def _changed(tmp_path: Path, name: str, old: str, new: str) -> Path:
    """The golden config `name` with `old` replaced by `new` (once), alone in a folder."""
    text = (GOLDEN / name).read_text()
    assert text.count(old) == 1, old
    folder = tmp_path / "configs"
    folder.mkdir(exist_ok=True)
    path = folder / name
    path.write_text(text.replace(old, new))
    return path


def _findings(run, *argv: str) -> tuple[int, list[dict]]:
    result = run("lint", *argv, "--format", "json")
    found = [f for f in json.loads(result.out) if f["rule"] != "LL201"]
    return result.code, beyond_the_lab_warning(found)  # leaf4 (QFX5220): no PFC watchdog


def _line_of(path: Path, text: str) -> int:
    return next(n for n, line in enumerate(path.read_text().splitlines(), 1) if text in line)


# -- values lint did not read --------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "old", "new", "message"),
    [
        (
            "leaf3.cfg",
            "    mtu 9216\n    pause pfc-cos 3",
            "    mtu 1500\n    pause pfc-cos 3",
            "MTU is 1500 in the config, 9100 in the plan",
        ),
        (
            "leaf2.yaml",
            "        robustness: 2",
            "        robustness: 3",
            "PFC watchdog timers is detection 300 ms, restoration 0 ms in the config, "
            "detection 200 ms, restoration 0 ms in the plan",
        ),
        (
            "leaf1.json",
            '"wred_green_enable": "true"',
            '"wred_green_enable": "false"',
            "ECN: queue 3: not set in the config",
        ),
    ],
    ids=[
        "nxos-no-drop-class-mtu",
        "nvue-robustness",
        "sonic-green-wred-off",
    ],
)
def test_a_changed_value_is_drift(run, tmp_path, name, old, new, message):
    """The WRED averaging weight (0: the instantaneous queue, what DCQCN needs), the NX-OS
    no-drop class MTU on routed ports (it carves the class's buffer), the NVUE watchdog
    robustness (detection = interval x robustness) and SONiC's green WRED enable (RoCE is
    green) are read: changed, they are drift at their line."""
    path = _changed(tmp_path, name, old, new)
    code, findings = _findings(run, str(LAB), "--configs", str(path.parent))
    assert code == 1
    [finding] = [f for f in findings if message in f["message"]]
    assert finding["rule"] == "LL200"
    line = new.splitlines()[0].strip().split(":")[0] if name.endswith(".yaml") else new.strip()
    if not name.endswith(".json"):
        assert finding["line"] == _line_of(path, line.splitlines()[0])


@pytest.mark.parametrize(
    ("name", "old", "new"),
    [
        ("spine1.cfg", "max-mark-probability 100 weight 0", "max-mark-probability 100 weight 1"),
        ("leaf3.cfg", "drop-probability 100 weight 0 ecn", "drop-probability 100 weight 4 ecn"),
    ],
    ids=["eos", "nxos"],
)
def test_an_averaged_ecn_queue_is_ll111(run, tmp_path, name, old, new):
    """The WRED averaging weight was not read: 0 marks on the instantaneous queue, what
    DCQCN needs; 1 or more averages and marks late. LL111 at the ECN line, with the
    inventory (the one finding: the plan's weight is always 0) and alone."""
    path = _changed(tmp_path, name, old, new)
    os_name = {"spine1.cfg": "eos", "leaf3.cfg": "nxos"}[name]
    weight = new.split("weight ")[1].split()[0]
    for argv in (
        (str(LAB), "--configs", str(path.parent)),
        ("--config", str(path), "--os", os_name),
    ):
        code, findings = _findings(run, *argv)
        assert code == 1
        [finding] = [f for f in findings if f["rule"] == "LL111"]
        assert f"ECN averages the queue (weight {weight})" in finding["message"]
        assert finding["line"] == _line_of(path, new)
        assert not [f for f in findings if f["rule"] == "LL200"]


@pytest.mark.parametrize(
    ("name", "old", "new", "says"),
    [
        ("spine1.cfg", "   uc-tx-queue 7\n", "   uc-tx-queue 8\n", "names no queue (0-7)"),
        ("spine1.cfg", "qos map dscp 48 to", "qos map dscp 96 to", "dscp 0-63 to traffic-class"),
        (
            "spine1.cfg",
            "qos map traffic-class 3 to tx-queue 3",
            "qos map traffic-class 3 to tx-queue 9",
            "traffic-class 0-7 to tx-queue 0-7",
        ),
        ("spine1.cfg", "kbytes maximum-threshold", "kbits maximum-threshold", "thresholds take"),
        ("leaf3.cfg", "network-qos c-8q-nq-default", "network-qos c-16q-nq-default", "no queue"),
        ("leaf3.cfg", "    mtu 9216\n    pause", "    mtu 18432\n    pause", "largest MTU, 9216"),
        ("leaf1.json", '"10": "0",', '"20": "0",', "repeats the key of line"),
        ("leaf2.yaml", "inner-ipv6-label: disabled", "inner-ipv7-label: disabled", "ecmp-hash"),
    ],
    ids=[
        "eos-uc-tx-queue-8",
        "eos-dscp-96",
        "eos-tx-queue-9",
        "eos-ecn-unit",
        "nxos-16q-class",
        "nxos-class-mtu-18432",
        "sonic-repeated-key",
        "nvue-unknown-hash-field",
    ],
)
def test_a_statement_that_cannot_be_read_is_refused_at_its_line(
    run, tmp_path, name, old, new, says
):
    """A statement of a section lossless reads, that names what the switch does not have, is
    reported (exit 2, FILE:LINE), never dropped: read without it, the config would be judged
    for a switch it does not describe."""
    path = _changed(tmp_path, name, old, new)
    result = run("lint", str(LAB), "--configs", str(path.parent))
    assert result.code == 2
    assert says in result.err
    first = new.strip().splitlines()[0].split(":")[0].strip('"')
    line = _line_of(path, first)  # the changed line, or the line whose key it repeats
    assert result.err.startswith(f"{path}:{line}:") or f"repeats the key of line {line}:" in (
        result.err
    )


def test_eos_ecn_thresholds_in_time_units_are_read_at_the_port_speed(run, tmp_path):
    """AVD writes `random-detect ecn ... milliseconds` (its schema allows the unit): read at
    the port's 400G, 3 us is 150 kB and 10 us 500 kB, the plan's thresholds: no finding."""
    old = "minimum-threshold 150 kbytes maximum-threshold 500 kbytes"
    new = "minimum-threshold 3 microseconds maximum-threshold 10 microseconds"
    path = _changed(tmp_path, "spine1.cfg", old, new)
    code, findings = _findings(run, str(LAB), "--configs", str(path.parent))
    assert (code, findings) == (0, [])
    new = "minimum-threshold 3 milliseconds maximum-threshold 10 milliseconds"
    path = _changed(tmp_path, "spine1.cfg", old, new)
    code, findings = _findings(run, str(LAB), "--configs", str(path.parent))
    assert any("min 150000000 max 500000000 B" in f["message"] for f in findings)


# -- one cause, one finding; every finding true of the file ----------------------------------


def test_a_deleted_no_drop_line_is_one_finding_naming_what_it_takes(run, tmp_path):
    """Issue 36: without `priority-flow-control priority 3 no-drop`, the lab's EOS spine1 gave
    15 errors, some false (the watchdog poll interval "not set" at the line that sets it, ECN
    "not set" beside its line, the queues "strict (default)"), and each link's mismatch twice.
    Now: one LL200 for the PFC priorities at the profile (where the line belongs), naming what
    the lossy priority takes with it, and each link's LL105 (which follows from it: folded
    into it, lint/consequences.py) named in it."""
    path = _changed(tmp_path, "spine1.cfg", "   priority-flow-control priority 3 no-drop\n", "")
    code, findings = _findings(run, str(LAB), "--configs", str(path.parent))
    assert code == 1
    profile = _line_of(path, "qos profile ROCE_LOSSLESS")
    assert [(f["rule"], f["line"]) for f in findings] == [("LL200", profile)]
    [drift] = findings
    assert drift["message"].count("(LL105): ") == 4
    assert (
        "PFC priorities is none in the config, 3 in the plan: priority 3 is lossy here"
        in (drift["message"])
    )
    assert "headroom, ECN marking and PFC watchdog" in drift["message"]
    assert all(f["file"] == str(path) for f in findings)  # none at the inventory's line


def test_a_deleted_pause_line_on_nxos_is_one_finding(run, tmp_path):
    """NX-OS without `pause pfc-cos 3` gave 14 errors ("PFC watchdog is off" four times): now
    one LL200 at the network-qos policy, the links' and the NICs' mismatches at that line."""
    path = _changed(tmp_path, "leaf3.cfg", "    pause pfc-cos 3\n", "")
    code, findings = _findings(run, str(LAB), "--configs", str(path.parent))
    assert code == 1
    where = _line_of(path, "policy-map type network-qos QOS_NETWORK")  # where no-drop belongs
    assert {f["line"] for f in findings} == {where}
    assert [f["rule"] for f in findings if f["rule"] == "LL200"] == ["LL200"]
    assert not any("watchdog" in f["message"].split(":")[0] for f in findings)


def test_a_link_mismatch_is_reported_once_at_the_config_line(run, tmp_path):
    path = _changed(
        tmp_path,
        "spine1.cfg",
        "interface Ethernet1/1\n   description fabric downlink\n   mtu 9100",
        "interface Ethernet1/1\n   description fabric downlink\n   mtu 9000",
    )
    _, findings = _findings(run, str(LAB), "--configs", str(path.parent))
    # the link's mismatch follows from spine1's own MTU drift: one finding, the drift's,
    # naming it (lint/consequences.py)
    [mismatch] = findings
    assert mismatch["rule"] == "LL200" and "(LL106): " in mismatch["message"]
    assert mismatch["file"] == str(path)
    assert mismatch["line"] == _line_of(path, "mtu 9000")


def test_a_watchdog_turned_off_leaves_its_timers_stated(run, tmp_path):
    """Without the profile's `priority-flow-control pause watchdog`, the watchdog is off: said
    once per port group, and the poll interval at line 19, which sets it, is not "not set"."""
    path = _changed(tmp_path, "spine1.cfg", "   priority-flow-control pause watchdog\n", "")
    code, findings = _findings(run, str(LAB), "--configs", str(path.parent))
    assert code == 1
    assert not any("not set" in f["message"] and "poll" in f["message"] for f in findings)
    assert any(f["message"].startswith("PFC watchdog is off in the config") for f in findings)


# -- a config alone ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "os_name", "line", "statement"),
    [
        ("spine1.cfg", "eos", "   priority-flow-control priority 3 no-drop\n", "qos profile"),
        ("leaf3.cfg", "nxos", "    pause pfc-cos 3\n", "policy-map type network-qos"),
    ],
)
def test_a_config_alone_with_roce_lossy_is_ll124(run, tmp_path, name, os_name, line, statement):
    """The config alone with its only no-drop line deleted linted clean (0 errors): RoCE's
    DSCP 26 reaches no lossless class, LL124, at the statement that should make it lossless."""
    path = _changed(tmp_path, name, line, "")
    code, findings = _findings(run, "--config", str(path), "--os", os_name)
    assert code == 1
    [finding] = [f for f in findings if f["rule"] == "LL124"]
    assert "maps to TC 3, which is not lossless: no port runs PFC" in finding["message"]
    assert finding["line"] == _line_of(path, statement)


def test_ll124_points_at_the_traffic_class_to_queue_line(run, tmp_path):
    """`qos map traffic-class 3 to tx-queue 2` moves RoCE to a queue PFC does not pause:
    LL124 at that line, not at the DSCP map."""
    path = _changed(
        tmp_path,
        "spine1.cfg",
        "qos map traffic-class 3 to tx-queue 3",
        "qos map traffic-class 3 to tx-queue 2",
    )
    _, findings = _findings(run, "--config", str(path), "--os", "eos")
    [finding] = [f for f in findings if f["rule"] == "LL124"]
    assert "queued in 2, but a PFC pause of priority 3 stops queue 3" in finding["message"]
    assert finding["line"] == _line_of(path, "qos map traffic-class 3 to tx-queue 2")


def test_junos_pause_sent_on_one_priority_and_honoured_on_another_is_ll124(run, tmp_path):
    """Issue 36: class NO-LOSS with `pfc-priority 4` while the congestion-notification
    profile's output `ieee-802.1 code-point 011` (priority 3) flow-controls its queue: the
    switch sends pause on 4 and honours it on 3. It linted clean; now LL124, an error, at the
    flow-control statement."""
    path = _changed(tmp_path, "leaf4.conf", "no-loss pfc-priority 3;", "no-loss pfc-priority 4;")
    code, findings = _findings(run, "--config", str(path), "--os", "junos")
    assert code == 1
    [finding] = [f for f in findings if f["rule"] == "LL124"]
    assert finding["severity"] == "error"
    assert "a received pause of priority 4 stops no queue" in finding["message"]
    assert "its queue 4 honours a pause of priority 3" in finding["message"]
    assert finding["line"] == _line_of(path, "flow-control-queue 4")


def test_eos_watchdog_override_action_drop_is_read(run, tmp_path):
    """AVD writes `priority-flow-control pause watchdog override action drop` (its
    `override_action_drop`): every port's watchdog drops, whatever its action. It was not
    read: the action stayed EOS's default errdisable (drift; alone, LL115's warning)."""
    path = _changed(
        tmp_path,
        "spine1.cfg",
        "priority-flow-control pause watchdog action drop\n",
        "priority-flow-control pause watchdog action errdisable\n"
        "priority-flow-control pause watchdog override action drop\n",
    )
    code, findings = _findings(run, str(LAB), "--configs", str(path.parent))
    assert (code, findings) == (0, [])
    code, findings = _findings(run, "--config", str(path), "--os", "eos")
    assert not [f for f in findings if f["rule"] == "LL115"]


def test_dscps_the_default_map_puts_in_the_lossless_class_are_ll127(run, tmp_path):
    """A config that maps only 26 -> 3 and 48 -> 6 (as AVD's does) leaves EOS's default map
    (DSCP/8) putting 24, 25 and 27-31 in lossless TC 3: alone, a warning at the RoCE line;
    with the inventory, the map differs from the plan's (LL200), the one finding."""
    path = _changed(
        tmp_path, "spine1.cfg", (GOLDEN / "spine1.cfg").read_text().splitlines()[0] + "\n", ""
    )
    code, findings = _findings(run, "--config", str(path), "--os", "eos")
    assert code == 0
    [finding] = findings
    assert finding["rule"] == "LL127" and finding["severity"] == "warning"
    assert finding["message"].startswith("DSCP 24-25, 27-31 map to TC 3 with RoCE DSCP 26")
    assert finding["line"] == _line_of(path, "qos map dscp 26 to traffic-class 3")
    code, findings = _findings(run, str(LAB), "--configs", str(path.parent))
    assert [f["rule"] for f in findings] == ["LL200"]


@pytest.mark.parametrize(
    ("old", "new", "ports"),
    [
        (
            "interface Ethernet1/1\n   description fabric downlink\n   mtu 9100\n",
            "interface Ethernet1/1\n   description fabric downlink\n   mtu 9100\n"
            "   qos trust cos\n",
            "1 port: Ethernet1/1",
        ),
        ("   qos trust dscp\n", "", "4 ports"),
    ],
    ids=["interface-trusts-cos", "switchport-profile-without-trust"],
)
def test_a_pfc_port_that_classifies_by_cos_is_ll124_alone(run, tmp_path, old, new, ports):
    """A per-interface `qos trust cos` over the profile's `qos trust dscp`, or a switchport
    whose profile sets no trust (EOS then trusts CoS), gave no finding alone: RoCE's DSCP
    does not classify there, LL124 at the trust statement (or the profile lacking it)."""
    path = _changed(tmp_path, "spine1.cfg", old, new)
    code, findings = _findings(run, "--config", str(path), "--os", "eos")
    assert code == 1
    [finding] = [f for f in findings if f["rule"] == "LL124"]
    assert "does not classify on these ports: they trust CoS" in finding["message"]
    assert ports in finding["message"]
    statement = "qos trust cos" if new else "qos profile ROCE_LOSSLESS"
    assert finding["line"] == _line_of(path, statement)


# -- configs rendered by a peer tool: AVD (tests/data/avd, pyavd 6.4.0) ------------------------

AVD = REPO / "tests" / "data" / "avd"


@pytest.mark.parametrize(
    ("name", "extra", "code", "expected"),
    [
        ("clean", (), 0, []),
        ("ecn-milliseconds", ("--platform", "7060DX5-32"), 1, [("LL112", "random-detect ecn")]),
        ("ecn-weight-1", (), 1, [("LL111", "random-detect ecn")]),
        ("watchdog-override-drop", (), 0, []),
        ("interface-trust-cos", (), 1, [("LL124", "qos trust cos")]),
        ("switchport-profile-no-trust", (), 1, [("LL124", "qos profile ROCE")]),
        ("map-26-and-48-only", (), 0, [("LL127", "qos map dscp 26 to traffic-class 3")]),
        ("tc3-to-tx-queue-2", (), 1, [("LL124", "qos map traffic-class 3 to tx-queue 2")]),
        ("no-drop-removed", (), 1, [("LL124", "qos profile ROCE")]),
    ],
)
def test_avd_rendered_configs_are_judged_at_their_lines(run, name, extra, code, expected):
    """AVD's own lines are read: ECN thresholds in milliseconds, `override action drop`,
    per-interface trust, partial DSCP maps; each variant is found at the line that states
    it, and the clean render and the override are clean."""
    path = AVD / f"{name}.cfg"
    got_code, findings = _findings(run, "--config", str(path), "--os", "eos", *extra)
    assert got_code == code, findings
    assert sorted((f["rule"], f["line"]) for f in findings) == sorted(
        (rule, _line_of(path, statement)) for rule, statement in expected
    )


def test_avd_ecn_in_milliseconds_without_a_port_speed_is_refused_at_its_line(run):
    """A time threshold is bytes at the port's speed; with no speed in the config and no
    --platform it cannot be read, and is reported (exit 2 at the line), never dropped."""
    path = AVD / "ecn-milliseconds.cfg"
    result = run("lint", "--config", str(path), "--os", "eos")
    assert result.code == 2
    assert result.err.startswith(f"{path}:{_line_of(path, 'random-detect ecn minimum')}:")
    assert "speed is not in the config" in result.err


def test_findings_about_one_queue_point_at_that_queue(run, tmp_path):
    """LL110 about queue 4 pointed at queue 3's ECN line, and LL113 about CNP queue 6 at
    `uc-tx-queue 0`: now at the statement that should say it (the profile, queue 4 having
    no block) and at queue 6's own block."""
    text = (AVD / "clean.cfg").read_text()
    moved = (
        text.replace("qos map dscp 26 to traffic-class 3", "qos map dscp 26 to traffic-class 4")
        .replace(
            "priority-flow-control priority 3 no-drop", "priority-flow-control priority 4 no-drop"
        )
        .replace(
            "   uc-tx-queue 6\n      priority strict\n", "   uc-tx-queue 6\n      no priority\n"
        )
    )
    path = tmp_path / "leaf.cfg"
    path.write_text(moved)
    _, findings = _findings(run, "--config", str(path), "--os", "eos")
    where = {f["rule"]: f["line"] for f in findings}
    assert where["LL110"] == _line_of(path, "qos profile ROCE")
    assert where["LL113"] == _line_of(path, "   uc-tx-queue 6")


def test_roce_moved_to_another_queue_is_found_at_the_map_line_only(run, tmp_path):
    """With the inventory, `qos map traffic-class 3 to tx-queue 2` also gave an "egress
    scheduling" LL200 at `uc-tx-queue 0` (queue 2 lossless, queue 3 not): the queues are
    scheduled as planned, the map decides which carries RoCE. The map's line is the finding."""
    path = _changed(
        tmp_path,
        "spine1.cfg",
        "qos map traffic-class 3 to tx-queue 3",
        "qos map traffic-class 3 to tx-queue 2",
    )
    code, findings = _findings(run, str(LAB), "--configs", str(path.parent))
    assert code == 1
    line = _line_of(path, "qos map traffic-class 3 to tx-queue 2")
    assert sorted((f["rule"], f["line"]) for f in findings) == [("LL124", line), ("LL200", line)]
    assert not any(f["message"].startswith("egress scheduling") for f in findings)


@pytest.mark.parametrize(
    ("name", "old", "new", "needle"),
    [
        (
            "spine1.cfg",
            "   uc-tx-queue 3\n      no priority\n      bandwidth percent 50",
            "   uc-tx-queue 3\n      no priority\n      bandwidth percent 40",
            "   uc-tx-queue 3",
        ),
        (
            "leaf3.cfg",
            "  class type queuing c-out-8q-q3\n    bandwidth remaining percent 50",
            "  class type queuing c-out-8q-q3\n    bandwidth remaining percent 40",
            "    bandwidth remaining percent 40",
        ),
    ],
    ids=["eos", "nxos"],
)
def test_a_queue_scheduled_otherwise_is_found_at_that_queue(run, tmp_path, name, old, new, needle):
    """One queue's scheduling changed: the LL200 points at that queue (EOS: its tx-queue
    block; NX-OS: its `bandwidth` line), not at the first queue of the profile or policy."""
    path = _changed(tmp_path, name, old, new)
    _, findings = _findings(run, str(LAB), "--configs", str(path.parent))
    [drift] = [f for f in findings if f["message"].startswith("egress scheduling")]
    assert (
        "queue 3: DWRR 40%, lossless (roce) in the config, DWRR 50%, lossless" in (drift["message"])
    )
    assert drift["line"] == _line_of(path, needle)
