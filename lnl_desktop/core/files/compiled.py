"""The program's own encounters (the demo) in a compiled form, read at start without pydantic's checks.

Reading the demo through :func:`storage.load` builds pydantic's validator of the whole encounter
model (a tenth of a second) for a file the program ships and has checked already. Beside such a
file, ``<name>.compiled`` holds the encounter as that load made it (a pickle), with what it was made
from: the JSON's SHA-256, the Python and pydantic versions, and every model class in it with its
fields. Only when all of these still match is the pickle read; else the JSON is read the usual way.
Only files in the program's resources are ever read so: a pickle is code, and these come with it.
``python -m lnl_desktop.core.files.compiled`` makes them again (packaging/build.py does, and a test
says when one is out of date).
"""

from __future__ import annotations

import hashlib
import pickle
import sys
from importlib import import_module
from pathlib import Path
from typing import Any

import pydantic
from pydantic import BaseModel

from lnl_desktop.core.encounter.model import Encounter
from lnl_desktop.core.files import storage
from lnl_desktop.paths import demo_encounter_path, resources_dir

SUFFIX = ".compiled"
FORMAT = "lnl-compiled-encounter 1"


def compiled_path(path: Path) -> Path:
    return path.with_name(path.name + SUFFIX)


def _models_in(value: Any, found: dict[str, tuple[str, ...]]) -> None:
    """Every pydantic model class in ``value`` (at any depth), with its fields and private attributes."""
    if isinstance(value, BaseModel):
        cls = type(value)
        name = f"{cls.__module__}:{cls.__qualname__}"
        if name not in found:
            found[name] = _shape(cls)
        for item in value.__dict__.values():
            _models_in(item, found)
    elif isinstance(value, dict):
        for item in value.values():
            _models_in(item, found)
    elif isinstance(value, list | tuple | set | frozenset):
        for item in value:
            _models_in(item, found)


def _shape(cls: type[BaseModel]) -> tuple[str, ...]:
    return (*cls.model_fields, "|", *sorted(cls.__private_attributes__))


def _made_with(text: bytes) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "json": hashlib.sha256(text).hexdigest(),
        "python": sys.version_info[:2],
        "pydantic": pydantic.VERSION,
    }


def _still_fits(models: dict[str, tuple[str, ...]]) -> bool:
    """Whether each model class the pickle names still has the fields it had."""
    for name, shape in models.items():
        module, _, qualname = name.partition(":")
        try:
            cls: Any = import_module(module)
            for part in qualname.split("."):
                cls = getattr(cls, part)
        except (ImportError, AttributeError):
            return False
        if not (isinstance(cls, type) and issubclass(cls, BaseModel)) or _shape(cls) != shape:
            return False
    return True


def compile_encounter(path: Path) -> Path:
    """Write ``path``'s compiled form beside it (the encounter as :func:`storage.load` reads it)."""
    text = path.read_bytes()
    encounter = storage.load(path)
    models: dict[str, tuple[str, ...]] = {}
    _models_in(encounter, models)
    header = {**_made_with(text), "models": models}
    target = compiled_path(path)
    target.write_bytes(pickle.dumps(header, protocol=4) + pickle.dumps(encounter, protocol=4))
    return target


def load_own(path: Path) -> Encounter:
    """The program's own encounter file ``path``: from its compiled form when that is up to date,
    else read and checked as any file is (:func:`storage.load`)."""
    encounter = read_compiled(path)
    return encounter if encounter is not None else storage.load(path)


def _header(target: Path) -> dict[str, Any] | None:
    """What the compiled form ``target`` was made from, without its models (None: no readable one)."""
    try:
        with open(target, "rb") as file:
            header = pickle.load(file)
    except (OSError, EOFError, pickle.UnpicklingError, AttributeError, ImportError, TypeError, ValueError):
        return None
    return {k: v for k, v in header.items() if k != "models"} if isinstance(header, dict) else None


def read_compiled(path: Path) -> Encounter | None:
    """``path``'s encounter from its up-to-date compiled form; None when there is none, or it is out
    of date (the JSON, a model's fields, Python or pydantic changed) or not in the program's resources."""
    try:
        if resources_dir().resolve() not in path.resolve().parents:
            return None  # only the program's own files: a pickle runs code
        text = path.read_bytes()
        with open(compiled_path(path), "rb") as file:
            header = pickle.load(file)
            models = header.pop("models", None) if isinstance(header, dict) else None
            if header != _made_with(text) or not isinstance(models, dict) or not _still_fits(models):
                return None
            encounter = pickle.load(file)
    except (OSError, EOFError, pickle.UnpicklingError, AttributeError, ImportError, TypeError, ValueError):
        return None
    return encounter if isinstance(encounter, Encounter) else None


def own_encounters() -> list[Path]:
    """The program's encounters read at start, so compiled: the demo (the others open from the demo menu)."""
    return [demo_encounter_path()]


if __name__ == "__main__":
    for own in own_encounters():
        print(compile_encounter(own))
