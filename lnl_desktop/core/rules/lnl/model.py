"""The Laurels & Loot stat block, options and encounter (RULES §1-9), with L&L's own actions and
events: what both Laurels & Loot rulesets (L&L and L&L Classic) keep in an encounter file.

The shared frame (:mod:`lnl_desktop.core.encounter.model`) holds what every ruleset has; this
module the L&L family's numbers: level, STR, DEX and a third ability, AP, SP and IP, weapons that
explode and break, shields, spells and parries. ``lnl_desktop.core.Encounter`` is its :class:`Encounter`.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from lnl_desktop.core.dice.rolls import DieFace, DieName
from lnl_desktop.core.encounter.areas import Area
from lnl_desktop.core.encounter.events import EventBase, event_union
from lnl_desktop.core.encounter.log_book import LogBook, log_of
from lnl_desktop.core.encounter.model import (
    MOST_SPELLS,
    MOST_WEAPONS,
    CombatantBase,
    OptionsBase,
    WeaponKind,
    _Model,
    kinds_among,
)
from lnl_desktop.core.encounter.model import (
    Encounter as EncounterFrame,
)
from lnl_desktop.core.errors import RulesError

NAME = "lnl"


# The L&L family's own words (the shared frame knows none of them): its weapons break, its shields
# are carried or stowed, its fights open by who ambushes whom, its turn's action and attack modes.
class WeaponState(StrEnum):
    READY = "ready"
    SHEATHED = "sheathed"  # drawing it is part of the attack
    BROKEN = "broken"  # after a Power Attack or a shattering parry, until repaired


class ShieldState(StrEnum):
    CARRIED = "carried"  # adds its armor value to AP
    STOWED = "stowed"
    DESTROYED = "destroyed"


class SurpriseSituation(StrEnum):
    NOBODY = "nobody ambushes"
    OPPONENTS_AMBUSH = "Opponents ambush"
    PARTY_AMBUSH = "Party ambushes"
    REVERSE = "reverse ambush"


class ActionKind(StrEnum):
    """What a turn's action was (:attr:`TurnState.action` holds its word)."""

    ATTACK = "attack"
    POWER_ATTACK = "power attack"
    SNEAK_ATTACK = "sneak attack"
    SNEAK_POWER_ATTACK = "sneak power attack"
    SPELL = "spell"
    PARRY = "parry"
    DASH = "dash"
    LEAP = "leap"
    OTHER = "other"


class AttackMode(StrEnum):
    """An attack's mode: the word of its :attr:`ActionSpec.mode`, read back by L&L's attacks capability."""

    ATTACK = "attack"
    POWER = "power attack"
    SNEAK = "sneak attack"
    SNEAK_POWER = "sneak power attack"  # a sneak attack that is also a Power Attack, where the edition allows it
    SPELL = "spell"


SNEAK_MODES = frozenset({AttackMode.SNEAK, AttackMode.SNEAK_POWER})
POWER_MODES = frozenset({AttackMode.POWER, AttackMode.SNEAK_POWER})


class PrecisionCheck(BaseModel):
    """The sneak attack's AWA check: d20 + AWA against DC 10 + target AP."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    face: int
    bonus: int
    dc: int

    @property
    def total(self) -> int:
        return self.face + self.bonus

    @property
    def success(self) -> bool:
        return self.total >= self.dc

    @property
    def verdict(self) -> str:
        return "success: armor ignored" if self.success else "failure: armor applies"


# An L&L weapon is melee, reach or ranged (a bow, a thrown dagger).
WEAPON_KINDS = (WeaponKind.MELEE, WeaponKind.REACH, WeaponKind.RANGED)
LnLWeaponKind = kinds_among(*WEAPON_KINDS)


class WeaponStyle(StrEnum):
    POWER = "power"  # STR adds to damage
    FINESSE = "finesse"  # DEX adds to damage


class Ability(StrEnum):
    STR = "STR"
    DEX = "DEX"
    AWA = "AWA"
    WIS = "WIS"  # L&L Classic's third ability, where L&L has AWA


Bonus = Annotated[int, Field(ge=-10, le=30)]


class Weapon(_Model):
    name: str = Field(min_length=1, max_length=60)
    die: DieName
    kind: LnLWeaponKind = WeaponKind.MELEE
    style: WeaponStyle = WeaponStyle.POWER
    reach_ft: int | None = Field(default=None, ge=5, le=100, description="Reach weapons only; default 10 ft")
    max_range_ft: int | None = Field(default=None, ge=10, le=5000, description="Ranged weapons only; None = no limit")
    magic_bonus: int = Field(default=0, ge=0, le=10)
    specialized: bool = False
    state: WeaponState = WeaponState.READY

    @model_validator(mode="after")
    def _kind_fits(self) -> Weapon:
        if self.reach_ft is not None and self.kind is not WeaponKind.REACH:
            raise ValueError("reach_ft: only a reach weapon has a reach of its own")
        if self.reach_ft is not None and self.reach_ft < 10:
            raise ValueError("reach_ft: a reach weapon reaches at least 10 ft")
        if self.max_range_ft is not None and self.kind is not WeaponKind.RANGED:
            raise ValueError("max_range_ft: only a ranged weapon has a maximum range")
        return self

    @property
    def reach(self) -> int:
        """How far a melee or reach weapon reaches, in feet."""
        if self.kind is WeaponKind.REACH:
            return self.reach_ft or 10
        return 5

    @property
    def ability(self) -> Ability:
        """The attacker's bonus this weapon adds in L&L: ranged always AWA, else by style.

        A stat block's :meth:`LnLStats.weapon_ability` says it for its own ruleset (WIS in Classic)."""
        if self.kind is WeaponKind.RANGED:
            return Ability.AWA
        return Ability.DEX if self.style is WeaponStyle.FINESSE else Ability.STR

    @property
    def label(self) -> str:
        bonus = f" +{self.magic_bonus}" if self.magic_bonus else ""
        return f"{self.name}{bonus} ({self.die}, {self.kind.value})"


class Shield(_Model):
    # How the sheet's shield box names the fields, for a message about one.
    sheet_labels: ClassVar[dict[str, str]] = {
        "name": "Shield name",
        "armor": "Shield armor",
        "durability": "Durability",
        "durability_max": "Max durability",
        "state": "Shield state",
    }

    name: str = Field(default="Shield", min_length=1, max_length=60)
    armor: int = Field(default=1, ge=0, le=10)
    durability: int = Field(default=10, ge=0, le=1000)
    durability_max: int = Field(default=10, ge=0, le=1000)
    state: ShieldState = ShieldState.CARRIED

    @model_validator(mode="after")
    def _durability_within_max(self) -> Shield:
        if self.durability > self.durability_max:
            raise ValueError(f"durability: {self.durability} is above the maximum of {self.durability_max}")
        return self


class Spell(_Model):
    """A damaging spell: its die, rolled N times by the caster's level, exploding. A spell with an
    ``area`` strikes everyone in it with one roll (RULES §14); without one it strikes one target."""

    name: str = Field(min_length=1, max_length=60)
    die: DieName
    range_ft: int | None = Field(default=None, ge=5, le=5000)
    ability: Ability | None = None  # no ability bonus unless the spell says so
    dex_applies: bool = True
    ap_applies: bool = True
    direct: bool = False  # direct damage goes to IP at once
    area: Area | None = None  # the shape and size it strikes (RULES §14); None: one target


class ParryState(_Model):
    """A parry in force until the parrier's next turn begins."""

    shield: bool = False
    weapon: str | None = None
    explosions: int = Field(default=0, ge=0)  # exploding dice counted against the weapon

    @model_validator(mode="after")
    def _with_something(self) -> ParryState:
        if self.shield == (self.weapon is not None):
            raise ValueError("parry: parry with either a weapon or a shield")
        return self

    @property
    def label(self) -> str:
        return "shield" if self.shield else f"{self.weapon}"


class LnLStats(CombatantBase):
    """The stat block the two Laurels & Loot rulesets share (RULES §1): level, STR and DEX, AP, SP and IP,
    weapons, a shield, spells and a parry. Each edition adds its third ability (AWA or WIS)."""

    # The ability ranged weapons add (AWA in L&L, WIS in Classic).
    PERCEPTION: ClassVar[Ability] = Ability.AWA

    level: int = Field(ge=1, le=40)
    str_bonus: Bonus = 0
    dex_bonus: Bonus = 0
    armor: int = Field(default=0, ge=0, le=30, description="AP from worn or natural armor")
    stamina: int = Field(ge=0, le=10_000, description="current SP")
    stamina_max: int = Field(ge=0, le=10_000)
    injury: int = Field(ge=0, le=10_000, description="current IP")
    injury_max: int = Field(ge=1, le=10_000)
    weapons: list[Weapon] = Field(default_factory=list, max_length=MOST_WEAPONS)
    shield: Shield | None = None
    spells: list[Spell] = Field(default_factory=list, max_length=MOST_SPELLS)
    parry: ParryState | None = None

    @model_validator(mode="before")
    @classmethod
    def _defaults_from_other_fields(cls, data: Any) -> Any:
        # A new combatant starts fresh: current SP/IP default to their maxima.
        if isinstance(data, dict):
            data = dict(data)
            if "stamina" not in data and "stamina_max" in data:
                data["stamina"] = data["stamina_max"]
            if "injury" not in data and "injury_max" in data:
                data["injury"] = data["injury_max"]
        return data

    @model_validator(mode="after")
    def _consistent(self) -> LnLStats:
        if self.stamina > self.stamina_max:
            raise ValueError(f"stamina: {self.stamina} SP is above the maximum of {self.stamina_max}")
        if self.injury > self.injury_max:
            raise ValueError(f"injury: {self.injury} IP is above the maximum of {self.injury_max}")
        names = [w.name for w in self.weapons]
        for name in names:
            if names.count(name) > 1:
                raise ValueError(f"weapons: two weapons are named {name!r}")
        if self.parry is not None:
            if self.parry.weapon is not None and self.parry.weapon not in names:
                raise ValueError(f"parry.weapon: {self.name} has no weapon named {self.parry.weapon!r}")
            if self.parry.shield and self.shield is None:
                raise ValueError(f"parry.shield: {self.name} has no shield")
        abilities = self.abilities()
        for i, spell in enumerate(self.spells):
            if spell.ability is not None and spell.ability not in abilities:
                raise ValueError(
                    f"spells[{i}].ability: this stat block has no {spell.ability.value} "
                    f"(its abilities: {', '.join(a.value for a in abilities)})"
                )
        return self

    @classmethod
    def abilities(cls) -> tuple[Ability, ...]:
        return (Ability.STR, Ability.DEX, cls.PERCEPTION)

    @property
    def armor_points(self) -> int:
        """AP: worn or natural armor plus a carried shield's armor value."""
        shield = self.shield.armor if self.shield and self.shield.state is ShieldState.CARRIED else 0
        return self.armor + shield

    @property
    def down(self) -> bool:
        """At 0 IP a creature is down: it takes no more turns."""
        return self.injury == 0

    @property
    def dice_count(self) -> int:
        """The Damage Level Multiplier: N = (level + 1) // 2."""
        return (self.level + 1) // 2

    def bonus(self, ability: Ability) -> int:
        if ability not in self.abilities():
            raise RulesError(f"{self.name} has no {ability.value} in this ruleset")
        return int(getattr(self, f"{ability.value.lower()}_bonus"))

    def weapon_ability(self, weapon: Weapon) -> Ability:
        """The bonus a weapon adds: ranged always the perception ability (AWA or WIS), else by style."""
        return self.PERCEPTION if weapon.kind is WeaponKind.RANGED else weapon.ability

    def weapon(self, name: str) -> Weapon:
        for weapon in self.weapons:
            if weapon.name == name:
                return weapon
        known = ", ".join(w.name for w in self.weapons) or "none"
        raise RulesError(f"weapon: {self.name} has no weapon named {name!r} (has: {known})")

    def spell(self, name: str) -> Spell:
        for spell in self.spells:
            if spell.name == name:
                return spell
        known = ", ".join(s.name for s in self.spells) or "none"
        raise RulesError(f"spell: {self.name} has no spell named {name!r} (has: {known})")

    def _ruleset_status(self) -> list[str]:
        return [f"parrying ({self.parry.label})"] if self.parry is not None else []

    def _ruleset_status_after(self) -> list[str]:
        broken = [w.name for w in self.weapons if w.state is WeaponState.BROKEN]
        return ["broken: " + ", ".join(broken)] if broken else []


class Combatant(LnLStats):
    """A combatant of the L&L ruleset (RULES §1): STR, DEX and AWA."""

    awa_bonus: Bonus = 0


class LnLFamilyOptions(OptionsBase):
    """The [D] points both Laurels & Loot rulesets have (RULES §3, §5, §6, §11)."""

    dash_moves: float = Field(default=1.0, ge=0, le=4, description="Dash adds this many Moves")
    leap_moves: float = Field(default=0.5, ge=0, le=4, description="Leap adds this many Moves")
    leap_ignores_terrain: bool = Field(
        default=True, description="after a Leap: difficult terrain at normal cost, obstacles crossed"
    )
    minimum_damage: int = Field(
        default=0, ge=0, le=5, description="damage below this is raised to it (0: below 0 is 0)"
    )
    spill_to_injury: bool = Field(default=True, description="damage past 0 SP comes off IP")
    power_attack_magic_all_dice: bool = Field(
        default=True, description="the magic bonus adds to each of the 2N Power Attack dice"
    )
    shield_overflow_half: bool = Field(
        default=True,
        description="a broken shield lets through damage - ceil(durability left / 2); off: the whole blow",
    )
    down_skips_turns: bool = Field(default=True, description="a creature at 0 IP takes no turns")
    # RULES §16: rest between fights; healing beyond it is the GM's, by hand.
    short_rest_restores_sp: bool = Field(
        default=True, description="a short rest (about 10 minutes) restores all SP (off: nothing)"
    )
    night_rest_ip: int = Field(default=1, ge=0, le=100, description="IP a night's rest restores, besides all SP")


class RulesOptions(LnLFamilyOptions):
    """The points RULES.md decides for L&L (its [D] marks), each one a switch a GM can change."""

    melee_exertion: bool = Field(default=False, description="melee and reach attacks cost d4 SP too")
    sneak_magic_bonus: bool = Field(default=True, description="sneak attacks add N x B")


# -- the events L&L's rules log ----------------------------------------------------------------------


class ExertionSpent(EventBase):
    kind: Literal["exertion"] = "exertion"
    combatant: str
    face: int
    cost: int
    stamina: int  # SP after


class WeaponBroken(EventBase):
    kind: Literal["weapon broken"] = "weapon broken"
    combatant: str
    weapon: str


class ShieldDestroyed(EventBase):
    kind: Literal["shield destroyed"] = "shield destroyed"
    combatant: str


class ParryStarted(EventBase):
    kind: Literal["parry"] = "parry"
    combatant: str
    shield: bool
    weapon: str | None


class ParryEnded(EventBase):
    kind: Literal["parry ended"] = "parry ended"
    combatant: str


def formula_terms(
    dice_count: int,
    magic_bonus: int,
    magic_term: int,
    ability: str | None,
    ability_term: int,
    dex_term: int,
    dex_ignored: bool,
    ap: int,
    ap_ignored: bool,
    unless: str = "",
) -> list[str]:
    """RULES §5's damage formula after the dice, term by term, in the words the log, the Action dock and
    the forecast share: "+ 5 x 2 magic", "+ 8 STR", "- 3 DEX", "- 1 AP" (before a sneak attack's roll,
    ``unless`` says when the AP does not count: "- 1 AP unless the AWA check succeeds")."""
    terms = []
    if magic_term:
        terms.append(f"+ {dice_count} x {magic_bonus} magic")
    if ability:
        terms.append(f"{'+' if ability_term >= 0 else '-'} {abs(ability_term)} {ability}")
    if not dex_ignored:
        terms.append(f"{'-' if dex_term >= 0 else '+'} {abs(dex_term)} DEX")
    if not ap_ignored:
        terms.append(f"- {ap} AP{unless}")
    return terms


class AttackResolved(EventBase):
    """One attack or damaging spell, with every term of the damage formula."""

    kind: Literal["attack"] = "attack"
    attacker: str
    target: str
    means: str  # weapon or spell name
    mode: Literal["attack", "power attack", "sneak attack", "sneak power attack", "spell"]
    attack_kind: str  # melee, reach, ranged, spell
    die: str
    dice_count: int
    faces: list[DieFace]
    dice_total: int
    magic_bonus: int  # per base die
    magic_term: int  # base dice x bonus
    ability: str | None
    ability_term: int
    dex_term: int  # the target's DEX bonus subtracted (0 when ignored)
    dex_ignored: bool
    ap_term: int  # the target's AP subtracted (0 when ignored)
    ap_ignored: bool
    raw: int  # before the floor at 0
    damage: int  # after mitigation
    direct: bool  # direct damage goes to IP
    precision: PrecisionCheck | None = None
    parried_with: str | None = None  # "weapon name" or "shield"
    stopped: int = 0  # damage a parry stopped
    shield_damage: int = 0  # doubled damage taken by the shield's durability
    to_sp: int = 0
    to_ip: int = 0
    overkill: int = 0
    target_sp: int  # totals after the blow
    target_ip: int
    overrides: list[str] = Field(default_factory=list)  # eligibility points the GM overrode

    @property
    def where_it_went(self) -> list[str]:
        """Where the damage went, in the order it was taken: parry, shield, SP, IP, overkill."""
        went = []
        if self.parried_with:
            went.append(f"{self.stopped} stopped by the {self.parried_with} parry")
        if self.shield_damage:
            went.append(f"shield takes {self.shield_damage}")
        if self.to_sp:
            went.append(f"{self.to_sp} to SP")
        if self.to_ip:
            went.append(f"{self.to_ip} to IP")
        if self.overkill:
            went.append(f"{self.overkill} overkill")
        return went

    @property
    def formula(self) -> str:
        """The damage formula with its numbers, as the log and the Action dock show it."""
        dice = " + ".join(f"{f.face}{'*' if f.explosion else ''}" for f in self.faces) or "0"
        terms = formula_terms(
            self.dice_count,
            self.magic_bonus,
            self.magic_term,
            self.ability,
            self.ability_term,
            self.dex_term,
            self.dex_ignored,
            self.ap_term,
            self.ap_ignored,
        )
        result = f"= {self.damage}" if self.raw == self.damage else f"= {self.raw}, so {self.damage}"
        return " ".join([f"dice {dice} = {self.dice_total}", *terms, result])

    def details(self) -> str:
        """Every term of the blow, for the log's tooltip: the formula and where the damage went."""
        lines = [self.text, f"{self.mode} with {self.means} ({self.attack_kind}): {self.dice_count} x {self.die}"]
        lines.append(self.formula)
        if self.precision is not None:
            p = self.precision
            lines.append(f"AWA check: d20 {p.face} + {p.bonus} = {p.total} against DC {p.dc}, {p.verdict}")
        if self.parried_with:
            lines.append(f"parried with {self.parried_with}: {self.stopped} stopped")
        if self.shield_damage:
            lines.append(f"shield takes {self.shield_damage} against its durability")
        where = [f"{self.to_sp} to SP" if self.to_sp else "", f"{self.to_ip} to IP" if self.to_ip else ""]
        where_text = " and ".join(w for w in where if w) or "no damage taken"
        lines.append(f"{where_text}{'' if not self.direct else ' (direct damage)'}")
        if self.overkill:
            lines.append(f"{self.overkill} overkill")
        return "\n".join(lines)

    def table_cells(self) -> tuple[str | int, ...]:
        faces = " ".join(f"{f.face}{'*' if f.explosion else ''}" for f in self.faces)
        return (faces, self.damage, self.to_sp, self.to_ip, self.target_sp, self.target_ip)


# The events of the L&L family's log: the shared ones and these.
EVENTS = (AttackResolved, ExertionSpent, WeaponBroken, ShieldDestroyed, ParryStarted, ParryEnded)
LnLEvent = event_union(EVENTS)
LnLLog = log_of(LnLEvent)


# -- converting a combatant of another ruleset -------------------------------------------------------

# What a combatant of the L&L family needs that a ruleset outside it may not have.
LNL_DEFAULTS: dict[str, Any] = {"level": 1, "stamina_max": 10, "injury_max": 5}


def lnl_family_combatant(target: Any, data: dict[str, Any], source: object) -> tuple[dict[str, Any], list[str]]:
    """A combatant as an L&L or L&L Classic stat block: the third ability renamed (AWA <-> WIS),
    direct damage dropped where the target has none, missing numbers defaulted."""
    name = data.get("name", "?")
    fields = target.stat_block.model_fields
    out = {k: v for k, v in data.items() if k in fields}
    notes: list[str] = []
    mine = target.perception.value
    for ability in (Ability.AWA, Ability.WIS):
        key = f"{ability.value.lower()}_bonus"
        if ability is not target.perception and key in data:
            out[f"{mine.lower()}_bonus"] = data[key]
            if data[key]:
                notes.append(f"{name}: {ability.value} {data[key]:+d} becomes {mine} {data[key]:+d}")
    for spell in out.get("spells", []):
        if spell.get("ability") in (Ability.AWA.value, Ability.WIS.value) and spell["ability"] != mine:
            notes.append(f"{name}: spell {spell.get('name')} adds {mine} instead of {spell['ability']}")
            spell["ability"] = mine
        if spell.get("direct") and not target.has_direct_damage:
            spell["direct"] = False
            notes.append(f"{name}: spell {spell.get('name')} no longer deals direct damage (SP first)")
    for key, value in LNL_DEFAULTS.items():
        if key not in out:
            out[key] = value
            notes.append(f"{name}: {key} defaulted to {value}")
    if "injury_max" in out and "injury" not in out:
        out["injury"] = out["injury_max"]
    dropped = sorted(k for k in data if k not in fields and k not in {"awa_bonus", "wis_bonus"})
    if dropped:
        notes.append(f"{name}: dropped {', '.join(dropped)}")
    return out, notes


AttackMeans = Weapon | Spell


# -- the encounter -----------------------------------------------------------------------------------


class Encounter(EncounterFrame):
    """An L&L encounter (the public ``Encounter``): L&L's combatants and options in the shared frame,
    and a log that also holds L&L's own events."""

    ruleset: Literal["lnl"] = NAME
    options: RulesOptions = Field(default_factory=RulesOptions)
    combatants: list[Combatant] = Field(default_factory=list)
    log: LnLLog = Field(default_factory=LogBook)  # type: ignore[assignment]

    def combatant(self, cid: str) -> Combatant:
        return super().combatant(cid)  # type: ignore[return-value]


# -- the actions L&L's rules handle (rules/lnl/play.py) ----------------------------------------------


@dataclass(frozen=True)
class Attack:
    attacker: str
    target: str
    weapon: str
    mode: AttackMode = AttackMode.ATTACK
    ignore_dex: bool = False  # GM toggle: the target's DEX bonus does not count
    override: bool = False  # GM override of the sneak attack's eligibility points


@dataclass(frozen=True)
class CastSpell:
    caster: str
    target: str
    spell: str
    ignore_dex: bool = False


@dataclass(frozen=True)
class Parry:
    combatant: str
    weapon: str | None = None
    shield: bool = False


@dataclass(frozen=True)
class Dash:
    combatant: str


@dataclass(frozen=True)
class Leap:
    combatant: str
