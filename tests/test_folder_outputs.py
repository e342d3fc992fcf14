"""A folder output (``report --out``, ``score --output-dir``) is all of one run or visibly not.

Every step of the write is interrupted in turn: in this process for the report (an exception
no handler catches, raised where a write would begin), and with ``os._exit`` in a fresh process
for ``score --output-dir`` (nothing runs after it: no handler, no ``finally``). After each, the
folder is either the earlier run, untouched, or marked ``writing`` in its manifest, which every
reader of its files refuses; run again, it is the new run alone, the earlier run's other files
gone and files muceval did not write kept.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from importlib.resources import files
from pathlib import Path

import pytest

from muceval.errors import InputError
from muceval.formats import files as files_module
from muceval.formats.files import MANIFEST, folder_manifest, read_text

EXAMPLE = Path(str(files("muceval") / "data" / "example"))


class _Killed(BaseException):
    """Stands for a kill: nothing catches it."""


def _listing(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file()}


@pytest.fixture(scope="module")
def analysis():  # type: ignore[no-untyped-def]
    from muceval.pipelines.report import report_from_responses
    from muceval.significance.settings import SignificanceSettings

    return report_from_responses(EXAMPLE / "key.txt", [EXAMPLE / n for n in (
        "alpha.txt", "beta.txt", "gamma.txt")], config=EXAMPLE / "config.toml",
        settings=SignificanceSettings(shuffles=99, seed=1, bootstrap=0))


def _write(analysis, out: Path, png: bool) -> None:  # type: ignore[no-untyped-def]
    from muceval.reporting.html import write_report
    from muceval.reporting.options import ReportOptions

    write_report(analysis, out, ReportOptions(png=png, overwrite=True))


def test_a_report_killed_at_every_step_is_the_earlier_one_or_marked(
        analysis, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    earlier = tmp_path / "earlier"
    _write(analysis, earlier, png=True)
    (earlier / "notes.txt").write_text("mine")  # a file muceval did not write
    before = _listing(earlier)
    assert folder_manifest(earlier)["state"] == "complete"
    real = files_module.write_atomic
    step = 0
    while True:
        out = tmp_path / f"kill-{step}"
        shutil.copytree(earlier, out)
        calls = 0

        def dying(*args: object, at: int = step, **kwargs: object) -> None:
            nonlocal calls
            if calls == at:
                raise _Killed
            calls += 1
            real(*args, **kwargs)  # type: ignore[arg-type]

        monkeypatch.setattr(files_module, "write_atomic", dying)
        try:
            _write(analysis, out, png=False)
        except _Killed:
            pass
        else:
            break  # every step has been interrupted
        finally:
            monkeypatch.setattr(files_module, "write_atomic", real)
        manifest = folder_manifest(out)
        if step == 0:  # before the manifest: the earlier report, untouched
            assert manifest["state"] == "complete" and _listing(out) == before
        else:
            assert manifest["state"] == "writing", step
            with pytest.raises(InputError, match="written by a run that did not finish"):
                read_text(out / "report.json")
        assert (out / "notes.txt").read_text() == "mine"
        _write(analysis, out, png=False)  # run again: the new report alone
        assert folder_manifest(out)["state"] == "complete"
        assert not any(name.endswith(".png") for name in _listing(out)), step
        assert _listing(out) == {*folder_manifest(out)["files"], MANIFEST, "notes.txt"}
        step += 1
    assert step > 20  # the figures, the data files, the page and the manifest
    assert not any(name.endswith(".png") for name in _listing(out))


_KILLER = textwrap.dedent("""
    import os, sys
    from muceval.formats import files
    real, calls, step = files.write_atomic, [0], int(sys.argv[1])
    def dying(*args, **kwargs):
        if calls[0] == step:
            os._exit(9)
        calls[0] += 1
        return real(*args, **kwargs)
    files.write_atomic = dying
    from muceval.cli.app import main
    sys.exit(main(sys.argv[2:]))
""")


def _score(out: Path, *systems: str, step: int = -1) -> subprocess.CompletedProcess[str]:
    command = ["score", "--key", str(EXAMPLE / "key.txt"), "--config",
               str(EXAMPLE / "config.toml"), "--format", "json", "--output-dir", str(out),
               "--force", *(str(EXAMPLE / f"{s}.txt") for s in systems)]
    return subprocess.run([sys.executable, "-c", _KILLER, str(step), *command],
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})


def test_score_output_dir_killed_at_every_step(tmp_path: Path) -> None:
    earlier = tmp_path / "earlier"
    assert _score(earlier, "alpha", "beta", "gamma").returncode == 0
    before = {name: (earlier / name).read_bytes() for name in _listing(earlier)}
    # manifest, alpha, beta, summary, manifest: five writes; the sixth step finishes.
    for step in range(6):
        out = tmp_path / f"kill-{step}"
        shutil.copytree(earlier, out)
        done = _score(out, "alpha", "beta", step=step)
        if step == 5:
            assert done.returncode == 0, done.stderr
            break
        assert done.returncode == 9, done.stderr
        state = folder_manifest(out)["state"]
        if step == 0:
            assert state == "complete"
            assert {n: (out / n).read_bytes() for n in _listing(out)} == before
            continue
        assert state == "writing"
        refused = subprocess.run([sys.executable, "-m", "muceval", "compare",
                                  str(out / "alpha.json"), str(out / "beta.json")],
                                 capture_output=True, text=True, timeout=120)
        assert refused.returncode == 2 and "did not finish" in refused.stderr
        assert "Traceback" not in refused.stderr
        assert _score(out, "alpha", "beta").returncode == 0
        assert folder_manifest(out)["state"] == "complete"
        assert _listing(out) == {"alpha.json", "beta.json", "summary.json", MANIFEST}
    # Finished, the earlier run's third system is gone and the summary is of two systems.
    summary = json.loads((out / "summary.json").read_text())
    assert "gamma" not in json.dumps(summary) and not (out / "gamma.json").exists()


def test_a_report_of_the_scores_an_earlier_report_wrote_keeps_them(tmp_path: Path) -> None:
    # report --force replaces the files of the earlier run, but one that this run reads is now
    # the user's input: it stays, unchanged.
    from muceval.cli import main

    out = tmp_path / "report"
    assert main(["report", "--example", "--out", str(out), "--seed", "1", "-q"]) == 0
    scores = (out / "scores.json").read_bytes()
    assert main(["report", str(out / "scores.json"), "--out", str(out), "--force",
                 "--seed", "1", "-q"]) == 0
    assert (out / "scores.json").read_bytes() == scores
    assert folder_manifest(out)["state"] == "complete"
    assert "scores.json" not in folder_manifest(out)["files"]
