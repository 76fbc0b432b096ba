"""How an L&L-family fight starts and a round begins (RULES §2): the surprise and initiative d6 read by
the ambush situation (:class:`LnlRounds`), and who acts next within a round (:class:`LnlTurns`: side by
side, a parry in force ending as its holder's turn begins)."""

from __future__ import annotations

from typing import Any

from lnl_desktop.core.dice.rolls import DiceSource, roll_plain
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.events import Event
from lnl_desktop.core.encounter.model import Encounter, Side
from lnl_desktop.core.errors import IllegalAction
from lnl_desktop.core.rules.base import Table
from lnl_desktop.core.rules.common import Opening, RoundOrder
from lnl_desktop.core.rules.lnl.model import LnLStats, ParryEnded, SurpriseSituation
from lnl_desktop.core.rules.lnl.rules import SITUATION_TIPS, initiative, reverse_ambush_outcome, surprise
from lnl_desktop.core.rules.shared import GmSaysRounds, SideTurns
from lnl_desktop.core.rules.specs import Situation, StartProcedure


class LnlRounds(GmSaysRounds):
    """Round 1 from the surprise table's d6 by situation (a reverse ambush by the GM's hand); each
    later round an initiative d6; no parry outlives a fight."""

    def start_procedure(self) -> StartProcedure:
        def reading(situation: str, face: int) -> str:
            return surprise(SurpriseSituation(situation), face).text

        return StartProcedure(
            question="Who ambushes whom?",
            situations=tuple(
                Situation(s.value, s.value[0].upper() + s.value[1:], SITUATION_TIPS[s], s is SurpriseSituation.REVERSE)
                for s in SurpriseSituation
            ),
            die_label="surprise and initiative",
            reading=reading,
        )

    def open_combat(self, engine: Table, action: act.StartCombat, dice: DiceSource) -> Opening:
        try:
            situation = SurpriseSituation(action.situation)
        except ValueError:
            known = ", ".join(s.value for s in SurpriseSituation)
            raise IllegalAction(
                "Start combat", [f"{action.situation!r} is not a situation of {self.title} ({known})"]
            ) from None
        face: int | None = None
        if situation is SurpriseSituation.REVERSE:
            if action.first_side is None:
                raise IllegalAction("Start combat", ["a reverse ambush needs the GM to say who acts first"])
            outcome = reverse_ambush_outcome(action.first_side, action.surprised_side)
        else:
            face = action.face if action.face is not None else roll_plain(dice, 6, "surprise and initiative").face
            outcome = surprise(situation, face)
        rolled = f"rolled {face}: " if face is not None else ""
        return Opening(
            situation=situation.value,
            first_side=outcome.first_side,
            surprised_side=outcome.surprised_side,
            text=f"Round 1 ({situation.value}): {rolled}{outcome.text}",
            face=face,
        )

    def round_order(self, engine: Table, action: act.NextRound, dice: DiceSource) -> RoundOrder:
        face = action.face if action.face is not None else roll_plain(dice, 6, "initiative").face
        first = initiative(face)
        return RoundOrder(first, face, f"initiative {face}, {first.acts_first}")

    def initiative(self, face: int) -> Side:
        return initiative(face)

    def on_combat_start(self, engine: Table) -> None:
        for c in engine.encounter.combatants:
            c.parry = None

    def on_combat_end(self, engine: Table) -> None:
        for c in engine.encounter.combatants:
            c.parry = None


class LnlTurns(SideTurns):
    """Side by side (RULES §2); a creature down takes no turn where the options say so; a parry in force
    ends as its holder's next turn begins."""

    def turn_refusal(self, encounter: Encounter, c: Any) -> str | None:
        if c.down and encounter.options.down_skips_turns:
            return f"{c.name} is down"
        if c.surprised:
            return f"{c.name} is surprised in {encounter.combat.round_phrase}"
        return None

    def on_turn_start(self, engine: Table, c: LnLStats) -> list[Event]:
        if c.parry is None:
            return []
        c.parry = None
        rnd = engine.encounter.combat.round
        return [ParryEnded(round=rnd, text=f"{c.name} stops parrying", actors=(c.id,), combatant=c.id)]
