"""Modern MUC-4 (GTT, GRIT, IterX layouts): readers, the three scorers, the command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from muceval.cli import main
from muceval.core.modern import ROLES, ModernDocument, ModernFile, ModernTemplate
from muceval.errors import InputError
from muceval.formats.modern import detect_layout, parse_modern, read_modern
from muceval.scoring.modern import ModernOptions, score_modern
from muceval.scoring.modern.ceaf import rme_document
from muceval.scoring.modern.counts import Counts
from muceval.scoring.modern.gtt import GttTemplate, best_map
from muceval.significance.settings import SignificanceSettings
from oracles import brute_force_map


def _template(kind: str | None, **roles: list[list[str]]) -> ModernTemplate:
    return ModernTemplate(kind, tuple(tuple(tuple(e) for e in roles.get(r, [])) for r in ROLES))


def _file(layout: str, *documents: tuple[str, list[ModernTemplate]]) -> ModernFile:
    return ModernFile(layout, layout, tuple(ModernDocument(d, tuple(t)) for d, t in documents))


# --- the published figures (the shared predictions) --------------------------------------

def test_published_figures_of_gtt_and_grit(modern: Path) -> None:
    gtt = score_modern(read_modern(modern / "gtt" / "test.json"),
                       read_modern(modern / "gtt" / "preds_gtt.out"), ModernOptions("gtt")).overall
    assert (gtt.p_num, gtt.p_den, gtt.r_num, gtt.r_den) == (343, 556, 344, 812)
    assert [f"{100 * v:.2f}" for v in (gtt.precision, gtt.recall, gtt.f1)] == ["61.69", "42.36",
                                                                               "50.23"]
    grit = score_modern(read_modern(modern / "grit" / "test.json"),
                        read_modern(modern / "grit" / "preds_s_t.out"),
                        ModernOptions("ceaf-ree", phi="strict")).overall
    assert [f"{100 * v:.2f}" for v in (grit.precision, grit.recall, grit.f1)] == ["64.19", "47.36",
                                                                                  "54.50"]


def test_every_shared_file_is_read_and_detected(modern: Path) -> None:
    expected = {"gtt/test.json": "gtt-gold", "gtt/dev.json": "gtt-gold",
                "gtt/preds_gtt.out": "gtt-pred", "grit/test.json": "grit-gold",
                "grit/preds_s_t.out": "grit-pred",
                "iterx/preds.bart-base.test.jsonlines": "iterx-pred"}
    for name, layout in expected.items():
        read = read_modern(modern / name)
        assert read.layout == layout and len(read.documents) == 200
        assert all(d.docid.startswith(("TST", "DEV")) for d in read.documents)


# --- the GTT search: the original's map, without enumerating every map ------------------

_MENTIONS = st.sampled_from(["a", "b", "c", "d"])
_ENTITY = st.frozensets(_MENTIONS, min_size=1, max_size=2)
_GTT_TEMPLATE = st.builds(
    GttTemplate,
    st.sampled_from(["attack", "bombing", "attack / bombing", "kidnapping"]),
    st.tuples(*(st.lists(_ENTITY, max_size=2).map(tuple) for _ in ROLES)))


@settings(max_examples=400, deadline=None)
@given(preds=st.lists(_GTT_TEMPLATE, max_size=5), golds=st.lists(_GTT_TEMPLATE, max_size=4))
def test_the_gtt_search_keeps_the_map_of_the_exhaustive_enumeration(preds, golds) -> None:
    assert best_map(preds, golds) == brute_force_map(preds, golds)


def test_the_incident_type_counts_only_as_a_substring_of_the_gold_type() -> None:
    gold = _file("gtt-gold", ("TST3-MUC4-0001", [_template("attack / bombing", Victim=[["x"]])]))
    for kind, f1 in (("bombing", 1.0), ("arson", 0.0)):
        pred = _file("gtt-pred", ("TST3-MUC4-0001", [_template(kind, Victim=[["x"]])]))
        assert score_modern(gold, pred, ModernOptions("gtt")).overall.f1 == f1


# --- better than the originals: refusals and --compat ------------------------------------

def test_empty_entities_and_types_are_refused_unless_compat() -> None:
    gold = _file("gtt-gold", ("TST3-MUC4-0001", [_template("attack", Victim=[["x"]])]))
    empty_entity = _file("gtt-pred", ("TST3-MUC4-0001", [_template("attack", Victim=[[]])]))
    with pytest.raises(InputError, match="TST3-MUC4-0001, template 1, Victim entity 1"):
        score_modern(gold, empty_entity, ModernOptions("gtt"))
    # The original gives an entity without mentions full credit.
    assert score_modern(gold, empty_entity, ModernOptions("gtt", compat=True)).overall.f1 == 1.0
    no_type = _file("gtt-pred", ("TST3-MUC4-0001", [_template("", Victim=[["x"]])]))
    with pytest.raises(InputError, match="no incident type"):
        score_modern(gold, no_type, ModernOptions("gtt"))


def test_unknown_documents_are_refused_and_missing_ones_warned() -> None:
    gold = _file("gtt-gold", ("TST3-MUC4-0001", []), ("TST3-MUC4-0002", []))
    other = _file("gtt-pred", ("TST4-MUC4-0001", []))
    with pytest.raises(InputError, match="1 document.* not in the gold"):
        score_modern(gold, other, ModernOptions("gtt"))
    partial = _file("gtt-pred", ("TST3-MUC4-0001", []))
    scores = score_modern(gold, partial, ModernOptions("gtt"))
    assert "1 gold document(s) have no prediction" in str(scores.warnings[0])


# --- CEAF-RME: typed mentions, split gold types --------------------------------------------

def test_rme_mentions_match_within_the_same_incident_type_only() -> None:
    gold = [_template("attack", Victim=[["x"]], Target=[["t"]])]
    same = rme_document([_template("attack", Victim=[["x"]])], gold, "subset")
    other = rme_document([_template("bombing", Victim=[["x"]])], gold, "subset")
    assert (same.p_num, same.p_den, same.r_num, same.r_den) == (1, 1, 1, 2)
    assert (other.p_num, other.r_num) == (0, 0)


def test_rme_two_valued_gold_types_keep_the_better_copy() -> None:
    gold = [_template("attack / bombing", Victim=[["x", "y"]])]
    pred = [_template("bombing", Victim=[["x"]])]
    subset = rme_document(pred, gold, "subset")
    assert (subset.p_num, subset.r_num, subset.r_den) == (1, 1, 1)
    phi3 = rme_document(pred, gold, "phi3")
    # phi3 counts the mentions of both copies in its recall denominator.
    assert (phi3.p_num, phi3.p_den, phi3.r_den) == (1, 1, 4)
    alone = rme_document([], gold, "phi3")  # nothing predicted: the template is not split
    assert alone.r_den == 2


# --- readers ---------------------------------------------------------------------------------

def test_layouts_are_detected_and_numeric_ids_converted(tmp_path: Path) -> None:
    assert detect_layout('{"docid": "TST3-MUC4-0001", "extracts": {}}') == "grit-gold"
    preds = parse_modern(json.dumps({"30002": {"pred_templates": [
        {"incident_type": "attack", "Victim": [["x"]]}]}}), "p.out")
    assert preds.layout == "gtt-pred" and preds.documents[0].docid == "TST3-MUC4-0002"
    iterx = parse_modern('{"TST3-MUC4-0001": []}\n{"TST3-MUC4-0001": [{"incident_type": '
                         '"arson", "Target": [["house"]]}]}\n', "i.jsonlines")
    assert [len(d.templates or ()) for d in iterx.documents] == [1]


@pytest.mark.parametrize("text, line, fragment", [
    ('{"docid": "TST3-MUC4-0001", "templates": [{"Victm": []}]}\n', 1, "unknown role 'Victm'"),
    ('{"docid": "TST3-MUC4-0001", "templates": []}\n{"docid": "TST3-MUC4-0001", "templates": []}\n',
     2, "given twice"),
    ('{"docid": "TST3-MUC4-0001", "templates": []}\n{"docid": \n', 2, "not valid JSON"),
    ('{"docid": "TST3-MUC4-0001", "templates": [{"Victim": [[7]]}]}\n', 1, "a mention must be"),
])
def test_broken_files_name_file_line_and_document(text: str, line: int, fragment: str) -> None:
    with pytest.raises(InputError) as caught:
        parse_modern(text, "gold.json", "gtt-gold")
    problem = caught.value.problems[0]
    assert (problem.path, problem.line) == ("gold.json", line) and fragment in problem.message


# --- the command ---------------------------------------------------------------------------

def test_score_metric_all_as_json(modern: Path, capsys) -> None:
    code = main(["score", "--key", str(modern / "gtt" / "test.json"), "--metric", "all",
                 "--format", "json", str(modern / "gtt" / "preds_gtt.out"),
                 str(modern / "iterx" / "preds.bart-large.test.jsonlines")])
    assert code == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["format"] == "muceval-modern-scores"
    assert [r["metric"] for r in doc["results"]] == ["gtt", "ceaf-ree", "ceaf-rme"]
    gtt = doc["results"][0]["systems"][0]
    assert gtt["system"] == "preds_gtt" and f"{100 * gtt['overall']['f1']:.2f}" == "50.23"
    assert set(gtt["roles"]) == {"incident_type", *ROLES} and len(gtt["documents"]) == 200
    assert sum(d["r_num"] for d in gtt["documents"]) == 344


def test_score_refuses_1992_options_with_a_modern_metric(modern: Path, capsys) -> None:
    key, pred = str(modern / "gtt" / "test.json"), str(modern / "gtt" / "preds_gtt.out")
    assert main(["score", "--key", key, pred]) == 2
    assert "choose --scorer" in capsys.readouterr().err
    assert main(["score", "--key", key, "--metric", "gtt", "--history", key, pred]) == 2
    assert "--history belongs to the 1992 scorer" in capsys.readouterr().err
    assert main(["score", "--key", key, "--metric", "gtt", "--phi", "prop", pred]) == 2
    assert "--phi" in capsys.readouterr().err



# --- significance on per-document counts ---------------------------------------------------

_DOC = st.tuples(st.integers(0, 3), st.integers(0, 3), st.integers(0, 3), st.integers(0, 3)).map(
    lambda t: (min(t[0], t[1]), t[1], min(t[2], t[3]), t[3]))


@settings(max_examples=150, deadline=None)
@given(docs=st.lists(st.tuples(_DOC, _DOC), min_size=1, max_size=8),
       metric=st.sampled_from(["precision", "recall", "f1"]),
       two_sided=st.booleans())
def test_exact_ratio_randomization_equals_enumeration(docs, metric, two_sided) -> None:
    import itertools

    import numpy as np

    from muceval.core.units import RatioTallies
    from muceval.significance.kernels import threshold_of
    from muceval.significance.ratios import compare_ratios, ratio_values

    a = np.array([d[0] for d in docs], dtype=float)
    b = np.array([d[1] for d in docs], dtype=float)
    tallies = RatioTallies(("A", "B"), tuple(f"d{i}" for i in range(len(docs))), np.stack([a, b]))
    alternative = "two-sided" if two_sided else "one-sided"
    p = compare_ratios(tallies, (metric,),
                       settings=SignificanceSettings(
                           method="exact", bootstrap=0, alternative=alternative)).comparison("A", "B", metric).p_value
    observed = float(ratio_values(a.sum(0), metric) - ratio_values(b.sum(0), metric))
    sign, threshold = threshold_of(observed, two_sided)
    hits = 0
    for swap in itertools.product([False, True], repeat=len(docs)):
        x = sum(b[i] if s else a[i] for i, s in enumerate(swap))
        y = sum(a[i] if s else b[i] for i, s in enumerate(swap))
        d = float(ratio_values(np.asarray(x), metric) - ratio_values(np.asarray(y), metric))
        hits += (abs(d) if two_sided else sign * d) >= threshold
    assert p == hits / 2 ** len(docs)


def test_significance_and_compare_on_modern_scores(modern: Path, tmp_path: Path, capsys) -> None:
    scores = tmp_path / "gtt.json"
    preds = [str(modern / "gtt" / "preds_gtt.out"),
             str(modern / "iterx" / "preds.t5-large-enc.test.jsonlines")]
    assert main(["score", "--key", str(modern / "gtt" / "test.json"), "--metric", "gtt",
                 "--format", "json", "-o", str(scores), *preds]) == 0
    assert main(["significance", str(scores), "--seed", "1", "--shuffles", "199",
                 "--bootstrap", "0", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["settings"]["units"] == 200 and set(doc["settings"]["metrics"]) == {
        "precision", "recall", "f1"}
    f1 = next(c for c in doc["comparisons"] if c["metric"] == "f1")
    assert {round(100 * f1["value_a"], 2), round(100 * f1["value_b"], 2)} == {50.23, 53.01}
    assert main(["compare", "--key", str(modern / "gtt" / "test.json"), "--metric", "gtt",
                 *preds, "--format", "json", "--shuffles", "199", "--bootstrap", "0"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["baseline"] == "preds_gtt" and len(result["comparisons"]) == 3


# --- the alignment of the modern metrics (muceval alignment with a modern key) ---------------

@settings(max_examples=300, deadline=None)
@given(preds=st.lists(_GTT_TEMPLATE, max_size=5), golds=st.lists(_GTT_TEMPLATE, max_size=4))
def test_gtt_role_match_keeps_the_map_of_the_exhaustive_enumeration(preds, golds) -> None:
    from muceval.scoring.modern.gtt import mapped_pairs, score_document

    assert best_map(preds, golds, role_match=True) == brute_force_map(preds, golds,
                                                                      role_match=True)
    loose = sum(score_document(preds, golds).values(), Counts())
    strict = sum(score_document(preds, golds, role_match=True).values(), Counts())
    # A stricter criterion never raises F; without pairs on the type alone it changes nothing.
    assert strict.f1 <= loose.f1 + 1e-12
    type_only = [counts for _, _, counts in mapped_pairs(preds, golds)
                 if not any(c.p_num or c.r_num for c in counts[1:])
                 and any(c.p_den or c.r_den for c in counts[1:])]
    if not type_only:
        assert strict == loose


def test_gtt_audit_counts_pairs_credited_on_the_incident_type_alone() -> None:
    from muceval.scoring.modern.alignment import audit_gtt

    gold = _file("gtt-gold", ("TST3-MUC4-0001", [_template("attack", Victim=[["priest"]]),
                                                 _template("bombing", Target=[["bank"]])]),
                 ("TST3-MUC4-0002", [_template("kidnapping")]))
    pred = _file("gtt-pred", ("TST3-MUC4-0001", [_template("attack", Victim=[["soldier"]]),
                                                 _template("bombing", Target=[["bank"]])]),
                 ("TST3-MUC4-0002", [_template("kidnapping")]))
    audit = audit_gtt(gold, pred, "sys")
    # The attack pair shares only its type; the bombing matches a target; the two empty
    # kidnappings agree wholly, not on the type alone.
    assert (audit.mapped, audit.type_only) == (3, 1)
    assert [(p.docid, p.predicted, p.type_only) for p in audit.pairs] == [
        ("TST3-MUC4-0001", 1, True), ("TST3-MUC4-0001", 2, False), ("TST3-MUC4-0002", 1, False)]
    assert audit.scores.overall == score_modern(gold, pred, ModernOptions("gtt")).overall
    loose, strict = audit.scores.overall, audit.strict.overall
    assert (loose.p_num - strict.p_num, loose.r_num - strict.r_num) == (1, 1)
    assert (loose.p_den, loose.r_den) == (strict.p_den, strict.r_den)


def test_gtt_credits_15_of_its_116_pairs_on_the_incident_type_alone(modern: Path) -> None:
    """The README's figure, from GTT's exhaustive enumeration of maps and the definition: a
    credited pair (types agree as substrings) with role entities of which none matches."""
    from muceval.scoring.modern.alignment import audit_gtt
    from muceval.scoring.modern.gtt import gold_templates, predicted_templates

    gold = read_modern(modern / "gtt" / "test.json")
    pred = read_modern(modern / "gtt" / "preds_gtt.out")
    credited = type_only = 0
    preds = pred.by_id()
    for docid, document in gold.by_id().items():
        golds = gold_templates(document.templates or ())
        predicted = predicted_templates(preds[docid].templates or () if docid in preds else ())
        for i, j in enumerate(brute_force_map(predicted, golds)):
            if j < 0 or predicted[i].incident_type not in golds[j].incident_type:
                continue
            credited += 1
            roles = list(zip(predicted[i].roles, golds[j].roles, strict=True))
            matched = any(p <= g for ps, gs in roles for p in ps for g in gs)
            type_only += not matched and any(ps or gs for ps, gs in roles)
    assert (credited, type_only) == (116, 15)
    audit = audit_gtt(gold, pred)
    assert (audit.mapped, audit.type_only) == (116, 15)


def test_alignment_command_with_a_modern_key(modern: Path, capsys) -> None:
    key = str(modern / "gtt" / "test.json")
    preds = [str(modern / "gtt" / "preds_gtt.out"),
             str(modern / "iterx" / "preds.bart-large.test.jsonlines")]
    assert main(["score", "--key", key, "--metric", "gtt", "--format", "json", *preds]) == 0
    scores = json.loads(capsys.readouterr().out)["results"][0]["systems"]
    assert main(["alignment", "--key", key, "--format", "json", "--seed", "7",
                 "--shuffles", "999", *preds]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["format"] == "muceval-modern-alignment" and doc["default"] == "gtt"
    assert set(doc["criteria"]) == {"gtt", "gtt-role-match", "ceaf-ree", "ceaf-rme"}
    assert doc["settings"]["significance"]["seed"] == 7
    for system, score in zip(doc["systems"], scores, strict=True):
        assert system["system"] == score["system"]
        gtt, strict = system["criteria"]["gtt"], system["criteria"]["gtt-role-match"]
        # The default criterion is the official scorer, count for count.
        assert {k: gtt[k] for k in ("p_num", "p_den", "r_num", "r_den")} == \
            {k: score["overall"][k] for k in ("p_num", "p_den", "r_num", "r_den")}
        type_only = [p for p in system["pairs"] if p["type_only"]]
        assert system["type_only_pairs"] == len(type_only) > 0
        assert system["mapped_pairs"] == len(system["pairs"])
        # Refusing the pairs credited on the type alone lowers F here (never raises it).
        assert strict["f1"] < gtt["f1"] and 0 <= strict["p_value"] <= 1
    assert main(["alignment", "--key", key, "--format", "csv", "--csv-view", "pairs",
                 *preds]) == 0
    rows = capsys.readouterr().out.splitlines()
    assert rows[0].startswith("system,docid,predicted,gold")
    assert len(rows) - 1 == sum(s["mapped_pairs"] for s in doc["systems"])


@pytest.mark.parametrize("extra, flag", [(["--criteria", "1992"], "--criteria"),
                                         (["--calibrate"], "--calibrate"),
                                         (["--audit", "removal"], "--audit removal")])
def test_alignment_with_a_modern_key_refuses_1992_options(modern: Path, capsys, extra,
                                                          flag) -> None:
    key, pred = str(modern / "gtt" / "test.json"), str(modern / "gtt" / "preds_gtt.out")
    assert main(["alignment", "--key", key, *extra, pred]) == 2
    err = capsys.readouterr().err
    assert flag in err and "Traceback" not in err


# --- one HTML report of the six shared prediction files ------------------------------------

def modern_report(modern: Path, out: Path) -> dict:
    preds = [modern / "gtt" / "preds_gtt.out", modern / "grit" / "preds_s_t.out",
             *sorted((modern / "iterx").glob("*.jsonlines"))]
    assert main(["report", "--key", str(modern / "gtt" / "test.json"), *map(str, preds),
                 "--out", str(out), "--seed", "3", "--shuffles", "999", "--no-png",
                 "--format", "json"]) == 0
    return json.loads((out / "report.json").read_text())


def check_modern_page(dom, data: dict) -> None:
    """Every scorer's section shows the numbers of report.json."""
    assert data["format"] == "muceval-modern-report"
    assert [s["metric"] for s in data["scorers"]] == ["gtt", "ceaf-ree", "ceaf-rme"]
    side = dom.find("table", id="side-table")
    for scorer in data["scorers"]:
        section = dom.find("section", id=f"scorer-{scorer['metric']}")
        for system in scorer["systems"]:
            f1 = f"{100 * system['overall']['f1']:.2f}"
            row = section.find("tr", data_system=system["system"])
            assert row.find("td", data_metric="f1").text() == f1
            cell = side.find("tr", data_system=system["system"]).find(
                "td", data_scorer=scorer["metric"], data_metric="f1")
            assert cell.text().startswith(f1)
        for comparison in scorer["significance"]["comparisons"]:
            table = section.find("table", data_metric=comparison["metric"])
            shown = table.find("td", data_a=comparison["a"], data_b=comparison["b"])
            assert float(shown.attrs["data-p"]) == comparison["p_adjusted"]
            assert shown.attrs["data-significant"] == str(comparison["significant"]).lower()


def test_report_of_the_six_prediction_files(modern: Path, tmp_path: Path) -> None:
    from test_html_report import parse_html

    data = modern_report(modern, tmp_path / "r")
    systems = {s["metric"]: [x["system"] for x in s["systems"]] for s in data["scorers"]}
    assert "preds_s_t" in systems["ceaf-ree"] and "preds_s_t" not in systems["gtt"]
    assert len(systems["ceaf-ree"]) == 6 and len(systems["gtt"]) == 5
    gtt = next(x for x in data["scorers"][0]["systems"] if x["system"] == "preds_gtt")
    assert f"{100 * gtt['overall']['f1']:.2f}" == "50.23"
    check_modern_page(parse_html((tmp_path / "r" / "report.html").read_text()), data)


def test_report_with_a_modern_key_refuses_1992_options(modern: Path, tmp_path: Path,
                                                       capsys) -> None:
    key, pred = str(modern / "gtt" / "test.json"), str(modern / "gtt" / "preds_gtt.out")
    assert main(["report", "--key", key, "--history", key, pred, pred, "--out",
                 str(tmp_path / "r")]) == 2
    assert "--history belongs to the 1992 scorer" in capsys.readouterr().err


def test_a_document_given_twice_in_one_prediction_object_is_refused(tmp_path: Path) -> None:
    # Python's json keeps the last of two equal keys: the first prediction was dropped without a
    # word (GTT's F1 50.05 instead of 50.23 with one document repeated; issue 27).
    text = ('{"TST3-MUC4-0001": {"pred_templates": []},\n'
            ' "TST3-MUC4-0002": {"pred_templates": []},\n'
            ' "TST3-MUC4-0001": {"pred_templates": [{"incident_type": "attack"}]}}\n')
    with pytest.raises(InputError) as caught:
        parse_modern(text, "preds.out")
    (problem,) = caught.value.problems
    assert (problem.path, problem.line) == ("preds.out", 3)
    assert 'key "TST3-MUC4-0001" given twice' in problem.message


@pytest.mark.parametrize("phi", ["strict", "prop"])
def test_compat_refuses_under_ceaf_ree_what_grit_fails_on(phi: str) -> None:
    # With --compat an entity without mentions reached CEAF-REE's prop similarity: a
    # ZeroDivisionError traceback (issue 27). GRIT's own scorer fails there too.
    gold = _file("gtt-gold", ("TST3-MUC4-0001", [_template("attack", Victim=[["x"]])]))
    empty_entity = _file("gtt-pred", ("TST3-MUC4-0001", [_template("attack", Victim=[[]])]))
    with pytest.raises(InputError, match="Victim entity 1: an entity without mentions"):
        score_modern(gold, empty_entity, ModernOptions("ceaf-ree", phi=phi, compat=True))


# --- GTT's --event-n: buckets from GTT's docids_event_n.json, or counted -------------------

def _bucket_scores(modern: Path, bucket: str, from_file: bool):
    buckets = modern / "gtt" / "docids_event_n.json"
    options = ModernOptions("gtt", event_n=bucket,  # type: ignore[arg-type]
                            event_n_file=str(buckets) if from_file else None)
    return score_modern(read_modern(modern / "gtt" / "test.json"),
                        read_modern(modern / "gtt" / "preds_gtt.out"), options)


@pytest.mark.parametrize("bucket", ["1", "2", "3", "4", ">=2"])
def test_event_n_file_scores_the_documents_gtt_lists(modern: Path, bucket: str) -> None:
    from muceval.core.modern import docid_of_number

    listed = json.loads((modern / "gtt" / "docids_event_n.json").read_text())[bucket]
    scores = _bucket_scores(modern, bucket, from_file=True)
    assert sorted(d.docid for d in scores.documents) == sorted(
        docid_of_number(int(n)) for n in listed)
    # GTT scores each listed document as in the full run (its map is per document): the
    # counts are those of the published figure's documents, summed over the bucket.
    everything = {d.docid: d.overall for d in score_modern(
        read_modern(modern / "gtt" / "test.json"), read_modern(modern / "gtt" / "preds_gtt.out"),
        ModernOptions("gtt")).documents}
    assert all(d.overall == everything[d.docid] for d in scores.documents)


def test_counting_gold_templates_differs_from_gtts_buckets(modern: Path) -> None:
    from muceval.scoring.modern.gtt import gold_templates

    listed = {d.docid for d in _bucket_scores(modern, ">=2", from_file=True).documents}
    counted = {d.docid for d in _bucket_scores(modern, ">=2", from_file=False).documents}
    gold = read_modern(modern / "gtt" / "test.json").by_id()
    # A document with two gold templates that GTT's file leaves out of ">=2"; and documents
    # the file puts there whose two templates are one template given twice.
    assert [len(gold_templates(gold[d].templates or ())) for d in counted - listed] == [2]
    assert {len(gold_templates(gold[d].templates or ())) for d in listed - counted} == {1}
    f1 = {source: f"{100 * _bucket_scores(modern, '>=2', source).overall.f1:.2f}"
          for source in (True, False)}
    assert f1 == {True: "45.58", False: "45.02"}


def test_event_n_file_through_the_command(modern: Path, capsys) -> None:
    key, pred = str(modern / "gtt" / "test.json"), str(modern / "gtt" / "preds_gtt.out")
    buckets = str(modern / "gtt" / "docids_event_n.json")
    assert main(["score", "--key", key, "--metric", "gtt", "--event-n", ">=2", "--event-n-file",
                 buckets, "--format", "json", pred]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["settings"]["event_n_file"] == buckets
    assert doc["settings"]["event_n_buckets"].startswith(f"read from {buckets}")
    assert doc["results"][0]["options"]["event_n_file"] == buckets
    assert len(doc["results"][0]["systems"][0]["documents"]) == 46
    # Without the file: muceval counts, and says that this is its own choice.
    assert main(["score", "--key", key, "--metric", "gtt", "--event-n", ">=2", pred]) == 0
    assert "muceval's choice" in " ".join(capsys.readouterr().out.split())
    assert main(["score", "--help"]) == 0
    shown = " ".join(capsys.readouterr().out.split())
    assert "--event-n-file FILE" in shown and "without it, muceval's own choice" in shown


@pytest.mark.parametrize("text, fragment", [
    ('{"1": ["30001"', "not valid JSON"),
    ('[["30001"]]', "one JSON object"),
    ('{"5": ["30001"]}', "'5' is not a bucket"),
    ('{">=2": "30001"}', "a list of document ids expected"),
    ('{">=2": ["abc"]}', "'abc' is not a document id"),
    ('{">=2": [true]}', "is not a document id"),
    ('{">=2": ["30001", 30001]}', "TST3-MUC4-0001 listed twice"),
    ('{"1": ["30001"]}', "no bucket '>=2'"),
    ('{">=2": ["30001", "90001"]}', "1 document(s) not in the gold: TST9-MUC4-0001"),
])
def test_a_malformed_buckets_file_is_refused(modern: Path, tmp_path: Path, capsys, text: str,
                                             fragment: str) -> None:
    buckets = tmp_path / "buckets.json"
    buckets.write_text(text)
    gold = read_modern(modern / "gtt" / "test.json")
    pred = read_modern(modern / "gtt" / "preds_gtt.out")
    with pytest.raises(InputError) as caught:
        score_modern(gold, pred, ModernOptions("gtt", event_n=">=2", event_n_file=str(buckets)))
    (problem,) = caught.value.problems
    assert problem.path == str(buckets) and fragment in problem.message
    assert main(["score", "--key", str(modern / "gtt" / "test.json"), "--metric", "gtt",
                 "--event-n", ">=2", "--event-n-file", str(buckets),
                 str(modern / "gtt" / "preds_gtt.out")]) == 2
    err = capsys.readouterr().err
    assert str(buckets) in err and "Traceback" not in err


def test_options_of_another_scorer_are_refused_not_ignored(modern: Path, capsys) -> None:
    key, pred = str(modern / "gtt" / "test.json"), str(modern / "gtt" / "preds_gtt.out")
    buckets = str(modern / "gtt" / "docids_event_n.json")
    for extra, flag in ((["--metric", "ceaf-rme", "--event-n-file", buckets], "--event-n-file"),
                        (["--metric", "ceaf-rme", "--event-n", "2"], "--event-n"),
                        (["--metric", "gtt", "--event-n-file", buckets], "--event-n-file"),
                        (["--metric", "gtt", "--ignore-empty-docs"], "--ignore-empty-docs")):
        assert main(["score", "--key", key, *extra, pred]) == 2
        assert capsys.readouterr().err.startswith(f"error: {flag}: ")
    # Under --metric all each scorer still takes what applies to it.
    assert main(["score", "--key", key, "--metric", "all", "--event-n", "2", "--event-n-file",
                 buckets, "--format", "json", pred]) == 0
    results = json.loads(capsys.readouterr().out)["results"]
    assert [r["options"]["event_n"] for r in results] == ["2", None, None]


@pytest.mark.parametrize("layout,key", [("gtt-pred", "pred_templates"),
                                        ("grit-pred", "pred_extracts")])
def test_a_long_document_text_does_not_hide_the_layout(layout, key):
    """Issue 27: the layout key came after a document text longer than the sniffer's window."""
    from muceval.formats.modern import detect_layout

    text = ('{\n    "30001": {\n        "doctext": "' + "word " * 100_000 + '",\n        "'
            + key + '": []\n    }\n}\n')
    assert detect_layout(text) == layout
