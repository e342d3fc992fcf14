"""Tests of the Emacs-Lisp-style S-expression reader."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from muceval.errors import InputError
from muceval.formats import sexpr
from muceval.formats.files import decode_text
from muceval.formats.sexpr import Char, Float, Integer, SList, String, Symbol, Vector


def one(text: str):
    return sexpr.parse_one(text, "t.el")


def error_of(text: str) -> InputError:
    with pytest.raises(InputError) as caught:
        sexpr.parse(text, "t.el")
    return caught.value


# --- reading -----------------------------------------------------------------


def test_lists_symbols_strings_integers():
    node = one('(define-muc-template-slots (inc-type "4.  INCIDENT: TYPE" element) 42 -7)')
    assert isinstance(node, SList) and node.tail is None
    assert node.items[0] == Symbol("define-muc-template-slots")
    inner = node.items[1]
    assert inner.items == (Symbol("inc-type"), String("4.  INCIDENT: TYPE"), Symbol("element"))
    assert node.items[2] == Integer(42) and node.items[3] == Integer(-7)


def test_dotted_pairs_and_nil():
    pair = one('("1" . "2")')
    assert pair.items == (String("1"),) and pair.tail == String("2")
    longer = one("(a b . c)")
    assert longer.items == (Symbol("a"), Symbol("b")) and longer.tail == Symbol("c")
    assert sexpr.is_nil(one("nil")) and sexpr.is_nil(one("()")) and sexpr.is_nil(one("( )"))
    assert not sexpr.is_nil(one("t"))
    # A dot inside a symbol is part of the symbol, not a consing dot.
    assert one("(a.b)").items == (Symbol("a.b"),)


def test_string_escapes():
    assert one(r'"\"LEADERS\""').value == '"LEADERS"'
    assert one(r'"a\\b"').value == "a\\b"
    assert one(r'"tab\there\nnl"').value == "tab\there\nnl"
    assert one('"^[ \t]*$"').value == "^[ \t]*$"  # a literal tab inside the string
    assert one(r'"\101\x42\u0043"').value == "ABC"
    assert one('"con\\\ntinued"').value == "continued"
    assert one(r'"\C-a\^b"').value == "\x01\x02"
    assert one(r'"\q"').value == "q"  # an unknown escape stands for the character itself
    assert one('"multi\nline"').value == "multi\nline"


def test_symbols_keywords_quotes_chars_numbers():
    node = one(
        "(:slot-file *muc-base-directory* 'all-templates #'car `x ,y ,@z ?a ?\\( 1.5 #x1F a\\ b)"
    )
    items = node.items
    assert items[0] == Symbol(":slot-file")
    assert items[1] == Symbol("*muc-base-directory*")
    assert items[2] == SList((Symbol("quote"), Symbol("all-templates")))
    assert items[3] == SList((Symbol("function"), Symbol("car")))
    assert items[4] == SList((Symbol("`"), Symbol("x")))
    assert items[5] == SList((Symbol(","), Symbol("y")))
    assert items[6] == SList((Symbol(",@"), Symbol("z")))
    assert items[7] == Char(ord("a")) and items[8] == Char(ord("("))
    assert items[9] == Float(1.5) and items[10] == Integer(31)
    assert items[11] == Symbol("a b")
    assert sexpr.unquote(items[2]) == Symbol("all-templates")
    assert one("[a 1]") == Vector((Symbol("a"), Integer(1)))
    assert one("1+") == Symbol("1+") and one("-") == Symbol("-") and one("1.") == Integer(1)


def test_comments_and_positions():
    forms = sexpr.parse(';; header\n(a ; trailing\n   "b")\n  (c\n (d)) ; end', "t.el")
    assert len(forms) == 2
    first, second = forms
    assert (first.line, first.column) == (2, 1)
    assert (first.items[0].line, first.items[0].column) == (2, 2)
    assert (first.items[1].line, first.items[1].column) == (3, 4)
    assert (second.line, second.column) == (4, 3)
    assert (second.items[1].line, second.items[1].column) == (5, 2)


def test_positions_survive_nested_closing():
    # Positions of a list are those of its '(' even when it closes lines later.
    node = one("(a\n (b\n  (c\n   d)))\n")
    assert (node.line, node.column) == (1, 1)
    b = node.items[1]
    assert (b.line, b.column) == (2, 2)
    c = b.items[1]
    assert (c.line, c.column, c.items[1].line, c.items[1].column) == (3, 3, 4, 4)


def test_dumps_round_trip():
    text = '(a (b . "c\\"d") [1 2] \'e ?x -3 2.5 "back\\\\slash")'
    node = one(text)
    assert one(sexpr.dumps(node)) == node


# --- errors --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "line", "column", "fragment"),
    [
        ("(a (b)\n c))\n", 2, 4, "unexpected ')'"),
        ("(a\n (b\n  c)\n", 1, 1, "never closed"),
        ('(a\n "unterminated\n b)\n', 2, 2, "unterminated string"),
        ("(a\n b\x00)", 2, 3, "NUL"),
        ("(a\n \x01)", 2, 2, "control character"),
        ("(a ]", 1, 4, "does not match"),
        ("(. a)", 1, 2, "'.' at the start"),
        ("(a . b c)", 1, 8, "more than one object"),
        ("(a .)", 1, 5, "nothing after '.'"),
        (". a", 1, 1, "'.' outside a list"),
        ("(a '", 1, 4, "nothing follows the quote"),
        ("#s(x)", 1, 1, "unsupported reader syntax"),
        ('"\\x"', 1, 2, "hexadecimal"),
    ],
)
def test_syntax_errors_name_line_and_column(text, line, column, fragment):
    error = error_of(text)
    (problem,) = error.problems
    assert problem.path == "t.el"
    assert (problem.line, problem.column) == (line, column)
    assert fragment in problem.message


@pytest.mark.parametrize("text", ["", "   \n\t\n", "; only a comment\n;; and another"])
def test_empty_input_is_an_error(text):
    error = error_of(text)
    assert error.problems[0].line == 1
    assert "empty" in error.problems[0].message
    assert sexpr.parse(text, "t.el", allow_empty=True) == ()


def test_parse_one_rejects_trailing_forms():
    with pytest.raises(InputError, match=r"t\.el:3:1: unexpected text after"):
        sexpr.parse_one("(a)\n\n(b)", "t.el")


def test_latin1_mixed_encodings_and_unreadable_files(tmp_path):
    latin1 = tmp_path / "latin1.el"
    latin1.write_bytes(b'("caf\xe9")')
    assert sexpr.read_file(latin1)[0].items[0].value == "café"
    bad = tmp_path / "bad.el"
    bad.write_bytes('("café"\n "'.encode() + b'\xff")')
    with pytest.raises(InputError, match=r"bad\.el:2:3: mixed encodings"):
        sexpr.read_file(bad)
    with pytest.raises(InputError, match="cannot read file"):
        sexpr.read_file(tmp_path / "missing.el")


def test_deep_nesting_is_bounded_with_a_clear_error():
    depth = sexpr.MAX_DEPTH
    node = one("(" * depth + ")" * depth)
    assert isinstance(node, SList)
    for text in ("(" * 100_000 + ")" * 100_000, "(" * 100_000, "'" * 100_000 + "a"):
        with pytest.raises(InputError, match=f"t.el:1:{depth + 1}: nested more than {depth}"):
            sexpr.parse(text, "t.el")


# --- properties ------------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200))
def test_random_bytes_raise_only_input_error(data):
    try:
        sexpr.parse(decode_text(data, "r.el"), "r.el")
    except InputError as error:
        assert all(p.path == "r.el" for p in error.problems)


LISPY = st.text(alphabet=st.sampled_from(list("()[]\"'`,.;?#\\ \n\tab1-:*x\x00\x7f")), max_size=60)


@settings(max_examples=300, deadline=None)
@given(LISPY)
def test_random_lisp_like_text_raises_only_input_error(text):
    try:
        forms = sexpr.parse(text, "r.el")
    except InputError as error:
        assert all(p.path == "r.el" and p.line is not None for p in error.problems)
    else:
        # Whatever was read can be written and read back unchanged.
        assert sexpr.parse(" ".join(sexpr.dumps(f) for f in forms), "r.el") == forms


ATOMS = st.one_of(
    st.text(
        st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=8
    ).map(String),
    st.integers(-(10**6), 10**6).map(Integer),
    st.from_regex(r"[a-z*:][a-z0-9*:+-]{0,6}", fullmatch=True).map(Symbol),
)
TREES = st.recursive(
    ATOMS,
    lambda children: st.lists(children, max_size=4).map(lambda items: SList(tuple(items))),
    max_leaves=20,
)


@settings(max_examples=200, deadline=None)
@given(TREES)
def test_dumps_parse_round_trip(tree):
    assert sexpr.parse_one(sexpr.dumps(tree), "r.el") == tree
