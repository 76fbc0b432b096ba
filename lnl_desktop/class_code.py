"""The methods the dataclasses module writes for the program's classes, compiled once and kept.

Making a dataclass writes its ``__init__``, ``__repr__``, ``__eq__``, ``__hash__`` (and a frozen one's
``__setattr__`` and ``__delattr__``) as source text and compiles each text: about a third of a
millisecond a class, and the rules core and the window define some 190 of them before the first
window shows (50-60 ms of the start). Python keeps a module's bytecode in ``__pycache__``; this keeps
those methods' code the same way: the dataclasses module's ``exec`` is given the code compiled the
last time the same text was seen, so a class gets exactly the methods it would have got, without the
compile. A text not seen before is compiled as the dataclasses module would (same file name, no
inherited ``__future__`` flags), and at exit the file is written again with it, so a changed class is
as quick at the next start; texts no longer used drop out once they outnumber those in use.

The file is named for the interpreter's cache tag and holds its exact version: marshalled code is
only ever read by the interpreter that wrote it. A file that cannot be read is ignored (the start is
as it would be without it); like bytecode, none is written when ``sys.dont_write_bytecode`` is set,
unless asked for (``python -m lnl_desktop keep-class-code`` writes it after a smoke test's start, as the
start-up benchmark and the bundle's build do).
"""

from __future__ import annotations

import atexit
import dataclasses
import marshal
import os
import sys
from pathlib import Path
from types import CodeType
from typing import Any

FORMAT = "lnl-class-code 1"


def default_path() -> Path:
    """Beside the package's bytecode, named for this interpreter (``cpython-311``)."""
    tag = sys.implementation.cache_tag or "python"
    return Path(__file__).resolve().parent / "__pycache__" / f"class-code.{tag}.marshal"


class ClassCode:
    """Code for the dataclasses module's texts: read from the file, compiled on a miss, written at exit."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.known: dict[str, CodeType] = _read(path)
        self.used: dict[str, CodeType] = {}
        self.compiled = 0  # texts compiled in this run: when none were, the file is left as it is

    def exec(self, text: Any, globals: dict[str, Any] | None = None, locals: Any = None) -> None:
        """What ``dataclasses`` calls as ``exec(text, globals, ns)``."""
        if not isinstance(text, str):  # not the dataclasses module's own use: plain exec
            exec(text, globals, locals)
            return
        code = self.known.get(text)
        if not isinstance(code, CodeType):  # not seen, or the file held something else for it
            # As exec(text) in the dataclasses module compiles it: its file name, its (no) future flags.
            code = compile(text, "<string>", "exec", dont_inherit=True)
            self.known[text] = code
            self.compiled += 1
        self.used[text] = code
        exec(code, globals, locals)

    def write(self) -> bool:
        """The file written whole (a new file put in place): what it held and what this run compiled,
        or only this run's texts once the others outnumber them (classes changed since)."""
        kept = self.known if len(self.known) <= 2 * len(self.used) else self.used
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            part = self.path.with_name(f"{self.path.name}.{os.getpid()}.part")
            part.write_bytes(marshal.dumps((FORMAT, sys.version, kept)))
            os.replace(part, self.path)
        except OSError:  # a read-only install: the start is as it would be without the file
            return False
        return True


def _read(path: Path) -> dict[str, CodeType]:
    try:
        form, version, code = marshal.loads(path.read_bytes())
    except (OSError, EOFError, ValueError, TypeError):
        return {}
    if form != FORMAT or version != sys.version or not isinstance(code, dict):
        return {}
    return code


_installed: ClassCode | None = None


def install(path: Path | None = None, *, write_at_exit: bool | None = None) -> ClassCode:
    """The dataclasses module's ``exec`` given the kept code from now on (once per process)."""
    global _installed
    if _installed is None:
        _installed = ClassCode(path or default_path())
        dataclasses.exec = _installed.exec  # type: ignore[attr-defined]  # the module's global shadows the builtin
        if write_at_exit is None:  # as for bytecode; a bundle's file is made when it is built
            write_at_exit = not (sys.dont_write_bytecode or getattr(sys, "frozen", False))
        if write_at_exit:
            atexit.register(_write_if_new, _installed)
    return _installed


def installed() -> ClassCode | None:
    """The kept code this process uses, if :func:`install` was called."""
    return _installed


def _write_if_new(kept: ClassCode) -> None:
    if kept.compiled:
        kept.write()
