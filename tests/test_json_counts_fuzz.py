"""muceval's own JSON files (scores, modern scores, error analyses), mutated where their numbers
and documents are: every mutation is refused with an InputError, or changes no number the
tests would use (it was in a part the reader does not read). Bad values are huge, negative,
fractional and non-numeric counts, ``null`` and booleans; documents are removed from one system
or added to it; ``format_version`` is changed. Never a traceback, never a silently wrong number.
"""

from __future__ import annotations

import copy
import functools
import json
import tempfile
from importlib.resources import files
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from muceval.errors import InputError, MucevalError
from muceval.formats.config import load_configuration
from muceval.formats.error_counts import read_error_counts
from muceval.formats.registry import load_inputs
from muceval.formats.scores.json import scores_to_json
from muceval.formats.scores.modern import read_modern_scores
from muceval.reporting.modern import modern_scores_to_json
from muceval.scoring.errors import analyse_error_files
from muceval.scoring.modern import ModernOptions
from muceval.scoring.modern.files import score_modern_files
from muceval.scoring.session import score_files

EXAMPLE = Path(str(files("muceval") / "data" / "example"))
KITCHEN = Path(str(files("muceval") / "data" / "kitchen"))

BAD = [-1, -0.5, 0.5, 2.5, 10**30, 2**62, 1e308, "3", None, True, False, [], {}]
"""Values no count may take (a fractional p_num of a modern scorer is valid: 0.5 and 2.5 are
then judged by the reader, and must not change a number unless read as such)."""


def _muc_error_files(folder: Path) -> tuple[Path, list[Path]]:
    """A MUC-4 gold of two documents with their texts and two systems (IterX's layout)."""
    texts = {"TST3-MUC4-0001": "The Shining Path attacked the mayor in Lima.",
             "TST3-MUC4-0002": "Soldiers bombed a bus near the border."}
    gold = [{"docid": "TST3-MUC4-0001", "doctext": texts["TST3-MUC4-0001"], "templates": [
        {"incident_type": "attack", "PerpOrg": [[["Shining Path", 4]]],
         "Victim": [[["the mayor", 27]]]}]},
            {"docid": "TST3-MUC4-0002", "doctext": texts["TST3-MUC4-0002"], "templates": [
                {"incident_type": "bombing", "PerpInd": [[["Soldiers", 0]]],
                 "Target": [[["a bus", 16]]]}]}]
    key = folder / "gold.jsonl"
    key.write_text("".join(json.dumps(g) + "\n" for g in gold))
    systems = {"a": {"TST3-MUC4-0001": [{"incident_type": "attack", "PerpOrg": [["Shining Path"]]}],
                     "TST3-MUC4-0002": [{"incident_type": "attack", "Target": [["bus"]]}]},
               "b": {"TST3-MUC4-0001": [{"incident_type": "attack", "Victim": [["mayor"]],
                                         "Weapon": [["bomb"]]}],
                     "TST3-MUC4-0002": []}}
    paths = []
    for name, docs in systems.items():
        path = folder / f"{name}.jsonl"
        path.write_text("".join(json.dumps({d: t}) + "\n" for d, t in docs.items()))
        paths.append(path)
    return key, paths


@functools.cache
def _seeds() -> dict[str, Any]:
    """One file of each kind with two systems (built once; kept out of Hypothesis's reports)."""
    folder = Path(tempfile.mkdtemp(prefix="muceval-json-fuzz-"))
    config = load_configuration(EXAMPLE / "config.toml")
    session = score_files(config, EXAMPLE / "key.txt", [EXAMPLE / "alpha.txt",
                                                        EXAMPLE / "beta.txt"],
                          history_path=EXAMPLE / "history.lisp")
    run = score_modern_files(KITCHEN / "gold.jsonl", [KITCHEN / "alpha.jsonl",
                                                       KITCHEN / "beta.jsonl"],
                             [ModernOptions("gtt")], schema=KITCHEN / "schema.toml")
    key, predictions = _muc_error_files(folder)
    return {"scores": json.loads(scores_to_json(session.systems, config)),
            "modern": json.loads(modern_scores_to_json([list(run.scores[0])])),
            "errors": json.loads(analyse_error_files(key, predictions).to_json()),
            "folder": folder}


def _numbers(kind: str, path: Path) -> str:
    """What the significance tests would use of the file, as comparable text."""
    found: Any = load_inputs([path]) if kind == "scores" else \
        read_modern_scores([path]) if kind == "modern" else read_error_counts([path])
    if kind == "errors":
        return json.dumps([list(found.systems), list(found.documents),
                           {k: np.asarray(v).tolist() for k, v in found.counts.items()}])
    return json.dumps([np.asarray(getattr(found, f)).tolist()
                       for f in ("systems", "units", "counts")])


def _leaves(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in _leaves(v, (*path, k))]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in _leaves(v, (*path, i))]
    return [path] if isinstance(value, (int, float)) and not isinstance(value, bool) else []


def _containers(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Lists and objects of two or more documents or units (where one can go missing)."""
    out = []
    if isinstance(value, dict):
        if len(value) > 1 and path and path[-1] in ("units", "documents"):
            out.append(path)
        out += [p for k, v in value.items() for p in _containers(v, (*path, k))]
    elif isinstance(value, list):
        if len(value) > 1 and path and path[-1] in ("units", "documents"):
            out.append(path)
        out += [p for i, v in enumerate(value) for p in _containers(v, (*path, i))]
    return out


def _at(doc: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        doc = doc[step]
    return doc


@st.composite
def mutations(draw: st.DrawFn) -> tuple[str, str, Any]:
    kind = draw(st.sampled_from(["scores", "modern", "errors"]))
    how = draw(st.sampled_from(["value", "value", "remove", "add", "version"]))
    return kind, how, draw(st.randoms(use_true_random=False))


def _mutate(doc: Any, how: str, rng: Any) -> Any:
    doc = copy.deepcopy(doc)
    if how == "version":
        doc["format_version"] = rng.choice([0, 99, "2", None, 1.5])
        return doc
    if how == "value":
        path = rng.choice(_leaves(doc))
        _at(doc, path[:-1])[path[-1]] = rng.choice(BAD)
        return doc
    path = rng.choice(_containers(doc))
    container = _at(doc, path)
    if how == "remove":
        if isinstance(container, dict):
            del container[rng.choice(sorted(container))]
        else:
            del container[rng.randrange(len(container))]
    elif isinstance(container, dict):
        container["EXTRA-0001"] = copy.deepcopy(next(iter(container.values())))
    else:
        extra = copy.deepcopy(container[0])
        if isinstance(extra, dict) and "docid" in extra:
            extra["docid"] = "EXTRA-0001"
        container.append(extra)
    return doc


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutations())
def test_a_mutated_file_is_refused_or_changes_nothing_used(
        mutation: tuple[str, str, Any]) -> None:
    seeds = _seeds()
    kind, how, rng = mutation
    folder: Path = seeds["folder"]
    original = folder / f"{kind}.json"
    if not original.exists():
        original.write_text(json.dumps(seeds[kind]))
    mutated_doc = _mutate(seeds[kind], how, rng)
    mutated = folder / f"{kind}-mutated.json"
    mutated.write_text(json.dumps(mutated_doc))
    try:
        found = _numbers(kind, mutated)
    except InputError as refused:
        assert refused.problems and refused.problems[0].path == str(mutated)
        return
    except MucevalError:
        return
    assert how != "version", "a format_version muceval does not write was read"
    assert found == _numbers(kind, original), (kind, how, "a mutation changed the numbers")


@pytest.mark.parametrize("kind", ["scores", "modern", "errors"])
def test_the_seeds_are_read(kind: str) -> None:
    seeds = _seeds()
    path = seeds["folder"] / f"seed-{kind}.json"
    path.write_text(json.dumps(seeds[kind]))
    assert json.loads(_numbers(kind, path))[0]  # systems
    assert _leaves(seeds[kind]) and _containers(seeds[kind])
