"""Old-School d20's fast simulator against the engine on an even fight, where moderate rule changes show.

The demo table is too one-sided (the Party wins ~97 %) for a morale rule 2 points off, every fallen PC
dying or the to-hit chances cut by a quarter to move its odds past chance. Here the demo's Party holds
a line on open ground against bestiary creatures of its weight: a bugbear, an orc and a gnoll in
melee, a bandit and a gnoll shooting from behind, by group initiative (each side wins about half the
fights). Creatures flee on morale in most fights, a PC dies in most, the attacks hit at many to-hit
levels (AC 12 to 17: chances from 25 % to 65 %), with blades and bows.

The figures compared, each fight one sample of them: each side's win, the rounds the fight lasts,
and each combatant's drop, death, flight (out of the fight with HP left: morale) and HP at the end.
The engine plays ENGINE_FIGHTS fights, the simulator FAST_FIGHTS, both from fixed seeds; a figure
disagrees when the two means differ by more than Z standard errors of the difference, with the
variance of both samples pooled (as it is when the two agree). With about 40 figures, Z = 4.5 leaves
a false alarm about once in 4,000 runs of fresh seeds; the fixed seeds make each run the same.
Wins and drops alone (core.sim.agreement's figures) miss every change planted below even here: the
rounds catch the to-hit cut, the deaths the death saves, the flights and HP left the morale rule."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.model import Encounter
from lnl_desktop.core.engine.engine import Engine
from lnl_desktop.core.files.storage import load
from lnl_desktop.core.rules.fight import OPPONENTS, PARTY, Battlefield, SimOutcome
from lnl_desktop.core.rules.osr import sim, sim_tables
from lnl_desktop.core.rules.osr.model import InitiativeMode, Kind
from lnl_desktop.core.rules.registry import get_ruleset
from lnl_desktop.core.sim import reference
from lnl_desktop.core.sim.field import simulator
from lnl_desktop.paths import resource

# 300 engine fights of nine combatants: about 9 s of CPU; five minutes still end a hang.
pytestmark = pytest.mark.timeout(300)

ENGINE_FIGHTS = 300
FAST_FIGHTS = 20_000
Z = 4.5
ENGINE_SEED, FAST_SEED = 11, 5
DEMO_GOBLINS = ("hobgoblin-chief", "goblin-1", "goblin-2", "goblin-3", "goblin-archer")
# The Party's line at x 7 with Cedryk's bow behind it; the Opponents' line at x 8, their shooters at x 13.
PARTY_CELLS = {"tombril": (7, 7), "brannoc": (7, 8), "janine": (7, 9), "cedryk": (3, 8)}
OPPONENTS_CELLS = (("Bugbear", (8, 7)), ("Orc", (8, 8)), ("Gnoll", (8, 9)), ("Bandit", (13, 6)), ("Gnoll", (13, 9)))


def even_table() -> Encounter:
    """The demo's Party and map cleared of walls and the ford, against the bestiary's creatures above."""
    engine = Engine(load(resource("encounters", "goblin-ambush-osr.lnl")))
    for cid in DEMO_GOBLINS:
        engine.apply(act.RemoveCombatant(cid))
    ground = engine.encounter.map
    engine.apply(act.PaintTerrain("walls", tuple(tuple(c) for c in ground.walls), on=False))
    engine.apply(act.PaintTerrain("difficult", tuple(tuple(c) for c in ground.difficult), on=False))
    for cid, cell in PARTY_CELLS.items():
        if tuple(engine.encounter.tokens[cid].cell) != cell:
            engine.apply(act.Move(cid, to=cell, forced=True))
    beasts = {c["name"]: c for c in get_ruleset("osr").bestiary()}
    for name, cell in OPPONENTS_CELLS:
        engine.apply(act.AddCombatant({**beasts[name], "side": "Opponents"}, cell=cell, facing=270))
    return engine.encounter


def names(table: Encounter, field: Battlefield) -> list[str]:
    """The combatants' names in the plan's order (the outcome's columns)."""
    return [table.combatant(cid).name for cid in field.ids]


def figures(outcome: SimOutcome, names: list[str]) -> dict[str, Any]:
    """Each figure a GM reads off the odds, one value a fight."""
    out: dict[str, Any] = {
        "Party wins": outcome.winner == PARTY,
        "Opponents win": outcome.winner == OPPONENTS,
        "rounds": outcome.rounds,
    }
    for k, name in enumerate(names):
        hp = outcome.health[:, k, 0]
        out[f"{name} drops"] = outcome.down[:, k]
        out[f"{name} dies"] = outcome.dead[:, k]
        out[f"{name} flees"] = outcome.down[:, k] & (hp > 0)  # out of the fight with HP left: morale
        out[f"{name} HP left"] = hp
    return out


def differences(fast: dict[str, Any], slow: dict[str, Any]) -> dict[str, float]:
    """Each figure's difference, fast minus the engine's, in standard errors of the difference."""
    out = {}
    for name, a in fast.items():
        b = slow[name]
        var = float(np.concatenate([a, b]).astype(np.float64).var())
        if a.dtype == np.bool_:
            # A chance the engine saw a few times and the simulator almost never: the normal approximation
            # would make too much of it; counted as at least a chance of 2 in the engine's fights.
            floor = 2 / len(b)
            var = max(var, floor * (1 - floor))
        se = np.sqrt(var * (1 / len(a) + 1 / len(b)))
        gap = float(a.mean() - b.mean())
        out[name] = gap / se if se > 0 else (0.0 if gap == 0 else np.inf)
    return out


def disagreements(fast: dict[str, Any], slow: dict[str, Any], z: float = Z) -> list[str]:
    """A line for each figure the two differ on by more than ``z`` standard errors; empty when they agree."""
    return [
        f"{name}: {fast[name].mean():.3f} fast vs {slow[name].mean():.3f} through the engine ({d:+.1f} SE)"
        for name, d in differences(fast, slow).items()
        if abs(d) > z
    ]


@pytest.fixture(scope="module")
def table() -> Encounter:
    return even_table()


@pytest.fixture(scope="module")
def slow(table: Encounter) -> tuple[Battlefield, dict[str, Any]]:
    field, outcome = reference.play_reference(table, ENGINE_FIGHTS, seed=ENGINE_SEED)
    return field, figures(outcome, names(table, field))


def fast_figures(table: Encounter, field: Battlefield) -> dict[str, Any]:
    ruleset = Engine(table.copy_without_log()).ruleset
    outcome = simulator(ruleset).simulate(table, field, FAST_FIGHTS, np.random.default_rng(FAST_SEED))
    return figures(outcome, names(table, field))


def test_the_table_is_even_and_the_rules_under_test_come_into_play(table: Encounter, slow) -> None:  # type: ignore[no-untyped-def]
    field, engine = slow
    assert InitiativeMode(table.options.initiative) is InitiativeMode.GROUP  # type: ignore[attr-defined]
    assert {"melee", "missile"} <= {str(w.kind) for c in table.combatants for w in c.weapons}  # type: ignore[attr-defined]
    # Both sides win often; someone flees on morale, and a PC dies, in a good share of the fights.
    assert 0.3 <= engine["Party wins"].mean() <= 0.7
    fled = np.any([engine[f"{name} flees"] for name in names(table, field)], axis=0)
    pcs = [c.name for c in table.combatants if c.kind is Kind.PC]  # type: ignore[attr-defined]
    died = np.any([engine[f"{name} dies"] for name in pcs], axis=0)
    assert fled.mean() > 0.4 and died.mean() > 0.4
    # Death saves are made, not every fallen PC dies: some drop and live.
    assert any((engine[f"{name} drops"] & ~engine[f"{name} dies"]).mean() > 0.1 for name in pcs)
    # Several to-hit levels: the chances of the blows the simulator rolls differ from pair to pair.
    hits = sim_tables.tables_of(table, field).hit[..., 0]
    assert len(np.unique(np.round(hits[hits > 0], 3))) >= 8


def test_fast_agrees_with_the_engine_on_an_even_table(table: Encounter, slow) -> None:  # type: ignore[no-untyped-def]
    field, engine = slow
    assert disagreements(fast_figures(table, field), engine) == []


# -- planted rule changes in the simulator alone: each must be caught ---------------------------------------


def _tables_changed(monkeypatch: pytest.MonkeyPatch, change: Callable[[Any], dict[str, Any]]) -> None:
    """The simulator's fixed tables built with ``change``'s fields replaced (the derived ones follow)."""
    build = sim_tables.build
    monkeypatch.setattr(sim_tables, "_last", None)  # no tables kept from before the plant
    monkeypatch.setattr(sim_tables, "build", lambda e, f: dataclasses.replace(t := build(e, f), **change(t)))


def _morale_two_lower(monkeypatch: pytest.MonkeyPatch) -> None:
    _tables_changed(monkeypatch, lambda t: {"morale": np.where(t.morale > 0, np.clip(t.morale - 2, 2, 12), 0)})


def _morale_two_higher(monkeypatch: pytest.MonkeyPatch) -> None:
    _tables_changed(monkeypatch, lambda t: {"morale": np.where(t.morale > 0, np.clip(t.morale + 2, 2, 12), 0)})


def _to_hit_cut_by_a_quarter(monkeypatch: pytest.MonkeyPatch) -> None:
    _tables_changed(monkeypatch, lambda t: {"hit": t.hit * 0.75})


def _every_fallen_pc_dies(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sim, "death_save_dc", lambda overkill: 100)


def _damage_doubled(monkeypatch: pytest.MonkeyPatch) -> None:
    damage = sim._Fights.damage
    monkeypatch.setattr(sim._Fights, "damage", lambda self, idx, target, amount: damage(self, idx, target, 2 * amount))


PLANTS = {
    "morale 2 lower": _morale_two_lower,
    "morale 2 higher": _morale_two_higher,
    "to-hit cut by a quarter": _to_hit_cut_by_a_quarter,
    "every fallen PC dies": _every_fallen_pc_dies,
    "damage doubled": _damage_doubled,
}


@pytest.fixture
def planted(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    PLANTS[request.param](monkeypatch)  # undone with the monkeypatch: the tables kept before it come back


@pytest.mark.parametrize("planted", list(PLANTS), indirect=True)
def test_a_moderate_rule_change_in_the_simulator_is_caught(table: Encounter, slow, planted: None) -> None:  # type: ignore[no-untyped-def]
    field, engine = slow
    assert disagreements(fast_figures(table, field), engine) != []
