"""MkDocs hooks: the workflow pages from the README's sections, the API page from muceval's
public names, and the home page from the README's opening (one source for each text)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # mkdocs is there only when the site is built; the test reads the pages
    from mkdocs.structure.files import Files

ROOT = Path(__file__).resolve().parents[2]

# Page → the README section (a ### or ## heading) it shows.
WORKFLOWS = {
    "workflows/scoring.md": "### Scoring the MUC-4 TST3 systems",
    "workflows/ab-test.md": "### Is the new version better?",
    "workflows/many-systems.md": "### Many systems",
    "workflows/modern.md": "### Modern MUC-4 (GTT, GRIT, IterX)",
    "workflows/datasets.md": "### Other datasets and raw LLM answers (FAMuS)",
    "workflows/alignment.md": "### Alignment: does a score rest on luck?",
    "workflows/adjudication.md": "### Adjudication in the browser",
    "workflows/library.md": "## Library",
}

# What each page is for, said to its reader first (the README's sections assume its order).
LEADS = {
    "workflows/scoring.md": "Scoring systems' templates against a key exactly as the 1992 MUC-4 "
    "Scoring System did: the command, the reports it prints, and the outputs for programs.",
    "workflows/ab-test.md": "One question: is a new version of a system better than the old "
    "one, or is the difference chance? One command tests it on paired units and says how sure "
    "it is.",
    "workflows/many-systems.md": "Comparing many systems at once, from a shared task's handful "
    "to a leaderboard of thousands: every pairwise difference tested, the systems grouped by "
    "letters, and what that costs.",
    "workflows/modern.md": "The modern MUC-4 formats (GTT, GRIT, IterX): the scores their "
    "official scripts print, and the same significance tests on top.",
    "workflows/datasets.md": "Other template schemas and datasets, and the raw answers of "
    "language models: how muceval reads them, scores them, and says what it repaired.",
    "workflows/alignment.md": "Which key template was a response compared with? Making that "
    "criterion explicit, and seeing which scores rest on lucky alignments.",
    "workflows/adjudication.md": "The judgements the 1992 program asked of a person: answer "
    "them in the browser, watch the scores move, keep the history.",
    "workflows/library.md": "muceval from Python, in a notebook or a script: one call per "
    "command, results as tables, data frames and figures.",
}


def _section(readme: str, heading: str) -> str:
    """The text under ``heading`` up to the next heading of the same or a higher level."""
    level = heading.split(" ", 1)[0]
    start = readme.index(heading + "\n")
    stop = re.compile(rf"^#{{1,{len(level)}}} ", re.MULTILINE)
    after = stop.search(readme, start + len(heading) + 1)
    return readme[start: after.start() if after else len(readme)]


def _relink(text: str, depth: int) -> str:
    """README links into docs/ as links between pages ``depth`` folders below docs/."""
    up = "../" * depth
    return re.sub(r"\]\(docs/", f"]({up}", text)


_CITATION = r"(?:tests|benchmarks)/[\w./-]*\w(?:::[\w\[\]-]+)?"
_WHOLE = re.compile(rf"\s*\((?:see )?({_CITATION}(?:(?:,|\s+and)\s+{_CITATION})*)\)")
_TRAILING = re.compile(rf"[;,:]\s+(?:see )?({_CITATION}(?:,\s+{_CITATION})*)(?=[)\s])")


def _readable(text: str) -> str:
    """The section for reading: the README names, in parentheses, the test or benchmark
    that shows each claim; here they move from the sentences to a list at the page's end."""
    cited: list[str] = []

    def keep(match: re.Match[str]) -> str:
        cited.extend(re.findall(_CITATION, match.group(1)))
        return ""

    # Code blocks are left as they are: a path in a command is no citation.
    parts = re.split(r"(^```.*?^```$)", text, flags=re.MULTILINE | re.DOTALL)
    body = "".join(part if part.startswith("```") else _TRAILING.sub(keep, _WHOLE.sub(keep, part))
                   for part in parts).rstrip()
    if not cited:
        return body + "\n"
    listed = "\n".join(f"- `{c}`" for c in dict.fromkeys(cited))
    return f"{body}\n\n## Checked by\n\nThe claims of this page are checked by:\n\n{listed}\n"


def _home(readme: str) -> str:
    opening = readme.split("\n## Commands", 1)[0]
    return _relink(opening, 0) + "\n" + "\n".join(
        f"- [{heading.lstrip('# ')}]({page})" for page, heading in WORKFLOWS.items()) + "\n"


def _api() -> str:
    import ast

    source = (ROOT / "src" / "muceval" / "__init__.py").read_text(encoding="utf-8")
    tree = ast.parse(source)
    public: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.AnnAssign) and getattr(node.target, "id", "") == "_PUBLIC":
            public = ast.literal_eval(node.value)
    lines = ["# API reference", "",
             "Every name below is importable from `muceval` (`import muceval; "
             "muceval.score_files(...)`), loaded on first use.", ""]
    lines += [f"::: {module}.{name}" for name, module in public.items()]
    return "\n".join(lines) + "\n"


def on_files(files: Files, config: Any) -> Files:
    from mkdocs.structure.files import File

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    pages = {"index.md": _home(readme), "api.md": _api()}
    for page, heading in WORKFLOWS.items():
        text = _section(readme, heading)
        title = heading.lstrip("# ")
        pages[page] = f"# {title}\n\n*{LEADS[page]}*\n" + _relink(
            _readable(text.split("\n", 1)[1]), page.count("/"))
    for page, text in pages.items():
        files.append(File.generated(config, page, content=text))
    return files
