"""The scoring pipeline against the 1992 program's own reports (golden tests) and small keys.

The golden tests read the MUC-4 distribution in place (``muc4`` fixture) and
compare every template-pair section: header (message, key, response, tag),
every printed tally column, and FAL (which depends on the unprinted PIE).
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pytest

from muceval.core.model import (
    Configuration,
    Slot,
    SlotSpec,
    SlotType,
    Template,
    TemplateFile,
    Text,
)
from muceval.core.tallies import PairScore, Tally, TemplateStatus, summarize
from muceval.formats.muc.mappings import mappings_from_report
from muceval.scoring.muc1992.scorer import Scorer, ScoringOptions, add_judgements, score_system

SYSTEMS = (
    "BBN GE GE-CMU HUGHES LSI MDC MITRE NMSU NYU PARAMAX PRC SRA SRI SYNCH UMASS UMICH USC".split()
)
_TAGS = {
    TemplateStatus.MATCHED: "",
    TemplateStatus.MISSING: "missing",
    TemplateStatus.SPURIOUS: "spurious",
    TemplateStatus.OPTIONAL: "optional",
    TemplateStatus.IRRELEVANT: "irrelevant",
    TemplateStatus.IGNORED: "ignored",
}


def _fal(t: Tally) -> int | None:
    if t.pie == 0:
        return None
    permil = 500 * 2 * (t.inc + t.spu) // t.pie
    q, r = divmod(permil, 10)
    return q + 1 if r > 5 or (r == 5 and q % 2) else q


def _block_differences(pair: PairScore, block) -> list[str]:
    out = []
    if _TAGS[pair.status] != block.tag:
        out.append(f"tag {block.tag!r} != {pair.status.value}")
    mine = {"template-id": pair.template_id, **dict(pair.slots)}
    for row in block.rows:
        if row.name not in mine:
            continue  # subtotal and TOTAL rows are sums, checked through their members
        tally = mine[row.name]
        if tally.as_tuple()[:10] != row.tally.as_tuple()[:10]:
            out.append(f"{row.name}: {row.tally.as_tuple()[:10]} != {tally.as_tuple()[:10]}")
        if row.has_fal and row.name != "template-id" and row.fal != _fal(tally):
            out.append(f"{row.name}: FAL {row.fal} != {_fal(tally)}")
    if pair.scored and not any(r.name in dict(pair.slots) for r in block.rows):
        out.append("section rows missing")
    return out


def compare(pairs, report) -> tuple[int, list[str]]:
    """Identical blocks, matched by header (duplicates in order), and the differences."""
    pool = defaultdict(list)
    for pair in pairs:
        pool[pair.message_id, pair.key_id, pair.response_id].append(pair)
    same = 0
    problems = []
    for block in report.blocks:
        candidates = pool.get((block.message_id, block.key_id, block.response_id))
        if not candidates:
            problems.append(f"{block.message_id} {block.key_id}/{block.response_id}: not produced")
            continue
        diffs = _block_differences(candidates.pop(0), block)
        if diffs:
            problems.append(f"{block.message_id} {block.key_id}/{block.response_id}: {diffs}")
        else:
            same += 1
    extra = sum(len(v) for v in pool.values())
    if extra:
        problems.append(f"{extra} sections produced that the report does not have")
    return same, problems


# ---------------------------------------------------------------------------
# Golden data
# ---------------------------------------------------------------------------


class Golden:
    def __init__(self, root: Path):
        from muceval.formats.config import bundled_configuration
        from muceval.formats.muc.history import read_history
        from muceval.formats.muc.templates import read_templates

        self.root = root / "tst3"
        self.config = bundled_configuration("muc4")
        self.key = read_templates(root / "corpora" / "tst3" / "key-tst3.v2", self.config)
        self.history = read_history(self.root / "final-history-nrad.tst3")
        self._read_templates = read_templates
        self._responses: dict[str, TemplateFile] = {}

    def response(self, system: str) -> TemplateFile:
        if system not in self._responses:
            self._responses[system] = self._read_templates(
                self.root / "responses" / f"{system}.tst3", self.config
            )
        return self._responses[system]

    def report(self, folder: str, system: str):
        from muceval.formats.muc.reports import read_report

        name = (
            f"{system}.tst3-pass1.nrad" if folder == "official-scores" else f"{system}.tst3.report"
        )
        return read_report(self.root / folder / name)


@pytest.fixture(scope="module")
def golden(muc4) -> Golden:
    return Golden(muc4)


@pytest.mark.parametrize("system", SYSTEMS)
def test_batch_without_history_reproduces_reference_reports(golden, system):
    pairs = score_system(
        golden.key, golden.response(system), golden.config, None, ScoringOptions(query_pass=False)
    ).pairs
    report = golden.report("reference-reports-nohistory", system)
    same, problems = compare(pairs, report)
    assert problems == []
    assert same == len(report.blocks) == len(pairs)


@pytest.mark.parametrize("system", SYSTEMS)
def test_batch_with_history_reproduces_reference_reports(golden, system):
    pairs = score_system(
        golden.key,
        golden.response(system),
        golden.config,
        golden.history,
        ScoringOptions(query_pass=False),
    ).pairs
    report = golden.report("reference-reports", system)
    same, problems = compare(pairs, report)
    assert problems == []
    assert same == len(report.blocks) == len(pairs)
    # report order too (§7.5)
    assert [(p.message_id, p.key_id, p.response_id) for p in pairs] == [
        (b.message_id, b.key_id, b.response_id) for b in report.blocks
    ]


def test_query_pass_from_history_matches_the_official_reports(golden):
    total = same = 0
    scorer = Scorer(golden.config, golden.history)  # default options: query pass on
    for system in SYSTEMS:
        report = golden.report("official-scores", system)
        identical, _ = compare(scorer.score(golden.key, golden.response(system)).pairs, report)
        same += identical
        total += len(report.blocks)
    print(f"\nquery pass from history: {same} of {total} official TST3 blocks identical")
    assert total == 3713
    assert same > 3557, f"{same} of {total} official blocks identical"


def test_replaying_the_official_pairings_reproduces_whole_reports(golden):
    whole = []
    for system in SYSTEMS:
        report = golden.report("official-scores", system)
        options = ScoringOptions(manual_mappings=mappings_from_report(report.blocks))
        pairs = (
            Scorer(golden.config, golden.history, options)
            .score(golden.key, golden.response(system))
            .pairs
        )
        same, problems = compare(pairs, report)
        if not problems:
            whole.append(system)
            # duplicates included, report order kept (§13.3)
            assert len(pairs) == len(report.blocks)
    print(f"\nreplayed official pairings: {len(whole)} of {len(SYSTEMS)} reports identical: {whole}")
    assert {"MDC", "MITRE", "PRC", "SYNCH", "UMICH"} <= set(whole)


def test_every_muc_key_scored_against_itself_is_perfect(muc4, golden):
    keys = sorted((muc4 / "corpora").glob("*/key*"))
    assert len(keys) == 17
    for path in keys:
        key = golden._read_templates(path, golden.config)
        pairs = score_system(key, key, golden.config, None).pairs
        for pair in pairs:
            assert pair.status in (TemplateStatus.MATCHED, TemplateStatus.IRRELEVANT)
            total = pair.total()
            assert total.cor == total.pos == total.act
            assert total.par == total.inc == total.spu == total.mis == 0
        accumulators = summarize(pairs, golden.config).accumulators
        for manner in (accumulators.matched_only, accumulators.matched_missing,
                       accumulators.matched_spurious, accumulators.all_templates):
            assert manner.total.pos == manner.total.act == manner.total.cor > 0, path


# ---------------------------------------------------------------------------
# Small hand-made keys
# ---------------------------------------------------------------------------

CONFIG = Configuration(
    slots=(
        SlotSpec("message-id", "0.", SlotType.MESSAGE_ID),
        SlotSpec("template-id", "1.", SlotType.TEMPLATE_ID),
        SlotSpec("what", "2.", SlotType.STRING),
        SlotSpec("when", "3.", SlotType.DATE),
    ),
)


def t(message: str, tid: str, what: str | None = None, when: str | None = None, optional=False):
    def slot(slot_id, value):
        return Slot(slot_id, () if value is None else (Text(value),))

    return Template(message, tid, optional, (slot("what", what), slot("when", when)))


def statuses(result):
    return [(p.message_id, p.key_id, p.response_id, p.status.value) for p in result]


def test_statuses_and_template_id_rows():
    key = TemplateFile(
        "key",
        (
            t("M1", "1", '"A"', "1 JAN 90"),
            t("M2", "*"),
            t("M3", "1", '"B"', optional=True),
            t("M4", "1", '"C"'),
            t("M4", "2", '"D"', optional=True),
        ),
    )
    response = TemplateFile(
        "resp",
        (
            t("M1", "1", '"A"', "2 JAN 90"),
            t("M1", "2", '"X"'),
            t("M2", "1", '"Y"'),
            t("M3", "*"),
            t("M4", "1", '"C"'),
        ),
    )
    result = score_system(key, response, CONFIG, None)
    assert statuses(result) == [
        ("M1", "1", "1", "matched"),
        ("M1", None, "2", "spurious"),
        ("M2", "*", "1", "spurious"),
        ("M3", "1", "*", "irrelevant"),  # an optional message: its first key, answered '*'
        ("M4", "1", "1", "matched"),
        ("M4", "2", None, "optional"),
    ]
    by_status = {p.status: p for p in result}
    assert by_status[TemplateStatus.MATCHED].template_id == Tally(pos=1, act=1, cor=1)
    assert by_status[TemplateStatus.SPURIOUS].template_id == Tally(act=1, spu=1)
    assert by_status[TemplateStatus.IRRELEVANT].template_id == Tally(non=1)
    optional = by_status[TemplateStatus.OPTIONAL]
    assert optional.template_id == Tally(pos=1, mis=1) and not optional.scored
    first = result.pairs[0]
    assert first.slot("what") == Tally(pos=1, act=1, cor=1)
    assert first.slot("when") == Tally(pos=1, act=1, inc=1)


def test_optional_key_answered_by_star_in_a_relevant_message_gets_a_zero_section():
    key = TemplateFile("key", (t("M", "1", '"A"'), t("M", "2", '"B"', optional=True)))
    response = TemplateFile("resp", (t("M", "*"),))
    result = score_system(key, response, CONFIG, None)
    assert statuses(result) == [("M", "1", "*", "missing"), ("M", "2", None, "optional")]
    response = TemplateFile("resp", (t("M", "1", '"A"'), t("M", "*")))
    result = score_system(key, response, CONFIG, None)
    optional = [p for p in result if p.status is TemplateStatus.OPTIONAL]
    assert optional and optional[0].response_id == "*"
    assert optional[0].scored and all(tally == Tally() for _, tally in optional[0].slots)


def test_ask_answers_are_returned_and_reused_across_systems():
    key = TemplateFile("key", (t("M", "1", when="1 JAN 90"),))
    response = TemplateFile("resp", (t("M", "1", when="2 JAN 90"),))
    calls = []

    def ask(query):
        calls.append(query)
        from muceval.core.model import Judgement

        return Judgement.MATCH

    scorer = Scorer(CONFIG, None, ScoringOptions(unresolved="ask", ask=ask))
    first = scorer.score(key, response)
    assert first.pairs[0].slot("when") == Tally(pos=1, act=1, cor=1, icr=1)
    assert len(first.new_judgements) == 1 and len(calls) == 1
    second = scorer.score(key, response)
    assert second.new_judgements == () and len(calls) == 1
    assert second.pairs[0].slot("when").icr == 1
    history = add_judgements(None, first.new_judgements)
    again = score_system(key, response, CONFIG, history, ScoringOptions(query_pass=False))
    assert again.pairs[0].slot("when") == Tally(pos=1, act=1, cor=1, icr=1)


def test_manual_mapping_overrides_the_automatic_one():
    key = TemplateFile("key", (t("M", "1", '"A"'), t("M", "2", '"B"')))
    response = TemplateFile("resp", (t("M", "1", '"B"'), t("M", "2", '"A"')))
    automatic = score_system(key, response, CONFIG, None)
    assert [(p.key_id, p.response_id) for p in automatic] == [("1", "2"), ("2", "1")]
    manual = score_system(
        key, response, CONFIG, None, ScoringOptions(manual_mappings={"M": [("1", "1"), ("2", "2")]})
    )
    assert [(p.key_id, p.response_id) for p in manual] == [("1", "1"), ("2", "2")]
    assert all(p.total().inc == 1 for p in manual)


def test_bad_options_are_usage_errors():
    from muceval.errors import UsageError

    with pytest.raises(UsageError):
        Scorer(CONFIG, None, ScoringOptions(unresolved="ask"))
    with pytest.raises(UsageError):
        Scorer(CONFIG, None, ScoringOptions(mapping="best"))  # type: ignore[arg-type]


def test_message_totals_are_the_all_templates_totals_of_each_message():
    """Issue 30: the per-message totals the significance tests read are summed directly, not
    from every message's four accumulators; they are the same tallies, in the same order."""
    import muceval
    from muceval.core.tallies import summarize
    from muceval.reporting.demo import example_files

    example = example_files()
    config = muceval.load_configuration(example.config)
    session = muceval.score_files(config, example.key, example.responses,
                                  history_path=example.history)
    for pairs in session.systems.values():
        summary = summarize(pairs, config)
        fresh = summarize(pairs, config)
        assert list(fresh.message_totals.items()) == [
            (m.message_id, m.accumulators.all_templates.total) for m in summary.messages]


@pytest.mark.parametrize("unresolved", ["incorrect", "partial", "correct", "ask"])
def test_a_scorer_reused_across_systems_scores_each_as_a_fresh_one(unresolved):
    """The slot tallies a scorer remembers across pairs and systems change nothing: not a
    tally, not the count of unanswered questions, not the questions asked (with 'ask', the
    history grows as they are answered). The reference remembers nothing: its index says so,
    as the adjudication page's does."""
    from importlib.resources import files

    import muceval
    from muceval.scoring.muc1992.slots import HistoryIndex

    class Unremembered(HistoryIndex):
        remembered = False

    example = files("muceval") / "data" / "example"
    config = muceval.load_configuration(example / "config.toml")
    history = muceval.read_history(example / "history.lisp")
    key = muceval.read_templates(example / "key.txt", config)
    systems = [muceval.read_templates(example / f"{name}.txt", config)
               for name in ("alpha", "beta", "gamma", "delta")]
    asked: dict[str, list[str]] = {"reused": [], "reference": []}

    def options(who: str) -> ScoringOptions:
        def ask(query):  # the same answer to the same question, whoever asks
            asked[who].append(repr(query))
            return ("match", "partial", "fail")[len(repr(query)) % 3]
        return ScoringOptions(unresolved=unresolved, ask=ask if unresolved == "ask" else None)

    reused = Scorer(config, history, options("reused"))
    reference = Scorer(config, history, options("reference"))
    reference.index = reference.slots.history = Unremembered(history, reference.matcher)
    for response in systems + systems[::-1]:
        again, expected = reused.score(key, response), reference.score(key, response)
        assert again.pairs == expected.pairs
        assert again.unanswered == expected.unanswered
    assert asked["reused"] == asked["reference"]
    assert reused.slots._memo and not reference.slots._memo


def test_a_judgement_added_to_the_history_reaches_a_slot_scored_before():
    """A slot's tally is remembered; a judgement added to the history after it (an
    operator's answer) must reach the same slot scored again, in batch mode too."""
    from muceval.core.model import Configuration, SlotSpec, SlotType
    from muceval.scoring.muc1992.judgements import MATCH, StoredJudgement
    from muceval.scoring.muc1992.slots import SlotScorer

    config = Configuration(slots=(SlotSpec("s", "1. S", SlotType.STRING),))
    scorer = SlotScorer(config, None)
    rules = scorer.rules["s"]
    before = scorer.score("M", "1", rules, ('"BOMB"',), ('"CAR BOMB"',))
    assert before[3] == 0 and before[2] == 0  # no credit: nothing says they match
    scorer.history.add("M", "1", "s", StoredJudgement('"CAR BOMB"', MATCH, '"BOMB"'))
    after = scorer.score("M", "1", rules, ('"BOMB"',), ('"CAR BOMB"',))
    assert after[2] == 1  # COR: the judgement now answers it
