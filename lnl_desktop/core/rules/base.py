"""The ruleset seam: a :class:`Ruleset` is a few capabilities, each a small Protocol a few methods wide,
and what it is handed to work on (:class:`Table`, the engine).

A ruleset holds one object per capability (``ruleset.views``, ``ruleset.rounds``, ``ruleset.attacks``...).
The engine and the Qt layer ask the capability, never the ruleset's name. A capability a ruleset lacks is
``None`` (``areas``, ``fights``, ``rest``): the callers say "this ruleset has none" rather than meet a default
that pretends. The capabilities answer with the plain descriptions of :mod:`lnl_desktop.core.rules.specs`;
shared pieces to compose are in :mod:`lnl_desktop.core.rules.shared`. ``CAPABILITIES`` names each capability
and its Protocol; the registry refuses a ruleset that lacks one it must have.

A new ruleset subclasses :class:`Ruleset` and composes its capabilities (docs/RULESETS.md walks through one),
registered by name or through the ``lnl_desktop.rulesets`` entry point.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Protocol, runtime_checkable

from pydantic import Field, create_model

from lnl_desktop.core.dice.rolls import DiceSource
from lnl_desktop.core.encounter.events import Event, EventBase, event_union
from lnl_desktop.core.encounter.log_book import LogBook, log_of
from lnl_desktop.core.encounter.model import (
    CombatantBase,
    CombatState,
    Encounter,
    OptionsBase,
    Side,
    TurnState,
)
from lnl_desktop.core.rules.common import Check
from lnl_desktop.core.rules.specs import (
    ActionResult,
    ActionSpec,
    AreaMeans,
    AreaOdds,
    AreaSpec,
    Column,
    DeclareSpec,
    DurationSave,
    Gauge,
    PromptSpec,
    Provocation,
    Reach,
    RowAction,
    SaveRoll,
    Setting,
    SheetSpec,
    StartProcedure,
    TokenTip,
)

if TYPE_CHECKING:
    from lnl_desktop.core.encounter.actions import AreaEffect
    from lnl_desktop.core.rules.common import CheckSection, Opening, RoundOrder
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


@runtime_checkable
class Views(Protocol):
    """What the sheet, the tables, the bestiary and an export show of a combatant."""

    def sheet(self) -> SheetSpec: ...
    def columns(self) -> tuple[Column, ...]: ...  # the Combatants table's columns between Side and Move
    def summary(self, c: Any) -> str: ...  # the line under the sheet's title
    def stat_line(self, c: Any) -> str: ...  # a short line of the numbers that matter
    def new_combatant(self) -> dict[str, Any]: ...  # what "Add combatant" creates
    # A bestiary entry's tooltip in the ruleset's words: its heading (the name, a level), then a line per
    # item it carries (weapons, a shield, spells); the dock adds the stat line, size, traits and notes.
    def creature_lines(self, c: Any) -> tuple[str, ...]: ...
    def export_columns(self) -> tuple[str, ...]: ...  # the CSV titles of an event's table_cells ("to HP")


@runtime_checkable
class Tokens(Protocol):
    """What a token on the map (and its row in the Turns list) shows of a combatant."""

    def gauges(self, c: Any) -> tuple[Gauge, ...]: ...  # a token's bars, the Turns list's columns
    def gauge_labels(self) -> tuple[str, ...]: ...
    def token_word(self, c: Any) -> str: ...  # "flees", "dead", or ""
    def markers(self, c: Any) -> tuple[str, ...]: ...  # the conditions round a token's edge
    def token_icons(self, c: Any) -> frozenset[str]: ...  # of base.TOKEN_ICONS: "guard", "broken"
    def token_tip(self, c: Any) -> TokenTip: ...  # the tooltip's words of the stat block
    def reach(self, c: Any) -> Reach: ...  # how far it strikes and shoots, for the map's outlines


@runtime_checkable
class Conditions(Protocol):
    """The conditions a GM puts on a combatant and how long they last (RULES §10)."""

    def menu(self) -> tuple[str, ...]: ...
    def tip(self, condition: str) -> str: ...
    def duration_save(self) -> DurationSave: ...
    def save_problem(self, c: Any, save: str | None, dc: int | None) -> str | None: ...
    def save(
        self, encounter: Encounter, c: Any, save: str | None, dc: int | None, dice: DiceSource, purpose: str
    ) -> SaveRoll: ...


@runtime_checkable
class Rounds(Protocol):
    """How combat starts and a round begins: surprise, initiative, declarations."""

    def start_procedure(self) -> StartProcedure: ...
    def open_combat(self, engine: Table, action: Any, dice: DiceSource) -> Opening: ...
    def round_order(self, engine: Table, action: Any, dice: DiceSource) -> RoundOrder: ...
    def initiative(self, face: int) -> Side: ...
    def declarations(self, engine: Table) -> DeclareSpec | None: ...
    def notes(self, engine: Table) -> tuple[str, ...]: ...  # lines under the round's heading
    def settings(self) -> tuple[Setting, ...]: ...  # the round's considerations the GM may change
    def row_actions(self, engine: Table, c: Any) -> tuple[RowAction, ...]: ...
    def on_round_start(self, engine: Table) -> list[Event]: ...
    def on_combat_start(self, engine: Table) -> None: ...
    def on_combat_end(self, engine: Table) -> None: ...


@runtime_checkable
class Turns(Protocol):
    """Who acts next within a round."""

    def waiting(self, engine: Table) -> list[Any]: ...
    def order_refusal(self, engine: Table, c: Any) -> str | None: ...
    def turn_refusal(self, encounter: Encounter, c: Any) -> str | None: ...
    def acting_side(self, engine: Table) -> Side | None: ...
    def on_turn_start(self, engine: Table, c: Any) -> list[Event]: ...


@runtime_checkable
class Movement(Protocol):
    """How far a combatant moves and what a path sets off."""

    provocation_word: str  # what the map calls an attack a path provokes

    def allowance(self, engine: Table, c: Any) -> float: ...
    def refusal(self, engine: Table, c: Any) -> str | None: ...
    def terrain_free(self, engine: Table, cid: str) -> bool: ...
    def provocations(self, engine: Table, cid: str, path: list[tuple[int, int]]) -> list[Provocation]: ...
    def after_move(self, engine: Table, c: Any, path: list[tuple[int, int]], forced: bool) -> list[Event]: ...


@runtime_checkable
class Actions(Protocol):
    """The actions of a turn: what the Action dock offers, checks and shows as a result."""

    handlers: Mapping[type, Handler]
    hooks_with_extras: frozenset[str]

    def kinds(self) -> tuple[ActionSpec, ...]: ...
    def available(self, spec: ActionSpec, c: Any) -> tuple[bool, str]: ...
    def choices(self, spec: ActionSpec, c: Any) -> list[tuple[str, str, str]]: ...
    def checks(self, encounter: Encounter, spec: ActionSpec, c: Any, means: str | None, text: str,
               target: Any = None, extras: Mapping[str, Any] | None = None) -> list[Any]: ...  # fmt: skip
    def notes(self, encounter: Encounter, spec: ActionSpec, c: Any, means: str | None, target: Any,
              extras: Mapping[str, Any] | None = None) -> list[tuple[str, str]]: ...  # fmt: skip
    def still_open(self, encounter: Encounter, c: Any, kind: str | None = None) -> str: ...
    def opening(self, encounter: Encounter, c: Any) -> str | None: ...
    def result(self, encounter: Encounter, event: Any, after: list[Any]) -> ActionResult | None: ...
    def means(self, c: Any, name: str, spell: bool = False) -> Any: ...
    def means_names(self, c: Any) -> tuple[str, ...]: ...  # what a "means" Setting offers: its weapons' names


@runtime_checkable
class Attacks(Protocol):
    """How an attack on a creature is checked and what it would do."""

    # An action with an attack mode is checked by :meth:`checks`, not Actions.checks: every mode (True),
    # none (False), or the mode words listed (a ruleset's own word beside them goes to Actions.checks).
    checks_modes: bool | frozenset[str]

    def attack_of(self, encounter: Encounter, action: Any) -> tuple[str, str] | None: ...
    def checks(self, encounter: Encounter, attacker: Any, target: Any, means: Any, mode: Any) -> list[Any]: ...
    def concealment(self, encounter: Encounter, attacker: Any, target: Any) -> list[Any]: ...
    def sections(self, encounter: Encounter, attacker: Any, target: Any, means: Any) -> tuple[CheckSection, ...]: ...
    def forecast(self, attacker: Any, target: Any, means: Any, mode: Any, options: Any, *, ignore_dex: bool = False,
                 encounter: Encounter | None = None, extras: Mapping[str, Any] | None = None) -> Any: ...  # fmt: skip


@runtime_checkable
class Health(Protocol):
    """How damage and healing land when the GM applies them by hand (RULES §10)."""

    def kinds(self, heal: bool) -> tuple[tuple[str, str], ...]: ...
    def fields(self) -> Mapping[str, str]: ...  # the sheet's current values typed as damage or healing
    def by_hand(self, engine: Table, c: Any, amount: int, heal: bool, kind: str) -> list[Event]: ...


@runtime_checkable
class Prompts(Protocol):
    """What the rules ask the GM (a death save, a morale check) and the rolls at hand."""

    def prompt(self, engine: Table, item: Any) -> PromptSpec: ...
    def tools(self, engine: Table) -> tuple[PromptSpec, ...]: ...
    def combatant_tools(self, engine: Table, c: Any) -> tuple[PromptSpec, ...]: ...
    def quick_rolls(self) -> tuple[tuple[str, str], ...]: ...


@runtime_checkable
class Areas(Protocol):
    """Area effects (RULES §14): what strikes an area, its odds and how it lands."""

    def means(self, c: Any) -> tuple[AreaMeans, ...]: ...
    def spec(self) -> AreaSpec: ...
    def forecast(self, encounter: Encounter, action: AreaEffect) -> Mapping[str, AreaOdds]: ...
    def resolve(self, engine: Table, action: AreaEffect, dice: DiceSource) -> list[Event]: ...


@runtime_checkable
class Fights(Protocol):
    """The fight simulator: the rest of a fight many times over, and the engine-played reference."""

    tactic: str  # the default tactic in the ruleset's words
    health_columns: tuple[str, ...]  # what the odds call a combatant's health, a column each
    modes: tuple[str, ...]  # attack modes a what-if may pin on a chosen foe
    tells_death: bool  # the ruleset tells dying from dropping

    def simulate(self, encounter: Encounter, field: Battlefield, fights: int, rng: Any) -> SimOutcome: ...
    def play(self, engine: Table, field: Battlefield, max_rounds: int) -> None: ...
    def out(self, c: Any) -> bool: ...
    def health(self, c: Any) -> tuple[float, ...]: ...


@runtime_checkable
class Rest(Protocol):
    """Rest between fights (RULES §16): what a rest gives back, and what a fight leaves behind."""

    # (key, words), the default first: L&L's "short" and "night", Old-School d20's "day" and "short".
    def kinds(self) -> tuple[tuple[str, str], ...]: ...
    # The dice a rest of this kind rolls per character, in the dice roller's words ("1d3"); "" when none.
    def dice(self, kind: str, options: Any) -> str: ...
    # What the rest gives back to ``c``: (health kind of ``health.kinds(heal=True)``, amount > 0) pairs, never
    # past a maximum; its dice rolled from ``dice`` even at the maximum (typed faces one per character), none
    # for the dead. RulesError for an unknown kind, naming the kinds there are.
    def gains(self, c: Any, kind: str, options: Any, dice: DiceSource) -> tuple[tuple[str, int], ...]: ...
    def dead(self, c: Any) -> bool: ...  # dead stays dead: no rest, no carry-on raises it
    # A new copy of ``c`` as it leaves a fight, the ruleset's own fields reset (a parry, a morale check); never ``c``.
    def after_fight(self, c: Any) -> Any: ...
    # What changed from ``before`` to ``after``, no name: "IP 12 → 7, wounded, shield destroyed"; "" if nothing.
    def summary(self, before: Any, after: Any) -> str: ...


# Each capability, whether a ruleset may lack it, and its Protocol.
CAPABILITIES: dict[str, tuple[type, bool]] = {
    "views": (Views, False),
    "tokens": (Tokens, False),
    "conditions": (Conditions, False),
    "rounds": (Rounds, False),
    "turns": (Turns, False),
    "movement": (Movement, False),
    "actions": (Actions, False),
    "attacks": (Attacks, False),
    "health": (Health, False),
    "prompts": (Prompts, False),
    "areas": (Areas, True),
    "fights": (Fights, True),
    "rest": (Rest, True),
}


# -- the ruleset -----------------------------------------------------------------------------------


class Ruleset:
    """One combat system: its stat block, options and files, and the capabilities it composes (the
    Protocols above, listed in :data:`CAPABILITIES`): one object each for what the sheet and the tables
    show, what a token shows, how combat starts and a round runs, whose turn it is, movement, actions,
    attacks, damage and healing by hand, the GM's prompts and conditions; and, where the ruleset has
    them, area effects, a fight simulator and rest. A ruleset sets every capability in its ``__init__``;
    one it lacks stays ``None``.
    """

    name: ClassVar[str]
    title: ClassVar[str]
    source: ClassVar[str] = ""  # the source text it follows, for Help and About
    about: ClassVar[str] = ""  # a line for the About and Help text
    stat_block: ClassVar[type[CombatantBase]]
    options_model: ClassVar[type[OptionsBase]] = OptionsBase
    combat_model: ClassVar[type[CombatState]] = CombatState  # a ruleset's own combat fields (declarations)
    round_seconds: ClassVar[int] = 6
    # Whether a creature sees only inside its field of vision (its facing cone): what the fog of
    # war's "what the Party sees" reads. RULES §10 shares facing; a ruleset that never reads it says so.
    sight_uses_facing: ClassVar[bool] = True
    # The ruleset's own events, beside the shared ones, that its encounters' logs hold.
    event_types: ClassVar[tuple[type[EventBase], ...]] = ()
    # The ruleset's encounter model where it writes one out (the default ruleset's is the public ``Encounter``), used
    # when its ``ruleset`` default is this ruleset's name; else one is made (:attr:`encounter_model`).
    encounter_class: ClassVar[type[Encounter] | None] = None

    # -- its capabilities (set by the ruleset's __init__) --------------------------------------

    views: Views
    tokens: Tokens
    conditions: Conditions
    rounds: Rounds
    turns: Turns
    movement: Movement
    actions: Actions
    attacks: Attacks
    health: Health
    prompts: Prompts
    areas: Areas | None = None  # None: the ruleset has no area effects
    fights: Fights | None = None  # None: no fight simulator
    rest: Rest | None = None  # None: no rules for rest between fights

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
            log=(log_of(event_union(self.event_types)), Field(default_factory=LogBook)),
        )
        return model

    def new_encounter(self, **fields: Any) -> Encounter:
        return self.encounter_model.model_validate({"ruleset": self.name, **fields})

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
