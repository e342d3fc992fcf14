"""Scores files: muceval's own (JSON and CSV), unit-tallies CSV, and 1992 score reports as scores.

* :mod:`~muceval.formats.scores.json` — ``muceval score --format json``: writer and reader;
* :mod:`~muceval.formats.scores.csv` — ``muceval score --format csv``: writer;
* :mod:`~muceval.formats.scores.unit_csv` — ``system,unit,POS,ACT,COR,PAR`` tables: reader;
* :mod:`~muceval.formats.scores.reports` — 1992 score reports as per-message tallies
  and summaries.

Every reader gives :class:`~muceval.core.systems.ScoredSystem` values.
"""
