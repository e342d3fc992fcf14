"""A history file that stores every new judgement the moment it is given, for one session at a
time: an interrupted session loses no answer, and a failed save keeps them in memory."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from types import TracebackType

import filelock

from muceval.core.model import History, HistoryEntry, add_judgement
from muceval.errors import InputError, OutputError, UsageError
from muceval.formats.files import _BOM, read_bytes, read_text, text_encoding, write_atomic
from muceval.formats.muc.history import HistoryEditor, write_history

__all__ = ["HistorySaveError", "HistoryStore"]


class HistorySaveError(OutputError):
    """A judgement could not be saved; ``history`` holds every answer, the last one included,
    and ``text`` the file that could not be written (to be saved elsewhere)."""

    def __init__(self, message: str, history: History, text: str) -> None:
        super().__init__(message)
        self.history = history
        self.text = text


class HistoryStore:
    """The history at ``path`` as it grows by one judgement at a time; use it as a context manager.

    >>> import os, tempfile
    >>> from muceval.core.model import HistoryEntry, Judgement, Text
    >>> path = os.path.join(tempfile.mkdtemp(), "h.lisp")
    >>> with HistoryStore(path, None) as store:
    ...     store.record("M1", "1", "hum-tgt-name", HistoryEntry(Text('"X"'), Judgement.FAIL))
    >>> print(open(path).read())
    (("M1"
      ("1"
       (hum-tgt-name
        ("\\"X\\"" fail)))))
    """

    def __init__(self, path: str | Path, history: History | None, text: str | None = None) -> None:
        self.path = str(path)
        self.history = history if history is not None else History(self.path, ())
        self.start_from(self.history, text)
        # An exclusive lock on a hidden file beside the history, let go when the process dies.
        self._target = target = Path(os.path.realpath(self.path))
        self._lock = filelock.FileLock(str(target.parent / f".{target.name}.lock"), timeout=0)
        self._held: list[filelock.BaseFileLock] = []
        # The lock file each held lock was taken on, to remove it (only it) when let go.
        self._files: dict[str, os.stat_result] = {}
        self._by_inode: filelock.BaseFileLock | None = None

    def __enter__(self) -> HistoryStore:
        # The file by its path, and (when it exists) by its inode: a hard link is another path
        # to the same history, and two sessions on it would overwrite each other.
        self._held = []
        self._by_inode = None
        try:
            self._take(self._lock)
            self._by_inode = self._inode_lock()
            if self._by_inode is not None:
                self._take(self._by_inode)
            self._check_writable()
        except BaseException:
            self._release()
            raise
        self._remove_stale_temporary_files()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self._release()

    def _inode_lock(self) -> filelock.BaseFileLock | None:
        try:
            info = self._target.stat()
        except OSError:
            return None
        import platformdirs

        folder = Path(platformdirs.user_cache_dir("muceval", appauthor=False)) / "locks"
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise OutputError(f"cannot lock {self.path}: {error.strerror or error}") from None
        return filelock.FileLock(str(folder / f"{info.st_dev}-{info.st_ino}.lock"), timeout=0)

    def _take(self, lock: filelock.BaseFileLock) -> None:
        try:
            lock.acquire()
        except filelock.Timeout:
            raise UsageError(
                f"{self.path} is being updated by another muceval session: answers given in "
                "two sessions at once would overwrite each other. Finish the other session "
                "first, or store this session's answers in a file of its own (--save-history)"
            ) from None
        except OSError as error:
            raise OutputError(f"cannot lock {self.path}: {error.strerror or error}") from None
        self._held.append(lock)
        with contextlib.suppress(OSError):
            self._files[lock.lock_file] = os.stat(lock.lock_file)

    def _release(self) -> None:
        while self._held:
            self._let_go(self._held.pop())

    def _let_go(self, lock: filelock.BaseFileLock) -> None:
        """Release ``lock`` and remove its (empty) file, else left beside the history after
        every session: removed while still held, and only if the path is still the file this
        session locked, so that no other process holds it, and one that opened it meanwhile
        finds it gone when it gets the lock (filelock checks) and takes a new one."""
        taken = self._files.pop(lock.lock_file, None)
        try:
            if taken is not None and os.path.samestat(os.stat(lock.lock_file), taken):
                os.unlink(lock.lock_file)
        except OSError:
            pass  # left in place: an empty lock file is harmless
        finally:
            lock.release()

    def _follow_the_inode(self) -> None:
        """After a save the history is a new file (an atomic rename): lock its inode and let
        the old one go, which the system may now give to any other file."""
        if self._by_inode is None:
            return
        moved = self._inode_lock()
        if moved is None or moved.lock_file == self._by_inode.lock_file:
            return
        try:
            self._take(moved)
        except (UsageError, OutputError):
            return  # keeps the old lock: the path lock still guards this session
        self._held.remove(self._by_inode)
        self._let_go(self._by_inode)
        self._by_inode = moved

    def _check_writable(self) -> None:
        """Refuse at the start, not at the first answer, a history that cannot be saved."""
        try:
            mode = self._target.stat().st_mode
        except FileNotFoundError:
            return
        except OSError as error:
            raise OutputError(f"cannot read {self.path}: {error.strerror or error}") from None
        if not mode & 0o222:
            raise OutputError(f"{self.path} is read-only: no answer could be saved in it; make "
                              "it writable, or store the answers in a file of their own "
                              "(--save-history)")

    def _remove_stale_temporary_files(self) -> None:
        # A session killed in the middle of a save leaves its temporary file; while
        # this session holds the lock, no other process can be writing one.
        for stale in self._target.parent.glob(f".{self._target.name}.*.tmp"):
            with contextlib.suppress(OSError):
                stale.unlink()

    def start_from(self, history: History, text: str | None) -> None:
        """Answers go into ``history``, read from ``text`` (None: a new file), whose comments,
        layout and escapes a save keeps byte for byte."""
        self.history = history
        self._text = text
        # What the file holds as far as this session knows: what was read, then what it wrote.
        self._written = text
        self._added: list[tuple[str, str, str, HistoryEntry]] = []
        # The history before each judgement of ``_added``: an undo is a step back, not a
        # replay of the whole session.
        self._before: list[History] = []
        # ``text`` parsed once, then kept up to date with ``_added`` (see _new_text): a save
        # costs what the answer changes, not a new reading of the whole file.
        self._editor: HistoryEditor | None = None
        # Written back as it was read: Latin-1 stays Latin-1, a byte-order mark stays.
        self._encoding, self._bom = "utf-8", False
        if text is not None:
            # A text that does not parse fails at the first save, as it always has.
            with contextlib.suppress(InputError):
                self._editor = HistoryEditor(text, self.path)
            with contextlib.suppress(InputError):
                self._encoding, self._bom = text_encoding(read_bytes(self.path))

    @property
    def added(self) -> tuple[tuple[str, str, str, HistoryEntry], ...]:
        """The judgements this session added, oldest first: (message, template, slot, entry)."""
        return tuple(self._added)

    def record(self, message_id: str, template_id: str, slot_id: str, entry: HistoryEntry) -> None:
        """Add one judgement to the history and save the file before returning. A judgement
        whose save fails is not recorded (so that a later save cannot write it over the answer
        given instead); the :class:`HistorySaveError` holds the history with it."""
        before = self.history
        self.history = add_judgement(self.history, message_id, template_id, slot_id, entry)
        self._added.append((message_id, template_id, slot_id, entry))
        self._before.append(before)
        try:
            self._save()
        except HistorySaveError:
            self._added.pop()
            self._before.pop()
            self.history = before
            raise

    def undo(self) -> tuple[str, str, str, HistoryEntry]:
        """Take back the last judgement of this session and save the file (as it was before
        that judgement, byte for byte); returns the judgement taken back."""
        if not self._added:
            raise UsageError("no answer of this session to undo")
        last = self._added.pop()
        current = self.history
        self.history = self._before.pop()
        try:
            self._save()
        except HistorySaveError:
            self._added.append(last)
            self._before.append(self.history)
            self.history = current
            raise
        return last

    def _save(self) -> None:
        try:
            self._follow_other_writers()
        except OutputError as error:
            raise HistorySaveError(str(error), self.history, self._new_text()) from None
        text = self._new_text()
        try:
            data = (_BOM if self._bom else b"") + text.encode(self._encoding)
        except UnicodeEncodeError as bad:
            raise HistorySaveError(f"{self.path} is {self._encoding}: the answer's "
                                   f"{bad.object[bad.start:bad.end]!r} cannot be written in it",
                                   self.history, text) from None
        try:
            write_atomic(self.path, data)
        except OutputError as error:
            raise HistorySaveError(str(error), self.history, text) from None
        self._written = text
        self._follow_the_inode()

    def _new_text(self) -> str:
        """The file with this session's answers: the text read with them inserted (as
        :func:`~muceval.formats.muc.history.insert_entries` inserts them), or a new file."""
        if self._text is None:
            return write_history(self.history)
        editor = self._editor
        if editor is None or editor.base is not self._text:
            # Text added to the file by another program changes what the answers go into.
            editor = self._editor = HistoryEditor(self._text, self.path)
        # One answer added or taken back since the last save, usually; compared (not
        # assumed) so that no sequence of saves, failed or not, can write a stale text.
        while len(editor.added) > len(self._added) or \
                editor.added != self._added[: len(editor.added)]:
            editor.pop()
        for message_id, template_id, slot_id, entry in self._added[len(editor.added):]:
            editor.add(message_id, template_id, slot_id, entry)
        return editor.text()

    def _follow_other_writers(self) -> None:
        """What another program did to the file since this session last read or wrote it:
        nothing, or text added at its end (a comment: kept, the answers inserted as before);
        anything else is refused, so that no one's edit is lost."""
        try:
            current: str | None = read_text(self.path)
        except InputError:
            current = None
        if current == self._written:
            return
        if current is not None and self._written is not None and self._text is not None \
                and current.startswith(self._written):
            self._text += current[len(self._written):]
            # Taken in once: if this save fails, the next one must not add that text again.
            self._written = current
            return
        raise OutputError(f"{self.path} was changed by another program during this session "
                          "(not only added to at its end): to keep that edit, this answer is "
                          "not written there")
