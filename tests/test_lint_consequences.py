"""One cause, one finding (issue 36): the link and host findings that follow from a
config's own drift are folded into that drift finding (lint/consequences.py)."""

from __future__ import annotations

import json
import shutil

import pytest
from conftest import INVENTORIES, REPO

from lossless.lint.consequences import fold_consequences
from lossless.lint.registry import Finding

LAB = str(INVENTORIES / "lab.yaml")
FOLDED = (" LL105 ", " LL106 ", " LL108 ", " LL131 ", " LL132 ")


@pytest.fixture
def configs(tmp_path):
    folder = tmp_path / "configs"
    shutil.copytree(REPO / "golden" / "lab", folder)
    return folder


def _edit(path, old: str, new: str) -> None:
    text = path.read_text()
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new))


def _errors(run, configs) -> list[str]:
    result = run("lint", LAB, "--configs", str(configs))
    assert result.code == 1, result.out + result.err
    return [line for line in result.out.splitlines() if ": error " in line]


def test_roce_dscp_moved_out_of_the_junos_lossless_class_folds_links_and_nics(run, configs):
    # RoCE's DSCP 26 (011010) no longer classified to NO-LOSS: 13 errors before the folding
    # (LL105 x2, LL108 x2, LL131 x2, LL132 x2 beside the 5 LL200)
    _edit(
        configs / "leaf4.conf",
        "loss-priority low code-points 011010;",
        "loss-priority low code-points 011011;",
    )
    errors = _errors(run, configs)
    assert len(errors) == 5, errors
    assert all(" LL200 " in line for line in errors), errors
    [roce] = [line for line in errors if "RoCE class is DSCP 26 in TC 0" in line]
    assert "et-0/0/30 (LL108): DSCP 26 maps to TC 0 on leaf4 but TC 3 on spine1" in roce
    assert "et-0/0/31 (LL108): DSCP 26 maps to TC 0 on leaf4 but TC 3 on spine2" in roce
    assert "et-0/0/0, et-0/0/1 (LL132): DSCP 26 is priority 3 on the NIC" in roce
    uplink = [line for line in errors if " et-0/0/30: PFC priorities is none" in line]
    assert len(uplink) == 1 and "[3] on spine1:Ethernet4/1" in uplink[0], errors


@pytest.mark.parametrize(
    ("name", "line", "before", "peers"),
    [
        # EOS: 5 errors before (4 LL105, the LL200 of 4 ports), 1 after
        ("spine1.cfg", "   priority-flow-control priority 3 no-drop\n", 5, 4),
        # NX-OS: 4 errors before (2 LL105, LL131, the LL200 of 4 ports), 1 after
        ("leaf3.cfg", "    pause pfc-cos 3\n", 4, 2),
    ],
)
def test_pfc_line_deleted_is_one_finding_naming_every_link(run, configs, name, line, before, peers):
    _edit(configs / name, line, "")
    errors = _errors(run, configs)
    assert len(errors) == 1, errors
    assert errors[0].count("(LL105): ") == peers, errors
    assert not any(rule in errors[0].split(" LL200 ")[0] for rule in FOLDED)


def test_a_link_mismatch_whose_cause_is_the_peers_config_stays(run, configs):
    # both ends read from configs: leaf3 states MTU 9000 on its uplink to spine2, and
    # spine2's config_db is written out again (the same settings, other bytes: read, no
    # drift). The link finding at leaf3's end follows from leaf3's own drift and is folded
    # into it; the one at spine2's end is the peer's doing: it stays, at spine2's line.
    _edit(
        configs / "leaf3.cfg",
        "interface Ethernet1/32\n  description fabric uplink\n  no switchport\n  mtu 9100\n",
        "interface Ethernet1/32\n  description fabric uplink\n  no switchport\n  mtu 9000\n",
    )
    spine2 = configs / "spine2.json"
    spine2.write_text(json.dumps(json.loads(spine2.read_text()), indent=1) + "\n")
    errors = _errors(run, configs)
    [drift] = [line for line in errors if " LL200 " in line]
    assert "leaf3 Ethernet1/32: MTU is 9000 in the config" in drift, errors
    assert "Ethernet1/32 (LL106): " in drift, errors
    [link] = [line for line in errors if " LL106 " in line]
    assert link.startswith(f"{spine2}:") and "spine2 Ethernet8" in link, errors
    assert len(errors) == 2, errors


def _finding(rule: str, device: str, port: str | None, facts: tuple[str, ...], message: str):
    return Finding(f"{device}.cfg:1:1", rule, "error", message, device, port, facts=facts)


def test_only_the_devices_own_drift_takes_a_finding():
    drift = _finding("LL200", "leaf1", "Ethernet1", ("pfc_priorities",), "PFC drift")
    own = _finding("LL105", "leaf1", "Ethernet1", ("pfc_priorities",), "PFC [] but [3]")
    peers = _finding("LL105", "spine1", "Ethernet9", ("pfc_priorities",), "PFC [3] but []")
    other_fact = _finding("LL106", "leaf1", "Ethernet1", ("mtu",), "MTU 9000 but 9100")
    no_fact = _finding("LL132", "leaf1", "Ethernet1", (), "the NIC marks RoCE with DSCP 24")
    result = fold_consequences([drift, own, peers, other_fact, no_fact])
    assert result[1:] == [peers, other_fact, no_fact]
    assert result[0].message == "PFC drift; what follows from it: Ethernet1 (LL105): PFC [] but [3]"


def test_the_roce_class_drift_takes_the_dscp_map_findings_of_every_port():
    roce = _finding("LL200", "leaf4", None, ("roce",), "RoCE class moved")
    a = _finding("LL132", "leaf4", "et-0/0/0", ("dscp_to_tc",), "TC 0 on the switch")
    b = _finding("LL132", "leaf4", "et-0/0/1", ("dscp_to_tc",), "TC 0 on the switch")
    link = Finding(
        "leaf4.conf:9:1",
        "LL108",
        "error",
        "TC 0 on leaf4 but TC 3 on spine1",
        "leaf4",
        "et-0/0/30",
        ("leaf4", "spine1"),
        ("dscp_to_tc",),
    )
    [folded] = fold_consequences([roce, a, link, b])
    assert folded.message == (
        "RoCE class moved; what follows from it: et-0/0/30 (LL108): TC 0 on leaf4 but TC 3 "
        "on spine1; et-0/0/0, et-0/0/1 (LL132): TC 0 on the switch"
    )
    assert folded.devices == ("leaf4", "spine1")  # counted against the link's peer too


def test_without_the_drift_rule_the_link_findings_are_their_own(run, configs):
    # nothing to fold into when LL200 is not reported: each link's LL105 is reported
    _edit(configs / "spine1.cfg", "   priority-flow-control priority 3 no-drop\n", "")
    result = run("lint", LAB, "--configs", str(configs), "--ignore", "LL200")
    assert result.code == 1, result.out + result.err
    assert sum(" LL105 " in line for line in result.out.splitlines()) == 4, result.out
