"""Old-School d20's damage and healing by hand (RULES §10, §12): a trap, a potion, a spell the app
does not model. The amount lands as a weapon's damage would: off HP (or as subdual), with the spell
interrupted, the death save or *defeated* at 0 HP, and the morale prompts."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from lnl_desktop.core.encounter.events import CombatantChanged, Event
from lnl_desktop.core.errors import IllegalAction
from lnl_desktop.core.rules import engagement
from lnl_desktop.core.rules.osr import play
from lnl_desktop.core.rules.osr.model import MoraleResult, OsrCombatant
from lnl_desktop.core.rules.osr.morale import morale_triggers, side_counts
from lnl_desktop.core.rules.osr.rules import petrified_immune

if TYPE_CHECKING:
    from lnl_desktop.core.rules.base import Table

DAMAGE_KINDS = (("hp", "HP"), ("subdual", "subdual (the foe surrenders at 0)"))
HEAL_KINDS = (("hp", "HP"), ("subdual", "subdual damage taken"))


def damage(engine: Table, t: OsrCombatant, amount: int, subdual: bool) -> list[Event]:
    """``amount`` off ``t``'s HP (or as subdual) and what it sets off, as :func:`play.strike` does."""
    e = engine.encounter
    rnd = e.combat.round
    if t.dead:
        raise IllegalAction(f"Damage {t.name}", [f"{t.name} is dead"])
    stone = petrified_immune(t)
    if stone:
        # RULES §12: stone takes no damage; logged, so the GM sees why nothing changed.
        field, now = ("subdual", t.subdual) if subdual else ("hp", t.hp)
        text = f"{amount} damage to {t.name}: none taken ({stone})"
        return [
            CombatantChanged(
                round=rnd, text=text, actors=(t.id,), combatant=t.id, field=field, old=str(now), new=str(now)
            )
        ]
    if subdual:
        before = t.subdual
        t.subdual = min(10_000, t.subdual + amount)
        text = f"{amount} subdual damage to {t.name} → {t.subdual} subdual against {t.hp} HP"
        events: list[Event] = [
            CombatantChanged(
                round=rnd,
                text=text,
                actors=(t.id,),
                combatant=t.id,
                field="subdual",
                old=str(before),
                new=str(t.subdual),
            )
        ]
        events += play.interrupt(engine, t, f"{amount} subdual damage")
        if t.subdual >= t.hp and t.morale_result is None:
            t.morale_result = MoraleResult.SURRENDERS
            events.append(
                CombatantChanged(
                    round=rnd,
                    text=f"{t.name} is subdued ({t.subdual} subdual ≥ {t.hp} HP) and surrenders",
                    actors=(t.id,),
                    combatant=t.id,
                    field="morale_result",
                    old="-",
                    new=MoraleResult.SURRENDERS.value,
                )
            )
        return events
    before = t.hp
    killed_before, out_before = side_counts(e, t.side)
    t.hp = max(0, t.hp - amount)
    overkill = max(0, amount - before)
    text = f"{amount} damage to {t.name} → {t.hp}/{t.hp_max} HP"
    events = [
        CombatantChanged(
            round=rnd, text=text, actors=(t.id,), combatant=t.id, field="hp", old=str(before), new=str(t.hp)
        )
    ]
    events += play.interrupt(engine, t, f"{amount} damage")
    if t.hp == 0:
        events += play.at_zero(engine, t, overkill, before)
        events += engagement.lapse(e, "counter-attack", t)
    events += morale_triggers(engine, t.side, killed_before, out_before)
    return events


def heal(engine: Table, t: OsrCombatant, amount: int, subdual: bool) -> list[Event]:
    """HP up to the maximum (a PC unconscious at 0 wakes), or subdual damage taken away."""
    rnd = engine.encounter.combat.round
    if t.dead:
        raise IllegalAction(f"Heal {t.name}", [f"{t.name} is dead: healing does not bring it back"])
    if subdual:
        if t.subdual == 0:
            raise IllegalAction(f"Heal {t.name}", [f"{t.name} has taken no subdual damage"])
        before = t.subdual
        t.subdual = max(0, t.subdual - amount)
        text = f"{t.name} recovers {before - t.subdual} subdual → {t.subdual} subdual"
        return [
            CombatantChanged(
                round=rnd,
                text=text,
                actors=(t.id,),
                combatant=t.id,
                field="subdual",
                old=str(before),
                new=str(t.subdual),
            )
        ]
    if t.hp >= t.hp_max:
        raise IllegalAction(f"Heal {t.name}", [f"{t.name} is already at its maximum of {t.hp_max} HP"])
    was_down = t.down
    before = t.hp
    t.hp = min(t.hp_max, t.hp + amount)
    if t.has_condition("unconscious"):
        t.conditions = [c for c in t.conditions if c != "unconscious"]
    # A death save still waiting for this PC is moot once it is above 0 HP.
    pending = engine.encounter.combat.pending
    pending[:] = [p for p in pending if not (p.kind == "death save" and p.who == t.id)]
    back = f"; {t.name} is back on its feet" if was_down and not t.down else ""
    text = f"{t.name} heals {t.hp - before} HP → {t.hp}/{t.hp_max} HP{back}"
    return [
        CombatantChanged(
            round=rnd, text=text, actors=(t.id,), combatant=t.id, field="hp", old=str(before), new=str(t.hp)
        )
    ]


class OsrHealth:
    """Damage and healing the GM applies by hand: to HP or as subdual, landing as a weapon's would."""

    def kinds(self, heal: bool) -> tuple[tuple[str, str], ...]:
        return HEAL_KINDS if heal else DAMAGE_KINDS

    def fields(self) -> Mapping[str, str]:
        # Subdual is tracked beside HP (RULES §12): typed, it stays the GM's plain number.
        return {"hp": "hp"}

    def by_hand(self, engine: Table, c: Any, amount: int, heal_: bool, kind: str) -> list[Event]:
        subdual = kind == "subdual"
        return heal(engine, c, amount, subdual) if heal_ else damage(engine, c, amount, subdual)
