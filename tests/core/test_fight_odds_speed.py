"""The fast paths of the skirmish odds give what the plain ones did: the map's plan measured as arrays
(every reachable cell at once, each pair once), and L&L's damage rolled for every fight's blow in one
search of its attacker's tables laid end to end (blows.Arsenal)."""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

import numpy as np
import pytest

from lnl_desktop.core.engine.engine import Engine
from lnl_desktop.core.map.grid import DiagonalRule, token_distance_ft
from lnl_desktop.core.map.sight import sees
from lnl_desktop.core.rules.fight import MELEE_FT, WHOLE_MAP_FT, token_distances_ft
from lnl_desktop.core.rules.lnl import sim
from lnl_desktop.core.rules.lnl.blows import Arsenal, sample
from lnl_desktop.core.sim.field import battlefield

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import bench_skirmish


@pytest.mark.parametrize("rule", list(DiagonalRule))
def test_distances_from_every_cell_at_once_are_the_token_distances(rule: DiagonalRule) -> None:
    rng = np.random.default_rng(4)
    xs, ys = rng.integers(-3, 30, 400), rng.integers(-3, 30, 400)
    for size, other, fpc in itertools.product((1, 2, 3), (1, 2, 4), (5, 10)):
        fast = token_distances_ft(xs, ys, size, (7, 11), other, rule, fpc)
        plain = [
            token_distance_ft((int(x), int(y)), size, (7, 11), other, rule, fpc) for x, y in zip(xs, ys, strict=True)
        ]
        assert fast.tolist() == plain, (size, other, fpc)


def test_the_maps_plan_is_what_each_pair_measured_alone_gives() -> None:
    encounter = bench_skirmish.skirmish("lnl", walled=True)
    encounter.combatants[0].size = 2  # a large one too: distances between footprints
    engine = Engine(encounter)
    field = battlefield(engine)
    e, k = engine.encounter, field.size
    people = [engine.combatant(cid) for cid in field.ids]
    cells = [e.tokens[c.id].cell for c in people]
    rule, fpc = e.map.diagonal, e.map.feet_per_cell
    for i, j in itertools.product(range(k), range(k)):
        if i == j:
            continue
        a, b = people[i], people[j]
        assert field.dist_ft[i, j] == token_distance_ft(cells[i], a.size, cells[j], b.size, rule, fpc)
        assert field.sees[i, j] == sees(e.map, cells[i], a.size, cells[j], b.size)
    assert not field.sees.all() and field.sees.any()  # the pillars hide some from others
    # The gaps: the cheapest reachable cell within melee reach of the foe, cell by cell.
    for i in (0, 7, 25):
        costs = engine.reach(field.ids[i], WHOLE_MAP_FT).costs_ft()
        for j in np.flatnonzero(field.foes()[i])[:6]:
            b = people[j]
            if token_distance_ft(cells[i], people[i].size, cells[j], b.size, rule, fpc) <= MELEE_FT:
                want = 0.0
            else:
                near = [
                    cost
                    for cell, cost in costs.items()
                    if token_distance_ft(cell, people[i].size, cells[j], b.size, rule, fpc) <= MELEE_FT
                ]
                want = min(near, default=float("inf"))
            assert field.gap_ft[i, j] == want


def test_every_fights_blow_is_rolled_from_its_own_exact_distribution() -> None:
    encounter = bench_skirmish.skirmish("lnl", walled=False)
    engine = Engine(encounter)
    simulator = sim.Simulator(engine.ruleset, encounter, battlefield(engine), np.random.default_rng(1))
    arsenal: Arsenal = simulator.arsenals[0]
    assert len(arsenal.blows) >= 2
    blow = np.random.default_rng(2).integers(0, len(arsenal.blows), 200_000)
    rolled = arsenal.roll(blow, np.random.default_rng(3))
    # The same uniform draws, each searched in its own blow's table (blows.sample's way).
    u = np.random.default_rng(3).random(blow.size)
    for b, one in enumerate(arsenal.blows):
        mine = blow == b
        own = one.values[np.minimum(np.searchsorted(one.cdf, u[mine], side="right"), len(one.values) - 1)]
        assert (rolled[mine] == own).mean() > 0.9999
        assert abs(rolled[mine].mean() - one.mean) < 0.05 * max(one.mean, 1)
        assert set(np.unique(rolled[mine])) <= set(one.values.tolist())
    assert sample(arsenal.blows[0], np.random.default_rng(5), 10).shape == (10,)
