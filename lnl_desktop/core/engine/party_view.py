"""What the Party sees now: the fog of war's eyes, shared by the engine and both windows.

The map's sight (:func:`lnl_desktop.core.map.sight.eyes_sight`) works out and caches what a group of
creatures sees; this names the group (the Party's tokens) and asks the encounter's ruleset whether
creatures see only within their field of vision (``Ruleset.sight_uses_facing``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lnl_desktop.core.encounter.model import Encounter, Side
from lnl_desktop.core.map.grid import Cell
from lnl_desktop.core.map.sight import Eye, PartyView, eyes_sight, mask_cells
from lnl_desktop.core.rules.registry import get_ruleset

if TYPE_CHECKING:
    from lnl_desktop.core.map.grid import BoolArray


def party_sight(encounter: Encounter) -> PartyView:
    """:func:`party_view`, worked out once per state of the map, the ruleset and the Party's tokens
    (their cells, facings, sizes, vision, hidden and down) however many ask."""
    tokens = encounter.tokens
    eyes: list[Eye] = []
    for c in encounter.combatants:
        token = tokens.get(c.id)
        if token is not None and c.side is Side.PARTY:
            eyes.append((c.id, token.cell, token.facing, token.hidden, c.size, c.down, c.vision_deg))
    return eyes_sight(encounter.map, tuple(eyes), get_ruleset(encounter.ruleset).sight_uses_facing)


def party_view_mask(encounter: Encounter) -> BoolArray:
    """:func:`party_view` as a ``(height, width)`` boolean array indexed ``[y, x]``."""
    return party_sight(encounter).mask.copy()


def party_view(encounter: Encounter) -> frozenset[Cell]:
    """Every cell some Party token sees now: the union of what each Party token on the map that is
    neither hidden from the players nor down sees (:func:`lnl_desktop.core.map.sight.visible_cells`),
    within its field of vision where the encounter's ruleset reads facing."""
    return mask_cells(party_sight(encounter).mask)


def players_unseen(encounter: Encounter) -> frozenset[str]:
    """The combatants whose tokens the players must not see: those the GM hid, and, with fog of
    war on, every one not of the Party that stands where no Party token sees now."""
    unseen = {cid for cid, token in encounter.tokens.items() if token.hidden}
    if not encounter.fog.enabled:
        return frozenset(unseen)
    mask = party_sight(encounter).mask
    h, w = mask.shape
    # Seen when some cell of its footprint is: one array look-up for all the one-cell tokens
    # (hundreds of them, after every action), a slice for each bigger one.
    ones: list[tuple[str, int, int]] = []
    for c in encounter.combatants:
        token = encounter.tokens.get(c.id)
        if token is None or c.side is Side.PARTY or c.id in unseen:
            continue
        x, y = token.cell
        if not (0 <= x < w and 0 <= y < h):
            unseen.add(c.id)
        elif c.size == 1:
            ones.append((c.id, x, y))
        elif not mask[y : y + c.size, x : x + c.size].any():
            unseen.add(c.id)
    if ones:
        ids, xs, ys = zip(*ones, strict=True)
        seen = mask[list(ys), list(xs)].tolist()
        unseen.update(cid for cid, visible in zip(ids, seen, strict=True) if not visible)
    return frozenset(unseen)
