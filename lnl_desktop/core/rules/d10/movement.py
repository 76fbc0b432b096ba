"""Group d10's movement (RULES §13): the Move in feet, twice it on a Sprint, none while prone (standing
up takes it), grappled or after a parry / dodge; leaving a foe's reach gives it a free attack."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lnl_desktop.core.encounter.events import Event
from lnl_desktop.core.encounter.model import Phase
from lnl_desktop.core.rules.d10 import play
from lnl_desktop.core.rules.d10.model import D10Combatant
from lnl_desktop.core.rules.shared import FeetMovement
from lnl_desktop.core.rules.specs import Provocation

if TYPE_CHECKING:
    from lnl_desktop.core.rules.base import Table


class D10Movement(FeetMovement):
    """Movement by feet, with Group d10's limits and its free attacks."""

    provocation_word = "Free attack"

    def allowance(self, engine: Table, c: D10Combatant) -> float:
        turn = engine.encounter.combat.turn
        if turn is not None and turn.combatant == c.id and (c.prone or c.stood_up or c.holder is not None):
            # Prone: standing up is its move; grappled: Move 0 until it breaks free.
            return turn.feet_used
        if turn is None or turn.action is None:
            return float(c.move_ft)
        if turn.action == "sprint":
            return float(engine.encounter.options.sprint_moves * c.move_ft)
        if turn.action == "parry":
            return turn.feet_used
        return float(c.move_ft)

    def refusal(self, engine: Table, c: D10Combatant) -> str | None:
        """Why ``c`` may not move at all now, in the game's words (None: it may, within its Move)."""
        if c.prone:
            return f"{c.name} is prone: Stand up first (standing takes its move this turn)"
        if c.stood_up:
            return f"{c.name} stood up this turn: standing took its move"
        holder = c.holder
        if holder is not None:
            who = engine.encounter.by_id().get(holder)
            return f"{c.name} is grappled by {who.name if who else holder}: Move 0 until it breaks free"
        return None

    def provocations(self, engine: Table, cid: str, path: list[tuple[int, int]]) -> list[Provocation]:
        if engine.encounter.combat.phase is not Phase.FIGHTING:
            return []
        return play.provocations(engine, engine.combatant(cid), path)

    def after_move(self, engine: Table, c: D10Combatant, path: list[tuple[int, int]], forced: bool) -> list[Event]:
        if engine.encounter.combat.phase is not Phase.FIGHTING:
            return []
        return play.after_move(engine, c, path, forced)
