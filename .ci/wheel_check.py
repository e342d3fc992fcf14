"""The wheel, installed alone, works: run by .ci/run with the wheel's own Python, in an empty folder.

    python .ci/wheel_check.py REPO WHEEL

Fails (exit 1, one line per problem) when a file of src/muceval is missing from the wheel, when
muceval is imported from anywhere but the wheel's installation, or when the demo, the example
report, the example adjudication page or a library call does not work.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
import zipfile
from pathlib import Path

problems: list[str] = []


def check(condition: bool, message: str) -> None:
    if not condition:
        problems.append(message)
        print(f"FAILED: {message}", file=sys.stderr)


def package_files(repo: Path) -> set[str]:
    """Every file of the package in the checkout (git's list when there is one)."""
    try:
        listed = subprocess.run(["git", "ls-files", "src/muceval"], cwd=repo, check=True,
                                capture_output=True, text=True).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        listed = [str(p.relative_to(repo)) for p in (repo / "src" / "muceval").rglob("*")
                  if p.is_file() and "__pycache__" not in p.parts]
    return {name.removeprefix("src/") for name in listed}


def run(*command: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    check(result.returncode == 0 and "Traceback" not in result.stderr,
          f"{' '.join(command)} exited {result.returncode}: {result.stderr[-1500:]}")
    return result


def fetch(url: str) -> str:
    """The page at ``url`` (no proxy: it is on this machine), waiting up to 30 s for the server to
    listen; '' if it never answers."""
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    for _ in range(60):
        try:
            with opener.open(url, timeout=30) as page:
                return page.read().decode("utf-8")
        except urllib.error.URLError:
            time.sleep(0.5)
    return ""


def adjudication_page_serves() -> None:
    """Start the example page, read it over HTTP, stop it with Ctrl-C as a user would."""
    server = subprocess.Popen(["muceval", "adjudicate", "--example", "--no-browser",
                               "--history", "answers.lisp"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert server.stdout is not None
    url = None
    for _ in range(20):
        line = server.stdout.readline()
        found = re.search(r"adjudication page: (http://127\.0\.0\.1:\S+)", line)
        if not line or found:
            url = found.group(1) if found else None
            break
    try:
        check(url is not None, "muceval adjudicate --example printed no address")
        if url is not None:
            body = fetch(url)
            check("DEMO-" in body,
                  f"the adjudication page at {url} did not show the example's questions")
    finally:
        server.send_signal(signal.SIGINT)
        try:
            code = server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            code = None
        stderr = server.stderr.read() if server.stderr else ""
    check(code in (0, 1) and "Traceback" not in stderr,
          f"muceval adjudicate did not stop cleanly on Ctrl-C (exit {code}): {stderr[-1500:]}")


LIBRARY = """
import muceval
from importlib.resources import files
example = files("muceval") / "data" / "example"
config = muceval.load_configuration(str(example / "config.toml"))
session = muceval.score_files(config, str(example / "key.txt"),
                              [str(example / "alpha.txt"), str(example / "beta.txt")],
                              history_path=str(example / "history.lisp"))
for name, pairs in session.systems.items():
    print(name, muceval.float_scores(muceval.summarize(pairs, config).all_templates.total).f_pr)
print(muceval.__file__)
"""


def main() -> int:
    repo, wheel = Path(sys.argv[1]), Path(sys.argv[2])
    check(not any(Path.cwd().iterdir()), f"run this in an empty folder, not {Path.cwd()}")
    inside = set(zipfile.ZipFile(wheel).namelist())
    missing = sorted(name for name in package_files(repo) if name not in inside)
    check(not missing, f"files of src/muceval missing from {wheel.name}: {', '.join(missing)}")

    library = run(sys.executable, "-c", LIBRARY)
    lines = library.stdout.splitlines()
    check(len(lines) == 3 and lines[0].startswith("alpha ") and lines[1].startswith("beta "),
          f"the library example printed {library.stdout!r}")
    if lines:
        check(Path(lines[-1]).resolve().is_relative_to(Path(sys.prefix).resolve()),
              f"muceval was imported from {lines[-1]}, not from the wheel in {sys.prefix}")

    run("muceval", "demo")
    demo = Path("muceval-demo")
    for name in ("alpha.report", "scores.json", "report/report.html"):
        check((demo / name).is_file(), f"muceval demo wrote no {demo / name}")
    run("muceval", "report", "--example", "--out", "example-report")
    check(Path("example-report", "report.html").is_file(),
          "muceval report --example wrote no example-report/report.html")
    adjudication_page_serves()
    print("wheel check: " + ("passed" if not problems else f"{len(problems)} problem(s)"),
          file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    os.environ.setdefault("COLUMNS", "100")
    sys.exit(main())
