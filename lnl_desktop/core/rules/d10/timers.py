"""Group d10's timer dice (RULES §13): the GM rolls a die for an event (the ceiling collapses in d4
rounds); each new round counts every timer down, and one run out asks the GM to tell the table."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lnl_desktop.core.dice.rolls import DiceSource, roll_plain
from lnl_desktop.core.encounter.events import Event, Override, RulesEvent
from lnl_desktop.core.encounter.model import Pending, Side
from lnl_desktop.core.errors import IllegalAction
from lnl_desktop.core.rules.common import pending_item
from lnl_desktop.core.rules.d10.model import SetTimer, Timer, TimerNoted
from lnl_desktop.core.rules.d10.rules import NAME, combat_of

if TYPE_CHECKING:
    from lnl_desktop.core.rules.base import Table


def set_timer(engine: Table, a: SetTimer, dice: DiceSource) -> list[Event]:
    event = a.event.strip()
    if not event:
        raise IllegalAction("Timer die", ["say what happens when it runs out"])
    if a.die not in ("d4", "d6", "d8", "d10", "d12", "d20"):
        raise IllegalAction("Timer die", [f"{a.die} is not a die (d4 … d20)"])
    face = roll_plain(dice, int(a.die[1:]), f"timer {a.die}: {event}").face
    combat = combat_of(engine.encounter)
    combat.timers.append(Timer(die=a.die, event=event, face=face, rounds_left=face))
    rounds = "round" if face == 1 else "rounds"
    text = f"Timer {a.die} {face}: {event} in {face} {rounds}"
    return [
        RulesEvent(round=combat.round, text=text, ruleset=NAME, name="timer set", detail={"die": a.die, "face": face})
    ]


def timer_noted(engine: Table, a: TimerNoted, dice: DiceSource) -> list[Event]:
    item = pending_item(engine.encounter, a.index, "timer", "Timer")
    engine.encounter.combat.pending.pop(a.index)
    return [Override(round=engine.encounter.combat.round, text=f"{item.text} The GM tells the table.")]


def tick_timers(engine: Table) -> list[Event]:
    """A new round: every timer counts one round down; one that reaches 0 is announced."""
    combat = combat_of(engine.encounter)
    events: list[Event] = []
    kept = []
    for timer in combat.timers:
        left = timer.rounds_left - 1
        if left > 0:
            kept.append(timer.model_copy(update={"rounds_left": left}))
            continue
        text = f"Timer {timer.die}: {timer.event}!"
        combat.pending.append(Pending(kind="timer", who=Side.PARTY.value, text=text, urgent=True, round=combat.round))
        events.append(
            RulesEvent(round=combat.round, text=text, ruleset=NAME, name="timer", detail={"event": timer.event})
        )
    combat.timers = kept
    return events
