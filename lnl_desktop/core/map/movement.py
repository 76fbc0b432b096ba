"""Movement on the grid: what a step costs, every anchor a token can reach, the cheapest path, a path's cost.

Pure Python plus numpy, no Qt; coordinates as in :mod:`lnl_desktop.core.map.grid`, walls and
barriers as in :mod:`lnl_desktop.core.map.terrain`.

Movement costs are counted in cells and converted to feet at the end. Under the default 5-10-5
rule diagonals alternate between one and two cells, and the alternation carries across a turn's
moves, so the movement search runs over ``(anchor, diagonal parity)`` states: reaching a cell more
cheaply with the "wrong" parity is not necessarily the better way to continue.

Performance: ``reachable`` must stay well under 5 ms for a 120 ft move on a 200 x 200 map. It
works on a window of anchors no farther than the budget allows and relaxes all states at once with
numpy shifts (a bounded Bellman-Ford): a path within budget has at most ``budget / 1 cell`` steps,
so that many sweeps are enough.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

from lnl_desktop.core.map.grid import (
    _EPS,
    Cell,
    ConePredicate,
    DiagonalRule,
    footprint,
    footprint_center,
)
from lnl_desktop.core.map.terrain import Terrain, _footprint_any, _window_slice
from lnl_desktop.lazy import lazy_module

if TYPE_CHECKING:
    import numpy.typing as npt

    from lnl_desktop.core.map.grid import BoolArray, FloatArray

np = lazy_module("numpy")  # imported at first use: the first window needs none of it

_INF = math.inf
# "Unreachable" in int32 cost tables; sums of a few of these still fit in 31 bits.
_BIG = 2**28
_SQRT2 = math.sqrt(2.0)

# (dx, dy) of the 8 neighbours, orthogonals first so path reconstruction prefers straight steps.
_ORTHOGONAL: tuple[tuple[int, int], ...] = ((1, 0), (-1, 0), (0, 1), (0, -1))
_DIAGONAL: tuple[tuple[int, int], ...] = ((1, 1), (-1, 1), (1, -1), (-1, -1))
_STEPS = _ORTHOGONAL + _DIAGONAL


@dataclass(frozen=True)
class MoveRules:
    """How a move is costed and what it may cross."""

    rule: DiagonalRule = DiagonalRule.ALTERNATING
    feet_per_cell: int = 5
    difficult_multiplier: int = 2
    ignore_difficult: bool = False  # a Leap: difficult terrain at normal cost
    pass_over_walls: bool = False  # a Leap: may pass over walls but never END on one

    def __post_init__(self) -> None:
        if self.feet_per_cell <= 0:
            raise ValueError(f"feet_per_cell must be positive, got {self.feet_per_cell}")
        if self.difficult_multiplier < 1:
            raise ValueError(f"difficult_multiplier must be at least 1, got {self.difficult_multiplier}")


def diagonal_steps(path: list[Cell]) -> int:
    """Number of diagonal steps in a path (to carry the 5-10-5 alternation across moves)."""
    return sum(1 for (x0, y0), (x1, y1) in itertools.pairwise(path) if x0 != x1 and y0 != y1)


# --------------------------------------------------------------------------------------------
# Reachability
# --------------------------------------------------------------------------------------------


def _offmap(x0: int, y0: int, w: int, h: int, terrain: Terrain) -> BoolArray:
    out = np.ones((h, w), dtype=np.bool_)
    cx0, cy0 = max(0, x0), max(0, y0)
    cx1, cy1 = min(terrain.width, x0 + w), min(terrain.height, y0 + h)
    if cx0 < cx1 and cy0 < cy1:
        out[cy0 - y0 : cy1 - y0, cx0 - x0 : cx1 - x0] = False
    return out


def _mark(cells: frozenset[Cell], skip: set[Cell], x0: int, y0: int, w: int, h: int) -> BoolArray:
    out = np.zeros((h, w), dtype=np.bool_)
    for x, y in cells:
        if (x, y) not in skip and x0 <= x < x0 + w and y0 <= y < y0 + h:
            out[y - y0, x - x0] = True
    return out


class Reach:
    """Result of :func:`reachable`: cheapest costs to every anchor within the budget.

    Internally a window of anchors (global origin ``_x0, _y0``) padded by one ring of
    unreachable states, with one distance layer per diagonal parity under 5-10-5.
    """

    def __init__(
        self,
        *,
        start: Cell,
        budget_ft: float,
        feet_per_cell: int,
        x0: int,
        y0: int,
        dist: FloatArray,
        ortho_cost: FloatArray,
        diag_cost: FloatArray,
        diag_penalty: dict[tuple[int, int], FloatArray] | None,
        end: BoolArray,
        passable: BoolArray,
        map_width: int,
        map_height: int,
        ortho_penalty: dict[tuple[int, int], FloatArray] | None = None,
    ) -> None:
        self.start = start
        self.budget_ft = budget_ft
        self.feet_per_cell = feet_per_cell
        self._x0 = x0 - 1  # padded index 0 is one ring outside the window
        self._y0 = y0 - 1
        self._dist = dist  # (layers, h + 2, w + 2) cost in cells, inf when beyond budget
        self._best = dist.min(axis=0)
        self._ortho = ortho_cost
        self._diag = diag_cost  # (layers, h + 2, w + 2) by SOURCE layer
        self._penalty = diag_penalty  # inf where a diagonal would squeeze between walls or cross a barrier
        self._ortho_penalty = ortho_penalty  # inf where an orthogonal step would cross a barrier
        self._end = end  # padded bool: legal END anchor
        self._passable = passable  # padded bool: physically enterable (for blocked())
        self._map_w = map_width
        self._map_h = map_height

    # -- lookups ---------------------------------------------------------------------------

    def _index(self, cell: Cell) -> tuple[int, int] | None:
        py, px = cell[1] - self._y0, cell[0] - self._x0
        if 0 <= py < self._best.shape[0] and 0 <= px < self._best.shape[1]:
            return py, px
        return None

    def cost_ft(self, cell: Cell) -> float | None:
        """Cheapest feet to END with the anchor on ``cell``; None if unreachable or illegal.

        The start itself costs 0.
        """
        if cell == self.start:
            return 0.0
        idx = self._index(cell)
        if idx is None or not self._end[idx]:
            return None
        cost = float(self._best[idx])
        if cost == _INF:
            return None
        return cost * self.feet_per_cell

    def cells(self) -> frozenset[Cell]:
        """All legal END anchors within budget, the start excluded."""
        return self._cells

    @cached_property
    def _cells(self) -> frozenset[Cell]:
        ys, xs = np.nonzero(self._end & (self._best < _INF))
        x0, y0 = self._x0, self._y0
        found = frozenset(zip((xs + x0).tolist(), (ys + y0).tolist(), strict=True))
        return found - {self.start}

    def costs_ft(self) -> dict[Cell, float]:
        """Every legal END anchor within budget (start excluded) with its cost in feet."""
        ys, xs = np.nonzero(self._end & (self._best < _INF))
        feet = (self._best[ys, xs] * self.feet_per_cell).tolist()
        x0, y0 = self._x0, self._y0
        out = {(x + x0, y + y0): f for x, y, f in zip(xs.tolist(), ys.tolist(), feet, strict=True)}
        out.pop(self.start, None)
        return out

    def blocked(self) -> frozenset[Cell]:
        """On-map anchors next to the reached area that cannot be entered (wall, enemy, edge)."""
        return self._blocked

    @cached_property
    def _blocked(self) -> frozenset[Cell]:
        reached = self._best < _INF
        near = reached.copy()
        # Dilate by one cell in all 8 directions (the padding ring is never reached).
        near[1:, :] |= reached[:-1, :]
        near[:-1, :] |= reached[1:, :]
        grown = near.copy()
        grown[:, 1:] |= near[:, :-1]
        grown[:, :-1] |= near[:, 1:]
        ys, xs = np.nonzero(grown & ~self._passable)
        x0, y0 = self._x0, self._y0
        return frozenset(
            (x + x0, y + y0)
            for x, y in zip(xs.tolist(), ys.tolist(), strict=True)
            if 0 <= x + x0 < self._map_w and 0 <= y + y0 < self._map_h
        )

    def path_to(self, cell: Cell) -> list[Cell] | None:
        """Cheapest anchors from the start to ``cell`` inclusive; None if not a legal end."""
        if cell == self.start:
            return [self.start]
        if self.cost_ft(cell) is None:
            return None
        idx = self._index(cell)
        assert idx is not None  # cost_ft found it
        py, px = idx
        dist = self._dist
        layers = dist.shape[0]
        layer = int(np.argmin(dist[:, py, px]))
        cost = float(dist[layer, py, px])
        rev: list[Cell] = [cell]
        # Walk back along tight edges: a predecessor state whose cost plus the step equals ours.
        # Every step costs at least one cell, so the cost strictly falls and the walk ends at 0.
        while cost > _EPS:
            step = self._predecessor(py, px, layer, cost, layers)
            if step is None:  # pragma: no cover - would mean an inconsistent distance table
                raise RuntimeError(f"no predecessor for {cell} while rebuilding the path")
            py, px, layer, cost = step
            rev.append((px + self._x0, py + self._y0))
        rev.reverse()
        return rev

    def _predecessor(
        self, py: int, px: int, layer: int, cost: float, layers: int
    ) -> tuple[int, int, int, float] | None:
        dist = self._dist
        step = float(self._ortho[py, px])
        barred = self._ortho_penalty
        for d in _ORTHOGONAL:
            dx, dy = d
            prev = float(dist[layer, py - dy, px - dx])
            extra = 0.0 if barred is None else float(barred[d][py, px])
            if abs(prev + step + extra - cost) <= _EPS:
                return py - dy, px - dx, layer, prev
        # A diagonal flips the parity under 5-10-5 (with one layer, (layers-1) - 0 == 0).
        src_layer = layers - 1 - layer
        penalty = self._penalty
        for d in _DIAGONAL:
            dx, dy = d
            step = float(self._diag[src_layer, py, px])
            if penalty is not None:
                step += float(penalty[d][py, px])
            prev = float(dist[src_layer, py - dy, px - dx])
            if abs(prev + step - cost) <= _EPS:
                return py - dy, px - dx, src_layer, prev
        return None


def _allowed_mask(allowed: Callable[[Cell], bool], candidates: BoolArray, x0: int, y0: int) -> BoolArray:
    """Evaluate ``allowed`` over a window of anchors, vectorised when the predicate can."""
    h, w = candidates.shape
    mask_fn = getattr(allowed, "mask", None)
    if callable(mask_fn):
        return np.asarray(mask_fn(x0, y0, w, h), dtype=np.bool_)
    out = np.zeros((h, w), dtype=np.bool_)
    ys, xs = np.nonzero(candidates)  # only where the footprint is legal: fewer Python calls
    for x, y in zip(xs.tolist(), ys.tolist(), strict=True):
        if allowed((x + x0, y + y0)):
            out[y, x] = True
    return out


def _as_float(costs: npt.NDArray[np.generic], never: float) -> FloatArray:
    out = costs.astype(np.float64)
    out[costs >= never] = _INF
    return out


def _cheapest_source(
    src: Mapping[Cell, npt.NDArray[np.generic]],
    steps: Sequence[Cell],
    penalty: Mapping[Cell, npt.NDArray[np.generic]] | None,
    box: tuple[slice, slice],
) -> npt.NDArray[np.generic]:
    """The cheapest way into each anchor of the box by one of ``steps``, each step's penalty
    (walls squeezed, barriers crossed) added when there is one."""
    if penalty is None:
        best = np.minimum(src[steps[0]], src[steps[1]])
        for d in steps[2:]:
            np.minimum(best, src[d], out=best)
        return best
    best = src[steps[0]] + penalty[steps[0]][box]
    for d in steps[1:]:
        np.minimum(best, src[d] + penalty[d][box], out=best)
    return best


def _relax(
    dist: npt.NDArray[np.generic],
    ortho: npt.NDArray[np.generic],
    diag: npt.NDArray[np.generic],
    penalty: dict[tuple[int, int], npt.NDArray[np.generic]] | None,
    start: tuple[int, int],
    max_sweeps: int,
    ortho_penalty: dict[tuple[int, int], npt.NDArray[np.generic]] | None = None,
) -> None:
    """Bounded Bellman-Ford over all ``(layer, anchor)`` states at once, in place.

    ``dist`` is ``(layers, h + 2, w + 2)`` with an unreachable padding ring; ``ortho`` and
    ``diag[source layer]`` give the cost of stepping INTO each anchor; ``penalty`` (per diagonal
    direction) forbids squeezing between walls and crossing barriers, ``ortho_penalty`` (per
    orthogonal direction) crossing barriers. A diagonal moves to the other layer.
    """
    _, hp, wp = dist.shape
    spy, spx = start
    flipped = dist[::-1]  # target layer of a diagonal; reversing a one-layer axis is a no-op
    sweep = 0
    while sweep < max_sweeps:
        sweep += 1
        # After k sweeps every state whose best path has <= k steps is exact, and such states
        # lie within k cells of the start: relax only that box (cheaper early sweeps).
        ty0, ty1 = max(1, spy - sweep), min(hp - 1, spy + sweep + 1)
        tx0, tx1 = max(1, spx - sweep), min(wp - 1, spx + sweep + 1)
        whole = ty0 == 1 and tx0 == 1 and ty1 == hp - 1 and tx1 == wp - 1
        before = dist.copy() if whole else None

        src = {(dx, dy): dist[:, ty0 - dy : ty1 - dy, tx0 - dx : tx1 - dx] for dx, dy in _STEPS}

        # The cost depends only on the target, so take the cheapest source first: 5 array
        # operations for the 4 orthogonal steps instead of 8.
        box = (slice(ty0, ty1), slice(tx0, tx1))
        best = _cheapest_source(src, _ORTHOGONAL, ortho_penalty, box)
        best += ortho[ty0:ty1, tx0:tx1]
        target = dist[:, ty0:ty1, tx0:tx1]
        np.minimum(target, best, out=target)

        best = _cheapest_source(src, _DIAGONAL, penalty, box)
        best += diag[:, ty0:ty1, tx0:tx1]
        target = flipped[:, ty0:ty1, tx0:tx1]
        np.minimum(target, best, out=target)

        if before is not None and np.array_equal(before, dist):
            break  # converged (only checked once the box covers the window)


def _crossed_steps(
    terrain: Terrain, x0: int, y0: int, w: int, h: int, size: int
) -> dict[tuple[int, int], BoolArray] | None:
    """Per step direction, a padded ``(h + 2, w + 2)`` array over the window's anchors, indexed by
    the step's TARGET: whether a token of ``size`` stepping into it crosses a barrier (any of its
    cells' steps does). None when no barrier bars a step in the window."""
    steps = terrain.barrier_steps
    if steps is None:
        return None
    cw, ch = w + size - 1, h + size - 1
    out: dict[tuple[int, int], BoolArray] = {}
    found = False
    for d in _STEPS:
        dx, dy = d
        from_a = _footprint_any(_window_slice(steps[d], x0, y0, cw, ch, False), size)
        into = np.zeros((h + 2, w + 2), dtype=np.bool_)
        into[1 + dy : h + 1 + dy, 1 + dx : w + 1 + dx] = from_a
        found = found or bool(from_a.any())
        out[d] = into
    return out if found else None


def reachable(
    terrain: Terrain,
    start: Cell,
    size: int,
    budget_ft: float,
    rules: MoveRules = MoveRules(),  # frozen, so a shared default is safe
    *,
    enemies: frozenset[Cell] = frozenset(),
    occupied: frozenset[Cell] = frozenset(),
    allowed: Callable[[Cell], bool] | None = None,
    diagonals_before: int = 0,
) -> Reach:
    """Every anchor a token of ``size`` can end on from ``start`` within ``budget_ft``.

    ``enemies`` cells can be neither entered nor passed; ``occupied`` cells (everyone else,
    allies and enemies) may be passed but not ended on; ``allowed``, when given, must hold for
    every anchor after the start; ``diagonals_before`` carries the 5-10-5 alternation.
    Cells of the mover's own starting footprint never count as enemies or occupied.

    An ``allowed`` predicate may also offer ``mask(x0, y0, width, height)`` returning a
    ``(height, width)`` boolean array for the anchors from ``(x0, y0)`` (as
    :class:`ConePredicate` does); it is then evaluated with numpy instead of once per cell.
    ``budget_ft`` may be ``math.inf`` (a whole-map search, much slower).
    """
    if size < 1:
        raise ValueError(f"token size must be at least 1, got {size}")
    sx, sy = start
    if not (0 <= sx <= terrain.width - size and 0 <= sy <= terrain.height - size):
        raise ValueError(f"start {start} puts a size-{size} token outside the map")
    if math.isnan(budget_ft):
        raise ValueError("budget_ft is NaN")
    feet = rules.feet_per_cell
    budget_cells = max(0.0, budget_ft) / feet + _EPS
    alternating = rules.rule is DiagonalRule.ALTERNATING
    layers = 2 if alternating else 1

    # Every step costs at least one cell, so no path within budget has more steps than this,
    # and no anchor farther than this (Chebyshev) can be reached.
    if math.isinf(budget_cells):
        reach = max(terrain.width, terrain.height)
        max_sweeps = layers * terrain.width * terrain.height  # Bellman-Ford bound
    else:
        reach = int(budget_cells)
        max_sweeps = reach

    # Window of anchors: the reachable square plus one ring, for blocked(); clipped to the map.
    x0 = max(0, sx - reach - 1)
    y0 = max(0, sy - reach - 1)
    x1 = min(terrain.width, sx + reach + 2)
    y1 = min(terrain.height, sy + reach + 2)
    w, h = x1 - x0, y1 - y0
    cw, ch = w + size - 1, h + size - 1  # cells under the window's footprints

    own = set(footprint(start, size))
    offmap_a = _footprint_any(_offmap(x0, y0, cw, ch, terrain), size)
    wall_c = _window_slice(terrain.wall_grid, x0, y0, cw, ch, False)
    wall_a = _footprint_any(wall_c, size)
    enemy_a = _footprint_any(_mark(enemies, own, x0, y0, cw, ch), size)
    occ_a = _footprint_any(_mark(occupied, own, x0, y0, cw, ch), size)

    passable = ~(offmap_a | enemy_a)
    if not rules.pass_over_walls:
        passable &= ~wall_a
    enter = passable
    if allowed is not None:
        enter = passable & _allowed_mask(allowed, passable, x0, y0)
    end = enter & ~wall_a & ~occ_a

    # 5-10-5 and 5-ft diagonals cost whole cells: int32 arithmetic is about twice as fast as
    # float64 on these small arrays. Euclidean costs need floats.
    integral = rules.rule is not DiagonalRule.EUCLIDEAN
    dtype = np.int32 if integral else np.float64
    never: float = _BIG if integral else _INF  # "unreachable" in this dtype

    mult = np.ones((h, w), dtype=dtype)
    if not rules.ignore_difficult and rules.difficult_multiplier != 1 and terrain.difficult:
        diff_a = _footprint_any(_window_slice(terrain.difficult_grid, x0, y0, cw, ch, False), size)
        mult[diff_a] = min(rules.difficult_multiplier, _BIG)  # keep int32 sums from overflowing

    # Padded (h + 2, w + 2) arrays: a ring of impassable states makes every shift a plain slice.
    # A step's cost depends only on the target anchor (and, for diagonals, the parity).
    ortho = np.full((h + 2, w + 2), never, dtype=dtype)
    inner = (slice(1, h + 1), slice(1, w + 1))
    ortho[inner] = np.where(enter, mult, never)
    if alternating:
        # From parity 0 the next diagonal is odd-numbered and costs 1; from parity 1 it costs 2.
        diag = np.stack((ortho, np.minimum(2 * ortho, never)))
    elif integral:
        diag = ortho[np.newaxis]
    else:
        diag = (_SQRT2 * ortho)[np.newaxis]

    crossed = _crossed_steps(terrain, x0, y0, w, h, size)
    penalty: dict[tuple[int, int], npt.NDArray[np.generic]] | None = None
    squeezes = size == 1 and not rules.pass_over_walls and bool(terrain.walls)
    if squeezes or crossed is not None:
        # A diagonal may not squeeze between two walls. For the step into target t along
        # (dx, dy) the squeezed cells are t - (0, dy) and t - (dx, 0).
        ring = _window_slice(terrain.wall_grid, x0 - 1, y0 - 1, w + 2, h + 2, False) if squeezes else None
        penalty = {}
        for dx, dy in _DIAGONAL:
            barred = np.zeros((h + 2, w + 2), dtype=np.bool_)
            if ring is not None:
                barred[inner] = ring[1 - dy : h + 1 - dy, 1 : w + 1] & ring[1 : h + 1, 1 - dx : w + 1 - dx]
            if crossed is not None:
                barred |= crossed[(dx, dy)]
            penalty[(dx, dy)] = np.where(barred, never, 0).astype(dtype)
    # Barriers bar orthogonal steps too, per direction (the cost of a step otherwise depends only
    # on its target, which keeps the common case at one addition per sweep).
    ortho_penalty: dict[tuple[int, int], npt.NDArray[np.generic]] | None = None
    if crossed is not None:
        ortho_penalty = {d: np.where(crossed[d], never, 0).astype(dtype) for d in _ORTHOGONAL}

    dist = np.full((layers, h + 2, w + 2), never, dtype=dtype)
    spy, spx = sy - y0 + 1, sx - x0 + 1
    start_layer = diagonals_before % 2 if alternating else 0
    dist[start_layer, spy, spx] = 0
    _relax(dist, ortho, diag, penalty, (spy, spx), max_sweeps, ortho_penalty)

    # Hand the Reach float tables with inf for "unreachable" and for "beyond the budget".
    distf = dist.astype(np.float64)
    distf[(dist >= never) | (distf > budget_cells)] = _INF
    orthof = _as_float(ortho, never)
    diagf = _as_float(diag, never)
    penaltyf = None if penalty is None else {d: _as_float(p, never) for d, p in penalty.items()}
    ortho_penaltyf = None if ortho_penalty is None else {d: _as_float(p, never) for d, p in ortho_penalty.items()}
    end_p = np.zeros((h + 2, w + 2), dtype=np.bool_)
    end_p[inner] = end
    passable_p = np.zeros((h + 2, w + 2), dtype=np.bool_)
    passable_p[inner] = passable
    return Reach(
        start=start,
        budget_ft=budget_ft,
        feet_per_cell=feet,
        x0=x0,
        y0=y0,
        dist=distf,
        ortho_cost=orthof,
        diag_cost=diagf,
        diag_penalty=penaltyf,
        ortho_penalty=ortho_penaltyf,
        end=end_p,
        passable=passable_p,
        map_width=terrain.width,
        map_height=terrain.height,
    )


def cheapest_path(
    terrain: Terrain,
    start: Cell,
    goal: Cell,
    size: int,
    budget_ft: float,
    rules: MoveRules = MoveRules(),  # frozen, so a shared default is safe
    *,
    enemies: frozenset[Cell] = frozenset(),
    occupied: frozenset[Cell] = frozenset(),
    allowed: Callable[[Cell], bool] | None = None,
    diagonals_before: int = 0,
) -> tuple[list[Cell], float] | None:
    """Cheapest legal path (anchors, start and goal included) to ``goal`` and its cost in feet.

    None when ``goal`` is not a legal end within the budget. Runs the same bounded search as
    :func:`reachable`, so both always agree on the cost.
    """
    reach = reachable(
        terrain,
        start,
        size,
        budget_ft,
        rules,
        enemies=enemies,
        occupied=occupied,
        allowed=allowed,
        diagonals_before=diagonals_before,
    )
    cost = reach.cost_ft(goal)
    path = reach.path_to(goal)
    if cost is None or path is None:
        return None
    return path, cost


def path_cost_ft(
    terrain: Terrain,
    path: list[Cell],
    size: int,
    rules: MoveRules = MoveRules(),  # frozen, so a shared default is safe
    *,
    enemies: frozenset[Cell] = frozenset(),
    occupied: frozenset[Cell] = frozenset(),
    diagonals_before: int = 0,
) -> float:
    """Cost in feet of an explicit path of anchors (e.g. one dragged by the user).

    Raises ValueError naming the offending step if a step is not to an adjacent anchor, leaves
    the map, enters a wall (allowed mid-path only with ``pass_over_walls``), squeezes diagonally
    between two walls, crosses a barrier (naming it), or enters an enemy; also if the path ends
    on a wall or an occupied cell.
    The budget is not checked here: compare the result with what the token has left.
    """
    if not path:
        raise ValueError("path is empty")
    own = set(footprint(path[0], size))
    walls = terrain.walls
    steps = terrain.barrier_steps
    total = 0.0
    diagonals = diagonals_before
    last = len(path) - 1
    for i in range(1, len(path)):
        (ax, ay), (bx, by) = path[i - 1], path[i]
        dx, dy = bx - ax, by - ay
        where = f"step {i} from {path[i - 1]} to {path[i]}"
        if max(abs(dx), abs(dy)) != 1:
            raise ValueError(f"{where} is not a move to an adjacent cell")
        cells = footprint(path[i], size)
        if not all(terrain.inside(c) for c in cells):
            raise ValueError(f"{where} leaves the map")
        if any(c in enemies and c not in own for c in cells):
            raise ValueError(f"{where} enters a cell held by an enemy")
        if any(c in walls for c in cells):
            if i == last:
                raise ValueError(f"{where} ends on a wall")
            if not rules.pass_over_walls:
                raise ValueError(f"{where} enters a wall")
        diagonal = dx != 0 and dy != 0
        if diagonal and size == 1 and not rules.pass_over_walls and (ax + dx, ay) in walls and (ax, ay + dy) in walls:
            raise ValueError(f"{where} squeezes diagonally between two walls")
        if steps is not None:
            for cx, cy in footprint(path[i - 1], size):
                if steps[(dx, dy)][cy, cx]:
                    barrier = terrain.barrier_across((cx, cy), (dx, dy))
                    raise ValueError(f"{where} crosses {barrier.name if barrier else 'a wall'}")
        if not diagonal:
            step = 1.0
        elif rules.rule is DiagonalRule.ALTERNATING:
            step = 1.0 if diagonals % 2 == 0 else 2.0  # odd-numbered diagonals of the turn cost 1
            diagonals += 1
        elif rules.rule is DiagonalRule.FIVE:
            step = 1.0
        else:
            step = _SQRT2
        if not rules.ignore_difficult and any(c in terrain.difficult for c in cells):
            step = step * rules.difficult_multiplier
        total += step
    if last > 0 and any(c in occupied and c not in own for c in footprint(path[-1], size)):
        raise ValueError(f"step {last} from {path[-2]} to {path[-1]} ends on an occupied cell")
    return total * rules.feet_per_cell


def cells_outside_cone(
    terrain: Terrain,
    viewer_anchor: Cell,
    viewer_size: int,
    facing_deg: float,
    fov_deg: float,
    mover_size: int,
) -> ConePredicate:
    """Predicate, usable as ``allowed``, for anchors where the mover is outside the cone.

    ``terrain`` is accepted for symmetry with the other helpers; the cone is pure geometry.
    """
    del terrain  # geometry only
    return ConePredicate(footprint_center(viewer_anchor, viewer_size), facing_deg, fov_deg, mover_size)
