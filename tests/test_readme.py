"""The commands and library examples of the README and the workflow pages work as written
(with the shared data)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO_ROOT, serve_until_address, shared_root

README = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
WORKFLOWS = sorted((REPO_ROOT / "docs" / "workflows").glob("*.md"))
LIBRARY = (REPO_ROOT / "docs" / "workflows" / "library.md").read_text(encoding="utf-8")


def _blocks(language: str, text: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", text, flags=re.S)


def _commands() -> list[str]:
    """The shell commands on the shared data, continuation lines joined, each once (the
    README repeats the first block of each workflow page)."""
    out: list[str] = []
    texts = [README, *(page.read_text(encoding="utf-8") for page in WORKFLOWS)]
    for block in (b for text in texts for b in _blocks("sh", text)):
        for command in block.replace("\\\n", " ").splitlines():
            if command.startswith("muceval ") and ("$S" in command or "$M" in command
                                                   or "$F" in command or "../shared" in command):
                if command not in out:
                    out.append(command)
    return out


def test_the_quick_start_has_exactly_two_commands() -> None:
    quick = README.split("## Quick start", 1)[1].split("##", 1)[0]
    (block,) = re.findall(r"```sh\n(.*?)```", quick, flags=re.S)
    lines = [line for line in block.splitlines() if line.strip()]
    assert len(lines) == 2 and "muceval demo" in lines[0] and "pytest" in lines[1]


@pytest.mark.parametrize("command", _commands())
def test_readme_command_runs(command: str, tmp_path: Path) -> None:
    shared = shared_root()
    if not all((shared / part).is_dir() for part in ("muc4", "modern", "datasets/famus")):
        pytest.skip(f"shared data not found at {shared}")
    # The commands name `muceval`: the one installed beside this Python, activated or not.
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    env = {**os.environ, "S": str(shared / "muc4"), "M": str(shared / "modern"),
           "F": str(shared / "datasets" / "famus"),
           "COLUMNS": "100", "PATH": path}
    command = command.replace("../shared", str(shared))
    if command.startswith("muceval adjudicate"):
        _serves(command + " --no-browser", tmp_path, env)
        return
    result = subprocess.run(["bash", "-c", command], cwd=tmp_path, env=env, capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, (command, result.stderr[-2000:])
    assert "Traceback" not in result.stderr


def _serves(command: str, cwd: Path, env: dict[str, str]) -> None:
    """A command that serves a page: it must print its address, then it is stopped."""
    serve_until_address(["bash", "-c", "exec " + command], cwd=cwd, env=env)


def test_readme_library_example_runs(tmp_path: Path) -> None:
    shared = shared_root()
    if not (shared / "muc4").is_dir():
        pytest.skip(f"shared data not found at {shared}")
    # The README's example is the library page's first, which runs below with the rest.
    assert all(block in LIBRARY for block in _blocks("python", README))
    # The blocks run as one program: the later ones use the names of the first.
    code = "\n".join(_blocks("python", LIBRARY)).replace('"../shared/muc4"', repr(str(shared / "muc4")))
    result = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "BBN" in result.stdout and "GE" in result.stdout
    assert (tmp_path / "tst3-report" / "report.html").is_file()
    assert {"errors.json", "alignment.json"} <= {p.name for p in (tmp_path / "tst3-report").iterdir()}


def test_the_site_pages_read_without_test_names_and_list_them_at_the_end() -> None:
    """The tests a workflow page names in its sentences go, on the site, to a list at the
    page's end, none lost; the home page lists every workflow page."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("hooks", REPO_ROOT / "docs/site/hooks.py")
    assert spec is not None and spec.loader is not None
    hooks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hooks)
    assert sorted(hooks.WORKFLOWS) == [page.stem for page in WORKFLOWS]
    home = hooks._home(README)
    for page in WORKFLOWS:
        source = page.read_text(encoding="utf-8")
        assert f"(workflows/{page.name})" in home and f"(docs/workflows/{page.name})" in README
        body, _, listed = hooks._readable(source).partition("## Checked by")
        assert "tests/test_" not in body, page
        named = set(re.findall(r"tests/test_\w+\.py::\w+", source))
        assert named == set(re.findall(r"tests/test_\w+\.py::\w+", listed)), page
