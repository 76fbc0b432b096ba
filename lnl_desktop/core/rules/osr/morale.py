"""Old-School d20's morale (RULES §12): when a side checks it (its first fallen, half of it out
of the fight), and the 2d6 against each creature's morale score."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lnl_desktop.core.dice.rolls import DiceSource, roll_plain
from lnl_desktop.core.encounter.events import Event, RulesEvent
from lnl_desktop.core.encounter.model import Encounter, Pending, Side
from lnl_desktop.core.errors import IllegalAction
from lnl_desktop.core.rules.common import pending_item
from lnl_desktop.core.rules.osr.model import MoraleCheck, MoraleResult, OsrCombatant
from lnl_desktop.core.rules.osr.rules import NAME

if TYPE_CHECKING:
    from lnl_desktop.core.rules.base import Table


def side_counts(e: Encounter, side: Side) -> tuple[int, int]:
    """(members down, members out of the fight) of a side."""
    members = [c for c in e.combatants if c.side is side]
    return sum(c.down for c in members), sum(c.out_of_fight for c in members)  # type: ignore[attr-defined]


def morale_eligible(c: OsrCombatant) -> bool:
    return c.has_morale and not c.out_of_fight and c.morale_passes < 2


def morale_triggers(engine: Table, side: Side, killed_before: int, out_before: int) -> list[Event]:
    """Queue a side's morale check when its first member falls, and when half of it is out of the fight."""
    e = engine.encounter
    members = [c for c in e.combatants if c.side is side]
    killed, out = side_counts(e, side)
    reasons = []
    if killed_before == 0 and killed >= 1:
        reasons.append(f"the first of the {side.value} has fallen")
    if out_before * 2 < len(members) <= out * 2:
        reasons.append(f"half of the {side.value} are out of the fight")
    if not reasons or not any(morale_eligible(c) for c in members):  # type: ignore[arg-type]
        return []
    if any(p.kind == "morale" and p.who == side.value for p in e.combat.pending):
        return []
    why = " and ".join(reasons)
    text = f"Morale check for the {side.value}: {why}"
    e.combat.pending.append(Pending(kind="morale", who=side.value, text=text, urgent=True, round=e.combat.round))
    return [RulesEvent(round=e.combat.round, text=text, ruleset=NAME, name="morale due", detail={"side": side.value})]


def morale_check(engine: Table, a: MoraleCheck, dice: DiceSource) -> list[Event]:
    e = engine.encounter
    try:
        side = Side(a.side)
        outcome = MoraleResult(a.outcome)
    except ValueError as error:
        raise IllegalAction("Morale check", [str(error)]) from None
    if not -2 <= a.modifier <= 2:
        raise IllegalAction("Morale check", [f"a situational modifier is -2 to +2 (not {a.modifier:+d})"])
    pending = e.combat.pending
    if a.index >= 0:
        pending_item(e, a.index, "morale", "Morale check")
    members = [c for c in e.side(side) if morale_eligible(c)]  # type: ignore[arg-type]
    if not members:
        raise IllegalAction(
            "Morale check", [f"none of the {side.value} checks morale (PCs, the fallen, and two passes are exempt)"]
        )
    if a.index >= 0:
        pending.pop(a.index)
    faces = [roll_plain(dice, 6, f"morale 2d6 for the {side.value}").face for _ in range(2)]
    roll = sum(faces)
    lines = []
    for c in members:
        assert c.morale is not None
        if c.morale == 12:
            lines.append(f"{c.name} (morale 12) fights to the death")
            continue
        if c.morale == 2:
            if a.cornered:
                lines.append(f"{c.name} (morale 2) is cornered and fights")
            else:
                c.morale_result = outcome
                lines.append(f"{c.name} (morale 2) {outcome.value}")
            continue
        score = c.morale + a.modifier
        shown = f"morale {c.morale}{a.modifier:+d} = {score}" if a.modifier else f"morale {score}"
        if roll <= score:
            c.morale_passes += 1
            last = "; fights on to the end" if c.morale_passes == 2 else ""
            lines.append(f"{c.name} ({shown}) stands{last}")
        else:
            c.morale_result = outcome
            lines.append(f"{c.name} ({shown}) {outcome.value}")
    why = f" ({a.reason})" if a.reason else ""
    text = f"Morale of the {side.value}{why}: 2d6 [{faces[0]}+{faces[1]}] = {roll}; " + "; ".join(lines)
    detail: dict[str, int | float | str | bool | None] = {"side": side.value, "roll": roll, "modifier": a.modifier}
    return [
        RulesEvent(
            round=e.combat.round,
            text=text,
            actors=tuple(c.id for c in members),
            ruleset=NAME,
            name="morale",
            detail=detail,
        )
    ]
