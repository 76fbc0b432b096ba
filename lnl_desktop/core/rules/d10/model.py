"""The Group d10 stat block, options and combat state (RULES §13): HP, DR, Defense, skill bonuses,
minions, weapon tiers; declarations, round 1's surprise and timer dice on the combat state."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any

from pydantic import Field, model_validator

from lnl_desktop.core.encounter.model import CombatantBase, CombatState, OptionsBase, Side, _Model
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


class D10Kind(StrEnum):
    MELEE = "melee"
    REACH = "reach"
    RANGED = "ranged"


class D10Weapon(_Model):
    name: str = Field(min_length=1, max_length=60)
    die: str = Field(default="d6", pattern=r"^d(4|6|8|10|12)$", description="d4 ... d12")
    kind: D10Kind = D10Kind.MELEE
    tier: Tier = Tier.COMMON
    max_range_ft: int | None = Field(default=None, ge=10, le=5000, description="ranged weapons only")
    dropped: bool = False  # a critical's disarm: unusable until a Use / ready an item picks it up

    @model_validator(mode="before")
    @classmethod
    def _range_follows_kind(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("kind", "melee") != D10Kind.RANGED.value and data.get("max_range_ft"):
            data = {k: v for k, v in data.items() if k != "max_range_ft"}
        return data

    @property
    def sides(self) -> int:
        return int(self.die[1:])

    @property
    def reach(self) -> int:
        return 10 if self.kind is D10Kind.REACH else 5

    @property
    def skill(self) -> str:
        return "ranged" if self.kind is D10Kind.RANGED else "melee"

    @property
    def label(self) -> str:
        tier = "" if self.tier is Tier.COMMON else f", {self.tier.value}"
        dropped = ", dropped" if self.dropped else ""
        return f"{self.name} ({self.die}, {self.kind.value}{tier}{dropped})"


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
    weapons: list[D10Weapon] = Field(default_factory=list)
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
    ambushers: Side | None = None  # who won round 1's surprise
    full_surprise: bool = False
    timers: list[Timer] = Field(default_factory=list)
