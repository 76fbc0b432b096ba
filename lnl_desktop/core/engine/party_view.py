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
