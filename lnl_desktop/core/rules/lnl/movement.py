"""How an L&L-family combatant moves: its Move in feet plus a Dash; a Leap clears obstacles and
difficult terrain where the options say so (RULES §8)."""

from __future__ import annotations

from lnl_desktop.core.rules.base import Table
from lnl_desktop.core.rules.shared import FeetMovement


class LnlMovement(FeetMovement):
    """Movement by feet; no path provokes an attack; a Leap may ignore terrain."""

    def terrain_free(self, engine: Table, cid: str) -> bool:
        turn = engine.encounter.combat.turn
        return bool(turn and turn.combatant == cid and turn.leaping and engine.encounter.options.leap_ignores_terrain)
