"""Whether the fast simulator agrees with its engine reference (core.sim.reference): each side's
chance to win and each combatant's chance to drop, seen in two independent samples, must differ by
no more than chance explains — ``z`` standard errors of the difference — plus a small ``slack``
for what the simulator's movement by gaps leaves out (core.rules.fight)."""

from __future__ import annotations

import math

from lnl_desktop.core.sim.odds import FightOdds

Z = 4.0  # standard errors: a false alarm about once in 16,000 comparisons
SLACK = 0.03  # three percentage points


def _differs(name: str, a: float, n: int, b: float, m: int, z: float, slack: float) -> str | None:
    pooled = (a * n + b * m) / (n + m)
    se = math.sqrt(max(pooled * (1 - pooled), 1e-12) * (1 / n + 1 / m))
    allowed = z * se + slack
    if abs(a - b) <= allowed:
        return None
    return f"{name}: {a:.1%} fast vs {b:.1%} through the engine (allowed ± {allowed:.1%})"


def disagreements(fast: FightOdds, reference: FightOdds, z: float = Z, slack: float = SLACK) -> list[str]:
    """What the two disagree on, a line each; empty when they agree."""
    n, m = fast.fights, reference.fights
    out = [
        _differs("Party wins", fast.party_wins, n, reference.party_wins, m, z, slack),
        _differs("Opponents win", fast.opponents_win, n, reference.opponents_win, m, z, slack),
    ]
    ref = {c.id: c for c in reference.combatants}
    for c in fast.combatants:
        r = ref.get(c.id)
        if r is not None:
            out.append(_differs(f"{c.name} drops", c.drop, n, r.drop, m, z, slack))
    return [line for line in out if line]
