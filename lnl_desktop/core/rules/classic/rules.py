"""L&L Classic's rules (RULES §11): the earlier edition of Laurels & Loot, as the differences from L&L.

Everything of L&L holds except: surprise is a d6 of its own before round 1 that may give one
side a surprise round; WIS where L&L has AWA, and Defense Points (DEX + AP) on the sheet; no
10 ft ranged minimum; all damage comes off SP first (no direct damage); no exertion; and its own
sneak attack (hidden from the target, or the target engaged and the whole path outside its view;
no DEX off the damage, AP applies, to SP; may be a Power Attack).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lnl_desktop.core.dice.rolls import DiceSource, roll_plain
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.model import Encounter, Side
from lnl_desktop.core.errors import IllegalAction
from lnl_desktop.core.map.sight import blocker
from lnl_desktop.core.rules.base import Situation, StartProcedure
from lnl_desktop.core.rules.classic.model import ClassicCombatant, ClassicOptions
from lnl_desktop.core.rules.common import AttackMode, Check, Opening
from lnl_desktop.core.rules.lnl import LnLRuleset
from lnl_desktop.core.rules.lnl.model import Ability, AttackMeans, LnLFamilyOptions, LnLStats, Weapon

if TYPE_CHECKING:
    from lnl_desktop.core.rules.base import Table


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


class ClassicRuleset(LnLRuleset):
    name = "classic"
    title = "L&L Classic"
    source = "the Laurels & Loot combat chapter, earlier edition"
    about = "The earlier edition: a surprise round of its own, WIS and Defense Points, all damage to SP first."
    stat_block = ClassicCombatant
    options_model = ClassicOptions

    perception = Ability.WIS
    ranged_minimum_ft = 0
    has_direct_damage = False
    has_exertion = False
    sneak_may_be_power = True
    shows_defense_points = True
    perception_tip = "WIS bonus: added to ranged damage. May be negative (L&L Classic has no AWA)"
    concealed_tip = (
        "Hidden from view (hiding, invisible). A hidden attacker may sneak attack; "
        "walls that block every line of sight from the target count too. The flag ends after the sneak attack"
    )
    surprised_tip = "Surprised: takes no turn in the other side's surprise round. The surprise d6 sets it"
    bestiary_file = "bestiary-classic.json"
    demo_file = "hill-giant-classic.lnl"

    # -- the damage: to SP first, no exertion, no precision check -----------------------------

    def is_direct(self, means: AttackMeans, mode: AttackMode) -> bool:
        return False

    def precision_check(
        self, attacker: LnLStats, target: LnLStats, weapon: Weapon, mode: AttackMode
    ) -> tuple[int, int] | None:
        return None

    def sneak_adds_magic(self, options: LnLFamilyOptions) -> bool:
        return True  # the normal formula, less the target's DEX

    def costs_exertion(self, means: AttackMeans, options: LnLFamilyOptions) -> bool:
        return False

    # -- the surprise round ------------------------------------------------------------------

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

    def open_combat(self, engine: Table, a: act.StartCombat, dice: DiceSource) -> Opening:
        face: int | None = None
        if a.situation == ROLL:
            face = a.face if a.face is not None else roll_plain(dice, 6, "surprise").face
            surprising, words = surprise_reading(face)
            # The table's words say what comes next; the log line says it happened.
            said = f"Surprise d6 {face}: {words if surprising is not None else 'no surprise round'}"
        elif a.situation in (PARTY, OPPONENTS):
            surprising = Side.PARTY if a.situation == PARTY else Side.OPPONENTS
            verb = "gets" if surprising is Side.PARTY else "get"
            said = f"Surprise (GM): the {surprising.value} {verb} a surprise round"
        elif a.situation == NONE:
            surprising, said = None, "No surprise (GM)"
        else:
            known = ", ".join((ROLL, PARTY, OPPONENTS, NONE))
            raise IllegalAction("Start combat", [f"{a.situation!r} is not a situation of {self.title} ({known})"])
        if surprising is not None:
            return Opening(
                situation=a.situation,
                first_side=surprising,
                surprised_side=surprising.other,
                text=f"{said}: only the {surprising.value} {'acts' if surprising is Side.PARTY else 'act'}",
                face=face,
                first_round=0,
            )
        initiative = a.initiative_face if a.initiative_face is not None else roll_plain(dice, 6, "initiative").face
        first = self.initiative(initiative)
        return Opening(
            situation=a.situation,
            first_side=first,
            surprised_side=None,
            text=f"{said}. Round 1: initiative {initiative}, {first.acts_first}",
            face=face,
            initiative_face=initiative,
        )

    # -- the Classic sneak attack ----------------------------------------------------------------

    def sneak_checks(self, encounter: Encounter, attacker: Any, target: Any, means: AttackMeans) -> list[Check]:
        hidden, unseen_los, engaged, approach = self.concealment_details(encounter, attacker, target)
        is_hidden = hidden.ok or unseen_los.ok
        from_behind = engaged.ok and approach.ok
        if is_hidden:
            why = hidden.reason if hidden.ok else unseen_los.reason
        elif from_behind:
            why = f"{engaged.reason}, and {approach.reason}"
        elif engaged.ok:
            why = f"{engaged.reason}, but {approach.reason}"
        else:
            why = f"{attacker.name} is in {target.name}'s sight and {target.name} is not engaged with another creature"
        checks = [
            Check(
                "Hidden from the target, or the target engaged and approached from behind",
                is_hidden or from_behind,
                why,
            ),
            Check("May also be a Power Attack", True, "allowed in L&L Classic", applies=False),
        ]
        if not isinstance(means, Weapon):
            checks.append(Check("With a weapon", False, "a spell cannot sneak attack"))
        return checks

    def concealment_details(self, encounter: Encounter, attacker: Any, target: Any) -> list[Check]:
        """Hidden (the flag), out of sight behind walls, the target engaged, the approach unseen."""
        flagged = self.concealed_at_start(encounter, attacker, target)
        ta, tt = encounter.tokens.get(attacker.id), encounter.tokens.get(target.id)
        if ta is None or tt is None:
            sight, sight_reason = False, "line of sight not checked: a token is not on the map"
        elif (wall := blocker(encounter.map, tt.cell, target.size, ta.cell, attacker.size)) is None:
            sight, sight_reason = False, f"{target.name} has a line of sight to {attacker.name}"
        else:
            # Walls, wall segments or closed doors on every line of sight: completely hidden (RULES §11).
            sight, sight_reason = True, f"{attacker.name} is behind {wall}: no line of sight from {target.name}"
        engaged, engaged_reason = self._engaged(encounter, attacker, target)
        approach, approach_reason = self._approach_unseen(encounter, attacker, target)
        return [
            Check(
                "Hidden (concealed flag)",
                flagged,
                f"{attacker.name} was hidden at the start of the turn"
                if flagged
                else f"{attacker.name} was in plain view",
            ),
            Check("Out of the target's sight", sight, sight_reason),
            Check("Target engaged with another creature", engaged, engaged_reason),
            Check("Whole path outside the target's view", approach, approach_reason),
        ]

    def _engaged(self, encounter: Encounter, attacker: Any, target: Any) -> tuple[bool, str]:
        if target.distracted:
            return True, f"{target.name} is busy with another creature (GM)"
        foe = self.engaged_with(encounter, attacker, target)
        if foe is not None:
            return True, f"{target.name} is engaged in melee with {foe.name}"
        return False, f"{target.name} is not engaged in melee with another creature"


CLASSIC = ClassicRuleset()
