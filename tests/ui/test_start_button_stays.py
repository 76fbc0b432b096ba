"""Group d10's declare phase: once "All: Attack" has declared for everyone, Start combat… stays where
it was (its words shorten and the banner loses the names, but the button does not move from under
the GM's mouse: the next click lands on it, not on another tab)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot
from waiting import run_until

from lnl_desktop.core.files import storage
from lnl_desktop.paths import resource


def settled(window: Any) -> bool:
    """Nothing more to come: the side panel balanced, the fight odds in."""
    return not window._balance_timer.isActive() and not window.fight_odds.running


def test_start_combat_stays_in_place_after_all_attack(laptop_window: Callable[..., Any], qtbot: QtBot) -> None:
    window = laptop_window(storage.load(resource("encounters", "bandit-mill-d10.lnl")))
    turns = window.turns_panel
    start, declare_all = turns.start_button, turns.declare_all_button
    run_until(lambda: turns.odds_label.isVisible() and settled(window), what="the setup's odds line")
    QApplication.processEvents()
    assert declare_all.isVisible() and declare_all.text().startswith("All: ")
    assert start.text() == "Start combat… (declare first)"
    where, size = start.mapToGlobal(QPoint(0, 0)), start.size()
    qtbot.mouseClick(declare_all, Qt.MouseButton.LeftButton, pos=QPoint(8, declare_all.height() // 2))
    run_until(lambda: not declare_all.isVisible() and settled(window), what="the declarations")
    QApplication.processEvents()
    assert start.text() == "Start combat…" and start.isEnabled()
    assert (start.mapToGlobal(QPoint(0, 0)), start.size()) == (where, size)
