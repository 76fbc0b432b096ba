"""The round log's storage: every event of a long fight, the old ones kept compact.

The log keeps every event for good (the GM exports and reads the whole fight), which as live
pydantic models costs about 750 bytes an event: 32 MB over 1,000 rounds of the demo. A
:class:`LogBook` behaves as the list of events it was (length, index, slices, iteration both
ways, ``append``/``extend``, a tail cut back by an undo) but keeps all but its newest events
sealed: chunks of :data:`CHUNK` events, each the events' text as the file writes it, compressed
(about 40 bytes an event). A read of an old event decodes its chunk (a few are kept decoded);
the newest events (at least :data:`LIVE` of them) stay live, so a round's readers and an undo
touch no chunk. A chunk read back gives events equal to the ones sealed: the file's text is
what the encounter read back from its file holds.

The encounter's ``log`` field (:func:`log_of`) validates and serialises as the list of events it
always was: the file format and the JSON Schema are unchanged.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import lru_cache
from itertools import chain
from typing import Annotated, Any, Generic, SupportsIndex, TypeVar, Union, overload

from pydantic import BaseModel, Field, GetCoreSchemaHandler, TypeAdapter
from pydantic_core import core_schema

E = TypeVar("E", bound=BaseModel)

CHUNK = 256  # events sealed together (about six rounds of the demo)
LIVE = 256  # the newest events always kept live: the rounds an undo and the docks reach
DECODED = 4  # chunks kept decoded: a reader going back and forth decodes each once
# Separator of two events in the file (an item of encounter.log, three levels down): see file_text.
_BETWEEN = ",\n   "


def file_text(event: BaseModel) -> str:
    """An event as it sits in a ``.lnl`` file (an item of ``encounter.log``, three levels down):
    what the journal and the sealed chunks keep. pydantic's own JSON (written in Rust) is
    ``json.dumps``' text, several times sooner."""
    return event.model_dump_json(indent=1).replace("\n", "\n   ")


class _Chunk:
    """Sealed events: their file text, compressed, and the classes that read them back."""

    __slots__ = ("classes", "count", "data")

    def __init__(self, events: Sequence[BaseModel]) -> None:
        self.count = len(events)
        # In one order whatever the events' order: chunks of the same kinds read through one adapter.
        self.classes = tuple(sorted({type(e) for e in events}, key=lambda c: (c.__module__, c.__qualname__)))
        self.data = zlib.compress(_BETWEEN.join(map(file_text, events)).encode(), 6)

    def text(self) -> str:
        """The events as the file writes them, joined by the file's separator."""
        return zlib.decompress(self.data).decode()

    def decode(self) -> tuple[BaseModel, ...]:
        """The events again, read as the file is read (JSON, in pydantic's Rust: a few µs an event)."""
        adapter = _reader(self.classes)
        return tuple(adapter.validate_json("[" + self.text() + "]"))

    def dicts(self) -> list[dict[str, Any]]:
        """The events as ``model_dump(mode="json")`` gives them (the file's JSON read back)."""
        items: list[dict[str, Any]] = json.loads("[" + self.text() + "]")
        return items


@lru_cache(maxsize=64)
def _reader(classes: tuple[type[BaseModel], ...]) -> TypeAdapter[list[Any]]:
    """What reads a chunk of events of these classes back (told apart by their ``kind``)."""
    if len(classes) == 1:
        return TypeAdapter(list[classes[0]])  # type: ignore[valid-type]
    return TypeAdapter(list[Annotated[Union[classes], Field(discriminator="kind")]])  # type: ignore[valid-type]  # noqa: UP007


class LogBook(Generic[E]):
    """The round log: a sequence of events, its older events sealed (see the module docstring)."""

    __slots__ = ("__weakref__", "_cache", "_chunks", "_live")

    def __init__(self, events: Iterable[E] = ()) -> None:
        self._chunks: list[_Chunk] = []
        self._live: list[E] = list(events)
        self._cache: dict[int, tuple[E, ...]] = {}
        self._seal()

    # -- the sequence ------------------------------------------------------------------------

    @property
    def sealed(self) -> int:
        """How many of the oldest events are sealed (a multiple of CHUNK)."""
        return len(self._chunks) * CHUNK

    def __len__(self) -> int:
        return len(self._chunks) * CHUNK + len(self._live)

    def __bool__(self) -> bool:
        return bool(self._chunks) or bool(self._live)

    @overload
    def __getitem__(self, index: SupportsIndex) -> E: ...

    @overload
    def __getitem__(self, index: slice) -> list[E]: ...

    def __getitem__(self, index: SupportsIndex | slice) -> E | list[E]:
        sealed = len(self._chunks) * CHUNK
        if isinstance(index, slice):
            start, stop, step = index.indices(sealed + len(self._live))
            if step == 1:
                if start >= sealed:
                    return self._live[start - sealed : stop - sealed]
                return list(self._between(start, stop))
            return [self[i] for i in range(start, stop, step)]
        i = index.__index__()
        if i < 0:
            i += sealed + len(self._live)
        if i >= sealed:
            return self._live[i - sealed]
        if i < 0:
            raise IndexError("log index out of range")
        return self._decoded(i // CHUNK)[i % CHUNK]

    def __iter__(self) -> Iterator[E]:
        # The list's own iterator where nothing is sealed, or for the live events (no Python step each).
        if not self._chunks:
            return iter(self._live)
        return chain(self._sealed(range(len(self._chunks))), self._live)

    def __reversed__(self) -> Iterator[E]:
        # A chunk at a time: a search back that stops early decodes only what it passed. The live events
        # first through the list's own iterator (an action's look back at the last roll is a step or two).
        if not self._chunks:
            return reversed(self._live)
        return chain(reversed(self._live), self._sealed(range(len(self._chunks) - 1, -1, -1), backwards=True))

    def _sealed(self, chunks: Iterable[int], *, backwards: bool = False) -> Iterator[E]:
        for n in chunks:
            yield from reversed(self._decoded(n)) if backwards else self._decoded(n)

    def __contains__(self, event: object) -> bool:
        return any(e == event for e in self)

    def index(self, event: object, start: int = 0) -> int:
        for i in range(start, len(self)):
            if self[i] == event:
                return i
        raise ValueError("the event is not in the log")

    def count(self, event: object) -> int:
        return sum(1 for e in self if e == event)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LogBook):
            if self._chunks == other._chunks:  # copies share their sealed chunks
                return self._live == other._live
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        if isinstance(other, list | tuple):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # changes in place, as the list it stands for

    def __repr__(self) -> str:
        return f"LogBook({len(self)} events, {self.sealed} sealed)"

    # -- changes -----------------------------------------------------------------------------

    def append(self, event: E) -> None:
        self._live.append(event)
        if len(self._live) >= LIVE + CHUNK:
            self._seal()

    def extend(self, events: Iterable[E]) -> None:
        self._live.extend(events)
        if len(self._live) >= LIVE + CHUNK:
            self._seal()

    def __iadd__(self, events: Iterable[E]) -> LogBook[E]:
        self.extend(events)
        return self

    def __delitem__(self, index: SupportsIndex | slice) -> None:
        sealed = len(self._chunks) * CHUNK
        if isinstance(index, slice):
            start, stop, step = index.indices(len(self))
            if step == 1 and stop >= len(self):  # a tail cut back (an undo): the common case
                self._cut(start)
                return
            if step == 1 and start >= sealed:
                del self._live[start - sealed : stop - sealed]
                return
        elif (i := self._live_index(index)) is not None:
            del self._live[i]
            return
        self._rewrite(lambda events: events.__delitem__(index))

    def __setitem__(self, index: Any, value: Any) -> None:
        if not isinstance(index, slice) and (i := self._live_index(index)) is not None:
            self._live[i] = value
            return
        self._rewrite(lambda events: events.__setitem__(index, value))

    def _live_index(self, index: SupportsIndex) -> int | None:
        """Where event ``index`` is in the live list; None for a sealed one (or one out of range)."""
        i, n = index.__index__(), len(self)
        i = i + n if i < 0 else i
        sealed = len(self._chunks) * CHUNK
        return i - sealed if sealed <= i < n else None

    def insert(self, index: SupportsIndex, event: E) -> None:
        self._rewrite(lambda events: events.insert(index, event))

    def pop(self, index: SupportsIndex = -1) -> E:
        event = self[index]
        del self[index]
        return event

    def clear(self) -> None:
        self._chunks, self._live, self._cache = [], [], {}

    def copy(self) -> LogBook[E]:
        """A log of the same events that changes apart: the sealed chunks (immutable) are shared."""
        book: LogBook[E] = LogBook.__new__(LogBook)
        book._chunks, book._live, book._cache = list(self._chunks), list(self._live), dict(self._cache)
        return book

    __copy__ = copy

    def __deepcopy__(self, memo: dict[int, Any]) -> LogBook[E]:
        from copy import deepcopy

        book = self.copy()
        book._live = deepcopy(self._live, memo)
        return book

    def __getstate__(self) -> tuple[list[_Chunk], list[E]]:
        return self._chunks, self._live

    def __setstate__(self, state: tuple[list[_Chunk], list[E]]) -> None:
        self._chunks, self._live = list(state[0]), list(state[1])
        self._cache = {}

    # -- what the file and the journal read --------------------------------------------------

    def chunk_texts(self) -> Iterator[tuple[object, Callable[[], str]]]:
        """Each sealed chunk (its identity: the same object for as long as it is sealed) and a
        function giving its events' file text, joined by the file's separator; the live events
        are read as events (:attr:`live`)."""
        for chunk in self._chunks:
            yield chunk, chunk.text

    @property
    def live(self) -> list[E]:
        """The newest events, the ones not sealed (a copy)."""
        return list(self._live)

    def sealed_json(self) -> list[Any]:
        """The sealed events as ``model_dump(mode="json")`` gives them, straight from their text."""
        items: list[Any] = []
        for chunk in self._chunks:
            items.extend(chunk.dicts())
        return items

    # -- inside ------------------------------------------------------------------------------

    def _decoded(self, n: int) -> tuple[E, ...]:
        cache = self._cache
        events = cache.pop(n, None)
        if events is None:
            events = self._chunks[n].decode()  # type: ignore[assignment]
            if len(cache) >= DECODED:
                del cache[next(iter(cache))]  # the least recently read
        cache[n] = events  # type: ignore[assignment]
        return events  # type: ignore[return-value]

    def _between(self, start: int, stop: int) -> Iterator[E]:
        sealed = len(self._chunks) * CHUNK
        i = start
        while i < min(stop, sealed):
            n, at = divmod(i, CHUNK)
            part = self._decoded(n)[at : min(CHUNK, stop - n * CHUNK)]
            yield from part
            i += len(part)
        if stop > sealed:
            yield from self._live[max(0, start - sealed) : stop - sealed]

    def _seal(self) -> None:
        """Seal the oldest live events a chunk at a time, keeping at least LIVE of them live."""
        live = self._live
        whole = (len(live) - LIVE) // CHUNK
        if whole <= 0:
            return
        self._chunks.extend(_Chunk(live[k * CHUNK : (k + 1) * CHUNK]) for k in range(whole))
        del live[: whole * CHUNK]

    def _cut(self, length: int) -> None:
        """Keep the first ``length`` events: a cut into a sealed chunk opens it (its head goes live)."""
        sealed = len(self._chunks) * CHUNK
        if length >= sealed:
            del self._live[length - sealed :]
            return
        n, at = divmod(length, CHUNK)
        head = list(self._decoded(n)[:at])
        del self._chunks[n:]
        self._cache = {k: v for k, v in self._cache.items() if k < n}
        self._live = head

    def _rewrite(self, change: Callable[[list[E]], object]) -> None:
        """Any other change (never made by the program): the events as a list, changed, sealed again."""
        events = list(self)
        change(events)
        self._chunks, self._live, self._cache = [], events, {}
        self._seal()


# -- the encounter's field ---------------------------------------------------------------------


class _AsLogBook:
    """Marks ``list[event]`` as kept in a :class:`LogBook`: read as that list, then kept in a book;
    written as that list (the file's sealed events straight from their text)."""

    def __get_pydantic_core_schema__(self, source: Any, handler: GetCoreSchemaHandler) -> core_schema.CoreSchema:
        listed = handler(source)

        def validate(events: list[Any]) -> LogBook[Any]:
            return LogBook(events)

        def serialise(value: Any, inner: core_schema.SerializerFunctionWrapHandler, info: Any) -> Any:
            if not isinstance(value, LogBook):
                return inner(value)
            plain = not (info.exclude_defaults or info.exclude_none or info.exclude_unset or info.round_trip)
            if info.mode == "json" and plain and info.include is None and info.exclude is None:
                return value.sealed_json() + inner(value.live)
            return inner(list(value))

        # After the list's own check, which reads a file in JSON mode (a wrap would read it as Python).
        return core_schema.no_info_after_validator_function(
            validate,
            listed,
            serialization=core_schema.wrap_serializer_function_ser_schema(serialise, schema=listed, info_arg=True),
        )


AS_LOG_BOOK = _AsLogBook()


def log_of(event: Any) -> Any:
    """The type of an encounter's ``log`` field holding ``event`` (an event type or a union of
    them): a list of them to pydantic, the file and the schema; a :class:`LogBook` in memory."""
    return Annotated[list[event], AS_LOG_BOOK]
