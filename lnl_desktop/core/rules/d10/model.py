"""The Group d10 stat block, options and combat state (RULES §13): HP, DR, Defense, skill bonuses,
minions, weapon tiers; declarations, round 1's surprise and timer dice on the combat state.

The ruleset's actions are here too, with the words they are declared and chosen by: what the
Action dock, the declare phase and the prompts hand the engine."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Annotated, Any

from pydantic import Field, model_validator

from lnl_desktop.core.encounter.areas import Area
from lnl_desktop.core.encounter.model import (
    MOST_WEAPONS,
    CombatantBase,
    CombatState,
    OptionsBase,
    Side,
    WeaponKind,
    _Model,
    kinds_among,
)
from lnl_desktop.core.errors import RulesError

Skill = Annotated[int, Field(ge=-10, le=30)]

D10_DICE = ("d4", "d6", "d8", "d10", "d12")
SKILLS = ("melee", "ranged", "casting", "stealth", "perception", "strength")
SKILL_NAMES = {
    "melee": "melee",
    "ranged": "ranged",
    "casting": "casting",
    "stealth": "Stealth",
    "perception": "Perception",
    "strength": "feats of strength",
}


class Tier(StrEnum):
    MASTERWORK = "masterwork"  # damage: two dice, the higher
    COMMON = "common"
    SHODDY = "shoddy"  # damage: two dice, the lower


# A Group d10 weapon is melee, reach or ranged.
WEAPON_KINDS = (WeaponKind.MELEE, WeaponKind.REACH, WeaponKind.RANGED)
D10WeaponKind = kinds_among(*WEAPON_KINDS)


class D10Weapon(_Model):
    name: str = Field(min_length=1, max_length=60)
    die: str = Field(default="d6", pattern=r"^d(4|6|8|10|12)$", description="d4 ... d12")
    kind: D10WeaponKind = WeaponKind.MELEE
    tier: Tier = Tier.COMMON
    max_range_ft: int | None = Field(default=None, ge=10, le=5000, description="ranged weapons only")
    dropped: bool = False  # a critical's disarm: unusable until a Use / ready an item picks it up
    # RULES §14: a fire bomb, an area spell. Its area damage is rolled once for every target it strikes.
    area: Area | None = Field(default=None, description="what it strikes when used on an area (a bomb, a spell)")
    area_dice: int = Field(
        default=1,
        ge=1,
        le=10,
        description="how many of its die the area rolls, once for every target: 2 with a d6 is 2d6 "
        "(area damage never uses tiers, as spells and traps do not)",
    )

    @model_validator(mode="before")
    @classmethod
    def _range_follows_kind(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("kind", "melee") != WeaponKind.RANGED.value and data.get("max_range_ft"):
            data = {k: v for k, v in data.items() if k != "max_range_ft"}
        return data

    @model_validator(mode="after")
    def _dice_need_an_area(self) -> D10Weapon:
        if self.area is None and self.area_dice != 1:
            raise ValueError(
                f"area dice: {self.name} rolls {self.area_dice}{self.die} only on an area: give it an area "
                "(a shape and a size) or set its area dice to 1"
            )
        return self

    @property
    def area_roll(self) -> str:
        """What its area rolls: '2d6'."""
        return f"{self.area_dice}{self.die}"

    @property
    def sides(self) -> int:
        return int(self.die[1:])

    @property
    def reach(self) -> int:
        return 10 if self.kind is WeaponKind.REACH else 5

    @property
    def skill(self) -> str:
        return "ranged" if self.kind is WeaponKind.RANGED else "melee"

    @property
    def label(self) -> str:
        tier = "" if self.tier is Tier.COMMON else f", {self.tier.value}"
        dropped = ", dropped" if self.dropped else ""
        area = f", {self.area_roll} on {self.area.words}" if self.area is not None else ""
        return f"{self.name} ({self.die}, {self.kind.value}{tier}{area}{dropped})"


class D10Combatant(CombatantBase):
    """A combatant of the Group d10 ruleset (RULES §13)."""

    group: str = Field(default="", max_length=40, description="an Opponents' group of its own (empty: the main one)")
    hp: int = Field(ge=0, le=10_000)
    hp_max: int = Field(ge=1, le=10_000)
    dr: int = Field(default=0, ge=0, le=30, description="damage reduction from armor")
    defense: int = Field(default=11, ge=1, le=40, description="what a to-hit roll must reach")
    melee: Skill = 0
    ranged: Skill = 0
    casting: Skill = 0
    stealth: Skill = 0
    perception: Skill = 0
    strength: Skill = Field(default=0, description="feats of strength")
    minion: bool = False
    weapons: list[D10Weapon] = Field(default_factory=list, max_length=MOST_WEAPONS)
    dead: bool = False
    parrying: bool = False  # until its next action: to-hit rolls against it at disadvantage
    disengaged: bool = False  # this turn: it moves freely, no free attacks
    lost_attack_round: int | None = Field(default=None, ge=0, description="the round it loses its attack in")
    overextended_round: int | None = Field(default=None, ge=0, description="the round its foes have advantage")
    grappled_by: str | None = Field(default=None, max_length=64, description="who holds its grapple")
    stood_up: bool = False  # this turn: standing up from prone spent its move

    @model_validator(mode="before")
    @classmethod
    def _hp_from_max(cls, data: Any) -> Any:
        if isinstance(data, dict) and "hp" not in data and "hp_max" in data:
            data = {**data, "hp": data["hp_max"]}
        return data

    @model_validator(mode="after")
    def _consistent(self) -> D10Combatant:
        if self.hp > self.hp_max:
            raise ValueError(f"hp: {self.hp} HP is above the maximum of {self.hp_max}")
        if self.side is Side.PARTY and self.group:
            raise ValueError("group: the Party is one group (only the Opponents split into several)")
        for condition in self.conditions:
            word, _, level = condition.strip().partition(" ")
            if word.casefold() == "exhausted" and level.strip():
                raise ValueError(
                    f"conditions: {condition.strip()!r}: exhausted has no levels in Group d10 "
                    "(its to-hit rolls are at disadvantage): write “exhausted”"
                )
        names = [w.name for w in self.weapons]
        for name in names:
            if names.count(name) > 1:
                raise ValueError(f"weapons: two weapons are named {name!r}")
        return self

    @property
    def down(self) -> bool:
        return self.hp == 0 or self.dead or self.has("unconscious")

    @property
    def group_name(self) -> str:
        """The initiative group it rolls with: the Party, the Opponents, or an Opponents' group of its own."""
        return self.group or self.side.value

    @property
    def bloodied(self) -> bool:
        """At or below half its maximum HP: -2 to hit."""
        return self.hp * 2 <= self.hp_max

    def skill(self, name: str) -> int:
        if name not in SKILLS:
            raise RulesError(f"{self.name} has no skill {name!r} (skills: {', '.join(SKILLS)})")
        return int(getattr(self, name))

    def has(self, condition: str) -> bool:
        """Whether ``condition`` is among its conditions, whatever the case ("Prone" is "prone")."""
        wanted = condition.casefold()
        return any(" ".join(c.split()).casefold() == wanted for c in self.conditions)

    def add_condition(self, condition: str) -> bool:
        """Add ``condition`` as the menu spells it, unless it has it already (in any case)."""
        if self.has(condition):
            return False
        self.conditions.append(condition)
        return True

    def drop_condition(self, condition: str) -> bool:
        """Remove ``condition`` however it is spelt; whether it had it."""
        kept = [c for c in self.conditions if " ".join(c.split()).casefold() != condition.casefold()]
        removed = len(kept) != len(self.conditions)
        self.conditions[:] = kept
        return removed

    @property
    def prone(self) -> bool:
        return self.has("prone")

    @property
    def holder(self) -> str | None:
        """Who holds it in a grapple (an id), while it is grappled."""
        return self.grappled_by if self.has("grappled") else None

    def weapon(self, name: str) -> D10Weapon:
        for weapon in self.weapons:
            if weapon.name == name:
                return weapon
        known = ", ".join(w.name for w in self.weapons) or "none"
        raise RulesError(f"weapon: {self.name} has no weapon named {name!r} (has: {known})")

    def _ruleset_status(self) -> list[str]:
        words = []
        if self.dead:
            words.append("dead")
        if self.minion:
            words.append("minion")
        if self.parrying:
            words.append("parrying / dodging")
        if self.disengaged:
            words.append("disengaged")
        words += [f"{w.name} dropped" for w in self.weapons if w.dropped]
        return words


class D10Options(OptionsBase):
    weapon_tiers: bool = Field(default=True, description="masterwork and shoddy weapons roll two damage dice")
    # The rest of the [D] points of RULES §13, each with its default as written there.
    sprint_moves: float = Field(default=2.0, ge=1, le=4, description="Sprint / Flee moves up to this many Moves")
    full_surprise_margin: int = Field(
        default=5, ge=1, le=20, description="an ambush roll won by this much or more is full surprise"
    )
    party_first_on_ties: bool = Field(
        default=True, description="on an initiative tie the party's group acts first (off: a re-roll)"
    )
    advantage_cancels: bool = Field(
        default=True, description="advantage and disadvantage from different sources cancel to a plain roll"
    )
    # RULES §16: Wounded and lasting wounds stay until the GM clears them, whatever the rest.
    night_rest_restores_hp: bool = Field(
        default=True, description="a night's rest restores all HP (off: nothing, the GM heals by hand)"
    )


class Timer(_Model):
    """A timer die: an event in so many rounds (the ceiling collapses)."""

    die: str = Field(pattern=r"^d(4|6|8|10|12|20)$")
    event: str = Field(min_length=1, max_length=120)
    face: int = Field(ge=1, le=20)
    rounds_left: int = Field(ge=0, le=20)


class D10Combat(CombatState):
    """Group d10's own combat state: declarations, round 1's surprise, timers."""

    declaring: dict[str, str] = Field(default_factory=dict, description="declared for the coming round")
    declared: dict[str, str] = Field(default_factory=dict, description="this round's declarations, locked")
    # RULES §13: a declaration may name its target; attacking another is a change of plan, logged.
    declaring_targets: dict[str, str] = Field(default_factory=dict, description="the coming round's declared targets")
    declared_targets: dict[str, str] = Field(default_factory=dict, description="this round's declared targets")
    ambushers: Side | None = None  # who won round 1's surprise
    full_surprise: bool = False
    timers: list[Timer] = Field(default_factory=list)


# -- declarations and the GM's picks --------------------------------------------------------------

# What a combatant may declare (RULES §13's turn), by key.
DECLARE = (
    ("attack", "Attack"),
    ("cast", "Cast a spell"),
    ("grapple", "Grapple"),
    ("break free", "Break free"),
    ("parry", "Parry / dodge"),
    ("move", "Move only"),
    ("disengage", "Disengage"),
    ("item", "Use / ready an item"),
    ("sprint", "Sprint / flee"),
    ("stealth", "Stealth"),
    ("other", "Something else"),
)
DECLARED_LABEL = dict(DECLARE)
# A grapple is an attack of its own kind (RULES §13's non-damage attacks): declared "attack" covers it.
AS_DECLARED = {"grapple": ("grapple", "attack"), "break free": ("break free", "grapple", "attack")}
# A disarmed creature that declared an attack picks its weapon up instead: the disarm changed things.
PICK_UP_DECLARED = ("item", "attack", "cast")
EDGE = ("none", "advantage", "cinematic advantage", "disadvantage")  # the GM's own, with a reason
ON_20 = ("double damage", "disarm", "knock prone", "grapple")  # a critical's effect (RULES §13)
MISHAPS = ("none", "drops weapon", "trips prone", "overextended")  # a critical failure's, on the GM's pick
# What an opposed roll settles besides words (RULES §13): a grapple set, or one broken.
STAKES = ("words only", "grapple", "break free")
SAVE_DC = (1, 40)  # the DCs a GM may set for a saving throw
SAVE_DICE = ("none", "d4", "d6", "d8", "d10", "d12", "d20")  # a failed save's damage die (no tiers)


# -- the actions (what the Action dock, the declare phase and the prompts hand the engine) --------


@dataclass(frozen=True)
class Declare:
    """Declare ``combatant``'s action for the coming round; during a round, a logged GM override."""

    combatant: str
    action: str
    target: str = ""  # whom it means to strike (RULES §13), or "" for no one named


@dataclass(frozen=True)
class D10Attack:
    """An attack: d20 + the skill (melee, ranged or casting) against the target's Defense."""

    attacker: str
    target: str
    weapon: str
    skill: str = ""  # "" = the weapon's (melee or ranged); "casting" for a spell attack
    gm_edge: str = "none"
    gm_reason: str = ""
    cover: bool = False
    called_shot: bool = False
    extreme_range: bool = False
    subdual: bool = False
    on_20: str = ON_20[0]
    override: bool = False  # the GM lets it through against the declaration
    ignores_dr: bool = False  # a weapon or spell that disregards armor (the GM's toggle)


@dataclass(frozen=True)
class FreeAttack:
    """Take a queued free attack (``combat.pending[index]``)."""

    index: int
    weapon: str = ""
    on_20: str = ON_20[0]


@dataclass(frozen=True)
class ParryDodge:
    combatant: str
    override: bool = False


@dataclass(frozen=True)
class Disengage:
    """A to-hit roll against the foe: success, it moves freely this turn and no foe gets a free attack."""

    combatant: str
    target: str
    weapon: str
    override: bool = False


@dataclass(frozen=True)
class UseItem:
    """Use or ready an item in place of the attack; ``pick_up`` names a dropped weapon taken up again."""

    combatant: str
    text: str
    override: bool = False
    pick_up: str = ""


@dataclass(frozen=True)
class Stealth:
    """The Stealth action in place of the attack (RULES §13): d20 + stealth against d20 + the best
    perception of the foes who could see it; higher, it is hidden and its next attack on an
    unsuspecting foe has advantage. The move stays free."""

    combatant: str
    override: bool = False


@dataclass(frozen=True)
class Grapple:
    """A grapple in place of the attack: d20 + feats of strength each, the attacker must roll higher."""

    attacker: str
    target: str
    override: bool = False


@dataclass(frozen=True)
class BreakFree:
    """A grappled creature's turn: d20 + feats of strength against its grappler's; higher breaks free."""

    combatant: str
    override: bool = False


@dataclass(frozen=True)
class LetGo:
    """The grappler lets its hold go (no roll, no action)."""

    grappler: str
    target: str


@dataclass(frozen=True)
class StandUp:
    """A prone creature stands: its move action this turn."""

    combatant: str


@dataclass(frozen=True)
class SavingThrow:
    """A save against a spell or trap the GM calls for: d20 + the fitting skill ≥ the DC; a failure
    brings the condition and the damage the GM set (after DR unless it ignores DR)."""

    combatant: str
    skill: str
    dc: int
    what: str = ""
    condition: str = ""
    damage_die: str = "none"
    ignores_dr: bool = False


@dataclass(frozen=True)
class Sprint:
    combatant: str
    override: bool = False


@dataclass(frozen=True)
class Mishap:
    """The GM's pick of a critical failure's mishap (``combat.pending[index]``)."""

    index: int
    choice: str = "none"


@dataclass(frozen=True)
class OpposedRoll:
    """Two combatants' d20 + a skill each (a grapple, a door shut first): the higher wins."""

    first: str
    first_skill: str
    second: str
    second_skill: str
    what: str = ""
    stake: str = ""  # "grapple" or "break free": the win sets or clears the grapple (else words only)


@dataclass(frozen=True)
class TimerNoted:
    """The GM has announced a timer's event to the table (``combat.pending[index]``)."""

    index: int


@dataclass(frozen=True)
class SetTimer:
    """A timer die: roll it, count the rounds down, announce the event when it comes."""

    die: str
    event: str
