"""Property tests of the template reader and writer (hypothesis)."""

from __future__ import annotations

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from muceval.core.model import (
    Alternatives,
    Between,
    BlankMarker,
    CrossRef,
    Location,
    OptionalValue,
    Qualified,
    Range,
    Slot,
    SlotType,
    Template,
    Text,
)
from muceval.errors import InputError
from muceval.formats.config import bundled_configuration
from muceval.formats.files import decode_text
from muceval.formats.muc.templates import (
    ParseResult,
    format_value,
    parse_fill,
    parse_templates,
    write_templates,
)

CONFIG = bundled_configuration("muc4")
FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# ---------------------------------------------------------------------------
# (a) nothing but InputError / problems, whatever the input
# ---------------------------------------------------------------------------

LABELS = [s.label for s in CONFIG.slots]
PIECES = st.sampled_from(
    ['"', "(", ")", "/", ":", "-", "?", "*", " ", "\t", "A", "7", "\\", '\\"', ";", "~", "\x00", "\xe9"]
)
VALUE_TEXT = st.lists(PIECES, max_size=12).map("".join)
TEMPLATE_LINE = st.one_of(
    st.builds(lambda label, value: f"{label}  {value}", st.sampled_from(LABELS), VALUE_TEXT),
    st.builds(lambda value: "    " + value, VALUE_TEXT),
    VALUE_TEXT,
    st.just(""),
    st.just("12. NO SUCH SLOT  X"),
)
TEMPLATE_LIKE = st.lists(TEMPLATE_LINE, max_size=40).map("\n".join)


@FUZZ
@given(st.one_of(st.text(max_size=300), TEMPLATE_LIKE))
def test_any_text_gives_a_result_or_problems(text: str) -> None:
    result = parse_templates(text, CONFIG, "fuzz")
    assert isinstance(result, ParseResult)
    for problem in result.problems + result.warnings:
        assert problem.path == "fuzz" and problem.message
        assert problem.line is None or 1 <= problem.line <= text.count("\n") + 1


@FUZZ
@given(st.binary(max_size=300))
def test_any_bytes_give_input_error_or_a_result(data: bytes) -> None:
    try:
        parse_templates(decode_text(data, "fuzz"), CONFIG, "fuzz")
    except InputError as error:
        assert error.problems


@FUZZ
@given(VALUE_TEXT, st.sampled_from([t for t in SlotType if t is not SlotType.TEMPLATE_ID]))
@example(':/?":', SlotType.LOCATION)  # a quote inside a bare token, then in parentheses
def test_any_value_parses_or_raises_input_error(text: str, slot_type: SlotType) -> None:
    try:
        value = parse_fill(text, slot_type)
    except InputError as error:
        (problem,) = error.problems
        assert problem.column is not None and 1 <= problem.column <= len(text) + 1
        return
    # Whatever parses is written back to text that parses to the same value.
    if value is not None:
        assert parse_fill(format_value(value, slot_type), slot_type) == value


# ---------------------------------------------------------------------------
# (b) random valid templates survive write -> parse unchanged
# ---------------------------------------------------------------------------

WORD = st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.,'~", min_size=1, max_size=6)
# A bare token: words separated by single spaces, never a lone "*" or "-".
BARE = st.lists(WORD, min_size=1, max_size=3).map(" ".join).map(Text)
QUOTED_BODY = st.lists(st.one_of(WORD, st.just(" "), st.just('\\"'), st.just("-"), st.just("/")), max_size=5)
QUOTED = QUOTED_BODY.map(lambda parts: Text('"' + "".join(parts) + '"'))
TEXT = st.one_of(BARE, QUOTED)


def alternatives(element: st.SearchStrategy, with_null: bool = True) -> st.SearchStrategy:
    """A single element, or an or-set of 2-3 (with at most one null, never all null)."""
    option = st.one_of(element, st.none()) if with_null else element
    many = st.lists(option, min_size=2, max_size=3).filter(lambda xs: sum(x is None for x in xs) <= 1)
    return st.one_of(element, many.map(lambda xs: Alternatives(tuple(xs))))


RUN = alternatives(TEXT)
XREF = st.builds(CrossRef, RUN, st.one_of(RUN, st.none()))
DEFAULT_FILL = st.one_of(TEXT, alternatives(TEXT, with_null=False), XREF)

RANGE_END = st.one_of(BARE, st.none())
NUMBER_RANGE = st.builds(Range, RANGE_END, RANGE_END).filter(lambda r: r.low is not None or r.high is not None)
NUMBER_FILL = st.one_of(BARE, NUMBER_RANGE, XREF, alternatives(BARE, with_null=False))

DATE_RANGE = st.builds(Range, st.one_of(alternatives(BARE), st.none()), st.one_of(alternatives(BARE), st.none())).filter(
    lambda r: r.low is not None or r.high is not None
)
DATE_FILL = st.one_of(
    BARE,
    DATE_RANGE,
    st.lists(st.one_of(BARE, DATE_RANGE), min_size=2, max_size=3).map(lambda xs: Alternatives(tuple(xs))),
)

QUALIFIER = alternatives(BARE, with_null=False)
PLACE = st.one_of(BARE, st.builds(Qualified, BARE, QUALIFIER))
PLACE_RUN = alternatives(PLACE)
SEGMENT = st.one_of(
    PLACE_RUN,
    st.builds(Between, PLACE_RUN, PLACE_RUN),
    st.lists(st.one_of(PLACE, st.builds(Between, PLACE, PLACE)), min_size=2, max_size=3).map(
        lambda xs: Alternatives(tuple(xs))
    ),
)
LOCATION = st.builds(Location, SEGMENT, st.lists(SEGMENT, min_size=1, max_size=3).map(tuple))
LOCATION_FILL = st.one_of(
    BARE,
    LOCATION,
    st.lists(st.one_of(BARE, LOCATION), min_size=2, max_size=3).map(lambda xs: Alternatives(tuple(xs))),
)

FILLS = {
    SlotType.SET: DEFAULT_FILL,
    SlotType.STRING: DEFAULT_FILL,
    SlotType.NUMBER: NUMBER_FILL,
    SlotType.DATE: DATE_FILL,
    SlotType.LOCATION: LOCATION_FILL,
}


def fill(slot_type: SlotType) -> st.SearchStrategy:
    base = FILLS[slot_type]
    return st.one_of(base, base.map(OptionalValue))


def slot(spec) -> st.SearchStrategy:
    blank = st.sampled_from(list(BlankMarker)).map(lambda m: Slot(spec.slot_id, (), m))
    filled = st.lists(fill(spec.type), min_size=1, max_size=3).map(lambda fs: Slot(spec.slot_id, tuple(fs)))
    return st.one_of(blank, filled)


MESSAGE_ID = st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-", min_size=1, max_size=14)
COMMENT = st.one_of(st.just(""), st.lists(WORD, min_size=1, max_size=2).map(" ".join))
TEMPLATE = st.builds(
    Template,
    message_id=MESSAGE_ID,
    template_id=st.one_of(st.just("*"), st.integers(1, 30).map(str)),
    optional=st.booleans(),
    slots=st.tuples(*(slot(spec) for spec in CONFIG.content_slots)),
    message_comment=COMMENT,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
# One template per message: a repeated message or template id is refused on reading.
@given(st.lists(TEMPLATE, min_size=1, max_size=3, unique_by=lambda t: t.message_id))
def test_write_then_parse_is_identity(templates: list[Template]) -> None:
    text = write_templates(templates, CONFIG)
    result = parse_templates(text, CONFIG, "generated")
    assert result.problems == (), (text, result.problems)
    assert list(result.templates.templates) == templates, text


@FUZZ
@given(st.sampled_from(sorted(FILLS, key=str)).flatmap(lambda t: st.tuples(st.just(t), fill(t))))
def test_single_fill_round_trip(case: tuple[SlotType, object]) -> None:
    slot_type, value = case
    assert parse_fill(format_value(value, slot_type), slot_type) == value
