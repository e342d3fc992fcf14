"""Benchmark: FAMuS's 253 dev instances scored by CEAF-RME under phi3 and phi-a, per system.

For each of FAMuS's raw-answer files (gpt-3.5 and LLaMA-13B, report and source contexts) and
for the report baseline, prints the median wall and CPU time of muceval reading the key and the
answers (``--parse strict``) and scoring them under ``phi3`` and ``phi-a``, and of the official
pipeline doing the same (FAMuS's ``chatgpt_response_to_iterx_format`` or
``gold_instances_to_predicted_format``, then IterX's ``IterXFAMuSMetric`` under ``phi-3`` and
``phi-3-levenshtein``), run unchanged in its own environment in a subprocess that times itself,
with the ratio. The official code is not in this repository and needs PyTorch and AllenNLP (or
stand-ins for the names it imports): give its Python and the folders to put on its path. Without
them, only muceval's figures are printed. One process, one thread each: an idle core is not
needed, but a busy machine moves the wall times (the CPU times less).

Usage:
  python3 benchmarks/famus.py [--repeat N] [--data ../shared/datasets/famus]
      [--official-python PY --official-path DIR:DIR:...]

The official side writes the gold in the IterX layout (one template per instance, every role
key kept, each gold string one mention), as ``compute_ceaf_metrics`` expects it; that
conversion is not timed.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from common import median_times
from muceval.formats.modern import read_modern
from muceval.scoring.modern import ModernOptions, score_modern
from muceval.scoring.modern.files import read_predictions

SYSTEMS = {
    "gpt-3.5 report": ("report", "models/cdae/chatgpt/dev_report_gpt-3.5-turbo-0301_responses.jsonl"),
    "llama report": ("report", "models/cdae/llama/dev_report_llama_13b_responses.jsonl"),
    "gpt-3.5 source": ("source", "models/cdae/chatgpt/dev_source_gpt-3.5-turbo-0301_responses.jsonl"),
    "llama source": ("source", "models/cdae/llama/dev_source_llama_13b_responses.jsonl"),
    "report baseline": ("source", "data/prompts/report/dev.json"),
}

# The official side: its own functions, called as compute_ceaf_metrics.main() calls them.
OFFICIAL = r'''
import json, sys, time, statistics
import compute_ceaf_metrics as C
from iterx.metrics.famus.iterx_famus import IterXFAMuSMetric

data, gold_dir, repeat = sys.argv[1], sys.argv[2], int(sys.argv[3])
jobs = json.loads(sys.argv[4])
def lines(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(l) for l in f]
for ctx in ("report", "source"):
    with open(f"{gold_dir}/{ctx}.jsonl", "w", encoding="utf-8") as f:
        for row in lines(f"{data}/data/prompts/{ctx}/dev.json"):
            t = {"incident_type": row["instance_id"].split("-frame-", 1)[-1]}
            for role, texts in json.loads(row["gold_roles"]).items():
                t[role] = [[[x]] for x in texts]
            f.write(json.dumps({"docid": row["instance_id"], "templates": [t]}) + "\n")
out = {}
for name, (ctx, path) in jobs.items():
    gold = f"{gold_dir}/{ctx}.jsonl"
    walls, cpus = [], []
    for _ in range(repeat):
        w, c = time.perf_counter(), time.process_time()
        rows = lines(f"{data}/{path}")
        if "gold_roles" in rows[0]:
            preds = C.gold_instances_to_predicted_format(lines(f"{gold_dir}/report.jsonl"))
        else:
            preds = C.chatgpt_response_to_iterx_format(rows)
        for kind in ("phi-3", "phi-3-levenshtein"):
            m = IterXFAMuSMetric({gold: gold}, scorer_type=kind, ignore_no_template_doc=False,
                                 sanitize_special_chars=False)
            m(preds, gold, normalize_role=False)
            m.get_metric(reset=True)
        walls.append(time.perf_counter() - w)
        cpus.append(time.process_time() - c)
    out[name] = [statistics.median(walls), statistics.median(cpus)]
print(json.dumps(out))
'''


def _muceval(data: Path, ctx: str, path: str) -> None:
    gold = read_modern(data / f"data/prompts/{ctx}/dev.json")
    pred = read_predictions(data / path, gold)
    for phi in ("phi3", "phi-a"):
        score_modern(gold, pred, ModernOptions("ceaf-rme", phi=phi))


def _official(args: argparse.Namespace) -> dict[str, list[float]] | None:
    if not args.official_python:
        return None
    with tempfile.TemporaryDirectory() as folder:
        script = Path(folder) / "official.py"
        script.write_text(OFFICIAL)
        env = {**os.environ, "PYTHONPATH": args.official_path, "OMP_NUM_THREADS": "1",
               "OPENBLAS_NUM_THREADS": "1"}
        done = subprocess.run([args.official_python, str(script), str(args.data), folder,
                               str(args.repeat), json.dumps(SYSTEMS)], env=env,
                              capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"the official scorer failed:\n{done.stderr[-2000:]}")
    found: dict[str, list[float]] = json.loads(done.stdout.strip().splitlines()[-1])
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--data", type=Path,
                        default=Path(__file__).resolve().parents[2] / "shared/datasets/famus")
    parser.add_argument("--official-python")
    parser.add_argument("--official-path", default="")
    args = parser.parse_args()
    official = _official(args)
    print(f"{'system':16}  {'muceval wall/CPU':>20}  "
          + (f"{'official wall/CPU':>20}  ratio (wall)" if official else
             "(no official scorer given: --official-python)"))
    for name, (ctx, path) in SYSTEMS.items():
        wall, cpu, _ = median_times(lambda c=ctx, p=path: _muceval(args.data, c, p), args.repeat)
        line = f"{name:16}  {wall:8.3f} s / {cpu:.3f} s"
        if official:
            o_wall, o_cpu = official[name]
            line += f"  {o_wall:8.3f} s / {o_cpu:.3f} s  {o_wall / wall:6.1f}×"
        print(line)
    print(f"medians of {args.repeat} runs; each run reads the key and the answers and scores "
          "phi3 and phi-a")


if __name__ == "__main__":
    main()
