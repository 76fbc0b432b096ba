"""Group d10's damage and healing by hand (RULES §10, §13): a trap, a potion, a spell the app does
not model. The amount lands as a weapon's damage would: after DR unless it ignores DR, a minion dies,
exactly 1 HP is a lasting wound (*Wounded*), 0 HP is dead."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from lnl_desktop.core.encounter.events import CombatantChanged, Event
from lnl_desktop.core.errors import IllegalAction
from lnl_desktop.core.rules.d10 import play
from lnl_desktop.core.rules.d10.model import D10Combatant
from lnl_desktop.core.rules.d10.rules import damage_after

if TYPE_CHECKING:
    from lnl_desktop.core.rules.base import Table

DAMAGE_KINDS = (("hp", "HP, after DR"), ("ignores DR", "HP, ignores DR"))
HEAL_KINDS = (("hp", "HP"),)


def damage(engine: Table, t: D10Combatant, amount: int, ignores_dr: bool) -> list[Event]:
    """``amount`` off ``t``'s HP and what it sets off, as :func:`play.strike` does (:func:`play.after_hit`)."""
    rnd = engine.encounter.combat.round
    if t.dead:
        raise IllegalAction(f"Damage {t.name}", [f"{t.name} is dead"])
    dealt = amount if ignores_dr else damage_after(amount, False, t.dr)
    dr = "" if ignores_dr or not t.dr else f" -{t.dr} DR = {dealt}"
    before, minion_died = play.hit_hp(t, dealt)
    outcome = f"{t.name} is a minion: dies" if minion_died else f"{t.name} {t.hp}/{t.hp_max} HP"
    text = f"{amount} damage{' (ignores DR)' if ignores_dr else ''}{dr} → {outcome}"
    changed = CombatantChanged(
        round=rnd, text=text, actors=(t.id,), combatant=t.id, field="hp", old=str(before), new=str(t.hp)
    )
    return [changed, *play.after_hit(engine, t, before, minion_died)]


def heal(engine: Table, t: D10Combatant, amount: int) -> list[Event]:
    """HP up to the maximum; one knocked unconscious wakes. The lasting wound stays (the GM's)."""
    rnd = engine.encounter.combat.round
    if t.dead:
        raise IllegalAction(f"Heal {t.name}", [f"{t.name} is dead: healing does not bring it back"])
    if t.hp >= t.hp_max:
        raise IllegalAction(f"Heal {t.name}", [f"{t.name} is already at its maximum of {t.hp_max} HP"])
    was_down = t.down
    before = t.hp
    t.hp = min(t.hp_max, t.hp + amount)
    if t.has_condition("unconscious"):
        t.conditions = [c for c in t.conditions if c != "unconscious"]
    back = f"; {t.name} is back on its feet" if was_down and not t.down else ""
    text = f"{t.name} heals {t.hp - before} HP → {t.hp}/{t.hp_max} HP{back}"
    return [
        CombatantChanged(
            round=rnd, text=text, actors=(t.id,), combatant=t.id, field="hp", old=str(before), new=str(t.hp)
        )
    ]


class D10Health:
    """Damage and healing the GM applies by hand, in HP."""

    def kinds(self, heal: bool) -> tuple[tuple[str, str], ...]:
        return HEAL_KINDS if heal else DAMAGE_KINDS

    def fields(self) -> Mapping[str, str]:
        # A typed HP is the value the GM means: it ignores DR.
        return {"hp": "ignores DR"}

    def by_hand(self, engine: Table, c: Any, amount: int, heal_: bool, kind: str) -> list[Event]:
        if heal_:
            return heal(engine, c, amount)
        return damage(engine, c, amount, kind == "ignores DR")
