"""Actions: plain values that say what a person wants done to the encounter.

The UI builds one of these per gesture and hands it to :meth:`Engine.apply`; undo, redo and
scripts use the same values. They hold ids and numbers, never model objects.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator

from lnl_desktop.core.encounter.map_model import MapGrid
from lnl_desktop.core.encounter.model import ConditionDuration, Side
from lnl_desktop.core.map.grid import Cell
from lnl_desktop.core.map.terrain import barriers_ahead


@dataclass(frozen=True)
class StartCombat:
    """The first round: the situation (one of the ruleset's), then the die it reads (rolled if no face).

    A ruleset may read one d6 with its surprise table, or a surprise d6 and then (with no surprise
    round) an initiative d6 for round 1 (:attr:`StartProcedure.then_initiative`). Where the GM sets
    the outcome by hand, ``first_side`` and ``surprised_side`` say it. An empty ``situation`` is the
    ruleset's first (:meth:`Rounds.start_procedure`), read when combat starts; a journal keeps the
    action as it was given, so it replays the same.
    """

    situation: str = ""
    face: int | None = None
    first_side: Side | None = None
    surprised_side: Side | None = None
    initiative_face: int | None = None


@dataclass(frozen=True)
class NextRound:
    """End the round and roll initiative for the next one (rolled if no face)."""

    face: int | None = None


@dataclass(frozen=True)
class EndCombat:
    pass


@dataclass(frozen=True)
class BeginTurn:
    combatant: str


@dataclass(frozen=True)
class EndTurn:
    pass


@dataclass(frozen=True)
class Move:
    """Move a token to ``to`` by the cheapest legal path, or along an explicit ``path``.

    A forced move (pushed, dragged, or the GM's hand) costs no movement but is still logged.
    """

    combatant: str
    to: Cell | None = None
    path: tuple[Cell, ...] | None = None
    forced: bool = False


@dataclass(frozen=True)
class Face:
    combatant: str
    facing: int


@dataclass(frozen=True)
class SetHidden:
    """Hide a token from the players' view, or reveal it (the GM always sees it)."""

    combatant: str
    hidden: bool = True


@dataclass(frozen=True)
class SetCondition:
    """Give a combatant a condition (with how long it lasts; None: until removed), or take it away
    (``on`` False). Giving a condition it has changes only its duration."""

    combatant: str
    condition: str
    on: bool = True
    duration: ConditionDuration | None = None


@dataclass(frozen=True)
class OtherAction:
    """Anything else the GM allows as the turn's action: grapple, reload, take aim..."""

    combatant: str
    text: str


@dataclass(frozen=True)
class ConvertRuleset:
    """Turn a setup-phase encounter into another ruleset's, keeping what maps (undoable)."""

    ruleset: str


@dataclass(frozen=True)
class EditCombatant:
    """Change fields of a combatant's sheet; the whole sheet is validated again."""

    combatant: str
    changes: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class DamageByHand:
    """Damage or healing the GM applies by hand (a trap, a potion, a spell the app does not model),
    through the encounter's ruleset as a weapon's damage would land (RULES §10).

    ``kind`` is one of the ruleset's ``ruleset.health.kinds`` ("" for its first), such as wearing
    down or direct damage, damage that ignores DR, or subdual; for healing, what is healed."""

    combatant: str
    amount: int
    heal: bool = False
    kind: str = ""
    reason: str = ""


@dataclass(frozen=True)
class SetHealth:
    """A new current value typed on the sheet (HP, SP, IP): the difference as damage or healing by
    hand, so the rules see it (RULES §10)."""

    combatant: str
    field: str
    value: int
    reason: str = "typed on the sheet"


@dataclass(frozen=True)
class AddCombatant:
    """A new combatant from ``data`` (its sheet), on ``cell`` if given. With ``roster_version`` it is a
    party roster character brought in at that version (RULES §16): linked in the same step."""

    data: Mapping[str, Any]
    cell: Cell | None = None
    facing: int = 0
    roster_version: int | None = None


@dataclass(frozen=True)
class LinkParty:
    """Link combatants already in the encounter to the party roster at a roster version (RULES §16:
    "Add to the party", or the versions a carry-on wrote back), or take the link away (None)."""

    links: Mapping[str, int | None] = field(default_factory=dict)


@dataclass(frozen=True)
class PartyNote:
    """A line in the round log for the party (RULES §16): ``kind`` says what happened ("carried on",
    "rest", "added to the party"...), ``lines`` the words of it, one each. Changes nothing else."""

    kind: str
    lines: tuple[str, ...] = ()


@dataclass(frozen=True)
class RemoveCombatant:
    combatant: str


@dataclass(frozen=True)
class PlaceToken:
    combatant: str
    cell: Cell
    facing: int = 0


@dataclass(frozen=True)
class RemoveToken:
    combatant: str


@dataclass(frozen=True)
class PaintTerrain:
    layer: Literal["walls", "difficult"]
    cells: tuple[Cell, ...]
    on: bool = True


@dataclass(frozen=True)
class EditMap:
    """Change the map's size, cell size, diagonal rule or background image (None removes it).

    :meth:`ahead` makes the new map beforehand, off the window's thread, for a map with many walls:
    kept beside the action's fields (never written to the journal, never compared), and used only on
    the very map it was made from. The engine still checks the encounter against it."""

    changes: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def ahead(cls, changes: Mapping[str, Any], base: MapGrid) -> EditMap:
        """The action with ``base.edited(changes)`` made now (a worker thread may call this). A map
        the changes cannot make is not kept: applying the action tries again and says why not."""
        action = cls(changes)
        try:
            made = base.edited({k: v for k, v in changes.items() if k != "lights"})
        except Exception:  # the engine's own attempt raises it again, as it would have
            return action
        barriers_ahead(made)  # the walls' barriers too, for the map's terrain
        object.__setattr__(action, "_ahead", (base, made))  # frozen, and no field: see above
        return action

    def ahead_of(self, base: MapGrid) -> MapGrid | None:
        """The new map :meth:`ahead` made from ``base`` itself (maps are immutable), else None."""
        made: tuple[MapGrid, MapGrid] | None = self.__dict__.get("_ahead")
        return made[1] if made is not None and made[0] is base else None


@dataclass(frozen=True)
class EditOptions:
    """Change the ruleset's options (the [D] decisions)."""

    changes: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class SkipPending:
    """The GM passes over something the rules called for (a counter-attack not taken, a morale check waived)."""

    index: int
    reason: str = ""


@dataclass(frozen=True)
class AddWall:
    """Draw a wall segment (or a door, closed unless ``open``) from ``a`` to ``b``, points in cells."""

    a: tuple[float, float]
    b: tuple[float, float]
    door: bool = False
    open: bool = False


@dataclass(frozen=True)
class RemoveWall:
    """Take away the wall segment or door whose ends are ``a`` and ``b`` (either way round)."""

    a: tuple[float, float]
    b: tuple[float, float]


@dataclass(frozen=True)
class SetDoor:
    """Open or close the door whose ends are ``a`` and ``b``."""

    a: tuple[float, float]
    b: tuple[float, float]
    open: bool


@dataclass(frozen=True)
class SetFog:
    """Fog of war in the player view on or off."""

    enabled: bool


@dataclass(frozen=True)
class RevealCells:
    """The GM shows the players ``cells`` (as explored), or hides them again (``shown=False``)."""

    cells: tuple[Cell, ...]
    shown: bool = True


@dataclass(frozen=True)
class SetPortrait:
    """A combatant's picture (base64 PNG, square), or None to take it away."""

    combatant: str
    portrait: str | None


@dataclass(frozen=True)
class AddDrawing:
    """Draw on the map: a freehand line, a line, a rectangle, an ellipse or a text label (points in
    cells), GM only unless ``shown`` to the players."""

    kind: str
    points: tuple[tuple[float, float], ...]
    colour: str = "#cc3311"
    width: int = 3
    text: str = ""
    shown: bool = False


@dataclass(frozen=True)
class EditDrawing:
    """Change a drawing: move it by ``offset`` (in cells), or set its colour, width, words or whether
    the players see it (None: unchanged)."""

    drawing: str
    offset: tuple[float, float] | None = None
    colour: str | None = None
    width: int | None = None
    text: str | None = None
    shown: bool | None = None


@dataclass(frozen=True)
class RemoveDrawing:
    drawing: str


@dataclass(frozen=True)
class RollDice:
    """The GM rolls dice typed in the notation (``2d6+3 stealth``), in secret or for all to see;
    with ``faces`` the faces read off the GM's own dice, in the order the roll asks for them."""

    expression: str
    secret: bool = False
    faces: tuple[int, ...] | None = None


@dataclass(frozen=True)
class PlaceLight:
    """Put a light source on the map (RULES §15) at ``cell``, or give it to the combatant ``carrier``:
    a torch, lantern or candle, or a custom one with ``bright_ft`` and ``dim_ft`` beyond."""

    kind: str = "torch"
    cell: Cell | None = None
    carrier: str | None = None
    bright_ft: int | None = None
    dim_ft: int | None = None


@dataclass(frozen=True)
class RemoveLight:
    light: str


@dataclass(frozen=True)
class CarryLight:
    """Give the light ``light`` to the combatant ``carrier``, or drop it where its carrier stands (None)."""

    light: str
    carrier: str | None


@dataclass(frozen=True)
class SetAmbientLight:
    """The encounter's ambient light: normal, dim or dark."""

    light: str


@dataclass(frozen=True)
class PlaceTemplate:
    """Lay an area template on the map (RULES §14): a circle, cone, line or square, its origin in
    cells, its size in feet and its direction in degrees (0 = north, clockwise)."""

    shape: str
    origin: tuple[float, float]
    size_ft: int
    direction: float = 90.0
    label: str = ""
    shown: bool = True


@dataclass(frozen=True)
class EditTemplate:
    """Move a template (a new origin), resize or turn it, rename it, or show or hide it (None: unchanged)."""

    template: str
    origin: tuple[float, float] | None = None
    size_ft: int | None = None
    direction: float | None = None
    label: str | None = None
    shown: bool | None = None


@dataclass(frozen=True)
class RemoveTemplate:
    template: str


@dataclass(frozen=True)
class AreaEffect:
    """An area effect resolved on everyone its area strikes (RULES §14): one roll of the damage, each
    target's own defences. The area is given whole (``shape``, ``origin``, ``size_ft``,
    ``direction``); ``template`` names the placed template it was read from, and ``lift`` takes that
    template off the map in the same step.

    ``caster`` uses its action on it ("" for the GM's free effect: a trap, a falling ceiling) with
    ``means``, its spell or weapon with an area; a free effect names its ``dice`` ("2d6") and, where the
    ruleset reads them, its own fields in ``extras`` (a ``save`` category and ``dc`` in Old-School d20,
    ``dex_applies``, ``ap_applies`` and ``direct`` in L&L). ``targets`` are the ticked
    combatants (the GM may untick one); ``cover`` those the GM holds under cover (Group d10: half
    damage). ``faces`` are typed physical dice for the engine's own roll (None: the dice source's)."""

    shape: str
    origin: tuple[float, float]
    size_ft: int
    direction: float = 90.0
    targets: tuple[str, ...] = ()
    caster: str = ""
    means: str = ""
    name: str = ""
    dice: str = ""
    cover: tuple[str, ...] = ()
    template: str = ""
    lift: bool = False
    override: bool = False
    # The ruleset's own fields of the effect ("save" and "dc" in Old-School d20, "dex_applies" in L&L),
    # read with :meth:`extra`; the fields above are what every ruleset's area effect has.
    extras: Mapping[str, Any] = field(default_factory=dict)

    def extra(self, key: str, default: Any = None) -> Any:
        """The ruleset's own field ``key`` of this effect, or ``default`` when it was not given."""
        return self.extras.get(key, default)


# The ruleset's own fields an area effect carried as fields of its own before they moved into
# ``extras``: a journal written then still loads (see LOADED_AS).
_OLD_AREA_FIELDS = ("save", "dc", "dex_applies", "ap_applies", "direct")


def _old_fields_into_extras(data: Any) -> Any:
    """An area effect as an older journal wrote it: its ruleset fields moved into ``extras``."""
    if not isinstance(data, Mapping) or not any(key in data for key in _OLD_AREA_FIELDS):
        return data
    fields = {key: value for key, value in data.items() if key not in _OLD_AREA_FIELDS}
    old = {key: data[key] for key in _OLD_AREA_FIELDS if key in data}
    fields["extras"] = {**old, **dict(data.get("extras") or {})}
    return fields


# How a file's action is read where the type alone would refuse what older files wrote.
LOADED_AS: dict[type, Any] = {AreaEffect: Annotated[AreaEffect, BeforeValidator(_old_fields_into_extras)]}


Action = (
    StartCombat
    | NextRound
    | EndCombat
    | BeginTurn
    | EndTurn
    | Move
    | Face
    | SetHidden
    | SetCondition
    | OtherAction
    | ConvertRuleset
    | EditCombatant
    | DamageByHand
    | SetHealth
    | AddCombatant
    | LinkParty
    | PartyNote
    | RemoveCombatant
    | PlaceToken
    | RemoveToken
    | PaintTerrain
    | EditMap
    | EditOptions
    | SkipPending
    | AddWall
    | RemoveWall
    | SetDoor
    | SetFog
    | RevealCells
    | SetPortrait
    | PlaceLight
    | RemoveLight
    | CarryLight
    | SetAmbientLight
    | RollDice
    | AddDrawing
    | EditDrawing
    | RemoveDrawing
    | PlaceTemplate
    | EditTemplate
    | RemoveTemplate
    | AreaEffect
)
