"""Deprecated name of :mod:`muceval.scoring.scorers` (the registry of scorers), with the names
of the previous release (a scorer was a "metric"), kept for one release."""

from muceval.scoring.scorers import *  # noqa: F403
from muceval.scoring.scorers import SCORERS as METRICS
from muceval.scoring.scorers import ScorerSpec as MetricSpec
from muceval.scoring.scorers import modern_scorers as modern_metrics

__all__ = ["METRICS", "MetricSpec", "modern_metrics"]
