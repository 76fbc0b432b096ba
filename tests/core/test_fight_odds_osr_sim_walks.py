"""Old-School d20's fight simulator finishes a side's walks (the foe's gap to the mover, the pair's
distance, the foe's kept nearest) once that side's members have all taken their turns, not in each
turn: the odds must be those of walks finished in their own turns, to the last digit, on open ground
and behind walls; of several movers on one foe only the nearest may become its nearest, as one walk
after another would leave it; and a morale check's two dice drawn at once are the two drawn apart."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from lnl_desktop.core.encounter.map_model import WallSegment
from lnl_desktop.core.files.storage import load
from lnl_desktop.core.rules.fight import Plan
from lnl_desktop.core.rules.osr import sim
from lnl_desktop.core.sim import run
from lnl_desktop.paths import resource

pytestmark = pytest.mark.timeout(120)


def demo() -> Any:
    return load(resource("encounters", "goblin-ambush-osr.lnl"))


def walled() -> Any:
    """The demo with a wall between the two sides, broken by a doorway, and pillars round the goblins:
    they walk round to their foes (longer gaps than the straight line, more turns of walking)."""
    encounter = demo()
    wall = [WallSegment(a=(11, y), b=(11, y + 1)) for y in range(16) if y not in (12, 13)]
    pillars = []
    for x, y in ((13, 7), (16, 5), (12, 3), (19, 9)):
        corners = [(x, y), (x + 1, y), (x + 1, y + 1), (x, y + 1)]
        pillars += [WallSegment(a=corners[n], b=corners[(n + 1) % 4]) for n in range(4)]
    grid = encounter.map.model_copy(update={"segments": tuple(wall + pillars)})
    return encounter.model_copy(update={"map": grid})


@pytest.mark.parametrize("table", [demo, walled], ids=["open", "walled"])
def test_walks_put_off_give_the_odds_of_walks_finished_in_their_turns(
    table: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    encounter = table()
    finished: dict[str, int] = {"walks": 0}
    flush = sim._Fights.flush

    def counted(self: sim._Fights) -> None:
        finished["walks"] += sum(len(part[0]) for part in self.pending or [])
        flush(self)

    monkeypatch.setattr(sim._Fights, "flush", counted)
    put_off = run.fight_odds(encounter, 3000, seed=12)
    assert finished["walks"] > 3000  # the walks were put off: the path under test was taken
    monkeypatch.setattr(sim, "PUT_OFF", False)
    finished["walks"] = 0
    in_turn = run.fight_odds(encounter, 3000, seed=12)
    assert finished["walks"] == 0
    assert put_off.as_json() == in_turn.as_json()


def test_walks_finished_early_when_many_wait_give_the_same_odds(monkeypatch: pytest.MonkeyPatch) -> None:
    # At 10,000 fights a side's walks are finished every few turns (the memory of a few turns' walks).
    whole = run.fight_odds(walled(), 3000, seed=8)
    monkeypatch.setattr(sim, "WAITING", 50)
    assert run.fight_odds(walled(), 3000, seed=8).as_json() == whole.as_json()


def test_a_pinned_foe_walks_in_its_own_turn_with_the_same_odds(monkeypatch: pytest.MonkeyPatch) -> None:
    # A pinned plan changes the mover's own kept nearest as it walks: nothing is put off then.
    plans = (Plan("goblin-3", "attack", "janine"),)
    pinned = run.fight_odds(walled(), 2000, seed=3, plans=plans)
    monkeypatch.setattr(sim, "PUT_OFF", False)
    assert run.fight_odds(walled(), 2000, seed=3, plans=plans).as_json() == pinned.as_json()


def one_after_another(foe: Any, gap: Any, mover: Any) -> dict[int, tuple[float, int]]:
    """Each foe's cell and the mover a walk after another leaves nearest (a tie: the roster's first)."""
    best: dict[int, tuple[float, int]] = {}
    for f, g, m in zip(foe.tolist(), gap.tolist(), mover.tolist(), strict=True):
        if f not in best or (g, m) < best[f]:
            best[f] = (g, m)
    return best


@pytest.mark.parametrize("k", [9, 40, 64, 65, 100])
def test_of_the_movers_on_one_foe_the_nearest_is_kept(k: int) -> None:
    rng = np.random.default_rng(k)
    for _ in range(30):
        m = int(rng.integers(1, 300))
        foe = rng.integers(0, 50 * k, m)
        foe[: m // 2] = foe[0]  # many on one foe
        gap = (rng.integers(0, 8, m) * 2.5).astype(np.float32)  # ties
        gap[rng.random(m) < 0.1] = np.float32(sim.FAR)  # unreachable ones tie at FAR
        mover = rng.integers(0, k, m)
        # A mover walks once a round: one entry for each foe and mover.
        _, once = np.unique(foe * k + mover, return_index=True)
        foe, gap, mover = foe[once], gap[once], mover[once]
        scratch = np.full(50 * k, sim.MOST, dtype=np.int64)
        lead = sim._nearest_movers(foe, gap, mover, k, scratch)
        assert len(set(foe[lead].tolist())) == len(lead)  # each foe once
        expected = one_after_another(foe, gap, mover)
        assert dict(zip(foe[lead].tolist(), mover[lead].tolist(), strict=True)) == {
            f: w for f, (_, w) in expected.items()
        }
        assert (scratch == sim.MOST).all()  # left as it was found


def test_a_morale_checks_two_dice_drawn_at_once_are_the_two_drawn_apart() -> None:
    for seed in range(20):
        at_once, apart = np.random.default_rng(seed), np.random.default_rng(seed)
        at_once.random(seed % 3)  # whatever came before
        apart.random(seed % 3)
        n = 1 + seed * 7 % 13
        both = at_once.integers(1, 7, 2 * n)
        assert (both[:n] + both[n:] == apart.integers(1, 7, n) + apart.integers(1, 7, n)).all()
        assert at_once.random() == apart.random()  # and what comes after is the same
