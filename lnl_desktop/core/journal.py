"""The recovery journal: every change of an open encounter, on disk before the screen shows it.

A window's recovery folder holds a *generation*: ``base-G.lnl`` (the encounter at some moment)
and ``journal-G.jsonl`` (one line per change since: the action with every die face it used, or
an undo). ``meta.json`` names the current generation and the file the work belongs to. A line is
written and flushed to the disk before the engine's listeners (and so the screen) hear of the
change, so a kill at any moment loses nothing the GM has seen (the disk's own wait, ``fsync``, is
a worker thread's: written, the line survives the program's death; only a power cut in the
millisecond or two before the worker is done could cost that last change). Replaying the lines onto the base
with the same faces gives back the very same encounter.

A new generation (the whole encounter as the base, an empty journal) starts when the document is
opened, saved, or every few seconds while changes go on, so a replay stays short. The round log's
events never change once logged, so each is turned into text once and kept for the next bases: a
long fight's base costs the state and a join, not the whole log again. The base and
``meta.json`` are written atomically, and ``meta.json`` last: a kill between two writes leaves the
previous generation whole. A torn last line (a kill in the middle of a write) is skipped.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import IO, Any

from pydantic import TypeAdapter, ValidationError
from pydantic_core import to_jsonable_python

from lnl_desktop.core import actions as act
from lnl_desktop.core import storage
from lnl_desktop.core.dice import ScriptedDice
from lnl_desktop.core.engine import Engine, HistoryStep
from lnl_desktop.core.errors import RulesError
from lnl_desktop.core.events import Event
from lnl_desktop.core.model import Encounter, gc_paused

META = "meta.json"

_syncer: ThreadPoolExecutor | None = None  # one worker: syncs happen in the order lines were written
_syncer_lock = threading.Lock()


def _sync_later(fd: int) -> Future[None]:
    """``os.fsync(fd)`` on the journal's worker thread."""
    global _syncer
    with _syncer_lock:
        if _syncer is None:
            _syncer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="lnl-journal-sync")
    return _syncer.submit(os.fsync, fd)


ACTION_TYPES: dict[str, type] = {cls.__name__: cls for cls in act.Action.__args__}  # type: ignore[attr-defined]


def _type_name(cls: type) -> str:
    """The engine's own actions by their name; a ruleset's by module and name, so two can never mix."""
    return cls.__name__ if ACTION_TYPES.get(cls.__name__) is cls else f"{cls.__module__}:{cls.__qualname__}"


def _ruleset_action(name: str) -> type | None:
    """An action a ruleset of its own brings (a plug-in's), by ``module:name``."""
    from lnl_desktop.core.rules import all_rulesets

    for ruleset in all_rulesets().values():
        for cls in ruleset.handlers:
            if _type_name(cls) == name:
                return cls
    return None


@cache
def _adapter(cls: type) -> TypeAdapter[Any]:
    return TypeAdapter(cls)


def action_to_json(action: act.Action) -> dict[str, Any]:
    """An action as a JSON object: its type's name and its fields."""
    fields = {f.name: to_jsonable_python(getattr(action, f.name)) for f in dataclasses.fields(action)}
    return {"type": _type_name(type(action)), **fields}


def action_from_json(data: dict[str, Any]) -> act.Action:
    """The action :func:`action_to_json` wrote; ``RulesError`` if it is not one."""
    fields = dict(data)
    name = str(fields.pop("type", ""))
    cls = ACTION_TYPES.get(name) or (_ruleset_action(name) if ":" in name else None)
    if cls is None:
        raise RulesError(f"journal: unknown action {data.get('type')!r}")
    try:
        return _adapter(cls).validate_python(fields)
    except ValidationError as error:
        raise RulesError(f"journal: a {cls.__name__} that cannot be read: {error.errors()[0]['msg']}") from None


class _BaseText:
    """An encounter as :func:`storage.dumps` writes it, with each log event's text kept for the next time.

    Events are frozen and the log only grows, or is cut back by an undo: the texts are kept for the
    log as it was, and reused for as long as the log starts with the same events."""

    def __init__(self) -> None:
        self._events: list[Event] = []
        self._texts: list[str] = []

    def __call__(self, encounter: Encounter) -> str:
        if list(type(encounter).model_fields)[-1:] != ["log"]:
            return storage.dumps(encounter)  # the log is not last: the whole text, the slow way
        log = encounter.log
        events, texts = self._events, self._texts
        same = 0
        for kept, event in zip(events, log, strict=False):  # the log may have grown or been cut back
            if kept is not event:
                break
            same += 1
        del events[same:], texts[same:]
        for event in log[same:]:
            events.append(event)
            # The event as it sits in the file: an item of encounter.log, three levels down.
            texts.append(event.model_dump_json(indent=1).replace("\n", "\n   "))
        # pydantic's own JSON (written in Rust) is json.dumps' text, several times sooner: the state
        # one level down (inside "encounter"), its closing brace taken off for the log to follow.
        state = encounter.model_dump_json(indent=1, exclude={"log"}).removesuffix("\n}").replace("\n", "\n ")
        listed = "[\n   " + ",\n   ".join(texts) + "\n  ]" if texts else "[]"
        head = f'{{\n "format": {json.dumps(storage.FORMAT)},\n "version": {storage.VERSION},\n "encounter": '
        return head + state + ',\n  "log": ' + listed + "\n }\n}"


@dataclass
class Recovered:
    """Work found in a recovery folder."""

    encounter: Encounter
    original: Path | None  # the file the work belonged to, if it had one
    saved_at: float  # when the last change was written, seconds since the epoch
    changes: int  # journal lines replayed onto the base
    problem: str = ""  # why the replay stopped early, if it did

    @property
    def summary(self) -> str:
        where = self.original.name if self.original else "an unsaved encounter"
        return f"{self.encounter.name} ({where})"


class Journal:
    """One window's recovery folder (see the module docstring)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.generation = 0
        self.original: Path | None = None
        self._base_text = ""
        self._written = False  # whether this generation is on disk yet
        self._handle: IO[bytes] | None = None
        self._synced: Future[None] | None = None  # the sync of the last line written
        self._base_of = _BaseText()
        # Actions applied (and not undone) in this generation: an undo of one of them is replayed
        # as an undo; an undo reaching further back is written as the whole encounter.
        self._depth = 0

    # -- writing -----------------------------------------------------------------------------

    def reset(self, encounter: Encounter, original: Path | None, *, unsaved: bool) -> None:
        """Start a new generation from ``encounter``.

        ``unsaved``: the encounter differs from its file (a periodic snapshot, recovered work),
        so it is written now; otherwise (just opened or saved) nothing is on disk to lose and
        the folder is emptied until the next change.
        """
        self._close_handle()
        self.original = original
        self._base_text = self._base_of(encounter)
        self._depth = 0
        self._written = False
        if unsaved:
            self._write_generation()
        else:
            self._remove_files()

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
        self._synced = _sync_later(self._handle.fileno())

    def wait_synced(self) -> None:
        """Until the disk holds every line written so far (a worker syncs them)."""
        synced, self._synced = self._synced, None
        if synced is not None:
            with contextlib.suppress(OSError):
                synced.result()

    def close(self, *, keep: bool = False) -> None:
        """Stop writing; unless ``keep``, remove the files (a clean close leaves nothing to recover)."""
        self._close_handle()
        if not keep:
            self._remove_files()

    def _write_generation(self) -> None:
        self._close_handle()
        old = self.generation
        self.generation = old + 1
        self.folder.mkdir(parents=True, exist_ok=True)
        storage.write_text_atomic(self._base_path(self.generation), self._base_text)
        self._handle = open(self._journal_path(self.generation), "wb")  # noqa: SIM115 - kept open to append
        meta = {"generation": self.generation, "original": str(self.original) if self.original else None}
        storage.write_text_atomic(self.folder / META, json.dumps(meta))
        self._written = True
        for path in (self._base_path(old), self._journal_path(old)):
            path.unlink(missing_ok=True)

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
        self._written = False
        if not self.folder.exists():
            return
        for path in self.folder.iterdir():
            if path.name == META or path.suffix in (".lnl", ".jsonl"):
                path.unlink(missing_ok=True)


def recover(folder: Path) -> Recovered | None:
    """The work kept in a recovery folder, or None when there is none worth offering.

    Reads ``meta.json`` for the generation; if it is missing or unreadable, the newest base in
    the folder is used instead (a bad side file must not cost the work). The journal is replayed
    with the recorded faces; a line that cannot be replayed stops the replay there and says why.
    """
    meta: dict[str, Any] = {}
    with contextlib.suppress(OSError, ValueError):
        loaded = json.loads((folder / META).read_text(encoding="utf-8"))
        if isinstance(loaded, dict):
            meta = loaded
    generation = meta.get("generation")
    bases = sorted(
        (int(p.stem.removeprefix("base-")) for p in folder.glob("base-*.lnl") if p.stem[5:].isdigit()),
        reverse=True,
    )
    if not isinstance(generation, int) or generation not in bases:
        if not bases:
            return None
        generation = bases[0]
    base = folder / f"base-{generation}.lnl"
    try:
        encounter = storage.load(base)
    except storage.EncounterFileError:
        return None
    journal = folder / f"journal-{generation}.jsonl"
    saved_at = journal.stat().st_mtime if journal.exists() else base.stat().st_mtime
    original = meta.get("original")
    engine = Engine(encounter)
    changes, problem = replay(engine, journal)
    return Recovered(engine.encounter, Path(original) if original else None, saved_at, changes, problem)


def replay(engine: Engine, journal: Path) -> tuple[int, str]:
    """Apply a journal's lines to ``engine``; how many went through, and why it stopped if early."""
    try:
        lines = journal.read_bytes().split(b"\n")
    except OSError:
        return 0, ""
    entries = [raw for raw in lines if raw.strip()]
    done = 0
    for number, raw in enumerate(entries, 1):
        try:
            line = json.loads(raw)
        except ValueError:
            if number == len(entries):
                break  # torn by a kill in the middle of the write: nothing was shown of it
            return done, f"line {number} of the journal is not readable"
        try:
            step = line["step"]
            if step == "undo":
                engine.undo()
            elif step == "state":
                engine.encounter = storage.loads(json.dumps(line["encounter"]), "journal")
                engine.clear_history()
            else:
                engine.apply(action_from_json(line["action"]), ScriptedDice(list(line["faces"])))
        except (ValueError, KeyError, TypeError) as error:
            return done, f"change {number} of the journal could not be replayed: {error}"
        done += 1
    return done, ""
