"""Cumulus NVUE configs through `lossless lint`: a corpus written in the real styles (each file
says what lint must find in its `# expect:` line), and defects seeded into the rendered lab
config (changes and removals) found at the line that states them."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest
from conftest import INVENTORIES, REPO

LAB = str(INVENTORIES / "lab.yaml")
CORPUS = REPO / "tests" / "configs" / "cumulus"
EXPECT = re.compile(r"# expect: exit (\d)((?:; LL\d+ line \d+)*)$", re.MULTILINE)


def _expectations(path):
    match = EXPECT.search(path.read_text())
    assert match, f"{path} has no '# expect:' line"
    findings = set(re.findall(r"(LL\d+) line (\d+)", match.group(2)))
    return int(match.group(1)), {(rule, int(line)) for rule, line in findings}


def _findings(output: str, path) -> set[tuple[str, int]]:
    """(rule, line) of every finding, at a line of this file."""
    found = set()
    for text in output.splitlines():
        match = re.match(rf"{re.escape(str(path))}:(\d+):\d+: \w+ (LL\d+) ", text)
        if match:
            found.add((match.group(2), int(match.group(1))))
            # a link or host rule's finding folded into the drift it follows from, which
            # names it at the same line (lossless/lint/consequences.py)
            if match.group(2) == "LL200":
                found |= {(r, int(match.group(1))) for r in re.findall(r"\((LL\d+)\): ", text)}
    return found


@pytest.mark.parametrize("path", sorted(CORPUS.iterdir()), ids=lambda p: p.name)
def test_corpus_config_lints_as_its_header_says(run, path):
    code, expected = _expectations(path)
    result = run("lint", "--config", str(path), "--os", "cumulus")
    assert result.code == code, result.out + result.err
    assert _findings(result.out, path) == expected, result.out


def test_corpus_has_clean_and_defective_files_in_both_forms():
    kinds = {(p.suffix, _expectations(p)[0]) for p in CORPUS.iterdir()}
    assert {(".yaml", 0), (".yaml", 1), (".txt", 0), (".txt", 1)} <= kinds
    assert len(list(CORPUS.iterdir())) >= 5


# -- defects seeded into the rendered config, linted against the inventory --------------------


@pytest.fixture
def configs(tmp_path):
    folder = tmp_path / "configs"
    shutil.copytree(REPO / "golden" / "lab", folder)
    return folder


def _line(text: str, needle: str, after: str = "") -> int:
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if after in line) if after else 0
    return next(i for i, line in enumerate(lines) if i >= start and needle in line) + 1


PFC_50M = (
    "roce-50m:\n          cable-length: 50\n          rx: enable\n          switch-priority:\n"
)
WATCHDOG_31 = "profile: roce-50m\n          pfc-watchdog:\n            state: enable\n"
SEEDED = {
    # name: (old text, new text, rule, (needle, after) of the line the finding must name)
    "pfc-priority-changed-on-one-end": (
        PFC_50M + "            '3': {}",
        PFC_50M + "            '4': {}",
        "LL105",
        ("switch-priority:", "roce-50m:"),
    ),
    "cnp-priority-made-lossless": (
        PFC_50M + "            '3': {}",
        PFC_50M + "            '3': {}\n            '6': {}",
        "LL121",
        ("switch-priority:", "roce-50m:"),
    ),
    "ecn-max-above-pfc-trigger": (
        "max-threshold: 500000",
        "max-threshold: 900000000",
        "LL112",
        ("'3':", "congestion-control:"),
    ),
    "wred-drop-on-lossless-queue": ("red: disable", "red: enable", "LL122", ("red: enable", "")),
    "mtu-changed": (
        "swp31:\n        description: fabric uplink\n        link:\n          mtu: 9100",
        "swp31:\n        description: fabric uplink\n        link:\n          mtu: 9000",
        "LL106",
        ("mtu: 9000", ""),
    ),
    # removals: the setting is gone and the OS default (or the roce preset) applies
    "watchdog-removed": (WATCHDOG_31, "profile: roce-50m\n", "LL114", ("qos:", "swp31:")),
    "mtu-removed": (
        "swp31:\n        description: fabric uplink\n        link:\n          mtu: 9100\n",
        "swp31:\n        description: fabric uplink\n        link:\n",
        "LL106",  # 9216 by default, the spine end says 9100
        ("link:", "swp31:"),
    ),
    "dscp-24-removed": (  # the default map puts DSCP 24 in the no-drop priority 3
        "            '24':\n              switch-priority: 0\n",
        "",
        "LL200",
        ("dscp:", ""),
    ),
    "pfc-profile-binding-removed": (  # the port falls back to the roce preset: 100 m cable
        "          pfc:\n            profile: roce-50m\n",
        "",
        "LL200",
        ("roce:", ""),
    ),
    "trust-port": (
        "          trust: l3\n",
        "          trust: port\n",
        "LL200",
        ("trust: port", ""),
    ),
}


@pytest.mark.parametrize("defect", sorted(SEEDED))
def test_seeded_defect_is_found_at_the_line_that_states_it(run, configs, defect):
    old, new, rule_id, (needle, after) = SEEDED[defect]
    path = configs / "leaf2.yaml"
    text = path.read_text()
    assert old in text
    text = text.replace(old, new, 1)
    path.write_text(text)
    result = run("lint", LAB, "--configs", str(configs))
    assert result.code == 1, result.out
    line = _line(text, needle, after)
    assert (rule_id, line) in _findings(result.out, path), (line, result.out)


REMOVALS_THAT_CHANGE_NOTHING = {
    # the default DSCP // 8 map already puts 26 in priority 3 and 48 in 6
    "dscp-26-line": "            '26':\n              switch-priority: 3\n",
    "dscp-48-line": "            '48':\n              switch-priority: 6\n",
    # the roce preset makes traffic class 6 strict
    "cnp-strict-line": "            '6':\n              mode: strict\n",
}


@pytest.mark.parametrize("removal", sorted(REMOVALS_THAT_CHANGE_NOTHING))
def test_removing_a_line_that_states_the_default_finds_nothing(run, configs, removal):
    """Invent no finding: a removed line whose value the OS default or the preset already
    gives means the same on the switch."""
    path = configs / "leaf2.yaml"
    text = path.read_text()
    old = REMOVALS_THAT_CHANGE_NOTHING[removal]
    assert old in text
    path.write_text(text.replace(old, "", 1))
    result = run("lint", LAB, "--configs", str(configs))
    assert result.code == 0, result.out
    assert not _findings(result.out, path), result.out


def test_removing_the_ecn_override_leaves_the_preset_s_ecn_which_is_drift(run, configs):
    """The roce preset marks at 150000-1500000 B; the lab plans 500000 B (issue 10: the PFC
    trigger at the SN4700's real port count): without the override the switch marks too late."""
    path = configs / "leaf2.yaml"
    text = path.read_text()
    old = "              max-threshold: 500000\n"
    assert old in text
    path.write_text(text.replace(old, "", 1))
    result = run("lint", LAB, "--configs", str(configs))
    assert result.code == 1
    assert "ECN: queue 3: min 150000 max 1500000 B, 100% in the config" in result.out


def test_the_partial_dscp_map_of_the_old_output_is_drift(run, configs):
    """The previous render listed only DSCPs 26 and 48: the switch's default map put 24-31
    in the no-drop class and 49-55 with CNP. Lint of that output must say so."""
    old = subprocess.run(
        ["git", "show", "8f7a8d1:golden/lab/leaf2.yaml"],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    if old.returncode != 0:
        pytest.skip("git history of golden/lab/leaf2.yaml not available")
    path = configs / "leaf2.yaml"
    path.write_text(old.stdout)
    result = run("lint", LAB, "--configs", str(configs))
    assert result.code == 1
    drift = [line for line in result.out.splitlines() if " LL200 " in line and "DSCP" in line]
    assert drift and "DSCP 24-25, 27-31: 3 in the config, 0 in the plan" in drift[0]
    assert "DSCP 49-55: 6 in the config, 0 in the plan" in drift[0]


def test_rendered_config_lints_clean_alone_and_against_the_inventory(run):
    golden = REPO / "golden" / "lab" / "leaf2.yaml"
    alone = run("lint", "--config", str(golden), "--os", "cumulus")
    assert alone.code == 0 and not _findings(alone.out, golden), alone.out
    together = run("lint", LAB, "--configs", str(REPO / "golden" / "lab"))
    assert not _findings(together.out, golden), together.out
