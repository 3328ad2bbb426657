"""The reference data in tests/data are unchanged copies of the team's reference folder."""

from __future__ import annotations

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


@pytest.mark.parametrize(("ours", "theirs"), COPIES, ids=[c[0] for c in COPIES])
def test_copy_matches_the_shared_reference(ours, theirs):
    original = SHARED / theirs
    if not original.is_file():
        pytest.skip("no ../shared beside this checkout: the copy is all there is")
    assert (DATA / ours).read_bytes() == original.read_bytes()
