"""What an HTML report shows and how it is written (``muceval report``)."""

from __future__ import annotations

from dataclasses import dataclass

from muceval.errors import UsageError

__all__ = ["ReportOptions"]


@dataclass(frozen=True)
class ReportOptions:
    """How a report is written, and its optional sections (built by
    :func:`~muceval.pipelines.report.build_report`).

    Attributes
    ----------
    title : str or None, default None
        None: a default one.
    png : bool, default False
        Also write every figure as PNG (about a third of a report's time).
    overwrite : bool, default False
        Replace the files of an earlier report in the folder (never the report's inputs).
    alignment : str or None, default None
        Add the Alignment section comparing these criteria of the configuration
        (comma-separated; ``'compare'``: its compare list).
    histograms : tuple of (str, str), default ()
        Pairs of systems whose randomization distribution to draw, besides every pair of
        neighbours in the ranking.
    errors : bool, default False
        Add the Errors section (Das et al. 2022's error categories).

    Raises
    ------
    UsageError
        If ``title`` or ``alignment`` is empty, or a pair of ``histograms`` does not name two
        different systems.

    Examples
    --------
    >>> ReportOptions(title="TST3", png=True).png
    True
    >>> ReportOptions(alignment=" ")
    Traceback (most recent call last):
    ...
    muceval.errors.UsageError: alignment: name at least one alignment criterion
    """

    title: str | None = None
    png: bool = False
    overwrite: bool = False
    alignment: str | None = None
    histograms: tuple[tuple[str, str], ...] = ()
    errors: bool = False

    def __post_init__(self) -> None:
        if self.title is not None and not self.title.strip():
            raise UsageError("give a title, or none for the default one", parameter="title")
        if self.alignment is not None and not self.alignment.replace(",", "").strip():
            raise UsageError("name at least one alignment criterion", parameter="alignment")
        for pair in self.histograms:
            if len(pair) != 2 or pair[0] == pair[1] or not all(pair):
                raise UsageError(f"{pair!r}: name two different systems", parameter="histograms")
