"""Old-School d20's fight simulator reads precomputed lookups where it once worked things out in every
turn: each must give what the plain way gives (the group initiative's order, the morale check falling
due, the melee blow's chance), the flat views must write into the fights' own tables, and 10,000
fights of 40 must fit one batch."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from lnl_desktop.core.engine.engine import Engine
from lnl_desktop.core.files.storage import load
from lnl_desktop.core.rules.osr import sim, sim_tables, tactic
from lnl_desktop.core.rules.registry import get_ruleset
from lnl_desktop.core.sim import run
from lnl_desktop.core.sim.field import battlefield
from lnl_desktop.core.sim.run import BATCH_BYTES, batch_size
from lnl_desktop.paths import resource


def demo() -> Any:
    return load(resource("encounters", "goblin-ambush-osr.lnl"))


def fights(n: int, seed: int = 1) -> sim._Fights:
    encounter = demo()
    field = battlefield(Engine(encounter.model_copy(deep=True)))
    t = sim._tables_of(encounter, field)
    return sim._Fights(t, encounter, field, n, np.random.default_rng(seed))


def sorted_order(f: sim._Fights) -> Any:
    """RULES §12's group initiative by a full sort of every fight's scores (the plain way)."""
    t, n, k = f.t, f.n, f.t.k
    able = ~f.down & ~f.surrendered
    tiebreak = f.rng.random((n, k)) * 0.5
    roster = np.arange(k) * 1e-4
    score = np.zeros((n, k))
    for s, members in enumerate(t.members):
        here = able[:, members]
        leads = here & t.leader[members]
        lead = members[np.where(leads.any(axis=1), leads.argmax(axis=1), here.argmax(axis=1))]
        bonus = t.init[lead]
        total = f.rng.integers(1, 21, n) + bonus
        pcs = (here & t.pc[members]).any(axis=1)
        score[:, members] = (total * 1000.0 + pcs * 100 + (bonus + 30) + tiebreak[:, s])[:, None]
    return np.argsort(-(score - roster), axis=1, kind="stable")


def test_group_initiative_orders_every_fight_as_the_full_sort_does() -> None:
    f = fights(20_000, seed=3)
    assert f.t.group
    f.down[::3, f.t.members[1][0]] = True  # a fallen leader in some fights: the next one leads
    f.down[1::5, f.t.members[0]] = True  # a side all down in others: no PCs to break the tie
    state = f.rng.bit_generator.state
    order = f.initiative()
    f.rng.bit_generator.state = state
    plain = sorted_order(f)
    assert (order == plain).all()
    # Both sides led by the same place and score in some fights: the close ones were sorted, not guessed.
    assert 0.3 < (order[:, 0] == f.t.members[0][0]).mean() < 0.7


def test_morale_falls_due_as_the_rule_reads() -> None:
    t = fights(1).t
    width = t.k + 1
    for side in (0, 1):
        size = int(t.size[side])
        for out in range(width):
            for down in range(width):
                down_before, out_before = down + t.off_down[side], out + t.off_out[side]
                rule = down_before == 0 or (2 * out_before < size <= 2 * (out_before + 1))
                assert t.due[(side * width + out) * width + down] == rule, (side, out, down)


def test_a_melee_blows_chance_is_its_best_options_chance_at_short_range() -> None:
    t = fights(1).t
    for x in range(t.u):
        for y in range(t.u):
            assert t.melee_hit[x * t.u + y] == t.hit[x, y, t.melee_best[x, y], 0]
            assert t.melee_flat[x * t.u + y] == t.melee_best[x, y]


def test_the_flat_views_write_into_the_fights_tables_also_after_finished_fights_leave() -> None:
    f = fights(6)
    goblin = f.field.index("goblin-1")
    rows = np.array([1, 4])
    f.damage(rows, np.full(2, goblin), np.full(2, 1000))
    assert f.hp[rows, goblin].tolist() == [0, 0] and f.gone[rows, goblin].all() and f.down[rows, goblin].all()
    assert f.hp[[0, 2, 3, 5], goblin].min() > 0
    f.keep(np.array([True, False, True, False, True, False]))  # the rows left: 0, 2, 4
    chief = f.field.index("hobgoblin-chief")
    f.damage(np.array([1]), np.array([chief]), np.array([1000]))  # row 1 is now fight 2
    assert f.ids.tolist() == [0, 2, 4]
    assert f.gone[:, goblin].tolist() == [False, False, True]
    full = f.hp[0, chief]
    assert f.hp[:, chief].tolist() == [full, 0, full] and f.down[:, chief].tolist() == [False, True, False]
    assert f.gone[1, chief] and f.downs[:, 1].tolist() == [0, 1, 1]  # a morale check may have put others out


def test_ten_thousand_fights_of_forty_are_one_batch() -> None:
    fight_bytes = get_ruleset("osr").fights.fight_bytes
    assert batch_size(40, fight_bytes) >= 10_000
    assert batch_size(40, fight_bytes) * 2 * 4 * 40 * 40 <= BATCH_BYTES  # the float32 gap and distance tables


def test_a_hits_damage_is_drawn_from_the_blows_exact_distribution() -> None:
    encounter = demo()
    f = fights(200_000, seed=11)
    chief, tombril = f.field.index("hobgoblin-chief"), f.field.index("tombril")
    option = int(f.t.melee_best[chief, tombril])
    weapon, style = tactic.attack_options(encounter.combatant("hobgoblin-chief"))[option]
    _, exact = tactic.blow(
        encounter, encounter.combatant("hobgoblin-chief"), encounter.combatant("tombril"), weapon, style
    )
    every = np.arange(f.n)
    f.hp[:, tombril] = 10**6  # never falls: every hit's damage shows in full
    f.strike(every, np.full(f.n, chief), np.full(f.n, tombril), np.full(f.n, option), chance=np.ones(f.n))
    seen = np.bincount(10**6 - f.hp[:, tombril], minlength=max(exact) + 2) / f.n
    for amount in range(len(seen)):
        p = exact.get(amount, 0.0)
        assert abs(seen[amount] - p) <= 5 * np.sqrt(p * (1 - p) / f.n) + 1e-9, (amount, seen[amount], p)


def test_morale_reads_a_side_the_same_through_its_slice_or_its_indices(monkeypatch: pytest.MonkeyPatch) -> None:
    by_slice = run.fight_odds(demo(), 1500, seed=9)
    built = sim_tables.SimTables.__post_init__

    def by_indices(self: sim_tables.SimTables) -> None:
        built(self)
        assert all(isinstance(c, slice) for c in self.columns)  # the demo's sides stand together
        self.columns = self.members  # as a roster with the sides mixed has them

    monkeypatch.setattr(sim_tables.SimTables, "__post_init__", by_indices)
    monkeypatch.setattr(sim_tables, "_last", None)
    assert run.fight_odds(demo(), 1500, seed=9).as_json() == by_slice.as_json()
