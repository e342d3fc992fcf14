"""Issue 41's targets: the common commands as whole processes, beside a baseline version and
the official modern scorers, all measured in the same run.

Each case runs ``--repeat`` times per version in fresh processes, the versions alternating
run by run (after one unmeasured run each, which leaves the bytecode cache written, as an
installed muceval has it). Printed per case: the median wall time and the median CPU time
(user + system of the process and its threads) of this checkout's muceval and of the
baseline (``--baseline``, default 7462a56, extracted with ``git archive``), their ratio, the
target, and whether the outputs of the last runs are byte-identical (JSON files, standard
output, every file of a report folder).

    python3 benchmarks/targets.py                       # medians of 5
    python3 benchmarks/targets.py --repeat 9 --only significance score
    python3 benchmarks/targets.py --official /tmp/official
    python3 benchmarks/targets.py --only exact exact-1-thread --repeat 3   # not run by default
    python3 benchmarks/targets.py --busy --only score     # with the second core taken

``--official DIR`` names a folder holding GTT's ``gtt_eval.py`` and GRIT's ``grit_eval.py``
unchanged (from github.com/xinyadu/gtt and xinyadu/grit_doc_event_entity, ``eval.py`` of
each); they then run in the same alternation on the same predictions. GTT's script reads
``./data/muc/processed/docids_event_n.json``: the benchmark runs it in a scratch folder that
links that file from the shared data.

The machines are shared: the load average is printed before and after, and a case whose
CPU time exceeds its wall time used a second core (a busy machine then slows it more).
"""

from __future__ import annotations

import argparse
import filecmp
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from common import child_cpu, installed_environment, shared_folder

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
EXAMPLE = REPO / "src" / "muceval" / "data" / "example"


@dataclass
class Case:
    """One command: ``args`` after ``muceval`` (``{out}`` is the output path of the run),
    whether it writes a folder, its target in seconds, and other programs to time beside
    it (label to a full command line, run in ``cwd``)."""

    name: str
    args: list[str]
    target: float | None
    folder: bool = False
    others: dict[str, list[str]] = field(default_factory=dict)
    cwd: Path | None = None
    note: str = ""
    default: bool = True
    """Run without --only (False: a case of many seconds, run only when named)."""


def cases(shared: Path, official: Path | None, scratch: Path) -> list[Case]:
    tst3 = shared / "muc4" / "tst3"
    key = str(shared / "muc4" / "corpora" / "tst3" / "key-tst3.v2")
    reports = [str(p) for p in sorted((tst3 / "official-scores").glob("*.nrad"))]
    responses = [str(p) for p in sorted((tst3 / "responses").glob("*.tst3"))]
    scoring = ["--key", key, "--config", str(tst3 / "config-tst3.el"),
               "--history", str(tst3 / "final-history-nrad.tst3")]
    modern = shared / "modern"
    gtt_key, gtt_pred = str(modern / "gtt" / "test.json"), str(modern / "gtt" / "preds_gtt.out")
    grit_key, grit_pred = str(modern / "grit" / "test.json"), str(modern / "grit" / "preds_s_t.out")
    gtt_official: dict[str, list[str]] = {}
    grit_official: dict[str, list[str]] = {}
    if official is not None:
        gtt_official = {"GTT eval.py": [sys.executable, str(official / "gtt_eval.py"),
                                        "--pred_file", gtt_pred, "--gold_file", gtt_key]}
        grit_official = {"GRIT eval.py": [sys.executable, str(official / "grit_eval.py"),
                                          "--pred_file", grit_pred, "--gold_file", grit_key]}
        data = scratch / "data" / "muc" / "processed"
        data.mkdir(parents=True, exist_ok=True)
        link = data / "docids_event_n.json"
        if not link.exists():
            link.symlink_to(modern / "gtt" / "docids_event_n.json")
    return [
        Case("significance", ["significance", *reports, "--format", "json", "--seed", "1"], 0.6,
             note="17 TST3 .nrad reports, default settings, JSON"),
        Case("score", ["score", *scoring, *responses, "--format", "json", "-o", "{out}"], 1.0,
             note="17 TST3 systems with the history, JSON"),
        Case("report-scores", ["report", *reports, "--seed", "1", "--force", "--out", "{out}"],
             1.5, folder=True, note="report of the 17 TST3 .nrad reports"),
        Case("report-responses", ["report", *scoring, *responses, "--seed", "1", "--force",
                                  "--out", "{out}"], 2.5, folder=True,
             note="report of the 17 TST3 responses"),
        Case("help", ["--help"], 0.15, note="muceval --help"),
        Case("example", ["score", "--key", str(EXAMPLE / "key.txt"), "--config",
                         str(EXAMPLE / "config.toml"), str(EXAMPLE / "alpha.txt")], 0.3,
             note="one system of the bundled example"),
        Case("exact", ["significance", *reports, "--method", "exact", "--metrics", "f0.5",
                       "--format", "json", "--seed", "1"], 10.0, default=False,
             note="exact F0.5 over the 136 TST3 pairs, all threads"),
        Case("exact-1-thread", ["significance", *reports, "--method", "exact", "--metrics",
                                "f0.5", "--format", "json", "--seed", "1", "--threads", "1"],
             10.0, default=False,
             note="the same on one thread: what a machine whose second core is busy gives"),
        Case("gtt", ["score", "--key", gtt_key, "--scorer", "gtt", gtt_pred, "--format", "json",
                     "-o", "{out}"], None, others=gtt_official, cwd=scratch,
             note="GTT's predictions; target: no slower than GTT's eval.py"),
        Case("ceaf-ree", ["score", "--key", grit_key, "--scorer", "ceaf-ree", grit_pred,
                          "--format", "json", "-o", "{out}"], None, others=grit_official,
             cwd=scratch, note="GRIT's predictions; target: no slower than GRIT's eval.py"),
    ]


def baseline_source(commit: str, into: Path) -> Path:
    """The ``src`` folder of ``commit``, extracted from this repository."""
    archive = subprocess.run(["git", "-C", str(REPO), "archive", commit, "src"], check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into / "src"


def run_once(command: list[str], cwd: Path | None, env: dict[str, str], stdout: Path,
             output: Path | None = None) -> tuple[float, float]:
    """Wall and CPU seconds of one run; ``output``, the file or folder the run writes, is
    removed first (muceval refuses to replace what it did not write in this run)."""
    if output is not None and output.is_dir():
        shutil.rmtree(output)
    elif output is not None and output.exists():
        output.unlink()
    with stdout.open("wb") as out:
        cpu, start = child_cpu(), time.perf_counter()
        subprocess.run(command, cwd=cwd, env=env, stdout=out, stderr=subprocess.DEVNULL,
                       check=True)
        return time.perf_counter() - start, child_cpu() - cpu


def same_output(a: Path, b: Path) -> bool:
    if a.is_dir():
        compared = filecmp.dircmp(a, b)
        names = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file())
        other = sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file())
        return names == other and not compared.diff_files and all(
            filecmp.cmp(a / n, b / n, shallow=False) for n in names)
    return filecmp.cmp(a, b, shallow=False)


def measure(case: Case, versions: dict[str, str], repeat: int,
            work: Path) -> tuple[dict[str, tuple[float, float]], dict[str, Path]]:
    """Median (wall, CPU) per label, and each muceval version's last output."""
    commands: dict[str, tuple[list[str], dict[str, str], Path, Path | None]] = {}
    outputs: dict[str, Path] = {}
    for label, source in versions.items():
        env = installed_environment()
        env["PYTHONPATH"] = source
        out = work / f"{case.name}-{label}"
        outputs[label] = out
        args = [a.replace("{out}", str(out)) for a in case.args]
        # A command that prints its result: the standard output is the output.
        writes = "{out}" in case.args
        commands[label] = ([sys.executable, "-m", "muceval", *args], env,
                           work / f"{label}.stdout" if writes else out,
                           out if writes else None)
    for label, command in case.others.items():
        commands[label] = (command, installed_environment(), work / f"{label}.stdout", None)
    times: dict[str, list[tuple[float, float]]] = {label: [] for label in commands}
    for command, env, stdout, output in commands.values():
        run_once(command, case.cwd, env, stdout, output)  # writes the bytecode cache
    for _ in range(repeat):
        for label, (command, env, stdout, output) in commands.items():
            times[label].append(run_once(command, case.cwd, env, stdout, output))
    return ({label: (statistics.median(w for w, _ in runs), statistics.median(c for _, c in runs))
             for label, runs in times.items()}, outputs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--baseline", action="append",
                        help="a commit to compare with (repeatable; default 7462a56, the "
                             "issue's): outputs a later commit changed on purpose differ from "
                             "it, so give that commit too for the byte check")
    parser.add_argument("--shared", help="the shared data folder (default: ../shared)")
    parser.add_argument("--official", type=Path,
                        help="folder with GTT's gtt_eval.py and GRIT's grit_eval.py")
    parser.add_argument("--only", nargs="+", help="run only these cases")
    parser.add_argument("--busy", action="store_true",
                        help="keep one core busy with a spinning process throughout (what a "
                             "user of a busy machine waits): scoring then stays in one process")
    args = parser.parse_args()
    spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"]) if args.busy else None
    try:
        run(args)
    finally:
        if spinner is not None:
            spinner.kill()
            spinner.wait()


def run(args: argparse.Namespace) -> None:
    shared = shared_folder(args.shared, "muc4").parent
    with tempfile.TemporaryDirectory(prefix="muceval-targets-") as tmp:
        work = Path(tmp)
        baselines = args.baseline or ["7462a56"]
        versions = {"now": str(REPO / "src")}
        for commit in baselines:
            folder = work / f"base-{commit}"
            folder.mkdir()
            versions[commit] = str(baseline_source(commit, folder))
        chosen = [c for c in cases(shared, args.official, work / "scratch")
                  if c.name in (args.only or ()) or (not args.only and c.default)]
        print(f"load average {os.getloadavg()[0]:.2f}{', one core kept busy' if args.busy else ''}; "
              f"{args.repeat} runs per version, "
              "alternating; medians, seconds (wall / CPU); ratio: baseline wall / now wall; "
              "output: byte-identical to the baseline's")
        for case in chosen:
            medians, outputs = measure(case, versions, args.repeat, work)
            now_wall, now_cpu = medians["now"]
            target = case.target
            line = f"{case.name:17} now {now_wall:.3f} / {now_cpu:.3f}"
            for label in case.others:
                wall, cpu = medians[label]
                target = wall if target is None else target
                line += f"   {label} {wall:.3f} / {cpu:.3f}"
            for commit in baselines:
                wall, cpu = medians[commit]
                same = same_output(outputs["now"], outputs[commit])
                line += (f"   {commit} {wall:.3f} / {cpu:.3f} {wall / now_wall:.2f}x output "
                         f"{'identical' if same else 'differs'}")
            if target is not None:
                line += f"   target {target:.2f} {'met' if now_wall <= target else 'NOT met'}"
            print(f"{line}   ({case.note})")
        print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
