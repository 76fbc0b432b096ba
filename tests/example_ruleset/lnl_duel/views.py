"""What the Sheet, the tables, the tokens and an export show of a duellist: one health number, HP."""

from __future__ import annotations

from typing import Any

from lnl_desktop.core.encounter.model import Side
from lnl_desktop.core.rules.specs import Column, Gauge, Reach, SheetRow, SheetSpec, TokenTip
from lnl_duel.model import DuelStats


class DuelViews:
    """One health number, HP; a die and a defense."""

    def sheet(self) -> SheetSpec:
        return SheetSpec(
            identity=(),
            numbers_title="Health and fighting",
            numbers=(
                SheetRow("HP (now / max)", ("hp", "hp_max"), "Hit points left, and when unhurt; at 0 HP it is down"),
                SheetRow("Damage die", ("damage_die",), "Sides of the die a Strike rolls: 4, 6, 8, 10 or 12", "sides"),
                SheetRow("Defense", ("defense",), "Taken off every Strike this combatant takes"),
            ),
            tips={"surprised": "Duel has no surprise: nobody starts surprised"},
        )

    def columns(self) -> tuple[Column, ...]:
        return (
            Column("HP", "Hit points, now / max", lambda c: f"{c.hp}/{c.hp_max}"),
            Column("Die", "The die a Strike rolls", lambda c: f"d{c.damage_die}", numeric=False),
            Column("Def", "Defense: taken off every Strike", lambda c: c.defense),
        )

    def summary(self, c: DuelStats) -> str:
        parts = [c.side.value, f"HP {c.hp}/{c.hp_max}", f"d{c.damage_die}", f"defense {c.defense}"]
        return " · ".join([*parts, "down"] if c.down else parts)

    def stat_line(self, c: DuelStats) -> str:
        return f"HP {c.hp_max}  d{c.damage_die}  Def {c.defense}  Move {c.move_ft} ft"

    def new_combatant(self) -> dict[str, Any]:
        return {"name": "New combatant", "side": Side.PARTY.value, "hp_max": 6}

    def creature_lines(self, c: DuelStats) -> tuple[str, ...]:
        return (c.name,)  # no level, no weapons: the stat line says the rest

    def export_columns(self) -> tuple[str, ...]:
        # The numbers the log's events carry here are the shared ones (an area effect's, a dice roll's):
        # the dice and the total. A Strike is a RulesEvent, its numbers in its line.
        return ("dice", "damage")


class DuelTokens:
    """What a token shows of a combatant: its bars, a word, condition markers, icons, tooltip words and reach."""

    def gauges(self, c: DuelStats) -> tuple[Gauge, ...]:
        return (Gauge("HP", c.hp, c.hp_max, "health"),)

    def gauge_labels(self) -> tuple[str, ...]:
        return ("HP",)

    def token_word(self, c: DuelStats) -> str:
        return "down" if c.down else ""

    def markers(self, c: DuelStats) -> tuple[str, ...]:
        return tuple(c.conditions)

    def token_icons(self, c: DuelStats) -> frozenset[str]:
        return frozenset()  # no guard to keep up, no weapon to break

    def reach(self, c: DuelStats) -> Reach:
        return Reach()  # a Strike reaches the adjacent cells only; nothing is shot

    def token_tip(self, c: DuelStats) -> TokenTip:
        return TokenTip(numbers=(f"d{c.damage_die}", f"Def {c.defense}"))
