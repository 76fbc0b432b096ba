"""Encounter files (``.lnl``): versioned JSON, safe saving, clear messages for bad files.

A file is ``{"format": "lnl-encounter", "version": N, "encounter": {...}}``. Saving writes a
temporary file next to the target and renames it over, so a failed save never leaves half a
file. Loading refuses anything that is not valid and says where it is wrong; older versions
are migrated forward step by step.
"""

from __future__ import annotations

import glob
import json
import os
import stat
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from lnl_desktop.core.errors import RulesError
from lnl_desktop.core.model import Encounter
from lnl_desktop.core.validation import explain

FORMAT = "lnl-encounter"
VERSION = 1
SUFFIX = ".lnl"

# version -> function turning a document of that version into the next one.
MIGRATIONS: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {}


class EncounterFileError(RulesError):
    """A file that could not be read as an encounter; the message says where and why."""


def to_document(encounter: Encounter) -> dict[str, Any]:
    return {"format": FORMAT, "version": VERSION, "encounter": encounter.model_dump(mode="json")}


def dumps(encounter: Encounter) -> str:
    return json.dumps(to_document(encounter), indent=1, ensure_ascii=False)


def loads(text: str, source: str = "file") -> Encounter:
    """Read an encounter from JSON text, or raise :class:`EncounterFileError` saying why."""
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise EncounterFileError(
            f"{source} is not valid JSON: {error.msg} at line {error.lineno}, column {error.colno}"
        ) from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise EncounterFileError(f'{source} is not a Laurels & Loot encounter file (no "format": "{FORMAT}")')
    version = document.get("version")
    if not isinstance(version, int) or version < 1:
        raise EncounterFileError(f"{source}: version must be a whole number, got {version!r}")
    if version > VERSION:
        raise EncounterFileError(
            f"{source} was saved by a newer version of the program (file version {version}, "
            f"this program reads up to {VERSION})"
        )
    while version < VERSION:
        document = MIGRATIONS[version](document)
        version += 1
    data = document.get("encounter")
    if not isinstance(data, dict):
        raise EncounterFileError(f'{source}: the "encounter" object is missing')
    try:
        return Encounter.model_validate(data)
    except ValidationError as error:
        problems = explain(error, prefix="encounter")
        count = len(problems.splitlines())
        raise EncounterFileError(
            f"{source} has {count} problem{'s' if count > 1 else ''}:\n{problems}",
            problems.splitlines(),
        ) from None


def load(path: str | os.PathLike[str]) -> Encounter:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise EncounterFileError(f"{path.name}: no such file") from None
    except UnicodeDecodeError:
        raise EncounterFileError(f"{path.name} is not a text file") from None
    except OSError as error:
        raise EncounterFileError(f"{path.name} could not be read: {error.strerror}") from None
    return loads(text, path.name)


def save(encounter: Encounter, path: str | os.PathLike[str]) -> Path:
    """Write the encounter atomically: the old file stays whole until the new one is complete."""
    return write_text_atomic(path, dumps(encounter))


# Temporary files of a save interrupted this long ago (a kill, a power cut) are removed by the next
# save to the same folder; a younger one may belong to a save still running in another window.
STALE_TEMP_SECONDS = 60.0


def write_text_atomic(path: str | os.PathLike[str], text: str) -> Path:
    """Replace the file at ``path`` with ``text`` so that a kill at any moment leaves either the
    old file or the new one, whole, and keep what the user had: a symlink stays a symlink (its
    target is rewritten) and an existing file keeps its permission bits. Returns ``path``.

    The text goes to a temporary file in the same folder, is flushed to the disk, renamed over
    the target, and the folder itself is flushed so that the rename survives a power cut.
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
            os.fsync(handle.fileno())
        os.replace(temp, target)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    _fsync_directory(directory)
    return path


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
    now = time.time()
    for temp in directory.glob(f".{glob.escape(name)}.*.tmp"):
        try:
            if now - temp.lstat().st_mtime > STALE_TEMP_SECONDS and temp.is_file():
                temp.unlink()
        except OSError:
            continue  # gone already, or not ours to remove: the save itself goes on


def json_schema() -> dict[str, Any]:
    """The JSON Schema of a ``.lnl`` file, generated from the models."""
    schema = Encounter.model_json_schema(mode="serialization")
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
