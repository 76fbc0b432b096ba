"""Old-School d20's fight odds keep each one's nearest foe as the fights go (sim._Fights.aim) instead of
looking for it in every turn: after every turn of thousands of fights the kept one is the nearest a
look over every foe finds (the index agrees with a rebuild), and the odds are those of the full look."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from lnl_desktop.core.files.storage import load
from lnl_desktop.core.rules.osr import sim
from lnl_desktop.core.sim import run
from lnl_desktop.paths import resource

pytestmark = pytest.mark.timeout(120)


def demo() -> Any:
    return load(resource("encounters", "goblin-ambush-osr.lnl"))


def full_look(f: Any, idx: Any, a: Any) -> tuple[Any, Any]:
    """The nearest standing foe by a look over every foe (ties: the roster's first), and whether one stands."""
    cand = f.t.foe[a] & ~f.gone[idx]
    gaps = np.where(cand, f.gap[idx, a, :], np.inf)
    return gaps.argmin(axis=1), cand.any(axis=1)


def test_the_kept_nearest_is_the_nearest_after_every_turn(monkeypatch: pytest.MonkeyPatch) -> None:
    kept = sim._Fights._kept_nearest
    looks = {"turns": 0, "moved": 0}
    closed = sim._Fights.closed_in

    def checked(self: Any, idx: Any, a: Any) -> tuple[Any, Any]:
        target, has = kept(self, idx, a)
        nearest, stands = full_look(self, idx, a)
        assert (has == stands).all()
        assert (target[has] == nearest[has]).all(), "a kept nearest foe that is not the nearest"
        looks["turns"] += 1
        return target, has

    def counted(self: Any, rows: Any, i: Any, j: Any) -> None:
        looks["moved"] += len(rows)
        closed(self, rows, i, j)

    monkeypatch.setattr(sim._Fights, "_kept_nearest", checked)
    monkeypatch.setattr(sim._Fights, "closed_in", counted)
    odds = run.fight_odds(demo(), 2000, seed=4)
    assert odds.fights == 2000
    assert looks["turns"] > 100 and looks["moved"] > 1000  # the demo's foes close in: the update is exercised


def test_the_odds_are_those_of_the_full_look(monkeypatch: pytest.MonkeyPatch) -> None:
    kept = run.fight_odds(demo(), 1500, seed=9)

    def looked(self: Any, idx: Any, a: Any) -> tuple[Any, Any]:
        return full_look(self, idx, a)

    monkeypatch.setattr(sim._Fights, "_kept_nearest", looked)
    assert run.fight_odds(demo(), 1500, seed=9).as_json() == kept.as_json()
