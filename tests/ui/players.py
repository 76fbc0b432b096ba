"""The player view opened in a test as the GM opens it (shared by the player view tests)."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from lnl_desktop.ui.window.main_window import MainWindow
from lnl_desktop.ui.window.player_view import PlayerView


def open_player_view(qtbot: QtBot, window: MainWindow) -> PlayerView:
    """The player view opened as the GM opens it (View ▸ Player view), shown."""
    window.player_view_action.trigger()
    view = window.player_view
    assert view is not None and view.isVisible()
    qtbot.waitExposed(view)
    return view
