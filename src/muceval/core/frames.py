"""Results as tables for notebooks: pandas data frames (an optional extra, imported only when
asked for) and plain HTML tables for ``_repr_html_`` (no pandas needed).

>>> print(html_table([{"system": "A<B", "F1": "50.00"}], ["system", "F1"], "caption"))
<table class="muceval"><caption>caption</caption><thead><tr><th>system</th><th>F1</th></tr></thead><tbody><tr><td>A&lt;B</td><td>50.00</td></tr></tbody></table>
"""

from __future__ import annotations

import importlib
import io
from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from muceval.errors import UsageError

__all__ = ["csv_frame", "data_frame", "html_table"]


def _pandas() -> Any:
    try:  # an optional extra: imported when a frame is asked for
        return importlib.import_module("pandas")
    except ImportError:
        raise UsageError("to_pandas() needs pandas: pip install 'muceval[notebook]'",
                         parameter="pandas") from None


def csv_frame(text: str) -> Any:
    """A pandas data frame of a CSV text that muceval writes (its columns, as written)."""
    return _pandas().read_csv(io.StringIO(text), keep_default_na=False, na_values=[""])


def data_frame(rows: Sequence[Mapping[str, Any]], columns: Sequence[str]) -> Any:
    """A pandas data frame of ``rows`` with ``columns`` in that order."""
    return _pandas().DataFrame.from_records(list(rows), columns=list(columns))


def html_table(rows: Sequence[Mapping[str, Any]], columns: Sequence[str],
               caption: str = "") -> str:
    """An HTML table of ``rows`` (every text escaped), as a notebook shows a result."""
    head = "".join(f"<th>{escape(str(c))}</th>" for c in columns)
    body = "".join("<tr>" + "".join(f"<td>{escape(str(row.get(c, '')))}</td>" for c in columns)
                   + "</tr>" for row in rows)
    title = f"<caption>{escape(caption)}</caption>" if caption else ""
    return (f'<table class="muceval">{title}<thead><tr>{head}</tr></thead>'
            f"<tbody>{body}</tbody></table>")
