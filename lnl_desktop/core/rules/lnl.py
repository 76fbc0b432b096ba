"""The Laurels & Loot ruleset (RULES.md sections 1-9), the program's default.

Pure functions of the encounter and the dice: nothing here changes a combatant. The engine
asks, then writes what it is told.
"""

from __future__ import annotations

import math

from lnl_desktop.core.dice import DiceSource, roll_exploding, roll_plain, sides_of
from lnl_desktop.core.errors import IllegalAction
from lnl_desktop.core.events import PrecisionCheck
from lnl_desktop.core.grid import path_outside_cone, token_distance_ft
from lnl_desktop.core.model import (
    Ability,
    Combatant,
    Encounter,
    RulesOptions,
    ShieldState,
    Side,
    Spell,
    SurpriseSituation,
    Weapon,
    WeaponKind,
    WeaponState,
    WeaponStyle,
)
from lnl_desktop.core.rules.common import (
    Application,
    AttackMeans,
    AttackMode,
    AttackOutcome,
    Check,
    SurpriseOutcome,
)

RANGED_MINIMUM_FT = 10
MELEE_ENGAGED_FT = 5

PTY, OPP = Side.PARTY, Side.OPPONENTS

# RULES §2: the first round's d6, read by situation. (first side, surprised side, words)
_SURPRISE: dict[SurpriseSituation, dict[int, tuple[Side, Side | None, str]]] = {
    SurpriseSituation.NOBODY: {
        1: (OPP, PTY, "Party surprised: Opponents act first"),
        2: (OPP, None, "Opponents act first"),
        3: (OPP, None, "Opponents act first"),
        4: (PTY, None, "Party acts first"),
        5: (PTY, None, "Party acts first"),
        6: (PTY, OPP, "Opponents surprised: Party acts first"),
    },
    SurpriseSituation.OPPONENTS_AMBUSH: {
        1: (OPP, PTY, "Ambush succeeds, Party surprised: Opponents act first"),
        2: (OPP, PTY, "Ambush succeeds, Party surprised: Opponents act first"),
        3: (OPP, None, "Opponents act first, no surprise"),
        4: (PTY, None, "Ambush detected: Party acts first"),
        5: (PTY, None, "Party acts first"),
        6: (PTY, None, "Party acts first"),
    },
    SurpriseSituation.PARTY_AMBUSH: {
        1: (OPP, None, "Ambush detected: Opponents act first"),
        2: (OPP, None, "Opponents act first"),
        3: (OPP, None, "Opponents act first"),
        4: (PTY, None, "Party acts first, no surprise"),
        5: (PTY, OPP, "Ambush succeeds, Opponents surprised: Party acts first"),
        6: (PTY, OPP, "Ambush succeeds, Opponents surprised: Party acts first"),
    },
}


def dice_count(level: int) -> int:
    """The Damage Level Multiplier: 1 die at levels 1-2, +1 at every odd level."""
    return (level + 1) // 2


def exertion_cost(face: int, specialized: bool) -> int:
    """A d4 of SP; Weapon Specialization halves it, rounding up."""
    return math.ceil(face / 2) if specialized else face


def reverse_ambush_outcome(first_side: Side, surprised_side: Side | None) -> SurpriseOutcome:
    """A reverse ambush: the GM sets the outcome by hand."""
    if surprised_side is first_side:
        raise IllegalAction("Reverse ambush", ["the side that acts first cannot be the surprised one"])
    words = first_side.acts_first
    if surprised_side is not None:
        words = f"{surprised_side.value} surprised: {words}"
    return SurpriseOutcome(first_side, surprised_side, f"Reverse ambush (GM): {words}")


def distance_between(encounter: Encounter, a: Combatant, b: Combatant) -> float | None:
    """Feet between the nearest occupied cells, or None when either is not on the map."""
    ta, tb = encounter.tokens.get(a.id), encounter.tokens.get(b.id)
    if ta is None or tb is None:
        return None
    grid = encounter.map
    return token_distance_ft(ta.cell, a.size, tb.cell, b.size, grid.diagonal, grid.feet_per_cell)


def _feet(value: float) -> str:
    return f"{value:g} ft"


class LnLRuleset:
    name = "lnl"
    title = "Laurels & Loot"

    # -- the round -------------------------------------------------------------------------

    def initiative(self, face: int) -> Side:
        if not 1 <= face <= 6:
            raise IllegalAction("Initiative", [f"{face} is not a face of a d6 (1 to 6)"])
        return OPP if face <= 3 else PTY

    def surprise(self, situation: SurpriseSituation, face: int) -> SurpriseOutcome:
        if situation is SurpriseSituation.REVERSE:
            raise IllegalAction("Reverse ambush", ["the GM sets the outcome by hand"])
        if not 1 <= face <= 6:
            raise IllegalAction("Surprise", [f"{face} is not a face of a d6 (1 to 6)"])
        first, surprised, words = _SURPRISE[situation][face]
        return SurpriseOutcome(first, surprised, words)

    # -- attacks ---------------------------------------------------------------------------

    def attack_checks(
        self,
        encounter: Encounter,
        attacker: Combatant,
        target: Combatant,
        means: AttackMeans,
        mode: AttackMode,
    ) -> list[Check]:
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
        checks.extend(self._distance_checks(encounter, attacker, target, means))
        return checks

    def _distance_checks(
        self, encounter: Encounter, attacker: Combatant, target: Combatant, means: AttackMeans
    ) -> list[Check]:
        feet = distance_between(encounter, attacker, target)
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
            checks = [
                Check(
                    "At least 10 ft away",
                    feet >= RANGED_MINIMUM_FT,
                    f"{at}: too close to shoot" if feet < RANGED_MINIMUM_FT else at,
                )
            ]
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
        return [Check(label, feet <= reach, f"{at}; reach {_feet(reach)}")]

    def sneak_checks(
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

        hiding, unseen, busy = self.concealment_details(encounter, attacker, target)
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

    def concealment_details(self, encounter: Encounter, attacker: Combatant, target: Combatant) -> list[Check]:
        """The three ways to meet RULES §7 point 2, each with its reason: hidden, unseen approach, distracted."""
        turn = encounter.combat.turn
        mine = turn if turn is not None and turn.combatant == attacker.id else None
        hidden = mine.concealed_at_start if mine else attacker.concealed
        approach, approach_reason = self._approach_unseen(encounter, attacker, target)
        distracted, distracted_reason = self._distracted(encounter, attacker, target)
        return [
            Check(
                "Concealed at the start of the turn",
                hidden,
                f"{attacker.name} was concealed at the start of the turn"
                if hidden
                else f"{attacker.name} was in plain view",
            ),
            Check("Approach from an unexpected direction", approach, approach_reason),
            Check(
                "Target distracted",
                distracted,
                distracted_reason
                or f"{target.name} is not engaged in melee, not shot since its last turn, not marked distracted",
            ),
        ]

    def _approach_unseen(self, encounter: Encounter, attacker: Combatant, target: Combatant) -> tuple[bool, str]:
        """Whether the attacker's whole path this turn stayed outside the target's vision cone."""
        if target.vision_deg >= 360:
            return False, f"{target.name} sees all around ({target.vision_deg} degrees)"
        ta, tt = encounter.tokens.get(attacker.id), encounter.tokens.get(target.id)
        if ta is None or tt is None:
            return False, "facing not checked: a token is not on the map"
        turn = encounter.combat.turn
        path = list(turn.path) if turn and turn.combatant == attacker.id and turn.path else [ta.cell]
        if path_outside_cone(tt.cell, target.size, tt.facing, target.vision_deg, path, attacker.size):
            moved = "approach" if len(path) > 1 else "position"
            return True, f"whole {moved} stayed outside {target.name}'s {target.vision_deg} degree view"
        return False, f"path crossed {target.name}'s {target.vision_deg} degree view"

    def _distracted(self, encounter: Encounter, attacker: Combatant, target: Combatant) -> tuple[bool, str]:
        if target.distracted:
            return True, f"{target.name} is distracted (GM)"
        shooters = [s for s in encounter.combat.ranged_hits.get(target.id, []) if s != attacker.id]
        if shooters:
            who = encounter.combatant(shooters[0]).name
            return True, f"{target.name} was shot by {who} since its last turn"
        for other in encounter.combatants:
            if other.id in (attacker.id, target.id) or other.down or other.side is target.side:
                continue
            feet = distance_between(encounter, other, target)
            if feet is not None and feet <= MELEE_ENGAGED_FT:
                return True, f"{target.name} is engaged in melee with {other.name}"
        return False, ""

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

    def resolve_attack(
        self,
        attacker: Combatant,
        target: Combatant,
        means: AttackMeans,
        mode: AttackMode,
        dice: DiceSource,
        options: RulesOptions,
        *,
        ignore_dex: bool = False,
    ) -> AttackOutcome:
        n = dice_count(attacker.level)
        sneak = mode is AttackMode.SNEAK
        precision: PrecisionCheck | None = None
        exertion_face: int | None = None
        exertion = 0

        if isinstance(means, Spell):
            base = n
            magic_bonus, magic_term = 0, 0
            ability = means.ability
            attack_kind = "spell"
            direct = means.direct
            dex_ignored = ignore_dex or not means.dex_applies
            ap_ignored = not means.ap_applies
        else:
            weapon: Weapon = means
            base = 2 * n if mode is AttackMode.POWER else n
            magic_bonus = weapon.magic_bonus
            bonus_dice = base if options.power_attack_magic_all_dice else n
            magic_term = magic_bonus * bonus_dice
            if sneak and not options.sneak_magic_bonus:
                magic_term = 0
            ability = weapon.ability
            attack_kind = weapon.kind.value
            direct = sneak or weapon.kind is WeaponKind.RANGED
            dex_ignored = sneak or ignore_dex
            ap_ignored = False
            if sneak and (weapon.kind is WeaponKind.RANGED or weapon.style is WeaponStyle.FINESSE):
                # Precision: strike the weak point; success means armor does not count.
                check = roll_plain(dice, 20, f"{attacker.name}'s AWA check")
                precision = PrecisionCheck(face=check.face, bonus=attacker.awa_bonus, dc=10 + target.armor_points)
                ap_ignored = precision.success

        faces = roll_exploding(dice, base, sides_of(means.die), f"{attacker.name}'s {means.name} damage")
        ability_term = attacker.bonus(Ability(ability)) if ability else 0
        dex_term = 0 if dex_ignored else target.dex_bonus
        ap_term = 0 if ap_ignored else target.armor_points
        raw = sum(f.face for f in faces) + magic_term + ability_term - dex_term - ap_term
        damage = max(options.minimum_damage, raw)

        if isinstance(means, Weapon):
            costs = means.kind is WeaponKind.RANGED or options.melee_exertion
            if costs:
                exertion_face = roll_plain(dice, 4, f"{attacker.name}'s exertion").face
                exertion = exertion_cost(exertion_face, means.specialized)

        explosions = sum(1 for f in faces if f.exploded)
        application = self.apply_damage(target, damage, direct, explosions, options)
        return AttackOutcome(
            means=means.name,
            mode=mode,
            attack_kind=attack_kind,
            die=means.die,
            dice_count=base,
            faces=faces,
            magic_bonus=magic_bonus,
            magic_term=magic_term,
            ability=ability.value if ability else None,
            ability_term=ability_term,
            dex_term=dex_term,
            dex_ignored=dex_ignored,
            ap_term=ap_term,
            ap_ignored=ap_ignored,
            raw=raw,
            damage=damage,
            direct=direct,
            application=application,
            precision=precision,
            exertion_face=exertion_face,
            exertion_cost=exertion,
            breaks_weapon=mode is AttackMode.POWER,
        )

    def apply_damage(
        self, target: Combatant, damage: int, direct: bool, explosions: int, options: RulesOptions
    ) -> Application:
        """Where ``damage`` goes on ``target``: a parry first, then SP (spilling to IP) or IP."""
        result = Application(stamina_after=target.stamina, injury_after=target.injury)
        through = damage
        parry = target.parry
        if parry is not None and parry.weapon is not None:
            weapon = target.weapon(parry.weapon)
            if weapon.state is not WeaponState.BROKEN:
                # The weapon stops the whole blow; its (M+1)-th exploding die shatters it.
                counted = parry.explosions + explosions
                result.parried_with = weapon.name
                result.stopped = damage
                through = 0
                if counted >= weapon.magic_bonus + 1:
                    result.parry_weapon_shattered = weapon.name
                    result.parry_ends = True
                else:
                    result.parry_explosions = counted
        elif parry is not None and parry.shield and target.shield is not None:
            shield = target.shield
            if shield.state is not ShieldState.DESTROYED:
                result.parried_with = "shield"
                left = shield.durability
                doubled = 2 * damage
                if doubled <= left:
                    result.shield_damage = doubled
                    result.shield_durability_after = left - doubled
                    result.stopped = damage
                    through = 0
                else:
                    result.shield_damage = left
                    result.shield_durability_after = 0
                    result.shield_destroyed = True
                    result.parry_ends = True
                    through = damage - math.ceil(left / 2) if options.shield_overflow_half else damage
                    through = max(0, through)
                    result.stopped = damage - through

        if direct:
            result.to_ip = min(through, target.injury)
            result.overkill = through - result.to_ip
        else:
            result.to_sp = min(through, target.stamina)
            rest = through - result.to_sp
            if options.spill_to_injury:
                result.to_ip = min(rest, target.injury)
                rest -= result.to_ip
            result.overkill = rest
        result.stamina_after = target.stamina - result.to_sp
        result.injury_after = target.injury - result.to_ip
        return result


LNL = LnLRuleset()
