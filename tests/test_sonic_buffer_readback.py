"""SONiC's buffer and PFC tables read back (issue 36, the SONiC gaps of
tests/data/readback/open.yaml): each change to a rendered config_db that the switch acts on is
a finding at the entry that states it (or should), saying what it does; each change the
switch does not act on is none. The configs are the lab's golden leaf1 (NVIDIA Spectrum-4,
dynamic buffer model), the same leaf on a Broadcom Tomahawk 3 (traditional model, static
profiles in Broadcom's form, a shared headroom pool) and pod-2048's golden leaf01 (a shared
headroom pool stated by its xoff and its over-subscribe ratio)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import INVENTORIES, REPO

from lossless.inventory import load_inventory
from lossless.planner.fabric import plan_fabric
from lossless.vendors.rendering import render_device
from lossless.vendors.sonic import parse as sonic_parse
from lossless.vendors.sonic.render import expressed

LAB = INVENTORIES / "lab.yaml"
POD = INVENTORIES / "pod-2048.yaml"
GOLDEN = REPO / "golden"
# the lab's SONiC leaf on a Broadcom ASIC, as tests/test_readback.py makes it
BROADCOM = (
    "asic: spectrum-4\n    platform: SN5600\n    mgmt: 192.0.2.11",
    "asic: tomahawk-3\n    platform: Z9332F-ON\n    mgmt: 192.0.2.11",
)
PROFILE = "pg_lossless_400000_2m_profile"  # Ethernet0's and Ethernet4's on the Broadcom leaf


@pytest.fixture(scope="module")
def broadcom(tmp_path_factory) -> tuple[Path, dict[str, Any]]:
    """The Broadcom lab inventory and its leaf1's rendered config_db."""
    path = tmp_path_factory.mktemp("broadcom") / "lab-broadcom.yaml"
    path.write_text(LAB.read_text().replace(*BROADCOM))
    plan = plan_fabric(load_inventory(path))
    return path, json.loads(render_device(plan.devices["leaf1"], plan))


def _lint(
    run, tmp_path: Path, inventory: Path, db: dict[str, Any], name: str, *argv: str
) -> tuple[int, list[dict], Path]:
    """`lint INVENTORY --configs DIR` with DIR holding `db` as <name>.json: exit code, the
    findings about `name`, the file."""
    folder = tmp_path / "configs"
    folder.mkdir(exist_ok=True)
    path = folder / f"{name}.json"
    path.write_text(json.dumps(db, indent=4))
    result = run("lint", str(inventory), "--configs", str(folder), *argv, "--format", "json")
    findings = json.loads(result.out) if result.out.strip().startswith("[") else []
    return result.code, [f for f in findings if f.get("device") == name], path


def _line(path: Path, text: str, after: str = "") -> int:
    """The line of `text` in the file (the first after the line holding `after`)."""
    lines = path.read_text().splitlines()
    start = next(n for n, line in enumerate(lines) if after in line) if after else 0
    return next(n for n, line in enumerate(lines[start:], start + 1) if text in line)


def _golden(name: str) -> dict[str, Any]:
    return json.loads((GOLDEN / name).read_text())


def _one(findings: list[dict], says: str) -> dict:
    [finding] = [f for f in findings if says in f["message"]]
    assert finding["rule"] == "LL200"
    return finding


# -- 1. the lossless queue's egress profile ----------------------------------------------------


def _queue_moved(db: dict) -> None:
    db["BUFFER_QUEUE"]["Ethernet0|4"] = db["BUFFER_QUEUE"].pop("Ethernet0|3")


def _queue_dropped(db: dict) -> None:
    del db["BUFFER_QUEUE"]["Ethernet0|3"]


def _queue_lossy(db: dict) -> None:
    db["BUFFER_QUEUE"]["Ethernet0|3"]["profile"] = "egress_lossy_profile"


@pytest.mark.parametrize(
    ("change", "have", "line"),
    [
        (_queue_moved, "none", '"Ethernet0|4"'),
        (_queue_dropped, "none", '"BUFFER_QUEUE"'),
        (_queue_lossy, "none", '"Ethernet0|3"'),
    ],
    ids=["moved-to-queue-4", "deleted", "lossy-profile"],
)
def test_a_lossless_queue_off_the_egress_lossless_profile_is_drift(
    run, tmp_path, change: Callable[[dict], None], have: str, line: str
):
    """A lossless queue on egress_lossy_profile, or on none, is admitted by a lossy egress
    limit where PFC does not hold it: the finding names the port and says it drops."""
    db = _golden("lab/leaf1.json")
    change(db)
    code, findings, path = _lint(run, tmp_path, LAB, db, "leaf1")
    assert code == 1
    finding = _one(findings, "lossless egress buffer profile")
    assert finding["port"] == "Ethernet0"
    assert f"is {have} in the config, queue 3 in the plan" in finding["message"]
    assert "drops when the limit is reached" in finding["message"]
    assert finding["line"] == _line(path, line, after='"BUFFER_QUEUE"')


def test_another_queue_on_the_egress_lossless_profile_is_not_judged():
    """SONiC's own buffer template puts queues 3-4 on egress_lossless_profile: queue 4 carries
    nothing lossless here, so only queue 3 (the lossless one) is compared."""
    plan = plan_fabric(load_inventory(LAB))
    db = _golden("lab/leaf1.json")
    db["BUFFER_QUEUE"]["Ethernet0|3-4"] = db["BUFFER_QUEUE"].pop("Ethernet0|3")
    parsed = sonic_parse.parse(json.dumps(db), "leaf1.json", "leaf1", plan.devices["leaf1"])
    assert parsed.ports["Ethernet0"].stated["egress_lossless_queues"] == [3, 4]
    assert expressed(parsed)["ports"]["Ethernet0"]["egress_lossless_queues"] == [3]


# -- 2. which PG's fill pauses which priority -------------------------------------------------


def test_a_pfc_priority_mapped_to_another_pg_is_drift_at_the_map(run, tmp_path):
    db = _golden("lab/leaf1.json")
    db["PFC_PRIORITY_TO_PRIORITY_GROUP_MAP"]["ROCE"]["3"] = "4"
    code, findings, path = _lint(run, tmp_path, LAB, db, "leaf1")
    assert code == 1
    finding = _one(findings, "PFC priority to priority-group map: priority 3: 4 in the config")
    assert "is not paused and drops" in finding["message"]
    assert finding["line"] == _line(path, '"ROCE"', after='"PFC_PRIORITY_TO_PRIORITY_GROUP_MAP"')


def test_a_pfc_priority_left_out_of_the_map_is_not_set(run, tmp_path):
    db = _golden("lab/leaf1.json")
    db["PFC_PRIORITY_TO_PRIORITY_GROUP_MAP"]["ROCE"] = {"4": "3"}
    code, findings, _ = _lint(run, tmp_path, LAB, db, "leaf1")
    assert code == 1
    finding = _one(findings, "PFC priority to priority-group map")
    assert "priority 3: not set in the config, 3 in the plan" in finding["message"]
    assert "priority 4: 3 in the config, not set in the plan" in finding["message"]


def test_another_priority_mapped_to_the_lossless_pg_pauses_it_too(run, tmp_path):
    db = _golden("lab/leaf1.json")
    db["PFC_PRIORITY_TO_PRIORITY_GROUP_MAP"]["ROCE"]["5"] = "3"
    code, findings, _ = _lint(run, tmp_path, LAB, db, "leaf1")
    assert code == 1
    finding = _one(findings, "priority 5: 3 in the config, not set in the plan")
    assert "also pauses priority 5, which is not lossless here" in finding["message"]


def test_a_lossless_port_without_the_pfc_to_pg_binding_is_refused(run, tmp_path):
    """One binding per switch is judged (the first lossless port's): a lossless port that
    binds none where the others bind ROCE is bad input at its entry."""
    db = _golden("lab/leaf1.json")
    del db["PORT_QOS_MAP"]["Ethernet248"]["pfc_to_pg_map"]
    folder = tmp_path / "configs"
    folder.mkdir()
    (folder / "leaf1.json").write_text(json.dumps(db, indent=4))
    result = run("lint", str(LAB), "--configs", str(folder))
    assert result.code == 2
    assert "leaf1.json" in result.err and "pfc_to_pg_map none" in result.err


def test_the_pfc_to_pg_map_is_not_judged_on_broadcom(broadcom):
    """Broadcom SAI does not support the map (SONiC renders it for mellanox and barefoot
    only): a Broadcom config without it reads back equal."""
    path, db = broadcom
    assert "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP" not in db
    plan = plan_fabric(load_inventory(path))
    parsed = sonic_parse.parse(json.dumps(db), "leaf1.json", "leaf1", plan.devices["leaf1"])
    assert "pfc_priority_to_pg" not in expressed(parsed)


# -- 3. a scheduler without type ----------------------------------------------------------------


def test_a_scheduler_without_type_is_sais_default_wrr(run, tmp_path):
    """qosorch hands SAI a scheduling type only where `type` is stated; SAI's default is
    SAI_SCHEDULING_TYPE_WRR (by packets), not the DWRR the plan asks. The finding points at
    the SCHEDULER entry that should state it."""
    db = _golden("lab/leaf1.json")
    del db["SCHEDULER"]["scheduler.roce"]["type"]
    code, findings, path = _lint(run, tmp_path, LAB, db, "leaf1")
    assert code == 1
    finding = _one(findings, "egress scheduling")
    assert (
        "queue 3: WRR (by packets), weight 50, lossless (roce) in the config"
        in (finding["message"])
    )
    assert "SAI_SCHEDULING_TYPE_WRR" in finding["message"]
    assert finding["line"] == _line(path, '"scheduler.roce"', after='"SCHEDULER"')


def test_a_stated_wrr_scheduler_reads_as_wrr():
    db = _golden("lab/leaf1.json")
    db["SCHEDULER"]["scheduler.default"]["type"] = "WRR"
    device = sonic_parse.parse(json.dumps(db), "leaf1.json", "leaf1")
    assert {q.queue: q.scheduler for q in device.queues} == {0: "wrr", 3: "dwrr", 6: "strict"}


def test_a_scheduler_without_weight_is_sais_default_weight_1():
    """qosorch sets the weight only where stated; SAI_SCHEDULER_ATTR_SCHEDULING_WEIGHT's
    default is 1, not 0."""
    db = _golden("lab/leaf1.json")
    del db["SCHEDULER"]["scheduler.roce"]["weight"]
    device = sonic_parse.parse(json.dumps(db), "leaf1.json", "leaf1")
    assert {q.queue: q.weight for q in device.queues}[3] == 1


def test_a_scheduler_type_sonic_does_not_know_is_refused_at_its_line():
    """sonic-scheduler.yang allows STRICT, WRR and DWRR; orchagent creates no scheduler for
    another type, so reading it as DWRR would judge a scheduler the switch does not have."""
    from lossless.errors import InputError

    db = _golden("lab/leaf1.json")
    db["SCHEDULER"]["scheduler.roce"]["type"] = "WFQ"
    with pytest.raises(InputError) as refused:
        sonic_parse.parse(json.dumps(db, indent=4), "leaf1.json", "leaf1")
    assert "SCHEDULER" in str(refused.value) and "'WFQ'" in str(refused.value)
    assert "leaf1.json:" in str(refused.value)


# -- 4. headroom inputs a dynamic-model config leaves out ---------------------------------------


@pytest.mark.parametrize(
    ("table", "field", "says", "why"),
    [
        ("LOSSLESS_TRAFFIC_PATTERN", "mtu", "lossless MTU not set", "headroom plugin"),
        (
            "LOSSLESS_TRAFFIC_PATTERN",
            "small_packet_percentage",
            "small packets not set",
            "headroom plugin",
        ),
        (
            "DEFAULT_LOSSLESS_BUFFER_PARAMETER",
            "default_dynamic_th",
            "dynamic_th not set",
            "refreshPgsForPort",
        ),
    ],
)
def test_a_headroom_input_left_out_is_not_set_not_the_plans(
    run, tmp_path, table: str, field: str, says: str, why: str
):
    """SONiC has no default for these: buffermgrd sizes no lossless PG without them. The
    parser does not take the plan's value for them, and the finding points at the entry."""
    db = _golden("lab/leaf1.json")
    del db[table]["AZURE"][field]
    code, findings, path = _lint(run, tmp_path, LAB, db, "leaf1")
    assert code == 1
    finding = _one(findings, "headroom model settings")
    assert says in finding["message"].split(" in the config")[0]
    assert why in finding["message"] and "the lossless PGs get no headroom" in finding["message"]
    assert finding["line"] == _line(path, '"AZURE"', after=f'"{table}"')


# -- 5. Broadcom lossless profiles ------------------------------------------------------------


@pytest.mark.parametrize(
    ("field", "value", "says"),
    [
        ("size", "5080", "guaranteed size 5080 B"),
        ("xon", "1", "xon 1 B"),
        ("dynamic_th", "3", "dynamic_th 3"),
        ("pool", None, "pool not set"),
        ("size", None, "guaranteed size not set"),
        ("dynamic_th", None, "threshold not set"),
    ],
)
def test_a_broadcom_lossless_profile_field_is_drift(
    run, tmp_path, broadcom, field: str, value: str | None, says: str
):
    inventory, rendered = broadcom
    db = json.loads(json.dumps(rendered))
    profile = db["BUFFER_PROFILE"][PROFILE]
    if value is None:
        del profile[field]
    else:
        profile[field] = value
    code, findings, path = _lint(run, tmp_path, inventory, db, "leaf1")
    assert code == 1
    finding = _one(findings, "lossless PG buffer profile: PG 3")
    assert says in finding["message"].split(" in the config")[0]
    assert finding["line"] == _line(path, f'"{PROFILE}"', after='"BUFFER_PROFILE"')
    if value is None and field != "xon":
        assert "bufferorch cannot create the profile" in finding["message"]


def test_a_broadcom_profile_without_xon_is_sais_default_0(run, tmp_path, broadcom):
    """XON_TH is set only where xon is stated, and SAI's default is 0: what the line said."""
    inventory, rendered = broadcom
    db = json.loads(json.dumps(rendered))
    del db["BUFFER_PROFILE"][PROFILE]["xon"]
    _, findings, _ = _lint(run, tmp_path, inventory, db, "leaf1")
    assert not [f for f in findings if f["rule"] == "LL200"]


@pytest.mark.parametrize(
    ("change", "says", "line"),
    [
        (lambda pool: pool.update(xoff="18498820"), "18498820 B", '"xoff"'),
        (lambda pool: pool.pop("type"), "ingress_lossless_pool not created", '"ingress_lossless'),
    ],
    ids=["xoff-doubled", "no-type"],
)
def test_the_broadcom_shared_headroom_pool_is_read(run, tmp_path, broadcom, change, says, line):
    """The pool's xoff is the shared headroom pool's size (SAI_BUFFER_POOL_ATTR_XOFF_SIZE); a
    pool entry without type is not created (SAI mandatory on create)."""
    inventory, rendered = broadcom
    db = json.loads(json.dumps(rendered))
    change(db["BUFFER_POOL"]["ingress_lossless_pool"])
    code, findings, path = _lint(run, tmp_path, inventory, db, "leaf1")
    assert code == 1
    finding = _one(findings, f"shared headroom pool is {says}")
    assert "9249410 B in the plan" in finding["message"]
    assert finding["line"] == _line(path, line, after='"BUFFER_POOL"')


def test_a_broadcom_pool_without_xoff_is_one_finding_at_the_pool(run, tmp_path, broadcom):
    """Without a shared headroom pool each lossless PG reserves its whole xoff (the PGs'
    reserved size follows the pool): one finding at the pool's entry says so, not one per PG."""
    inventory, rendered = broadcom
    db = json.loads(json.dumps(rendered))
    del db["BUFFER_POOL"]["ingress_lossless_pool"]["xoff"]
    code, findings, path = _lint(run, tmp_path, inventory, db, "leaf1")
    assert code == 1
    [finding] = [f for f in findings if f["rule"] == "LL200"]
    assert finding["message"].startswith("shared headroom pool is off in the config")
    assert "reserves its whole xoff itself" in finding["message"]
    assert finding["line"] == _line(path, '"ingress_lossless_pool"', after='"BUFFER_POOL"')


def test_a_broadcom_pool_without_mode_is_sais_default_dynamic(run, tmp_path, broadcom):
    inventory, rendered = broadcom
    db = json.loads(json.dumps(rendered))
    del db["BUFFER_POOL"]["ingress_lossless_pool"]["mode"]
    _, findings, _ = _lint(run, tmp_path, inventory, db, "leaf1")
    assert not [f for f in findings if f["rule"] == "LL200"]


# -- 6. the shared headroom pool's size and ratio (pod-2048) ---------------------------------


def test_a_pool_xoff_left_out_beside_the_ratio_is_sized_by_the_switch(run, tmp_path):
    """With only the over-subscribe ratio, buffermgrd sizes the shared headroom pool itself
    (the PGs' xoff less the private headroom, over the ratio): not the planned size."""
    db = _golden("pod-2048/leaf01.json")
    del db["BUFFER_POOL"]["ingress_lossless_pool"]["xoff"]
    code, findings, path = _lint(run, tmp_path, POD, db, "leaf01", "--device", "leaf01")
    assert code == 1
    finding = _one(findings, "shared headroom pool is sized by buffermgrd")
    assert "over_subscribe_ratio 2 in the config, 6979584 B in the plan" in finding["message"]
    assert finding["line"] == _line(path, '"ingress_lossless_pool"', after='"BUFFER_POOL"')


def test_the_ratio_beside_a_stated_pool_xoff_changes_nothing(run, tmp_path):
    """The stated xoff sizes the pool whatever the ratio (buffermgrdyn.cpp: 'enabled by size
    -> config or remove ratio: no action')."""
    db = _golden("pod-2048/leaf01.json")
    db["DEFAULT_LOSSLESS_BUFFER_PARAMETER"]["AZURE"]["over_subscribe_ratio"] = "3"
    _, findings, _ = _lint(run, tmp_path, POD, db, "leaf01", "--device", "leaf01")
    assert not [f for f in findings if f["rule"] == "LL200"]
