"""Old-School d20's initiative (RULES §12): a d20 per side (its leader's INIT) or per combatant,
highest first, with the ties broken as the rules say; and the round's considerations in words."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from lnl_desktop.core.dice.rolls import DiceSource, roll_plain
from lnl_desktop.core.encounter.model import Side, TurnSlot
from lnl_desktop.core.rules.osr.model import (
    LIGHT_PENALTY,
    InitiativeMode,
    Kind,
    Light,
    MoraleResult,
    OsrCombatant,
    OsrOptions,
)

if TYPE_CHECKING:
    from lnl_desktop.core.rules.base import Table


@dataclass
class _Entry:
    title: str
    members: list[str]
    face: int
    bonus: int
    pcs: bool
    who: str  # the roller's name for the die's purpose
    tiebreak: list[int] = field(default_factory=list)

    @property
    def total(self) -> int:
        return self.face + self.bonus


def roll_initiative(engine: Table, dice: DiceSource) -> tuple[list[TurnSlot], str]:
    """Initiative by group (d20 + the leader's INIT, one roll per side) or individually (d20 + INIT
    each); highest first; ties: PCs first, then the higher INIT, then a tie-break d20."""
    e = engine.encounter
    options: OsrOptions = e.options  # type: ignore[assignment]
    able: list[OsrCombatant] = [
        c
        for c in e.combatants
        if not c.down and c.morale_result is not MoraleResult.SURRENDERS  # type: ignore[attr-defined]
    ]
    entries: list[_Entry] = []
    group = InitiativeMode(options.initiative) is InitiativeMode.GROUP
    if group:
        for side in (Side.PARTY, Side.OPPONENTS):
            for name, ids in groups(e.combatants, side):
                members = [c for c in able if c.id in ids]
                if not members:
                    continue
                leader = next((c for c in members if c.leader), members[0])
                who = name or side.value
                face = roll_plain(
                    dice, 20, f"initiative d20 for the {who} ({leader.name}, INIT {leader.init_mod:+d})"
                ).face
                entries.append(
                    _Entry(
                        f"{who} ({leader.name} leads)",
                        ids,
                        face,
                        leader.init_mod,
                        any(c.kind is Kind.PC for c in members),
                        who,
                    )
                )
    else:
        for c in able:
            face = roll_plain(dice, 20, f"initiative d20 for {c.name} (INIT {c.init_mod:+d})").face
            entries.append(_Entry(c.name, [c.id], face, c.init_mod, c.kind is Kind.PC, c.name))

    def key(x: _Entry) -> tuple[int, bool, int]:
        return (x.total, x.pcs, x.bonus)

    # Tie-break d20s where total, PC-ness and INIT all tie, rolled again until they differ.
    by_key: dict[tuple[int, bool, int], list[_Entry]] = {}
    for entry in entries:
        by_key.setdefault(key(entry), []).append(entry)
    for tied in by_key.values():
        while len(tied) > 1:
            for entry in tied:
                entry.tiebreak.append(roll_plain(dice, 20, f"tie-break d20 for {entry.who}").face)
            faces = [x.tiebreak[-1] for x in tied]
            tied = [x for x in tied if faces.count(x.tiebreak[-1]) > 1]
    entries.sort(key=lambda x: (key(x), x.tiebreak), reverse=True)
    slots = []
    for entry in entries:
        roll = f"d20 {entry.face} {entry.bonus:+d} INIT = {entry.total}"
        if entry.tiebreak:
            roll += f" (tie-break {', '.join(str(f) for f in entry.tiebreak)})"
        slots.append(TurnSlot(title=entry.title, members=entry.members, roll=roll, total=entry.total))
    how = "by group" if group else "individually"
    listed = "; ".join(f"{s.title.split(' (')[0]} {s.roll}" for s in slots)
    return slots, f"initiative {how}: {listed}"


def groups(combatants: list[OsrCombatant], side: Side) -> list[tuple[str, list[str]]]:
    """A side's initiative groups in the order first met: ("", ids) for the side's own group, then
    each group the GM named (a boss apart from its goblins), spelt as first written."""
    found: dict[str, tuple[str, list[str]]] = {}
    for c in combatants:
        if c.side is not side:
            continue
        name = " ".join(c.initiative_group.split())
        found.setdefault(name.casefold(), (name, []))[1].append(c.id)
    return sorted(found.values(), key=lambda g: g[0] != "")


def considerations(options: OsrOptions) -> str:
    light = Light(options.light)
    return "light normal" if light is Light.NORMAL else f"light {light.value} ({LIGHT_PENALTY[light]} to attacks)"
