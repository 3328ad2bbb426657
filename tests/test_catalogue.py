"""The ASIC catalogue and platforms are product data: every value names its source."""

from __future__ import annotations

import re

import pytest

from lossless.asics import _catalogue_mappings, catalogue, platforms

TAG = re.compile(r"\[(SRC|RUN|2ND|UNV|DERIVED)")
NOT_NUMBERS = {"vendor", "description", "headroom_model", "sources", "sonic_asic_table_key"}


@pytest.mark.parametrize("name", sorted(_catalogue_mappings()))
def test_every_catalogue_value_has_a_tagged_source(name):
    values = _catalogue_mappings()[name]
    sources = values.get("sources", {})
    untagged = [
        key for key in values if key not in NOT_NUMBERS and not TAG.search(sources.get(key, ""))
    ]
    assert not untagged, untagged


def test_platforms_have_sources_and_known_asics():
    for platform in platforms().values():
        assert TAG.search(platform.source), platform.name
        assert platform.asic in catalogue(), platform.name
        speeds = catalogue()[platform.asic].speeds_mbps
        assert platform.cage_speed_mbps in speeds, platform.name


def test_platform_ports_break_out_as_far_as_the_cages_go():
    sn5600 = platforms()["SN5600"]  # 64 x 800G, 1x800G / 2x400G / 4x200G (platform.json)
    assert [sn5600.ports_at(s) for s in (800_000, 400_000, 200_000, 100_000)] == [
        64,
        128,
        256,
        256,
    ]


def test_sizes_are_published_bytes_not_mebibytes():
    """Issue 10: the SKU pools SONiC ships, not a datasheet "MB" read as MiB."""
    assert catalogue()["tomahawk-4"].buffer_bytes == 113_620_296
    assert catalogue()["tomahawk-5"].ingress_pool_bytes == 166_115_492
    assert catalogue()["spectrum-4"].ingress_pool_bytes == 67_737_959


@pytest.mark.parametrize("name", ["catalogue.yaml", "platforms.yaml"])
def test_data_files_read_alike_in_yaml_1_1_and_1_2(name):
    """The data files are read by libyaml (YAML 1.1, fast); ruamel.yaml (YAML 1.2, as
    inventories are read) reads the same values: no `on`, `1e-6` or `0o17` means two things."""
    from ruamel.yaml import YAML

    from lossless.asics import CATALOGUE_FILE, load_data_file

    path = CATALOGUE_FILE.with_name(name)
    assert load_data_file(path) == YAML(typ="safe", pure=True).load(path.read_text())
