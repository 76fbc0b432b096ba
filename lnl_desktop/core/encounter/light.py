"""Light on the map (RULES §15): the encounter's ambient light and its light sources.

A source is placed at a cell or carried by a combatant (it moves with the token). Each kind sheds
bright light out to its first radius and dim light a second radius beyond it; walls and closed
doors stop it as they stop sight (:mod:`lnl_desktop.core.map.light` works out what each cell gets).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, Any, Protocol

from pydantic import BaseModel, ConfigDict, Field, model_validator

from lnl_desktop.core.map.grid import Cell, footprint
from lnl_desktop.core.map.light import DARK, DIM, Shine, light_at, light_levels
from lnl_desktop.core.map.terrain import GridMap

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray


class AmbientLight(StrEnum):
    """How lit a cell is: the encounter's ambient light, and a cell's light once sources are counted."""

    NORMAL = "normal"
    DIM = "dim"
    DARK = "dark"


# Brighter is more: a cell's light is the best of the ambient light and every source reaching it.
LIGHT_LEVEL = {AmbientLight.DARK: 0, AmbientLight.DIM: 1, AmbientLight.NORMAL: 2}
LEVEL_LIGHT = {level: light for light, level in LIGHT_LEVEL.items()}


class LightKind(StrEnum):
    TORCH = "torch"
    LANTERN = "lantern"
    CANDLE = "candle"
    CUSTOM = "custom"


# [D] RULES §15: feet of bright light, then feet of dim light beyond it.
LIGHT_RADII: dict[LightKind, tuple[int, int]] = {
    LightKind.TORCH: (20, 20),
    LightKind.LANTERN: (30, 30),
    LightKind.CANDLE: (5, 5),
}
MAX_LIGHT_FT = 120  # a custom source's radius, each of bright and dim
MAX_LIGHTS = 500  # sources on one map


class LightSource(BaseModel):
    """One light: placed at ``cell`` or carried by the combatant ``carrier`` (exactly one of them)."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    id: str = Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_-]+$")
    kind: LightKind = LightKind.TORCH
    bright_ft: int | None = Field(default=None, ge=0, le=MAX_LIGHT_FT, description="a custom source's bright radius")
    dim_ft: int | None = Field(default=None, ge=0, le=MAX_LIGHT_FT, description="dim light beyond the bright radius")
    cell: tuple[Annotated[int, Field(ge=0)], Annotated[int, Field(ge=0)]] | None = None
    carrier: str | None = Field(default=None, min_length=1, max_length=64)
    # A map file's light keeps its maker's colour (#rrggbb); the rules read only the radii.
    colour: str | None = Field(default=None, pattern=r"^#[0-9a-f]{6}$", description="the light's colour, #rrggbb")

    @model_validator(mode="before")
    @classmethod
    def _cell_as_tuple(cls, data: Any) -> Any:
        if isinstance(data, dict) and isinstance(data.get("cell"), list):
            data = {**data, "cell": tuple(data["cell"])}
        return data

    @model_validator(mode="after")
    def _one_place(self) -> LightSource:
        if (self.cell is None) == (self.carrier is None):
            raise ValueError("a light is either placed at a cell or carried by a combatant, not both or neither")
        custom = self.kind is LightKind.CUSTOM
        if custom and (self.bright_ft is None or self.dim_ft is None):
            raise ValueError("a custom light needs its bright and dim radii in feet")
        if not custom and (self.bright_ft is not None or self.dim_ft is not None):
            raise ValueError(f"a {self.kind.value} has its own radii: only a custom light takes radii")
        if custom and not (self.bright_ft or self.dim_ft):
            raise ValueError("a custom light needs a radius above 0 ft")
        return self

    @property
    def radii(self) -> tuple[int, int]:
        """Feet of bright light, and feet of dim light beyond them."""
        if self.kind is LightKind.CUSTOM:
            return self.bright_ft or 0, self.dim_ft or 0
        return LIGHT_RADII[self.kind]

    @property
    def name(self) -> str:
        """'torch', 'lantern (30 ft + 30 ft)' for the log: 'light (10 ft + 5 ft)' for a custom one."""
        bright, dim = self.radii
        noun = "light" if self.kind is LightKind.CUSTOM else self.kind.value
        return f"{noun} ({bright} ft + {dim} ft)"


def lights_problem(lights: tuple[LightSource, ...], ids: set[str], width: int, height: int) -> str | None:
    """What is wrong with an encounter's light sources (None when nothing): too many, an id twice,
    a cell off the map, a carrier who is not a combatant."""
    if len(lights) > MAX_LIGHTS:
        return f"lights: {len(lights):,} light sources; a map holds at most {MAX_LIGHTS:,}"
    seen: set[str] = set()
    for i, light in enumerate(lights):
        if light.id in seen:
            return f"lights[{i}]: two lights have the id {light.id!r}"
        seen.add(light.id)
        if light.cell is not None and not (light.cell[0] < width and light.cell[1] < height):
            return f"lights[{i}]: cell ({light.cell[0]}, {light.cell[1]}) is outside the {width} x {height} map"
        if light.carrier is not None and light.carrier not in ids:
            return f"lights[{i}]: no combatant has the id {light.carrier!r}"
    return None


def new_light_id(lights: tuple[LightSource, ...], kind: LightKind) -> str:
    """A free id: 'torch', 'torch-2', ..."""
    taken = {x.id for x in lights}
    if kind.value not in taken:
        return kind.value
    n = 2
    while f"{kind.value}-{n}" in taken:
        n += 1
    return f"{kind.value}-{n}"


class Encounter(Protocol):
    """What light reads of an encounter (the model's ``Encounter``, which imports this module)."""

    @property
    def lights(self) -> tuple[LightSource, ...]: ...
    @property
    def tokens(self) -> Mapping[str, Any]: ...
    @property
    def combatants(self) -> Sequence[Any]: ...
    @property
    def map(self) -> GridMap: ...
    @property
    def options(self) -> Any: ...


def shines(encounter: Encounter, players: bool = False) -> list[Shine]:
    """Every light source on the map where it shines from now (a carried one from its carrier's
    token; one whose carrier is off the map sheds no light). ``players``: as the player view shows
    it, where a light carried by a hidden token lights nothing (RULES §15: it would give the token
    away); the rules read every light."""
    found: list[Shine] = []
    sizes: dict[str, int] | None = None
    for light in encounter.lights:
        bright, dim = light.radii
        if light.cell is not None:
            found.append(Shine(light.cell, 1, bright, dim))
            continue
        token = encounter.tokens.get(light.carrier or "")
        if token is None or (players and token.hidden):
            continue
        if sizes is None:
            sizes = {c.id: c.size for c in encounter.combatants}
        found.append(Shine(token.cell, sizes.get(light.carrier or "", 1), bright, dim))
    return found


def ambient(encounter: Encounter) -> AmbientLight:
    return AmbientLight(getattr(encounter.options, "light", AmbientLight.NORMAL))


def light_map(encounter: Encounter, players: bool = False) -> NDArray[np.uint8]:
    """Every cell's light level (:data:`LIGHT_LEVEL`) as a ``(height, width)`` array indexed ``[y, x]``;
    ``players``: as the player view shows it (see :func:`shines`)."""
    return light_levels(encounter.map, LIGHT_LEVEL[ambient(encounter)], shines(encounter, players))


def cell_light(encounter: Encounter, cell: Cell) -> AmbientLight:
    """One cell's light: the best of the ambient light and every source reaching it."""
    return LEVEL_LIGHT[light_at(encounter.map, LIGHT_LEVEL[ambient(encounter)], shines(encounter), cell)]


def target_light(encounter: Encounter, cid: str) -> tuple[AmbientLight, Cell | None]:
    """The light a combatant stands in (the best of its cells) and the cell it is best lit at; with no
    source on the map, or the combatant off it, the ambient light and None."""
    base = ambient(encounter)
    token = encounter.tokens.get(cid)
    if not encounter.lights or token is None:
        return base, None
    sources = shines(encounter)
    size = next((c.size for c in encounter.combatants if c.id == cid), 1)
    level = LIGHT_LEVEL[base]
    best, where = -1, token.cell
    for cell in footprint(token.cell, size):
        if 0 <= cell[0] < encounter.map.width and 0 <= cell[1] < encounter.map.height:
            lit = light_at(encounter.map, level, sources, cell)
            if lit > best:
                best, where = lit, cell
    return LEVEL_LIGHT[max(best, 0)], where


def darkvision_counts(encounter: Encounter) -> bool:
    """Whether the encounter's darkvision option is on (RULES §15 [D]; on in older files)."""
    return bool(getattr(encounter.options, "darkvision", True))


def darkvision_shine(encounter: Encounter, viewer: Any) -> Shine | None:
    """``viewer``'s darkvision as a light only it sees by (RULES §15 [D]): dark cells within its
    feet, walls stopping it as they stop sight, count as dim for it. None when it has none, the
    option is off or its token is off the map."""
    feet = int(getattr(viewer, "darkvision_ft", 0) or 0)
    token = encounter.tokens.get(viewer.id) if feet > 0 else None
    if token is None or not darkvision_counts(encounter):
        return None
    return Shine(token.cell, viewer.size, 0, feet)


def attack_light(encounter: Encounter, attacker: Any, target_id: str) -> tuple[AmbientLight, Cell | None, bool]:
    """The light an attack reads (RULES §15, Old-School d20): the target's (:func:`target_light`),
    where dark cells within the attacker's darkvision and in its sight count as dim. The third
    value says darkvision made the difference."""
    light, where = target_light(encounter, target_id)
    if light is not AmbientLight.DARK:
        return light, where, False
    shine = darkvision_shine(encounter, attacker)
    token = encounter.tokens.get(target_id)
    if shine is None or token is None:
        return light, where, False
    size = next((c.size for c in encounter.combatants if c.id == target_id), 1)
    w, h = encounter.map.width, encounter.map.height
    for cell in footprint(token.cell, size):
        if 0 <= cell[0] < w and 0 <= cell[1] < h and light_at(encounter.map, DARK, [shine], cell) >= DIM:
            return AmbientLight.DIM, cell, True
    return light, where, False
