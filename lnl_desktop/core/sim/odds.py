"""Whole-fight odds from many simulated fights: each side's chance to win, each combatant's chance
to drop (and to die, where the ruleset tells them apart), the rounds left, the health left; with a
95 % confidence margin in words, as plain text a person reads and a script parses, or as JSON."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

from lnl_desktop.core.rules.fight import NEITHER, OPPONENTS, PARTY, Battlefield, SimOutcome
from lnl_desktop.lazy import lazy_module

np = lazy_module("numpy")

Z95 = 1.96  # a 95 % confidence interval's half-width in standard errors


def margin(p: float, n: int) -> float:
    """The 95 % margin of a chance ``p`` seen in ``n`` fights (normal approximation; 0 for no fights)."""
    return Z95 * math.sqrt(p * (1 - p) / n) if n else 0.0


@dataclass(frozen=True)
class CombatantOdds:
    id: str
    name: str
    side: str
    drop: float  # the chance it drops (out of the fight) before the end
    die: float | None  # the chance it dies, where the ruleset tells dying from dropping; else None
    health_left: dict[str, float]  # the mean of each health field at the end


@dataclass(frozen=True)
class FightOdds:
    """What ``fights`` fights from one state came to."""

    fights: int
    party_wins: float
    opponents_win: float
    neither: float  # not over within the rounds played (core.rules.fight.MAX_ROUNDS)
    someone_drops: float  # the chance at least one Party member drops
    rounds: dict[int, float]  # rounds played to the end -> its chance
    combatants: tuple[CombatantOdds, ...]
    seconds: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)

    def margin(self, p: float) -> float:
        return margin(p, self.fights)

    def rounds_range(self, mass: float = 0.8) -> tuple[int, int]:
        """The middle ``mass`` of the rounds played: '3–5 rounds'."""
        if not self.rounds:
            return (0, 0)
        keys = sorted(self.rounds)
        cum, lo, hi = 0.0, keys[0], keys[-1]
        tail = (1 - mass) / 2
        for k in keys:
            cum += self.rounds[k]
            if cum > tail:
                lo = k
                break
        cum = 0.0
        for k in keys:
            cum += self.rounds[k]
            if cum >= 1 - tail:
                hi = k
                break
        return (lo, hi)

    def verdict(self) -> str:
        """'Party wins 64 % · someone drops in 71 % · 3–5 rounds': the one line for the Turns dock."""
        lo, hi = self.rounds_range()
        rounds = f"{lo} round{'s' if lo != 1 else ''}" if lo == hi else f"{lo}–{hi} rounds"
        return f"Party wins {self.party_wins:.0%} · someone drops in {self.someone_drops:.0%} · {rounds}"

    def text(self) -> str:
        """The table as plain text: a line per side, then each combatant's chance to drop."""
        lines = [
            f"{self.fights:,} fights, 95 % margins",
            f"Party wins      {100 * self.party_wins:5.1f} % ± {100 * self.margin(self.party_wins):.1f}",
            f"Opponents win   {100 * self.opponents_win:5.1f} % ± {100 * self.margin(self.opponents_win):.1f}",
        ]
        if self.neither:
            lines.append(f"Not over        {100 * self.neither:5.1f} % ± {100 * self.margin(self.neither):.1f}")
        lo, hi = self.rounds_range()
        mean = sum(k * p for k, p in self.rounds.items())
        lines.append(f"Rounds left     {mean:5.1f} on average, {lo}-{hi} in 8 fights of 10")
        lines.append("")
        width = max((len(c.name) for c in self.combatants), default=4)
        for c in self.combatants:
            die = f"  dies {100 * c.die:5.1f} %" if c.die is not None else ""
            health = ", ".join(f"{k} {v:.1f}" for k, v in c.health_left.items())
            drop = f"drops {100 * c.drop:5.1f} % ± {100 * self.margin(c.drop):.1f}"
            lines.append(f"{c.name:<{width}}  {drop}{die}  ({health} left)")
        return "\n".join(lines)

    def as_json(self) -> str:
        return json.dumps(
            {
                "fights": self.fights,
                "party_wins": self.party_wins,
                "opponents_win": self.opponents_win,
                "neither": self.neither,
                "someone_drops": self.someone_drops,
                "margin_95": {"party_wins": self.margin(self.party_wins)},
                "rounds": {str(k): v for k, v in sorted(self.rounds.items())},
                "combatants": [
                    {
                        "id": c.id,
                        "name": c.name,
                        "side": c.side,
                        "drop": c.drop,
                        "die": c.die,
                        "health_left": c.health_left,
                    }
                    for c in self.combatants
                ],
            },
            indent=1,
        )


def summarise(field_: Battlefield, outcome: SimOutcome, tells_death: bool, seconds: float = 0.0) -> FightOdds:
    """The odds of ``outcome``'s fights."""
    n = outcome.fights
    winner = outcome.winner
    counts = np.bincount(outcome.rounds, minlength=1) / max(n, 1)
    party = field_.side == PARTY
    people = []
    for k, cid in enumerate(field_.ids):
        health = {name: float(outcome.health[:, k, h].mean()) for h, name in enumerate(outcome.health_fields)}
        people.append(
            CombatantOdds(
                id=cid,
                name=field_.names[k],
                side="Party" if field_.side[k] == PARTY else "Opponents",
                drop=float(outcome.down[:, k].mean()),
                die=float(outcome.dead[:, k].mean()) if tells_death else None,
                health_left=health,
            )
        )
    return FightOdds(
        fights=n,
        party_wins=float((winner == PARTY).mean()),
        opponents_win=float((winner == OPPONENTS).mean()),
        neither=float((winner == NEITHER).mean()),
        someone_drops=float(outcome.down[:, party].any(axis=1).mean()) if party.any() else 0.0,
        rounds={int(k): float(p) for k, p in enumerate(counts) if p > 0},
        combatants=tuple(people),
        seconds=seconds,
    )
