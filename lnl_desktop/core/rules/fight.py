"""Whole-fight odds, the seam's part: what a ruleset's simulator starts from and hands back.

The rest of the fight is played thousands of times at once, arrays over the fights (numpy), by
each ruleset in its own package (:meth:`Ruleset.simulate_fights`); the same default tactic is
played one fight at a time through the real engine (:meth:`Ruleset.play_fight`) as the reference
the fast simulator must agree with. Both move by the same plan of the map, worked out once from
the table's state (:class:`Battlefield`, built by :mod:`lnl_desktop.core.sim.field`):

- **The default tactic** (docs/RULESETS.md words it per ruleset): a standing combatant picks the
  nearest foe still standing — the fewest feet of movement to stand in melee reach of it (ties: the
  first in the roster) — and closes on it by up to its Move, then attacks it with its best weapon if
  in reach. A combatant already in melee reach of a standing foe does not move (it never provokes
  a counter-attack or a free attack by leaving). A ranged attacker with a foe in sight, within its
  range and at least 10 ft away shoots from where it stands instead. A ruleset's own choices (power
  attacks, parries, sneak attacks, called shots) are off.
- **Movement by gaps.** ``gap[i, j]`` is how far ``i`` must move to stand in melee reach of ``j``
  (walls, closed doors and difficult ground counted, other tokens not). When ``i`` moves ``m`` feet
  towards ``j`` both ``gap[i, j]`` and ``gap[j, i]`` shrink by ``m``; the gaps to everyone else stay.
  The engine reference moves a token for real, to the reachable cell nearest its target: on the
  demo maps, where foes meet in a round or two, the two agree within the test's tolerance.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Literal

from lnl_desktop.core.map.grid import token_distance_ft
from lnl_desktop.lazy import lazy_module

if TYPE_CHECKING:
    import numpy as _numpy
    import numpy.typing as npt

    FloatArray = npt.NDArray[_numpy.float64]
    BoolArray = npt.NDArray[_numpy.bool_]
    IntArray = npt.NDArray[_numpy.int64]

np = lazy_module("numpy")

MOST_FIGHTERS = 40  # the odds play skirmishes, not battles: beyond this a state's plan alone takes seconds
MELEE_FT = 5  # RULES §4: melee reaches the adjacent cells
WHOLE_MAP_FT = 100_000.0  # a movement budget no path on any map reaches: every cell's cost
PATHS_TRIED = 40  # the reference's move: cells tried for a path that provokes nobody
MAX_ROUNDS = 40  # a fight not over by then counts as neither side's win
PARTY, OPPONENTS, NEITHER = 0, 1, 2  # SimOutcome.winner


@dataclass(frozen=True)
class Battlefield:
    """The table's state as the simulator starts from it: who fights (in the roster's order: index
    ``k`` is ``ids[k]``), on which side, who stands now, and the map's distances between them."""

    ids: tuple[str, ...]
    names: tuple[str, ...]
    side: IntArray  # [k]: PARTY or OPPONENTS
    standing: BoolArray  # [k]: not down now (a down combatant takes no turn)
    gap_ft: FloatArray  # [k, k]: feet i must move to stand in melee reach of j; 0 in reach; inf never
    dist_ft: FloatArray  # [k, k]: the token distance now (RULES §4), for ranged attacks
    sees: BoolArray  # [k, k]: whether i sees j now (walls and closed doors)
    move_ft: FloatArray  # [k]: each one's Move this round
    # The what-if's pinned plans (:class:`Plan`): a foe to attack first (its index; -1: the nearest), a mode
    # of the ruleset's own for that attack ("" the default), and who retreats (out at once: no turn, not down).
    prefer: IntArray | None = None  # [k]
    modes: tuple[str, ...] | None = None  # [k]
    retreating: BoolArray | None = None  # [k]

    @property
    def size(self) -> int:
        return len(self.ids)

    def index(self, cid: str) -> int:
        return self.ids.index(cid)

    def foes(self) -> BoolArray:
        """[k, k]: whether j is i's foe."""
        out: BoolArray = self.side[:, None] != self.side[None, :]
        return out


@dataclass(frozen=True)
class Plan:
    """A plan the GM pins for one combatant instead of the default tactic (the odds' what-if):
    ``attack`` a chosen foe until it drops (then the nearest), in a ruleset's own ``mode`` if given
    ("sneak attack"); or ``retreat``: it leaves the fight at once (no more turns, neither down nor dead)."""

    combatant: str
    kind: Literal["attack", "retreat"]
    target: str = ""
    mode: str = ""

    def words(self, names: Mapping[str, str]) -> str:
        """'Tombril retreats', 'Cedryk sneak attacks the Half-orc first'."""
        who = names.get(self.combatant, self.combatant)
        if self.kind == "retreat":
            return f"{who} retreats"
        how = self.mode or "attacks"
        how = f"{how}s" if self.mode and not self.mode.endswith("s") else how
        return f"{who} {how} {names.get(self.target, self.target)} first"


def with_plans(field: Battlefield, plans: tuple[Plan, ...]) -> Battlefield:
    """``field`` with the GM's pinned plans (ValueError naming one that cannot be)."""
    if not plans:
        return field
    k = field.size
    prefer = np.full(k, -1, dtype=np.int64)
    modes = [""] * k
    retreating = np.zeros(k, dtype=np.bool_)
    for plan in plans:
        if plan.combatant not in field.ids:
            raise ValueError(f"{plan.combatant!r} is not on the map")
        i = field.index(plan.combatant)
        if plan.kind == "retreat":
            retreating[i] = True
            continue
        if plan.target not in field.ids or field.side[field.index(plan.target)] == field.side[i]:
            raise ValueError(f"{field.names[i]} cannot attack {plan.target!r}: not a foe on the map")
        prefer[i] = field.index(plan.target)
        modes[i] = plan.mode
    return replace(field, prefer=prefer, modes=tuple(modes), retreating=retreating)


@dataclass
class SimOutcome:
    """What ``fights`` simulated fights ended in, one row per fight, one column per combatant
    (:attr:`Battlefield.ids`' order): who won, after how many rounds (counted from the table's
    round), who went down and who died (where the ruleset tells the two apart), and each one's
    health left in ``health_fields`` (SP and IP, or HP)."""

    winner: IntArray  # [n]: PARTY, OPPONENTS or NEITHER
    rounds: IntArray  # [n]: the rounds it lasts from the table's round on, that one included (from round 1 in setup)
    down: BoolArray  # [n, k]
    dead: BoolArray  # [n, k]
    health: FloatArray  # [n, k, h]
    health_fields: tuple[str, ...]  # what the h columns are: ("SP", "IP") or ("HP",)

    @property
    def fights(self) -> int:
        return int(self.winner.shape[0])


def empty_outcome(fights: int, k: int, health_fields: tuple[str, ...]) -> SimOutcome:
    """An outcome to fill: nobody down, nobody won, no rounds played."""
    return SimOutcome(
        winner=np.full(fights, NEITHER, dtype=np.int64),
        rounds=np.zeros(fights, dtype=np.int64),
        down=np.zeros((fights, k), dtype=np.bool_),
        dead=np.zeros((fights, k), dtype=np.bool_),
        health=np.zeros((fights, k, len(health_fields)), dtype=np.float64),
        health_fields=health_fields,
    )


def nearest_foes(gap: FloatArray, standing: BoolArray, foes: BoolArray, prefer: IntArray | None = None) -> IntArray:
    """[n, k]: each combatant's target in each fight, the standing foe with the smallest gap (ties:
    the first in the roster); -1 where no foe stands. ``gap`` [n, k, k], ``standing`` [n, k]; with
    ``prefer`` (:attr:`Battlefield.prefer`) a pinned foe first, while it stands."""
    candidates = foes[None, :, :] & standing[:, None, :]
    masked = np.where(candidates, gap, np.inf)
    out: IntArray = np.where(candidates.any(axis=2), masked.argmin(axis=2), -1)
    if prefer is not None and (prefer >= 0).any():
        pinned = np.where(prefer >= 0, prefer, 0)
        keep = (prefer >= 0)[None, :] & np.take_along_axis(standing, np.broadcast_to(pinned, standing.shape), axis=1)
        out = np.where(keep, pinned[None, :], out)
    return out


def close_in(gap: FloatArray, mover: IntArray, target: IntArray, feet: FloatArray, fights: BoolArray) -> FloatArray:
    """Move each ``mover`` (its index, one per fight) towards its ``target`` by up to ``feet`` in the
    fights where ``fights`` is set: both gaps of the pair shrink by the feet moved. Returns the feet
    moved per fight (the gap is left at 0 when the mover gets there)."""
    n = gap.shape[0]
    rows = np.arange(n)
    ok = fights & (target >= 0) & (mover >= 0)
    t = np.where(ok, target, 0)
    m = np.where(ok, mover, 0)
    current = gap[rows, m, t]
    moved = np.where(ok & np.isfinite(current), np.minimum(current, feet), 0.0)
    gap[rows, m, t] = np.where(ok, current - moved, current)
    gap[rows, t, m] = np.where(ok, np.maximum(gap[rows, t, m] - moved, 0.0), gap[rows, t, m])
    out: FloatArray = moved
    return out


def melee_gaps(engine: Any, cid: str, foes: list[Any]) -> list[float]:
    """How far ``cid`` must move (walls, doors, difficult ground and the tokens in its way counted) to
    stand in melee reach of each of ``foes``: 0 when in reach now, inf when it cannot get there. The
    measure :class:`Battlefield` keeps and a reference moving for real asks again."""
    e = engine.encounter
    c = engine.combatant(cid)
    rule, fpc = e.map.diagonal, e.map.feet_per_cell
    here = e.tokens[cid].cell
    costs: dict[tuple[int, int], float] | None = None
    out: list[float] = []
    for f in foes:
        there = e.tokens[f.id].cell
        if token_distance_ft(here, c.size, there, f.size, rule, fpc) <= MELEE_FT:
            out.append(0.0)
            continue
        if costs is None:
            costs = engine.reach(cid, WHOLE_MAP_FT).costs_ft()
        out.append(
            min(
                (
                    cost
                    for a, cost in costs.items()
                    if token_distance_ft(a, c.size, there, f.size, rule, fpc) <= MELEE_FT
                ),
                default=float("inf"),
            )
        )
    return out


def approach_path(engine: Any, cid: str, target: str) -> list[tuple[int, int]] | None:
    """How the default tactic moves ``cid`` this turn to close on ``target`` through the engine
    (the reference; apply it as ``Move(cid, path=...)``): of the cells it can still reach, the one
    nearest the target (RULES §4's token distance), the cheaper of two equally near, by a path that
    provokes nobody; None when it stands as near as it can get."""
    e = engine.encounter
    c, t = engine.combatant(cid), engine.combatant(target)
    here, there = e.tokens[cid].cell, e.tokens[target].cell
    rule, fpc = e.map.diagonal, e.map.feet_per_cell
    stay = (token_distance_ft(here, c.size, there, t.size, rule, fpc), 0.0, here)
    reach = engine.reach(cid)
    closer = sorted(
        key
        for cell, cost in reach.costs_ft().items()
        if (key := (token_distance_ft(cell, c.size, there, t.size, rule, fpc), cost, cell)) < stay
    )
    # The tactic never provokes a counter-attack or a free attack (the fast simulator has none): the
    # nearest cell whose cheapest path passes out of no foe's reach, of the first few.
    for key in closer[:PATHS_TRIED]:
        path = reach.path_to(key[2])
        if path is not None and not engine.ruleset.provocations(engine, cid, path):
            return path
    return None


def pin(field: Battlefield, actor: Any, target: IntArray, standing: BoolArray) -> IntArray:
    """``target`` (each fight's pick for ``actor``: one index, or one per fight) with the GM's pinned
    foe (:attr:`Battlefield.prefer`) instead while it stands; ``standing`` [n, k] for the same fights."""
    if field.prefer is None:
        return target
    p = np.broadcast_to(field.prefer[actor], target.shape)
    pj = np.where(p >= 0, p, 0)
    ok = (p >= 0) & standing[np.arange(target.shape[0]), pj]
    out: IntArray = np.where(ok, pj, target)
    return out
