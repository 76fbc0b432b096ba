"""Paints that never hand an error to Qt in the players' scene.

An error raised in a Python override that Qt calls (an item's ``paint``, a view's ``drawBackground``)
is handed back to Python by the binding, and the binding's error path drops a reference it does not
own: after a few, the override's function is freed while Qt still calls it, and the program crashes.
So an item the players' scene holds catches what its paint raises and tells its scene
(``MapScene.paint_failed``: the player view pauses, all black); in the GM's scene the error goes on
as ever, to be seen.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar

Paint = TypeVar("Paint", bound=Callable[..., None])


def fails_closed(paint: Paint) -> Paint:
    """``paint`` of a QGraphicsItem that may stand in the players' scene, guarded as the module says."""

    @wraps(paint)
    def guarded(self: Any, *args: Any, **kwargs: Any) -> None:
        try:
            paint(self, *args, **kwargs)
        except Exception as error:
            scene = self.scene()
            if not getattr(scene, "player", False):
                raise
            scene.paint_failed(error)

    return guarded  # type: ignore[return-value]
