"""The Odds dock and the Turns dock's verdict: worked out on a worker from the table's state,
each side's chance to win with its margin, each combatant's chance to drop as a chart and a table,
the rounds left; they follow a change (a hit, an undo) and never reach the player view."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QLabel
from pytestqt.qtbot import QtBot
from waiting import run_until

from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.files import storage
from lnl_desktop.paths import resource
from lnl_desktop.ui.plumbing.fight_odds import POLL_MS, SETTLE_MS


def wait_for(done: Callable[[], bool]) -> None:
    run_until(done, what="the fight odds")


def odds_dock(window: Any, qtbot: QtBot) -> Any:
    dock = window.docks["Odds"]
    dock.show()
    dock.raise_()
    panel = window._panel("Odds")
    wait_for(lambda: panel.odds is not None and panel.odds.fights == 10_000)
    return panel


def drop_of(odds: Any, cid: str) -> float:
    return next(c.drop for c in odds.combatants if c.id == cid)


def test_the_fight_odds_dock_shows_who_wins_who_drops_and_how_long(laptop_window: Any, qtbot: QtBot) -> None:
    window = laptop_window()
    panel = odds_dock(window, qtbot)
    odds = panel.odds
    assert panel.headline.text().startswith(f"Party wins {odds.party_wins:.0%} ±")
    assert "10,000 fights in" in panel.status.text() and "rounds left" in panel.status.text()
    assert panel.table.rowCount() == 7 and panel.table.item(0, 0).text() == "Tombril"
    assert panel.table.item(0, 1).text() == f"{drop_of(odds, 'tombril'):.0%}"
    drops, rounds = panel.plots()
    bars = drops.listDataItems()[0]  # a bar per combatant, as long as its chance to drop
    assert list(bars.opts["width"]) == [c.drop for c in odds.combatants]
    assert len(rounds.listDataItems()) == 1
    assert "default tactic" in panel.toolTip()


def test_in_setup_the_turns_dock_says_how_dangerous_the_encounter_is(laptop_window: Any, qtbot: QtBot) -> None:
    window = laptop_window()
    label = window.turns_panel.odds_label
    wait_for(label.isVisible)
    assert label.text().startswith("Odds: Party wins") and "someone drops in" in label.text()
    assert " ± " in label.text() and "95 %" in label.toolTip()  # the margin, and what it is
    assert window.controller.do(act.StartCombat(face=4)) is not None
    wait_for(lambda: not label.isVisible())  # in combat the dock has the odds


def test_the_odds_follow_a_hit_and_its_undo_and_never_reach_the_player_view(laptop_window: Any, qtbot: QtBot) -> None:
    window = laptop_window()
    controller = window.controller
    assert controller.do(act.StartCombat(face=5)) is not None
    panel = odds_dock(window, qtbot)
    before = panel.odds
    assert controller.do(act.SetHealth("tombril", "stamina", 2)) is not None
    assert controller.do(act.SetHealth("tombril", "injury", 4)) is not None
    wait_for(lambda: panel.odds is not before and panel.odds.fights == 10_000)
    hurt = panel.odds
    assert drop_of(hurt, "tombril") > drop_of(before, "tombril") + 0.1
    controller.undo_stack.undo()
    controller.undo_stack.undo()
    wait_for(lambda: panel.odds is not hurt and panel.odds.fights == 10_000)
    assert abs(drop_of(panel.odds, "tombril") - drop_of(before, "tombril")) < 0.05
    window.show_player_view(True)
    player = window.player_view
    words = " ".join(label.text() for label in player.findChildren(QLabel))
    assert "wins" not in words and "drops" not in words


def test_a_pinned_plan_shows_its_odds_beside_the_odds_without_it(laptop_window: Any, qtbot: QtBot) -> None:
    window = laptop_window()
    panel = odds_dock(window, qtbot)
    base = panel.odds
    panel.who_combo.setCurrentIndex(panel.who_combo.findData("tombril"))
    assert panel.plan_combo.itemText(0) == "retreats (leaves the fight)"
    assert "attacks Hill Giant first" in [panel.plan_combo.itemText(i) for i in range(panel.plan_combo.count())]
    panel.plan_combo.setCurrentIndex(0)
    panel.pin_button.click()
    wait_for(lambda: panel.whatif_odds is not None)
    assert panel.whatif_label.text().startswith("If Tombril retreats: Party wins")
    assert not panel.table.isColumnHidden(4) and panel.table.item(0, 4).text() == "0%"
    assert panel.whatif_odds.party_wins < base.party_wins + 0.02
    panel.clear_button.click()
    assert panel.table.isColumnHidden(4) and panel.whatif_label.text() == ""


def test_the_odds_dock_says_what_left_is_and_one_column_where_dropping_is_dying(
    laptop_window: Any, qtbot: QtBot
) -> None:
    """Group d10: 0 HP is dead, so the dock shows one "Drops & dies" column, not two of the same numbers."""
    window = laptop_window(storage.load(resource("encounters", "bandit-mill-d10.lnl")))
    panel = odds_dock(window, qtbot)
    table = panel.table
    assert table.horizontalHeaderItem(1).text() == "Drops & dies" and table.isColumnHidden(2)
    assert "stood at the end" in table.horizontalHeaderItem(3).toolTip()
    assert "stood at the end" in table.item(0, 3).toolTip() or "every fight" in table.item(0, 3).toolTip()
    drops, _rounds = panel.plots()
    assert len(drops.listDataItems()) == 1  # no second, identical bar for dying


def test_a_result_is_shown_in_pieces_and_a_newer_one_replaces_the_older_ones_pieces(
    laptop_window: Any, qtbot: QtBot
) -> None:
    """Handing a result back holds the GUI thread for a piece at a time (the words, then the table, then the
    charts, each at a turn of the event loop); a result coming before the last is shown drops its pieces."""
    import dataclasses

    window = laptop_window()
    panel = odds_dock(window, qtbot)
    shown = panel.odds
    doomed = tuple(dataclasses.replace(c, drop=1.0) for c in shown.combatants)
    older = dataclasses.replace(shown, combatants=doomed, fights=500)
    newer = dataclasses.replace(shown, combatants=tuple(dataclasses.replace(c, drop=0.0) for c in shown.combatants))
    panel.show_odds(older, False)
    assert "a first estimate" in panel.status.text()  # the words at once...
    assert panel.odds is shown and panel.table.item(0, 1).text() == f"{shown.combatants[0].drop:.0%}"  # ...not the rest
    panel.show_odds(newer, True)
    wait_for(lambda: panel.odds is newer)
    assert [panel.table.item(row, 1).text() for row in range(panel.table.rowCount())] == ["0%"] * len(doomed)
    drops, _rounds = panel.plots()
    assert list(drops.listDataItems()[0].opts["width"]) == [0.0] * len(doomed)
    assert "a first estimate" not in panel.status.text()
    for _ in range(10):  # the older result's pieces never come after
        qtbot.wait(5)
    assert panel.odds is newer and panel.table.item(0, 1).text() == "0%"


def test_the_odds_wait_while_the_gm_holds_the_mouse_button_and_start_at_its_release(
    laptop_window: Any, qtbot: QtBot
) -> None:
    # A drag under way: a worker started now would take the interpreter lock from its steps, and the
    # drop changes the table anyway. The odds start once the button is let go.
    window = laptop_window()
    label = window.turns_panel.odds_label
    wait_for(label.isVisible)
    service = window.fight_odds
    wait_for(lambda: not service.running)
    starts: list[int] = []
    service.started.connect(lambda: starts.append(service.generation))
    viewport = window.map_view.viewport()
    empty = QPoint(5, 5)  # a corner of the map without a token
    QTest.mousePress(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, empty)
    service.changed()  # the table changed while the button is held
    qtbot.wait(4 * SETTLE_MS)
    assert starts == [] and not any(t.name == "lnl-fight-odds" for t in threading.enumerate())
    QTest.mouseRelease(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, empty)
    wait_for(lambda: starts == [service.generation] and not service.running)
    assert label.text().startswith("Odds: Party wins")


def test_a_running_worker_waits_while_the_gm_holds_a_button_and_goes_on_a_moment_after_the_release(
    laptop_window: Any, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The worker shares the interpreter with the window: while the GM acts, its turns wait.
    from lnl_desktop.core.rules.fight import turn_boundary, turns_held
    from lnl_desktop.core.sim import run

    real = run.fight_odds
    turns: list[float] = []

    def slow_odds(encounter: Any, fights: int, **options: Any) -> Any:  # many short turns, each counted
        for _ in range(400):
            turn_boundary()
            turns.append(time.monotonic())
            time.sleep(0.002)
        return real(encounter, 50, **options)

    window = laptop_window()
    service = window.fight_odds
    wait_for(lambda: not service.running)
    monkeypatch.setattr(run, "fight_odds", slow_odds)
    service.changed()
    wait_for(lambda: len(turns) > 5)
    viewport = window.map_view.viewport()
    empty = QPoint(5, 5)  # a corner of the map without a token
    QTest.mousePress(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, empty)
    assert turns_held()  # from the press itself, before its work
    qtbot.wait(3 * POLL_MS)
    assert turns_held()  # and while the button is held
    held_at = len(turns)
    qtbot.wait(300)
    assert len(turns) <= held_at + 1  # at most the turn under way when the hold came
    QTest.mouseRelease(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, empty)
    wait_for(lambda: len(turns) > held_at + 20)  # let go once the table is quiet
    assert not turns_held()
    wait_for(lambda: not service.running)
    assert not turns_held()


def test_a_closed_windows_worker_stops_at_its_next_turn(
    qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A worker left running after its window went would share the interpreter with the next table for nothing.
    from PySide6.QtCore import QCoreApplication, QEvent, QSettings
    from PySide6.QtWidgets import QMessageBox

    from lnl_desktop.core.rules.fight import turn_boundary
    from lnl_desktop.core.sim import run
    from lnl_desktop.ui.window.main_window import MainWindow
    from lnl_desktop.ui.window.recovery import RecoveryStore

    turns: list[float] = []

    def endless_odds(encounter: Any, fights: int, **options: Any) -> Any:
        while True:
            turn_boundary()
            turns.append(time.monotonic())
            time.sleep(0.002)

    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Discard)
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    window = MainWindow(
        storage.load(resource("encounters") / "hill-giant.lnl"),
        settings=settings,
        recovery=RecoveryStore(tmp_path / "recovery"),
    )  # not the fixture's: deleted here
    window.show()
    service = window.fight_odds
    wait_for(lambda: not service.running)
    monkeypatch.setattr(run, "fight_odds", endless_odds)
    service.changed()
    wait_for(lambda: len(turns) > 5)
    window.close()
    window.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    wait_for(lambda: not any(t.name == "lnl-fight-odds" for t in threading.enumerate()))
