"""A test ruleset's capabilities from the shared pieces: its own sheet (and HP bars where it has them) and
nothing else of its own — for the tests that need a small ruleset of a given shape (a sheet of every
kind of row, a turn order rolled each round)."""

from __future__ import annotations

from typing import Any

from lnl_desktop.core.encounter.model import Side
from lnl_desktop.core.rules.base import Rounds, Ruleset
from lnl_desktop.core.rules.shared import (
    D20Conditions,
    FeetMovement,
    GmSaysRounds,
    NoActions,
    NoDamageByHand,
    NoPrompts,
    PlainAttacks,
    SideTurns,
)
from lnl_desktop.core.rules.specs import Column, Gauge, Reach, SheetSpec, TokenTip


class PlainViews:
    """A sheet of the ruleset's rows and nothing else of its own."""

    def __init__(self, sheet: SheetSpec) -> None:
        self._sheet = sheet

    def sheet(self) -> SheetSpec:
        return self._sheet

    def columns(self) -> tuple[Column, ...]:
        return ()

    def summary(self, c: Any) -> str:
        return str(c.side.value)

    def stat_line(self, c: Any) -> str:
        return ""

    def new_combatant(self) -> dict[str, Any]:
        return {"name": "New combatant", "side": Side.PARTY.value}

    def creature_lines(self, c: Any) -> tuple[str, ...]:
        return ()

    def export_columns(self) -> tuple[str, ...]:
        return ()


class PlainTokens:
    """What a token shows of a combatant: its bars, a word, condition markers, icons, tooltip words and reach."""

    def __init__(self, hp_bar: bool = False) -> None:
        self._hp_bar = hp_bar

    def gauges(self, c: Any) -> tuple[Gauge, ...]:
        return (Gauge("HP", c.hp, c.hp_max),) if self._hp_bar else ()

    def gauge_labels(self) -> tuple[str, ...]:
        return ()

    def token_word(self, c: Any) -> str:
        return ""

    def markers(self, c: Any) -> tuple[str, ...]:
        return tuple(c.conditions)

    def token_icons(self, c: Any) -> frozenset[str]:
        return frozenset()

    def token_tip(self, c: Any) -> TokenTip:
        return TokenTip()

    def reach(self, c: Any) -> Reach:
        return Reach()


def compose(ruleset: Ruleset, sheet: SheetSpec, rounds: Rounds | None = None, hp_bar: bool = False) -> None:
    """Give ``ruleset`` every capability it must have: its sheet, its rounds (the GM's word by default), the rest
    shared."""
    ruleset.views = PlainViews(sheet)
    ruleset.tokens = PlainTokens(hp_bar)  # with hp_bar, an "HP" bar of the stat block's hp and hp_max
    ruleset.conditions = D20Conditions(ruleset.title)
    ruleset.rounds = rounds or GmSaysRounds(ruleset.title)
    ruleset.turns = SideTurns()
    ruleset.movement = FeetMovement()
    ruleset.actions = NoActions()
    ruleset.attacks = PlainAttacks()
    ruleset.health = NoDamageByHand(ruleset.title)
    ruleset.prompts = NoPrompts()
