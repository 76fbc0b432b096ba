"""Group d10's turns (RULES §13): the shared turn order by the round's d10 order (:class:`SideTurns`),
who takes no turn (the dead, the down, the fully surprised) and what a turn's start ends or recalls
(a parry / dodge, a mishap's lost attack, the declared action)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lnl_desktop.core.encounter.events import Event, Override
from lnl_desktop.core.rules.d10.model import DECLARED_LABEL, D10Combatant
from lnl_desktop.core.rules.d10.rules import combat_of
from lnl_desktop.core.rules.shared import SideTurns

if TYPE_CHECKING:
    from lnl_desktop.core.encounter.model import Encounter
    from lnl_desktop.core.rules.base import Table


class D10Turns(SideTurns):
    """Who acts next is the shared order; a turn's refusals and start are Group d10's."""

    def turn_refusal(self, encounter: Encounter, c: D10Combatant) -> str | None:
        if c.dead:
            return f"{c.name} is dead"
        if c.down:
            return f"{c.name} is down"
        if c.surprised:
            return f"{c.name} is taken by full surprise: no actions in {encounter.combat.round_phrase}"
        return None

    def on_turn_start(self, engine: Table, c: D10Combatant) -> list[Event]:
        events: list[Event] = []
        rnd = engine.encounter.combat.round
        c.disengaged = False
        c.stood_up = False
        if c.parrying:
            c.parrying = False  # until its next action: its turn has come
            events.append(
                Override(round=rnd, text=f"{c.name}'s parry / dodge ends (its turn has come)", actors=(c.id,))
            )
        if c.lost_attack_round is not None and c.lost_attack_round < rnd:
            c.lost_attack_round = None
        if c.lost_attack_round == rnd:
            events.append(Override(round=rnd, text=f"{c.name} has no attack this round (its mishap)", actors=(c.id,)))
        if c.has("dropped weapon") and c.lost_attack_round is None:
            c.drop_condition("dropped weapon")
        combat = combat_of(engine.encounter)
        declared = combat.declared.get(c.id)
        if declared:
            target = engine.encounter.by_id().get(combat.declared_targets.get(c.id, ""))
            on = f" on {target.name}" if target is not None else ""
            events.append(
                Override(round=rnd, text=f"{c.name} declared: {DECLARED_LABEL[declared]}{on}", actors=(c.id,))
            )
        return events
