"""Value types every ruleset speaks: checks with reasons, the start of combat and a round's order, surprise outcomes."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from lnl_desktop.core.encounter.model import Encounter, Pending, Side, TurnSlot
from lnl_desktop.core.errors import IllegalAction

# What an attack is made with: a ruleset's weapon or spell (a type of the ruleset's own).
AttackMeans = Any


@dataclass(frozen=True)
class Check:
    """One condition of an action: what it is, whether it holds, and the reason in words."""

    label: str
    ok: bool
    reason: str = ""
    # A check that does not apply in this situation (shown greyed, never blocks).
    applies: bool = True

    @property
    def blocks(self) -> bool:
        return self.applies and not self.ok


@dataclass(frozen=True)
class CheckSection:
    """A heading of checks an attack mode brings beside the attack's own (a sneak attack's points), each
    shown with its reason, and under a check the ways it may be satisfied (``details`` by the check's label)."""

    head: str
    checks: tuple[Check, ...]
    details: Mapping[str, tuple[Check, ...]] = field(default_factory=dict)


def failed(checks: list[Check]) -> list[str]:
    """The reasons of the checks that block, for an :class:`IllegalAction`."""
    return [f"{c.label}: {c.reason}" if c.reason else c.label for c in checks if c.blocks]


def pending_item(encounter: Encounter, index: int, kind: str, title: str) -> Pending:
    """The queued item ``index`` of ``combat.pending`` if it is a ``kind``; refused otherwise (it was
    rolled or skipped already, or the queue moved)."""
    pending = encounter.combat.pending
    if not 0 <= index < len(pending) or pending[index].kind != kind:
        raise IllegalAction(title, [f"no {kind} is waiting there"])
    return pending[index]


@dataclass(frozen=True)
class Opening:
    """How a ruleset reads the start of combat: the first round, who acts first, who is surprised."""

    situation: str
    first_side: Side
    surprised_side: Side | None
    text: str  # the log line: the situation, the dice and what they mean
    face: int | None = None  # the die read for it (None when the GM set it by hand)
    first_round: int = 1  # 0 for a surprise round before round 1
    initiative_face: int | None = None  # the die that set the round's order, when it is another one
    order: tuple[TurnSlot, ...] = ()  # the round's turn order, where the ruleset sets one
    surprised: frozenset[str] = frozenset()  # combatants surprised one by one (not a whole side)


@dataclass(frozen=True)
class RoundOrder:
    """A new round's initiative: who acts first, the die, and the log line."""

    first_side: Side
    face: int | None
    text: str
    order: tuple[TurnSlot, ...] = ()  # the round's turn order, where the ruleset sets one
