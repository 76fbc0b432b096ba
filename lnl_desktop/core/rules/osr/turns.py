"""Old-School d20's turns (RULES §12): the shared order of turns, but the dead, the fallen and those who
surrendered take none; as a turn begins, a Defend ends, a spell cast last turn goes off, and the
conditions that act at the start of a turn (burning, confused) ask for their roll."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lnl_desktop.core.encounter.events import Event, Override
from lnl_desktop.core.encounter.model import Encounter
from lnl_desktop.core.rules.osr import condition_table as cond
from lnl_desktop.core.rules.osr import play
from lnl_desktop.core.rules.osr.model import MoraleResult, OsrCombatant
from lnl_desktop.core.rules.shared import SideTurns

if TYPE_CHECKING:
    from lnl_desktop.core.rules.base import Table


class OsrTurns(SideTurns):
    """Who acts next in the initiative order (:class:`SideTurns`), and who takes no turn at all."""

    def turn_refusal(self, encounter: Encounter, c: OsrCombatant) -> str | None:  # type: ignore[override]
        if c.dead:
            return f"{c.name} is dead"
        if c.down:
            return f"{c.name} is down"
        if c.morale_result is MoraleResult.SURRENDERS:
            return f"{c.name} has surrendered"
        if cond.surprised(encounter, c):
            return f"{c.name} is surprised in {encounter.combat.round_phrase}"
        return None

    def on_turn_start(self, engine: Table, c: OsrCombatant) -> list[Event]:  # type: ignore[override]
        events: list[Event] = []
        rnd = engine.encounter.combat.round
        if c.defending is not None:
            c.defending = None
            events.append(Override(round=rnd, text=f"{c.name}'s Defend ends (its turn has come)"))
        if c.casting is not None:
            spell, c.casting = c.casting, None
            events.append(Override(round=rnd, text=f"{c.name}'s {spell} goes off (cast last turn, not interrupted)"))
        return events + play.turn_start_conditions(engine, c)
