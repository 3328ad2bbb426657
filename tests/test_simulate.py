"""lossless simulate: the headroom model walked frame by frame (oracle 1), the fluid model's
PFC against the same numbers, and the planned thresholds' behaviour under incast
(oracle 3), on the lab inventory and copies of it."""

from __future__ import annotations

import csv
import dataclasses
import io
import json
from functools import cache
from pathlib import Path

import pytest
from conftest import INVENTORIES

from lossless.cli.main import main
from lossless.inventory import load_inventory
from lossless.plan import FabricPlan
from lossless.planner.fabric import plan_fabric
from lossless.simulate.dcqcn import dcqcn
from lossless.simulate.fluid import simulate
from lossless.simulate.headroom_check import mix, walk, worst_frame
from lossless.simulate.scenario import Scenario, scenario

LAB = INVENTORIES / "lab.yaml"
# A Spectrum-4 port (SONiC's Mellanox model) and a Tomahawk-4 port (the IEEE model the
# planner uses for Broadcom), both of the lab
SPECTRUM = ("leaf1", "Ethernet0")
BROADCOM = ("spine1", "Ethernet1/1")


@cache
def _plan(path: Path, device: str) -> FabricPlan:
    return plan_fabric(load_inventory(str(path)), [device])


def _derivation(device: str, port: str, path: Path = LAB) -> dict:
    plan = _plan(path, device)
    return plan.derivations[plan.devices[device].ports[port].headroom[0].derivation]


# --- oracle 1: the headroom, to the byte ---------------------------------------------------


def test_the_worst_frame_is_found_by_trying_every_size():
    # 64-byte frames waste the most of a 254-byte cell: 254 buffer bytes for 84 on the wire
    assert worst_frame(254, 9100) == 64
    # a cell of 96: 97-byte frames take two cells (192) for 117 wire bytes, 1.64 > 96/84
    assert worst_frame(96, 9100) == 97


def test_broadcom_walk_equals_the_ieee_model_within_a_frame():
    """The IEEE model sizes its cells for SONiC's traffic mix (small_packet_percent of 64-byte
    frames, the rest at lossless_mtu; issue 39): walked with that mix, the wire bytes and the
    cells match the model's in-flight bytes and xoff within the last frame the walk counts
    whole (one lossless_mtu frame on the wire, its cells in the buffer)."""
    d = _derivation(*BROADCOM)
    inputs = d["inputs"]
    cell = d["constants"]["cell_size"]["value"]
    large = inputs["lossless_mtu"]
    w = walk(d, sizes=mix(inputs["small_packet_percent"], large))
    assert w.model == "ieee-8021qbb"
    assert 0 <= w.wire_bytes - w.model_in_flight < large + 20
    assert abs(w.cell_bytes - w.model_xoff) <= -(-large // cell) * cell
    # the walk's events in order: the pause leaves after the frame in progress and itself
    times = [t for _, t in w.events]
    assert times == sorted(times)
    # all-64-byte traffic wastes more cells than the mix the model is sized for
    assert walk(d).cell_bytes > w.model_xoff


def test_spectrum_walk_equals_sonic_in_flight_within_a_cell():
    d = _derivation(*SPECTRUM)
    w = walk(d)
    cell = d["constants"]["cell_size"]["value"]
    assert w.model == "sonic-mellanox"
    assert 0 <= w.wire_bytes - w.model_in_flight < cell
    # SONiC sizes xoff for its traffic mix (small_packet_percent of 64-byte frames, the rest
    # at lossless_mtu): the mix fits the planned xoff ...
    inputs = d["inputs"]
    mixed = walk(d, sizes=mix(inputs["small_packet_percent"], inputs["lossless_mtu"]))
    assert mixed.cell_bytes <= mixed.model_xoff
    # ... all-64-byte traffic does not (docs/simulate.md: the difference explained)
    assert w.cell_bytes > w.model_xoff


def _single(device: str, port: str, **sender_changes) -> Scenario:
    sc = scenario(_plan(LAB, device), device, port, 2)
    senders = tuple(dataclasses.replace(s, **sender_changes) for s in sc.senders)
    return dataclasses.replace(sc, senders=senders)


@pytest.mark.parametrize("where", [SPECTRUM, BROADCOM])
def test_fluid_pfc_without_cc_fills_headroom_with_the_in_flight_bytes(where):
    sc = _single(*where)
    step = 10e-9
    result = simulate(sc, None, 100e-6, step_s=step, drain=False)
    assert result.first_pause_s is not None
    assert result.dropped_bytes == 0
    for sender, came, used in zip(sc.senders, result.after_pause, result.max_headroom, strict=True):
        expected = sender.in_flight + sender.sender_frame
        # every delay is rounded to a step: one step's bytes either way
        assert abs(came - expected) <= sender.speed_bps * step / 8 * 2
        assert used == pytest.approx(came)
        assert used <= sender.xoff


@pytest.mark.parametrize("where", [SPECTRUM, BROADCOM])
def test_xoff_below_the_in_flight_bytes_drops(where):
    plan_sc = _single(*where)
    cut = int(plan_sc.senders[0].in_flight * 0.8)
    sc = _single(*where, xoff=cut)
    result = simulate(sc, None, 100e-6, step_s=10e-9, drain=False)
    assert result.dropped_bytes > 0
    assert simulate(plan_sc, None, 100e-6, step_s=10e-9, drain=False).dropped_bytes == 0
    assert walk(_derivation(*where)).wire_bytes > cut


# --- oracle 3: behaviour, on copies of the lab inventory --------------------------------------

PLANNED_ECN = "ecn: {preset: nvidia, max_bytes: 500000}"


def _lab_with(tmp_path: Path, ecn: str) -> Path:
    text = LAB.read_text()
    assert PLANNED_ECN in text
    copy = tmp_path / "lab.yaml"
    copy.write_text(text.replace(PLANNED_ECN, ecn))
    return copy


def _run(path: Path, incast: int | None, where=SPECTRUM, duration=100e-6):
    device, port = where
    sc = scenario(plan_fabric(load_inventory(str(path)), [device]), device, port, incast)
    return sc, simulate(sc, dcqcn(), duration)


def test_kmin_above_what_the_pgs_hold_at_the_trigger_pauses_before_marking(tmp_path):
    # At N:1 one egress queue holds every sender's PG: PFC fires when each holds T, the queue
    # N * T (leaf1 at its real fan-in of 3: 3 * 525100 bytes). Kmin above that: pause first.
    sc, planned = _run(LAB, None)
    assert len(sc.senders) == 3 and sc.trigger == 525100
    assert not planned.pause_before_mark
    high = 3 * 525100 + 100_000
    path = _lab_with(tmp_path, f"ecn: {{min_bytes: {high}, max_bytes: {high + 500_000}}}")
    _, raised = _run(path, None)
    assert raised.pause_before_mark
    assert raised.first_pause_s < raised.first_mark_s


def test_kmin_above_the_trigger_alone_still_marks_first_at_three_to_one(tmp_path):
    # The planner's check (Kmin < T/f, LL112) compares one PG's trigger with the queue: at
    # 3:1 the queue holds three PGs, so a Kmin just above T still marks first (docs/simulate.md)
    path = _lab_with(tmp_path, "ecn: {min_bytes: 600000, max_bytes: 900000}")
    _, result = _run(path, None)
    assert not result.pause_before_mark


@pytest.mark.parametrize("incast", [None, 16])
def test_lower_pmax_delays_the_first_rate_cut(tmp_path, incast):
    _, planned = _run(LAB, incast)
    _, lower = _run(_lab_with(tmp_path, PLANNED_ECN[:-1] + ", probability_percent: 20}"), incast)
    assert lower.first_cut_s - planned.first_cut_s >= 2e-7  # two steps or more


@pytest.mark.parametrize("incast", [None, 16])
def test_higher_kmax_delays_the_first_rate_cut(tmp_path, incast):
    _, planned = _run(LAB, incast)
    _, higher = _run(_lab_with(tmp_path, "ecn: {preset: nvidia, max_bytes: 2000000}"), incast)
    assert higher.first_cut_s - planned.first_cut_s >= 2e-7


@pytest.mark.parametrize("where", [SPECTRUM, BROADCOM])
@pytest.mark.parametrize("incast", [16, 64])
def test_the_planned_thresholds_mark_first(where, incast):
    _, result = _run(LAB, incast, where)
    assert result.first_mark_s is not None
    assert not result.pause_before_mark


def test_without_congestion_control_nothing_is_cut_and_the_port_pauses():
    sc = scenario(_plan(LAB, SPECTRUM[0]), *SPECTRUM, 16)
    result = simulate(sc, None, 50e-6)
    assert result.first_cut_s is None and result.first_pause_s is not None
    assert result.dropped_bytes == 0  # the planned headroom holds


# --- the command line ------------------------------------------------------------------------


def test_simulate_json_reports_the_port(capsys):
    code = main(["simulate", str(LAB), "--device", "leaf1", "--incast", "16", "--duration", "0.1",
                 "--format", "json"])  # fmt: skip
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert (out["port"], out["senders"], out["fan_in"]) == ("Ethernet0", 16, 3)
    assert (out["kmin_bytes"], out["kmax_bytes"], out["pfc_trigger_bytes"]) == (
        150000, 500000, 525100)  # fmt: skip
    assert out["first_mark_us"] < out["first_pause_us"]
    assert not out["pauses_before_marking"]
    assert len(out["throughput_gbps"]) == 16 and 0 < out["fairness"] <= 1
    assert out["queue"][0]["us"] == 0


def test_simulate_csv_has_one_row_a_microsecond(capsys):
    assert main(["simulate", str(LAB), "--device", "spine1", "--duration", "0.05",
                 "--format", "csv", "--no-cc"]) == 0  # fmt: skip
    rows = list(csv.reader(io.StringIO(capsys.readouterr().out)))
    assert rows[0] == ["us", "queue_bytes", "kmin_bytes", "kmax_bytes", "pfc_trigger_bytes"]
    assert len(rows) == 1 + 50


def test_simulate_text_names_first_mark_and_pause(capsys):
    assert main(["simulate", str(LAB), "--device", "leaf1", "--duration", "0.05"]) == 0
    out = capsys.readouterr().out
    assert "first ECN mark" in out and "first pause" in out and "Jain's fairness" in out


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--device", "nope"], "no device 'nope'"),
        (["--device", "leaf1", "--port", "Ethernet9"], "leaf1 has no port 'Ethernet9'"),
        (["--device", "leaf1", "--incast", "0"], "--incast must be between 1 and 4096"),
        (["--device", "leaf1", "--duration", "-1"], "--duration must be more than 0"),
        (["--device", "leaf1", "--duration", "2000"], "--duration must be more than 0"),
        (["--device", "leaf1", "--step", "0"], "--step must be more than 0"),
        (["--device", "leaf1", "--dcqcn", "g"], "NAME=VALUE"),
        (["--device", "leaf1", "--dcqcn", "alpha_g=x"], "'x' is not a number between 0"),
        (["--device", "leaf1", "--dcqcn", "alpha_g=-1"], "is not a number between 0 and 1023"),
        (["--device", "leaf1", "--dcqcn", "alpha_g=2000"], "is not a number between 0 and 1023"),
        (["--device", "leaf1", "--dcqcn", "rate_increase_bytes=0"], "is not a number >= 1"),
        (["--device", "leaf1", "--dcqcn", "ai_rate_mbps=inf"], "is not a number >= 0"),
        (["--device", "leaf1", "--dcqcn", "clamp_target_rate=2"], "between 0 and 1"),
        (["--device", "leaf1", "--dcqcn", "clamp_target_rate=0.5"], "is not a whole number"),
        (["--device", "leaf1", "--dcqcn", "alpha_g=1000.5"], "is not a whole number"),
    ],
)
def test_simulate_bad_input_exits_2_with_a_message(capsys, extra, message):
    assert main(["simulate", str(LAB), *extra]) == 2
    captured = capsys.readouterr()
    assert message in captured.err and "Traceback" not in captured.err
    assert captured.out == ""


def test_dcqcn_option_changes_the_run(capsys):
    args = ["simulate", str(LAB), "--device", "leaf1", "--duration", "0.05", "--format", "json"]
    main(args)
    planned = json.loads(capsys.readouterr().out)
    main([*args, "--dcqcn", "cnp_interval_us=50", "--dcqcn", "rate_reduce_period_us=50"])
    slower = json.loads(capsys.readouterr().out)
    assert slower["queue_mean_bytes"] != planned["queue_mean_bytes"]


def test_the_first_cut_is_zhu_et_al_with_nvidias_initial_alpha():
    # Zhu et al. 2015 figure 7: on a CNP, RT = RC and RC = RC (1 - alpha/2); NVIDIA sets
    # alpha to initial_alpha_value / 1024 = 1023/1024 on a flow's first CNP (DOCA "DCQCN CC
    # Parameters"). Stop the run one step after the first cut: every sender is at that rate.
    sc = scenario(_plan(LAB, SPECTRUM[0]), *SPECTRUM, 2)
    first = simulate(sc, dcqcn(), 50e-6).first_cut_s
    assert first is not None
    result = simulate(sc, dcqcn(), first + 100e-9)
    cut = result.rates[result.rates < 400e9]
    assert len(cut) >= 1
    assert cut == pytest.approx(400e9 * (1 - 1023 / 2048))


def test_no_cut_is_deeper_than_min_decrease_percent():
    # rpg_min_dec_fac: one cut leaves at least this share of the rate (DOCA); at 80 % and an
    # initial alpha of 1023/1024 the cut is 20 %, not 50 %
    sc = scenario(_plan(LAB, SPECTRUM[0]), *SPECTRUM, 2)
    cc = dcqcn({"min_decrease_percent": 80})
    first = simulate(sc, cc, 50e-6).first_cut_s
    assert first is not None
    result = simulate(sc, cc, first + 100e-9)
    assert result.rates[result.rates < 400e9] == pytest.approx(400e9 * 0.8)


def test_a_pg_resumes_only_once_its_headroom_is_empty():
    # 64:1 into leaf1 without congestion control: as other PGs drain, the dynamic threshold
    # rises over a paused PG whose headroom still holds bytes. Resumed then, it started its
    # next pause with them and, pause after pause, overflowed its xoff (first drop at 1.0 ms,
    # 10.9 MB in 10 ms, where HPCC's ns-3 drops nothing: its switch-mmu.cc resumes a PG only
    # with hdrm_bytes 0; docs/simulate.md "Peer comparison").
    sc = scenario(_plan(LAB, SPECTRUM[0]), *SPECTRUM, 64)
    result = simulate(sc, None, 1.5e-3)
    assert result.paused_share > 0.9
    assert result.dropped_bytes == 0


def test_cuts_in_a_row_keep_the_target_rate():
    # NVIDIA's defaults, clamp_tgt_rate 0 and clamp_tgt_rate_after_time_inc 1: a cut makes the
    # target the current rate only if the rate rose since the last cut, so the cuts a burst
    # of CNPs brings keep the line rate as the target and fast recovery climbs back towards
    # it; the paper's version (clamp_target_rate=1) lowers the target with every cut. At 16:1
    # over 1 ms that is 256 against 86 Gb/s through the port (docs/simulate.md "Peer
    # comparison": HPCC's ns-3 does the same).
    sc = scenario(_plan(LAB, SPECTRUM[0]), *SPECTRUM, 16)
    nvidia = simulate(sc, dcqcn(), 1e-3)
    paper = simulate(sc, dcqcn({"clamp_target_rate": 1}), 1e-3)
    assert nvidia.throughput_bps.sum() > 2 * paper.throughput_bps.sum()


@pytest.mark.parametrize("where", [SPECTRUM, BROADCOM])
def test_each_pause_counts_only_its_own_bytes(where):
    # Without congestion control the PGs pause and resume again and again; the bytes one
    # pause lets in stay the in-flight bytes (a count carried over from the last pause, after
    # every PG had resumed, would grow with each one)
    device, port = where
    sc = scenario(_plan(LAB, device), device, port, 2)
    result = simulate(sc, None, 400e-6)
    assert result.paused_share > 0
    for sender, came in zip(sc.senders, result.after_pause, strict=True):
        step_bytes = sender.speed_bps * result.step_s / 8
        assert came <= sender.in_flight + sender.sender_frame + 2 * step_bytes
