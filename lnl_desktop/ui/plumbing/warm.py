"""What the GM's first actions would otherwise wait for, made at idle moments once a window shows.

The program's pydantic models are built at their first use (``defer_build``: a start-up a few tenths
of a second shorter), so the first attack, hit or move of a session paid for its event's and its
action's models: 90 ms for the first "action taken" alone. After the first paint they are built one
per pass of the event loop, so a click in between waits for one model at most.
"""

from __future__ import annotations

import gc

from pydantic import BaseModel
from PySide6.QtCore import QObject, QTimer

_pending: list[type[BaseModel]] = []


def unbuilt_models() -> list[type[BaseModel]]:
    """The program's model classes not built yet, the smaller first (a big one builds the ones it holds)."""
    found: list[type[BaseModel]] = []
    stack = [BaseModel]
    seen: set[type] = set()
    while stack:
        for cls in stack.pop().__subclasses__():
            if cls in seen:
                continue
            seen.add(cls)
            stack.append(cls)
            if cls.__module__.startswith("lnl_desktop") and not cls.__pydantic_complete__:
                found.append(cls)
    return sorted(found, key=lambda cls: (len(cls.model_fields), cls.__qualname__))


def build_models_later(context: QObject) -> None:
    """Build every unbuilt model, one per pass of the event loop (while ``context`` lives)."""
    first = not _pending
    _pending[:] = unbuilt_models()
    if first and _pending:
        QTimer.singleShot(0, context, lambda: _build_next(context))


def _build_next(context: QObject) -> None:
    while _pending:
        cls = _pending.pop(0)
        if not cls.__pydantic_complete__:  # an earlier one may have built it
            cls.model_rebuild()
            break
    if _pending:
        QTimer.singleShot(0, context, lambda: _build_next(context))
    else:
        # What the builds left (tens of thousands of schema objects, for good) is set aside from the
        # collector's younger generations at once: collected with them, it was the next collection's
        # 20-40 ms, in the middle of the GM's next move (the collector looks at it again at its thaw).
        gc.freeze()


def models_pending() -> int:
    """How many models are still to be built."""
    return len(_pending)
