"""A ruleset's capabilities: small Protocols, each a few methods wide, that a ruleset composes.

A :class:`~lnl_desktop.core.rules.base.Ruleset` holds one object per capability (``ruleset.views``,
``ruleset.rounds``, ``ruleset.attacks``...). The engine and the Qt layer ask the capability, never the
ruleset's name. A capability a ruleset lacks is ``None`` (``areas``, ``fights``, ``rest``): the
callers say "this ruleset has none" rather than meet a default that pretends.

``CAPABILITIES`` names each capability and the methods it answers; ``tests/core/test_capabilities.py``
checks every registered ruleset against it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from lnl_desktop.core.dice.rolls import DiceSource
    from lnl_desktop.core.encounter.actions import AreaEffect
    from lnl_desktop.core.encounter.events import Event
    from lnl_desktop.core.encounter.model import Encounter, Side
    from lnl_desktop.core.rules.base import (
        ActionResult,
        ActionSpec,
        AreaMeans,
        AreaOdds,
        AreaSpec,
        Column,
        DeclareSpec,
        DurationSave,
        Gauge,
        Handler,
        PromptSpec,
        Provocation,
        Reach,
        RowAction,
        SaveRoll,
        Setting,
        SheetSpec,
        StartProcedure,
        Table,
        TokenTip,
    )
    from lnl_desktop.core.rules.common import CheckSection, Opening, RoundOrder
    from lnl_desktop.core.rules.fight import Battlefield, SimOutcome


@runtime_checkable
class Views(Protocol):
    """What the sheet, the tables, the tokens and an export show of a combatant."""

    def sheet(self) -> SheetSpec: ...
    def columns(self) -> tuple[Column, ...]: ...  # the Combatants table's columns between Side and Move
    def gauges(self, c: Any) -> tuple[Gauge, ...]: ...  # a token's bars, the Turns list's columns
    def gauge_labels(self) -> tuple[str, ...]: ...
    def token_word(self, c: Any) -> str: ...  # "flees", "dead", or ""
    def markers(self, c: Any) -> tuple[str, ...]: ...  # the conditions round a token's edge
    def summary(self, c: Any) -> str: ...  # the line under the sheet's title
    def stat_line(self, c: Any) -> str: ...  # a short line of the numbers that matter
    def new_combatant(self) -> dict[str, Any]: ...  # what "Add combatant" creates
    def token_icons(self, c: Any) -> frozenset[str]: ...  # of base.TOKEN_ICONS: "guard", "broken"
    def token_tip(self, c: Any) -> TokenTip: ...  # the tooltip's words of the stat block
    def reach(self, c: Any) -> Reach: ...  # how far it strikes and shoots, for the map's outlines
    def export_columns(self) -> tuple[str, ...]: ...  # the CSV titles of an event's table_cells ("to HP")


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


@runtime_checkable
class Attacks(Protocol):
    """How an attack on a creature is checked and what it would do."""

    checks_modes: bool  # an action with an attack mode is checked by :meth:`checks`, not Actions.checks

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
    """Rest between fights (RULES §16): what a short rest and a night's rest give back."""

    def kinds(self) -> tuple[tuple[str, str], ...]: ...  # (key, words): "short", "night"


# Each capability, whether a ruleset may lack it, and its Protocol.
CAPABILITIES: dict[str, tuple[type, bool]] = {
    "views": (Views, False),
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
