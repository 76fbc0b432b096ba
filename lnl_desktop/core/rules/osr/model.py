"""The Old-School d20 stat block and options (RULES §12): HP and AC, to-hit bonuses, morale, saves.

A combatant is a PC, an NPC or a monster; its AC is derived from armor, shield and DEX (the DEX
part capped by the armor's max DEX) unless it is typed in, as a monster's usually is. Weapons
carry a damage dice expression (``1d8``, ``2d6``, ``1d6+1``), a kind (melee 5 ft, reach 10 ft,
missile, thrown) and, for missile and thrown weapons, a maximum range.

The ruleset's actions are here too: what the Action dock and the prompts hand the engine.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field, field_validator, model_validator

from lnl_desktop.core.encounter.areas import Area
from lnl_desktop.core.encounter.light import AmbientLight
from lnl_desktop.core.encounter.model import MOST_WEAPONS, CombatantBase, OptionsBase, WeaponKind, _Model, kinds_among
from lnl_desktop.core.errors import RulesError

Modifier = Annotated[int, Field(ge=-10, le=30)]

# NdS or NdS+K / NdS-K: what a weapon's damage is written as in the source ("1d8", "2d6", "1d2").
DICE = re.compile(r"^\s*(\d{1,2})\s*d\s*(\d{1,3})\s*(?:([+-])\s*(\d{1,3}))?\s*$", re.IGNORECASE)
DIE_SIDES = (2, 3, 4, 6, 8, 10, 12, 20, 100)


def parse_dice(text: str) -> tuple[int, int, int]:
    """``"2d6+1"`` -> (2, 6, 1): count, sides, flat modifier. ValueError says what is wrong."""
    found = DICE.match(text)
    if found is None:
        raise ValueError(f"{text!r} is not a dice expression such as 1d8, 2d6 or 1d6+1")
    count, sides = int(found.group(1)), int(found.group(2))
    flat = int(found.group(4) or 0) * (-1 if found.group(3) == "-" else 1)
    if not 1 <= count <= 20:
        raise ValueError(f"{text!r}: roll 1 to 20 dice")
    if sides not in DIE_SIDES:
        raise ValueError(f"{text!r}: a d{sides} is not a die (d2, d3, d4, d6, d8, d10, d12, d20, d100)")
    return count, sides, flat


def dice_text(count: int, sides: int, flat: int) -> str:
    return f"{count}d{sides}" + (f"{flat:+d}" if flat else "")


class Kind(StrEnum):
    PC = "PC"
    NPC = "NPC"
    MONSTER = "monster"


# An Old-School d20 weapon is melee (5 ft), reach (10 ft), missile (bow, sling: PER to hit) or thrown
# (dagger, javelin: the best of STR / DEX / PER to hit).
WEAPON_KINDS = (WeaponKind.MELEE, WeaponKind.REACH, WeaponKind.MISSILE, WeaponKind.THROWN)
OsrWeaponKind = kinds_among(*WEAPON_KINDS)


# The round's light consideration is the encounter's ambient light (RULES §15): one value.
Light = AmbientLight


LIGHT_PENALTY = {Light.NORMAL: 0, Light.DIM: -2, Light.DARK: -5}


class InitiativeMode(StrEnum):
    GROUP = "group"
    INDIVIDUAL = "individual"


class MoraleResult(StrEnum):
    FLEES = "flees"
    SURRENDERS = "surrenders"


class SaveCategory(StrEnum):
    POISON = "Poison or Death Ray"
    PARALYSIS = "Paralysis or Petrification"
    WANDS = "Wands"
    BREATH = "Dragon Breath"
    SPELLS = "Spells"


# The source's five categories, each with what it is for (the Area effect dialog's and a condition's lists).
SAVE_LABELS = {
    SaveCategory.POISON: "Poison or Death Ray (poisons, diseases, instant death)",
    SaveCategory.PARALYSIS: "Paralysis or Petrification (held still, turned to stone)",
    SaveCategory.WANDS: "Wands (magic from wands and devices)",
    SaveCategory.BREATH: "Dragon Breath (area attacks: breath, bombs)",
    SaveCategory.SPELLS: "Spells (other magical effects)",
}

SAVE_FIELDS = {
    SaveCategory.POISON: "save_poison",
    SaveCategory.PARALYSIS: "save_paralysis",
    SaveCategory.WANDS: "save_wands",
    SaveCategory.BREATH: "save_breath",
    SaveCategory.SPELLS: "save_spells",
}

UNARMED = "Unarmed"
# RULES §12 "Also applied": the properties the source names; the GM may type any other word.
MAGIC, SILVER = "magic", "silver"


def read_properties(value: Any) -> Any:
    """A weapon's properties or what harms a monster, as a list of words: the sheet hands
    ``"silver, magic"``, a file a list; each word trimmed and lower-case, each once."""
    if value is None:
        return []
    if isinstance(value, str):
        value = value.split(",")
    if isinstance(value, (list, tuple)):
        words = [str(v).strip().lower() for v in value]
        return list(dict.fromkeys(w for w in words if w))
    return value


Properties = Annotated[
    list[Annotated[str, Field(max_length=30)]], BeforeValidator(read_properties), Field(max_length=8)
]
DEFAULT_RANGE = {WeaponKind.MISSILE: 150, WeaponKind.THROWN: 30}  # a shortbow's, a dagger's
# The blunt weapons' words: a weapon so named is bludgeoning unless the sheet says otherwise.
BLUNT = re.compile(r"\b(club|mace|hammer|warhammer|maul|staff|quarterstaff|flail|morningstar|cudgel|sap)s?\b", re.I)


class OsrWeapon(_Model):
    name: str = Field(min_length=1, max_length=60)
    damage: str = Field(default="1d6", max_length=20, description="dice such as 1d8, 2d6 or 1d6+1")
    kind: OsrWeaponKind = WeaponKind.MELEE
    max_range_ft: int | None = Field(default=None, ge=10, le=5000, description="missile and thrown weapons")
    dex: bool = Field(default=False, description="melee: DEX instead of STR to hit and to damage")
    # RULES §12: subdual only with a bludgeoning weapon (or a blade's flat, ticked on the attack).
    bludgeoning: bool = Field(default=False, description="a blunt weapon (club, mace, staff): it may subdue")
    # RULES §14: a breath, a thrown flask, a bomb strikes an area rather than one foe: one roll of
    # the damage dice, each target's saving throw (an Area effect, not an attack).
    area: Area | None = Field(
        default=None, description="the area it strikes (a breath, a flask, a bomb): a shape and a size in feet"
    )
    bomb: bool = Field(
        default=False,
        description="a bomb aimed at a square: the bomber's d20 is rolled first, 16+ hits the aimed square, "
        "a miss lands nothing (needs an area)",
    )
    save: SaveCategory = Field(
        default=SaveCategory.BREATH, description="the saving throw its area calls for (Dragon Breath for area attacks)"
    )
    properties: Properties = Field(
        default_factory=list,
        description="what it is made of or carries (magic, silver, or a word the GM types): "
        "a monster harmed only by one of them takes damage from it",
    )

    @model_validator(mode="before")
    @classmethod
    def _range_follows_kind(cls, data: Any) -> Any:
        # Changing a weapon's kind on the sheet is one edit: a missile or thrown weapon gets a usual
        # range to start from (the GM corrects it), a melee or reach weapon loses the range it had.
        if isinstance(data, dict):
            if "bludgeoning" not in data and BLUNT.search(str(data.get("name", ""))):
                data = {**data, "bludgeoning": True}  # an older file's mace or club may subdue as before
            kind = str(data.get("kind", WeaponKind.MELEE.value))
            if kind in (WeaponKind.MISSILE.value, WeaponKind.THROWN.value) and data.get("max_range_ft") is None:
                data = {**data, "max_range_ft": DEFAULT_RANGE[WeaponKind(kind)]}
            elif kind in (WeaponKind.MELEE.value, WeaponKind.REACH.value) and data.get("max_range_ft") is not None:
                data = {k: v for k, v in data.items() if k != "max_range_ft"}
        return data

    @field_validator("damage")
    @classmethod
    def _dice(cls, value: str) -> str:
        return dice_text(*parse_dice(value))

    @model_validator(mode="after")
    def _range_fits(self) -> OsrWeapon:
        ranged = self.kind in (WeaponKind.MISSILE, WeaponKind.THROWN)
        if ranged and self.max_range_ft is None:
            raise ValueError(f"max_range_ft: a {self.kind.value} weapon needs its maximum range")
        if not ranged and self.max_range_ft is not None:
            raise ValueError(f"max_range_ft: only missile and thrown weapons have a range (this is {self.kind.value})")
        if self.bomb and self.area is None:
            raise ValueError(f"bomb: {self.name} is a bomb but strikes no area: give it one (a 10 ft square)")
        return self

    @property
    def dice(self) -> tuple[int, int, int]:
        return parse_dice(self.damage)

    @property
    def melee(self) -> bool:
        """It strikes in melee (a thrown dagger or spear may be swung too)."""
        return self.kind is not WeaponKind.MISSILE

    @property
    def reach(self) -> int:
        return 10 if self.kind is WeaponKind.REACH else 5

    @property
    def label(self) -> str:
        where = f", {self.max_range_ft} ft" if self.max_range_ft else ""
        area = f", {self.area.words}" if self.area is not None else ""
        return f"{self.name} ({self.damage}, {self.kind.value}{where}{area})"


UNARMED_WEAPON = OsrWeapon(name=UNARMED, damage="1d2", bludgeoning=True)


class OsrCombatant(CombatantBase):
    """A combatant of the Old-School d20 ruleset (RULES §12)."""

    kind: Kind = Kind.MONSTER
    level: int = Field(default=1, ge=0, le=40, description="level, or Hit Dice for a monster")
    hp: int = Field(ge=0, le=10_000, description="current HP")
    hp_max: int = Field(ge=1, le=10_000)
    armor_bonus: int = Field(default=0, ge=0, le=7, description="padded +1 ... full plate +7")
    armor_max_dex: int | None = Field(default=None, ge=0, le=10, description="the armor's cap on DEX to AC")
    shield: bool = False
    ac_typed: int | None = Field(default=None, ge=0, le=40, description="a monster's AC as written")
    attack_bonus: Modifier = 0
    str_mod: Modifier = 0
    dex_mod: Modifier = 0
    per_mod: Modifier = 0
    init_mod: Modifier = 0
    morale: int | None = Field(default=None, ge=2, le=12, description="2-12; none for PCs and retainers")
    save_poison: Modifier = 0
    save_paralysis: Modifier = 0
    save_wands: Modifier = 0
    save_breath: Modifier = 0
    save_spells: Modifier = 0
    attacks: int = Field(default=1, ge=1, le=10, description="attacks per round")
    weapons: list[OsrWeapon] = Field(default_factory=list, max_length=MOST_WEAPONS)
    leader: bool = Field(default=False, description="rolls group initiative for its side")
    # RULES §12: with group initiative a side may be split into groups that roll apart (a boss).
    initiative_group: str = Field(
        default="", max_length=40, description="the initiative group it rolls with; empty: its side's"
    )
    subdual: int = Field(default=0, ge=0, le=10_000, description="subdual damage taken")
    defending: str | None = Field(default=None, description="+2 AC to this combatant (itself or a guarded ally)")
    morale_passes: int = Field(default=0, ge=0, le=2)
    morale_result: MoraleResult | None = None
    dead: bool = False
    casting: str | None = Field(default=None, max_length=60, description="a spell that takes time, under way")
    harmed_only_by: Properties = Field(
        default_factory=list,
        description="an invulnerable monster: only weapons and spells with one of these properties "
        "(magic, silver, or a word the GM types) harm it; empty: anything does",
    )

    @model_validator(mode="before")
    @classmethod
    def _hp_from_max(cls, data: Any) -> Any:
        if isinstance(data, dict) and "hp" not in data and "hp_max" in data:
            data = {**data, "hp": data["hp_max"]}
        return data

    @model_validator(mode="after")
    def _consistent(self) -> OsrCombatant:
        if self.hp > self.hp_max:
            raise ValueError(f"hp: {self.hp} HP is above the maximum of {self.hp_max}")
        if self.kind is Kind.PC and self.morale is not None:
            raise ValueError("morale: a PC makes no morale checks (leave it empty)")
        names = [w.name for w in self.weapons]
        for name in names:
            if names.count(name) > 1:
                raise ValueError(f"weapons: two weapons are named {name!r}")
        if UNARMED in names:
            raise ValueError(f"weapons: {UNARMED!r} is always there (1d2 + STR); name the weapon otherwise")
        return self

    # -- what the numbers work out to ----------------------------------------------------------

    @property
    def dex_to_ac(self) -> int:
        cap = self.armor_max_dex
        return self.dex_mod if cap is None else min(self.dex_mod, cap)

    @property
    def shield_ac(self) -> int:
        return 1 if self.shield else 0

    @property
    def ac(self) -> int:
        """AC: typed in, or 11 + armor + 1 for a shield + DEX (capped by the armor)."""
        if self.ac_typed is not None:
            return self.ac_typed
        return 11 + self.armor_bonus + self.shield_ac + self.dex_to_ac

    @property
    def has_morale(self) -> bool:
        return self.morale is not None and self.kind is not Kind.PC

    @property
    def down(self) -> bool:
        """0 HP (defeated, or unconscious after a death save), dead, or knocked out."""
        return self.hp == 0 or self.dead or "unconscious" in self.conditions

    @property
    def out_of_fight(self) -> bool:
        """Incapacitated for the morale count: down, fled or surrendered."""
        return self.down or self.morale_result is not None

    def save_bonus(self, category: SaveCategory) -> int:
        return int(getattr(self, SAVE_FIELDS[category]))

    def all_weapons(self) -> list[OsrWeapon]:
        return [*self.weapons, UNARMED_WEAPON]

    def weapon(self, name: str) -> OsrWeapon:
        for weapon in self.all_weapons():
            if weapon.name == name:
                return weapon
        known = ", ".join(w.name for w in self.all_weapons())
        raise RulesError(f"weapon: {self.name} has no weapon named {name!r} (has: {known})")

    def strikers(self) -> list[OsrWeapon]:
        """The weapons it attacks one foe with: all but those that strike an area (RULES §14)."""
        return [w for w in self.all_weapons() if w.area is None]

    @property
    def melee_reach(self) -> int:
        """How far its melee attacks reach: 10 ft with a reach weapon, else 5 ft."""
        return max(w.reach for w in self.strikers() if w.melee)

    def best_melee(self) -> OsrWeapon:
        """The weapon a counter-attack uses unless the GM picks another: its first melee weapon."""
        return next((w for w in self.strikers() if w.melee), UNARMED_WEAPON)

    def _ruleset_status(self) -> list[str]:
        words = []
        if self.dead:
            words.append("dead")
        if self.morale_result is not None:
            words.append(self.morale_result.value)
        if self.defending is not None:
            words.append("defending" if self.defending == self.id else f"guarding {self.defending}")
        if self.casting is not None:
            words.append(f"casting {self.casting}")
        return words

    def _ruleset_status_after(self) -> list[str]:
        return [f"subdual {self.subdual}"] if self.subdual else []


class OsrOptions(OptionsBase):
    """The Old-School d20 encounter's settings: the round's considerations and the [D] points."""

    light: Light = Field(default=Light.NORMAL, description="light: dim -2, dark -5 to attacks")
    initiative: InitiativeMode = Field(
        default=InitiativeMode.GROUP, description="initiative by group (leader's INIT) or individually"
    )
    minimum_damage: int = Field(default=1, ge=0, le=5, description="a hit deals at least this much")
    # The rest of the [D] points of RULES §12 and §14, each with its default as written there.
    wounded_penalty: int = Field(default=2, ge=0, le=10, description="a wounded creature's penalty to its attack rolls")
    exhaustion_penalty: int = Field(
        default=1, ge=0, le=5, description="penalty to attack rolls per level of exhaustion"
    )
    burning_dice: str = Field(
        default="1d6",
        pattern=r"^[1-9]\d?d(2|3|4|6|8|10|12|20)([+-]\d{1,2})?$",
        description="the fire damage a burning creature takes as its turn begins (dice such as 1d6)",
    )
    critical_dice_rolls: int = Field(
        default=2, ge=1, le=4, description="a critical hit on an unconscious foe rolls the damage dice this many times"
    )
    advantage_cancels: bool = Field(
        default=True, description="advantage and disadvantage from any sources cancel to a plain roll"
    )
    area_save_halves: bool = Field(
        default=True, description="a passed saving throw against an area effect halves its damage (off: none)"
    )
    strong_harm_invulnerable: bool = Field(
        default=True,
        description="another invulnerable monster or a monster of 5+ HD harms an invulnerable monster "
        "whatever it strikes with",
    )
    # RULES §16: the source's day of uninterrupted rest; a short rest restores nothing unless the GM says.
    day_rest_dice: str = Field(
        default="1d3",
        pattern=r"^[1-9]\d?d(2|3|4|6|8|10|12|20)([+-]\d{1,2})?$",
        description="the HP a full day of uninterrupted rest restores, rolled per character (dice such as 1d3)",
    )
    short_rest_dice: str = Field(
        default="",
        pattern=r"^([1-9]\d?d(2|3|4|6|8|10|12|20)([+-]\d{1,2})?)?$",
        description="the HP a short rest restores, rolled per character (empty: nothing)",
    )
    day_rest_clears_subdual: bool = Field(
        default=True, description="a day of rest takes away all subdual damage (off: the GM heals it by hand)"
    )


# -- the actions (what the Action dock and the prompts hand the engine) ----------------------------


@dataclass(frozen=True)
class OsrAttack:
    """A melee attack (5 ft, 10 ft with reach), a ranged attack (half Move before or after) or a
    charge (a full Move, then a melee attack)."""

    attacker: str
    target: str
    weapon: str
    style: Literal["melee", "ranged", "charge"] = "melee"
    cover: str = "none"
    second: str = ""  # a dual attack: the other hand's weapon (one roll at -1, the higher damage)
    subdual: bool = False  # declared: the damage is tracked apart from HP
    ability: str = "best"  # a thrown weapon: STR, DEX or PER (the best by default)
    flat_of_blade: bool = False  # a blade struck flat: it may subdue (RULES §12)
    gm_modifier: int = 0  # the GM's situational modifier to hit, -10 to +10 (fighting in water)
    gm_edge: str = "none"  # the GM's advantage or disadvantage (an unstable surface)
    gm_reason: str = ""  # why, for the forecast and the log


@dataclass(frozen=True)
class CounterAttack:
    """Take a queued counter-attack (``combat.pending[index]``), with another weapon if the GM says."""

    index: int
    weapon: str = ""
    gm_modifier: int = 0
    gm_edge: str = "none"
    gm_reason: str = ""


@dataclass(frozen=True)
class Defend:
    """No move and no attack: +2 AC until the defender's next turn, to itself or a guarded adjacent ally."""

    combatant: str
    ally: str = ""


@dataclass(frozen=True)
class TakeMove:
    """The turn's action is a Move: up to the full Move (leaving melee provokes counter-attacks)."""

    combatant: str


@dataclass(frozen=True)
class Cast:
    """Cast a spell: the caster may not move this turn."""

    caster: str
    text: str
    target: str = ""
    lasting: bool = False  # longer than an instant: it goes off at the caster's next turn, unless interrupted
    harmful: bool = True  # a charmed caster may not aim a harmful spell at its charmer


@dataclass(frozen=True)
class StandUp:
    """A prone creature gets up: half its Move, not its action (RULES §12)."""

    combatant: str


@dataclass(frozen=True)
class Burn:
    """The fire damage a burning creature takes as its turn begins (``combat.pending[index]``)."""

    index: int


@dataclass(frozen=True)
class Confusion:
    """The d6 a confused creature rolls as its turn begins (``combat.pending[index]``)."""

    index: int


@dataclass(frozen=True)
class DeathSave:
    """The death save a PC at 0 HP makes at once (``combat.pending[index]``)."""

    index: int


@dataclass(frozen=True)
class SavingThrow:
    """d20 + the category's bonus against a DC, on the GM's demand."""

    combatant: str
    category: str
    dc: int
    reason: str = ""
    gm_modifier: int = 0  # the GM's situational modifier and edge, as on an attack (RULES §12)
    gm_edge: str = "none"
    gm_reason: str = ""


@dataclass(frozen=True)
class MoraleCheck:
    """2d6 against the morale of a side's creatures; ``index`` is the queued check it answers, if any."""

    side: str
    modifier: int = 0
    cornered: bool = False
    outcome: str = MoraleResult.FLEES.value
    index: int = -1
    reason: str = ""
