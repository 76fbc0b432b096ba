"""Duel's damage and healing by hand (a trap, a potion): HP off or back, a fall to 0 HP logged."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from lnl_desktop.core.encounter.events import CombatantChanged, Event
from lnl_desktop.core.errors import IllegalAction
from lnl_duel.model import DuelStats
from lnl_duel.rules import land, went_down

if TYPE_CHECKING:
    from lnl_desktop.core.rules.base import Table


class DuelHealth:
    """HP off (a trap's, a fall's) or back (a potion's), as the GM types it."""

    def kinds(self, heal: bool) -> tuple[tuple[str, str], ...]:
        return (("hp", "HP"),)

    def fields(self) -> Mapping[str, str]:
        return {"hp": "hp"}  # a typed HP is damage or healing, never a bare write

    def by_hand(self, engine: Table, c: DuelStats, amount: int, heal: bool, kind: str) -> list[Event]:
        rnd = engine.encounter.combat.round
        before = c.hp
        if heal:
            if c.hp >= c.hp_max:
                raise IllegalAction(f"Heal {c.name}", [f"{c.name} is already at its maximum of {c.hp_max} HP"])
            c.hp = min(c.hp_max, c.hp + amount)
            text = f"{c.name} heals {c.hp - before} HP → {c.hp}/{c.hp_max} HP"
            return [CombatantChanged(round=rnd, text=text, actors=(c.id,), combatant=c.id, field="hp",
                                     old=str(before), new=str(c.hp))]  # fmt: skip
        if c.down:
            raise IllegalAction(f"Damage {c.name}", [f"{c.name} is already down"])
        dealt = land(c, amount)
        text = f"{amount} damage → {c.name} {c.hp}/{c.hp_max} HP"
        changed = CombatantChanged(
            round=rnd, text=text, actors=(c.id,), combatant=c.id, field="hp", old=str(before), new=str(c.hp)
        )
        return [changed, *went_down(rnd, c, amount - dealt)]
