"""The events the engine produces: what the round log shows and the file keeps.

Each event carries its round, the ids of the combatants it concerns (for filtering), a line of
text a GM can read, and the structured facts behind that line (every die face, every term of
the damage formula), so views can redraw bars and exports can tabulate without parsing text.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field

from lnl_desktop.core.map.grid import Cell


class _Event(BaseModel):
    """What every event has: the round, the words, who it concerns."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    round: int = 0
    text: str
    actors: tuple[str, ...] = ()

    def details(self) -> str:
        """More than its line of text, for the log's tooltip (a blow's every term); empty when there is none."""
        return ""

    def table_cells(self) -> tuple[str | int, ...]:
        """Its numbers for the log's table export (the ruleset's ``views.export_columns()`` after the
        text); empty if none."""
        return ()


EventBase = _Event  # what a ruleset's own events subclass


class CombatStarted(_Event):
    kind: Literal["combat started"] = "combat started"
    situation: str
    face: int | None  # None for a reverse ambush the GM sets by hand
    first_side: str
    surprised_side: str | None


class InitiativeRolled(_Event):
    kind: Literal["initiative"] = "initiative"
    face: int | None  # None when the GM set the order by hand
    first_side: str


class TurnStarted(_Event):
    kind: Literal["turn started"] = "turn started"
    combatant: str


class TurnEnded(_Event):
    kind: Literal["turn ended"] = "turn ended"
    combatant: str
    feet_used: float


class RoundEnded(_Event):
    kind: Literal["round ended"] = "round ended"


class CombatEnded(_Event):
    kind: Literal["combat ended"] = "combat ended"


class Moved(_Event):
    kind: Literal["moved"] = "moved"
    combatant: str
    path: list[Cell]
    feet: float
    forced: bool = False
    feet_left: float | None = None  # None outside a turn


class Turned(_Event):
    kind: Literal["turned"] = "turned"
    combatant: str
    old_facing: int
    new_facing: int


class WentDown(_Event):
    kind: Literal["down"] = "down"
    combatant: str
    overkill: int


class ActionTaken(_Event):
    """Dash, Leap, or anything else the GM allows (free text)."""

    kind: Literal["action"] = "action"
    combatant: str
    action: str
    detail: str = ""
    extra_ft: float = 0


class CombatantChanged(_Event):
    kind: Literal["changed"] = "changed"
    combatant: str
    field: str
    old: str
    new: str


class ConditionChanged(_Event):
    """A condition given, its duration changed, or taken away: by the GM, or by the app when its
    duration ran out or a save each turn decided it (RULES §10 "How long a condition lasts")."""

    kind: Literal["condition"] = "condition"
    combatant: str
    condition: str
    # "given", "changed" (its duration), "removed" (by the GM), "counted" (a round less), "ended"
    # (its duration ran out), "kept" (a save each turn failed).
    change: Literal["given", "changed", "removed", "counted", "ended", "kept"]
    duration: str = ""  # how long it lasts (or lasted), in words; "" until removed
    roll: str = ""  # the save's roll in words, where a save decided it
    face: int | None = None  # that save's d20


class CombatantAdded(_Event):
    kind: Literal["added"] = "added"
    combatant: str


class CombatantRemoved(_Event):
    kind: Literal["removed"] = "removed"
    combatant: str


class TokenPlaced(_Event):
    kind: Literal["placed"] = "placed"
    combatant: str
    cell: Cell
    facing: int


class VisibilityChanged(_Event):
    """The GM hid a token from the players' view or revealed it."""

    kind: Literal["visibility"] = "visibility"
    combatant: str
    hidden: bool


class TokenRemoved(_Event):
    kind: Literal["token removed"] = "token removed"
    combatant: str


class TerrainChanged(_Event):
    kind: Literal["terrain"] = "terrain"
    layer: Literal["walls", "difficult"]
    added: list[Cell] = Field(default_factory=list)
    removed: list[Cell] = Field(default_factory=list)


class MapChanged(_Event):
    kind: Literal["map"] = "map"


class WallAdded(_Event):
    """The GM drew a wall segment, or a door (``door``; open or closed), between two points in cells."""

    kind: Literal["wall added"] = "wall added"
    a: tuple[float, float]
    b: tuple[float, float]
    door: bool = False
    open: bool = False


class WallRemoved(_Event):
    """The GM took away a wall segment or a door."""

    kind: Literal["wall removed"] = "wall removed"
    a: tuple[float, float]
    b: tuple[float, float]
    door: bool = False


class DoorChanged(_Event):
    """A door was opened or closed."""

    kind: Literal["door"] = "door"
    a: tuple[float, float]
    b: tuple[float, float]
    open: bool


class FogChanged(_Event):
    """Fog of war in the player view turned on or off."""

    kind: Literal["fog"] = "fog"
    enabled: bool


class CellsRevealed(_Event):
    """The GM showed the players cells as explored (``shown``) or hid them again."""

    kind: Literal["revealed"] = "revealed"
    cells: list[Cell] = Field(default_factory=list)
    shown: bool = True


class PortraitChanged(_Event):
    """A combatant's picture was set or taken away (the picture itself is on the combatant)."""

    kind: Literal["portrait"] = "portrait"
    combatant: str
    removed: bool = False


class DrawingAdded(_Event):
    """A drawing or label put on the map (the drawing itself is in the encounter's drawings)."""

    kind: Literal["drawing added"] = "drawing added"
    drawing: str
    shape: str


class DrawingChanged(_Event):
    """A drawing moved, restyled, its words changed, or shown to the players or hidden from them."""

    kind: Literal["drawing changed"] = "drawing changed"
    drawing: str
    changes: list[str] = Field(default_factory=list)  # the fields changed: "offset", "colour", "shown", ...


class DrawingRemoved(_Event):
    kind: Literal["drawing removed"] = "drawing removed"
    drawing: str
    shape: str


class TemplatePlaced(_Event):
    """An area template laid on the map (the template itself is in the encounter's templates)."""

    kind: Literal["template placed"] = "template placed"
    template: str
    shape: str


class TemplateChanged(_Event):
    """A template moved, resized, turned, renamed, or shown to the players or hidden from them."""

    kind: Literal["template changed"] = "template changed"
    template: str
    changes: list[str] = Field(default_factory=list)  # the fields changed: "origin", "size_ft", "shown", ...


class TemplateRemoved(_Event):
    kind: Literal["template removed"] = "template removed"
    template: str
    shape: str


class AreaTarget(BaseModel):
    """One target of an area effect: what its own defences made of the one roll."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    combatant: str
    name: str
    save: str = ""  # "d20 13 +2 = 15 vs DC 14: saved" (Old-School d20); empty where there is none
    defences: str = ""  # "- 2 DEX - 1 AP", "- 3 DR, cover: half"
    damage: int = 0  # what it took in all
    result: str = ""  # "SP 12 → 4", "HP 7 → 0, down", "dies (minion)"


class AreaEffectResolved(_Event):
    """An area effect on everyone it struck (RULES §14): the one roll and every target's numbers."""

    kind: Literal["area effect"] = "area effect"
    caster: str = ""  # "" for the GM's free effect
    effect: str  # "Fireball", "Dragon breath", "Fire bomb", "Falling rocks"
    area: str  # "a 20 ft radius circle"
    dice: str  # "5d6!" (what was rolled)
    faces: list[int] = Field(default_factory=list)
    total: int
    targets: list[AreaTarget] = Field(default_factory=list)

    def details(self) -> str:
        lines = [f"{self.effect}: {self.area}, {self.dice} = {self.total} ({' '.join(map(str, self.faces))})"]
        for t in self.targets:
            parts = [p for p in (t.save, t.defences, f"{t.damage} damage", t.result) if p]
            lines.append(f"{t.name}: " + "; ".join(parts))
        return "\n".join(lines)

    def table_cells(self) -> tuple[str | int, ...]:
        return (" ".join(map(str, self.faces)), self.total, "", "", "", "")


class RolledDie(BaseModel):
    """One die of a dice roll: its face, whether it counts, whether an exploding die earned it."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    sides: int
    face: int
    kept: bool = True
    explosion: bool = False


class RolledTerm(BaseModel):
    """One term of a dice roll as written (``4d6kh3``, ``3``), its dice and what it adds (signed).

    A big term (a roll of more faces than the notation writes out) keeps no faces: ``rolled`` says
    how many dice it rolled, ``explosions`` how many of them explosions earned, ``dropped`` how
    many a keep left out; a term that lists its dice leaves them 0 (files from before say nothing).
    """

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    text: str
    sign: int = 1
    dice: list[RolledDie] = Field(default_factory=list)
    total: int
    rolled: int = Field(default=0, ge=0)
    explosions: int = Field(default=0, ge=0)
    dropped: int = Field(default=0, ge=0)

    @property
    def summed(self) -> bool:
        """Its faces are not kept: only its sum and its counts."""
        return self.rolled > 0 and not self.dice

    def summary(self) -> str:
        """'317 on 213 dice', '18 on 60 dice (57 dropped)'."""
        said = f"{self.sign * self.total} on {self.rolled} dice"
        return said + (f" ({self.dropped} dropped)" if self.dropped else "")


class DiceRolled(_Event):
    """The GM rolled dice in the notation; ``secret``: a roll the players never see."""

    kind: Literal["dice"] = "dice"
    expression: str
    label: str = ""
    secret: bool = False
    terms: list[RolledTerm] = Field(default_factory=list)
    total: int
    minimum: int | None = None  # None: no least (an exploding die taken away)
    maximum: int | None = None  # None: no greatest (an exploding die)

    def table_cells(self) -> tuple[str | int, ...]:
        """The dice column: every face (a dropped one in brackets), a big term's sum and dice
        ('317 on 213 dice'); the rest left empty."""
        faces = " ".join(
            f"({t.summary()})" if t.summed else " ".join(f"{d.face}" if d.kept else f"[{d.face}]" for d in t.dice)
            for t in self.terms
            if t.dice or t.summed
        )
        return (faces, "", "", "", "", "")


class RulesetChanged(_Event):
    """The encounter was converted to another ruleset before combat."""

    kind: Literal["ruleset"] = "ruleset"
    old: str
    new: str
    notes: list[str] = Field(default_factory=list)


class RulesEvent(_Event):
    """Something a ruleset of its own logs (a plug-in's roll, a morale check), with its details."""

    kind: Literal["rules"] = "rules"
    ruleset: str
    name: str
    detail: dict[str, int | float | str | bool | None] = Field(default_factory=dict)


class Override(_Event):
    """A GM ruling that set aside what the rules would say."""

    kind: Literal["override"] = "override"


class PartyLinked(_Event):
    """A combatant linked to the party roster at a roster version, or no longer (``version`` None)."""

    kind: Literal["party link"] = "party link"
    combatant: str
    version: int | None = None


class PartyNoted(_Event):
    """Something that happened to the party (RULES §16): carried on after a fight, a rest, a character
    added to the party or taken off it. ``note`` says which ("carried on", "rest", ...), ``lines`` the
    words, one each; the text is the summary the log shows."""

    kind: Literal["party"] = "party"
    note: str
    lines: tuple[str, ...] = ()

    def details(self) -> str:
        return "\n".join(self.lines)


class Undone(_Event):
    kind: Literal["undone"] = "undone"
    undone: str  # what the undone action was


class LightChanged(_Event):
    """A light source placed, taken away, carried or dropped, or the ambient light changed (RULES §15)."""

    kind: Literal["light"] = "light"
    light: str = ""  # the source's id; empty for the ambient light
    change: str  # "placed", "removed", "carried", "dropped", "ambient"


# The events every ruleset's log may hold; a ruleset's own join them in its encounter model
# (:attr:`Ruleset.event_types`, :func:`event_union`).
SHARED_EVENTS: tuple[type[_Event], ...] = (
    CombatStarted,
    InitiativeRolled,
    TurnStarted,
    TurnEnded,
    RoundEnded,
    CombatEnded,
    Moved,
    Turned,
    WentDown,
    ActionTaken,
    CombatantChanged,
    ConditionChanged,
    CombatantAdded,
    CombatantRemoved,
    TokenPlaced,
    TokenRemoved,
    VisibilityChanged,
    TerrainChanged,
    MapChanged,
    WallAdded,
    WallRemoved,
    DoorChanged,
    FogChanged,
    CellsRevealed,
    PortraitChanged,
    LightChanged,
    DiceRolled,
    DrawingAdded,
    DrawingChanged,
    DrawingRemoved,
    TemplatePlaced,
    TemplateChanged,
    TemplateRemoved,
    AreaEffectResolved,
    Override,
    RulesetChanged,
    RulesEvent,
    PartyLinked,
    PartyNoted,
    Undone,
)


def event_union(extra: tuple[type[_Event], ...] = ()) -> Any:
    """The type of a log's event: any shared event, or one of ``extra`` (a ruleset's own); ``kind`` tells which."""
    return Annotated[Union[(*SHARED_EVENTS, *extra)], Field(discriminator="kind")]


Event = Annotated[
    CombatStarted
    | InitiativeRolled
    | TurnStarted
    | TurnEnded
    | RoundEnded
    | CombatEnded
    | Moved
    | Turned
    | WentDown
    | ActionTaken
    | CombatantChanged
    | ConditionChanged
    | CombatantAdded
    | CombatantRemoved
    | TokenPlaced
    | TokenRemoved
    | VisibilityChanged
    | TerrainChanged
    | MapChanged
    | WallAdded
    | WallRemoved
    | DoorChanged
    | FogChanged
    | CellsRevealed
    | PortraitChanged
    | LightChanged
    | DiceRolled
    | DrawingAdded
    | DrawingChanged
    | DrawingRemoved
    | TemplatePlaced
    | TemplateChanged
    | TemplateRemoved
    | AreaEffectResolved
    | Override
    | RulesetChanged
    | RulesEvent
    | PartyLinked
    | PartyNoted
    | Undone,
    Field(discriminator="kind"),
]
"""Any event; the ``kind`` field tells which."""
