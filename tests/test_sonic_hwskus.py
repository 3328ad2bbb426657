"""The hardware a config names is known (issue 36 item 4): every SONiC platform and hwsku of
sonic-buildimage's device/ tree maps to the ASIC its own files name (lossless/asics/
sonic_hwskus.csv, written by tests/data/extract_sonic_skus.py at the commit its first line
records), and Arista's EOS models likewise; a chip the catalogue does not have is said, never
replaced by another."""

from __future__ import annotations

import csv
import json

import pytest
from conftest import DATA, REPO

from lossless.asics import catalogue
from lossless.asics.models import chip_of_model, identify_model, model_family
from lossless.asics.sonic_skus import SKUS_FILE, sku_table
from lossless.vendors.sonic.platform import hardware_from_metadata

SONIC_TH3 = REPO / "tests" / "configs" / "sonic" / "z9332f-traditional-legacy-keys.json"
AVD = REPO / "tests" / "configs" / "eos" / "avd-leaf-clean.cfg"
# The snapshot every "bi:" path of the catalogue cites (docs/reference/sonic.md)
PINNED = "086b03bd70f9e211aaaf5f6aefe0790b508d2a94"


def _config_db(tmp_path, platform: str, hwsku: str):
    """The issue's config: a 400G SONiC leaf whose PGs hold a 5 m profile (xoff 120 KB) on
    cables CABLE_LENGTH says are 300 m, its DEVICE_METADATA naming the switch."""
    data = json.loads(SONIC_TH3.read_text())
    data["DEVICE_METADATA"]["localhost"].update(platform=platform, hwsku=hwsku)
    data["CABLE_LENGTH"]["AZURE"] = dict.fromkeys(data["CABLE_LENGTH"]["AZURE"], "300m")
    profile = data["BUFFER_PROFILE"].pop("pg_lossless_400000_40m_profile")
    profile["xoff"] = "120000"
    data["BUFFER_PROFILE"]["pg_lossless_400000_5m_profile"] = profile
    path = tmp_path / "leaf.json"
    path.write_text(json.dumps(data, indent=4).replace("400000_40m_profile", "400000_5m_profile"))
    return path


def _lines(result, rule_id):
    return [line for line in result.out.splitlines() if f" {rule_id} " in line]


def test_the_issues_arista_7060dx4_is_judged_as_its_tomahawk_3(run, tmp_path):
    """Issue 36: hwsku Arista-7060DX4-C32 on x86_64-arista_7060dx4_32 was "hardware not
    known", so 120 KB of xoff on a 300 m cable was only a warning."""
    config = _config_db(tmp_path, "x86_64-arista_7060dx4_32", "Arista-7060DX4-C32")
    result = run("lint", "--config", str(config), "--os", "sonic")
    assert result.code == 1, result.out + result.err
    findings = _lines(result, "LL101")
    assert findings and all("error LL101" in line for line in findings)
    assert all("xoff 120000 B is below" in line and "300 m" in line for line in findings)
    assert "any supported SONiC switch" not in result.out
    # judged as Tomahawk 3, the chip of the SKU's own Broadcom config in sonic-buildimage
    assert "note: ASIC tomahawk-3: the model Arista-7060DX4-C32" in result.err
    assert "th3-a7060dx4-c32-32x400G.config.bcm" in result.err


def test_a_chip_the_catalogue_does_not_have_is_named_not_replaced(run, tmp_path):
    config = _config_db(tmp_path, "x86_64-arista_7280dr3a_36", "Arista-7280DR3A-36")
    result = run("lint", "--config", str(config), "--os", "sonic")
    findings = _lines(result, "LL101")
    assert findings and all("warning LL101" in line for line in findings)  # judged blind
    assert (
        "note: Arista-7280DR3A-36 at " in result.err
        and "is broadcom jr2p (jr2p-a7280dra3-36-36x400G.config.bcm), which the catalogue "
        "does not have"
        in result.err
    )


@pytest.mark.parametrize(
    ("platform", "hwsku", "asic", "evidence"),
    [
        # NVIDIA: platform/mellanox/asic_table.j2's platform -> ASIC_TABLE key
        ("x86_64-mlnx_msn2410-r0", "ACS-MSN2410", "spectrum-1", "asic_table.j2"),
        ("x86_64-mlnx_msn3800-r0", "Mellanox-SN3800-D112C8", "spectrum-2", "asic_table.j2"),
        ("x86_64-nvidia_sn6600_ld-r0", None, "spectrum-6", "asic_table.j2"),
        # Broadcom: the chip the SKU's SDK config is named for
        ("x86_64-dell_s6000_s1220-r0", "Force10-S6000", "trident-2", "td2-s6000-32x40G"),
        ("x86_64-arista_7060_cx32s", "Arista-7060CX-32S-Q32", "tomahawk-1", "th-a7060-cx32s"),
        ("x86_64-arista_7260cx3_64", "Arista-7260CX3-C64", "tomahawk-2", "th2-a7260cx3-64"),
        ("x86_64-dellemc_z9332f_d1508-r0", "DellEMC-Z9332f-O32", "tomahawk-3", "th3-z9332f"),
        ("x86_64-arista_7060dx5_64s", None, "tomahawk-4", "th4-a7060dx5-64s"),
        (None, "Arista-7060X6-64PE-256x200G", "tomahawk-5", "th5-a7060x6-64pe"),
        ("x86_64-arista_7050cx3_32s", "Arista-7050CX3-32S-C32", "trident-3", "td3-a7050cx3"),
        ("x86_64-arista_7050dx4_32s", "Arista-7050DX4-32S", "trident-4", "td4-a7050dx4-32s"),
        # Broadcom platforms whose files name no chip: the platform (vendor datasheets)
        ("x86_64-nokia_ixr7220_h4-r0", "Nokia-IXR7220-H4-64D", "tomahawk-4", "platform name"),
        # SONiC's virtual switch
        ("x86_64-kvm_x86_64_4_asic-r0", None, "sonic-vs", "platform_asic vs"),
    ],
)
def test_a_sonic_sku_is_the_asic_its_files_name(platform, hwsku, asic, evidence):
    hardware = hardware_from_metadata(platform, hwsku)
    assert hardware is not None and hardware.match is not None
    assert hardware.match.asic == asic
    assert evidence in hardware.match.source and PINNED[:8] in hardware.match.source


@pytest.mark.parametrize(
    ("platform", "hwsku", "chip"),
    [
        ("x86_64-arista_7800r3a_36d2_lc", "Arista-7800R3A-36D2-C36", "broadcom j2p"),
        (None, "Arista-7280CR3-C40", "broadcom jr2"),
        ("x86_64-accton_as9516_32d-r0", "newport", "BAREFOOT-TOFINO-2"),
        ("x86_64-nokia_ixr7220_h6_64-r0", "Nokia-IXR7220-H6-64", "tomahawk-6"),
        ("x86_64-dell_s3248t-r0", "DELL-S3248T", "broadcom hx5"),
        ("x86_64-cel_midstone-r0", "Midstone-200i", "a marvell-teralynx ASIC whose chip"),
    ],
)
def test_a_sonic_sku_of_a_chip_the_catalogue_lacks_is_said_to_be_it(platform, hwsku, chip):
    hardware = hardware_from_metadata(platform, hwsku)
    assert hardware is not None and hardware.match is None
    assert hardware.chip.startswith(chip)


def test_a_name_the_table_does_not_have_falls_back_to_the_model_families():
    # no such folder upstream; the model family (asic_table.j2's grouping) still places it
    hardware = hardware_from_metadata("x86_64-nvidia_sn5600-r9", "Mellanox-SN5600-X")
    assert hardware is not None and hardware.match is not None
    assert hardware.match.asic == "spectrum-4" and hardware.key == "platform"
    # a folder whose files name no chip does not hide what the family says
    hardware = hardware_from_metadata("x86_64-arista_7050px4_32s", "Arista-7050PX4-32S")
    assert hardware is not None and hardware.match is not None
    assert hardware.match.asic == "trident-4"
    assert hardware_from_metadata("x86_64-unknown-r0", "Nothing-1") is None


# -- EOS `! device:` models -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("model", "asic", "source"),
    [
        # the chip of the same switch's SONiC platform (its Broadcom config), then datasheets
        ("DCS-7060DX4-32", "tomahawk-3", "th3-a7060dx4-32-flex.config.bcm"),
        ("DCS-7060PX4-32", "tomahawk-3", "th3-a7060px4-32-flex.config.bcm"),
        ("DCS-7050SX3-48YC8", "trident-3", "td3-a7050sx3_48yc8"),
        ("DCS-7050DX4-32S", "trident-4", "td4-a7050dx4-32s"),
        ("DCS-7060X6-32PE", "tomahawk-5", "th5-a7060x6-32pe"),
        ("DCS-7050QX-32", "trident-2", "x86_64-arista_7050_qx32/platform.json"),
        ("DCS-7050SX-64", "trident-2", "Arista 7050X series datasheet"),
        ("DCS-7060PX4-48", "tomahawk-3", "Arista 7060X4 series datasheet"),
    ],
)
def test_an_eos_model_is_its_asic(model, asic, source):
    match = identify_model(model)
    assert match is not None and match.asic == asic and source in match.source


@pytest.mark.parametrize(
    ("model", "chip"),
    [
        ("DCS-7280CR3-32P4", "broadcom jr2 (jr2-a7280cr3-32p4"),
        ("DCS-7280DR3A-36", "broadcom jr2p"),
        ("DCS-7500R3-36CQ-LC", "Broadcom Jericho2 family"),
        ("DCS-7280SR2-48YC6", "Broadcom Jericho+"),
        ("DCS-7280SR-48C6", "Broadcom Jericho ("),
        ("DCS-7170-64C", "Intel Tofino"),
    ],
)
def test_an_eos_model_of_a_chip_the_catalogue_lacks_is_said_to_be_it(model, chip):
    assert identify_model(model) is None
    named = chip_of_model(model)
    assert named is not None and named.startswith(chip)


def test_an_eos_config_is_judged_for_its_device_line(run, tmp_path):
    text = AVD.read_text()
    assert "(DCS-7060DX5-32, " in text
    config = tmp_path / "leaf.cfg"
    config.write_text(text.replace("(DCS-7060DX5-32, ", "(DCS-7060DX4-32, "))
    result = run("lint", "--config", str(config), "--os", "eos")
    assert "note: ASIC tomahawk-3: the model DCS-7060DX4-32 at " in result.err
    jericho = tmp_path / "jericho.cfg"
    jericho.write_text(text.replace("(DCS-7060DX5-32, ", "(DCS-7280CR3-32P4, "))
    result = run("lint", "--config", str(jericho), "--os", "eos")
    assert "note: DCS-7280CR3-32P4 at " in result.err
    assert "is broadcom jr2 (jr2-a7280cr3-32p4-32x100G+4x400G.config.bcm)" in result.err
    assert "judged against every supported ASIC" in result.err
    told = run("lint", "--config", str(AVD), "--os", "eos", "--platform", "DCS-7280CR3-32P4")
    assert told.code == 2 and "broadcom jr2" in told.err and "not in the catalogue" in told.err


def test_the_datasheet_families_agree_with_sonics_arista_configs():
    """Two sources for one fact: Arista's datasheets (the model families of asics/models.py)
    and the Broadcom config of the same switch's SONiC port (th3-a7060dx4-...). Every Arista
    SONiC platform whose files name a catalogue ASIC and whose model a family matches is the
    same ASIC in both."""
    checked = set()
    for row in sku_table().rows:
        if row.platform.startswith("x86_64-arista_") and row.asic:
            family = model_family(row.hwsku) or model_family(row.platform)
            if family is not None:
                assert family.asic == row.asic, (row.hwsku, family, row.evidence)
                checked.add(row.platform)
    assert len(checked) == 21  # of 22: Arista-7050-QX32's name is not the order code's


# -- the table ------------------------------------------------------------------------------


def test_the_table_records_the_pinned_snapshot():
    assert sku_table().commit == PINNED
    assert (
        SKUS_FILE.read_text().splitlines()[0].startswith(f"# sonic-net/sonic-buildimage {PINNED}")
    )


def test_the_coverage_of_the_table():
    """The closing note's numbers: hwsku folders (device/VENDOR/PLATFORM/HWSKU) and platforms
    of sonic-buildimage 086b03b, those with buffer tables, how many a chip is named for, how
    many are catalogue ASICs."""
    rows = sku_table().rows
    buffered = [row for row in rows if row.buffers]
    assert len(rows) == 542 and len({row.platform for row in rows}) == 276
    assert len(buffered) == 363 and len({row.platform for row in buffered}) == 163
    assert len({row.hwsku for row in buffered}) == 317
    assert sum(1 for row in buffered if row.asic or row.chip) == 275
    assert sum(1 for row in buffered if row.asic) == 220
    assert sum(1 for row in rows if row.asic) == 317
    assert {row.asic for row in rows if row.asic} <= set(catalogue())
    # a chip the catalogue has is never left in the chip column
    assert not {row.chip for row in rows} & set(catalogue())


def test_nvidia_rows_agree_with_the_model_families():
    """Two readings of the same fact: asic_table.j2's platform grouping (the table) and the
    Spectrum generation an SN model number is (asics/models.py)."""
    for row in sku_table().rows:
        if row.platform_asic == "mellanox" and row.asic:
            match = identify_model(row.platform)
            assert match is not None and match.asic == row.asic, row


def test_broadcom_rows_agree_with_the_published_headroom_tables():
    """vendor_headroom.csv classifies each pg_profile_lookup.ini file on its own (by file,
    not by hwsku folder): every SKU it lists is the same ASIC here."""
    with (DATA / "vendor_headroom.csv").open(newline="") as handle:
        listed = {
            (row["asic"], sku) for row in csv.DictReader(handle) for sku in row["skus"].split()
        }
    index = sku_table().by_hwsku
    checked = 0
    for asic, sku in listed:
        for row in index.get(sku, ()):
            if row.platform_asic.startswith("broadcom"):
                assert row.asic == asic, (sku, row)
                checked += 1
    assert checked == 91  # hwsku folders that ship a Broadcom catalogue table


def test_every_name_of_the_table_is_one_a_config_can_state():
    """DEVICE_METADATA names pass skeleton.model_name (a model as configs print it) before
    they are looked up: a table name it refused could never be found."""
    from lossless.vendors.skeleton import model_name

    for row in sku_table().rows:
        assert model_name(row.platform) == row.platform and model_name(row.hwsku) == row.hwsku


@pytest.mark.parametrize(
    "hwsku", [5, ["Arista-7060DX4-C32"], "Arista-7060DX4-C32\u001b[31m", "A" * 5000]
)
def test_a_hostile_device_metadata_names_nothing(run, tmp_path, hwsku):
    config = _config_db(tmp_path, "x86_64-unknown-r0", "placeholder")
    data = json.loads(config.read_text())
    data["DEVICE_METADATA"]["localhost"]["hwsku"] = hwsku
    config.write_text(json.dumps(data))
    result = run("lint", "--config", str(config), "--os", "sonic")
    assert "Traceback" not in result.err and "\u001b" not in result.out + result.err
    assert "the config does not name its hardware" in result.err


def test_a_null_hwsku_is_bad_input_at_its_path(run, tmp_path):
    config = _config_db(tmp_path, "x86_64-arista_7060dx4_32", "placeholder")
    data = json.loads(config.read_text())
    data["DEVICE_METADATA"]["localhost"]["hwsku"] = None
    config.write_text(json.dumps(data))
    result = run("lint", "--config", str(config), "--os", "sonic")
    assert result.code == 2 and "DEVICE_METADATA.localhost.hwsku: expected a string" in result.err
