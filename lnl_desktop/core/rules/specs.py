"""The plain descriptions a ruleset gives the views and the engine: sheet rows, table columns, gauges, the
start of combat, action kinds, prompts, results, area effects, durations (see :mod:`lnl_desktop.core.rules.base`
for the ruleset and the capabilities that answer with them)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from lnl_desktop.core.encounter.areas import Area
from lnl_desktop.core.encounter.events import Override, Turned

# The one situation of the default start of combat: the GM says who acts first.
BY_HAND = "set by the GM"


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


@dataclass(frozen=True)
class Reach:
    """How far a combatant strikes, for the map's outlines round the selected token."""

    melee_ft: int = 0  # its longest melee reach beyond the adjacent cells (a polearm's 10 ft), 0: none
    too_close_ft: int = 0  # a ranged weapon's minimum: a target closer than this cannot be shot (0: none)
    range_ft: int | None = None  # the longest range of its ranged weapons (None: none, or one without a limit)
    ranged: bool = False  # it has a ranged weapon


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
    tint: Literal["reserve", "wound", "health"] = "health"  # drawing words: what the bar's colour says


@dataclass(frozen=True)
class ActionSpec:
    """One action of a turn as the Action dock offers it.

    ``uses`` says what the dock asks for: a weapon, a spell, one of the ruleset's own choices
    (``Actions.choices``, under ``means_caption``: L&L's "Parry with" a weapon or the shield), words, or
    nothing. ``build`` turns the choices into the engine's action value; the dock calls it with the active
    combatant's id first, in one of four forms:

    - ``targeted``: ``build(c, target, means, ignore_dex=bool, override=bool)`` (``means`` None when
      ``uses`` is "none");
    - ``uses == "text"``: ``build(c, words)``;
    - ``uses`` "weapon", "spell" or "choice" (not targeted): ``build(c, means)``;
    - otherwise: ``build(c)``.
    """

    key: str
    label: str
    tip: str
    uses: Literal["weapon", "spell", "choice", "text", "none"]
    build: Callable[..., Any]
    targeted: bool = False
    mode: str | None = None  # the attack mode of a rolling action: the ruleset's own word
    gm_override: bool = False  # the GM may override its eligibility points (a sneak attack)
    ignore_dex: bool = False  # the GM toggle "ignore the target's DEX" applies
    button: str = ""  # the button's words ("Roll the attack"); the label when empty
    rolls: bool = False  # it rolls dice: the GM may type the faces
    # The action's own inputs besides the target and the means (cover, a second weapon, subdual):
    # the dock shows one editor each and passes their values to ``build`` as keywords.
    extras: tuple[Setting, ...] = ()
    allies: bool = False  # a targeted action aimed at a friend (guard an ally), or at oneself
    # What the GM override lets through, in the ruleset's words, and its tooltip (empty: the dock's own).
    override_label: str = ""
    override_tip: str = ""
    # The caption over the list of means (empty: "Weapon", or "Spell" for a spell), and the name a choice
    # goes by where its key is no name the GM would use ((key, name): L&L's shield, "shield").
    means_caption: str = ""
    means_names: tuple[tuple[str, str], ...] = ()


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


@dataclass(frozen=True)
class AreaSpec:
    """What a ruleset's area effects ask of the GM besides the shared dice: its own ``settings`` (an
    editor each in the Area effect dialog, their values in ``AreaEffect.extras``), those of them a
    caster's means decides itself (``free_only``: asked of a free effect only), its save categories
    ``(value, label)`` where targets save, and whether cover changes anything."""

    settings: tuple[Setting, ...] = ()
    free_only: tuple[str, ...] = ()  # setting keys: left out of a caster's effect, whose spell or weapon says
    saves: tuple[tuple[str, str], ...] = ()
    cover: bool = False
    default_dice: str = "2d6"
    notes: tuple[str, ...] = ()  # how the ruleset reads an area effect, a line each, for the dialog
    choice_words: Mapping[str, str] = field(default_factory=dict)  # a choice's words where more than its value
    unset_words: Mapping[str, str] = field(default_factory=dict)  # an optional number's words at its lowest (unset)


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
