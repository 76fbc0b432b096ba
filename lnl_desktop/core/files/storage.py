"""Encounter files (``.lnl``): versioned JSON, safe saving, clear messages for bad files.

A file is ``{"format": "lnl-encounter", "version": N, "encounter": {...}}``. Saving writes a
temporary file next to the target and renames it over, so a failed save never leaves half a
file. Loading refuses anything that is not valid and says where it is wrong; older versions
are migrated forward step by step.

A map over the limits :mod:`lnl_desktop.core.encounter.model` states (MAX_MAP_LINES wall segments and doors,
MAX_MAP_SIDE cells a side, a picture of MAX_PICTURE_PIXELS pixels) is refused with the limit named.
A map's many segments (a cave from a map maker, 100,000 of them) are checked in bulk with numpy,
giving the same encounter, or the same message, as checking them one by one. Long lists anywhere in the
file are checked a slice at a time (:mod:`lnl_desktop.core.files.long_lists`).
"""

from __future__ import annotations

import base64
import binascii
import codecs
import json
import math
import os
import re
import stat
import tempfile
import time
from collections.abc import Callable, Sequence
from itertools import accumulate
from pathlib import Path
from typing import Annotated, Any, NoReturn, Union

from pydantic import TypeAdapter, ValidationError

from lnl_desktop.core.encounter.log_book import LogBook
from lnl_desktop.core.encounter.map_model import (
    MAX_PICTURE_PIXELS,
    MapGrid,
    WallSegment,
    gc_paused,
    in_bulk,
    lines_from_json,
    too_long_walls,
    too_many_lines,
)
from lnl_desktop.core.encounter.model import Encounter
from lnl_desktop.core.encounter.validation import MAX_PROBLEMS, capped, problem_lines
from lnl_desktop.core.errors import RulesError
from lnl_desktop.core.files.long_lists import LONG_LIST as LONG_LIST  # the files' tests read it here
from lnl_desktop.core.files.long_lists import TooMany, long_lists_checked, rest_problems
from lnl_desktop.core.rules.registry import DEFAULT_RULESET, get_ruleset

FORMAT = "lnl-encounter"
VERSION = 3
SUFFIX = ".lnl"


def _v1_to_v2(document: dict[str, Any]) -> dict[str, Any]:
    """Version 1 knew one ruleset: every version-1 file is an encounter of the default ruleset, and now says so."""
    encounter = document.get("encounter")
    if isinstance(encounter, dict):
        encounter = dict(encounter)
        ruleset = encounter.setdefault("ruleset", DEFAULT_RULESET)
        if ruleset != DEFAULT_RULESET:
            raise EncounterFileError(f"a version 1 file holds L&L encounters only, not {ruleset!r}")
        document = {**document, "encounter": encounter, "version": 2}
    return document


# version -> function turning a document of that version into the next one.
def _v2_to_v3(document: dict[str, Any]) -> dict[str, Any]:
    """Version 3 added wall segments, doors, an embedded background picture, fog of war and
    portraits, all with defaults: a version-2 encounter reads as it is."""
    return document


MIGRATIONS: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {1: _v1_to_v2, 2: _v2_to_v3}


class EncounterFileError(RulesError):
    """A file that could not be read as an encounter; the message says where and why."""


def to_document(encounter: Encounter) -> dict[str, Any]:
    log = encounter.log
    if isinstance(log, LogBook) and list(type(encounter).model_fields)[-1:] == ["log"]:
        # The sealed events straight from their text: not walked again by pydantic as dicts.
        state = encounter.model_dump(mode="json", exclude={"log"})
        state["log"] = log.sealed_json() + [event.model_dump(mode="json") for event in log.live]
    else:
        state = encounter.model_dump(mode="json")
    return {"format": FORMAT, "version": VERSION, "encounter": state}


def dumps(encounter: Encounter) -> str:
    return json.dumps(to_document(encounter), indent=1, ensure_ascii=False)


# Limits a file must keep before it is parsed: anything past them is not an encounter the program
# wrote, and parsing it anyway would hang, eat the memory or blow the stack.
MAX_FILE_BYTES = 64 * 1024 * 1024
MAX_DEPTH = 64  # an encounter nests about 8 deep (encounter.log[3].faces[0])
MAX_NUMBER_DIGITS = 20  # enough for any 64-bit whole number

_MB = 1024 * 1024
# A JSON string (escapes included); what is left once they are cut out is the structure. An
# unterminated string runs to the end of the text, so a match never fails and the scan stays
# linear (a failing match retried at every later quote would be quadratic); possessive
# quantifiers keep no backtracking state per escape.
_JSON_STRING = re.compile(r'"[^"\\]*+(?:\\.?[^"\\]*+)*+(?:"|\Z)', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_LONG_DIGITS = re.compile(rf"\d{{{MAX_NUMBER_DIGITS + 1},}}")
# Digits as 9, anything else as a space: a run of too many digits is then a plain substring search,
# far quicker than the regex over the hundred thousand numbers of a big map's walls.
_DIGITS_AS_9 = bytes(ord("9") if 48 <= i <= 57 else ord(" ") for i in range(256))
_TOO_MANY_9S = b"9" * (MAX_NUMBER_DIGITS + 1)
_NOT_BRACKET_BYTES = bytes(i for i in range(256) if i not in b"[]{}")
# A number that could be too large for a float has an exponent of 3 digits or more (its digits are
# at most MAX_NUMBER_DIGITS); only then is each float checked as json.loads reads it.
_BIG_EXPONENT = re.compile(r"[eE]\+?\d{3}")
_DEPTH_STEP = tuple(1 if chr(i) in "[{" else -1 for i in range(128))


class _BadNumber(ValueError):
    """A number the file may not hold (raised from inside json.loads, turned into a message)."""


def _limit_text() -> str:
    return f"encounter files are limited to {MAX_FILE_BYTES // _MB} MB"


def _check_structure(text: str, source: str) -> bool:
    """Refuse deep nesting and over-long numbers before json.loads recurses or converts them;
    True if a float may be too large (a big exponent), so each must be checked as it is read.

    Strings are cut out first (they may hold brackets and digits freely); what remains is
    brackets, numbers, literals and punctuation, scanned at C speed.
    """
    structure = _JSON_STRING.sub('""', text)
    ascii = structure.encode("ascii") if structure.isascii() else None  # outside strings, anything else is not JSON
    if ascii is not None:
        brackets = ascii.translate(None, _NOT_BRACKET_BYTES)  # as the regex below, at memory speed
    else:
        brackets = _NOT_BRACKET.sub("", structure).encode("ascii")
    # Running depth: +1 per opener, -1 per closer; stop at the first level past the limit.
    if next(filter(MAX_DEPTH.__lt__, accumulate(map(_DEPTH_STEP.__getitem__, brackets))), None) is not None:
        raise EncounterFileError(f"{source} is nested more than {MAX_DEPTH} levels deep; an encounter file never is")
    long = None
    if ascii is None or _TOO_MANY_9S in ascii.translate(_DIGITS_AS_9):
        long = _LONG_DIGITS.search(structure)
    if long is not None:
        raise EncounterFileError(f"{source} has {_long_number_at(text)}; an encounter file never holds one")
    return _BIG_EXPONENT.search(structure) is not None


# A string, or a run of too many digits outside one: the first of the second kind is the long number.
_STRING_OR_LONG_DIGITS = re.compile(rf"{_JSON_STRING.pattern}|(\d{{{MAX_NUMBER_DIGITS + 1},}})", re.DOTALL)
_KEY_BEFORE = re.compile(r'"([^"\\]{1,60})"\s*:\s*[-+.\deE]*\Z')


def _long_number_at(text: str) -> str:
    """Where the first over-long number is, in words a person finds it by: 'a number longer than 20
    digits at line 4, column 13 ("version", 5,000 digits: 999999999999…)'."""
    found = next((m for m in _STRING_OR_LONG_DIGITS.finditer(text) if m.group(1)), None)
    if found is None:  # not reached: _check_structure saw one
        return f"a number longer than {MAX_NUMBER_DIGITS} digits"
    start = found.start(1)
    line = text.count("\n", 0, start) + 1
    column = start - (text.rfind("\n", 0, start) + 1) + 1
    key = _KEY_BEFORE.search(text, max(0, start - 200), start)
    digits = found.group(1)
    named = f'"{key.group(1)}", ' if key else ""
    return (
        f"a number longer than {MAX_NUMBER_DIGITS} digits at line {line}, column {column} "
        f"({named}{len(digits):,} digits: {digits[:12]}…)"
    )


def _parse_float(token: str) -> float:
    value = float(token)
    if not math.isfinite(value):
        raise _BadNumber(f"the number {token[:30]} is too large")
    return value


def _parse_constant(token: str) -> Any:
    raise _BadNumber(f"{token} is not a number JSON allows")


def loads(text: str, source: str = "file") -> Encounter:
    """Read an encounter from JSON text, or raise :class:`EncounterFileError` saying why.

    Hardened like :func:`load` (the recovery journal comes through here too): a leading BOM is
    dropped; oversized text, deep nesting, huge numbers, NaN and Infinity are refused before or
    while parsing; and the encounter is validated strictly, so ``true`` or ``"5"`` where a
    number belongs is an error rather than 1 or 5.
    """
    with gc_paused():  # a big map's lines: see gc_paused
        return _loads(text, source)


# A file's name as a refusal shows it: a name of 100,000 characters is not a message.
MAX_NAME_CHARS = 80


def short_name(name: str) -> str:
    """``name`` as a message shows it: at most MAX_NAME_CHARS characters, then "…"."""
    return name if len(name) <= MAX_NAME_CHARS else f"{name[:MAX_NAME_CHARS]}…"


def parse_json(text: str, source: str) -> Any:
    """``text`` parsed as JSON, hardened as every file of the program is read: a leading BOM dropped,
    oversized text, deep nesting, huge numbers, NaN and Infinity refused (EncounterFileError, its reason)."""
    text = text.removeprefix("\ufeff")
    if len(text) > MAX_FILE_BYTES:  # characters: each is at least one byte
        raise EncounterFileError(f"{source} is over {MAX_FILE_BYTES // _MB} MB; {_limit_text()}")
    big_floats = _check_structure(text, source)
    try:
        document = json.loads(
            text,
            parse_float=_parse_float if big_floats else float,
            parse_constant=_parse_constant,
        )
    except json.JSONDecodeError as error:
        raise EncounterFileError(
            f"{source} is not valid JSON: {error.msg} at line {error.lineno}, column {error.colno}"
        ) from None
    except _BadNumber as error:
        raise EncounterFileError(f"{source}: {error}") from None
    except (RecursionError, ValueError):  # a safety net behind _check_structure; Python's words help nobody
        raise EncounterFileError(
            f"{source} could not be read: it nests deeper than {MAX_DEPTH} levels or holds a number "
            f"longer than {MAX_NUMBER_DIGITS} digits"
        ) from None
    return document


def parse_document(text: str, source: str, form: str, newest: int, what: str) -> tuple[dict[str, Any], int]:
    """A program file's document and its version (EncounterFileError saying why not): JSON read as
    :func:`parse_json` reads it, its ``"format"`` the ``form`` of a ``what`` ("encounter file", "party
    roster", "session"), its version a whole number no newer than ``newest``."""
    document = parse_json(text, source)
    if not isinstance(document, dict) or document.get("format") != form:
        raise EncounterFileError(f'{source} is not a Laurels & Loot {what} (no "format": "{form}")')
    version = document.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise EncounterFileError(f"{source}: version must be a whole number, got {version!r}")
    if version > newest:
        raise EncounterFileError(
            f"{source} was saved by a newer version of the program (file version {version}, "
            f"this program reads up to {newest})"
        )
    return document, version


def _loads(text: str, source: str) -> Encounter:
    source = short_name(source)
    document, version = parse_document(text, source, FORMAT, VERSION, "encounter file")
    try:
        while version < VERSION:
            document = MIGRATIONS[version](document)
            version += 1
    except EncounterFileError as error:
        raise EncounterFileError(f"{source}: {error}") from None
    data = document.get("encounter")
    if not isinstance(data, dict):
        raise EncounterFileError(f'{source}: the "encounter" object is missing')
    name = data.get("ruleset")
    if not isinstance(name, str):
        raise EncounterFileError(f"{source}: encounter.ruleset: say which ruleset the encounter uses (got {name!r})")
    try:
        model = get_ruleset(name).encounter_model
    except RulesError as error:
        raise EncounterFileError(f"{source}: encounter.{error}") from None
    _refuse_too_many_lines(data, source)
    encounter = _validated(model, data, source)
    _refuse_huge_picture(encounter, source)
    return encounter


def _validated(model: type[Encounter], data: dict[str, Any], source: str) -> Encounter:
    """The encounter ``data`` holds, or EncounterFileError with its first problems and a count of the rest.

    Long lists and dicts at any depth (a log of 100,000 entries, a map's million explored cells, a
    combatant's 300,000 traits) are checked first, a slice at a time, so that a file whose every entry
    is wrong is refused in a second with a short message: validating it whole would make, hold and
    word 100,000 errors (seconds, gigabytes). A long log found good is kept rather than read a second time."""
    try:
        first, total, log, emptied, read = long_lists_checked(model, data)
    except TooMany as many:
        _refuse(source, [str(many)], 1)
    if total:
        rest = rest_problems(model, data, emptied)
        _refuse(source, [*rest[1], *first], rest[0] + total)
    if log is not None:
        data = {**data, "log": []}
    try:
        encounter = _with_lines_aside(model, data, source, read)
    except ValidationError:
        encounter = None  # said below, as the whole encounter read the usual way says it
    if encounter is None:
        try:
            # Strict JSON-mode validation: no true for 1 or "5" for 5, while enums still come as their
            # values, tuples and sets as lists (what dumps writes). The ruleset's own model reads its stat blocks.
            encounter = model.model_validate_json(json.dumps(data), strict=True)
        except ValidationError as error:
            _refuse(source, problem_lines(error, "encounter", limit=MAX_PROBLEMS), error.error_count())
    if log is not None:
        encounter.log = LogBook(log)  # no check of the encounter reads its log
    return encounter


def _refuse(source: str, lines: list[str], total: int) -> NoReturn:
    problems = capped(lines, total)
    raise EncounterFileError(
        f"{source} has {total:,} problem{'s' if total != 1 else ''}:\n" + "\n".join(problems), problems
    )


_PICTURE_HEAD_CHARS = 256 * 1024  # base64 of the picture's first 192 KB: its header says its size


def _refuse_huge_picture(encounter: Encounter, source: str) -> None:
    """A map picture over MAX_PICTURE_PIXELS is refused: a few MB of PNG can say 30,000 x 30,000
    pixels, which would take gigabytes to show. Only the picture's header is read; a picture whose
    header says nothing is left to the window, which says it cannot show it."""
    background = encounter.map.background
    if background is None or not background.data:
        return
    from lnl_desktop.core.files.pictures import image_kind, image_size  # only for maps with a picture

    head = background.data[:_PICTURE_HEAD_CHARS].strip()
    try:
        raw = base64.b64decode(head[: len(head) // 4 * 4])
    except (binascii.Error, ValueError):
        return
    kind = image_kind(raw)
    size = None if kind is None else image_size(raw, kind)
    if size is not None and size[0] * size[1] > MAX_PICTURE_PIXELS:
        problem = (
            f"encounter.map.background.data: the picture is {size[0]} x {size[1]} pixels; the most a map picture "
            f"may have is {MAX_PICTURE_PIXELS:,} pixels ({math.isqrt(MAX_PICTURE_PIXELS):,} a side)"
        )
        raise EncounterFileError(f"{source} has 1 problem:\n{problem}", [problem])


def _refuse_too_many_lines(data: dict[str, Any], source: str) -> None:
    """A map over the limit of wall segments and doors is refused before they are read."""
    grid = data.get("map")
    if isinstance(grid, dict):
        counts = [len(v) if isinstance(v := grid.get(name), list) else 0 for name in ("segments", "doors")]
        problem = too_many_lines(*counts)
        if problem:
            raise EncounterFileError(f"{source} has 1 problem:\nencounter.map.{problem}", [f"encounter.map.{problem}"])


def _with_lines_aside(
    model: type[Encounter], data: dict[str, Any], source: str, read: Sequence[tuple[Any, list[Any]]] = ()
) -> Encounter | None:
    """The encounter, its map's many wall segments and doors checked in bulk (numpy) rather than
    one model at a time; None for a map with few lines (or lines not as the program writes them),
    and ValidationError when anything is wrong: the file is then read the usual way to say what.
    ``read``: lines the check of long lists read already (the very lists of ``data``), not read again."""
    grid = data.get("map")
    if not isinstance(grid, dict):
        return None
    aside: dict[str, tuple[WallSegment, ...]] = {}
    for name in ("segments", "doors"):
        items = grid.get(name)
        if isinstance(items, list) and in_bulk(len(items)):
            known = next((lines for given, lines in read if given is items), None)
            lines = known if known is not None else lines_from_json(items, doors=name == "doors")
            if lines is not None:
                aside[name] = tuple(lines)
    if not aside:
        return None
    # Said at once: read the usual way, a map of 100,000 lines across it takes seconds to refuse.
    problem = too_long_walls(aside.get("segments", ()), aside.get("doors", ()))  # type: ignore[arg-type]
    if problem:
        raise EncounterFileError(f"{source} has 1 problem:\nencounter.map.{problem}", [f"encounter.map.{problem}"])
    without = {**data, "map": {**grid, **{name: [] for name in aside}}}
    encounter = model.model_validate_json(json.dumps(without), strict=True)
    # The map again with its lines: the same fields given (so the same fields set), each value as
    # validated; model instances are taken as they are, and the map's own checks run on them.
    given = {name: getattr(encounter.map, name) for name in grid if name in MapGrid.model_fields}
    encounter.map = type(encounter.map).model_validate({**given, **aside})
    return encounter


def file_kind(mode: int) -> str | None:
    """What a non-regular file is, in words; None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a pipe (FIFO)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _check_file(name: str, info: os.stat_result) -> None:
    kind = file_kind(info.st_mode)
    if kind is not None:
        raise EncounterFileError(f"{name} is {kind}, not an encounter file")
    if info.st_size > MAX_FILE_BYTES:
        raise EncounterFileError(f"{name} is {math.ceil(info.st_size / _MB)} MB; {_limit_text()}")


# O_NONBLOCK: if the path is swapped for a FIFO between the stat and the open, the open must not
# wait for a writer (fstat then refuses it). Neither flag exists on Windows, which has no FIFOs.
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0) | getattr(os, "O_NOCTTY", 0)


def _read_at_most(fd: int, limit: int) -> bytes:
    chunks = bytearray()
    while len(chunks) < limit:
        chunk = os.read(fd, min(limit - len(chunks), 4 * _MB))
        if not chunk:
            break
        chunks += chunk
    return bytes(chunks)


def load(path: str | os.PathLike[str]) -> Encounter:
    """Read an encounter file, or raise :class:`EncounterFileError` saying why; nothing else.

    Only a regular file is opened (a FIFO would block the read forever, /dev/zero never ends),
    at most MAX_FILE_BYTES of it are read, and a UTF-8 BOM some editors add is accepted.
    """
    path = Path(path)
    return loads(read_text(path), short_name(path.name or str(path)))


def read_text(path: Path) -> str:
    """A program file's text (EncounterFileError saying why not): only a regular file is opened, at most
    MAX_FILE_BYTES of it read, a UTF-8 BOM accepted."""
    name = short_name(path.name or str(path))
    try:
        _check_file(name, os.stat(path))  # before opening: opening some devices does things
        fd = os.open(path, _OPEN_FLAGS)
    except FileNotFoundError:
        raise EncounterFileError(f"{name}: no such file") from None
    except OSError as error:
        raise EncounterFileError(f"{name} could not be read: {error.strerror}") from None
    try:
        _check_file(name, os.fstat(fd))  # what was opened, in case the path changed meanwhile
        data = _read_at_most(fd, MAX_FILE_BYTES + 1)
    except OSError as error:
        raise EncounterFileError(f"{name} could not be read: {error.strerror}") from None
    finally:
        os.close(fd)
    if len(data) > MAX_FILE_BYTES:  # it grew after the stat
        raise EncounterFileError(f"{name} is over {MAX_FILE_BYTES // _MB} MB; {_limit_text()}")
    try:
        text = data.removeprefix(codecs.BOM_UTF8).decode("utf-8")
    except UnicodeDecodeError as error:
        raise EncounterFileError(f"{name} is not a text file (not UTF-8 at byte {error.start})") from None
    return text


def save(encounter: Encounter, path: str | os.PathLike[str]) -> Path:
    """Write the encounter atomically: the old file stays whole until the new one is complete."""
    return write_text_atomic(path, dumps(encounter))


# Temporary files of a save interrupted this long ago (a kill, a power cut) are removed by the next
# save to the same folder; a younger one may belong to a save still running in another window.
STALE_TEMP_SECONDS = 60.0


def write_text_atomic(path: str | os.PathLike[str], text: str, *, sync: bool = True) -> Path:
    """Replace the file at ``path`` with ``text`` so that a kill at any moment leaves either the
    old file or the new one, whole, and keep what the user had: a symlink stays a symlink (its
    target is rewritten) and an existing file keeps its permission bits. Returns ``path``.

    The text goes to a temporary file in the same folder, is flushed to the disk, renamed over
    the target, and the folder itself is flushed so that the rename survives a power cut.
    ``sync=False``: the text is with the operating system (a kill of the program loses nothing) but
    the waits for the disk are left to :func:`sync_file`, which a worker thread calls.
    """
    path = Path(path)
    target = Path(os.path.realpath(path))
    directory = target.parent
    try:
        mode: int | None = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        mode = None
    _remove_stale_temps(directory, target.name)
    fd, temp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    try:
        # mkstemp makes 0600; a new file gets what the user's umask gives any new file.
        os.fchmod(fd, mode if mode is not None else 0o666 & ~_umask())
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            if sync:
                os.fsync(handle.fileno())
        os.replace(temp, target)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    if sync:
        _fsync_directory(directory)
    return path


def sync_file(path: str | os.PathLike[str]) -> None:
    """Wait for the disk to hold a file :func:`write_text_atomic` wrote with ``sync=False``, and its
    folder's entry of it (the rename)."""
    target = Path(os.path.realpath(path))
    fd = os.open(target, os.O_RDWR | getattr(os, "O_BINARY", 0))  # Windows flushes only what it may write
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
    _fsync_directory(target.parent)


def _umask() -> int:
    # The only portable way to read the umask is to set it; set it straight back.
    current = os.umask(0o022)
    os.umask(current)
    return current


def _fsync_directory(directory: Path) -> None:
    if os.name == "nt":  # Windows cannot open a folder for flushing; NTFS journals the rename
        return
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _remove_stale_temps(directory: Path, name: str) -> None:
    # The names mkstemp gives (".NAME.*.tmp"), looked for without a glob: a glob's pattern is compiled
    # again for every new name (a millisecond of each write of the recovery journal's generations).
    start, end = f".{name}.", ".tmp"
    now = time.time()
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return
    for entry in entries:
        if not (entry.name.startswith(start) and entry.name.endswith(end) and len(entry.name) >= len(start + end)):
            continue
        try:
            if now - entry.stat(follow_symlinks=False).st_mtime > STALE_TEMP_SECONDS and entry.is_file(
                follow_symlinks=False
            ):
                os.unlink(entry.path)
        except OSError:
            continue  # gone already, or not ours to remove: the save itself goes on


def json_schema() -> dict[str, Any]:
    """The JSON Schema of a ``.lnl`` file, generated from the models: one encounter shape per built-in
    ruleset, told apart by ``ruleset`` (an installed ruleset's files follow its own stat block)."""

    from pydantic import Field

    from lnl_desktop.core.rules.registry import BUILT_IN

    models = tuple(get_ruleset(name).encounter_model for name in BUILT_IN)
    union = Annotated[Union[models], Field(discriminator="ruleset")]  # type: ignore[valid-type]  # noqa: UP007
    schema = TypeAdapter(union).json_schema(mode="serialization")
    defs = schema.pop("$defs", {})
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "Laurels & Loot encounter file",
        "type": "object",
        "required": ["format", "version", "encounter"],
        "properties": {
            "format": {"const": FORMAT},
            "version": {"const": VERSION},
            "encounter": schema,
        },
        "$defs": defs,
    }


def schema_text() -> str:
    return json.dumps(json_schema(), indent=2, sort_keys=True) + "\n"


def write_schema(path: str | os.PathLike[str] | None = None) -> Path:
    """Write the schema where the repository keeps it (``resources/schema/``)."""
    from lnl_desktop.paths import resource

    target = Path(path) if path else resource("schema", "encounter.schema.json")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(schema_text(), encoding="utf-8")
    return target
