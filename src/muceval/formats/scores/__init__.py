"""Scores files: muceval's own (JSON and CSV), unit-tallies CSV, and 1992 score reports as
scores; every reader gives :class:`~muceval.core.systems.ScoredSystem` values."""
