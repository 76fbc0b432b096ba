"""Whole-fight odds from many simulated fights: each side's chance to win, each combatant's chance
to drop (and to die, where the ruleset tells them apart), the rounds left, the health left; with a
95 % confidence margin in words, as plain text a person reads and a script parses, or as JSON."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

from lnl_desktop.core.rules.fight import MAX_ROUNDS, NEITHER, OPPONENTS, PARTY, Battlefield, SimOutcome
from lnl_desktop.lazy import lazy_module

np = lazy_module("numpy")

Z95 = 1.96  # a 95 % confidence interval's half-width in standard errors
LEFT_MEANS = "the health on average over the fights it stood at the end"


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
    health_left: dict[str, float]  # each health field's mean over the fights it stood at the end
    stood: float = 1.0  # the share of fights it stood at the end (the fights health_left is the mean of)

    def left_words(self, digits: int = 1) -> str:
        """'HP 6.0 left' in the ruleset's health columns (the mean over the fights it stood at the
        end), or that it never stood."""
        if not self.stood:
            return "down at the end of every fight"
        return ", ".join(f"{k} {v:.{digits}f}" for k, v in self.health_left.items()) + " left"


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

    @property
    def drop_is_death(self) -> bool:
        """Whether dropping and dying came to the same in every fight (Group d10: 0 HP is dead): one
        number then says both. False where the ruleset does not tell dying apart at all."""
        return all(c.die is not None and c.die == c.drop for c in self.combatants) and bool(self.combatants)

    @property
    def tells_death(self) -> bool:
        """Whether dying is worth a number of its own beside dropping."""
        return any(c.die is not None for c in self.combatants) and not self.drop_is_death

    @property
    def drop_words(self) -> str:
        """What a combatant's one number is: 'drops', or 'drops & dies' where the two are the same."""
        return "drops & dies" if self.drop_is_death else "drops"

    def undecided_words(self) -> str:
        """'neither side wins within 40 rounds: 3 %' (what the two sides' wins leave)."""
        return f"neither side wins within {MAX_ROUNDS} rounds: {self.neither:.0%}"

    def verdict(self) -> str:
        """'Party wins 64 % ± 3.0 % · someone drops in 71 % · 3–5 rounds': the one line for the Turns dock."""
        lo, hi = self.rounds_range()
        rounds = f"{lo} round{'s' if lo != 1 else ''}" if lo == hi else f"{lo}–{hi} rounds"
        party = f"Party wins {self.party_wins:.0%} ± {self.margin(self.party_wins):.1%}"
        return f"{party} · someone drops in {self.someone_drops:.0%} · {rounds}"

    def text(self) -> str:
        """The table as plain text: a line per side (and the undecided), then each combatant's chance
        to drop and the health it has left where it stands."""
        lines = [
            f"{self.fights:,} fights, 95 % margins",
            f"Party wins      {100 * self.party_wins:5.1f} % ± {100 * self.margin(self.party_wins):.1f}",
            f"Opponents win   {100 * self.opponents_win:5.1f} % ± {100 * self.margin(self.opponents_win):.1f}",
        ]
        if self.neither:
            lines.append(
                f"Undecided       {100 * self.neither:5.1f} % ± {100 * self.margin(self.neither):.1f}"
                f"  (neither side wins within {MAX_ROUNDS} rounds)"
            )
        lo, hi = self.rounds_range()
        mean = sum(k * p for k, p in self.rounds.items())
        lines.append(f"Rounds left     {mean:5.1f} on average, {lo}-{hi} in 8 fights of 10")
        lines.append("")
        chance = "chance to drop (dropping is dying in these fights)" if self.drop_is_death else "chance to drop"
        lines.append(f"Each one's {chance}{' and to die' if self.tells_death else ''}")
        lines.append(f"Left: {LEFT_MEANS}")
        width = max((len(c.name) for c in self.combatants), default=4)
        for c in self.combatants:
            die = f"  dies {100 * c.die:5.1f} %" if self.tells_death and c.die is not None else ""
            drop = f"{self.drop_words} {100 * c.drop:5.1f} % ± {100 * self.margin(c.drop):.1f}"
            lines.append(f"{c.name:<{width}}  {drop}{die}  ({c.left_words()})")
        return "\n".join(lines)

    def as_json(self) -> str:
        return json.dumps(
            {
                "fights": self.fights,
                "party_wins": self.party_wins,
                "opponents_win": self.opponents_win,
                "neither": self.neither,
                "neither_means": f"neither side wins within {MAX_ROUNDS} rounds",
                "someone_drops": self.someone_drops,
                "margin_95": {"party_wins": self.margin(self.party_wins)},
                "rounds": {str(k): v for k, v in sorted(self.rounds.items())},
                "drop_is_death": self.drop_is_death,
                "health_left_means": LEFT_MEANS,
                "combatants": [
                    {
                        "id": c.id,
                        "name": c.name,
                        "side": c.side,
                        "drop": c.drop,
                        "die": c.die,
                        "health_left": c.health_left,
                        "stood": c.stood,
                    }
                    for c in self.combatants
                ],
            },
            indent=1,
        )


class Tally:
    """The sums :func:`summarise` reads, fed batch by batch: each side's wins, the rounds' counts, who
    dropped and died how often, the health left in all; never a fight's row, so that any number of
    fights is summed in the memory of one batch. Batches added in turn sum to the odds of their
    fights played as one."""

    def __init__(self, field_: Battlefield, health_fields: tuple[str, ...] = ()) -> None:
        self.field = field_
        self.health_fields = health_fields
        self.fights = 0
        self.wins = [0, 0, 0]  # PARTY, OPPONENTS, NEITHER
        self.someone_drops = 0
        self.rounds: list[int] = []  # rounds played -> fights
        self.down = [0] * field_.size
        self.dead = [0] * field_.size
        self.health = [[0.0] * len(health_fields) for _ in range(field_.size)]
        self.stood = [0] * field_.size  # the fights each stood at the end: health is summed over those
        self._party = field_.side == PARTY

    def add(self, outcome: SimOutcome) -> Tally:
        """Count ``outcome``'s fights in."""
        k = self.field.size
        if outcome.down.shape[1:] != (k,):
            raise ValueError(f"an outcome of {outcome.down.shape[1]} combatants for a battlefield of {k}")
        if not self.fights:
            self.health_fields = outcome.health_fields
            self.health = [[0.0] * len(outcome.health_fields) for _ in range(k)]
        elif outcome.health_fields != self.health_fields:
            raise ValueError(f"health {outcome.health_fields} after {self.health_fields}")
        self.fights += outcome.fights
        for side, count in enumerate(np.bincount(outcome.winner, minlength=3)[:3]):
            self.wins[side] += int(count)
        if self._party.any():
            self.someone_drops += int(outcome.down[:, self._party].any(axis=1).sum())
        counts = np.bincount(outcome.rounds, minlength=1)
        self.rounds += [0] * (len(counts) - len(self.rounds))
        for r, count in enumerate(counts):
            self.rounds[r] += int(count)
        for c, (down, dead) in enumerate(zip(outcome.down.sum(axis=0), outcome.dead.sum(axis=0), strict=True)):
            self.down[c] += int(down)
            self.dead[c] += int(dead)
            standing = ~outcome.down[:, c]
            self.stood[c] += int(standing.sum())
            for h in range(len(self.health_fields)):
                self.health[c][h] += float(outcome.health[standing, c, h].sum())
        return self

    def odds(self, tells_death: bool, seconds: float = 0.0) -> FightOdds:
        """The odds of the fights added so far."""
        n = self.fights
        per = max(n, 1)
        f = self.field
        people = tuple(
            CombatantOdds(
                id=cid,
                name=f.names[c],
                side="Party" if f.side[c] == PARTY else "Opponents",
                drop=self.down[c] / per,
                die=self.dead[c] / per if tells_death else None,
                health_left={
                    name: self.health[c][h] / max(self.stood[c], 1) for h, name in enumerate(self.health_fields)
                },
                stood=self.stood[c] / per,
            )
            for c, cid in enumerate(f.ids)
        )
        return FightOdds(
            fights=n,
            party_wins=self.wins[PARTY] / per,
            opponents_win=self.wins[OPPONENTS] / per,
            neither=self.wins[NEITHER] / per,
            someone_drops=self.someone_drops / per,
            rounds={r: count / per for r, count in enumerate(self.rounds) if count},
            combatants=people,
            seconds=seconds,
        )


def summarise(field_: Battlefield, outcome: SimOutcome, tells_death: bool, seconds: float = 0.0) -> FightOdds:
    """The odds of ``outcome``'s fights."""
    return Tally(field_, outcome.health_fields).add(outcome).odds(tells_death, seconds)
