"""Every lint rule: a plan that breaks it is flagged at the right place, the clean lab is not."""

from __future__ import annotations

import copy

import pytest
from conftest import INVENTORIES, beyond_the_lab_warning

from lossless.inventory import load_inventory
from lossless.lint.catalogue import registered_rules
from lossless.lint.runner import READ_SCOPES, lint
from lossless.plan import replaced
from lossless.planner.fabric import plan_fabric

LAB_PLAN = plan_fabric(load_inventory(INVENTORIES / "lab.yaml"))


@pytest.fixture
def plan():
    return copy.deepcopy(LAB_PLAN)


def findings(plan, rule_id):
    return [f for f in lint(plan, select=[rule_id]).findings if f.rule == rule_id]


def test_the_examples_lint_clean():
    assert beyond_the_lab_warning(lint(LAB_PLAN).findings) == []
    assert lint(plan_fabric(load_inventory(INVENTORIES / "pod-2048.yaml"))).findings == []


def _port(plan, device="leaf1", port="Ethernet0"):
    return plan.devices[device].ports[port]


def _change(parts, **changes):
    """A port's first headroom or ECN entry with these fields changed (the parts are frozen
    values that ports share: a port gets a changed copy)."""
    parts[0] = replaced(parts[0], **changes)


def _break_headroom(plan):
    _change(_port(plan).headroom, xoff=_port(plan).headroom[0].xoff - 1024)


def _break_size(plan):
    _change(_port(plan).headroom, size=1000)


def _break_budget(plan):
    plan.devices["leaf4"].budget.fits = False


def _break_priority_count(plan):
    plan.devices["leaf1"].lossless_priorities = [2, 3, 4]


def _break_link_pfc(plan):
    plan.devices["spine2"].ports["Ethernet0"].pfc_priorities = [4]


def _break_link_mtu(plan):
    plan.devices["spine2"].ports["Ethernet0"].mtu = 9000


def _break_link_speed(plan):
    plan.devices["spine2"].ports["Ethernet0"].speed_mbps = 200_000


def _break_dscp_map(plan):
    plan.devices["spine2"].maps.dscp_to_tc[26] = 4


def _nic(plan):
    return plan.nics["gpu01:eth0"]


def _break_nic(plan):
    _nic(plan).speed_mbps = 200_000


def _break_nic_trust(plan):
    _nic(plan).trust = "pcp"


def _break_nic_pfc(plan):
    _nic(plan).pfc_priorities = [4]


def _break_nic_roce_dscp(plan):
    _nic(plan).roce_dscp = 0


def _break_nic_cnp_dscp(plan):
    _nic(plan).cnp_dscp = 46


def _break_nic_ecn(plan):
    _nic(plan).ecn_np = False


def _break_nic_link_pause(plan):
    _nic(plan).link_pause = True


def _break_nic_rx_buffer(plan):
    _nic(plan).prio2buffer = [0] * 8  # the PFC priority in the lossy priorities' buffer


def _break_nic_dcbx(plan):
    _nic(plan).dcbx = "firmware"


def _break_nic_firmware_cnp(plan):
    _nic(plan).firmware_cnp_dscp = 4  # NVIDIA operator roceOptimized


def _break_nic_mtu(plan):
    _nic(plan).mtu = 4150  # path MTU 2048


def _break_ecn_missing(plan):
    _port(plan).ecn = []


def _break_ecn_thresholds(plan):
    _change(_port(plan).ecn, min_bytes=_port(plan).ecn[0].max_bytes)


def _break_ecn_unit(plan):
    _change(_port(plan).ecn, max_bytes=1_500_000_000)  # KB written as B: above any buffer


def _break_ecn_before_pfc(plan):
    _change(_port(plan).ecn, min_below_trigger=False)


def _break_pause_before_mark(plan):
    # Kmax far above leaf1's trigger (525,100 B) with a Pmax of 1 %: at 3:1 a PG reaches the
    # trigger before a whole frame is marked on the queue's way up (test_lint_dynamics.py)
    for port in plan.devices["leaf1"].ports.values():
        if port.ecn:
            _change(port.ecn, max_bytes=3_000_000, probability_percent=1)


def _break_cnp(plan):
    plan.devices["leaf1"].cnp_dscp = plan.devices["leaf1"].roce_dscp


def _break_roce_class(plan):
    plan.devices["leaf1"].maps.dscp_to_tc[26] = 2  # RoCE in a class without PFC


def _break_silent_lossless_class(plan):
    _port(plan).pfc_priorities = [3, 4]  # no DSCP maps to TC 4


def _break_cable(plan):
    _port(plan).cable_m = 1  # configured shorter than the 2 m link


def _break_cnp_pfc(plan):
    _port(plan).pfc_priorities = [3, 6]


def _break_watchdog(plan):
    _port(plan).watchdog = replaced(_port(plan).watchdog, enabled=False)


def _break_watchdog_timers(plan):
    _port(plan).watchdog = replaced(_port(plan).watchdog, poll_ms=500)


def _break_ecmp_fields(plan):
    plan.devices["leaf1"].ecmp.hashes_udp_source_port = False


def _break_seed(plan):
    # leaf3 (NX-OS) states its seed; a SONiC leaf's is its DEVICE_METADATA type's (issue 39)
    plan.devices["spine1"].ecmp.seed = plan.devices["leaf3"].ecmp.seed


def _break_mtu(plan):
    _port(plan).mtu = 1500


def _break_wred(plan):
    _port(plan).wred_drop_queues = [3]


def _break_weights(plan):
    for queue in plan.devices["leaf1"].queues:
        if queue.weight:
            queue.weight = 80


def _break_nxos_strict_queue(plan):
    # a second strict queue, q1, below round-robin ones on the NX-OS leaf
    for queue in plan.devices["leaf3"].queues:
        if queue.queue == 0:
            queue.queue, queue.scheduler, queue.weight = 1, "strict", None


NIC_LINE = "inventories/lab.yaml:90:12"  # gpu[01:02] eth[0:1]

# Each finding points at the inventory line that set the judged value: a policy key (line 11
# roce, 12 roce.data.priority, 14 mtu, 15 ecn, 16 pfc_watchdog, 18 ecmp.hash_fields), a link's
# cable (96), or the port or device where no policy sets it.
CASES = {
    "LL101": (_break_headroom, "inventories/lab.yaml:42:7"),
    "LL102": (_break_size, "inventories/lab.yaml:42:7"),
    "LL103": (_break_budget, "inventories/lab.yaml:62:3"),
    "LL104": (_break_priority_count, "inventories/lab.yaml:12:24"),
    "LL105": (_break_link_pfc, "inventories/lab.yaml:12:24"),
    "LL106": (_break_link_mtu, "inventories/lab.yaml:14:5"),
    "LL107": (_break_link_speed, "inventories/lab.yaml:86:7"),
    "LL108": (_break_dscp_map, "inventories/lab.yaml:11:5"),
    "LL109": (_break_nic, NIC_LINE),
    "LL110": (_break_ecn_missing, "inventories/lab.yaml:15:5"),
    "LL111": (_break_ecn_thresholds, "inventories/lab.yaml:15:5"),
    "LL112": (_break_ecn_before_pfc, "inventories/lab.yaml:15:5"),
    "LL113": (_break_cnp, "inventories/lab.yaml:11:5"),
    "LL120": (_break_cable, "inventories/lab.yaml:96:5"),
    "LL121": (_break_cnp_pfc, "inventories/lab.yaml:12:24"),
    "LL123": (_break_ecn_unit, "inventories/lab.yaml:15:5"),
    "LL124": (_break_roce_class, "inventories/lab.yaml:12:7"),
    "LL125": (_break_silent_lossless_class, "inventories/lab.yaml:12:24"),
    "LL122": (_break_wred, "inventories/lab.yaml:42:7"),
    "LL114": (_break_watchdog, "inventories/lab.yaml:16:5"),
    "LL115": (_break_watchdog_timers, "inventories/lab.yaml:16:5"),
    "LL116": (_break_ecmp_fields, "inventories/lab.yaml:18:7"),
    "LL117": (_break_seed, "inventories/lab.yaml:71:3"),
    "LL118": (_break_mtu, "inventories/lab.yaml:14:5"),
    "LL119": (_break_weights, "inventories/lab.yaml:11:5"),
    "LL126": (_break_nxos_strict_queue, "inventories/lab.yaml:11:5"),
    "LL128": (_break_pause_before_mark, "inventories/lab.yaml:15:5"),
    "LL130": (_break_nic_trust, NIC_LINE),
    "LL131": (_break_nic_pfc, NIC_LINE),
    "LL132": (_break_nic_roce_dscp, NIC_LINE),
    "LL133": (_break_nic_cnp_dscp, NIC_LINE),
    "LL134": (_break_nic_ecn, NIC_LINE),
    "LL135": (_break_nic_link_pause, NIC_LINE),
    "LL136": (_break_nic_rx_buffer, NIC_LINE),
    "LL137": (_break_nic_dcbx, NIC_LINE),
    "LL138": (_break_nic_firmware_cnp, NIC_LINE),
    "LL139": (_break_nic_mtu, NIC_LINE),
}


def test_every_rule_has_a_case():
    topology = {"LL140", "LL141", "LL142"}  # need topologies of their own: test_deadlock.py
    alone = {"LL127"}  # judges a config linted alone: test_readback_cases.py
    assert set(CASES) | topology | alone == {
        r.id
        for r in registered_rules().values()
        # raised where configs or a running switch's state are read (test_verify_rules.py)
        if r.scope not in ("config", "state", "state-device")
    }


@pytest.mark.parametrize("rule_id", sorted(CASES))
def test_rule_flags_a_broken_plan(plan, rule_id):
    assert beyond_the_lab_warning(findings(plan, rule_id)) == []
    breaker, source = CASES[rule_id]
    breaker(plan)
    flagged = beyond_the_lab_warning(findings(plan, rule_id))
    assert flagged, rule_id
    assert any(f.source.endswith(source) for f in flagged), [str(f) for f in flagged]


def test_a_host_finding_is_one_on_the_switch_port_at_the_nic_that_differs(plan):
    """One cause, one finding: the NIC's PFC differs from what it inherits from its switch
    port, so the finding points at the NIC's line (not a second one at the port's policy
    line), on the switch port, naming both values."""
    _break_nic_pfc(plan)
    [finding] = findings(plan, "LL131")
    assert finding.source.endswith(NIC_LINE)
    assert (finding.device, finding.port) == ("leaf1", "Ethernet0")
    assert "[4] on the NIC but [3] on the port" in finding.message


def test_rules_have_explanations_and_sources():
    for r in registered_rules().values():
        assert len(r.explanation) > 40, r.id
        assert r.source


def test_ecn_kmax_above_trigger_is_a_warning(plan):
    _change(_port(plan).ecn, max_below_trigger=False)
    [finding] = findings(plan, "LL112")
    assert finding.severity == "warning"


def test_budget_overrun_on_unconfirmed_buffer_is_a_warning(plan):
    plan.devices["leaf3"].budget.fits = False
    [finding] = findings(plan, "LL103")
    assert finding.severity == "warning"  # the Cloud Scale GX buffer size is [UNV]
    plan.devices["leaf3"].budget.buffer_evidence = "2ND"
    [finding] = findings(plan, "LL103")
    assert finding.severity == "error"


def test_budget_counts_real_ports_and_per_port_limits(plan):
    """leaf4 is a 32-port QFX5220 with 4 ports listed: the budget holds 32 ports' headroom,
    and a busiest port over a per-port limit is an error of its own."""
    budget = plan.devices["leaf4"].budget
    assert (budget.ports, budget.unlisted_ports, budget.lossless_pgs) == (32, 28, 32)
    budget.per_port_fits = False
    budget.shp_per_port_cap_bytes = 1000
    [finding] = findings(plan, "LL103")
    assert finding.severity == "error" and "per-port cap 1000 B" in finding.message


def test_roce_mtu_too_small_for_a_4096_payload_is_an_error(plan):
    _port(plan).mtu = 4000
    [finding] = findings(plan, "LL118")
    assert finding.severity == "error" and "4096-byte RoCE payload" in finding.message
    _port(plan).mtu = 4180  # carries 4096 B of payload with IPv6, RETH and ImmDt
    [finding] = findings(plan, "LL118")
    assert finding.severity == "warning"  # but is not jumbo


def test_ecn_within_buffer_without_an_asic_uses_the_largest_known_buffer(plan):
    device = plan.devices["leaf1"]
    device.asic = "unknown"
    _change(_port(plan).ecn, max_bytes=2_000_000_000)
    [finding] = findings(plan, "LL123")
    assert "largest ASIC known" in finding.message


def test_eos_mtu_above_9214_is_an_error(plan):
    plan.devices["spine1"].ports["Ethernet1/1"].mtu = 9216
    [finding] = findings(plan, "LL118")
    assert finding.severity == "error" and "9214" in finding.message


def test_lint_command_exit_codes_and_formats(run, write):
    clean = run("lint", str(INVENTORIES / "lab.yaml"))
    assert clean.code == 0 and clean.out.strip().endswith("0 errors, 1 warning")
    assert clean.out.count(" warning LL114 ") == 1  # leaf4, a QFX5220: no PFC watchdog
    text = (
        (INVENTORIES / "lab.yaml")
        .read_text()
        .replace(
            "pfc_watchdog: {detection_ms: 200, restoration_ms: 200, poll_ms: 100, action: drop}",
            "pfc_watchdog: {detection_ms: 200, restoration_ms: 200, poll_ms: 300, action: drop}",
        )
    )
    path = write(text)
    broken = run("lint", str(path))
    assert broken.code == 1
    # one cause, one finding, at the line that was changed (the fabric's pfc_watchdog)
    assert broken.out.count("LL115") == 1
    assert (
        f"{path}:16:5: error LL115 [watchdog-timers] poll 300 ms is longer than detection "
        "200 ms or restoration 200 ms (20 ports on 5 devices: leaf1:Ethernet0, " in broken.out
    )
    github = run("lint", str(path), "--format", "github")
    assert (
        f"::error file={path},line=16,col=5,title=LL115 watchdog-timers::poll 300 ms" in github.out
    )
    ignored = run("lint", str(path), "--ignore", "LL115")
    assert ignored.code == 0


@pytest.mark.parametrize(
    "option",
    [
        ["--ignore", "LL115"],
        ["--ignore", "watchdog-timers"],
        ["--ignore", "ll115"],
        ["--ignore", "LL101,LL115"],
        ["--ignore", " LL101 , watchdog-timers "],
        ["--ignore", "LL11"],
        ["--select", "LL101,LL114", "--select", "ecn-before-pfc"],
    ],
)
def test_rules_are_named_by_id_prefix_or_name_in_comma_lists(run, write, option):
    assert run("lint", str(_broken_inventory(write)), *option).code == 0


@pytest.mark.parametrize(
    ("option", "message"),
    [
        (["--ignore", ""], "--ignore: empty rule name"),
        (["--ignore", "LL115,"], "--ignore: empty rule name"),
        (["--select", "LL1155"], "--select: no rule 'LL1155' (did you mean \"LL115\"?)"),
        (
            ["--ignore", "watchdog-timer"],
            "no rule 'watchdog-timer' (did you mean \"watchdog-timers\"?)",
        ),
        (["--ignore", "LL9"], "no rule 'LL9'"),
        (["--select", "LL115", "--ignore", "nothing-like-it"], "no rule 'nothing-like-it'"),
    ],
)
def test_an_unknown_or_empty_rule_is_refused_not_ignored(run, write, option, message):
    """A typo or an empty CI variable must not silently switch the gate off."""
    result = run("lint", str(_broken_inventory(write)), *option)
    assert result.code == 2
    assert message in result.err
    assert result.out == ""


def test_lint_ignore_names_a_rule_that_exists(run, write):
    text = (INVENTORIES / "lab.yaml").read_text()
    anchor = "    platform: SN5600\n    mgmt: 192.0.2.11\n"
    assert anchor in text
    path = write(text.replace(anchor, anchor + "    lint_ignore: {LL915: not a rule}\n"))
    line = text[: text.index(anchor) + len(anchor)].count("\n") + 1
    for command in ("lint", "validate"):
        result = run(command, str(path))
        assert result.code == 2
        assert f"{path}:{line}:19: devices.leaf1.lint_ignore.LL915: LL915 is not a lint rule" in (
            result.err
        )


def test_rules_command(run):
    listing = run("rules")
    assert listing.code == 0 and "LL101  error    headroom-covers-cable" in listing.out
    one = run("rules", "ll112")
    assert "ecn-before-pfc" in one.out and "docs/reference/physics.md 3.4" in one.out
    assert run("rules", "ecn-before-pfc").out == one.out
    unknown = run("rules", "ecn-before-pcf")
    assert unknown.code == 2 and 'did you mean "ecn-before-pfc"' in unknown.err


def test_rules_as_json(run):
    import json

    listing = json.loads(run("rules", "--format", "json").out)
    assert [r["id"] for r in listing] == sorted(registered_rules())
    one = json.loads(run("rules", "LL112", "--format", "json").out)
    assert one["name"] == "ecn-before-pfc" and one["severity"] == "error"
    assert set(one) == {"id", "name", "severity", "scope", "explanation", "source"}


def _broken_inventory(write):
    text = (
        (INVENTORIES / "lab.yaml")
        .read_text()
        .replace(
            "pfc_watchdog: {detection_ms: 200, restoration_ms: 200, poll_ms: 100, action: drop}",
            "pfc_watchdog: {detection_ms: 200, restoration_ms: 200, poll_ms: 300, action: drop}",
        )
    )
    return write(text)


def test_sarif_output_is_what_github_code_scanning_takes(run, write):
    import json

    result = run("lint", str(_broken_inventory(write)), "--format", "sarif")
    assert result.code == 1
    document = json.loads(result.out)
    assert document["version"] == "2.1.0"
    [sarif_run] = document["runs"]
    driver = sarif_run["tool"]["driver"]
    assert driver["name"] == "lossless"
    # the rules that judged the plan: not those over configs or switch state, never read
    over_the_plan = {i for i, r in registered_rules().items() if r.scope not in READ_SCOPES}
    assert {r["id"] for r in driver["rules"]} == over_the_plan
    assert "LL200" not in over_the_plan and "LL301" not in over_the_plan
    # the broken timers (LL115), and the lab's QFX5220 without a watchdog (LL114, a warning)
    assert {r["ruleId"] for r in sarif_run["results"]} == {"LL114", "LL115"}
    results = [r for r in sarif_run["results"] if r["ruleId"] == "LL115"]
    assert results and all(r["message"]["text"] for r in results)
    location = results[0]["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"].endswith("inv.yaml")
    assert "\\" not in location["artifactLocation"]["uri"]
    assert location["region"]["startLine"] >= 1
    assert driver["rules"][results[0]["ruleIndex"]]["id"] == "LL115"
    fingerprints = {r["partialFingerprints"]["losslessFinding/v1"] for r in results}
    assert len(fingerprints) == len(results)  # stable and distinct per finding


def test_junit_output(run, write):
    from xml.etree import ElementTree

    result = run("lint", str(_broken_inventory(write)), "--format", "junit")
    root = ElementTree.fromstring(result.out.split("\n", 1)[1])
    assert root.tag == "testsuites"
    suites = {s.get("name"): s for s in root}
    assert set(suites) == {"fabric", "leaf1", "leaf2", "leaf3", "leaf4", "spine1", "spine2"}
    # one cause (the fabric's watchdog policy) on the 5 switches that have a watchdog (not the
    # QFX5220 leaf4): one failure, in the fabric suite
    failure = suites["fabric"].find("testcase[@name='LL115 watchdog-timers']/failure")
    assert failure is not None and failure.get("type") == "LL115"
    assert failure.get("message").startswith("poll 300 ms")
    assert "20 ports on 5 devices" in failure.get("message")
    assert int(root.get("failures")) == 1


def test_gitlab_code_quality_report(run, write):
    import json

    path = _broken_inventory(write)
    result = run("lint", str(path), "--format", "codeclimate")
    assert result.code == 1
    issues = json.loads(result.out)
    assert issues and len({i["fingerprint"] for i in issues}) == len(issues)
    # issues[0] is the lab's QFX5220 without a watchdog (LL114, minor)
    first = next(i for i in issues if i["check_name"].startswith("LL115"))
    assert {"description", "check_name", "fingerprint", "severity", "location"} <= set(first)
    assert first["severity"] == "major" and first["check_name"] == "LL115 watchdog-timers"
    assert first["description"].startswith("LL115 poll 300 ms")
    assert first["location"] == {"path": str(path), "lines": {"begin": 16}}  # the policy line


def test_pre_commit_manifest():
    from conftest import REPO
    from ruamel.yaml import YAML

    hooks = YAML(typ="safe").load((REPO / ".pre-commit-hooks.yaml").read_text())
    assert {h["id"] for h in hooks} == {
        "lossless-validate",
        "lossless-lint",
        "lossless-render-check",
    }
    for hook in hooks:
        assert {"id", "name", "entry", "language"} <= set(hook)
        assert hook["entry"].split()[0] == "lossless" and hook["pass_filenames"] is False
    lint_hook = next(h for h in hooks if h["id"] == "lossless-lint")
    assert lint_hook["types_or"] == ["yaml", "toml"]  # a settings change is linted too


def test_inline_suppression_needs_a_reason_and_is_reported(run, write):
    text = (
        _broken_inventory(write)
        .read_text()
        .replace(
            "    platform: SN5600\n    mgmt: 192.0.2.11\n",
            "    platform: SN5600\n    mgmt: 192.0.2.11\n"
            "    lint_ignore: {LL115: lab switch polls slowly on purpose}\n",
        )
    )
    path = write(text, "suppressed.yaml")
    result = run("lint", str(path))
    assert "leaf1" not in "".join(line for line in result.out.splitlines() if "error LL115" in line)
    assert (
        "suppressed LL115 at" in result.out and "lab switch polls slowly on purpose" in result.out
    )
    assert result.code == 1  # the other five switches still break LL115
    no_reason = write(
        text.replace("LL115: lab switch polls slowly on purpose", "LL115: ''"), "x.yaml"
    )
    assert run("lint", str(no_reason)).code == 2
    bad_id = write(text.replace("LL115: lab", "LL1150: lab"), "y.yaml")
    assert run("lint", str(bad_id)).code == 2


def test_sarif_lists_the_config_rules_only_where_configs_were_read(run):
    """The rules over configs (drift, LL200) ran when --configs was read, and only then."""
    import json

    from conftest import REPO

    def listed(*argv: str) -> set[str]:
        result = run("lint", str(INVENTORIES / "lab.yaml"), *argv, "--format", "sarif")
        assert result.code == 0, result.err
        return {r["id"] for r in json.loads(result.out)["runs"][0]["tool"]["driver"]["rules"]}

    alone, with_configs = listed(), listed("--configs", str(REPO / "golden" / "lab"))
    assert "LL200" not in alone and "LL200" in with_configs
    assert not any(rule.startswith("LL3") for rule in alone | with_configs)
