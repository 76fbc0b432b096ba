"""The encounter document: combatants, weapons, shields, combat state, and the encounter that holds them.

Pydantic v2 models. A bad value is refused with a message that names the field (level 0,
a negative Move, a d7, SP above its maximum, a weapon that does not exist). The models hold
data and derived read-only properties; changes go through :mod:`lnl_desktop.core.engine.engine`.
The map, its walls, doors and tokens, and the fog of war are :mod:`.map_model`'s (a script may still
import the public MapGrid and Token from here; the program imports them from there).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from copy import deepcopy
from enum import StrEnum
from operator import itemgetter
from typing import Annotated, Any, ClassVar

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic.json_schema import WithJsonSchema
from pydantic_core import PydanticCustomError

from lnl_desktop.core.encounter.areas import Templates
from lnl_desktop.core.encounter.conditions import HOLDING, INCAPACITATING, condition_key, normalised_conditions
from lnl_desktop.core.encounter.drawings import Drawings
from lnl_desktop.core.encounter.events import Event
from lnl_desktop.core.encounter.light import AmbientLight, LightSource, lights_problem
from lnl_desktop.core.encounter.log_book import LogBook, log_of
from lnl_desktop.core.encounter.map_model import Fog, MapGrid, Token
from lnl_desktop.core.errors import RulesError
from lnl_desktop.core.map.grid import Cell, footprint, token_distance_ft

# A combatant's lists, far past any stat block: a file holding more is refused with the limit named.
MOST_WEAPONS = 50
MOST_SPELLS = 100
MOST_TRAITS = 100
MOST_CONDITIONS = 50
# Roster characters linked in one encounter: far past any party (and the combatants it names).
MOST_PARTY_LINKS = 500
# A roster character's version counter: it counts edits and fights, never near this.
MAX_ROSTER_VERSION = 1_000_000_000


EventLog = log_of(Event)  # the round log's type: a list of events to the file, a LogBook in memory


class _Model(BaseModel):
    # Unknown keys in a file are a mistake worth reporting, not something to drop silently.
    model_config = ConfigDict(extra="forbid", defer_build=True)


class Side(StrEnum):
    PARTY = "Party"
    OPPONENTS = "Opponents"

    @property
    def other(self) -> Side:
        return Side.OPPONENTS if self is Side.PARTY else Side.PARTY

    @property
    def acts_first(self) -> str:
        """'Party acts first' / 'Opponents act first'."""
        return f"{self.value} act{'s' if self is Side.PARTY else ''} first"


class WeaponKind(StrEnum):
    """What a weapon is, for every ruleset; each ruleset's weapons take the kinds it names (:func:`kinds_among`)."""

    MELEE = "melee"  # 5 ft
    REACH = "reach"  # 10 ft, or a reach of its own where the ruleset gives one
    RANGED = "ranged"  # any weapon that shoots or is thrown, where the ruleset does not tell them apart
    MISSILE = "missile"  # bow, sling, where the ruleset tells them from thrown weapons (PER to hit)
    THROWN = "thrown"  # dagger, javelin, in such a ruleset (the best of STR / DEX / PER to hit)


def kinds_among(*kinds: WeaponKind) -> Any:
    """A weapon's ``kind`` field type taking only ``kinds`` of the one :class:`WeaponKind`, refused
    otherwise in the words (and the file's JSON Schema) an enum of those kinds alone would give."""
    values = [kind.value for kind in kinds]
    expected = ", ".join(repr(v) for v in values[:-1]) + f" or {values[-1]!r}"

    def among(value: WeaponKind) -> WeaponKind:
        if value not in kinds:
            raise PydanticCustomError("enum", "Input should be {expected}", {"expected": expected})
        return value

    return Annotated[WeaponKind, AfterValidator(among), WithJsonSchema({"enum": values, "type": "string"})]


class Trait(StrEnum):
    CANNOT_BE_SURPRISED = "cannot be surprised"


_ID = re.compile(r"^[a-z0-9][a-z0-9_-]*$")
# A token's picture is at most 256 x 256 PNG: about 270 kB as base64 at the worst.
MAX_PORTRAIT_CHARS = 400_000


def slug(name: str) -> str:
    """An id made from a name: 'Hill Giant' -> 'hill-giant'."""
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "combatant"


class DurationKind(StrEnum):
    """How long a condition lasts (RULES §10 "How long a condition lasts")."""

    ROUNDS = "rounds"  # counted at the end of the affected creature's turns
    END_OF_NEXT_TURN = "end of next turn"
    START_OF_TURN_OF = "start of turn of"  # a named creature's next turn (a spell's caster)
    SAVE = "save"  # a save at the end of each of its turns


class ConditionDuration(_Model):
    """When a condition ends by itself. A condition with no duration lasts *until removed*.

    ``rounds`` is what is left for ROUNDS; ``creature`` the id whose next turn ends it for
    START_OF_TURN_OF; ``save`` the save to roll at the end of each turn for SAVE (Old-School d20:
    its save category; Group d10: ``dc`` against a d20 roll; L&L: the ability a d20 goes under).
    """

    kind: DurationKind
    rounds: int | None = Field(default=None, ge=1, le=1000)
    creature: str | None = Field(default=None, min_length=1, max_length=64)
    save: str | None = Field(default=None, min_length=1, max_length=40)
    dc: int | None = Field(default=None, ge=1, le=100)
    # Given during the affected creature's own turn: the end of that turn does not count ("1 round"
    # and "until the end of its next turn" mean its NEXT turn). The engine sets and clears it.
    given_in_its_turn: bool = False
    rounds_given: int | None = Field(default=None, ge=1, le=1000)  # ROUNDS as given, for the line that ends it

    @model_validator(mode="after")
    def _what_it_needs(self) -> ConditionDuration:
        if self.kind is DurationKind.ROUNDS and self.rounds is None:
            raise ValueError("a duration in rounds needs how many rounds")
        if self.kind is DurationKind.START_OF_TURN_OF and self.creature is None:
            raise ValueError("say whose turn ends it")
        if self.kind is DurationKind.SAVE and self.save is None and self.dc is None:
            raise ValueError("say which save ends it")
        return self


class CombatantBase(_Model):
    """What every ruleset's combatant has (RULES §10): who it is, its side, how it moves and sees.

    A ruleset's stat block (:attr:`Ruleset.stat_block`) subclasses this with its own numbers;
    the engine, the map and the turn order read only these fields and :attr:`down`.
    """

    id: str = Field(min_length=1, max_length=64)
    name: str = Field(min_length=1, max_length=60)
    side: Side
    move_ft: int = Field(default=30, ge=0, le=500)
    size: int = Field(default=1, ge=1, le=4, description="cells per side on the grid")
    vision_deg: int = Field(default=120, ge=1, le=360)
    # Bounds no stat block comes near; a file with 100,000 of them is refused before each is read.
    traits: list[Trait] = Field(default_factory=list, max_length=MOST_TRAITS)
    conditions: list[str] = Field(default_factory=list, max_length=MOST_CONDITIONS)
    # A condition's duration, by its name as spelt in ``conditions``; one not listed lasts until removed.
    durations: dict[str, ConditionDuration] = Field(default_factory=dict, max_length=MOST_CONDITIONS)
    # RULES §15 [D]: dark cells within this many feet and in its sight count as dim for it.
    darkvision_ft: int = Field(default=0, ge=0, le=500)
    concealed: bool = False
    distracted: bool = False  # GM toggle: absorbed in conversation or study
    surprised: bool = False  # takes no turn in the first round of combat
    notes: str = Field(default="", max_length=4000)
    portrait: str | None = Field(
        default=None,
        max_length=MAX_PORTRAIT_CHARS,
        description="the token's picture: base64 PNG, square, kept inside the encounter file",
    )

    @model_validator(mode="before")
    @classmethod
    def _id_from_name(cls, data: Any) -> Any:
        if isinstance(data, dict) and "id" not in data and isinstance(data.get("name"), str):
            data = dict(data)
            data["id"] = slug(data["name"])
        return data

    @field_validator("id")
    @classmethod
    def _id_shape(cls, value: str) -> str:
        if not _ID.match(value):
            raise ValueError("use lower-case letters, digits, '-' and '_'")
        return value

    @field_validator("conditions")
    @classmethod
    def _conditions_spelt(cls, value: list[str]) -> list[str]:
        return normalised_conditions(value)

    @model_validator(mode="after")
    def _durations_of_its_conditions(self) -> CombatantBase:
        # Keys spelt as ``conditions`` spells them; a duration whose condition is gone (taken off the
        # sheet's line) goes with it, so a condition given again later does not end by an old count.
        spelt = {c.casefold(): c for c in self.conditions}
        kept = {spelt[k]: d for name, d in self.durations.items() if (k := condition_key(name).casefold()) in spelt}
        if kept != self.durations:
            self.durations = kept
        return self

    def has_condition(self, name: str) -> bool:
        """Whether ``name`` is among its conditions, whatever the case of either."""
        wanted = condition_key(name).casefold()
        # "grappled by Ogre" is grappled: a condition may name its source after the word.
        return any(
            (key := condition_key(c).casefold()) == wanted or key.startswith(wanted + " ") for c in self.conditions
        )

    @property
    def incapacitated_by(self) -> str | None:
        """The condition that takes its turn (RULES §10: no action, no move), or None."""
        return next((word for word in INCAPACITATING if self.has_condition(word)), None)

    @property
    def held_by(self) -> str | None:
        """The condition that holds it in place (Move 0), or None."""
        return next((word for word in HOLDING if self.has_condition(word)), None)

    @property
    def down(self) -> bool:
        """Out of the fight: takes no more turns and no longer bars the way. The stat block says when."""
        return False

    def status_words(self) -> list[str]:
        """Short status words, most important first: down, surprised, concealed..."""
        words = []
        if self.down:
            words.append("down")
        if self.surprised:
            words.append("surprised")
        words.extend(self._ruleset_status())
        if self.concealed:
            words.append("concealed")
        if self.distracted:
            words.append("distracted")
        words.extend(self._ruleset_status_after())
        words.extend(self.conditions)
        return words

    def _ruleset_status(self) -> list[str]:
        return []

    def _ruleset_status_after(self) -> list[str]:
        return []

    @property
    def cannot_be_surprised(self) -> bool:
        return Trait.CANNOT_BE_SURPRISED in self.traits


class OptionsBase(_Model):
    """The options every ruleset has: how the shared grid rules read (RULES §4 and §10)."""

    difficult_multiplier: int = Field(default=2, ge=1, le=4, description="difficult terrain costs this many times")
    # Facing (RULES §7, §10) drives sneak attacks and attacks from behind: an attacker left with its
    # back to its target would be wrong for the next check. On by default, so older files read it on.
    face_target_on_attack: bool = Field(default=True, description="an attacker turns to face its target")
    # RULES §15: Old-School d20's light consideration is this value, so its older files keep theirs.
    light: AmbientLight = Field(default=AmbientLight.NORMAL, description="the ambient light: normal, dim or dark")
    # RULES §15 [D]: each combatant's darkvision_ft; off, a dark cell hides a creature from everyone.
    darkvision: bool = Field(
        default=True,
        description="darkvision counts: dark cells within a combatant's darkvision and in its sight are dim for it",
    )


class Phase(StrEnum):
    SETUP = "setup"
    FIGHTING = "fighting"
    ENDED = "ended"


class TurnState(_Model):
    """What the active combatant has done so far this turn."""

    combatant: str
    start_cell: Cell | None = None
    concealed_at_start: bool = False
    feet_before: float = Field(default=0, ge=0)  # movement spent before the action
    feet_after: float = Field(default=0, ge=0)  # movement spent after it
    extra_ft: float = Field(default=0, ge=0)  # from Dash or Leap
    leaping: bool = False
    diagonals: int = Field(default=0, ge=0)  # the 5-10-5 alternation carries across a turn's moves
    path: list[Cell] = Field(default_factory=list)  # every anchor the token stood on, forced moves apart
    action: str | None = Field(default=None, max_length=60)  # the word of the ruleset's action
    action_detail: str = ""
    attacks: int = Field(default=0, ge=0)  # attack rolls made this turn (a monster with several, RULES §12)

    @property
    def feet_used(self) -> float:
        return self.feet_before + self.feet_after


class TurnSlot(_Model):
    """One place in a round's turn order where a ruleset sets one (RULES §12-13): a group whose
    members take their turns in any order, or a single combatant; ``roll`` says how it got there."""

    title: str = Field(min_length=1, max_length=120)
    members: list[str] = Field(default_factory=list)
    roll: str = Field(default="", max_length=200)  # "d20 12 + INIT 1 = 13"
    total: int | None = None


class Pending(_Model):
    """Something the rules call for now that the GM rolls or skips: a counter-attack, a death save,
    a morale check. The ruleset queues it and its own action takes it off; the GM may skip it."""

    kind: str = Field(min_length=1, max_length=40)  # "counter-attack", "death save", "morale"
    who: str = Field(min_length=1, max_length=64)  # the combatant who rolls (or a side's name)
    target: str | None = None
    text: str = Field(min_length=1, max_length=300)
    number: int | None = None  # a DC, a modifier: what the ruleset needs to take it up
    urgent: bool = False  # asked for at once (a death save) rather than left in the queue
    round: int = Field(default=0, ge=0)


class AttackRecord(_Model):
    round: int = Field(ge=0)  # attacks happen in combat: round 1, or a surprise round 0 before it
    attacker: str
    target: str


# Rounds a fight may last: days at the table, and far from what a 64-bit count holds.
MAX_ROUNDS = 10_000


class CombatState(_Model):
    phase: Phase = Phase.SETUP
    round: int = Field(default=0, ge=0)
    # 1, or 0 when combat opened with a surprise round (in a ruleset that has one) before round 1.
    first_round: int = Field(default=1, ge=0, le=1)
    situation: str | None = Field(default=None, max_length=60, description="how the ruleset's start was read")
    initiative_face: int | None = Field(default=None, ge=1, le=20)
    first_side: Side | None = None
    surprised_side: Side | None = None  # the first round of combat only
    acted: list[str] = Field(default_factory=list)
    turn: TurnState | None = None
    attacks: list[AttackRecord] = Field(default_factory=list)  # this round and the one before
    ranged_hits: dict[str, list[str]] = Field(
        default_factory=dict, description="target id -> who hit it with a ranged attack since its last turn"
    )
    # A round's turn order where the ruleset sets one (empty: the side order of RULES §2).
    order: list[TurnSlot] = Field(default_factory=list)
    # What the rules call for that the GM has not rolled or skipped yet, oldest first.
    pending: list[Pending] = Field(default_factory=list)
    # Who made a free attack against whom this round (the monster limit of RULES §12).
    free_attacks: dict[str, list[str]] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _possible(self) -> CombatState:
        # States the engine never produces; a file holding one was edited by hand or damaged.
        if self.round > MAX_ROUNDS:  # the fight odds count rounds on from it in 64-bit arrays
            raise ValueError(f"round: {self.round:,} is past any fight; a fight lasts at most {MAX_ROUNDS:,} rounds")
        if self.phase is Phase.SETUP:
            if self.round != 0:
                raise ValueError(f"round: {self.round} before combat has started (it starts in round 1)")
            if self.turn is not None:
                raise ValueError("turn: a turn is under way before combat has started")
            if self.acted or self.attacks or self.ranged_hits or self.order or self.pending or self.free_attacks:
                raise ValueError("phase: combatants have acted, attacked or shot before combat has started")
        else:
            if self.round < self.first_round:
                raise ValueError(
                    f"round: combat is {self.phase.value} in round {self.round}; it starts in round {self.first_round}"
                )
            if self.phase is Phase.ENDED and self.turn is not None:
                raise ValueError("turn: a turn is under way after combat has ended")
            if self.phase is Phase.FIGHTING and self.first_side is None:
                raise ValueError("first_side: combat is under way but no side acts first")
        if self.surprised_side is not None and self.round != self.first_round:
            raise ValueError(
                f"surprised_side: a side is surprised in the first round ({self.first_round}) only, "
                f"not in round {self.round}"
            )
        for record in self.attacks:
            if record.round > self.round:
                raise ValueError(f"attacks: an attack in round {record.round}, after this round ({self.round})")
        return self

    @property
    def round_phrase(self) -> str:
        """'round 3', or 'the surprise round', to say when something happens."""
        return "the surprise round" if self.round == 0 and self.phase is not Phase.SETUP else f"round {self.round}"

    @property
    def round_name(self) -> str:
        """'Round 3', or 'Surprise round' for the round 0 a surprise opens with."""
        return "Surprise round" if self.round == 0 and self.phase is not Phase.SETUP else f"Round {self.round}"


class Encounter(_Model):
    """Everything about one fight; what a ``.lnl`` file holds.

    The frame every ruleset shares: a ruleset's own encounter model (:attr:`Ruleset.encounter_model`)
    narrows ``ruleset`` to its name, ``combatants`` to its stat block and ``options`` to its own."""

    # Whether a name is a registered ruleset's: the registry says (RulesError naming the known ones).
    ruleset_check: ClassVar[Callable[[str], object] | None] = None

    name: str = Field(default="Encounter", min_length=1, max_length=120)
    ruleset: str = Field(min_length=1, max_length=60)
    options: OptionsBase = Field(default_factory=OptionsBase)
    map: MapGrid = Field(default_factory=lambda: MapGrid(width=20, height=15))
    combatants: list[CombatantBase] = Field(default_factory=list)
    tokens: dict[str, Token] = Field(default_factory=dict)
    combat: CombatState = Field(default_factory=CombatState)
    fog: Fog = Field(default_factory=Fog)
    lights: tuple[LightSource, ...] = ()  # RULES §15: placed or carried light sources (core.encounter.light)
    drawings: Drawings = ()  # the GM's marks and labels on the map (core.encounter.drawings)
    templates: Templates = ()  # area templates laid on the map (core.encounter.areas, RULES §14)
    # RULES §16: a combatant id -> the roster version its character was brought in at. A linked
    # combatant is a roster character; the encounter's copy is the roster's until the fight ends.
    party_links: dict[str, Annotated[int, Field(ge=0, le=MAX_ROSTER_VERSION)]] = Field(
        default_factory=dict,
        max_length=MOST_PARTY_LINKS,
        description="combatant id -> the party roster version its character was brought in at",
    )
    # Every event of the fight, the older ones kept compact (core.encounter.log_book): a list to the file.
    log: EventLog = Field(default_factory=LogBook)

    @field_validator("ruleset")
    @classmethod
    def _registered(cls, name: str) -> str:
        # A ruleset's own model names its ruleset (a Literal); the frame takes any registered name.
        if cls.ruleset_check is not None and cls.model_fields["ruleset"].annotation is str:
            cls.ruleset_check(name)
        return name

    @model_validator(mode="after")
    def _references_hold(self) -> Encounter:
        ids = [c.id for c in self.combatants]
        seen: set[str] = set()
        for cid in ids:
            if cid in seen:
                raise ValueError(f"combatants: two combatants have the id {cid!r}")
            seen.add(cid)
        taken: dict[Cell, str] = {}
        for cid, token in self.tokens.items():
            if cid not in seen:
                raise ValueError(f"tokens.{cid}: no combatant has this id")
            size = self.combatant(cid).size
            for cell in footprint(token.cell, size):
                x, y = cell
                if not (0 <= x < self.map.width and 0 <= y < self.map.height):
                    raise ValueError(f"tokens.{cid}: cell ({x}, {y}) is outside the map")
                if cell in self.map.walls:
                    raise ValueError(f"tokens.{cid}: cell ({x}, {y}) is a wall")
                if cell in taken:
                    raise ValueError(f"tokens.{cid}: cell ({x}, {y}) is taken by {taken[cell]}")
                taken[cell] = cid
        for cid in self.party_links:
            if cid not in seen:
                raise ValueError(f"party_links.{cid}: no combatant has this id")
        self._combat_references_hold(seen)
        if self.lights and (problem := lights_problem(self.lights, seen, self.map.width, self.map.height)):
            raise ValueError(problem)
        return self

    @model_validator(mode="after")
    def _fog_on_the_map(self) -> Encounter:
        # Not part of _references_hold: a map made smaller drops the explored cells off it after that check.
        explored = self.fog.explored
        if explored:
            grid = self.map
            xs, ys = list(map(itemgetter(0), explored)), list(map(itemgetter(1), explored))
            if min(xs) < 0 or min(ys) < 0 or max(xs) >= grid.width or max(ys) >= grid.height:
                x, y = min(c for c in explored if not (0 <= c[0] < grid.width and 0 <= c[1] < grid.height))
                raise ValueError(f"fog.explored: cell ({x}, {y}) is outside the {grid.width} x {grid.height} map")
        return self

    def _combat_references_hold(self, ids: set[str]) -> None:
        """Every id the combat state names is a combatant's, and the turn's cells are on the map.

        Part of ``_references_hold``, which the engine also runs after map and combatant edits,
        so an edit cannot leave a state that a saved file would then refuse.
        """
        combat = self.combat
        turn = combat.turn
        if turn is not None:
            if turn.combatant not in ids:
                raise ValueError(f"combat.turn.combatant: no combatant has the id {turn.combatant!r}")
            if turn.combatant in combat.acted:
                raise ValueError(f"combat.turn.combatant: {turn.combatant!r} has already acted this round")
            cells = [("start_cell", turn.start_cell)] + [(f"path[{i}]", cell) for i, cell in enumerate(turn.path)]
            for where, cell in cells:
                if cell is not None and not (0 <= cell[0] < self.map.width and 0 <= cell[1] < self.map.height):
                    raise ValueError(
                        f"combat.turn.{where}: cell ({cell[0]}, {cell[1]}) is outside the "
                        f"{self.map.width} x {self.map.height} map"
                    )
        acted: set[str] = set()
        for i, cid in enumerate(combat.acted):
            if cid not in ids:
                raise ValueError(f"combat.acted[{i}]: no combatant has the id {cid!r}")
            if cid in acted:
                raise ValueError(f"combat.acted[{i}]: {cid!r} is listed twice (one turn per round)")
            acted.add(cid)
        for i, record in enumerate(combat.attacks):
            for role, cid in (("attacker", record.attacker), ("target", record.target)):
                if cid not in ids:
                    raise ValueError(f"combat.attacks[{i}].{role}: no combatant has the id {cid!r}")
        for i, slot in enumerate(combat.order):
            for cid in slot.members:
                if cid not in ids:
                    raise ValueError(f"combat.order[{i}]: no combatant has the id {cid!r}")
        for i, item in enumerate(combat.pending):
            for cid in (item.who, item.target):
                if cid is not None and cid not in ids and cid not in {s.value for s in Side}:
                    raise ValueError(f"combat.pending[{i}]: no combatant has the id {cid!r}")
        for cid, targets in combat.free_attacks.items():
            for other in (cid, *targets):
                if other not in ids:
                    raise ValueError(f"combat.free_attacks.{cid}: no combatant has the id {other!r}")
        for target, shooters in combat.ranged_hits.items():
            if target not in ids:
                raise ValueError(f"combat.ranged_hits.{target}: no combatant has this id")
            listed: set[str] = set()
            for i, cid in enumerate(shooters):
                if cid not in ids:
                    raise ValueError(f"combat.ranged_hits.{target}[{i}]: no combatant has the id {cid!r}")
                if cid in listed:
                    raise ValueError(f"combat.ranged_hits.{target}[{i}]: {cid!r} is listed twice")
                listed.add(cid)

    def names(self) -> dict[str, str]:
        """Each combatant's id -> its name ("until the start of Mirela's next turn")."""
        return {c.id: c.name for c in self.combatants}

    def combatant(self, cid: str) -> CombatantBase:
        for combatant in self.combatants:
            if combatant.id == cid:
                return combatant
        raise RulesError(f"combatant: there is no combatant {cid!r}")

    def find(self, name_or_id: str) -> CombatantBase:
        """A combatant by id or by its exact name (handy in scripts)."""
        for combatant in self.combatants:
            if name_or_id in (combatant.id, combatant.name):
                return combatant
        raise RulesError(f"combatant: there is no combatant {name_or_id!r}")

    def side(self, side: Side) -> list[CombatantBase]:
        return [c for c in self.combatants if c.side is side]

    def occupied_by(self, exclude: str | None = None) -> dict[Cell, str]:
        """Every covered cell and who covers it, leaving out one combatant."""
        cells: dict[Cell, str] = {}
        by_id = self.by_id()
        for cid, token in self.tokens.items():
            if cid == exclude:
                continue
            for cell in footprint(token.cell, by_id[cid].size):
                cells[cell] = cid
        return cells

    def distance_between(self, a: CombatantBase, b: CombatantBase) -> float | None:
        """Feet between the nearest cells two combatants cover, or None when either is not on the map.

        The one measure of how far apart two tokens are: reach, ranges, the 10 ft minimum and the
        Action dock's distances all read it.
        """
        ta, tb = self.tokens.get(a.id), self.tokens.get(b.id)
        if ta is None or tb is None:
            return None
        grid = self.map
        return token_distance_ft(ta.cell, a.size, tb.cell, b.size, grid.diagonal, grid.feet_per_cell)

    def copy_without_log(self) -> Encounter:
        """A copy to change freely (a dry run, a reference fight), its log left out. The map is
        immutable and shared, never walked: workers fill its caches (its terrain) meanwhile."""
        state = {k: v for k, v in self.__dict__.items() if k != "log"}
        return type(self).model_construct(**deepcopy(state, {id(self.map): self.map}), log=LogBook())

    def by_id(self) -> dict[str, CombatantBase]:
        """Every combatant by id, for loops that would otherwise search the list each time."""
        return {c.id: c for c in self.combatants}

    def new_name(self, name: str) -> str:
        """A name nobody has yet: 'Goblin', then 'Goblin 2', ... (the log must tell them apart).
        The engine renames a lone 'Goblin' to 'Goblin 1' when a second one joins: see
        :meth:`first_of_kind`."""
        taken = {c.name for c in self.combatants}
        numbered = any(t.startswith(f"{name} ") and t[len(name) + 1 :].isdigit() for t in taken)
        if name not in taken and not numbered:
            return name
        if name in taken and self.first_of_kind(name) is not None:
            taken.add(f"{name} 1")  # the one there now is about to be called that
        n = 2 if name[-1:].isdigit() else 1
        while f"{name} {n}" in taken:
            n += 1
        return f"{name} {n}"

    def first_of_kind(self, name: str) -> CombatantBase | None:
        """The unnumbered 'Goblin' to call 'Goblin 1' now that another 'Goblin' joins: creatures
        of one kind are told apart by number on the map and in the log. None when the name is
        free, already numbered ('Goblin 1' exists), or itself ends in a number ('Guard 7')."""
        if name[-1:].isdigit():
            return None
        names = {c.name for c in self.combatants}
        if f"{name} 1" in names:
            return None
        return next((c for c in self.combatants if c.name == name), None)

    def new_id(self, name: str) -> str:
        """A free id for a combatant called ``name``: 'half-orc', 'half-orc-2', ..."""
        base = slug(name)
        taken = {c.id for c in self.combatants}
        if base not in taken:
            return base
        n = 2
        while f"{base}-{n}" in taken:
            n += 1
        return f"{base}-{n}"
