"""FAMuS (Vashishtha et al. 2024) and raw answers of language models: read strict or lenient,
scored by CEAF-RME with phi3 and phi-a exactly as FAMuS's own scorer counts.

The expected counts below are the outside truth: FAMuS's official pipeline and scorer
(FACTSlab/FAMuS@9a9c891 ``src/metrics/compute_ceaf_metrics.py`` with sidsvash26/iterx@ec8da00,
branch ``sv/famus``, ``src/iterx/metrics/famus/``), run unchanged in a scratch environment
outside the repository on the files of ``../shared/datasets/famus`` (its gold side written in
the IterX layout as ``return_cdae_iterx_data_filename`` expects it: one template per instance,
every role key kept, each gold string one mention). phi-a sums are compared within 1e-9: the
official scorer adds the documents in the order of a Python set, which moves the last bits
with the string hash seed.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from muceval.cli.app import cli
from muceval.errors import InputError, UsageError
from muceval.formats.modern import parse_modern, read_modern
from muceval.formats.modern.answers import decode_answer
from muceval.scoring.modern import ModernOptions, score_modern
from muceval.scoring.modern.ceaf import group_substrings, token_similarity
from muceval.scoring.modern.files import read_predictions

ANSWERS = {"gpt-3.5": "models/cdae/chatgpt/dev_{ctx}_gpt-3.5-turbo-0301_responses.jsonl",
           "llama-13b": "models/cdae/llama/dev_{ctx}_llama_13b_responses.jsonl",
           "report-gold": "data/prompts/report/dev.json",
           "gold-self": "data/prompts/{ctx}/dev.json"}

# (system, context, phi): (p_num, p_den, r_num, r_den) of FAMuS's scorer.
OFFICIAL = {
    ("report-gold", "source", "phi3"): (179, 897, 179, 1082),
    ("report-gold", "source", "phi-a"): (395.46339422568167, 897, 395.46339422568167, 1082),
    ("gpt-3.5", "report", "phi3"): (241, 688, 241, 897),
    ("gpt-3.5", "report", "phi-a"): (372.8329855516003, 688, 372.8329855516003, 897),
    ("llama-13b", "report", "phi3"): (204, 1294, 204, 897),
    ("llama-13b", "report", "phi-a"): (364.47762883258235, 1294, 364.47762883258235, 897),
    ("gpt-3.5", "source", "phi3"): (84, 806, 84, 1082),
    ("gpt-3.5", "source", "phi-a"): (235.40105973733702, 806, 235.40105973733702, 1082),
    ("llama-13b", "source", "phi3"): (45, 395, 45, 1082),
    ("llama-13b", "source", "phi-a"): (96.84351282846168, 395, 96.84351282846168, 1082),
    ("gold-self", "report", "phi3"): (896, 897, 896, 897),
    ("gold-self", "report", "phi-a"): (896, 897, 896, 897),
    ("gold-self", "source", "phi3"): (1081, 1081, 1081, 1082),
    ("gold-self", "source", "phi-a"): (1081, 1081, 1081, 1082),
}


def _close(found: tuple[float, ...], expected: tuple[float, ...]) -> bool:
    return all(math.isclose(a, b, rel_tol=0, abs_tol=1e-9) for a, b in zip(found, expected,
                                                                           strict=True))


@pytest.mark.parametrize("case", OFFICIAL, ids=["/".join(c) for c in OFFICIAL])
def test_ceaf_rme_counts_as_famus_scorer_counts(famus: Path, case: tuple[str, str, str]) -> None:
    system, ctx, phi = case
    gold = read_modern(famus / f"data/prompts/{ctx}/dev.json")
    pred = read_predictions(famus / ANSWERS[system].format(ctx=ctx), gold) \
        if system != "gold-self" else read_modern(gold.path, as_prediction=True)
    c = score_modern(gold, pred, ModernOptions("ceaf-rme", phi=phi)).overall
    assert _close((c.p_num, c.p_den, c.r_num, c.r_den), OFFICIAL[case])


def test_the_command_gives_the_official_counts(famus: Path) -> None:
    """The issue's command, for the two similarities, the LLaMA answers and the report
    baseline (the report's gold roles as predictions against the source's gold)."""
    key = famus / "data/prompts/source/dev.json"
    files = [famus / ANSWERS[s].format(ctx="source") for s in ("gpt-3.5", "llama-13b",
                                                                 "report-gold")]
    for phi in ("phi3", "phi-a"):
        result = CliRunner().invoke(cli, ["score", "--key", str(key), "--metric", "ceaf-rme",
                                          "--phi", phi, "--format", "json", *map(str, files)])
        assert result.exit_code == 0, result.output
        doc = json.loads(result.stdout)
        assert doc["settings"]["parse"] == "strict"
        for system, scored in zip(("gpt-3.5", "llama-13b", "report-gold"),
                                  doc["results"][0]["systems"], strict=True):
            o = scored["overall"]
            assert _close((o["p_num"], o["p_den"], o["r_num"], o["r_den"]),
                          OFFICIAL[(system, "source", phi)]), (system, phi)
            assert scored["documents"] and len(scored["documents"]) == 253


def test_the_key_against_itself_shows_what_the_pipeline_loses(famus: Path) -> None:
    """Read as the pipeline converts a prediction, the gold scores itself below 100%: a
    report string inside a longer one of its role is grouped into it, and a source string
    listed twice counts once."""
    for ctx, docid in (("report", "EN-3017-86-frame-Work"),
                       ("source", "EN-2244-15-frame-Piracy")):
        gold = read_modern(famus / f"data/prompts/{ctx}/dev.json")
        pred = read_modern(gold.path, as_prediction=True)
        scores = score_modern(gold, pred, ModernOptions("ceaf-rme", phi="phi3"))
        lost = [d.docid for d in scores.documents
                if (d.overall.p_num, d.overall.r_num) != (d.overall.p_den, d.overall.r_den)]
        assert lost == [docid]


def test_strict_reading_names_every_answer_it_cannot_read(famus: Path) -> None:
    gold = read_modern(famus / "data/prompts/source/dev.json")
    pred = read_predictions(famus / ANSWERS["llama-13b"].format(ctx="source"), gold)
    scores = score_modern(gold, pred, ModernOptions("ceaf-rme", phi="phi3"))
    assert scores.note_counts() == {"unparsed": 189, "not-an-object": 1}
    assert "190 answer(s) are no JSON object" in str(scores.warnings[0])
    assert scores.warnings[0].line == 1


def test_lenient_reading_shows_its_repairs_and_the_strict_score_beside(famus: Path) -> None:
    key = famus / "data/prompts/source/dev.json"
    llama = famus / ANSWERS["llama-13b"].format(ctx="source")
    result = CliRunner().invoke(cli, ["score", "--key", str(key), "--metric", "ceaf-rme",
                                      "--phi", "phi3", "--parse", "lenient", "--format", "json",
                                      str(llama)])
    assert result.exit_code == 0, result.output
    (system,) = json.loads(result.stdout)["results"][0]["systems"]
    parse = system["parse"]
    assert parse["mode"] == "lenient"
    # The strict counts beside are the official ones; the lenient ones recover answers.
    strict = parse["strict"]
    assert (strict["p_num"], strict["p_den"]) == (45, 395)
    assert system["overall"]["p_den"] > 395 and system["overall"]["p_num"] > 45
    kinds = parse["notes"]
    for kind in ("prose-after", "prose-before", "truncated", "string-as-list", "role-renamed",
                 "unparsed"):
        assert kinds[kind]["count"] > 0, kind
        example = kinds[kind]["examples"][0]
        assert example["docid"].count("-frame-") == 1 and example["line"] >= 1
    assert kinds["unparsed"]["count"] < 189
    table = CliRunner().invoke(cli, ["score", "--key", str(key), "--metric", "ceaf-rme",
                                     "--phi", "phi3", "--parse", "lenient", str(llama)])
    assert "F1 strict" in table.stdout and "prose-after ×" in table.stdout


@pytest.mark.parametrize(("answer", "roles", "notes"), [
    ('{"Agent": ["A"], "Time": []}', {"Agent": ["A"]}, []),
    ('{"Agent": "Bob"}', {"Agent": ["B", "o", "b"]}, ["string-as-characters"]),
    ('{"Agent": ["A", 3, null]}', {"Agent": ["A"]}, ["dropped-filler", "dropped-filler"]),
    ('{"Agent": 7}', {}, ["dropped-filler"]),
    ('["A"]', {}, ["not-an-object"]),
    ('"A"', {}, ["not-an-object"]),
    ('{"Agent": ["A"],}', {}, ["unparsed"]),
    ('{"agent": ["A"]}', {"agent": ["A"]}, []),
    ('{"Agent": ["", "A"]}', {"Agent": ["", "A"]}, []),
])
def test_strict_reading_is_the_pipelines(answer: str, roles: dict[str, list[str]],
                                         notes: list[str]) -> None:
    found, met = decode_answer(answer, "strict", ("Agent",))
    assert found == roles
    assert [kind for kind, _ in met] == notes


@pytest.mark.parametrize(("answer", "roles", "notes"), [
    ('```json\n{"Agent": ["A"]}\n```', {"Agent": ["A"]}, ["code-fence"]),
    ('Sure! {"Agent": ["A"]} Hope it helps.', {"Agent": ["A"]},
     ["prose-before", "prose-after"]),
    ('{"Agent": ["A"],\n}', {"Agent": ["A"]}, ["trailing-comma"]),
    ("{'Agent': ['A']}", {"Agent": ["A"]}, ["python-literal"]),
    ('{"Agent": ["A", "B"], "Time": ["to', {"Agent": ["A", "B"]}, ["truncated"]),
    ('[{"Agent": ["A"]}]', {"Agent": ["A"]}, ["list-wrapped"]),
    ('{"agent ": ["A"], "AGENT": ["B"]}', {"Agent": ["A", "B"]},
     ["role-renamed", "role-renamed"]),
    ('{"Agent": "A", "Time": 1999, "Place": [["x", "y"]]}',
     {"Agent": ["A"], "Time": ["1999"], "Place": ["x", "y"]},
     ["string-as-list", "number-as-string", "nested-list"]),
    ("I cannot answer that.", {}, ["unparsed"]),
])
def test_lenient_reading_repairs_and_says_so(answer: str, roles: dict[str, list[str]],
                                             notes: list[str]) -> None:
    found, met = decode_answer(answer, "lenient", ("Agent", "Time", "Place"))
    assert found == roles
    assert [kind for kind, _ in met] == notes


def _official_grouping(spans: set[str], order: list[str]) -> list[list[str]]:
    """FAMuS's substring grouping as its code reads, with the set's order given."""
    length_order = sorted(order, key=len)
    clusters = {s: [s] for s in order}
    for i, s1 in enumerate(length_order):
        for j in range(i + 1, len(spans)):
            if s1 in length_order[j]:
                clusters[length_order[j]].extend(clusters.pop(s1))
                break
    return list(clusters.values())


@given(st.lists(st.text(alphabet="ab ", max_size=5), max_size=8))
def test_grouping_is_the_pipelines_with_answer_order(strings: list[str]) -> None:
    unique = list(dict.fromkeys(strings))
    assert group_substrings(strings) == _official_grouping(set(unique), unique)
    grouped = [m for g in group_substrings(strings) for m in g]
    assert sorted(grouped) == sorted(unique)


def _edit_distance(a: list[str], b: list[str]) -> float:
    """Token edit distance, insertion and deletion 1, substitution 2 (FAMuS's costs)."""
    table = [[float(i + j) if i == 0 or j == 0 else 0.0 for j in range(len(b) + 1)]
             for i in range(len(a) + 1)]
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1,
                              table[i - 1][j - 1] + (0 if a[i - 1] == b[j - 1] else 2))
    return table[-1][-1]


@given(st.text(alphabet="aB b", max_size=12), st.text(alphabet="aB b", max_size=12))
def test_phi_a_is_one_minus_the_normalised_token_edit_distance(gold: str, pred: str) -> None:
    a, b = gold.lower().split(), pred.lower().split()
    if gold == "" and pred == "":
        expected = 1.0
    elif not a and not b:
        expected = 1.0
    else:
        expected = 1 - _edit_distance(a, b) / (min(len(a), len(b)) + max(len(a), len(b)))
    assert token_similarity(gold, pred) == expected


def _prompts(tmp_path: Path, *rows: dict[str, object]) -> Path:
    path = tmp_path / "dev.json"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_a_malformed_prompt_file_is_refused_with_its_line(tmp_path: Path) -> None:
    good = {"instance_id": "EN-1-frame-Hiring", "gold_roles": json.dumps({"Employer": ["x"]})}
    for bad, fragment in (({"instance_id": "EN-2-frame-Arrest", "gold_roles": {"A": []}},
                           "must be a string of JSON"),
                          ({"instance_id": "EN-2-frame-Arrest", "gold_roles": '{"A": [1]}'},
                           "map each role to a list of strings"),
                          ({"instance_id": "EN-2-Arrest", "gold_roles": "{}"},
                           "after '-frame-'")):
        path = _prompts(tmp_path, good, bad)
        with pytest.raises(InputError) as error:
            read_modern(path)
        assert str(error.value).startswith(f"{path}:2:") and fragment in str(error.value)


def test_mistakes_are_refused(famus: Path, tmp_path: Path) -> None:
    key = famus / "data/prompts/source/dev.json"
    gold = read_modern(key)
    with pytest.raises(InputError, match="the key itself, given as predictions"):
        read_predictions(key, gold)
    answers = tmp_path / "answers.jsonl"
    answers.write_text(json.dumps({"instance_id": "EN-9-frame-Hiring", "response": 3}) + "\n")
    with pytest.raises(InputError, match=r"answers.jsonl:1: document EN-9-frame-Hiring: "
                       "'response' must be"):
        read_predictions(answers, gold)
    answers.write_text(json.dumps({"instance_id": "EN-9-frame-Hiring", "response": "{}"}) + "\n")
    with pytest.raises(InputError, match="1 document\\(s\\) not in the gold"):
        score_modern(gold, read_predictions(answers, gold), ModernOptions("ceaf-rme"))
    with pytest.raises(UsageError, match="unknown schema 'no-such-schema'") as error:
        read_modern(key, schema="no-such-schema")
    assert error.value.parameter == "schema"
    muc = tmp_path / "muc.json"
    muc.write_text(json.dumps({"30001": {"pred_templates": []}}) + "\n")  # GTT's: MUC-4 only
    with pytest.raises(InputError, match="predictions of schema muc4 against a gold of schema "
                       "famus"):
        score_modern(gold, read_predictions(muc, gold), ModernOptions("ceaf-rme"))


def test_every_scorer_scores_famus(famus: Path) -> None:
    """GTT's template F1 and GRIT's CEAF-REE on FAMuS's open roles: the key's gold roles read
    as predictions score all but what FAMuS's conversion groups or drops."""
    gold = read_modern(famus / "data/prompts/report/dev.json")
    pred = read_modern(gold.path, as_prediction=True)
    for options in (ModernOptions("gtt"), ModernOptions("ceaf-ree", phi="strict")):
        scores = score_modern(gold, pred, options)
        assert 0.99 < scores.overall.precision < 1.0, options.metric
        assert 0.99 < scores.overall.recall < 1.0, options.metric
        # Per role: the frames' roles, not MUC-4's.
        assert "Agent" in scores.roles and "PerpInd" not in scores.roles


def test_compare_and_report_take_raw_answers(famus: Path, tmp_path: Path) -> None:
    key = famus / "data/prompts/report/dev.json"
    systems = [str(famus / ANSWERS[s].format(ctx="report")) for s in ("llama-13b", "gpt-3.5")]
    compared = CliRunner().invoke(cli, ["compare", "--key", str(key), "--metric", "ceaf-rme",
                                        "--phi", "phi-a", "--parse", "lenient", "--shuffles",
                                        "999", "--bootstrap", "0", "--format", "json",
                                        *systems])
    assert compared.exit_code == 0, compared.output
    out = tmp_path / "report"
    made = CliRunner().invoke(cli, ["report", "--key", str(key), "--out", str(out), "--parse",
                                    "lenient", "--shuffles", "999", "--bootstrap", "0",
                                    *systems])
    assert made.exit_code == 0, made.output
    doc = json.loads((out / "report.json").read_text())
    assert [s["label"] for s in doc["scorers"]] == ["ceaf-rme (phi3)", "ceaf-rme (phi-a)"]
    assert {s["system"] for s in doc["answers"]["systems"]} == {Path(p).stem for p in systems}
    page = (out / "report.html").read_text()
    assert 'id="scorer-ceaf-rme-phi3"' in page and 'id="scorer-ceaf-rme-phi-a"' in page
    assert 'id="answers"' in page and "F1 strict" in page
    figures = sorted(p.name for p in (out / "figures").iterdir())
    assert "ceaf-rme-phi3-matrix-f1.svg" in figures and "ceaf-rme-phi-a-matrix-f1.svg" in figures


def test_famus_files_convert_between_their_layouts(famus: Path) -> None:
    from muceval.formats.modern.writer import write_layout

    gold = read_modern(famus / "data/prompts/report/dev.json")
    again = parse_modern(write_layout(gold, "famus-gold"))
    assert again.documents == gold.documents and again.schema == "famus"
    with pytest.raises(InputError, match="famus templates and gtt-pred is a muc4 layout"):
        write_layout(gold, "gtt-pred")
    # The layouts of any schema keep FAMuS's templates (types from the ids, open roles).
    for layout in ("gtt-gold", "muceval"):
        again = parse_modern(write_layout(gold, layout), schema="famus")
        assert again.documents == gold.documents


def test_scores_are_given_per_frame(famus: Path) -> None:
    gold = read_modern(famus / "data/prompts/report/dev.json")
    pred = read_predictions(famus / ANSWERS["gpt-3.5"].format(ctx="report"), gold)
    scores = score_modern(gold, pred, ModernOptions("ceaf-rme", phi="phi3"))
    frames = {d.docid.split("-frame-", 1)[1] for d in gold.documents}
    assert set(scores.types) == frames
    total = sum(scores.types.values(), type(scores.overall)())
    assert (total.p_num, total.p_den, total.r_den) == (241, 688, 897)
