"""Deprecated name of :mod:`muceval.scoring.scorers` (the registry of scorers), kept for one
release."""

from muceval.scoring.scorers import *  # noqa: F403
from muceval.scoring.scorers import METRICS, MetricSpec, modern_metrics  # noqa: F401
