"""The ruleset seam: what a ruleset owns, and the plain descriptions the views ask it for.

The engine keeps what every ruleset shares (RULES §10): turns, movement budgets, the log, undo,
files and events. A :class:`Ruleset` brings the rest: its stat block (a pydantic model), its
options, its round procedure, its actions with their checks, its attack and damage, what
happens at 0, its forecast and its bestiary. The Qt layer never branches on a ruleset's name:
it reads the descriptions below (sheet rows, table columns, health gauges, action kinds, the
start of combat) and builds its widgets from them.

A new ruleset subclasses :class:`Ruleset` (or a ruleset close to it, changing only what differs:
docs/RULESETS.md shows one) and is registered by name, or through the ``lnl_desktop.rulesets`` entry point.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, ClassVar, Literal, Protocol

from pydantic import Field, create_model

from lnl_desktop.core.dice.rolls import DiceSource, roll_plain
from lnl_desktop.core.encounter.actions import AreaEffect
from lnl_desktop.core.encounter.areas import Area
from lnl_desktop.core.encounter.conditions import CONDITION_TIPS, DEFAULT_MENU
from lnl_desktop.core.encounter.events import Event, EventBase, Override, Turned, event_union
from lnl_desktop.core.encounter.model import (
    CombatantBase,
    CombatState,
    Encounter,
    OptionsBase,
    Phase,
    Side,
    TurnState,
)
from lnl_desktop.core.errors import IllegalAction, RulesError
from lnl_desktop.core.rules.common import Check, CheckSection, Opening, RoundOrder
from lnl_desktop.core.rules.fight import Battlefield, SimOutcome


class Table(Protocol):
    """What a ruleset's hooks and handlers use of the engine that runs them (the engine is one):
    the encounter, its ruleset, and the turn's questions and bookkeeping. A ruleset never imports
    the engine; it is handed a table."""

    encounter: Encounter
    ruleset: Ruleset

    def combatant(self, cid: str) -> Any:
        """The combatant ``cid``: an instance of the encounter's ruleset's stat block."""
        ...

    def may_act(self, c: CombatantBase) -> bool:
        """Whether ``c`` still gets a turn this round."""
        ...

    def acting_side(self) -> Side | None:
        """The side whose members pick turns now, None when the round is over."""
        ...

    def waiting(self) -> list[Any]:
        """Who may take the next turn."""
        ...

    @property
    def round_over(self) -> bool: ...

    def feet_left(self, cid: str) -> float | None:
        """Movement left this turn, or None when it is not this combatant's turn."""
        ...

    def turn_checks(self, c: CombatantBase, needs_action: bool, kind: str | None = None) -> list[Check]:
        """Whether it is ``c``'s turn and, if asked, whether its action is still open."""
        ...

    def require(self, action: str, checks: list[Check]) -> None:
        """Refuse ``action`` with the reasons of the checks that block, if any do."""
        ...

    def apply(self, action: Any, dice: DiceSource | None = None) -> list[Event]:
        """Apply one action (the fight odds' reference plays a whole fight so)."""
        ...

    def reach(self, cid: str, budget_ft: float | None = None) -> Any:
        """The cells ``cid`` can still move to this turn (a ``map.movement.Reach``)."""
        ...

    def use_action(self, c: CombatantBase, kind: str, detail: str = "") -> TurnState:
        """Spend ``c``'s action of this turn on ``kind``; refused if it is not ``c``'s turn or the action is used."""
        ...


Handler = Callable[[Table, Any, DiceSource], list[Event]]

# The default menu of conditions (RULES §1) and what each means (tooltips): from the one
# conditions table.
CONDITIONS = DEFAULT_MENU

# The one situation of the default start of combat: the GM says who acts first.
BY_HAND = "set by the GM"

# The means of an action that is a shield rather than a named weapon (no weapon may be named so).
SHIELD_MEANS = "\x00shield"


# -- what the views ask for ------------------------------------------------------------------------


@dataclass(frozen=True)
class SheetRow:
    """One line of the sheet's numbers: one or more fields (``now / max``) under a label.

    ``kind`` says the editor: whole numbers ("int"), a whole number that may be left empty
    ("optional int": morale for a PC, a typed AC), or one of ``choices`` ("choice")."""

    label: str
    keys: tuple[str, ...]
    tip: str
    unit: str = ""
    kind: Literal["int", "optional int", "choice", "bool", "text"] = "int"
    choices: tuple[str, ...] = ()


@dataclass(frozen=True)
class Setting:
    """A value the GM sets in a panel the ruleset describes: an action's extra (cover, a second
    weapon), a round's consideration (light), a prompt's input (a morale modifier).

    ``kind`` "int" is a spin box from ``low`` to ``high``; "choice" one of ``choices``; "bool" a
    check box; "means" one of the acting combatant's weapons ("" for none when ``optional``);
    "text" a line of words (a timer's event)."""

    key: str
    label: str
    tip: str
    kind: Literal["int", "choice", "bool", "means", "text"] = "int"
    default: Any = 0
    low: int = 0
    high: int = 0
    choices: tuple[str, ...] = ()
    optional: bool = False


@dataclass(frozen=True)
class ItemColumn:
    """One column of a list on the sheet (weapons, spells): its field, title, editor kind and tooltip."""

    key: str
    title: str
    kind: Literal["text", "int", "optional int", "choice", "optional choice", "bool", "area"]  # area: "20 ft circle"
    tip: str
    choices: tuple[str, ...] = ()
    # A choice that leaves other fields of the item without meaning: the value chosen -> the fields the
    # sheet empties with it (a melee weapon's reach and range).
    clears: Mapping[str, tuple[str, ...]] = field(default_factory=dict)


@dataclass(frozen=True)
class ItemList:
    """A list of things on the sheet, edited as a table (a combatant's weapons or spells)."""

    key: str  # the stat block's field, a list of models
    noun: str  # "weapon": "Add weapon", "Remove weapon"
    columns: tuple[ItemColumn, ...]
    tip: str
    new_item: Mapping[str, Any]  # what "Add" puts in (a free name is added)


@dataclass(frozen=True)
class ItemBox:
    """A box of the sheet for one item a stat block may have or not (a shield): a tick to have it,
    then its fields, each edited alone (the edit sends the whole item)."""

    key: str  # the stat block's field: a model, None while it has none
    title: str  # the box's title: "Shield"
    has: str  # the tick's words: "Has a shield"
    tip: str  # the tick's tooltip
    fields: tuple[ItemColumn, ...]  # the item's fields ("text", "int" or "choice"); a title names one in a message
    rows: tuple[SheetRow, ...]  # the box's rows: a label, the keys of the fields it holds ("now / max"), a tip
    new_item: Mapping[str, Any]  # what ticking the box puts in
    after: str = ""  # the key of the list the box follows ("weapons"); empty: after the lists


@dataclass(frozen=True)
class SheetSpec:
    """The ruleset's part of the Sheet; the shared fields (name, side, Move, size, vision,
    traits, status flags, conditions, notes) the sheet shows for every ruleset."""

    identity: tuple[SheetRow, ...]  # next to name and side (level, hit dice...)
    numbers_title: str
    numbers: tuple[SheetRow, ...]
    lists: tuple[ItemList, ...] = ()
    boxes: tuple[ItemBox, ...] = ()  # boxes for items a stat block may have or not (a shield)
    tips: Mapping[str, str] = field(default_factory=dict)  # tooltips of the shared fields, worded for this ruleset


@dataclass(frozen=True)
class TokenTip:
    """What a token's tooltip says of the stat block, beside the name, side, gauges and Move."""

    identity: str = ""  # after the side in the heading: "level 3"
    numbers: tuple[str, ...] = ()  # beside the gauges: "AP 2"
    items: tuple[str, ...] = ()  # a line each: "Longsword, reach 10 ft [broken]"


# The icons a token may show beside its gauges (ruleset-free drawing words): a guard in force (a parry, a
# shield raised) and a weapon broken until repaired.
TOKEN_ICONS = ("guard", "broken")


@dataclass(frozen=True)
class Column:
    """A column of the Combatants table: the title, its tooltip, and the value for a combatant."""

    title: str
    tip: str
    value: Callable[[Any], int | str]
    numeric: bool = True
    # A row's own tooltip where it says more than the column's (the AP's parts); "" for the column's.
    row_tip: Callable[[Any], str] | None = None


@dataclass(frozen=True)
class Gauge:
    """A bar on a token and a column of the Turns list: SP, IP, HP..."""

    label: str
    now: int
    most: int
    tint: Literal["stamina", "injury", "health"] = "health"


@dataclass(frozen=True)
class ActionSpec:
    """One action of a turn as the Action dock offers it.

    ``uses`` says what the dock asks for: a weapon, a spell, a weapon or the shield to parry with,
    words, or nothing. ``build`` turns the choices into the engine's action value; the dock calls it
    with the active combatant's id first, in one of four forms:

    - ``targeted``: ``build(c, target, means, ignore_dex=bool, override=bool)`` (``means`` None when
      ``uses`` is "none");
    - ``uses == "text"``: ``build(c, words)``;
    - ``uses`` "weapon", "spell" or "parry" (not targeted): ``build(c, means)``;
    - otherwise: ``build(c)``.
    """

    key: str
    label: str
    tip: str
    uses: Literal["weapon", "spell", "parry", "text", "none"]
    build: Callable[..., Any]
    targeted: bool = False
    mode: str | None = None  # the AttackMode of a rolling action
    gm_override: bool = False  # the GM may override its eligibility points (a sneak attack)
    ignore_dex: bool = False  # the GM toggle "ignore the target's DEX" applies
    button: str = ""  # the button's words ("Roll the attack"); the label when empty
    rolls: bool = False  # it rolls dice: the GM may type the faces
    # The action's own inputs besides the target and the means (cover, a second weapon, subdual):
    # the dock shows one editor each and passes their values to ``build`` as keywords.
    extras: tuple[Setting, ...] = ()
    allies: bool = False  # a targeted action aimed at a friend (guard an ally), or at oneself
    # What the GM override lets through, in the ruleset's words (empty: a sneak attack's eligibility).
    override_label: str = ""


@dataclass(frozen=True)
class Situation:
    """One way a combat can open (an ambush, a surprise roll, the GM's hand)."""

    key: str
    label: str
    tip: str
    by_hand: bool = False  # the GM sets the outcome, no die is read


@dataclass(frozen=True)
class StartProcedure:
    """What the Start combat dialog shows: the situations, the die and how it reads."""

    question: str  # "Who ambushes whom?"
    situations: tuple[Situation, ...]
    die_label: str  # "surprise and initiative"
    reading: Callable[[str, int], str]  # (situation, face) -> words
    # After this face, is a second d6 rolled for round 1's initiative? (a surprise d6 that gave no surprise round)
    then_initiative: Callable[[str, int | None], bool] = lambda situation, face: False
    by_hand_surprise: bool = True  # the by-hand outcome names a surprised side
    surprise_die: bool = True  # the situations read a d6 (a surprise table); False: the situation alone says it
    # Round 1's initiative is rolled by the ruleset (d20s per side or per combatant): the dialog offers
    # "roll" or typed faces, checked by a dry run of the start on a copy of the encounter.
    rolls_initiative: bool = False
    settings: tuple[Setting, ...] = ()  # options set before the first round (light, initiative by group...)


@dataclass(frozen=True)
class PromptChoice:
    """One button of a prompt: its words, whether it rolls dice (the GM may type the faces), and
    ``build(values) -> action`` with the prompt's settings by key."""

    label: str
    tip: str
    build: Callable[[Mapping[str, Any]], Any]
    rolls: bool = False


@dataclass(frozen=True)
class PromptSpec:
    """How the table asks the GM about one :class:`~lnl_desktop.core.encounter.model.Pending` item."""

    title: str  # "Death save", "Counter-attack"
    text: str  # what is at stake, with the numbers ("DC 18: 11 + 7 overkill")
    settings: tuple[Setting, ...]
    choices: tuple[PromptChoice, ...]


@dataclass(frozen=True)
class DeclareSpec:
    """A ruleset whose combatants declare their actions before initiative (RULES §13): the
    choices, what each combatant has declared, and the action that records a declaration.

    ``open`` is True between rounds (and before combat): the declarations are for the coming
    round and change freely. During a round they are locked: ``build(cid, key)`` then makes a GM
    override, which the log records."""

    choices: tuple[tuple[str, str], ...]  # (key, label)
    open: bool
    declared: Mapping[str, str]  # combatant id -> key
    missing: tuple[str, ...]  # who must still declare before the initiative roll
    build: Callable[[str, str], Any]


@dataclass(frozen=True)
class RowAction:
    """A command the Turns dock offers on a combatant's row (put it in a group of its own)."""

    label: str
    tip: str
    build: Callable[[], Any]


@dataclass(frozen=True)
class Span:
    """A piece of a result's line: words, or a formula the view wraps only between its terms
    (``formula``), in bold (``strong``), or in the colour of harm done (``alert``)."""

    text: str
    formula: bool = False
    strong: bool = False
    alert: bool = False


@dataclass(frozen=True)
class ActionResult:
    """What the Action dock's result box shows of one event of the round log (an attack, a save):
    a headline in the ruleset's words, then lines of spans, the rolls and what followed."""

    headline: str
    lines: tuple[tuple[Span, ...], ...]
    event: Any  # the log's event the result is about


def result_line(*parts: str | Span) -> tuple[Span, ...]:
    """A result's line from words and spans: ``result_line("To hit: ", Span("d20 (14) + 3 = 17", formula=True))``."""
    return tuple(Span(part) if isinstance(part, str) else part for part in parts)


def following(after: list[Any], kinds: tuple[type, ...], belongs: Callable[[Any], bool] = lambda e: True) -> list[Any]:
    """The events right after a result that belong to it (damage's consequences: of ``kinds``, and
    ``belongs``), up to the first other one; the attacker turning to face its target is passed over."""
    found = []
    for event in after:
        if isinstance(event, Turned):
            continue
        if not isinstance(event, kinds) or not belongs(event):
            break
        found.append(event)
    return found


def area_result(event: Any, follows: list[Any]) -> ActionResult:
    """The Action dock's result of an area effect (``AreaEffectResolved``, RULES §14) in any ruleset:
    the one roll, each target's save or defences and what it took, then ``follows`` (its consequences)."""
    if not event.faces and not event.targets:  # a bomb that missed: nothing landed
        return ActionResult(f"{event.effect}: missed, nothing lands", (result_line(event.text),), event)
    harmed = sum(1 for t in event.targets if t.damage)
    headline = f"{event.effect}: {event.total} damage rolled, {harmed} of {len(event.targets)} harmed"
    roll = f"{event.dice} [{'+'.join(map(str, event.faces))}] = {event.total}"
    lines = [result_line(f"{event.effect} ({event.area}): ", Span(roll, formula=True))]
    for t in event.targets:
        how = "; ".join(part for part in (t.save, t.defences) if part)
        parts: list[str | Span] = [f"{t.name}: "]
        if how:
            parts.append(Span(how, formula=True))
        parts += [f" → {t.damage} ", Span(f"({t.result})", alert=bool(t.damage))] if t.result else [f" → {t.damage}"]
        lines.append(result_line(*parts))
    for follow in follows:
        lines.append(result_line(Span(follow.text, alert=not isinstance(follow, Override))))
    return ActionResult(headline, tuple(lines), event)


@dataclass(frozen=True)
class Provocation:
    """A step of a path that gives enemies a free attack (RULES §12 counter-attacks, §13 free attacks)."""

    index: int  # the path's cell the step leaves from
    cell: tuple[int, int]
    attackers: tuple[str, ...]  # the ids of those who may attack there (each named once per path)


# -- area effects (RULES §14) ------------------------------------------------------------------------


@dataclass(frozen=True)
class AreaMeans:
    """A combatant's spell, breath, bomb or weapon that strikes an area, as the Area effect dialog offers it."""

    name: str
    area: Area
    words: str = ""  # what it does in the ruleset's words: "5d6! exploding, DEX and AP apply"
    range_ft: int | None = None  # how far from its caster the area's origin may lie (None: no limit)


# The free effect's inputs a ruleset may ask for (AreaEffect's fields of the same names).
AREA_FIELDS = ("dice", "save", "dc", "dex_applies", "ap_applies", "direct")


@dataclass(frozen=True)
class AreaSpec:
    """What a ruleset's area effects ask of the GM: a free effect's ``fields`` (of :data:`AREA_FIELDS`),
    its save categories ``(value, label)`` where targets save, and whether cover changes anything."""

    fields: tuple[str, ...] = ("dice",)
    saves: tuple[tuple[str, str], ...] = ()
    default_save: str = ""
    cover: bool = False
    default_dice: str = "2d6"
    notes: tuple[str, ...] = ()  # how the ruleset reads an area effect, a line each, for the dialog
    labels: Mapping[str, str] = field(default_factory=dict)  # a field's words where the ruleset has its own


@dataclass(frozen=True)
class AreaOdds:
    """One target's expected result of an area effect before the roll, in the ruleset's words."""

    save: str = ""  # "saves 45 %"; empty where targets do not save
    damage: str = ""  # "≈ 9 (2-16)": after its defences, over the roll and its save
    drop: float | None = None  # the chance it drops (0 to 1), None when not worked out
    words: str = ""  # a line for the tooltip


@dataclass(frozen=True)
class DurationSave:
    """What a condition's "save at the end of each of its turns" names in a ruleset (RULES §10), for
    the dialogs that set one: the saves it may name (value kept in the file, words), whether it must
    name one, whether it needs a DC, and a line saying how the save is rolled."""

    saves: tuple[tuple[str, str], ...] = ()
    needs_save: bool = False
    needs_dc: bool = True
    words: str = "a d20 at the end of each of its turns, the DC or more ends it"


@dataclass(frozen=True)
class SaveRoll:
    """A save each turn, rolled: whether it ended the condition, the d20, and the roll in words."""

    saved: bool
    face: int
    words: str  # "d20 14 +2 = 16 vs DC 12"


# -- the ruleset -----------------------------------------------------------------------------------


class Ruleset:
    """One combat system. Subclass it and override what differs; the defaults are the shared
    side-based turn order of RULES §2: the first side's members pick turns, then the other side's."""

    name: ClassVar[str]
    title: ClassVar[str]
    source: ClassVar[str] = ""  # the source text it follows, for Help and About
    about: ClassVar[str] = ""  # a line for the About and Help text
    stat_block: ClassVar[type[CombatantBase]]
    options_model: ClassVar[type[OptionsBase]] = OptionsBase
    combat_model: ClassVar[type[CombatState]] = CombatState  # a ruleset's own combat fields (declarations)
    round_seconds: ClassVar[int] = 6
    provocation_word: ClassVar[str] = "Free attack"  # what the map calls an attack a path provokes
    # Whether a creature sees only inside its field of vision (its facing cone): what the fog of
    # war's "what the Party sees" reads. RULES §10 shares facing; a ruleset that never reads it says so.
    sight_uses_facing: ClassVar[bool] = True
    # The ruleset's own events, beside the shared ones, that its encounters' logs hold.
    event_types: ClassVar[tuple[type[EventBase], ...]] = ()
    # The ruleset's encounter model where it writes one out (the default ruleset's is the public ``Encounter``), used
    # when its ``ruleset`` default is this ruleset's name; else one is made (:attr:`encounter_model`).
    encounter_class: ClassVar[type[Encounter] | None] = None
    # The action hooks ("action_checks", "action_notes") whose overrides take the action's own inputs
    # as ``extras=`` (the values of ActionSpec.extras, and ``override`` for a spec with gm_override);
    # a hook not named here is called without them, as the seam first described it.
    hooks_with_extras: ClassVar[frozenset[str]] = frozenset()
    # Whether an action whose mode is an AttackMode is checked by that mode (``attack_checks``, and a
    # sneak attack's points by ``sneak_checks``) rather than by ``action_checks``.
    checks_attack_modes: ClassVar[bool] = False

    # -- files -------------------------------------------------------------------------------

    @cached_property
    def encounter_model(self) -> type[Encounter]:
        """The pydantic model of this ruleset's encounters: its stat block, options, combat state and
        events in the shared frame (:attr:`encounter_class` where the ruleset writes its own)."""
        own = self.encounter_class
        if own is not None and own.model_fields["ruleset"].default == self.name:
            return own  # written out for this very ruleset (a ruleset built on it makes its own)
        model: type[Encounter] = create_model(  # type: ignore[call-overload]
            f"{type(self).__name__}Encounter",
            __base__=Encounter,
            __module__=type(self).__module__,
            ruleset=(Literal[self.name], self.name),  # type: ignore[valid-type]
            options=(self.options_model, Field(default_factory=self.options_model)),
            combatants=(list[self.stat_block], Field(default_factory=list)),  # type: ignore[name-defined]
            combat=(self.combat_model, Field(default_factory=self.combat_model)),
            log=(list[event_union(self.event_types)], Field(default_factory=list)),  # type: ignore[misc]
        )
        return model

    def new_encounter(self, **fields: Any) -> Encounter:
        return self.encounter_model.model_validate({"ruleset": self.name, **fields})

    # -- the sheet and the tables ------------------------------------------------------------

    def sheet(self) -> SheetSpec:
        return SheetSpec(identity=(), numbers_title="Numbers", numbers=())

    def columns(self) -> tuple[Column, ...]:
        """The Combatants table's columns between Side and Move."""
        return ()

    def gauges(self, c: Any) -> tuple[Gauge, ...]:
        """The bars a token shows and the Turns list's columns."""
        return ()

    def gauge_labels(self) -> tuple[str, ...]:
        """The labels of :meth:`gauges`, for the Turns list's headers before anyone is in the encounter."""
        return ()

    def condition_tip(self, condition: str) -> str:
        """What a condition of the menu means, for its tooltip ("" for a word of the GM's own)."""
        return CONDITION_TIPS.get(condition.strip().lower(), "")

    def token_word(self, c: Any) -> str:
        """A state worth a word on the token itself, for the GM and the players ("flees", "dead"), or ""."""
        return ""

    def markers(self, c: Any) -> tuple[str, ...]:
        """The conditions a token shows as markers round its edge, each in the ruleset's word
        ("prone", "frightened of Ogre"); a ruleset that keeps a condition elsewhere adds it here."""
        return tuple(c.conditions)

    def condition_menu(self) -> tuple[str, ...]:
        """The sheet's menu of common conditions (free-text labels the GM adds to a combatant)."""
        return CONDITIONS

    # -- how long a condition lasts (RULES §10) --------------------------------------------------

    def duration_save(self) -> DurationSave:
        """What a "save at the end of each of its turns" names here (the default: a d20 against a DC)."""
        return DurationSave()

    def duration_save_problem(self, c: Any, save: str | None, dc: int | None) -> str | None:
        """Why a save each turn naming ``save`` and ``dc`` cannot be rolled for ``c``, or None."""
        spec = self.duration_save()
        known = [value for value, _ in spec.saves]
        if save is not None and save not in known:
            offered = f" (one of {', '.join(known)})" if known else ""
            return f"{self.title} has no save {save!r}{offered}"
        if spec.needs_save and save is None:
            return f"say which save ends it ({', '.join(known)})"
        if spec.needs_dc and dc is None:
            return "give the save's DC"
        return None

    def condition_save(
        self, encounter: Encounter, c: Any, save: str | None, dc: int | None, dice: DiceSource, purpose: str
    ) -> SaveRoll:
        """Roll ``c``'s save each turn against a condition (the default: d20 against the DC)."""
        face = roll_plain(dice, 20, purpose).face
        target = dc or 0
        return SaveRoll(face >= target, face, f"d20 {face} vs DC {target}")

    def new_combatant(self) -> dict[str, Any]:
        """What the Combatants dock's "Add combatant" creates, for the GM to edit on the sheet:
        a valid stat block's data (a ruleset whose stat block has required numbers gives them)."""
        return {"name": "New combatant", "side": Side.PARTY.value}

    def summary(self, c: Any) -> str:
        """The line under the sheet's title: what the fields below work out to."""
        return c.side.value

    def stat_line(self, c: Any) -> str:
        """A short line of the numbers that matter, for tooltips and the bestiary."""
        return ""

    def token_icons(self, c: Any) -> frozenset[str]:
        """Transitional: the icons of :data:`TOKEN_ICONS` the token shows."""
        from lnl_desktop.core.encounter.model import WeaponState

        icons = set()
        if getattr(c, "parry", None) is not None:
            icons.add("guard")
        if any(getattr(w, "state", None) is WeaponState.BROKEN for w in getattr(c, "weapons", ())):
            icons.add("broken")
        return frozenset(icons)

    def token_tip(self, c: Any) -> TokenTip:
        """Transitional: the tooltip's words of the stat block."""
        from lnl_desktop.core.encounter.model import WeaponKind, WeaponState

        items = []
        for w in getattr(c, "weapons", ()):
            extra = ""
            if w.kind is WeaponKind.REACH:
                extra = f", reach {w.reach} ft"
            elif w.kind is WeaponKind.RANGED and w.max_range_ft:
                extra = f", range {w.max_range_ft} ft"
            state = getattr(w, "state", WeaponState.READY)
            items.append(f"{w.label}{extra}" + ("" if state is WeaponState.READY else f" [{state.value}]"))
        return TokenTip(
            identity=f"level {c.level}" if hasattr(c, "level") else "",
            numbers=(f"AP {c.armor_points}",) if hasattr(c, "armor_points") else (),
            items=tuple(items),
        )

    def export_columns(self) -> tuple[str, ...]:
        """The CSV export's titles of an event's ``table_cells``."""
        return ("dice", "damage", "to SP", "to IP", "target SP", "target IP")

    # -- the round ---------------------------------------------------------------------------

    def start_procedure(self) -> StartProcedure:
        """What the Start combat dialog offers. By default the GM says who acts first (and who is surprised)."""
        return StartProcedure(
            question="Who acts first?",
            situations=(
                Situation(
                    BY_HAND, "The GM sets who acts first", f"{self.title} rolls no die for it: say it by hand", True
                ),
            ),
            die_label="initiative",
            reading=lambda situation, face: "",
        )

    def open_combat(self, engine: Table, action: Any, dice: DiceSource) -> Opening:
        """Read the start of combat (an ``actions.StartCombat``): the first round, who acts first, who is surprised.

        By default the GM's word, as ``first_side`` and ``surprised_side`` say it."""
        first, surprised = action.first_side, action.surprised_side
        if first is None:
            raise IllegalAction("Start combat", ["say which side acts first"])
        if surprised is first:
            raise IllegalAction("Start combat", ["the side that acts first cannot be the surprised one"])
        words = first.acts_first if surprised is None else f"{surprised.value} surprised: {first.acts_first}"
        return Opening(
            situation=action.situation, first_side=first, surprised_side=surprised, text=f"Round 1 (GM): {words}"
        )

    def round_order(self, engine: Table, action: Any, dice: DiceSource) -> RoundOrder:
        """A new round's initiative (an ``actions.NextRound``). By default the order of the round before is kept."""
        first = engine.encounter.combat.first_side or Side.PARTY
        return RoundOrder(first, None, f"the order is kept: {first.acts_first}")

    def declarations(self, engine: Table) -> DeclareSpec | None:
        """The declare phase, for a ruleset that has one (the Turns dock shows a Declared column)."""
        return None

    def row_actions(self, engine: Table, c: Any) -> tuple[RowAction, ...]:
        """Commands on ``c``'s row in the Turns dock (its context menu)."""
        return ()

    def round_notes(self, engine: Table) -> tuple[str, ...]:
        """Lines the Turns dock shows under the round's heading (a timer die counting down)."""
        return ()

    def round_settings(self) -> tuple[Setting, ...]:
        """The round's considerations the GM may change each round (light, how initiative is rolled),
        as options of the encounter: the Turns dock shows one editor each."""
        return ()

    def on_round_start(self, engine: Table) -> list[Event]:
        """What the rules do as a new round begins, after its order is set."""
        return []

    def waiting(self, engine: Table) -> list[Any]:
        """Who may take the next turn. With a turn order set (``combat.order``), the members of the
        first place in it who still may act; otherwise the acting side's members."""
        combat = engine.encounter.combat
        if combat.turn is not None:
            return []
        if combat.order:
            for ready in self._order_places(engine):
                ready = [c for c in ready if engine.may_act(c)]
                if ready:
                    return ready
            return []
        side = engine.acting_side()
        return [] if side is None else [c for c in engine.encounter.side(side) if engine.may_act(c)]

    @staticmethod
    def _order_places(engine: Table) -> list[list[Any]]:
        """The round's order as combatants, place by place; whoever joined after the roll acts last."""
        by_id = engine.encounter.by_id()
        places = [[by_id[cid] for cid in slot.members if cid in by_id] for slot in engine.encounter.combat.order]
        listed = {c.id for place in places for c in place}
        late = [c for c in engine.encounter.combatants if c.id not in listed]
        return [*places, late] if late else places

    def order_refusal(self, engine: Table, c: Any) -> str | None:
        """Why it is not ``c``'s place in the order to act now (it may act later this round), or None."""
        combat = engine.encounter.combat
        if combat.order:
            ready = self.waiting(engine)
            if ready and c not in ready:
                names = ", ".join(w.name for w in ready)
                return f"{names} act{'s' if len(ready) == 1 else ''} before {c.name} in the initiative order"
            return None
        side = engine.acting_side()
        if side is not None and c.side is not side:
            return f"the {side.value} are acting now"
        return None

    def initiative(self, face: int) -> Side:
        """Which side acts first on this face of the initiative die."""
        raise IllegalAction("Initiative", [f"{self.title} has no side initiative"])

    def turn_refusal(self, encounter: Encounter, c: Any) -> str | None:
        """Why ``c`` takes no turn this round (besides having acted), or None."""
        if c.down:
            return f"{c.name} is down"
        if c.surprised:
            return f"{c.name} is surprised in {encounter.combat.round_phrase}"
        return None

    def acting_side(self, engine: Table) -> Side | None:
        combat = engine.encounter.combat
        if combat.phase is not Phase.FIGHTING or combat.first_side is None:
            return None
        if combat.order:
            for place in self._order_places(engine):
                for c in place:
                    if engine.may_act(c):
                        return c.side  # type: ignore[no-any-return]
            return None
        for side in (combat.first_side, combat.first_side.other):
            if any(engine.may_act(c) for c in engine.encounter.side(side)):
                return side
        return None

    def on_turn_start(self, engine: Table, c: Any) -> list[Event]:
        """What ends or begins when ``c``'s turn begins (a parry in force ends)."""
        return []

    def on_combat_start(self, engine: Table) -> None:
        """Clear what a fight must not start with (a parry left from an earlier one)."""

    def on_combat_end(self, engine: Table) -> None:
        """Clear the ruleset's states that last only during combat."""

    # -- damage and healing by hand (RULES §10) ------------------------------------------------

    def hand_kinds(self, heal: bool) -> tuple[tuple[str, str], ...]:
        """The kinds of damage (or, with ``heal``, what is healed) the GM picks from when applying an
        amount by hand: (key, words). The first is the default."""
        return ()

    def health_fields(self) -> Mapping[str, str]:
        """The sheet's current values the rules watch (field → the by-hand kind a typed change is):
        typing one is damage or healing, never a bare write."""
        return {}

    def by_hand(self, engine: Table, c: Any, amount: int, heal: bool, kind: str) -> list[Event]:
        """Apply ``amount`` of damage (or healing) by hand to ``c`` exactly as a weapon's would land,
        with everything it sets off; the first event says what happened to ``c``."""
        raise IllegalAction(f"{'Heal' if heal else 'Damage'} {c.name}", [f"{self.title} has no damage by hand"])

    # -- movement ------------------------------------------------------------------------------

    def terrain_free(self, engine: Table, cid: str) -> bool:
        """Whether ``cid`` moves over obstacles and difficult terrain this turn (after a Leap)."""
        return False

    def move_allowance(self, engine: Table, c: Any) -> float:
        """How far ``c`` may move in all this turn, given the action taken so far (its Move, plus a Dash)."""
        turn = engine.encounter.combat.turn
        return c.move_ft + (turn.extra_ft if turn is not None else 0)

    def move_refusal(self, engine: Table, c: Any) -> str | None:
        """Why ``c`` may not move on its own now by this ruleset's rules (prone until it stands), or None."""
        return None

    def provocations(self, engine: Table, cid: str, path: list[tuple[int, int]]) -> list[Provocation]:
        """The steps of a planned path that give enemies a free attack, for the map to mark while dragging."""
        return []

    def after_move(self, engine: Table, c: Any, path: list[tuple[int, int]], forced: bool) -> list[Event]:
        """What a move sets off once made (counter-attacks queued)."""
        return []

    # -- what the rules call for ------------------------------------------------------------

    def prompt(self, engine: Table, item: Any) -> PromptSpec:
        """How to ask the GM about a pending item (``combat.pending``). Only a ruleset that queues them needs it."""
        return PromptSpec(item.kind.capitalize(), item.text, (), ())

    def tools(self, engine: Table) -> tuple[PromptSpec, ...]:
        """Rolls the GM may call for at any time, from the Combat menu (a morale check)."""
        return ()

    def combatant_tools(self, engine: Table, c: Any) -> tuple[PromptSpec, ...]:
        """Rolls for one combatant on the GM's demand, from its sheet (a saving throw)."""
        return ()

    def quick_rolls(self) -> tuple[tuple[str, str], ...]:
        """The dice roller's quick buttons: (label, expression in the dice notation) for the rolls
        this ruleset's GM makes most often."""
        return (("d20", "d20"), ("d6", "d6"))

    # -- actions -------------------------------------------------------------------------------

    handlers: ClassVar[Mapping[type, Handler]] = {}

    def action_kinds(self) -> tuple[ActionSpec, ...]:
        return ()

    def action_available(self, spec: ActionSpec, c: Any) -> tuple[bool, str]:
        """Whether ``c`` can take this kind of action at all (a weapon to swing), and why not."""
        return True, ""

    def action_means(self, spec: ActionSpec, c: Any) -> list[tuple[str, str, str]]:
        """What ``c`` may take this action with: (name, label, why it cannot be used or "")."""
        return []

    def action_checks(
        self,
        encounter: Encounter,
        spec: ActionSpec,
        c: Any,
        means: str | None,
        text: str,
        target: Any = None,
        extras: Mapping[str, Any] | None = None,
    ) -> list[Any]:
        """The checks the Action dock lists for an action that is not an attack checked by mode (a parry, a dash,
        words, a ruleset's own strike), besides the turn's own; ``target`` is the chosen target, if any,
        and ``extras`` the values of the spec's own inputs."""
        if spec.uses == "text":
            from lnl_desktop.core.rules.common import Check

            said = bool(text.strip())
            return [Check("Say what the action is", said, "" if said else "type it above")]
        return []

    def action_notes(
        self,
        encounter: Encounter,
        spec: ActionSpec,
        c: Any,
        means: str | None,
        target: Any,
        extras: Mapping[str, Any] | None = None,
    ) -> list[tuple[str, str]]:
        """What the GM should know before taking the action: (bold head, sentence) pairs."""
        return []

    def action_open(self, encounter: Encounter, c: Any, kind: str | None = None) -> str:
        """The words for what the turn's action, once begun, still allows ("Attack 2 of 3": a monster
        with several attacks), or "" when it is done; with ``kind``, only if an action of that kind
        may follow. The Action dock stays open and the turn's check holds while it is not ""."""
        return ""

    def opening_action(self, encounter: Encounter, c: Any) -> str | None:
        """The action (an :class:`ActionSpec` key) the Action dock opens ``c``'s turn on, where the rules
        already say it (an action declared before the round); None: the dock's own choice (the first attack)."""
        return None

    def action_result(self, encounter: Encounter, event: Any, after: list[Any]) -> ActionResult | None:
        """The Action dock's result of one event of the round log, in this ruleset's words (``after``: the
        events logged after it); None for an event that is no result (a move, a turn's start)."""
        return None

    # -- attacks -------------------------------------------------------------------------------

    def attack_checks(self, encounter: Encounter, attacker: Any, target: Any, means: Any, mode: Any) -> list[Any]:
        return []

    def sneak_checks(self, encounter: Encounter, attacker: Any, target: Any, means: Any) -> list[Any]:
        return []

    def concealment_details(self, encounter: Encounter, attacker: Any, target: Any) -> list[Any]:
        return []

    def attack_sections(self, encounter: Encounter, attacker: Any, target: Any, means: Any) -> tuple[CheckSection, ...]:
        """Transitional: the sneak attack's points as a section, from the old hooks."""
        checks = self.sneak_checks(encounter, attacker, target, means)
        if not checks:
            return ()
        ways = tuple(self.concealment_details(encounter, attacker, target))
        details = {c.label: ways for c in checks if c.label.startswith(("Concealed", "Hidden"))}
        return (CheckSection(f"Sneak attack ({self.title})", tuple(checks), details),)

    def attack_of(self, encounter: Encounter, action: Any) -> tuple[str, str] | None:
        """Who attacks whom with ``action`` (attacker id, target id), read before it is applied, or
        None when it is no attack on a creature. The engine turns the attacker to face its target.

        By default: an action with ``attacker`` and ``target`` (an attack), ``caster`` and a
        ``target`` (a spell aimed at a creature), or an ``index`` into ``combat.pending`` naming an
        item of the kind this ruleset's paths provoke (a counter-attack or free attack taken)."""
        target = getattr(action, "target", None)
        who = getattr(action, "attacker", None) or getattr(action, "caster", None)
        if isinstance(who, str) and isinstance(target, str) and target:
            return who, target
        from lnl_desktop.core.encounter.actions import SkipPending  # actions imports the rulesets: not at the top

        if isinstance(action, SkipPending):
            return None  # the GM passes over the attack: nobody strikes, nobody turns
        index = getattr(action, "index", None)
        pending = encounter.combat.pending
        if isinstance(index, int) and 0 <= index < len(pending):
            item = pending[index]
            if item.kind == self.provocation_word.lower() and item.target:
                return item.who, item.target
        return None

    def forecast(
        self,
        attacker: Any,
        target: Any,
        means: Any,
        mode: Any,
        options: Any,
        *,
        ignore_dex: bool = False,
        encounter: Encounter | None = None,
        extras: Mapping[str, Any] | None = None,
    ) -> Any:
        """The exact chances of what an attack would do (a ``forecast.Forecast``), or None if not forecast.

        ``encounter`` gives the positions (range, facing) and ``extras`` the action's own inputs
        (:attr:`ActionSpec.extras`), for a ruleset whose chance to hit depends on them."""
        return None

    # -- area effects (RULES §14) ------------------------------------------------------------------

    def area_means(self, c: Any) -> tuple[AreaMeans, ...]:
        """The combatant's spells, breaths, bombs or weapons that strike an area."""
        return ()

    def area_spec(self) -> AreaSpec:
        """What a free area effect asks for in this ruleset, and how it reads cover."""
        return AreaSpec()

    def area_forecast(self, encounter: Encounter, action: AreaEffect) -> Mapping[str, AreaOdds]:
        """Each target's expected result of ``action`` (by combatant id); empty when not forecast."""
        return {}

    def resolve_area(self, engine: Table, action: AreaEffect, dice: DiceSource) -> list[Event]:
        """Resolve an area effect on its targets (the engine has checked the area and that each is
        struck): one roll, each target's own defences, one :class:`AreaEffectResolved` and what
        follows it (a target down, a death save, morale), the caster's action used."""
        raise IllegalAction(action.name or action.means or "Area effect", [f"{self.title} has no area effects"])

    # -- whole-fight odds (core.rules.fight) -----------------------------------------------------

    # The default tactic in the ruleset's words (docs/RULESETS.md, the odds view's tooltip).
    sim_tactic: ClassVar[str] = ""
    # What the odds call a combatant's health, a column each: ("SP", "IP") or ("HP",).
    sim_health_fields: ClassVar[tuple[str, ...]] = ()
    # The ruleset's own attack modes a what-if may pin on a chosen foe ("sneak attack").
    sim_modes: ClassVar[tuple[str, ...]] = ()
    # Whether the ruleset tells dying from dropping (the odds show both).
    sim_tells_death: ClassVar[bool] = False

    def simulate_fights(self, encounter: Encounter, field: Battlefield, fights: int, rng: Any) -> SimOutcome:
        """The rest of the fight from the encounter's state, ``fights`` times at once with random
        dice (``rng``, a numpy Generator), by the default tactic (core.rules.fight)."""
        raise RulesError(f"{self.title} has no fight simulator")

    def play_fight(self, engine: Table, field: Battlefield, max_rounds: int) -> None:
        """The reference: the rest of one fight played through the engine with its dice, by the same
        default tactic, until one side is out or ``max_rounds`` rounds have been played."""
        raise RulesError(f"{self.title} has no fight simulator")

    def sim_out(self, c: Any) -> bool:
        """Whether ``c`` is out of the fight (down; a ruleset with morale: fled or surrendered too)."""
        return bool(c.down)

    def sim_health(self, c: Any) -> tuple[float, ...]:
        """``c``'s health in :attr:`sim_health_fields`' order."""
        return tuple(float(getattr(c, name.lower(), 0)) for name in self.sim_health_fields)

    def means(self, c: Any, name: str, spell: bool = False) -> Any:
        """The weapon (or spell) called ``name``."""
        return c.spell(name) if spell else c.weapon(name)

    # -- converting and the bestiary -------------------------------------------------------------

    def convert(self, data: dict[str, Any], source: Ruleset) -> tuple[dict[str, Any], list[str]]:
        """A combatant of ``source`` as this ruleset's stat block, and what was dropped or defaulted."""
        shared = set(CombatantBase.model_fields)
        kept = {k: v for k, v in data.items() if k in shared}
        dropped = sorted(k for k in data if k not in shared)
        notes = [f"{data.get('name', '?')}: dropped {', '.join(dropped)}"] if dropped else []
        return kept, notes

    def convert_options(
        self, data: dict[str, Any], source_options: type[OptionsBase] | None = None
    ) -> tuple[dict[str, Any], list[str]]:
        """The options that map (by name), and a line for each one this ruleset has not."""
        fields = self.options_model.model_fields
        kept = {k: v for k, v in data.items() if k in fields}
        notes = []
        for key in sorted(k for k in data if k not in fields):
            # Said in the option's own words where the source ruleset has them ("melee ... cost d4 SP too").
            described = source_options.model_fields.get(key) if source_options is not None else None
            what = described.description if described is not None and described.description else key
            value = data[key]
            shown = "on" if value is True else "off" if value is False else value
            notes.append(f"option not in {self.title}: {what} (was {shown})")
        return kept, notes

    def bestiary(self) -> list[dict[str, Any]]:
        """Ready-made creatures for this ruleset, as stat-block data."""
        return []

    def demo(self) -> str | None:
        """This ruleset's demo encounter, if it has one: a file name among the program's
        ``resources/encounters`` (the built-in rulesets), or an absolute path (an installed one's)."""
        return None

    def __repr__(self) -> str:
        return f"<ruleset {self.name}: {self.title}>"


# -- transitional: the capabilities read through the old hooks until each ruleset composes its own --

_LEGACY = {
    "views": {
        "sheet": "sheet",
        "columns": "columns",
        "gauges": "gauges",
        "gauge_labels": "gauge_labels",
        "token_word": "token_word",
        "markers": "markers",
        "summary": "summary",
        "stat_line": "stat_line",
        "new_combatant": "new_combatant",
        "export_columns": "export_columns",
        "token_icons": "token_icons",
        "token_tip": "token_tip",
    },
    "conditions": {
        "menu": "condition_menu",
        "tip": "condition_tip",
        "duration_save": "duration_save",
        "save_problem": "duration_save_problem",
        "save": "condition_save",
    },
    "rounds": {
        "start_procedure": "start_procedure",
        "open_combat": "open_combat",
        "round_order": "round_order",
        "initiative": "initiative",
        "declarations": "declarations",
        "notes": "round_notes",
        "settings": "round_settings",
        "row_actions": "row_actions",
        "on_round_start": "on_round_start",
        "on_combat_start": "on_combat_start",
        "on_combat_end": "on_combat_end",
    },
    "turns": {
        "waiting": "waiting",
        "order_refusal": "order_refusal",
        "turn_refusal": "turn_refusal",
        "acting_side": "acting_side",
        "on_turn_start": "on_turn_start",
    },
    "movement": {
        "allowance": "move_allowance",
        "refusal": "move_refusal",
        "terrain_free": "terrain_free",
        "provocations": "provocations",
        "after_move": "after_move",
        "provocation_word": "provocation_word",
    },
    "actions": {
        "handlers": "handlers",
        "hooks_with_extras": "hooks_with_extras",
        "kinds": "action_kinds",
        "available": "action_available",
        "choices": "action_means",
        "checks": "action_checks",
        "notes": "action_notes",
        "still_open": "action_open",
        "opening": "opening_action",
        "result": "action_result",
        "means": "means",
    },
    "attacks": {
        "attack_of": "attack_of",
        "checks": "attack_checks",
        "concealment": "concealment_details",
        "sections": "attack_sections",
        "forecast": "forecast",
        "checks_modes": "checks_attack_modes",
    },
    "health": {"kinds": "hand_kinds", "fields": "health_fields", "by_hand": "by_hand"},
    "prompts": {
        "prompt": "prompt",
        "tools": "tools",
        "combatant_tools": "combatant_tools",
        "quick_rolls": "quick_rolls",
    },
    "areas": {"means": "area_means", "spec": "area_spec", "forecast": "area_forecast", "resolve": "resolve_area"},
    "fights": {
        "simulate": "simulate_fights",
        "play": "play_fight",
        "out": "sim_out",
        "health": "sim_health",
        "tactic": "sim_tactic",
        "health_columns": "sim_health_fields",
        "modes": "sim_modes",
        "tells_death": "sim_tells_death",
    },
}


class _Legacy:
    """A capability answered by a ruleset's old hooks (removed once every ruleset composes its own)."""

    def __init__(self, ruleset: Ruleset, names: Mapping[str, str]) -> None:
        self._ruleset = ruleset
        self._names = names

    def __getattr__(self, name: str) -> Any:
        return getattr(self._ruleset, self._names.get(name, name))


def _legacy(cap: str) -> Any:
    def get(self: Ruleset) -> Any:
        return _Legacy(self, _LEGACY[cap])

    get.__name__ = cap
    return cached_property(get)


for _cap in _LEGACY:
    _prop = _legacy(_cap)
    setattr(Ruleset, _cap, _prop)
    _prop.__set_name__(Ruleset, _cap)
Ruleset.rest = None  # type: ignore[attr-defined]
