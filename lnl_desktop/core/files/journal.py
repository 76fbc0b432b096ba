"""The recovery journal: every change of an open encounter, on disk before the screen shows it.

A window's recovery folder holds a *generation*: ``base-G.lnl`` (the encounter at some moment)
and ``journal-G.jsonl`` (one line per change since: the action with every die face it used, or
an undo). ``meta.json`` names the current generation and the file the work belongs to. A line is
written and flushed to the disk before the engine's listeners (and so the screen) hear of the
change, so a kill at any moment loses nothing the GM has seen (the disk's own wait, ``fsync``, is
a worker thread's: written, the line survives the program's death; only a power cut in the
millisecond or two before the worker is done could cost that last change). Replaying the lines onto the base
with the same faces gives back the very same encounter.

A new *chain* of generations starts when the document is opened or saved (its first base is the
encounter as the file holds it); every few seconds while changes go on, a new generation continues
the chain: a fresh base (a checkpoint) and a new journal, the older journals kept. Replaying every
journal of the chain onto its first base gives back the encounter *and* its Undo history; the
newest base and journal alone give back the encounter if an older part is damaged. The round log's
events never change once logged, so each is turned into text once and kept for the next bases: a
long fight's base costs the state and a join, not the whole log again. The base and
``meta.json`` are written atomically, and ``meta.json`` last: a kill between two writes leaves the
previous generation whole. A checkpoint's base and meta are the worker's to write (the window goes on
with the new journal meanwhile: replaying the chain reads on past the meta's generation, so a kill
before the worker is done loses nothing); a new chain's first base and meta are written before its
first line, by the window, and synced by the worker: renamed into place from ``ready-*`` files written
at the idle moment after the open or save (never read by recovery: a folder holding only them has
nothing to recover), or written then. A torn last line (a kill in the middle of a write) is skipped.

Recovery never throws away what it cannot read: :func:`recover` says which part could not be read
(``Recovered.unread``), rebuilds what it can (from a checkpoint, or the journal replayed on the
saved file ``meta.json`` names when the first base is damaged), and the caller keeps the folder.
Every file of a recovery folder is read as :func:`storage.load` reads an encounter file: only a
regular file (a pipe would block the start for ever, a device might never end), opened
non-blocking, at most a size limit of it; anything else is unread, with the reason
(``Recovered.reasons``).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import math
import os
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from pydantic import BaseModel, TypeAdapter, ValidationError
from pydantic_core import to_jsonable_python

from lnl_desktop.core.dice.rolls import ScriptedDice
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.events import Event
from lnl_desktop.core.encounter.log_book import LogBook, file_text
from lnl_desktop.core.encounter.map_model import gc_paused
from lnl_desktop.core.encounter.model import Encounter
from lnl_desktop.core.engine.engine import Engine
from lnl_desktop.core.engine.history import HistoryStep
from lnl_desktop.core.errors import RulesError
from lnl_desktop.core.files import storage

if TYPE_CHECKING:
    from collections.abc import Callable

META = "meta.json"
# What is read of a recovery folder's files at most. A journal line may hold a whole encounter (an
# undo reaching back before the chain began), so a journal is allowed a few encounter files' worth.
MAX_JOURNAL_BYTES = 4 * storage.MAX_FILE_BYTES
MAX_META_BYTES = 64 * 1024  # two numbers and a path

# Non-blocking: a pipe swapped in between the look and the open is not waited on (fstat refuses it).
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0) | getattr(os, "O_NOCTTY", 0)


class UnreadableFile(Exception):
    """A file of a recovery folder that was not read, and why (``reason``: "a pipe (FIFO)...")."""

    def __init__(self, name: str, reason: str) -> None:
        super().__init__(f"{name}: {reason}")
        self.name = name
        self.reason = reason


def _check_kept_file(name: str, info: os.stat_result, limit: int) -> None:
    kind = storage.file_kind(info.st_mode)
    if kind is not None:
        raise UnreadableFile(name, f"{kind}, not a regular file")
    if info.st_size > limit:
        raise UnreadableFile(name, f"{_size(info.st_size)}, over the {_size(limit)} it may have")


def _size(count: int) -> str:
    return f"{math.ceil(count / 2**20):,} MB" if count >= 2**20 else f"{count:,} bytes"


def read_kept_file(path: Path, limit: int) -> bytes:
    """The bytes of one file of a recovery folder, or :class:`UnreadableFile` saying why not:
    looked at before it is opened (only a regular file, links followed, of at most ``limit``
    bytes), opened non-blocking, and at most ``limit`` bytes read even if it grows meanwhile."""
    name = path.name
    try:
        _check_kept_file(name, os.stat(path), limit)  # before opening: opening some devices does things
        fd = os.open(path, _OPEN_FLAGS)
    except FileNotFoundError:
        raise UnreadableFile(name, "missing") from None
    except OSError as error:
        raise UnreadableFile(name, f"could not be opened ({error.strerror or error})") from None
    try:
        _check_kept_file(name, os.fstat(fd), limit)  # what was opened, in case the path changed meanwhile
        chunks = bytearray()
        while len(chunks) <= limit and (chunk := os.read(fd, min(limit + 1 - len(chunks), 2**22))):
            chunks += chunk
    except OSError as error:
        raise UnreadableFile(name, f"could not be read ({error.strerror or error})") from None
    finally:
        os.close(fd)
    if len(chunks) > limit:
        raise UnreadableFile(name, f"over the {_size(limit)} it may have")
    return bytes(chunks)


_syncer: ThreadPoolExecutor | None = None  # one worker: syncs happen in the order lines were written
_syncer_lock = threading.Lock()


def _on_worker(work: Callable[..., None], *args: Any) -> Future[None]:
    """``work(*args)`` on the journal's worker thread (plain paths, text and numbers only), after
    everything handed to it before."""
    global _syncer
    with _syncer_lock:
        if _syncer is None:
            _syncer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="lnl-journal-sync")
    return _syncer.submit(work, *args)


def _sync_later(fd: int) -> Future[None]:
    """``os.fsync(fd)`` on the journal's worker thread."""
    return _on_worker(os.fsync, fd)


def _write_checkpoint(base: Path, text: str, meta: Path, meta_text: str, stale: list[Path]) -> None:
    """The worker's part of a checkpoint: its base, then the meta naming it, each whole on the disk
    before the next, then the files the new meta no longer names."""
    storage.write_text_atomic(base, text)
    storage.write_text_atomic(meta, meta_text)
    _remove(stale)


def _sync_generation(base: Path, meta: Path, stale: list[Path]) -> None:
    """The worker's part of a new chain's first generation, written (not synced) by the GUI thread."""
    storage.sync_file(base)
    storage.sync_file(meta)
    _remove(stale)  # only once the new generation is on the disk: a power cut keeps one whole chain


def _finish_journal(handle: IO[bytes]) -> None:
    """The worker's: the disk's wait for a journal's last lines, then its close (after every sync of
    it handed over before, on the one worker: never a sync of a closed descriptor)."""
    try:
        with contextlib.suppress(OSError):
            os.fsync(handle.fileno())
    finally:
        with contextlib.suppress(OSError):
            handle.close()


def _remove(paths: list[Path]) -> None:
    for path in paths:
        path.unlink(missing_ok=True)


ACTION_TYPES: dict[str, type] = {cls.__name__: cls for cls in act.Action.__args__}  # type: ignore[attr-defined]


def _type_name(cls: type) -> str:
    """The engine's own actions by their name; a ruleset's by module and name, so two can never mix."""
    return cls.__name__ if ACTION_TYPES.get(cls.__name__) is cls else f"{cls.__module__}:{cls.__qualname__}"


def _ruleset_action(name: str) -> type | None:
    """An action a ruleset of its own brings (a plug-in's), by ``module:name``."""
    from lnl_desktop.core.rules.registry import all_rulesets

    for ruleset in all_rulesets().values():
        for cls in ruleset.actions.handlers:
            # A bare name is an action the engine once held itself (Attack, Parry...).
            if _type_name(cls) == name or (":" not in name and cls.__name__ == name):
                return cls
    return None


@cache
def _adapter(cls: type) -> TypeAdapter[Any]:
    return TypeAdapter(act.LOADED_AS.get(cls, cls))  # an older journal's fields, where they moved


def action_to_json(action: act.Action) -> dict[str, Any]:
    """An action as a JSON object: its type's name and its fields."""
    fields = {f.name: to_jsonable_python(getattr(action, f.name)) for f in dataclasses.fields(action)}
    return {"type": _type_name(type(action)), **fields}


def action_from_json(data: dict[str, Any]) -> act.Action:
    """The action :func:`action_to_json` wrote; ``RulesError`` if it is not one."""
    fields = dict(data)
    name = str(fields.pop("type", ""))
    cls = ACTION_TYPES.get(name) or (_ruleset_action(name) if name else None)
    if cls is None:
        raise RulesError(f"journal: unknown action {data.get('type')!r}")
    try:
        return _adapter(cls).validate_python(fields)
    except ValidationError as error:
        raise RulesError(f"journal: a {cls.__name__} that cannot be read: {error.errors()[0]['msg']}") from None


def _immutable(value: Any) -> bool:
    """Whether a part of the encounter is never changed in place (edits replace it): a string or number,
    a frozen model (the map, a light) or a tuple of them (the drawings, the templates)."""
    if value is None or isinstance(value, str | int | float):
        return True
    if isinstance(value, BaseModel):
        return bool(type(value).model_config.get("frozen"))
    return isinstance(value, tuple) and all(map(_immutable, value))


class _BaseText:
    """An encounter as :func:`storage.dumps` writes it, with the text of what does not change kept.

    A part never changed in place (the map, the name, the drawings...: :func:`_immutable`) keeps its
    text for as long as the encounter holds that very object: a snapshot of a big map serialises the
    combatants, the tokens and the combat state, not the map's thousands of walls again. Events are
    frozen and the log only grows, or is cut back by an undo: the texts of the live events are kept by
    event, and reused for as long as the event is in the log's live tail. The sealed events' text is
    the log's own (:meth:`LogBook.chunk_texts`): nothing kept here."""

    def __init__(self) -> None:
        self._texts: dict[int, tuple[Event, str]] = {}  # id -> the event (keeping the id its own), its text
        self._parts: dict[str, tuple[Any, str]] = {}  # field -> its value (keeping the id its own), its text

    def __call__(self, encounter: Encounter) -> str:
        names = list(type(encounter).model_fields)
        if names[-1:] != ["log"]:
            return storage.dumps(encounter)  # the log is not last: the whole text, the slow way
        log = encounter.log
        sealed = [text() for _, text in log.chunk_texts()] if isinstance(log, LogBook) else []
        live = log.live if isinstance(log, LogBook) else list(log)
        kept, texts = self._texts, {}
        for event in live:
            held = kept.get(id(event))
            texts[id(event)] = held if held is not None and held[0] is event else (event, file_text(event))
        self._texts = texts
        state = "{" + ",".join(self._part(encounter, name) for name in names[:-1])
        items = [*sealed, *(texts[id(event)][1] for event in live)]
        listed = "[\n   " + ",\n   ".join(items) + "\n  ]" if items else "[]"
        head = f'{{\n "format": {json.dumps(storage.FORMAT)},\n "version": {storage.VERSION},\n "encounter": '
        return head + state + ',\n  "log": ' + listed + "\n }\n}"

    def _part(self, encounter: Encounter, name: str) -> str:
        """One field's ``"name": value`` as the encounter's own serializer writes it, one level down
        (inside "encounter"), with the newline before it."""
        value = encounter.__dict__[name]
        held = self._parts.get(name)
        if held is not None and held[0] is value:
            return held[1]
        # pydantic's own JSON (written in Rust) of the encounter with just this field: '{\n "name": ...\n}'.
        alone = encounter.model_dump_json(indent=1, include={name})
        text = ("\n" + alone[2:-2]).replace("\n", "\n ")
        if _immutable(value):
            self._parts[name] = (value, text)
        else:
            self._parts.pop(name, None)
        return text


@dataclass(frozen=True)
class Step:
    """One journal line read back: an action with every face it used ("apply", "redo"), an
    "undo", or a whole encounter ("state": an undo reaching back before the chain began)."""

    kind: str
    action: act.Action | None = None
    faces: tuple[int, ...] = ()
    encounter: Encounter | None = None


@dataclass
class Recovered:
    """Work found in a recovery folder."""

    encounter: Encounter | None  # None: nothing could be rebuilt (``problem`` says why)
    original: Path | None  # the file the work belonged to, if it had one
    saved_at: float  # when the last change was written, seconds since the epoch
    changes: int  # journal lines replayed onto the start
    problem: str = ""  # what could not be recovered, if anything
    # The encounter the steps start from: replaying ``steps`` onto it (through an undo stack)
    # gives back ``encounter`` with its Undo history. None: only the encounter, no history.
    start: Encounter | None = None
    steps: list[Step] = field(default_factory=list)
    unread: list[str] = field(default_factory=list)  # the files that could not be read
    reasons: dict[str, str] = field(default_factory=dict)  # why, for those it is known of: "a pipe (FIFO)..."

    def damage(self) -> str:
        """Which files could not be read, each with its reason where it is known."""
        return _unread_words(self.unread, self.reasons)

    @property
    def summary(self) -> str:
        where = self.original.name if self.original else "an unsaved encounter"
        if self.encounter is None:
            return where
        return f"{self.encounter.name} ({where})"


class Journal:
    """One window's recovery folder (see the module docstring)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.generation = 0
        self.root = 0  # the generation whose base the chain's journals start from
        self.original: Path | None = None
        self._base_text = ""
        # The state a generation starts from, kept as a copy until its text is needed (see reset).
        self._base_pending: Encounter | None = None
        self._written = False  # whether this generation is on disk yet
        self._handle: IO[bytes] | None = None
        self._synced: Future[None] | None = None  # the sync of the last line written
        # The worker's writing or syncing of generations not known to be done, and what it could not
        # write (said at the next change: the table goes on, the GM is told to save).
        self._generations: list[Future[None]] = []
        self._failed: OSError | None = None
        self._to_sync: tuple[Path, Path, list[Path]] | None = None  # a new chain's files, not synced yet
        self._unsynced = False  # lines written that no sync has been asked for yet
        # A window hands the wait for the disk off once its frame is drawn (sync_later), so the worker
        # never wakes in the middle of one; anyone else has it handed off at each line.
        self.hand_off_later = False
        self._base_of = _BaseText()
        # The next chain's first base, journal and meta, written at an idle moment under names recovery
        # never reads ("ready-base-G.lnl"): each with the very text it holds and its file's identity then.
        self._ready: dict[Path, tuple[str, tuple[int, int, int]]] = {}
        # Actions applied (and not undone) in this generation: an undo of one of them is replayed
        # as an undo; an undo reaching further back is written as the whole encounter.
        self._depth = 0

    # -- writing -----------------------------------------------------------------------------

    def reset(self, encounter: Encounter, original: Path | None, *, unsaved: bool, checkpoint: bool = False) -> None:
        """Start a new generation from ``encounter``.

        ``unsaved``: the encounter differs from its file (a periodic snapshot, recovered work),
        so it is written now; otherwise (just opened or saved) nothing is on disk to lose and
        the folder is emptied until the next change. ``checkpoint``: the periodic snapshot of
        the same history, which continues the chain (its journals are kept for the Undo history).
        """
        chained = checkpoint and unsaved and self._written
        if not chained:
            self._close_handle()  # a checkpoint hands its journal's close to the worker: no wait here
        self.original = original
        self._base_pending = None
        if unsaved:
            self._base_text = self._base_of(encounter)
        else:
            self._keep_base(encounter)
        if not chained:
            self._depth = 0
        self._written = False
        if unsaved:
            self._write_generation(chained=chained)
            self._hand_off_generation()  # not in the middle of a frame: a timer's or the GM's command
            self._raise_failed()
        else:
            self._remove_files()

    def _keep_base(self, encounter: Encounter) -> None:
        """Nothing is written until the next change: the state is kept as it is now (a copy sharing the
        immutable map and the frozen log events) and its text made then, or at an idle moment
        (:meth:`prepare`). The first text ever made builds pydantic's serializer (a tenth of a second):
        off the first window's start."""
        copy = encounter.copy_without_log()
        log = encounter.log
        kept = log.copy() if isinstance(log, LogBook) else list(log)  # a book's copy shares its sealed chunks
        self._base_pending = type(copy).model_construct(**{**copy.__dict__, "log": kept})

    def prepare(self) -> None:
        """Make the kept state's text now (an idle moment), not at the GM's next change, and write it
        to the disk as the next chain's first base (its journal and meta too), for that change to rename."""
        if self._make_text():
            self._write_ready()

    def _make_text(self) -> bool:
        pending, self._base_pending = self._base_pending, None
        if pending is not None:
            self._base_text = self._base_of(pending)
        return pending is not None

    def _write_ready(self) -> None:
        number = self.generation + 1
        targets = (self._base_path(number), self._journal_path(number), self.folder / META)
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            for target, text in zip(targets, (self._base_text, "", self._meta(number, number)), strict=True):
                ready = self.folder / f"ready-{target.name}"  # never a base, a journal or the meta to recover
                storage.write_text_atomic(ready, text, sync=False)
                self._ready[ready] = (text, _identity(ready))
        except OSError:
            pass  # what is not written now, the first change writes (and says so if it cannot either)

    def _meta(self, generation: int, root: int) -> str:
        original = str(self.original) if self.original else None
        return json.dumps({"generation": generation, "root": root, "original": original})

    def record(self, step: HistoryStep, encounter: Encounter) -> None:
        """Append one change and flush it to the disk (``encounter`` is the state after it)."""
        # An imported map's hundred thousand lines make as many dicts: no cycle collection meanwhile.
        with gc_paused():
            self._record(step, encounter)

    def _record(self, step: HistoryStep, encounter: Encounter) -> None:
        if step.kind == "undo":
            if self._depth > 0:
                self._depth -= 1
                line: dict[str, Any] = {"step": "undo"}
            else:
                line = {"step": "state", "encounter": storage.to_document(encounter)}
        else:
            assert step.action is not None
            self._depth += 1
            line = {"step": step.kind, "action": action_to_json(step.action), "faces": list(step.faces)}
        if not self._written:
            self._write_generation()
        assert self._handle is not None
        self._handle.write(json.dumps(line, ensure_ascii=False).encode("utf-8") + b"\n")
        self._handle.flush()
        # With the OS now: a kill of the program loses nothing. The wait for the disk (1-2 ms a
        # change, far more on a busy disk) is a worker's, not the GUI thread's before every frame.
        self._unsynced = True
        if not self.hand_off_later:
            self.sync_later()
        self._raise_failed()  # the line is written: only an earlier generation's disk trouble is said

    def sync_later(self) -> None:
        """Hand the wait for the disk of every line written so far to the journal's worker: one call,
        whatever the number of lines (a window calls it once its screen is drawn: a worker woken
        mid-frame takes the interpreter lock from the frame)."""
        self._hand_off_generation()
        if self._unsynced and self._handle is not None:
            self._unsynced = False
            self._synced = _sync_later(self._handle.fileno())

    def _hand_off_generation(self) -> None:
        if self._to_sync is not None:
            base, meta, stale = self._to_sync
            self._to_sync = None
            self._generations.append(_on_worker(_sync_generation, base, meta, stale))

    def wait_synced(self) -> None:
        """Until the disk holds every line and generation written so far (a worker writes and syncs them)."""
        self.sync_later()
        for done in self._generations:
            done.exception()  # waits; what it raised is read by _look_back
        self._look_back()
        synced, self._synced = self._synced, None
        if synced is not None:
            with contextlib.suppress(OSError):
                synced.result()

    def _look_back(self) -> None:
        """Forget the worker's finished generations, keeping what one could not write."""
        running = []
        for done in self._generations:
            if not done.done():
                running.append(done)
            elif isinstance(error := done.exception(), OSError):
                self._failed = error
            elif error is not None:
                raise error
        self._generations = running

    def _raise_failed(self) -> None:
        self._look_back()
        failed, self._failed = self._failed, None
        if failed is not None:
            raise failed

    def close(self, *, keep: bool = False) -> None:
        """Stop writing; unless ``keep``, remove the files (a clean close leaves nothing to recover)."""
        self._close_handle()
        if not keep:
            self._remove_files()

    def _write_generation(self, *, chained: bool = False) -> None:
        if chained:
            # The worker syncs and closes the journal after the lines handed to it: no wait for the disk.
            handle, self._handle = self._handle, None
            self._unsynced, self._synced = False, None
            if handle is not None:
                _on_worker(_finish_journal, handle)
        else:
            self._close_handle()
        old, old_root = self.generation, self.root
        self.generation = old + 1
        if not chained:
            self.root = self.generation
        self.folder.mkdir(parents=True, exist_ok=True)
        self._make_text()
        base, meta = self._base_path(self.generation), self.folder / META
        meta_text = self._meta(self.generation, self.root)
        # What the new meta no longer names: the last checkpoint's base, or the whole old chain.
        stale = [self._base_path(old)] if old != self.root else []
        if not chained:
            for number in range(old_root, old + 1):
                stale += [self._base_path(number), self._journal_path(number)]
        if chained:
            # The chain's journals already give this state back (recover reads on past the meta's
            # generation): the checkpoint's base and meta are the worker's to write, the disk's wait too.
            self._handle = open(self._journal_path(self.generation), "wb")  # noqa: SIM115 - kept open to append
            self._generations.append(_on_worker(_write_checkpoint, base, self._base_text, meta, meta_text, stale))
        else:
            # A new chain's first base must be with the system before its first line: the text written
            # at an idle moment renamed into place, or written here (a kill loses nothing); the waits
            # for the disk handed to the worker with the line's.
            if not self._put_ready(base, self._base_text):
                storage.write_text_atomic(base, self._base_text, sync=False)
            self._put_ready(journal := self._journal_path(self.generation), "")  # renaming it is cheaper than making it
            self._handle = open(journal, "wb")  # noqa: SIM115 - kept open to append
            if not self._put_ready(meta, meta_text):
                storage.write_text_atomic(meta, meta_text, sync=False)
            with contextlib.suppress(OSError):
                _remove(list(self._ready))  # another state's, or another generation's: never used
            self._ready.clear()
            self._to_sync = (base, meta, stale)
        self._written = True

    def _put_ready(self, target: Path, text: str) -> bool:
        """Rename the file written at an idle moment into ``target``, if it holds this text, unchanged since."""
        ready = self.folder / f"ready-{target.name}"
        made = self._ready.get(ready)  # what is left is another state's or generation's: removed unused
        with contextlib.suppress(OSError):  # gone or changed on the disk: the text is written instead
            if made is not None and made[0] == text and _identity(ready) == made[1]:
                os.replace(ready, target)
                del self._ready[ready]
                return True
        return False

    def _base_path(self, generation: int) -> Path:
        return self.folder / f"base-{generation}.lnl"

    def _journal_path(self, generation: int) -> Path:
        return self.folder / f"journal-{generation}.jsonl"

    def _close_handle(self) -> None:
        self.wait_synced()  # never a sync of a closed (or reused) descriptor
        if self._handle is not None:
            with contextlib.suppress(OSError):
                self._handle.close()
            self._handle = None

    def _remove_files(self) -> None:
        self.wait_synced()  # nothing of the worker's lands in the folder after it is emptied
        self._written = False
        self._ready.clear()  # their files go with the others
        if not self.folder.exists():
            return
        for path in self.folder.iterdir():
            if path.name == META or path.suffix in (".lnl", ".jsonl") or path.name.startswith("ready-"):
                path.unlink(missing_ok=True)


def _identity(path: Path) -> tuple[int, int, int]:
    """Which file is at ``path`` and whether it changed: another file, or one rewritten, is another identity."""
    info = os.stat(path)
    return info.st_ino, info.st_size, info.st_mtime_ns


def _numbered(folder: Path, prefix: str, suffix: str) -> dict[int, Path]:
    found: dict[int, Path] = {}
    for path in folder.glob(f"{prefix}*{suffix}"):
        number = path.name.removeprefix(prefix).removesuffix(suffix)
        if number.isdigit():
            found[int(number)] = path
    return found


@dataclass
class _Attempt:
    """One way of rebuilding the work: a start, and the journals replayed onto it."""

    encounter: Encounter
    start: Encounter
    steps: list[Step]
    reached: int  # the generation the replay got to
    problem: str  # empty: every journal replayed to its end
    unread: str  # the file that stopped the replay, if one did
    source: str  # "chain" (the first base), "checkpoint" (the newest base) or "file" (the saved file)
    reasons: dict[str, str] = field(default_factory=dict)  # why a file could not be read, where known


def recover(folder: Path) -> Recovered | None:
    """The work kept in a recovery folder, or None when nothing was written there.

    Reads ``meta.json`` for the chain (its first generation and the current one); if it is missing
    or unreadable, the files in the folder say it instead. Every journal of the chain is replayed
    onto the chain's first base with the recorded faces, so the Undo history comes back too. When a
    part is damaged, what can be rebuilt is: the newest checkpoint and its journal, or the journals
    replayed on the saved file the meta names; ``unread`` lists what could not be read.
    """
    unread: list[str] = []
    reasons: dict[str, str] = {}
    meta: dict[str, Any] = {}
    if os.path.lexists(folder / META):
        try:
            loaded = json.loads(read_kept_file(folder / META, MAX_META_BYTES).decode("utf-8"))
        except UnreadableFile as error:
            loaded, reasons[META] = None, error.reason
        except ValueError:  # not JSON, or not UTF-8
            loaded = None
        if isinstance(loaded, dict):
            meta = loaded
        else:
            unread.append(META)
    bases = _numbered(folder, "base-", ".lnl")
    journals = _numbered(folder, "journal-", ".jsonl")
    numbers = sorted(set(bases) | set(journals))
    if not numbers:
        return None  # nothing changed since the last open or save
    generation = meta.get("generation")
    if type(generation) is not int or generation not in numbers:
        generation = numbers[-1]
    while generation + 1 in journals:
        generation += 1  # a checkpoint whose meta the worker had not written yet: its journal continues the chain
    root = meta.get("root", generation if meta else None)  # a meta without a root: one generation
    if type(root) is not int or not numbers[0] <= root <= generation:
        root = min(n for n in numbers if n <= generation)
    original = meta.get("original")
    original = Path(original) if isinstance(original, str) and original else None
    last = journals.get(generation) or bases.get(generation)
    saved_at = _changed_at(last) if last is not None else 0.0

    # The chain from its first base: the encounter and its whole Undo history.
    attempts: list[_Attempt] = []
    first = bases.get(root, folder / f"base-{root}.lnl")
    start = _load(first, unread, reasons)
    if start is not None:
        attempts.append(_replay_chain(start, journals, root, generation, "chain"))
    if not _complete(attempts) and generation != root and generation in bases:
        # The newest checkpoint: the encounter as last shown, its history only since then.
        start = _load(bases[generation], unread, reasons)
        if start is not None:
            attempts.append(_replay_chain(start, journals, generation, generation, "checkpoint"))
    if not _complete(attempts) and first.name in unread and original is not None:
        # The first base is damaged: the journals replayed on the saved file the chain began as.
        with contextlib.suppress(storage.EncounterFileError):
            attempts.append(_replay_chain(storage.load(original), journals, root, generation, "file"))
    unread += [a.unread for a in attempts if a.unread and a.unread not in unread]
    for attempt in attempts:
        reasons.update(attempt.reasons)
    if not attempts:
        problem = f"{_unread_words(unread, reasons)}, and there is no saved file to replay the changes on"
        return Recovered(None, original, saved_at, 0, problem, unread=unread, reasons=reasons)
    best = max(attempts, key=lambda a: (not a.problem, a.reached, len(a.steps)))
    problems = []
    if best.source == "checkpoint":
        chain = attempts[0].problem if attempts[0].source == "chain" else ""
        lost = chain or _unread_words([first.name], reasons)
        problems.append(f"{lost}: Undo reaches back only to the last automatic copy")
    elif best.source == "file" and original is not None:
        problems.append(
            f"{_unread_words([first.name], reasons)}: the changes were replayed on the saved {original.name}"
        )
    if best.problem:
        problems.append(best.problem)
    if META in unread:
        problems.append(f"{_unread_words([META], reasons)}: the file this work belongs to is not known")
    return Recovered(
        best.encounter,
        original,
        saved_at,
        len(best.steps),
        "; ".join(problems),
        best.start,
        best.steps,
        unread,
        reasons,
    )


def _unread_words(names: list[str], reasons: dict[str, str]) -> str:
    """ "base-1.lnl could not be read (a pipe (FIFO), not a regular file)" for each name, the reason where known."""
    return "; ".join(f"{name} could not be read" + (f" ({reasons[name]})" if name in reasons else "") for name in names)


def _changed_at(path: Path) -> float:
    """When a file was last written (the link's own time for a link to nothing)."""
    for look in (os.stat, os.lstat):
        with contextlib.suppress(OSError):
            return look(path).st_mtime
    return 0.0


def _load(path: Path, unread: list[str], reasons: dict[str, str]) -> Encounter | None:
    """A base, or None with its name added to ``unread`` and the reason to ``reasons``."""
    try:
        return storage.load(path)  # a regular file only, opened non-blocking, its size limited
    except storage.EncounterFileError as error:
        unread.append(path.name)
        reasons[path.name] = _reason(path.name, str(error).splitlines()[0])
        return None


def _reason(name: str, said: str) -> str:
    """storage's words about a file, without its name: "base-1.lnl is a pipe (FIFO), ..." -> "a pipe (FIFO), ..."."""
    rest = said.removeprefix(name).lstrip(":").strip()
    for lead in ("is ", "could not be read: "):
        rest = rest.removeprefix(lead)
    return rest or said


def _complete(attempts: list[_Attempt]) -> bool:
    return any(not a.problem for a in attempts)


def _replay_chain(start: Encounter, journals: dict[int, Path], first: int, last: int, source: str) -> _Attempt:
    """Replay journals ``first``..``last`` onto ``start``, stopping at the first that cannot be."""
    engine = Engine(start.model_copy(deep=True))  # the engine changes it in place: ``start`` stays the start
    steps: list[Step] = []
    for number in range(first, last + 1):
        path = journals.get(number)
        if path is None:
            name = f"journal-{number}.jsonl"
            return _Attempt(engine.encounter, start, steps, number, f"{name} is missing", name, source)
        try:
            read, problem = _replay_file(engine, path, torn_allowed=number == last)
        except UnreadableFile as error:
            problem = f"{path.name} could not be read ({error.reason})"
            return _Attempt(
                engine.encounter, start, steps, number, problem, path.name, source, {path.name: error.reason}
            )
        steps += read
        if problem:
            return _Attempt(engine.encounter, start, steps, number, problem, path.name, source)
    return _Attempt(engine.encounter, start, steps, last + 1, "", "", source)


def read_step(raw: bytes) -> Step:
    """A journal line as a step; ``ValueError`` (json's) if it is not JSON, ``RulesError`` or
    ``KeyError``/``TypeError`` if it is not a step."""
    line = json.loads(raw)
    kind = line["step"]
    if kind == "undo":
        return Step("undo")
    if kind == "state":
        return Step("state", encounter=storage.loads(json.dumps(line["encounter"]), "journal"))
    if kind not in ("apply", "redo"):
        raise RulesError(f"unknown step {kind!r}")
    return Step(kind, action_from_json(line["action"]), tuple(int(face) for face in line["faces"]))


def apply_step(engine: Engine, step: Step) -> None:
    """Replay one step onto ``engine``, with the faces it was rolled with."""
    if step.kind == "undo":
        engine.undo()
    elif step.kind == "state":
        assert step.encounter is not None
        engine.replace(step.encounter)
    else:
        assert step.action is not None
        engine.apply(step.action, ScriptedDice(list(step.faces)))


def _replay_file(engine: Engine, journal: Path, *, torn_allowed: bool = True) -> tuple[list[Step], str]:
    """The steps of one journal replayed onto ``engine``, and why it stopped early ("" if it did not);
    :class:`UnreadableFile` when the journal is not a file that can be read."""
    lines = read_kept_file(journal, MAX_JOURNAL_BYTES).split(b"\n")
    entries = [raw for raw in lines if raw.strip()]
    steps: list[Step] = []
    for number, raw in enumerate(entries, 1):
        try:
            json.loads(raw)
        except ValueError:
            if number == len(entries) and torn_allowed:
                break  # torn by a kill in the middle of the write: nothing was shown of it
            return steps, f"line {number} of the journal is not readable"
        try:
            step = read_step(raw)
            apply_step(engine, step)
        except (ValueError, KeyError, TypeError) as error:
            return steps, f"change {number} of the journal could not be replayed: {error}"
        steps.append(step)
    return steps, ""


def replay(engine: Engine, journal: Path) -> tuple[int, str]:
    """Apply a journal's lines to ``engine``; how many went through, and why it stopped if early."""
    try:
        steps, problem = _replay_file(engine, journal)
    except UnreadableFile as error:
        return 0, f"{journal.name} could not be read ({error.reason})"
    return len(steps), problem
