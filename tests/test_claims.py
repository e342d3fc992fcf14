"""Every claim in README.md, docs/*.md and docs/workflows/*.md names the test or benchmark that checks it (issue 24).

A line that says muceval reproduces something, or that a result is identical, count for count,
bit for bit, byte for byte or exactly something, must have in its paragraph, bullet or table row
a reference `tests/FILE.py::NAME` (or `tests/FILE.py`) or `benchmarks/FILE.py`; every reference
in these files must exist. The bare word "exact" is not a claim word: "exact randomization" and
"--method exact" name a method.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import REPO_ROOT

DOCUMENTS = [REPO_ROOT / "README.md", *sorted((REPO_ROOT / "docs").glob("*.md")),
             *sorted((REPO_ROOT / "docs" / "workflows").glob("*.md"))]

CLAIM = re.compile(r"\b(reproduc(e|es|ed|ing)|identical|count[\s-]+for[\s-]+count"
                   r"|bit[\s-]+for[\s-]+bit|byte[\s-]+for[\s-]+byte|exactly)\b", re.IGNORECASE)
REFERENCE = re.compile(r"\b(?:tests|benchmarks)/[\w/-]+\.py(?:::\w+)?")

# Definitions, not claims: (file name, text of the line). Keep this list short.
NOT_CLAIMS = [
    # A rule of the configuration format: one slot of each of the two id types.
    ("configuration.md", "`template-id`; there is exactly one of each."),
]


def blocks(text: str) -> list[tuple[int, list[str]]]:
    """The paragraphs, list items and table rows of a Markdown text, outside code fences, each
    with the number of its first line."""
    out: list[tuple[int, list[str]]] = []
    fenced = False
    current: list[str] | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if stripped.startswith("```"):
            fenced, current = not fenced, None
            continue
        if fenced or not stripped:
            current = None
            continue
        starts = (stripped.startswith(("- ", "* ", "| ", "#"))
                  or re.match(r"\d+\. ", stripped) is not None)
        if current is None or starts:
            current = []
            out.append((number, current))
        current.append(line)
    return out


def claim_lines(lines: list[str]) -> list[int]:
    """Indexes of the lines of a block where a claim word starts (a phrase may span lines)."""
    text = "\n".join(lines)
    return sorted({text.count("\n", 0, m.start()) for m in CLAIM.finditer(text)})


def unreferenced_claims(path: Path) -> list[str]:
    problems = []
    for first, lines in blocks(path.read_text(encoding="utf-8")):
        if REFERENCE.search(" ".join(lines)):
            continue
        for offset in claim_lines(lines):
            line = lines[offset]
            if any(path.name == name and text in line for name, text in NOT_CLAIMS):
                continue
            problems.append(f"{path.relative_to(REPO_ROOT)}:{first + offset}: {line.strip()}")
    return problems


def missing_references(path: Path) -> list[str]:
    problems = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        for reference in REFERENCE.findall(line):
            file, _, name = reference.partition("::")
            target = REPO_ROOT / file
            where = f"{path.relative_to(REPO_ROOT)}:{number}: {reference}"
            if not target.is_file():
                problems.append(f"{where}: no such file")
            elif name and not re.search(rf"^\s*(async )?def {name}\(", target.read_text(
                    encoding="utf-8"), flags=re.MULTILINE):
                problems.append(f"{where}: no function {name} in {file}")
    return problems


@pytest.mark.parametrize("path", DOCUMENTS, ids=lambda p: p.name)
def test_every_claim_names_the_test_or_benchmark_that_checks_it(path: Path) -> None:
    problems = unreferenced_claims(path)
    assert not problems, ("claims without a tests/...py::name or benchmarks/...py reference in "
                          "their paragraph, bullet or table row:\n" + "\n".join(problems))


@pytest.mark.parametrize("path", DOCUMENTS, ids=lambda p: p.name)
def test_every_referenced_test_and_benchmark_exists(path: Path) -> None:
    problems = missing_references(path)
    assert not problems, "references to nothing:\n" + "\n".join(problems)


def test_the_not_claims_are_still_in_the_documents() -> None:
    # An entry whose line has gone would silently excuse a new claim with the same words.
    texts = {p.name: p.read_text(encoding="utf-8") for p in DOCUMENTS}
    assert [(name, text) for name, text in NOT_CLAIMS if text not in texts.get(name, "")] == []


def test_the_scan_sees_claims_in_paragraphs_bullets_and_rows() -> None:
    text = ("Intro.\n\nmuceval reproduces the\nofficial numbers.\n\n"
            "- a bullet, the same byte for\n  byte (tests/test_claims.py::blocks)\n"
            "- exact randomization is a method\n\n"
            "| check | where |\n|---|---|\n| every report exactly as printed | |\n\n"
            "```sh\nmuceval score  # reproduces nothing here\n```\n")
    referenced = {first: REFERENCE.search(" ".join(lines)) is not None
                  for first, lines in blocks(text) if claim_lines(lines)}
    # The paragraph from line 3, the first bullet (its reference on its second line), the row.
    assert referenced == {3: False, 6: True, 12: False}
