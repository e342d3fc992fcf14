"""The HTML report as a person sees it: rendered by headless Chromium.

The page is loaded from a file with all network access disabled, its rendered
DOM is read back and compared with the report's JSON, and a screenshot is
written (into the test's temporary folder, and into ``$MUCEVAL_ARTIFACTS``
when that is set) for a person to look at. Skips when Chromium is missing;
``.ci/run`` installs it.
"""

from __future__ import annotations

import glob
import json
import os
import shutil
import struct
import subprocess
import time
from pathlib import Path

import pytest

from muceval.cli import main
from muceval.formats.registry import load_systems
from muceval.reporting.analysis import analyze
from muceval.reporting.html import write_report
from muceval.reporting.options import ReportOptions
from muceval.significance.settings import SignificanceSettings
from test_html_report import check_alignment_matches_json, check_page_matches_json, parse_html

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None,
    reason="Chromium not installed (Debian: apt-get install chromium; .ci/run installs it)",
)
WIDTH, HEIGHT = 1400, 5000


def _chromium(args: list[str], workdir: Path) -> subprocess.CompletedProcess:
    profile = workdir / f"profile-{time.monotonic_ns()}"
    profile.mkdir()
    command = [
        str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
        "--no-first-run", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", f"--user-data-dir={profile}",
        # No name resolves: the page must not need the network.
        "--host-resolver-rules=MAP * ~NOTFOUND", *args,
    ]  # fmt: skip
    result = subprocess.run(command, capture_output=True, text=True, timeout=180)
    shutil.rmtree(profile, ignore_errors=True)
    assert result.returncode == 0, result.stderr[-2000:]
    return result


def rendered_dom(html: Path, workdir: Path) -> str:
    return _chromium(["--dump-dom", html.resolve().as_uri()], workdir).stdout


def screenshot(html: Path, workdir: Path, name: str) -> Path:
    png = workdir / f"{name}.png"
    _chromium([f"--screenshot={png}", f"--window-size={WIDTH},{HEIGHT}",
               "--hide-scrollbars", html.resolve().as_uri()], workdir)  # fmt: skip
    artifacts = os.environ.get("MUCEVAL_ARTIFACTS")
    if artifacts:
        Path(artifacts).mkdir(parents=True, exist_ok=True)
        shutil.copy(png, Path(artifacts) / png.name)
    return png


def _check_screenshot(png: Path) -> None:
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    assert (width, height) == (WIDTH, HEIGHT)
    from matplotlib.image import imread

    pixels = imread(str(png))
    # Not a blank page: plenty of distinct colours (text, tables, figures).
    assert len({tuple(p) for p in pixels[::25, ::25, :3].reshape(-1, 3).round(2).tolist()}) > 20


def test_example_report_renders_with_every_section(tmp_path: Path) -> None:
    out = tmp_path / "report"
    assert main(["report", "--example", "--alignment", "1992,strict", "--out", str(out),
                 "--seed", "11", "--shuffles", "999", "--bootstrap", "200",
                 "--format", "json"]) == 0  # fmt: skip
    dom = parse_html(rendered_dom(out / "report.html", tmp_path))
    assert dom.find("html").attrs.get("data-script") == "ready"  # the inline script ran
    data = json.loads((out / "report.json").read_text())
    check_page_matches_json(dom, data)
    check_alignment_matches_json(dom, data["alignment"])
    _check_screenshot(screenshot(out / "report.html", tmp_path, "example-report"))


def test_tst3_report_from_official_scores(muc4: Path, tmp_path: Path) -> None:
    paths = sorted(glob.glob(str(muc4 / "tst3" / "official-scores" / "*")))
    assert len(paths) == 17
    systems, tallies = load_systems(paths)
    analysis = analyze(systems, tallies, inputs={"inputs": paths},
                       settings=SignificanceSettings(shuffles=9999, seed=1992))
    files = write_report(analysis, tmp_path / "tst3",
                         ReportOptions(title="MUC-4 TST3, official scores"))
    # Its time is measured by benchmarks/report.py, not asserted here: machines are shared.
    data = json.loads(files.json.read_text())
    significance = json.loads((files.out_dir / "significance.json").read_text())
    assert significance["comparisons"] == data["significance"]["comparisons"]
    assert significance["groups"] == data["significance"]["groups"]
    assert len(data["significance"]["comparisons"]) == 17 * 16 // 2 * 5

    dom = parse_html(rendered_dom(files.html, tmp_path))
    check_page_matches_json(dom, data)
    # The printed 1992 F-measures and SET FILLS ONLY fallout come through unchanged.
    for path, system in zip(paths, analysis.systems, strict=True):
        row = dom.find("tr", data_system=system.name)
        assert system.f_1992 is not None
        assert row.find("td", data_metric="f1-1992").text() == f"{system.f_1992[0]:.2f}"
        assert system.fallout is not None
        assert row.find("td", data_metric="fallout").text() == f"{100 * system.fallout:.2f}"
        assert Path(path).name.startswith(system.name)
    _check_screenshot(screenshot(files.html, tmp_path, "tst3-report"))


def test_modern_report_renders(modern: Path, tmp_path: Path) -> None:
    from test_modern import check_modern_page, modern_report

    data = modern_report(modern, tmp_path / "modern")
    html = tmp_path / "modern" / "report.html"
    dom = parse_html(rendered_dom(html, tmp_path))
    assert dom.find("html").attrs.get("data-script") == "ready"
    check_modern_page(dom, data)
    _check_screenshot(screenshot(html, tmp_path, "modern-report"))
