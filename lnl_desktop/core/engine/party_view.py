"""What the Party sees now: the fog of war's eyes, shared by the engine and both windows.

The map's sight (:func:`lnl_desktop.core.map.visibility.eyes_sight`) works out and caches what a
group of creatures sees; this names the group (the Party's tokens) and asks the encounter's ruleset
whether creatures see only within their field of vision (``Ruleset.sight_uses_facing``).

Darkness hides too (RULES §15): in a dark cell a creature not of the Party is not on the players'
map, fog of war on or off, unless a Party member's darkvision reaches the cell (:func:`party_light`).
"""

from __future__ import annotations

from itertools import chain, compress, repeat
from operator import attrgetter, is_, is_not, not_
from typing import TYPE_CHECKING, Any

from lnl_desktop.core.encounter.light import AmbientLight, ambient, darkvision_shine, light_map
from lnl_desktop.core.encounter.model import CombatantBase, Encounter, Side
from lnl_desktop.core.map.grid import Cell
from lnl_desktop.core.map.light import DARK, DIM, light_levels
from lnl_desktop.core.map.sight_index import PartyView
from lnl_desktop.core.map.visibility import Eye, eyes_sight, mask_cells
from lnl_desktop.core.rules.registry import get_ruleset
from lnl_desktop.lazy import lazy_module

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    from lnl_desktop.core.engine.occupancy import SightTable
    from lnl_desktop.core.map.grid import BoolArray
else:
    np = lazy_module("numpy")


_SIDE = attrgetter("side")
# The combatants as last sorted by side: (the combatants list, its items, their sides, the Party's
# members, the others). One tuple, replaced whole, so a worker's reading and the GUI thread's never
# mix two of them.
_kept: tuple[list[Any] | None, tuple[Any, ...], tuple[Side, ...], tuple[Any, ...], tuple[Any, ...]] = (
    None,
    (),
    (),
    (),
    (),
)


def _by_side(encounter: Encounter) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    """(the Party's combatants, the others), each in the encounter's order. Asked several times per
    move on a map of hundreds: kept while the list holds the very same combatants on the very same
    sides (checked in C over the list, not a Python step per combatant)."""
    global _kept
    combatants = encounter.combatants
    items = tuple(combatants)
    sides = tuple(map(_SIDE, items))
    kept = _kept
    if kept[0] is combatants and len(kept[1]) == len(items) and all(map(is_, kept[1], items)) and kept[2] == sides:
        return kept[3], kept[4]
    party = tuple(map(is_, sides, repeat(Side.PARTY)))
    members = tuple(compress(items, party))
    others = tuple(compress(items, map(not_, party)))
    _kept = (combatants, items, sides, members, others)
    return members, others


def _party_members(encounter: Encounter) -> tuple[CombatantBase, ...]:
    """The Party's combatants in the encounter's order (:func:`_by_side`)."""
    return _by_side(encounter)[0]


def party_sight(encounter: Encounter) -> PartyView:
    """:func:`party_view`, worked out once per state of the map, the ruleset and the Party's tokens
    (their cells, facings, sizes, vision, hidden and down) however many ask."""
    tokens = encounter.tokens
    eyes: list[Eye] = []
    for c in _party_members(encounter):
        token = tokens.get(c.id)
        if token is not None:
            eyes.append((c.id, token.cell, token.facing, token.hidden, c.size, c.down, c.vision_deg))
    return eyes_sight(encounter.map, tuple(eyes), get_ruleset(encounter.ruleset).sight_uses_facing)


def _party_eyes(encounter: Encounter) -> list[tuple[Eye, Any]]:
    """Each Party member's eyes that see for the group (on the map, shown, not down), with its combatant."""
    found = []
    for c in _party_members(encounter):
        token = encounter.tokens.get(c.id)
        if token is not None and not token.hidden and not c.down:
            found.append(((c.id, token.cell, token.facing, token.hidden, c.size, c.down, c.vision_deg), c))
    return found


def darkvision_key(encounter: Encounter) -> tuple[object, ...]:
    """What :func:`party_light`'s darkvision reads beyond the lights: a view that shows it redraws
    when this changes (a Party member with darkvision moved or turned, the option switched)."""
    eyes = tuple((eye, c.darkvision_ft) for eye, c in _party_eyes(encounter) if getattr(c, "darkvision_ft", 0))
    return (eyes, getattr(encounter.options, "darkvision", True), encounter.ruleset)


def party_light(encounter: Encounter) -> NDArray[np.uint8] | None:
    """Every cell's light as the Party sees it (RULES §15), a ``(height, width)`` array of levels
    (0 dark, 1 dim, 2 bright) indexed ``[y, x]``: the players' lights (:func:`light_map`), where
    dark cells within a Party member's darkvision and in its sight count as dim. None when no cell
    can be dark (the ambient light is dim or normal): then darkness hides nobody."""
    if ambient(encounter) is not AmbientLight.DARK:
        return None
    levels = light_map(encounter, players=True)
    cones = get_ruleset(encounter.ruleset).sight_uses_facing
    for eye, c in _party_eyes(encounter):
        shine = darkvision_shine(encounter, c)
        if shine is None:
            continue
        # Within its feet and not behind a wall (as light is), and, where facing counts, in its field of vision.
        seen = light_levels(encounter.map, DARK, [shine])
        if cones:
            seen[~eyes_sight(encounter.map, (eye,), True).mask] = DARK
        np.maximum(levels, seen, out=levels)
    return levels


def party_view_mask(encounter: Encounter) -> BoolArray:
    """:func:`party_view` as a ``(height, width)`` boolean array indexed ``[y, x]``."""
    return party_sight(encounter).mask.copy()


def party_view(encounter: Encounter) -> frozenset[Cell]:
    """Every cell some Party token sees now: the union of what each Party token on the map that is
    neither hidden from the players nor down sees (:func:`lnl_desktop.core.map.visibility.visible_cells`),
    within its field of vision where the encounter's ruleset reads facing."""
    return mask_cells(party_sight(encounter).mask)


def players_unseen(encounter: Encounter, table: SightTable | None = None) -> frozenset[str]:
    """The combatants whose tokens the players must not see: those the GM hid; with fog of war on,
    every one not of the Party that stands where no Party token sees now; and, fog on or off, every
    one not of the Party whose cells are all dark for the Party (RULES §15: :func:`party_light`).

    ``table``: the tokens as arrays, as the engine keeps them (:meth:`Engine.players_unseen`);
    without it they are read from the encounter, each step in C over the tokens."""
    tokens = encounter.tokens
    if table is not None:
        unseen = set(compress(table.ids, table.hidden.tolist()))
    else:
        unseen = set(compress(tokens, map(_HIDDEN, tokens.values())))
    levels = party_light(encounter)
    if not encounter.fog.enabled and levels is None:
        return frozenset(unseen)
    mask = party_sight(encounter).mask if encounter.fog.enabled else None
    if levels is not None:
        lit = levels >= DIM
        mask = lit if mask is None else mask & lit
    assert mask is not None  # the fog's, the light's or both
    if table is not None:
        looked = np.flatnonzero(~table.party & ~table.hidden)
        ids = [table.ids[k] for k in looked.tolist()]
        xs, ys, sizes = table.xs[looked], table.ys[looked], table.sizes[looked]
    else:
        others = _by_side(encounter)[1]
        placed = list(map(tokens.get, map(_ID, others)))
        on_map = list(map(is_not, placed, repeat(None)))
        others = list(compress(others, on_map))
        ids = list(map(_ID, others))
        cells = np.fromiter(chain.from_iterable(map(_CELL, compress(placed, on_map))), np.int64, 2 * len(ids))
        xs, ys = cells[0::2], cells[1::2]
        sizes = np.fromiter(map(_SIZE, others), dtype=np.int64, count=len(ids))
    if ids:
        unseen.update(compress(ids, (~_seen(mask, xs, ys, sizes)).tolist()))
    return frozenset(unseen)


def _seen(mask: BoolArray, xs: Any, ys: Any, sizes: Any) -> Any:
    """Whether some cell of each footprint (anchors ``xs``, ``ys``; ``sizes``) is in ``mask``: one array
    look-up for all the one-cell tokens, a slice for each bigger one."""
    h, w = mask.shape
    inside = (xs >= 0) & (xs < w) & (ys >= 0) & (ys < h)
    seen = np.zeros(len(xs), dtype=bool)
    ones = inside & (sizes == 1)
    seen[ones] = mask[ys[ones], xs[ones]]
    for k in np.flatnonzero(inside & (sizes != 1)).tolist():
        x, y, size = int(xs[k]), int(ys[k]), int(sizes[k])
        seen[k] = bool(mask[y : y + size, x : x + size].any())
    return seen


_HIDDEN = attrgetter("hidden")
_ID = attrgetter("id")
_CELL = attrgetter("cell")
_SIZE = attrgetter("size")
