"""How an attack of the L&L family is checked and what it would do (:class:`LnlAttacks`, RULES §4-7):
the attack's own checks (the weapon, the distance, a wall), the sneak attack's points (RULES §7) as a
section of the checklist with the ways to be concealed under its concealment point, and the forecast.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from lnl_desktop.core.encounter.model import Encounter, WeaponKind
from lnl_desktop.core.map.grid import footprint_center, outside_cone, token_distance_ft
from lnl_desktop.core.map.sight import blocker
from lnl_desktop.core.rules.common import Check, CheckSection
from lnl_desktop.core.rules.lnl.model import (
    AttackMeans,
    AttackMode,
    Combatant,
    LnLFamilyOptions,
    LnLStats,
    Spell,
    Weapon,
    WeaponState,
)
from lnl_desktop.core.rules.lnl.rules import (
    LNL_RULES,
    MELEE_ENGAGED_FT,
    SEES_INVISIBLE,
    LnlRules,
    _feet,
    wall_between,
)
from lnl_desktop.core.rules.shared import attack_of_action

if TYPE_CHECKING:
    from lnl_desktop.core.dice.odds import Forecast


def read_mode(word: Any) -> Any:
    """The shared frame hands an attack mode as the spec's word: the family's rules read it as their
    :class:`AttackMode`; a word of another spec (a ruleset built on L&L's attacks) or none stays as it
    is, a plain attack to the rules."""
    if type(word) is AttackMode:  # the family's own callers (its tactic, its sim) hand the mode itself
        return word
    try:
        return AttackMode(word)
    except ValueError:
        return word


class LnlAttacks:
    """The attacks of the L&L family: checked by mode (an attack, a power attack, a sneak attack, a spell)."""

    # An action with one of the family's attack modes is checked here, not by the actions' checks.
    checks_modes: frozenset[str] = frozenset(AttackMode)
    provocation_word = "Free attack"

    def __init__(self, rules: LnlRules) -> None:
        self.rules = rules

    def attack_of(self, encounter: Encounter, action: Any) -> tuple[str, str] | None:
        return attack_of_action(encounter, action, self.provocation_word)

    def sections(
        self, encounter: Encounter, attacker: Combatant, target: Combatant, means: AttackMeans
    ) -> tuple[CheckSection, ...]:
        """The sneak attack's points as a section of the checklist, the ways to be concealed (or hidden)
        under its concealment point."""
        checks = self.sneak_points(encounter, attacker, target, means)
        ways = tuple(self.concealment(encounter, attacker, target))
        details = {c.label: ways for c in checks if c.label.startswith(("Concealed", "Hidden"))}
        return (CheckSection(f"Sneak attack ({self.rules.title})", tuple(checks), details),)

    def forecast(
        self,
        attacker: LnLStats,
        target: LnLStats,
        means: AttackMeans,
        mode: str,
        options: LnLFamilyOptions,
        *,
        ignore_dex: bool = False,
        encounter: Encounter | None = None,
        extras: Mapping[str, Any] | None = None,
    ) -> Forecast:
        mode = read_mode(mode)
        return forecast_attack(attacker, target, means, mode, options, ignore_dex=ignore_dex, rules=self.rules)

    def checks(
        self,
        encounter: Encounter,
        attacker: Combatant,
        target: Combatant,
        means: AttackMeans,
        mode: str,
    ) -> list[Check]:
        mode = read_mode(mode)
        checks = [
            Check("Attacker is up", not attacker.down, f"{attacker.name} is down"),
            Check("Another combatant", attacker.id != target.id, "cannot attack itself"),
        ]
        if isinstance(means, Spell):
            checks.append(Check("A spell", mode is AttackMode.SPELL, "a spell is cast, not swung"))
        else:
            checks.append(
                Check(
                    "Weapon intact",
                    means.state is not WeaponState.BROKEN,
                    f"{means.name} is broken until repaired",
                )
            )
            checks.append(Check("A weapon", mode is not AttackMode.SPELL, "a weapon is not a spell"))
            if mode is AttackMode.SNEAK_POWER and not self.rules.sneak_may_be_power:
                checks.append(
                    Check("Not a Power Attack", False, f"in {self.rules.title} a sneak attack is never a Power Attack")
                )
        checks.extend(self._distance_checks(encounter, attacker, target, means))
        return checks

    def _distance_checks(
        self, encounter: Encounter, attacker: Combatant, target: Combatant, means: AttackMeans
    ) -> list[Check]:
        feet = encounter.distance_between(attacker, target)
        if feet is None:
            return [
                Check(
                    "Distance",
                    True,
                    "not checked: a token is not on the map",
                    applies=False,
                )
            ]
        at = f"{target.name} is {_feet(feet)} away"
        if isinstance(means, Spell):
            if means.range_ft is None:
                return [Check("In spell range", True, at)]
            return [Check("In spell range", feet <= means.range_ft, f"{at}; range {_feet(means.range_ft)}")]
        if means.kind is WeaponKind.RANGED:
            least = self.rules.ranged_minimum_ft
            checks = (
                [Check(f"At least {least} ft away", feet >= least, f"{at}: too close to shoot" if feet < least else at)]
                if least
                else []
            )
            if means.max_range_ft is not None:
                checks.append(
                    Check(
                        "Within max range",
                        feet <= means.max_range_ft,
                        f"{at}; max range {_feet(means.max_range_ft)}",
                    )
                )
            return checks
        reach = means.reach
        label = "Within reach" if means.kind is WeaponKind.REACH else "Within 5 ft (melee)"
        checks = [Check(label, feet <= reach, f"{at}; reach {_feet(reach)}")]
        wall = wall_between(encounter, attacker, target, reach) if feet <= reach else None
        if wall is not None:
            checks.append(Check("No wall between", False, f"{wall} stands between {attacker.name} and {target.name}"))
        return checks

    def sneak_points(
        self, encounter: Encounter, attacker: Combatant, target: Combatant, means: AttackMeans
    ) -> list[Check]:
        """RULES §7's eligibility points, each with its reason (the GM may override)."""
        combat = encounter.combat
        last_round = combat.round - 1
        attacked_before = any(
            r.round == last_round and r.attacker == attacker.id and r.target == target.id for r in combat.attacks
        )
        checks = [
            Check(
                "Did not attack this target last round",
                not attacked_before,
                f"{attacker.name} attacked {target.name} in round {last_round}" if attacked_before else "",
            )
        ]

        hiding, unseen, busy = self.concealment(encounter, attacker, target)
        hidden, approach, distracted = hiding.ok, unseen.ok, busy.ok
        concealed = hidden or approach
        if hidden:
            why = hiding.reason
        elif approach:
            why = unseen.reason
        elif distracted:
            why = busy.reason
        else:
            why = f"not concealed ({unseen.reason}) and {target.name} is not distracted"
        checks.append(Check("Concealed, or the target distracted", concealed or distracted, why))

        start_feet = self._start_distance(encounter, attacker, target)
        half_move = attacker.move_ft / 2
        if distracted or not concealed:
            # Distraction alone satisfies RULES §7 point 2; the half-Move limit belongs to concealment.
            checks.append(
                Check("Started within half Move", True, "not needed: the target is distracted", applies=False)
            )
        elif start_feet is None:
            checks.append(
                Check("Started within half Move", True, "not checked: a token is not on the map", applies=False)
            )
        else:
            checks.append(
                Check(
                    "Started within half Move",
                    start_feet <= half_move,
                    f"started {_feet(start_feet)} from {target.name}; half Move is {_feet(half_move)}",
                )
            )
        checks.append(Check("Not a Power Attack", True, "a sneak attack is never a Power Attack"))
        if isinstance(means, Spell):
            checks.append(Check("With a weapon", False, "a spell cannot sneak attack"))
        return checks

    def concealment(self, encounter: Encounter, attacker: Combatant, target: Combatant) -> list[Check]:
        """The three ways to meet RULES §7 point 2, each with its reason: hidden, unseen approach, distracted."""
        hidden = self.concealed_at_start(encounter, attacker, target)
        approach, approach_reason = self._approach_unseen(encounter, attacker, target)
        distracted, distracted_reason = self._distracted(encounter, attacker, target)
        if self.invisible_to(attacker, target):
            hidden_reason = f"{attacker.name} is invisible and {target.name} cannot see invisible creatures"
        elif hidden:
            hidden_reason = f"{attacker.name} was concealed at the start of the turn"
        elif attacker.has_condition("invisible"):
            hidden_reason = f"{attacker.name} is invisible, but {target.name} sees invisible creatures"
        else:
            hidden_reason = f"{attacker.name} was in plain view"
        return [
            Check("Concealed at the start of the turn", hidden, hidden_reason),
            Check("Approach from an unexpected direction", approach, approach_reason),
            Check(
                "Target distracted",
                distracted,
                distracted_reason
                or f"{target.name} is not engaged in melee, not shot since its last turn, not marked distracted",
            ),
        ]

    def _approach_unseen(self, encounter: Encounter, attacker: Combatant, target: Combatant) -> tuple[bool, str]:
        """Whether the attacker stayed out of the target's sight at every point of its path this
        turn: outside its vision cone, or behind a wall, wall segment or closed door that blocks
        every line of sight from it (the wall is named)."""
        all_around = f"{target.name} sees all around ({target.vision_deg} degrees)"
        ta, tt = encounter.tokens.get(attacker.id), encounter.tokens.get(target.id)
        if ta is None or tt is None:
            return False, all_around if target.vision_deg >= 360 else "facing not checked: a token is not on the map"
        turn = encounter.combat.turn
        path = list(turn.path) if turn and turn.combatant == attacker.id and turn.path else [ta.cell]
        center = footprint_center(tt.cell, target.size)
        behind: str | None = None  # the first wall that hid a point of the path inside the cone
        in_cone = 0
        for point in path:
            if outside_cone(center, tt.facing, target.vision_deg, footprint_center(point, attacker.size)):
                continue
            in_cone += 1
            wall = blocker(encounter.map, tt.cell, target.size, point, attacker.size)
            if wall is None:
                if target.vision_deg >= 360:
                    return False, all_around
                return False, f"path crossed {target.name}'s {target.vision_deg} degree view"
            behind = behind or wall
        moved = "approach" if len(path) > 1 else "position"
        if behind is None:
            return True, f"whole {moved} stayed outside {target.name}'s {target.vision_deg} degree view"
        if in_cone == len(path):
            return True, f"whole {moved} stayed out of {target.name}'s sight, behind {behind}"
        return True, (
            f"whole {moved} stayed out of {target.name}'s sight: outside its {target.vision_deg} degree view "
            f"or behind {behind}"
        )

    def _distracted(self, encounter: Encounter, attacker: Combatant, target: Combatant) -> tuple[bool, str]:
        if target.distracted:
            return True, f"{target.name} is distracted (GM)"
        shooters = [s for s in encounter.combat.ranged_hits.get(target.id, []) if s != attacker.id]
        if shooters:
            who = encounter.combatant(shooters[0]).name
            return True, f"{target.name} was shot by {who} since its last turn"
        foe = self.engaged_with(encounter, attacker, target)
        if foe is not None:
            return True, f"{target.name} is engaged in melee with {foe.name}"
        return False, ""

    def engaged_with(self, encounter: Encounter, attacker: LnLStats, target: LnLStats) -> Any:
        """A creature other than the attacker engaging ``target`` in melee (another side, up, within 5 ft), or None."""
        for other in encounter.combatants:
            if other.id in (attacker.id, target.id) or other.down or other.side is target.side:
                continue
            feet = encounter.distance_between(other, target)
            if feet is None or feet > MELEE_ENGAGED_FT:
                continue
            if wall_between(encounter, other, target, MELEE_ENGAGED_FT) is None:
                return other
        return None

    def concealed_at_start(self, encounter: Encounter, attacker: LnLStats, target: Any = None) -> bool:
        """Whether the attacker was concealed when its turn began (now, outside its turn): the GM's
        flag, or invisible to ``target`` (to any target when none is named)."""
        turn = encounter.combat.turn
        flagged = turn.concealed_at_start if turn is not None and turn.combatant == attacker.id else attacker.concealed
        return flagged or self.invisible_to(attacker, target)

    @staticmethod
    def invisible_to(attacker: Any, target: Any = None) -> bool:
        """An invisible attacker counts as concealed (RULES §7) from every target that cannot see
        invisible creatures: one with the condition "sees invisible" sees it."""
        if not attacker.has_condition("invisible"):
            return False
        return target is None or not target.has_condition(SEES_INVISIBLE)

    def _start_distance(self, encounter: Encounter, attacker: Combatant, target: Combatant) -> float | None:
        tt = encounter.tokens.get(target.id)
        turn = encounter.combat.turn
        start = turn.start_cell if turn and turn.combatant == attacker.id else None
        if start is None:
            token = encounter.tokens.get(attacker.id)
            start = token.cell if token else None
        if start is None or tt is None:
            return None
        grid = encounter.map
        return token_distance_ft(start, attacker.size, tt.cell, target.size, grid.diagonal, grid.feet_per_cell)


def forecast_attack(
    attacker: LnLStats,
    target: LnLStats,
    means: Weapon | Spell,
    mode: AttackMode,
    options: LnLFamilyOptions,
    *,
    ignore_dex: bool = False,
    rules: LnlRules | None = None,
) -> Forecast:
    """The exact forecast of an attack by L&L's rules, or by another edition of the family (:mod:`.odds`)."""
    from lnl_desktop.core.rules.lnl.odds import forecast_with  # numpy's distributions: at the first forecast

    return forecast_with(rules or LNL_RULES, attacker, target, means, mode, options, ignore_dex=ignore_dex)
