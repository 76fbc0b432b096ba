"""Whole-fight odds, the seam's part: what a ruleset's simulator starts from and hands back.

The rest of the fight is played thousands of times at once, arrays over the fights (numpy), by
each ruleset in its own package (``ruleset.fights.simulate``); the same default tactic is
played one fight at a time through the real engine (``ruleset.fights.play``) as the reference
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
- **Conditions that end by themselves** (RULES §10): each fight counts the durations of the
  conditions a simulator reads as the engine does (:class:`Timers`), and the simulator reads a
  combatant's tables for the set of them ended so far in that fight (:func:`variants`).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
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

# A skirmish, not a battle. 10,000 fights of 60 (30 against 30 on open ground, CPU seconds on the
# 2-core development machine while shared; in brackets the first 500 with the map's plan): L&L 2.2 s
# (0.29 s), L&L Classic 1.7 s (0.23 s), Group d10 2.8 s (0.27 s), Old-School d20 3.9 s (0.57 s): the
# Odds dock's estimate of 500 comes within a second in each, the full count within four.
MOST_FIGHTERS = 60
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


def sides_together(field: Battlefield) -> tuple[Battlefield, IntArray]:
    """``field`` with the Party first and the Opponents after, each side in the roster's order, and
    where each roster index went (``field.ids[c]`` is the new field's ``ids[at[c]]``): a simulator
    that keeps each side's columns together reads and writes a foe's gaps as one slice."""
    order = np.argsort(field.side, kind="stable")
    at: IntArray = np.empty(field.size, dtype=np.int64)
    at[order] = np.arange(field.size)
    prefer = None if field.prefer is None else np.where(field.prefer >= 0, at[np.maximum(field.prefer, 0)], -1)[order]
    grouped = Battlefield(
        ids=tuple(field.ids[c] for c in order),
        names=tuple(field.names[c] for c in order),
        side=field.side[order],
        standing=field.standing[order],
        gap_ft=field.gap_ft[np.ix_(order, order)],
        dist_ft=field.dist_ft[np.ix_(order, order)],
        sees=field.sees[np.ix_(order, order)],
        move_ft=field.move_ft[order],
        prefer=prefer,
        modes=None if field.modes is None else tuple(field.modes[c] for c in order),
        retreating=None if field.retreating is None else field.retreating[order],
    )
    return grouped, at


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

    def columns(self, at: IntArray) -> SimOutcome:
        """The outcome with column ``c`` taken from column ``at[c]`` (back to the roster's order after
        :func:`sides_together`)."""
        return replace(self, down=self.down[:, at], dead=self.dead[:, at], health=self.health[:, at])


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
    ok = fights & (target >= 0) & (mover >= 0)
    out: FloatArray = np.zeros(gap.shape[0])
    rows = np.flatnonzero(ok)
    if rows.size:
        out[rows] = close_in_rows(gap, rows, mover[rows], target[rows], np.broadcast_to(feet, ok.shape)[rows])
    return out


def close_in_rows(gap: FloatArray, rows: IntArray, mover: Any, target: IntArray, feet: Any) -> FloatArray:
    """:func:`close_in` in the fights ``rows`` only (indices, each once), ``mover`` one index or one
    per row, every ``target`` a combatant: only those fights' gaps are read and written."""
    current = gap[rows, mover, target]
    # feet as float64: a Move past float32's range (an extreme sheet) is no overflow, just all the way.
    moved: FloatArray = np.where(np.isfinite(current), np.minimum(current, np.asarray(feet, np.float64)), 0.0)
    gap[rows, mover, target] = current - moved
    gap[rows, target, mover] = np.maximum(gap[rows, target, mover] - moved, 0.0)
    return moved


def close_in_at(gap: FloatArray, ij: IntArray, ji: IntArray, feet: Any) -> FloatArray:
    """:func:`close_in` on a flat view of the gaps: ``ij`` the mover-to-target entries (each once),
    ``ji`` the target-to-mover ones. The fast path of a simulator that keeps its pairs' flat indices."""
    current = gap[ij]
    # feet as float64: a Move past float32's range (an extreme sheet) is no overflow, just all the way.
    moved: FloatArray = np.where(np.isfinite(current), np.minimum(current, np.asarray(feet, np.float64)), 0.0)
    gap[ij] = current - moved
    gap[ji] = np.maximum(gap[ji] - moved, 0.0)
    return moved


def melee_gaps(engine: Any, cid: str, foes: list[Any]) -> list[float]:
    """How far ``cid`` must move (walls, doors, difficult ground and the tokens in its way counted) to
    stand in melee reach of each of ``foes``: 0 when in reach now, inf when it cannot get there. The
    measure :class:`Battlefield` keeps and a reference moving for real asks again."""
    e = engine.encounter
    c = engine.combatant(cid)
    rule, fpc = e.map.diagonal, e.map.feet_per_cell
    here = e.tokens[cid].cell
    cells: Any = None  # every cell it reaches (x, y) and its cost, as arrays: one pass per foe, not a loop
    out: list[float] = []
    for f in foes:
        there = e.tokens[f.id].cell
        if token_distance_ft(here, c.size, there, f.size, rule, fpc) <= MELEE_FT:
            out.append(0.0)
            continue
        if cells is None:
            costs = engine.reach(cid, WHOLE_MAP_FT).costs_ft()
            cells = (
                np.fromiter((a[0] for a in costs), dtype=np.int64, count=len(costs)),
                np.fromiter((a[1] for a in costs), dtype=np.int64, count=len(costs)),
                np.fromiter(costs.values(), dtype=np.float64, count=len(costs)),
            )
        xs, ys, feet = cells
        near = token_distances_ft(xs, ys, c.size, there, f.size, rule, fpc) <= MELEE_FT
        out.append(float(feet[near].min()) if near.any() else float("inf"))
    return out


def token_distances_ft(
    xs: Any, ys: Any, size: int, there: tuple[int, int], there_size: int, rule: Any, fpc: int
) -> Any:
    """:func:`token_distance_ft` from a token of ``size`` anchored at each of (``xs``, ``ys``) to one
    anchored at ``there``: the same feet, as an array (the map's plan asks it for every reachable cell)."""
    from lnl_desktop.core.map.grid import DiagonalRule

    gx = np.maximum(0, np.maximum(there[0] - (xs + size - 1), xs - (there[0] + there_size - 1)))
    gy = np.maximum(0, np.maximum(there[1] - (ys + size - 1), ys - (there[1] + there_size - 1)))
    diagonals = np.minimum(gx, gy)
    straight = np.maximum(gx, gy) - diagonals
    if rule is DiagonalRule.EUCLIDEAN:
        adjacent = (gx <= 1) & (gy <= 1)
        return np.where(adjacent, np.maximum(gx, gy) * float(fpc), np.hypot(gx, gy) * fpc)
    if rule is DiagonalRule.FIVE:
        return ((straight + diagonals) * fpc).astype(np.float64)
    return ((straight + diagonals + diagonals // 2) * fpc).astype(np.float64)


def approach_path(engine: Any, cid: str, target: str, reach_ft: float = MELEE_FT) -> list[tuple[int, int]] | None:
    """How the default tactic moves ``cid`` this turn to close on ``target`` through the engine
    (the reference; apply it as ``Move(cid, path=...)``): of the cells it can still reach, the one
    nearest the target (RULES §4's token distance), the cheaper of two equally near, by a path that
    provokes nobody; None when it stands as near as it can get. Any cell within ``reach_ft`` (a reach
    weapon's 10 ft) counts as near as the target: the cheapest of those, so a pike stops at its reach."""
    e = engine.encounter
    c, t = engine.combatant(cid), engine.combatant(target)
    here, there = e.tokens[cid].cell, e.tokens[target].cell
    rule, fpc = e.map.diagonal, e.map.feet_per_cell

    def near(cell: tuple[int, int]) -> float:
        feet = token_distance_ft(cell, c.size, there, t.size, rule, fpc)
        return max(feet, float(reach_ft)) if reach_ft > MELEE_FT else feet

    stay = (near(here), 0.0, here)
    reach = engine.reach(cid)
    closer = sorted(key for cell, cost in reach.costs_ft().items() if (key := (near(cell), cost, cell)) < stay)
    # The tactic never provokes a counter-attack or a free attack (the fast simulator has none): the
    # nearest cell whose cheapest path passes out of no foe's reach, of the first few.
    for key in closer[:PATHS_TRIED]:
        path = reach.path_to(key[2])
        if path is not None and not engine.ruleset.movement.provocations(engine, cid, path):
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


# -- conditions that end by themselves (RULES §10 "How long a condition lasts") ----------------------

ROUNDS, NEXT_TURN_END, TURN_START_OF, SAVE = 0, 1, 2, 3  # Timed.kind
# Timed conditions a simulator follows per combatant: its tables are worked out for each set of them
# that may have ended (2**4 = 16 at most); a fifth one and more last the whole fight in the odds.
MOST_TIMED = 4


@dataclass(frozen=True)
class Timed:
    """A condition of combatant ``owner`` (its index) that ends by itself, as the simulator counts it."""

    owner: int
    condition: str  # as written in its conditions
    kind: int  # ROUNDS, NEXT_TURN_END, TURN_START_OF or SAVE
    rounds: int = 0  # ROUNDS: how many ends of its turns are left
    skip: bool = False  # given during its own turn: the end of that turn does not count
    ender: int = -1  # TURN_START_OF: whose turn's start ends it (its index; -1: the next turn's, whoever's)
    save: float = 0.0  # SAVE: the chance its save at the end of a turn ends it


def timed_conditions(
    field: Battlefield, people: list[Any], matters: Any, save_chance: Any
) -> tuple[list[list[str]], list[Timed]]:
    """The conditions of ``people`` (the field's combatants, in its order) that have a duration and
    that the simulator reads (``matters(word)``), at most :data:`MOST_TIMED` each: each one's names,
    and all of them as :class:`Timed`. ``save_chance(c, duration)``: the ruleset's chance a save ends it.

    As the engine counts them (core.engine.conditions): "until the start of X's next turn" ends when
    X's turn starts, or at any turn's start once X is down. X off the map (or down already) is taken
    to end it at the next turn's start: the simulator plays no turn of one off the map."""
    from lnl_desktop.core.encounter.model import DurationKind

    names: list[list[str]] = []
    out: list[Timed] = []
    for i, c in enumerate(people):
        mine: list[str] = []
        for condition in c.conditions:
            d = c.durations.get(condition)
            if d is None or not matters(condition) or len(mine) >= MOST_TIMED:
                continue
            mine.append(condition)
            skip = bool(getattr(d, "given_in_its_turn", False))
            if d.kind is DurationKind.ROUNDS:
                out.append(Timed(i, condition, ROUNDS, rounds=int(d.rounds or 1), skip=skip))
            elif d.kind is DurationKind.END_OF_NEXT_TURN:
                out.append(Timed(i, condition, NEXT_TURN_END, skip=skip))
            elif d.kind is DurationKind.START_OF_TURN_OF:
                ender = field.ids.index(d.creature) if d.creature in field.ids else -1
                out.append(
                    Timed(i, condition, TURN_START_OF, ender=ender if ender >= 0 and field.standing[ender] else -1)
                )
            else:
                out.append(Timed(i, condition, SAVE, skip=skip, save=float(save_chance(c, d))))
        names.append(mine)
    return names, out


def variants(c: Any, timed: list[str]) -> list[Any]:
    """``c`` as it stands once each set of its ``timed`` conditions has ended: entry ``v`` lacks the
    conditions whose bit is set in ``v`` (entry 0 is ``c`` itself)."""
    out = [c]
    for v in range(1, 2 ** len(timed)):
        gone = {timed[b] for b in range(len(timed)) if v >> b & 1}
        out.append(c.model_copy(update={"conditions": [w for w in c.conditions if w not in gone]}))
    return out


class Timers:
    """Each fight's timed conditions (:class:`Timed`), a row per fight: counted at the end of their
    owner's turns, rolled for, ended at the start of a named creature's turn. :meth:`variant` tells
    which of a combatant's timed conditions have ended in each fight (the bits of :func:`variants`).
    With no timed conditions every method returns at once: the fights cost what they did."""

    def __init__(self, timed: list[Timed], k: int, n: int) -> None:
        self.timed = timed
        self.any = bool(timed)
        self.owner = np.array([t.owner for t in timed], dtype=np.int64)
        self.bit = np.zeros(len(timed), dtype=np.int64)
        self.mine: list[list[int]] = [[] for _ in range(k)]
        self.starts = [x for x, t in enumerate(timed) if t.kind == TURN_START_OF]
        for x, t in enumerate(timed):
            self.bit[x] = len(self.mine[t.owner])
            self.mine[t.owner].append(x)
        self.count = max((len(m) for m in self.mine), default=0)
        self.width = 2**self.count  # variants per combatant in a ruleset's tables
        self.left = np.tile(np.array([t.rounds for t in timed], dtype=np.int64), (n, 1))
        self.skip = np.tile(np.array([t.skip for t in timed], dtype=np.bool_), (n, 1))
        self.on = np.ones((n, len(timed)), dtype=np.bool_)

    def keep(self, rows: Any) -> None:
        if self.any:
            self.left, self.skip, self.on = self.left[rows], self.skip[rows], self.on[rows]

    def variant(self, rows: Any, who: Any) -> IntArray:
        """[len(rows)]: the ended bits of ``who``'s timed conditions (one index, or one per row)."""
        n = self.on[rows].shape[0]
        out = np.zeros(n, dtype=np.int64)
        if not self.any:
            return out
        for x, t in enumerate(self.timed):
            owned = who == t.owner
            if np.ndim(owned) == 0 and not owned:
                continue
            out += (owned & ~self.on[rows, x]).astype(np.int64) << self.bit[x]
        return out

    def turn_starts(self, rows: Any, who: Any, down: BoolArray) -> None:
        """``who``'s turn starts in ``rows``: the conditions that last until then end, and those
        lasting until the start of the turn of one who is down (``down`` [n, k], all rows)."""
        if not self.any:
            return
        idx = np.flatnonzero(rows) if np.asarray(rows).dtype == np.bool_ else np.asarray(rows)
        for x in self.starts:
            ender = self.timed[x].ender
            if ender < 0:
                self.on[idx, x] = False
                continue
            ends = (np.asarray(who) == ender) | down[idx, ender]
            self.on[idx[ends], x] = False

    def turn_ends(self, rows: Any, who: Any, rng: Any) -> None:
        """``who``'s turn ends in ``rows``: its rounds counted down, its next turn's end reached, its saves rolled."""
        if not self.any:
            return
        for x in self._of(self.mine, who):
            t = self.timed[x]
            sel = self._rows(rows, who, t.owner)
            if sel.size == 0:
                continue
            counts = self.on[sel, x] & ~self.skip[sel, x]
            if t.kind == ROUNDS:
                self.left[sel, x] -= counts
                self.on[sel, x] &= self.left[sel, x] > 0
            elif t.kind == NEXT_TURN_END:
                self.on[sel, x] &= ~counts
            elif t.kind == SAVE:
                self.on[sel, x] &= ~(counts & (rng.random(sel.size) < t.save))
            self.skip[sel, x] = False

    @staticmethod
    def _of(table: list[list[int]], who: Any) -> list[int]:
        if np.ndim(who) == 0:
            return table[int(who)]
        return [x for i in np.unique(who) for x in table[int(i)]]

    @staticmethod
    def _rows(rows: Any, who: Any, owner: int) -> IntArray:
        """The fights of ``rows`` (indices or a mask) whose turn is ``owner``'s, as indices."""
        idx = np.flatnonzero(rows) if np.asarray(rows).dtype == np.bool_ else np.asarray(rows)
        if np.ndim(who) == 0:
            return idx if int(who) == owner else idx[:0]
        out: IntArray = idx[np.asarray(who) == owner]
        return out


# -- the simulators step aside while the GM acts ------------------------------------------------------
#
# The window plays the fight odds on a worker thread of its own interpreter (ui.plumbing.fight_odds).
# While the worker runs Python, the GUI thread waits for the interpreter's lock at every call it makes
# into Qt or numpy, up to the lock's 5 ms switch interval each time: a Party move on a map beside a
# running worker took 25-32 ms instead of 9. So the window holds the simulators' turns while the GM
# acts (a button held, an action just made) and lets them go when the table is quiet; the simulators
# wait at each turn and batch (:func:`turn_boundary`), and a worker whose odds are no longer wanted
# (the table changed) stops there.

_turns_free = threading.Event()
_turns_free.set()
_worker = threading.local()  # the stop event of the odds the current worker plays, if any
LONGEST_WAIT_S = 1.0  # a turn waits at most this long: odds that never finish are worse than a slow frame


class Stopped(Exception):
    """The odds being worked out are no longer wanted (a newer state of the table was asked for)."""


def hold_turns() -> None:
    """The GM is acting: workers wait at their next turn (the GUI thread's own runs never do)."""
    _turns_free.clear()


def let_turns() -> None:
    """The table is quiet: workers go on."""
    _turns_free.set()


def turns_held() -> bool:
    return not _turns_free.is_set()


def turn_boundary() -> None:
    """Where a simulator may wait: between turns and batches. On a worker, wait while the GM acts (at
    most :data:`LONGEST_WAIT_S`), and raise :class:`Stopped` when its odds are no longer wanted."""
    if threading.current_thread() is threading.main_thread():
        return
    stop = getattr(_worker, "stop", None)
    if not _turns_free.is_set() and not (stop is not None and stop.is_set()):
        _turns_free.wait(LONGEST_WAIT_S)
    if stop is not None and stop.is_set():
        raise Stopped


@contextmanager
def stopping_on(stop: threading.Event) -> Iterator[None]:
    """On a worker: the simulators it runs stop at their next turn once ``stop`` is set."""
    _worker.stop = stop
    try:
        yield
    finally:
        _worker.stop = None
