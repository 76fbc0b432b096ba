"""The fight simulators step aside while the GM acts (core.rules.fight.hold_turns): a worker playing the
odds waits at its next turn while the window holds the turns, goes on once they are let go with the same
odds as ever, and stops at its next turn once its odds are no longer wanted. The GUI thread never waits."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from lnl_desktop.core.files import storage
from lnl_desktop.core.rules.fight import Stopped, hold_turns, let_turns, stopping_on, turns_held
from lnl_desktop.core.sim.run import fight_odds
from lnl_desktop.paths import demo_encounter_path


@pytest.fixture
def demo() -> Any:
    encounter = storage.load(demo_encounter_path())
    yield encounter
    let_turns()


def on_worker(work: Any) -> tuple[threading.Thread, dict[str, Any], threading.Event]:
    out: dict[str, Any] = {}
    done = threading.Event()

    def run() -> None:
        try:
            out["odds"] = work()
        except Exception as error:  # what the worker met, for the test to read
            out["error"] = error
        finally:
            done.set()

    thread = threading.Thread(target=run, name="lnl-fight-odds")
    thread.start()
    return thread, out, done


def test_a_worker_waits_while_the_turns_are_held_and_ends_with_the_same_odds_once_let_go(demo: Any) -> None:
    alone = fight_odds(demo, 2000, seed=7)
    hold_turns()
    assert turns_held()
    thread, out, done = on_worker(lambda: fight_odds(demo, 2000, seed=7))
    assert not done.wait(0.6)  # held at its first turn
    on_main = fight_odds(demo, 2000, seed=7)  # the GUI thread's own run never waits
    let_turns()
    assert done.wait(60)
    thread.join()
    assert "error" not in out
    for odds in (out["odds"], on_main):
        assert (odds.party_wins, odds.opponents_win, odds.rounds) == (
            alone.party_wins,
            alone.opponents_win,
            alone.rounds,
        )
        assert [c.drop for c in odds.combatants] == [c.drop for c in alone.combatants]


def test_odds_no_longer_wanted_stop_at_the_next_turn_even_while_held(demo: Any) -> None:
    stop = threading.Event()

    def work() -> Any:
        with stopping_on(stop):
            return fight_odds(demo, 10_000, seed=7)

    hold_turns()
    thread, out, done = on_worker(work)
    assert not done.wait(0.3)
    stop.set()  # the table changed: a newer state's odds are wanted
    assert done.wait(5)  # not after the held turn's longest wait for each turn left
    thread.join()
    assert isinstance(out.get("error"), Stopped) and "odds" not in out
