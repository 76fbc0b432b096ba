"""The player view: the same map live for the players, never the GM's secrets.

The demo encounter: Tombril (Party) at (8, 6), the Half-orc (Opponents) at (13, 9), the Hill Giant
(Opponents, 2 x 2) at (15, 6).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from players import open_player_view
from PySide6.QtCore import QEvent, QPoint, QPointF, QSettings, Qt
from PySide6.QtGui import QColor, QImage, QMouseEvent, QPainter
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QGraphicsView, QInputDialog, QMessageBox
from pytestqt.qtbot import QtBot

from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.events import VisibilityChanged
from lnl_desktop.core.errors import RulesError
from lnl_desktop.core.files import storage
from lnl_desktop.paths import demo_encounter_path
from lnl_desktop.ui.map.token_look import condition_word
from lnl_desktop.ui.map.tokens import TokenItem
from lnl_desktop.ui.plumbing.controller import AttackPlan
from lnl_desktop.ui.plumbing.style import CELL_PX
from lnl_desktop.ui.plumbing.theme import Presentation
from lnl_desktop.ui.window.main_window import MainWindow
from lnl_desktop.ui.window.player_view import PlayerView, banner_text
from lnl_desktop.ui.window.recovery import RecoveryStore


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
    view = open_player_view(qtbot, window)
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
    assert item.look.gauges == ()  # no SP or IP bar at all
    assert "SP" not in item.toolTip() and "IP" not in item.toolTip()
    assert f"{orc.stamina}/{orc.stamina_max}" not in all_text(player)
    # The GM's own map still tells the numbers.
    assert f"SP {orc.stamina}/{orc.stamina_max}" in window.map_view.map_scene.tokens["half-orc"].toolTip()
    # The Party's numbers may show.
    assert [g.label for g in player.scene.tokens["tombril"].look.gauges] == ["SP", "IP"]
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
    qtbot.waitUntil(lambda: not player.view.animations, timeout=10_000)  # a 300 ms slide; room for a loaded machine
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


# -- shared overlays never tell of a hidden token ----------------------------------------------------


def press_on(window: MainWindow, cell: tuple[int, int]) -> None:
    view = window.map_view
    QTest.mousePress(view.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, at(view, cell))


def at(view: QGraphicsView, cell: tuple[int, int]) -> QPoint:
    return view.mapFromScene(QPointF((cell[0] + 0.5) * CELL_PX, (cell[1] + 0.5) * CELL_PX))


def move_to(window: MainWindow, cell: tuple[int, int], buttons: Qt.MouseButton = Qt.MouseButton.LeftButton) -> None:
    view = window.map_view
    point = QPointF(at(view, cell))
    event = QMouseEvent(
        QEvent.Type.MouseMove,
        point,
        view.viewport().mapToGlobal(point),
        Qt.MouseButton.NoButton,
        buttons,
        Qt.KeyboardModifier.NoModifier,
    )
    QApplication.sendEvent(view.viewport(), event)


def shown_gm_overlays(window: MainWindow, about: str) -> set[str]:
    """The names of the GM map's overlays about ``about`` that are on screen with something in them."""
    view = window.map_view
    named = {
        "melee": view.overlays.melee,
        "reach weapon": view.overlays.reach_weapon,
        "too close": view.overlays.too_close,
        "max range": view.overlays.max_range,
        "cone": view.overlays.cone,
        "sneak": view.overlays.unseen_approach,
        "drag reach": view.drag_layer.reach,
        "drag blocked": view.drag_layer.blocked,
        "drag path": view.drag_layer.path,
        "drag label": view.drag_layer.label,
        "drag start": view.drag_layer.start,
        "target ring": view.target_ring,
    }
    return {
        name
        for name, item in named.items()
        if item.isVisible() and about in item.about and not getattr(item, "is_empty", False)
    }


def test_shared_overlays_show_nothing_of_a_hidden_token(qtbot: QtBot, window: MainWindow, player: PlayerView) -> None:
    """Every overlay kind, with a hidden token selected, hovered, dragged and targeted."""
    controller = window.controller
    for cid in ("half-orc-archer", "half-orc-glaive"):
        controller.do(act.SetHidden(cid, True))
    controller.do(act.Face("half-orc-archer", 90))  # its back to the Party: a sneak approach exists
    window.share_overlays_action.trigger()
    controller.select(None)
    bare = render(player)  # share on, nothing selected or hovered: the map alone
    seen: set[str] = set()

    def players_see_nothing_of(cid: str) -> None:
        shown = shown_gm_overlays(window, cid)
        assert shown, "the GM map should be showing something about it"
        seen.update(shown)
        assert not [item for item in player.view.shared_overlays() if cid in item.about]

    # Selected: its melee, reach-weapon, too-close and max-range rings.
    for cid in ("half-orc-archer", "half-orc-glaive"):
        controller.select(cid)
        players_see_nothing_of(cid)
        assert render(player) == bare
    # Hovered with nobody selected: its vision cone.
    controller.select(None)
    move_to(window, (20, 11), Qt.MouseButton.NoButton)
    players_see_nothing_of("half-orc-archer")
    assert render(player) == bare
    # Hovered with Tombril selected: the cone and the cells outside it (shaped by the cone).
    controller.select("tombril")
    move_to(window, (2, 2), Qt.MouseButton.NoButton)
    tombril_only = render(player)  # Tombril's own rings are the players' to see
    move_to(window, (20, 11), Qt.MouseButton.NoButton)
    players_see_nothing_of("half-orc-archer")
    assert render(player) == tombril_only
    # Targeted by an attack being set up.
    controller.do(act.StartCombat(face=2))  # the Opponents act first
    controller.do(act.BeginTurn("half-orc-archer"))
    controller.set_plan(AttackPlan("half-orc-archer", "tombril", "Shortbow"))
    move_to(window, (2, 2), Qt.MouseButton.NoButton)
    players_see_nothing_of("half-orc-archer")  # the ring on Tombril tells who aims at him
    controller.set_plan(None)
    # Dragged in its turn: the reach, blocked cells, path, label and start marker.
    controller.select(None)
    bare = render(player)
    press_on(window, (20, 11))
    move_to(window, (19, 10))
    move_to(window, (17, 9))
    players_see_nothing_of("half-orc-archer")
    assert render(player) == bare
    QTest.keyClick(window.map_view.viewport(), Qt.Key.Key_Escape)
    assert seen == {
        "melee",
        "reach weapon",
        "too close",
        "max range",
        "cone",
        "sneak",
        "drag reach",
        "drag blocked",
        "drag path",
        "drag label",
        "drag start",
        "target ring",
    }
    # The same overlays of a token the players can see are shared: the walk above can fail.
    controller.do(act.SetHidden("half-orc-glaive", False))
    controller.select("half-orc-glaive")
    assert render(player) != bare


def test_a_hidden_foe_in_the_way_leaves_no_hole_in_the_shared_reach(window: MainWindow, player: PlayerView) -> None:
    # The drag's reach goes round a hidden foe on the GM's map; the players see it as if the foe
    # were not there, exactly as when it is off the map.
    controller = window.controller
    controller.do(act.StartCombat(face=5))
    controller.do(act.BeginTurn("tombril"))
    window.share_overlays_action.trigger()

    def dragged() -> QImage:
        press_on(window, (8, 6))
        move_to(window, (9, 7))
        move_to(window, (10, 8))
        image = render(player)
        QTest.keyClick(window.map_view.viewport(), Qt.Key.Key_Escape)
        return image

    controller.do(act.Move("half-orc", to=(10, 6), forced=True))  # two cells from Tombril
    controller.do(act.SetHidden("half-orc", True))
    hidden = dragged()
    assert window.map_view.drag_layer.blocked.about == {"tombril"}
    controller.do(act.RemoveToken("half-orc"))
    assert dragged() == hidden
