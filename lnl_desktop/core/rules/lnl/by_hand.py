"""Damage and healing by the GM's hand in the L&L family (:class:`LnlHealth`, RULES §10): the number lands
on SP or IP as it is."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from lnl_desktop.core.encounter.events import CombatantChanged, Event, WentDown
from lnl_desktop.core.errors import IllegalAction
from lnl_desktop.core.rules.lnl.model import LnLStats
from lnl_desktop.core.rules.lnl.rules import LnlRules, apply_damage

if TYPE_CHECKING:
    from lnl_desktop.core.rules.base import Table


class LnlHealth:
    """Damage by hand wears SP down (spilling into IP) or, where the edition has direct damage, goes to IP."""

    def __init__(self, rules: LnlRules) -> None:
        self.rules = rules

    def kinds(self, heal: bool) -> tuple[tuple[str, str], ...]:
        if heal:
            return (("stamina", "SP"), ("injury", "IP"))
        direct = self.rules.has_direct_damage
        wearing = ("stamina", "wearing down: SP first, then IP" if direct else "SP first, then IP")
        return (wearing, ("injury", "direct: IP at once")) if direct else (wearing,)

    def fields(self) -> Mapping[str, str]:
        # A typed SP is wearing down (or rest); a typed IP is an injury (or its healing).
        return {"stamina": "stamina", "injury": "injury"}

    def by_hand(self, engine: Table, c: LnLStats, amount: int, heal: bool, kind: str) -> list[Event]:
        return by_hand(engine, c, amount, heal, kind)


def by_hand(engine: Table, c: LnLStats, amount: int, heal: bool, kind: str) -> list[Event]:
    """Damage or healing the GM types (RULES §10): SP or IP as the GM says, no DEX, no AP, no parry."""
    rnd = engine.encounter.combat.round
    if heal:
        pool, top, word = ("stamina", c.stamina_max, "SP") if kind == "stamina" else ("injury", c.injury_max, "IP")
        now = getattr(c, pool)
        if now >= top:
            raise IllegalAction(f"Heal {c.name}", [f"{c.name} is already at its maximum of {top} {word}"])
        was_down = c.down
        setattr(c, pool, min(top, now + amount))
        gained = getattr(c, pool) - now
        back = f"; {c.name} is back on its feet" if was_down and not c.down else ""
        text = f"{c.name} heals {gained} {word} → {c.stamina} SP, {c.injury} IP{back}"
        return [
            CombatantChanged(
                round=rnd,
                text=text,
                actors=(c.id,),
                combatant=c.id,
                field=pool,
                old=str(now),
                new=str(getattr(c, pool)),
            )
        ]
    direct = kind == "injury"
    # The GM's number lands as it is: no DEX, no AP, no parry (those are for blows the rules roll).
    ap = apply_damage(c.model_copy(update={"parry": None}), amount, direct, 0, engine.encounter.options)
    was_up = not c.down
    before_sp, before_ip = c.stamina, c.injury
    c.stamina, c.injury = ap.stamina_after, ap.injury_after
    where = [f"{ap.to_sp} SP"] if ap.to_sp else []
    where += [f"{ap.to_ip} IP"] if ap.to_ip else []
    how = "direct " if direct else ""
    text = f"{amount} {how}damage to {c.name} → {', '.join(where) or 'no harm'}: {c.stamina} SP, {c.injury} IP"
    events: list[Event] = [
        CombatantChanged(
            round=rnd,
            text=text,
            actors=(c.id,),
            combatant=c.id,
            field="injury" if direct else "stamina",
            old=f"{before_sp} SP, {before_ip} IP",
            new=f"{c.stamina} SP, {c.injury} IP",
        )
    ]
    if (was_up and c.down) or ap.overkill:
        over = f" ({ap.overkill} overkill)" if ap.overkill else ""
        down = f"{c.name} is down{over}" if was_up and c.down else f"{ap.overkill} overkill"
        events.append(WentDown(round=rnd, text=down, actors=(c.id,), combatant=c.id, overkill=ap.overkill))
    return events
