"""Drawings and notes on the map: freehand lines, lines, rectangles, ellipses and text labels.

The GM's marks (a trap, a spell's area before it is cast, "the altar"); they change no rule. Each
is shown to the GM only unless it is shown to the players. Points are in cells, as a wall's are:
(0, 0) the map's top-left corner. Immutable: an edit replaces the drawing, and the encounter's
tuple of drawings is replaced whole, never changed in place (cheap for the undo history).
"""

from __future__ import annotations

import math
import re
from enum import StrEnum
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator, model_validator

MAX_DRAWINGS = 500  # drawings a map
MAX_POINTS = 2000  # points a freehand line
MAX_TEXT = 200  # characters a label
MAX_WIDTH = 20  # pixels at 1:1
MAX_COORDINATE = 1000.0  # cells: the largest map's side

_COLOUR = re.compile(r"^#[0-9a-fA-F]{6}$")
_DRAWING_ID = re.compile(r"^[a-z0-9][a-z0-9_-]*$")


class DrawingKind(StrEnum):
    FREEHAND = "freehand"
    LINE = "line"
    RECTANGLE = "rectangle"
    ELLIPSE = "ellipse"
    TEXT = "text"


# How many points each kind has: (fewest, most).
POINTS_OF = {
    DrawingKind.FREEHAND: (2, MAX_POINTS),
    DrawingKind.LINE: (2, 2),
    DrawingKind.RECTANGLE: (2, 2),  # two opposite corners
    DrawingKind.ELLIPSE: (2, 2),  # two opposite corners of the box around it
    DrawingKind.TEXT: (1, 1),  # the label's top-left corner
}


class Drawing(BaseModel):
    """One drawing or label on the map, GM only unless ``shown`` to the players."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    id: str = Field(min_length=1, max_length=16)
    kind: DrawingKind
    points: tuple[tuple[float, float], ...] = Field(min_length=1, max_length=MAX_POINTS)
    colour: str = Field(default="#cc3311", description="#rrggbb")
    width: int = Field(default=3, ge=1, le=MAX_WIDTH, description="line width in pixels at 1:1; a label's size")
    text: str = Field(default="", max_length=MAX_TEXT, description="a label's words")
    shown: bool = Field(default=False, description="shown to the players (else the GM's only)")

    @field_validator("id")
    @classmethod
    def _id_shape(cls, value: str) -> str:
        if not _DRAWING_ID.match(value):
            raise ValueError("use lower-case letters, digits, '-' and '_'")
        return value

    @field_validator("colour")
    @classmethod
    def _colour_shape(cls, value: str) -> str:
        if not _COLOUR.match(value):
            raise ValueError(f"{value!r} is not a colour: write it #rrggbb, such as #cc3311")
        return value.lower()

    @field_validator("points")
    @classmethod
    def _points_on_a_map(cls, points: tuple[tuple[float, float], ...]) -> tuple[tuple[float, float], ...]:
        for index, (x, y) in enumerate(points):
            if not (math.isfinite(x) and math.isfinite(y)):
                raise ValueError(f"point {index} is not a number")
            if not (0 <= x <= MAX_COORDINATE and 0 <= y <= MAX_COORDINATE):
                raise ValueError(f"point {index} ({x:g}, {y:g}) is off any map (0 to {MAX_COORDINATE:g} cells)")
        return points

    @model_validator(mode="after")
    def _shape_holds(self) -> Drawing:
        fewest, most = POINTS_OF[self.kind]
        n = len(self.points)
        if not fewest <= n <= most:
            wanted = f"{fewest}" if fewest == most else f"{fewest} to {most:,}"
            raise ValueError(f"a {self.kind.value} has {wanted} point{'s' if most > 1 else ''}, not {n:,}")
        if self.kind is DrawingKind.TEXT:
            if not self.text.strip():
                raise ValueError("a label needs some words")
        elif self.text:
            raise ValueError(f"a {self.kind.value} has no words (only a label has)")
        if self.kind in (DrawingKind.LINE, DrawingKind.RECTANGLE, DrawingKind.ELLIPSE):
            (x0, y0), (x1, y1) = self.points
            if self.kind is DrawingKind.LINE and (x0, y0) == (x1, y1):
                raise ValueError("a line needs two different ends")
            if self.kind is not DrawingKind.LINE and (x0 == x1 or y0 == y1):
                raise ValueError(f"a {self.kind.value} needs a width and a height")
        return self

    @property
    def words(self) -> str:
        """'a rectangle', 'the label "the altar"': how the log names it."""
        if self.kind is DrawingKind.TEXT:
            text = self.text if len(self.text) <= 40 else self.text[:39] + "…"
            return f'the label "{text}"'
        article = "an" if self.kind is DrawingKind.ELLIPSE else "a"
        return f"{article} {'freehand line' if self.kind is DrawingKind.FREEHAND else self.kind.value}"

    @property
    def who_sees(self) -> str:
        return "shown to the players" if self.shown else "GM only"


def _drawings_hold(drawings: tuple[Drawing, ...]) -> tuple[Drawing, ...]:
    if len(drawings) > MAX_DRAWINGS:
        raise ValueError(f"the map has {len(drawings):,} drawings; the most a map may have is {MAX_DRAWINGS}")
    seen: set[str] = set()
    for drawing in drawings:
        if drawing.id in seen:
            raise ValueError(f"two drawings have the id {drawing.id!r}")
        seen.add(drawing.id)
    return drawings


Drawings = Annotated[tuple[Drawing, ...], AfterValidator(_drawings_hold)]
"""An encounter's drawings, at most :data:`MAX_DRAWINGS`, each with an id of its own."""


def new_drawing_id(drawings: tuple[Drawing, ...]) -> str:
    """The next free id: 'd1', 'd2', ..."""
    taken = {d.id for d in drawings}
    n = len(drawings) + 1
    while f"d{n}" in taken:
        n += 1
    return f"d{n}"
