"""The reference data in tests/data are unchanged copies of the team's reference folder."""

from __future__ import annotations

import hashlib

import pytest
from conftest import DATA, REPO

SHARED = REPO.parent / "shared"
COPIES = [
    ("reference/headroom-samples.csv", "reference/headroom-samples.csv"),
    ("reference/vendor-headroom-tables.csv", "reference/vendor-headroom-tables.csv"),
    ("reference/ecn-defaults.csv", "reference/ecn-defaults.csv"),
    *(
        (f"sonic-yang/{path.name}", f"sonic-yang/{path.name}")
        for path in sorted((DATA / "sonic-yang").iterdir())
    ),
]


def test_the_copies_carry_their_sources():
    readme = (DATA / "README.md").read_text()
    for ours, _ in COPIES[:3]:
        assert f"`{ours}`" in readme
    assert (DATA / "sonic-yang" / "LICENSE").is_file()
    assert (DATA / "sonic-yang" / "SOURCE.md").is_file()
    listed = (DATA / "sonic-yang" / "SOURCE.md").read_text()
    for path in (DATA / "sonic-yang").glob("*.yang"):
        assert f"| {path.name} |" in listed, path.name


# sha256sum lines of the reference files, taken from ../shared when they were copied: the
# copies are checked against them in any checkout (`sha256sum -c` in ../shared works too)
SUMS = DATA / "COPIES.sha256"


def _recorded() -> dict[str, str]:
    pairs = (line.split(maxsplit=1) for line in SUMS.read_text().splitlines() if line.strip())
    return {path.strip(): digest for digest, path in pairs}


@pytest.mark.parametrize(("ours", "theirs"), COPIES, ids=[c[0] for c in COPIES])
def test_copy_is_the_reference_it_was_copied_from(ours, theirs):
    assert hashlib.sha256((DATA / ours).read_bytes()).hexdigest() == _recorded()[theirs]


def test_the_recorded_sums_are_the_shared_reference_of_today():
    if not SHARED.is_dir():
        pytest.skip("no ../shared beside this checkout: COPIES.sha256 is the record")
    for path, digest in _recorded().items():
        assert hashlib.sha256((SHARED / path).read_bytes()).hexdigest() == digest, path
