"""The Laurels & Loot family's combat arithmetic (RULES §1-9, and §11 for what sets L&L Classic apart).

The surprise and initiative dice, the damage formula (one :class:`DamagePlan`, rolled by
:meth:`LnlRules.resolve_attack` and weighed exactly by the forecast), where damage lands
(:func:`apply_damage`). Nothing here changes a combatant: the engine asks, then writes what it is
told (through :mod:`.play`). :class:`LnlRules` is one edition's numbers; Classic subclasses it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

from lnl_desktop.core.dice.rolls import DiceSource, roll_exploding, roll_plain, sides_of
from lnl_desktop.core.encounter.model import Encounter, Side, WeaponKind
from lnl_desktop.core.errors import IllegalAction
from lnl_desktop.core.map.sight import reach_blocker
from lnl_desktop.core.rules.lnl.model import (
    POWER_MODES,
    SNEAK_MODES,
    Ability,
    AttackMeans,
    AttackMode,
    Combatant,
    LnLFamilyOptions,
    LnLStats,
    PrecisionCheck,
    RulesOptions,
    ShieldState,
    Spell,
    SurpriseSituation,
    Weapon,
    WeaponState,
    WeaponStyle,
)
from lnl_desktop.core.rules.lnl.outcome import Application, AttackOutcome, SurpriseOutcome

RANGED_MINIMUM_FT = 10
MELEE_ENGAGED_FT = 5
# A target's condition (the GM's words): an invisible attacker is not concealed from it (RULES §7).
SEES_INVISIBLE = "sees invisible"

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


def wall_between(encounter: Encounter, a: Any, b: Any, reach_ft: float) -> str | None:
    """The wall, wall segment or closed door that bars a melee blow from ``a`` to ``b`` within
    ``reach_ft`` (:func:`sight.reach_blocker`), or None (also when either is not on the map)."""
    ta, tb = encounter.tokens.get(a.id), encounter.tokens.get(b.id)
    if ta is None or tb is None:
        return None
    return reach_blocker(encounter.map, ta.cell, a.size, tb.cell, b.size, reach_ft)


def _feet(value: float) -> str:
    return f"{value:g} ft"


@dataclass(frozen=True)
class DamagePlan:
    """The terms of one attack's damage before the dice: what resolve_attack rolls and the forecast weighs."""

    base: int  # dice rolled (N, or 2N for a Power Attack)
    die: str
    sides: int
    magic_bonus: int
    magic_term: int
    ability: Ability | None
    ability_term: int
    dex_term: int
    dex_ignored: bool
    ap: int  # the target's AP
    ap_ignored: bool  # armour never counts (a spell that ignores it)
    direct: bool
    precision: tuple[int, int] | None  # (bonus, DC) of a d20 check that ignores AP on success
    exertion: bool  # the attacker rolls a d4 of exertion
    attack_kind: str


def damage_after(rolled: int, plan: DamagePlan, ap_term: int, minimum: int) -> tuple[int, int]:
    """RULES §5 after the dice: the rolled total, the magic and ability terms, less the target's DEX
    and ``ap_term`` (its AP, or 0 when ignored); the raw result and the damage, raised to ``minimum``."""
    raw = rolled + plan.magic_term + plan.ability_term - plan.dex_term - ap_term
    return raw, max(minimum, raw)


SITUATION_TIPS = {
    SurpriseSituation.NOBODY: "Nobody set an ambush: the d6 reads the surprise table's first row",
    SurpriseSituation.OPPONENTS_AMBUSH: "The Opponents lie in wait for the Party",
    SurpriseSituation.PARTY_AMBUSH: "The Party lies in wait for the Opponents",
    SurpriseSituation.REVERSE: "The ambushers are ambushed themselves: the GM sets the outcome by hand, no die",
}


def initiative(face: int) -> Side:
    """RULES §2: the initiative d6, 1-3 the Opponents act first, 4-6 the Party."""
    if not 1 <= face <= 6:
        raise IllegalAction("Initiative", [f"{face} is not a face of a d6 (1 to 6)"])
    return OPP if face <= 3 else PTY


def surprise(situation: SurpriseSituation, face: int) -> SurpriseOutcome:
    """RULES §2: the first round's d6 read by the situation's row of the surprise table."""
    if situation is SurpriseSituation.REVERSE:
        raise IllegalAction("Reverse ambush", ["the GM sets the outcome by hand"])
    if not 1 <= face <= 6:
        raise IllegalAction("Surprise", [f"{face} is not a face of a d6 (1 to 6)"])
    first, surprised, words = _SURPRISE[situation][face]
    return SurpriseOutcome(first, surprised, words)


def apply_damage(
    target: LnLStats, damage: int, direct: bool, explosions: int, options: LnLFamilyOptions
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


class LnlRules:
    """One edition of the family's arithmetic: L&L's (RULES §1-9). What sets L&L Classic apart (RULES §11)
    is a subclass overriding the class variables and the four readings below the formula."""

    title: ClassVar[str] = "Laurels & Loot"
    stat_block: ClassVar[type[LnLStats]] = Combatant
    options_model: ClassVar[type[LnLFamilyOptions]] = RulesOptions
    perception: ClassVar[Ability] = Ability.AWA
    ranged_minimum_ft: ClassVar[int] = RANGED_MINIMUM_FT
    has_direct_damage: ClassVar[bool] = True
    has_exertion: ClassVar[bool] = True
    sneak_may_be_power: ClassVar[bool] = False
    shows_defense_points: ClassVar[bool] = False
    perception_tip: ClassVar[str] = (
        "AWA bonus: added to ranged damage and to a sneak attack's precision check "
        "(d20 + AWA against DC 10 + the target's AP). May be negative"
    )
    concealed_tip: ClassVar[str] = (
        "Hiding, invisible or unseen. A concealed attacker within half its Move of the target "
        "may sneak attack; the flag ends after the sneak attack"
    )
    surprised_tip: ClassVar[str] = "Surprised: takes no turn in round 1. The surprise roll sets it"

    def damage_plan(
        self,
        attacker: LnLStats,
        target: LnLStats,
        means: AttackMeans,
        mode: AttackMode,
        options: LnLFamilyOptions,
        *,
        ignore_dex: bool = False,
    ) -> DamagePlan:
        """Every term of RULES §5's formula for this attack, before any die is rolled."""
        n = dice_count(attacker.level)
        precision: tuple[int, int] | None = None
        if isinstance(means, Spell):
            base, magic_bonus, magic_term = n, 0, 0
            ability = means.ability
            attack_kind = "spell"
            dex_ignored = ignore_dex or not means.dex_applies
            ap_ignored = not means.ap_applies
        else:
            weapon: Weapon = means
            base = 2 * n if mode in POWER_MODES else n
            magic_bonus = weapon.magic_bonus
            bonus_dice = base if options.power_attack_magic_all_dice else n
            magic_term = magic_bonus * bonus_dice
            if mode in SNEAK_MODES and not self.sneak_adds_magic(options):
                magic_term = 0
            ability = attacker.weapon_ability(weapon)
            attack_kind = weapon.kind.value
            dex_ignored = mode in SNEAK_MODES or ignore_dex
            ap_ignored = False
            precision = self.precision_check(attacker, target, weapon, mode)
        return DamagePlan(
            base=base,
            die=means.die,
            sides=sides_of(means.die),
            magic_bonus=magic_bonus,
            magic_term=magic_term,
            ability=ability,
            ability_term=attacker.bonus(ability) if ability else 0,
            dex_term=0 if dex_ignored else target.dex_bonus,
            dex_ignored=dex_ignored,
            ap=target.armor_points,
            ap_ignored=ap_ignored,
            direct=self.is_direct(means, mode),
            precision=precision,
            exertion=self.costs_exertion(means, options),
            attack_kind=attack_kind,
        )

    def is_direct(self, means: AttackMeans, mode: AttackMode) -> bool:
        """Direct damage goes to IP at once: ranged attacks, sneak attacks, and spells that say so."""
        if isinstance(means, Spell):
            return means.direct
        return mode in SNEAK_MODES or means.kind is WeaponKind.RANGED

    def precision_check(
        self, attacker: LnLStats, target: LnLStats, weapon: Weapon, mode: AttackMode
    ) -> tuple[int, int] | None:
        """A sneak attack with a finesse or ranged weapon: (AWA bonus, DC 10 + target AP); success ignores AP."""
        if mode in SNEAK_MODES and (weapon.kind is WeaponKind.RANGED or weapon.style is WeaponStyle.FINESSE):
            return attacker.bonus(attacker.PERCEPTION), 10 + target.armor_points
        return None

    def sneak_adds_magic(self, options: LnLFamilyOptions) -> bool:
        return bool(getattr(options, "sneak_magic_bonus", True))

    def costs_exertion(self, means: AttackMeans, options: LnLFamilyOptions) -> bool:
        """A ranged attack costs the attacker d4 SP (melee too with the option on); spells never."""
        if isinstance(means, Spell):
            return False
        return means.kind is WeaponKind.RANGED or bool(getattr(options, "melee_exertion", False))

    def resolve_attack(
        self,
        attacker: LnLStats,
        target: LnLStats,
        means: AttackMeans,
        mode: AttackMode,
        dice: DiceSource,
        options: LnLFamilyOptions,
        *,
        ignore_dex: bool = False,
    ) -> AttackOutcome:
        """Roll one attack by this edition's formula and say what it does, changing nothing."""
        plan = self.damage_plan(attacker, target, means, mode, options, ignore_dex=ignore_dex)
        precision: PrecisionCheck | None = None
        ap_ignored = plan.ap_ignored
        if plan.precision is not None:
            # Precision: strike the weak point; success means armor does not count.
            bonus, dc = plan.precision
            check = roll_plain(dice, 20, f"{attacker.name}'s {attacker.PERCEPTION.value} check")
            precision = PrecisionCheck(face=check.face, bonus=bonus, dc=dc)
            ap_ignored = precision.success

        faces = roll_exploding(dice, plan.base, plan.sides, f"{attacker.name}'s {means.name} damage")
        ap_term = 0 if ap_ignored else plan.ap
        raw, damage = damage_after(sum(f.face for f in faces), plan, ap_term, options.minimum_damage)

        exertion_face: int | None = None
        exertion = 0
        if plan.exertion and isinstance(means, Weapon):
            exertion_face = roll_plain(dice, 4, f"{attacker.name}'s exertion").face
            exertion = exertion_cost(exertion_face, means.specialized)

        explosions = sum(1 for f in faces if f.exploded)
        application = apply_damage(target, damage, plan.direct, explosions, options)
        return AttackOutcome(
            means=means.name,
            mode=mode,
            attack_kind=plan.attack_kind,
            die=means.die,
            dice_count=plan.base,
            faces=faces,
            magic_bonus=plan.magic_bonus,
            magic_term=plan.magic_term,
            ability=plan.ability.value if plan.ability else None,
            ability_term=plan.ability_term,
            dex_term=plan.dex_term,
            dex_ignored=plan.dex_ignored,
            ap_term=ap_term,
            ap_ignored=ap_ignored,
            raw=raw,
            damage=damage,
            direct=plan.direct,
            application=application,
            precision=precision,
            exertion_face=exertion_face,
            exertion_cost=exertion,
            breaks_weapon=mode in POWER_MODES,
        )


LNL_RULES = LnlRules()
