"""How an L&L Classic fight starts (RULES §11): a surprise d6 of its own before round 1 that may give one
side a surprise round, or the GM's word; then an initiative d6 as in L&L."""

from __future__ import annotations

from lnl_desktop.core.dice.rolls import DiceSource, roll_plain
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.model import Side
from lnl_desktop.core.errors import IllegalAction
from lnl_desktop.core.rules.base import Table
from lnl_desktop.core.rules.common import Opening
from lnl_desktop.core.rules.lnl.rounds import LnlRounds
from lnl_desktop.core.rules.specs import Situation, StartProcedure

# The Start combat dialog's situations (RULES §11): the surprise d6, or the GM's hand.
ROLL, PARTY, OPPONENTS, NONE = "roll for surprise", "Party surprise round", "Opponents surprise round", "no surprise"


def surprise_reading(face: int) -> tuple[Side | None, str]:
    """The surprise d6: 1 the Opponents get a surprise round, 6 the Party, 2-5 nobody."""
    if not 1 <= face <= 6:
        raise IllegalAction("Surprise", [f"{face} is not a face of a d6 (1 to 6)"])
    if face == 1:
        return Side.OPPONENTS, "the Opponents get a surprise round"
    if face == 6:
        return Side.PARTY, "the Party gets a surprise round"
    return None, "no surprise round: round 1 starts with an initiative d6"


class ClassicRounds(LnlRounds):
    """L&L's rounds, with Classic's surprise round before round 1."""

    def start_procedure(self) -> StartProcedure:
        def reading(situation: str, face: int) -> str:
            words = surprise_reading(face)[1]
            return words[0].upper() + words[1:]

        def then_initiative(situation: str, face: int | None) -> bool:
            if situation == NONE:
                return True
            if situation == ROLL:
                return face is None or surprise_reading(face)[0] is None
            return False

        return StartProcedure(
            question="Surprise before round 1",
            situations=(
                Situation(
                    ROLL, "Roll the surprise d6", "1: the Opponents get a surprise round; 6: the Party; 2-5: none"
                ),
                Situation(PARTY, "The Party gets a surprise round (GM)", "Only the Party acts before round 1", True),
                Situation(
                    OPPONENTS, "The Opponents get a surprise round (GM)", "Only the Opponents act before round 1", True
                ),
                Situation(NONE, "No surprise (GM)", "Round 1 starts at once with an initiative d6"),
            ),
            die_label="surprise",
            reading=reading,
            then_initiative=then_initiative,
            by_hand_surprise=False,
        )

    def open_combat(self, engine: Table, action: act.StartCombat, dice: DiceSource) -> Opening:
        face: int | None = None
        if action.situation == ROLL:
            face = action.face if action.face is not None else roll_plain(dice, 6, "surprise").face
            surprising, words = surprise_reading(face)
            # The table's words say what comes next; the log line says it happened.
            said = f"Surprise d6 {face}: {words if surprising is not None else 'no surprise round'}"
        elif action.situation in (PARTY, OPPONENTS):
            surprising = Side.PARTY if action.situation == PARTY else Side.OPPONENTS
            verb = "gets" if surprising is Side.PARTY else "get"
            said = f"Surprise (GM): the {surprising.value} {verb} a surprise round"
        elif action.situation == NONE:
            surprising, said = None, "No surprise (GM)"
        else:
            known = ", ".join((ROLL, PARTY, OPPONENTS, NONE))
            raise IllegalAction("Start combat", [f"{action.situation!r} is not a situation of {self.title} ({known})"])
        if surprising is not None:
            return Opening(
                situation=action.situation,
                first_side=surprising,
                surprised_side=surprising.other,
                text=f"{said}: only the {surprising.value} {'acts' if surprising is Side.PARTY else 'act'}",
                face=face,
                first_round=0,
            )
        initiative = (
            action.initiative_face if action.initiative_face is not None else roll_plain(dice, 6, "initiative").face
        )
        first = self.initiative(initiative)
        return Opening(
            situation=action.situation,
            first_side=first,
            surprised_side=None,
            text=f"{said}. Round 1: initiative {initiative}, {first.acts_first}",
            face=face,
            initiative_face=initiative,
        )
