"""Old-School d20's movement (RULES §12): a Move in feet that the turn's action shortens (a ranged attack
half of it, a melee attack or a spell none after), and counter-attacks when a path leaves a foe's reach."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lnl_desktop.core.encounter.events import Event
from lnl_desktop.core.encounter.model import Phase
from lnl_desktop.core.rules.osr import condition_table as cond
from lnl_desktop.core.rules.osr import play
from lnl_desktop.core.rules.osr.model import OsrCombatant
from lnl_desktop.core.rules.shared import FeetMovement
from lnl_desktop.core.rules.specs import Provocation

if TYPE_CHECKING:
    from lnl_desktop.core.rules.base import Table


class OsrMovement(FeetMovement):
    """Movement by feet (:class:`FeetMovement`), cut by the turn's action, provoking counter-attacks."""

    provocation_word = "Counter-attack"

    def allowance(self, engine: Table, c: OsrCombatant) -> float:  # type: ignore[override]
        """Before the action, a full Move; then what the action allows: a ranged attack half the
        Move in all, a Move (or another action) the full Move, a melee attack, charge, defend or
        spell no more."""
        turn = engine.encounter.combat.turn
        full = c.move_ft / 2 if cond.level(c) >= 3 else float(c.move_ft)  # exhausted 3+: half Move
        if turn is None or turn.action is None or turn.action in ("move", "other"):
            return full
        if turn.action == "ranged":
            return max(full / 2, turn.feet_used)
        return turn.feet_used

    def provocations(self, engine: Table, cid: str, path: list[tuple[int, int]]) -> list[Provocation]:
        combat = engine.encounter.combat
        if combat.phase is not Phase.FIGHTING:
            return []
        return play.provocations(engine, engine.combatant(cid), path)

    def after_move(  # type: ignore[override]
        self, engine: Table, c: OsrCombatant, path: list[tuple[int, int]], forced: bool
    ) -> list[Event]:
        if engine.encounter.combat.phase is not Phase.FIGHTING:
            return []
        return play.after_move(engine, c, path, forced)
