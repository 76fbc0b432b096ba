"""The player view: the same map live for the players, never the GM's secrets.

The demo encounter: Tombril (Party) at (8, 6), the Half-orc (Opponents) at (13, 9), the Hill Giant
(Opponents, 2 x 2) at (15, 6).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtGui import QColor, QImage, QPainter
from PySide6.QtWidgets import QApplication, QInputDialog, QMessageBox
from pytestqt.qtbot import QtBot

from lnl_desktop.core import actions as act
from lnl_desktop.core import storage
from lnl_desktop.core.errors import RulesError
from lnl_desktop.core.events import VisibilityChanged
from lnl_desktop.paths import demo_encounter_path
from lnl_desktop.ui.main_window import MainWindow
from lnl_desktop.ui.map.tokens import TokenItem, condition_word
from lnl_desktop.ui.player_view import PlayerView, banner_text
from lnl_desktop.ui.recovery import RecoveryStore
from lnl_desktop.ui.style import CELL_PX
from lnl_desktop.ui.theme import Presentation


@pytest.fixture(autouse=True)
def discard_at_teardown(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Discard)


@pytest.fixture
def window(qtbot: QtBot, tmp_path: Path) -> MainWindow:
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    main = MainWindow(
        storage.load(demo_encounter_path()), settings=settings, recovery=RecoveryStore(tmp_path / "recovery")
    )
    qtbot.addWidget(main)
    main.show()
    qtbot.waitExposed(main)
    yield main
    # Leave the application as other tests expect it.
    Presentation().apply(QApplication.instance())


@pytest.fixture
def player(qtbot: QtBot, window: MainWindow) -> PlayerView:
    window.player_view_action.trigger()
    view = window.player_view
    assert view is not None and view.isVisible()
    qtbot.waitExposed(view)
    return view


def render(view: PlayerView) -> QImage:
    image = QImage(view.view.viewport().size(), QImage.Format.Format_RGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    view.view.render(painter)
    painter.end()
    return image


def all_text(view: PlayerView) -> str:
    parts = [view.banner.text()]
    for item in view.scene.items():
        parts.append(item.toolTip())
        if isinstance(item, TokenItem):
            parts.append(repr(item.look))
    return "\n".join(parts)


def test_player_view_opens_from_the_view_menu_with_f10(window: MainWindow, player: PlayerView) -> None:
    assert window.player_view_action.shortcut().toString() == "F10"
    assert set(player.scene.tokens) == {cid for cid in window.controller.encounter.tokens}
    window.player_view_action.trigger()
    assert not player.isVisible()


def test_a_hidden_opponent_is_not_in_the_player_view(window: MainWindow, player: PlayerView) -> None:
    controller = window.controller
    controller.select("half-orc")
    window.hide_token_action.trigger()  # Ctrl+H
    assert controller.encounter.tokens["half-orc"].hidden
    assert isinstance(controller.encounter.log[-1], VisibilityChanged)
    assert "half-orc" not in player.scene.tokens
    name = controller.encounter.combatant("half-orc").name
    assert f"<b>{name}</b><br>" not in all_text(player) and "cid='half-orc'" not in all_text(player)
    # The GM still sees it, faded.
    assert window.map_view.map_scene.tokens["half-orc"].opacity() < 1
    # Undo brings it back to the players; reveal again with the same key.
    controller.undo_stack.undo()
    assert "half-orc" in player.scene.tokens
    window.hide_token_action.trigger()
    window.hide_token_action.trigger()
    assert not controller.encounter.tokens["half-orc"].hidden
    assert "half-orc" in player.scene.tokens


def test_set_hidden_twice_is_refused(window: MainWindow) -> None:
    engine = window.controller.engine
    engine.apply(act.SetHidden("half-orc", True))
    with pytest.raises(RulesError, match="already hidden"):
        engine.apply(act.SetHidden("half-orc", True))


def test_no_opponent_sp_or_ip_number_reaches_the_player_view(window: MainWindow, player: PlayerView) -> None:
    controller = window.controller
    controller.do(act.EditCombatant("half-orc", {"stamina": 3}))
    orc = controller.encounter.combatant("half-orc")
    item = player.scene.tokens["half-orc"]
    assert item.look.condition in {"wounded", "badly hurt"}
    assert (item.look.stamina, item.look.stamina_max, item.look.injury, item.look.injury_max) == (0, 0, 0, 0)
    assert "SP" not in item.toolTip() and "IP" not in item.toolTip()
    assert f"{orc.stamina}/{orc.stamina_max}" not in all_text(player)
    # The GM's own map still tells the numbers.
    assert f"SP {orc.stamina}/{orc.stamina_max}" in window.map_view.map_scene.tokens["half-orc"].toolTip()
    # The Party's numbers may show.
    assert player.scene.tokens["tombril"].look.stamina_max > 0
    assert not render(player).isNull()


def test_condition_words_follow_the_threshold(window: MainWindow) -> None:
    orc = window.controller.encounter.combatant("half-orc")
    total = orc.stamina_max + orc.injury_max
    assert condition_word(orc) == "unhurt"
    hurt = orc.model_copy(update={"stamina": max(0, orc.stamina - 1)})
    assert condition_word(hurt) == "wounded"
    low = orc.model_copy(update={"stamina": 0, "injury": max(1, orc.injury_max // 3)})
    assert (low.stamina + low.injury) / total < 0.5
    assert condition_word(low) == "badly hurt"
    assert condition_word(low, badly_hurt_below=0.1) == "wounded"


def test_a_gm_move_shows_in_the_player_view(qtbot: QtBot, window: MainWindow, player: PlayerView) -> None:
    controller = window.controller
    assert controller.do(act.Move("tombril", (8, 8), forced=True)) is not None
    item = player.scene.tokens["tombril"]
    assert item.look.cell == (8, 8)
    assert "tombril" in player.view.animations  # sliding along its path
    qtbot.waitUntil(lambda: not player.view.animations, timeout=2000)
    assert (item.pos().x(), item.pos().y()) == (8 * CELL_PX, 8 * CELL_PX)


def test_turn_banner(window: MainWindow, player: PlayerView) -> None:
    controller = window.controller
    controller.do(act.StartCombat(face=5))
    controller.do(act.BeginTurn("tombril"))
    assert player.banner.text() == "Round 1 · Tombril's turn"
    assert player.scene.tokens["tombril"].look.has_turn
    assert banner_text(controller) == player.banner.text()


def test_blackout_hides_everything(window: MainWindow, player: PlayerView) -> None:
    window.blackout_action.trigger()  # Ctrl+B
    assert player.blackout and not player.banner.isVisible()
    image = render(player)
    black = QColor(0, 0, 0).rgb()
    for x in range(0, image.width(), 37):
        for y in range(0, image.height(), 29):
            assert image.pixel(x, y) == black
    window.blackout_action.trigger()
    assert not player.blackout
    assert render(player).pixel(image.width() // 2, image.height() // 2) != black


def test_follow_the_gm_view(window: MainWindow, player: PlayerView) -> None:
    window.follow_gm_action.trigger()
    window.map_view.zoom_in()
    assert player.view.transform().m11() == pytest.approx(window.map_view.transform().m11())


def test_share_overlays_paints_the_gm_overlays(window: MainWindow, player: PlayerView) -> None:
    window.controller.select("tombril")  # the GM's map shows Tombril's melee ring
    before = render(player)
    window.share_overlays_action.trigger()
    assert player.view.share_overlays
    assert render(player) != before


def test_screen_removed_brings_the_view_back_to_the_primary_screen(player: PlayerView) -> None:
    player.on_screen_removed(None)
    assert player.screen() is QApplication.primaryScreen()
    assert QApplication.primaryScreen().availableGeometry().contains(player.geometry().topLeft())


def test_presentation_theme_and_scale(window: MainWindow, player: PlayerView) -> None:
    base = player.banner.font().pixelSize()
    window.set_presentation(theme="dark", scale=150)
    assert Presentation.load(window.settings) == window.presentation
    assert QApplication.instance().palette().window().color() == QColor("#000000")
    assert player.banner.font().pixelSize() > base
    assert player.scene.outside_color == QColor("#000000")
    window.set_presentation(theme="system", scale=100)


def test_the_gm_sets_when_opponents_read_badly_hurt(
    qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    window = MainWindow(storage.load(demo_encounter_path()), settings=settings, recovery=RecoveryStore(tmp_path))
    qtbot.addWidget(window)
    monkeypatch.setattr(QInputDialog, "getInt", lambda *a, **k: (25, True))
    window.badly_hurt_action.trigger()
    assert window.presentation.badly_hurt_below == 0.25
    assert window.map_view.map_scene.badly_hurt_below == 0.25
    assert float(settings.value("presentation/badly_hurt_below")) == 0.25
