"""Area effects (RULES §14): the shape an effect strikes, as a stat block carries it and as a
template lies on the map.

An :class:`Area` is what a spell, a breath or a bomb strikes: a shape and a size in feet. A
:class:`Template` is an area laid on the map: where its origin is (in cells, as a wall's points:
(0, 0) the map's top-left corner, a cell's centre at +0.5), which way it points, and whether the
players see it. Which cells a template strikes is :mod:`lnl_desktop.core.map.areas`. Immutable:
an edit replaces the template, and the encounter's tuple of templates is replaced whole.
"""

from __future__ import annotations

import math
import re
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator

from lnl_desktop.core.map.areas import MAX_AREA_FT, AreaShape

MAX_TEMPLATES = 100  # templates a map
MAX_COORDINATE = 1000.0  # cells: the largest map's side

_TEMPLATE_ID = re.compile(r"^[a-z0-9][a-z0-9_-]*$")


SIZE_WORD = {
    AreaShape.CIRCLE: "radius",
    AreaShape.CONE: "long",
    AreaShape.LINE: "long",
    AreaShape.SQUARE: "side",
}


def area_words(shape: AreaShape, size_ft: int) -> str:
    """'a 20 ft radius circle', 'a 30 ft cone', 'a 60 ft line', 'a 10 ft square'."""
    if shape is AreaShape.CIRCLE:
        return f"a {size_ft} ft radius circle"
    return f"a {size_ft} ft {shape.value}"


def _size_holds(value: int) -> int:
    if value % 5:
        raise ValueError(f"{value} ft is not a multiple of 5 ft: areas are sized in 5 ft squares")
    return value


AreaSize = Annotated[int, Field(ge=5, le=MAX_AREA_FT, description="feet, a multiple of 5"), AfterValidator(_size_holds)]


class Area(BaseModel):
    """What an effect strikes: a shape and its size in feet (a circle's radius, a cone's or a
    line's length, a square's side). A stat block's spell, breath or bomb carries one."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    shape: AreaShape
    size_ft: AreaSize

    @property
    def words(self) -> str:
        return area_words(self.shape, self.size_ft)


class Template(BaseModel):
    """An area laid on the map. ``origin`` in cells (snapped as §14 says: a circle's to a cell's
    corner or centre, a cone's and a line's to a cell's edge, corner or centre, a square's to a
    corner); ``direction`` in degrees, 0 = north (up), clockwise, as a token's facing: where a cone
    or a line points, and for a square the diagonal from its origin corner into the square."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    id: str = Field(min_length=1, max_length=16)
    shape: AreaShape
    size_ft: AreaSize
    origin: tuple[float, float]
    direction: float = Field(default=90.0, ge=0, lt=360, description="degrees, 0 = north, clockwise")
    label: str = Field(default="", max_length=60, description="what it is: 'Fireball', 'the burning oil'")
    colour: str = Field(default="#e8702a", pattern=r"^#[0-9a-fA-F]{6}$", description="#rrggbb")
    shown: bool = Field(default=True, description="shown to the players (part of the scene they see)")

    @field_validator("id")
    @classmethod
    def _id_shape(cls, value: str) -> str:
        if not _TEMPLATE_ID.match(value):
            raise ValueError("use lower-case letters, digits, '-' and '_'")
        return value

    @field_validator("origin")
    @classmethod
    def _origin_on_a_map(cls, origin: tuple[float, float]) -> tuple[float, float]:
        x, y = origin
        if not (math.isfinite(x) and math.isfinite(y)):
            raise ValueError("the origin is not a number")
        if not (0 <= x <= MAX_COORDINATE and 0 <= y <= MAX_COORDINATE):
            raise ValueError(f"the origin ({x:g}, {y:g}) is off any map (0 to {MAX_COORDINATE:g} cells)")
        return origin

    @property
    def area(self) -> Area:
        return Area(shape=self.shape, size_ft=self.size_ft)

    @property
    def words(self) -> str:
        """'the 30 ft cone "Dragon breath"': how the log names it."""
        words = area_words(self.shape, self.size_ft).removeprefix("a ")
        return f'the {words} "{self.label}"' if self.label else f"the {words}"


def _templates_hold(templates: tuple[Template, ...]) -> tuple[Template, ...]:
    if len(templates) > MAX_TEMPLATES:
        raise ValueError(f"the map has {len(templates):,} templates; the most a map may have is {MAX_TEMPLATES}")
    seen: set[str] = set()
    for template in templates:
        if template.id in seen:
            raise ValueError(f"two templates have the id {template.id!r}")
        seen.add(template.id)
    return templates


Templates = Annotated[tuple[Template, ...], AfterValidator(_templates_hold)]
"""An encounter's templates, at most :data:`MAX_TEMPLATES`, each with an id of its own."""


def new_template_id(templates: tuple[Template, ...]) -> str:
    """The next free id: 'a1', 'a2', ..."""
    taken = {t.id for t in templates}
    n = len(templates) + 1
    while f"a{n}" in taken:
        n += 1
    return f"a{n}"


_AREA_WORDS = re.compile(
    r"^\s*(?:(\d+)\s*(?:ft|feet|')?\s*(?:radius\s+)?([a-z]+)|([a-z]+)\s*(\d+)\s*(?:ft|feet|')?)\s*$"
)


def short_area(shape: AreaShape | str, size_ft: int) -> str:
    """'20 ft circle': how the sheet shows an area (and reads it back, :func:`read_area`)."""
    return f"{size_ft} ft {AreaShape(shape).value}"


def read_area(text: str) -> dict[str, object] | None:
    """An area as a GM types it on the sheet: '20 ft circle', '30 cone', 'line 60'; empty or 'none'
    for no area. ValueError with an example when it is neither (the size is checked by :class:`Area`)."""
    words = text.strip().lower()
    if words in ("", "none", "-", "—"):
        return None
    found = _AREA_WORDS.match(words)
    shapes = ", ".join(s.value for s in AreaShape)
    if found is None:
        raise ValueError(f"{text.strip()!r} is not an area: write a size and a shape, such as 20 ft circle ({shapes})")
    size, shape = (found.group(1), found.group(2)) if found.group(1) else (found.group(4), found.group(3))
    if shape not in {s.value for s in AreaShape}:
        raise ValueError(f"{shape!r} is not a shape: {shapes}")
    return {"shape": shape, "size_ft": int(size)}
