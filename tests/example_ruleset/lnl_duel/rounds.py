"""Duel's rounds: a d6 at the start of combat and of every round says which side acts first."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lnl_desktop.core.dice.rolls import DiceSource, roll_plain
from lnl_desktop.core.encounter.model import Side
from lnl_desktop.core.errors import IllegalAction
from lnl_desktop.core.rules.common import Opening, RoundOrder
from lnl_desktop.core.rules.shared import GmSaysRounds
from lnl_desktop.core.rules.specs import RowAction, Situation, StartProcedure
from lnl_duel.model import ROLL, TITLE
from lnl_duel.rules import initiative

if TYPE_CHECKING:
    from lnl_desktop.core.rules.base import Table


class DuelRounds(GmSaysRounds):
    """A d6 at the start of combat and of every round: 1-3 the Opponents act first, 4-6 the Party."""

    def __init__(self) -> None:
        super().__init__(TITLE)

    def start_procedure(self) -> StartProcedure:
        return StartProcedure(
            question="Who strikes first?",
            situations=(Situation(ROLL, "Roll a d6", "1-3: the Opponents act first; 4-6: the Party"),),
            die_label="initiative",
            reading=lambda situation, face: initiative(face).acts_first,
            by_hand_surprise=False,
        )

    def initiative(self, face: int) -> Side:
        return initiative(face)

    def open_combat(self, engine: Table, action: Any, dice: DiceSource) -> Opening:
        if action.situation != ROLL:
            raise IllegalAction("Start combat", [f"{action.situation!r} is not a situation of {TITLE} ({ROLL})"])
        face = action.face if action.face is not None else roll_plain(dice, 6, "initiative").face
        first = initiative(face)
        return Opening(ROLL, first, None, f"Round 1: d6 {face}, {first.acts_first}", face=face)

    def round_order(self, engine: Table, action: Any, dice: DiceSource) -> RoundOrder:
        face = action.face if action.face is not None else roll_plain(dice, 6, "initiative").face
        first = initiative(face)
        return RoundOrder(first, face, f"d6 {face}, {first.acts_first}")

    def row_actions(self, engine: Table, c: Any) -> tuple[RowAction, ...]:
        return ()
