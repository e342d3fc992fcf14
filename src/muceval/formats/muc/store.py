"""A history file that stores every new judgement the moment it is given.

Hours of adjudication live in a history: each answer is written to the file
(atomically, through :func:`muceval.formats.muc.history.save_history`) before
the next question is asked, so an interrupted session loses nothing that was
answered.
"""

from __future__ import annotations

from pathlib import Path

from muceval.core.model import History, HistoryEntry
from muceval.formats.muc.history import add_judgement, save_history

__all__ = ["HistoryStore"]


class HistoryStore:
    """The history at ``path`` as it grows by one judgement at a time.

    >>> import os, tempfile
    >>> store = HistoryStore(os.path.join(tempfile.mkdtemp(), "h.lisp"), None)
    >>> store.history.messages
    ()
    """

    def __init__(self, path: str | Path, history: History | None) -> None:
        self.path = str(path)
        self.history = history if history is not None else History(self.path, ())

    def record(self, message_id: str, template_id: str, slot_id: str, entry: HistoryEntry) -> None:
        """Add one judgement to the history and save the file before returning."""
        self.history = add_judgement(self.history, message_id, template_id, slot_id, entry)
        save_history(self.history, self.path)
