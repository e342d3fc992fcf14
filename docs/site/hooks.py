"""MkDocs hooks: the home page from the README's opening, the API page from muceval's public
names, and the workflow pages (docs/workflows/) read with their test citations gathered at the
end (one source for each text)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # mkdocs is there only when the site is built; the test reads the pages
    from mkdocs.structure.files import Files

ROOT = Path(__file__).resolve().parents[2]

# The workflow pages (docs/workflows/), in the order the home page lists them.
WORKFLOWS = ("scoring", "ab-test", "many-systems", "modern", "datasets", "errors", "alignment",
             "adjudication", "library")


def _relink(text: str) -> str:
    """The README's links into docs/ as links from the home page, which is in docs/."""
    return text.replace("](docs/", "](")


_CITATION = r"(?:tests|benchmarks)/[\w./-]*\w(?:::[\w\[\]-]+)?"
_WHOLE = re.compile(rf"\s*\((?:see )?({_CITATION}(?:(?:,|\s+and)\s+{_CITATION})*)\)")
_TRAILING = re.compile(rf"[;,:]\s+(?:see )?({_CITATION}(?:,\s+{_CITATION})*)(?=[)\s])")


def _readable(text: str) -> str:
    """A page for reading: its source names, in parentheses, the test or benchmark that
    shows each claim; here they move from the sentences to a list at the page's end."""
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


def _title(page: Path) -> str:
    return page.read_text(encoding="utf-8").split("\n", 1)[0].lstrip("# ")


def _home(readme: str) -> str:
    opening = readme.split("\n## Commands", 1)[0]
    return _relink(opening) + "\n" + "\n".join(
        f"- [{_title(ROOT / 'docs' / 'workflows' / f'{name}.md')}](workflows/{name}.md)"
        for name in WORKFLOWS) + "\n"


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
    for page, text in {"index.md": _home(readme), "api.md": _api()}.items():
        files.append(File.generated(config, page, content=text))
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    """A workflow page names the test of each claim where it makes it (as the README does,
    and as the claims test requires); on the site they move to a list at the page's end."""
    if page.file.src_uri.startswith("workflows/"):
        return _readable(markdown)
    return markdown
