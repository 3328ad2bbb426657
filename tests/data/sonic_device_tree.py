"""sonic-buildimage's device/ tree read from git objects (a checkout or a bare mirror), with
symbolic links followed the way git stores them; shared by the scripts of this folder that
extract data from it (extract_vendor_headroom.py, extract_sonic_skus.py).

Also the one place that says which Broadcom family a SKU's files name: FAMILY_PATTERNS are
matched against a SKU's paths and Broadcom config file names (th-, th2-, th3-, th4-, th5-,
td2-, td3-, td4- prefixes, the SDK's naming), and for platforms whose files name no chip the
platform (Nokia 7220 IXR-H4/H5/D4 are Tomahawk 4/5 and Trident 4, NextHop 4010/4020
Tomahawk 5, the vendors' datasheets).
"""

from __future__ import annotations

import posixpath
import re
import subprocess

FAMILY_PATTERNS = (
    (r"(^|/)th-|7060_cx32s|z9100|seastone-r0|s6100|profiles/th/", "tomahawk-1"),
    (r"(^|/)th2-|7260cx3|z9264f|profiles/th2/", "tomahawk-2"),
    (r"(^|/)th3-|z9332f|silverstone|snj60d0|ix9_", "tomahawk-3"),
    (r"(^|/)th4-|z9664f|ixr7220_h4|profiles/th4/", "tomahawk-4"),
    (
        r"(^|/)th5|7060x6|z9864f|micas_m2-w6940|ixr7220_h5|nexthop_40[12]0|profiles/th5/",
        "tomahawk-5",
    ),
    (r"ixr7220_h6|nexthop_4210", "tomahawk-6"),
    (r"(^|/)td2-|7050_qx32|s6000|profiles/td2/", "trident-2"),
    (
        r"(^|/)td3-|7050cx3|7050sx3|ds3000|seastone_2|s52[123]|n3248pxe|d6332|d6356|quanta_ix[78]",
        "trident-3",
    ),
    (r"(^|/)td4-|s5448f|ixr7220_d4", "trident-4"),
)
# The SDK's own naming of a config file by its chip (th3-a7060dx4-c32-32x400G.config.bcm)
CONFIG_PREFIX = re.compile(r"(th[2-5]?|td[2-4])[-_]")
PREFIX_FAMILY = {
    "th": "tomahawk-1",
    "th2": "tomahawk-2",
    "th3": "tomahawk-3",
    "th4": "tomahawk-4",
    "th5": "tomahawk-5",
    "td2": "trident-2",
    "td3": "trident-3",
    "td4": "trident-4",
}
SYMLINK, FOLDER = "120000", "040000"


class DeviceTree:
    """The files under device/ at the repository's HEAD."""

    def __init__(self, repo: str, top: str = "device"):
        self.repo = repo
        self.commit = self.git("rev-parse", "HEAD").strip()
        self.tree: dict[str, tuple[str, str]] = {}
        self.children: dict[str, list[str]] = {}
        for line in self.git("ls-tree", "-r", "-t", "HEAD", top).splitlines():
            meta, path = line.split("\t", 1)
            mode, _, sha = meta.split()
            self.tree[path] = (mode, sha)
            self.children.setdefault(posixpath.dirname(path), []).append(posixpath.basename(path))
        self._links: dict[str, str] = {}

    def git(self, *args: str) -> str:
        return subprocess.run(
            ["git", "-C", self.repo, *args], capture_output=True, text=True, check=True
        ).stdout

    def real(self, path: str) -> str:
        """The path with every symbolic link on it followed."""
        parts, current = path.split("/"), ""
        for i, part in enumerate(parts):
            current = posixpath.join(current, part) if current else part
            if self.tree.get(current, ("",))[0] == SYMLINK:
                if current not in self._links:
                    self._links[current] = self.git("cat-file", "-p", self.tree[current][1])
                target = self._links[current].strip()
                rest = "/".join(parts[i + 1 :])
                joined = posixpath.normpath(posixpath.join(posixpath.dirname(current), target))
                return self.real(posixpath.join(joined, rest) if rest else joined)
        return current

    def text(self, path: str) -> str:
        return self.git("cat-file", "-p", self.tree[self.real(path)][1])

    def exists(self, path: str) -> bool:
        return self.real(path) in self.tree

    def is_folder(self, path: str) -> bool:
        return self.tree.get(self.real(path), ("",))[0] == FOLDER

    def listdir(self, path: str) -> list[str]:
        """The names in a folder (through links), sorted."""
        return sorted(self.children.get(self.real(path), []))


def family_of(key: str) -> str | None:
    """The Broadcom family FAMILY_PATTERNS find in a SKU's paths and config file names."""
    return next((family for pattern, family in FAMILY_PATTERNS if re.search(pattern, key)), None)
