"""The report in a real browser: Debian's Chromium, headless, opens the lab and pod-2048
pages from file:// with a clean console, renders every section, and draws a screenshot that
is far from blank. Skipped when Chromium is absent, unless LOSSLESS_REQUIRE_CHROMIUM=1
(CI, .ci/run) turns the skip into a failure.

Chromium prints every console message of the page (errors, CSP violations, blocked loads)
on stderr as `...:CONSOLE(...)` with --enable-logging=stderr --v=0; a clean page prints
none. test_the_console_check_sees_errors shows the check fails on a page that has them."""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
from pathlib import Path

import pytest
from test_report import HOSTILE, LAB, POD, Page, write_report

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
    "--hide-scrollbars",
    "--enable-logging=stderr",
    "--v=0",
]


@pytest.fixture(scope="module")
def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        if os.environ.get("LOSSLESS_REQUIRE_CHROMIUM") == "1":
            pytest.fail("LOSSLESS_REQUIRE_CHROMIUM=1 but no chromium on PATH (.ci/install)")
        pytest.skip("chromium is not installed (apt-get install chromium)")
    return found


def browse(chromium: str, page: Path, tmp: Path, *action: str) -> subprocess.CompletedProcess:
    profile = tmp / f"profile-{len(list(tmp.glob('profile-*')))}"  # a fresh one each run
    return subprocess.run(
        [chromium, *FLAGS, f"--user-data-dir={profile}", *action, page.resolve().as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def console(result: subprocess.CompletedProcess) -> list[str]:
    return [line for line in result.stderr.splitlines() if ":CONSOLE" in line or "Uncaught" in line]


def screenshot(chromium: str, page: Path, tmp: Path, width: int, height: int) -> Path:
    png = tmp / f"{page.parent.name}-{width}.png"
    result = browse(chromium, page, tmp, f"--screenshot={png}", f"--window-size={width},{height}")
    assert result.returncode == 0, result.stderr[-2000:]
    assert console(result) == [], console(result)
    return png


def png_size(png: Path) -> tuple[int, int]:
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


@pytest.fixture(scope="module")
def blank_png_bytes(chromium, tmp_path_factory) -> int:
    """How big a screenshot of an empty page is, the measure of a trivial one."""
    tmp = tmp_path_factory.mktemp("blank")
    page = tmp / "blank.html"
    page.write_text("<!doctype html><html><head><title>x</title></head><body></body></html>")
    return screenshot(chromium, page, tmp, 1280, 1600).stat().st_size


@pytest.mark.parametrize("inventory", [LAB, POD], ids=["lab", "pod-2048"])
def test_the_report_opens_in_chromium_with_a_clean_console(
    chromium, blank_png_bytes, inventory, tmp_path
):
    html, _ = write_report(inventory, tmp_path / inventory.stem)
    page = tmp_path / inventory.stem / "index.html"
    for width in (1280, 600):  # a wide screen, and about 80 columns
        png = screenshot(chromium, page, tmp_path, width, 1600)
        assert png_size(png) == (width, 1600)
        assert png.stat().st_size > 8 * blank_png_bytes  # charts, tables and text drawn
    dom = browse(chromium, page, tmp_path, "--dump-dom")
    assert dom.returncode == 0 and console(dom) == []
    rendered = Page(dom.stdout)
    assert rendered.sections == Page(html).sections  # every switch's section is in the DOM
    assert rendered.scripts == [{"type": "application/json", "id": "report-data"}]
    assert rendered.data == Page(html).data
    assert 'class="card' in dom.stdout and '<svg class="diagram"' in dom.stdout


def test_hostile_text_stays_text_in_the_browser(chromium, tmp_path, write):
    text = LAB.read_text().replace(
        "description: Mixed-vendor RoCE v2 lab", f'description: "{HOSTILE}"'
    )
    write_report(write(text, "hostile.yaml"), tmp_path / "out")
    dom = browse(chromium, tmp_path / "out" / "index.html", tmp_path, "--dump-dom")
    assert dom.returncode == 0 and console(dom) == []
    assert "<img" not in dom.stdout
    assert Page(dom.stdout).scripts == [{"type": "application/json", "id": "report-data"}]
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in dom.stdout


def test_the_console_check_sees_errors(chromium, tmp_path):
    """A page with a script error and a load from the network (both blocked by the CSP the
    report carries) fills the console: the check above can fail."""
    page = tmp_path / "bad.html"
    page.write_text(
        '<!doctype html><html><head><meta http-equiv="Content-Security-Policy" '
        "content=\"default-src 'none'\"></head><body><script>undefinedFunction()</script>"
        '<img src="http://192.0.2.1/x.png"></body></html>'
    )
    result = browse(chromium, page, tmp_path, "--dump-dom")
    assert len(console(result)) >= 2, result.stderr[-2000:]
    unsafe = tmp_path / "unsafe.html"
    unsafe.write_text("<!doctype html><html><body><script>undefinedFunction()</script></body>")
    assert any(
        "Uncaught" in line for line in console(browse(chromium, unsafe, tmp_path, "--dump-dom"))
    )
