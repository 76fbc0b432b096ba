"""The player view fails closed (DESIGN.md): a hidden token's light, target and route stay secret,
and any error while building, syncing or painting the players' scene shows them black and tells
the GM, never the GM's map or a stale one.

The demo encounter: Tombril (Party) at (8, 6), Janine (Party), the Half-orc (Opponents) at (13, 9),
the Hill Giant (Opponents, 2 x 2) at (15, 6).
"""

from __future__ import annotations

import pytest
from players import open_player_view
from PySide6.QtGui import QImage
from pytestqt.qtbot import QtBot
from qt_pictures import render

from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.model import Side
from lnl_desktop.ui.map import fog as fog_module
from lnl_desktop.ui.map import light as light_module
from lnl_desktop.ui.map.light import LightItem
from lnl_desktop.ui.window.main_window import MainWindow
from lnl_desktop.ui.window.player_view import PlayerView


@pytest.fixture
def window(demo_window: MainWindow) -> MainWindow:
    return demo_window  # the laptop window on the demo (tests/ui/conftest.py)


@pytest.fixture
def player(qtbot: QtBot, demo_window: MainWindow) -> PlayerView:
    return open_player_view(qtbot, demo_window)


def picture(player: PlayerView) -> QImage:
    """What the players' window shows: painted through its paintEvent, as on the screen."""
    player.view.finish_animations()
    return player.view.viewport().grab().toImage()


def differing(a: QImage, b: QImage) -> int:
    assert a.size() == b.size()
    return sum(1 for y in range(0, a.height(), 2) for x in range(0, a.width(), 2) if a.pixel(x, y) != b.pixel(x, y))


def all_black(image: QImage) -> bool:
    points = ((x, y) for y in range(0, image.height(), 7) for x in range(0, image.width(), 7))
    return all(image.pixel(x, y) & 0xFFFFFF == 0 for x, y in points)


# -- a hidden token's light (RULES §15) ------------------------------------------------------------


@pytest.mark.parametrize("carrier", ["half-orc", "tombril"])
def test_a_hidden_tokens_lantern_lights_nothing_for_the_players(
    window: MainWindow, player: PlayerView, carrier: str
) -> None:
    controller = window.controller
    controller.do(act.SetFog(True))
    controller.do(act.SetAmbientLight("dark"))
    controller.do(act.SetHidden(carrier, True))
    without = picture(player)
    assert controller.do(act.PlaceLight("lantern", carrier=carrier)) is not None
    with_hidden_lantern = picture(player)
    assert differing(without, with_hidden_lantern) == 0
    # The rules still read it: the GM's map outlines the lit area, and showing the token lights it up.
    gm_light = window.map_view.map_scene.light
    assert isinstance(gm_light, LightItem) and gm_light.levels is not None and gm_light.levels.max() == 2
    controller.do(act.SetHidden(carrier, False))
    assert differing(without, picture(player)) > 1000


# -- a hidden creature is never a Party member's default target ---------------------------------------


def test_a_pc_never_targets_a_hidden_creature_by_default(window: MainWindow, player: PlayerView) -> None:
    controller = window.controller
    encounter = controller.encounter
    # The Half-orc is the nearest foe to Tombril; hidden, the default is the Giant.
    controller.do(act.SetHidden("half-orc", True))
    controller.do(act.StartCombat(face=5))
    controller.do(act.BeginTurn("tombril"))
    assert encounter.combatant("tombril").side is Side.PARTY
    plan = controller.plan
    assert plan is not None and plan.target == "hill-giant"
    # The GM may still pick the hidden one by hand.
    window.action_panel.set_target("half-orc")
    assert controller.plan is not None and controller.plan.target == "half-orc"


# -- fails closed ------------------------------------------------------------------------------------


def test_an_error_while_syncing_blanks_the_player_view_and_tells_the_gm(
    qtbot: QtBot, window: MainWindow, player: PlayerView, monkeypatch: pytest.MonkeyPatch
) -> None:
    controller = window.controller
    controller.do(act.SetFog(True))
    assert not all_black(picture(player))
    assert not window.player_paused_label.isVisible()

    def broken(controller: object) -> frozenset[str]:
        raise OverflowError("Python int too large to convert to C long")

    with monkeypatch.context() as patch:
        patch.setattr(fog_module, "_players_unseen", broken)
        controller.do(act.Move("tombril", (8, 8), forced=True))
    assert player.paused
    assert all_black(picture(player))
    assert all_black(render(player.view))  # rendered to a picture (QGraphicsView.render) as well
    assert not player.banner.isVisible()
    label = window.player_paused_label
    assert label.isVisible() and "OverflowError" in label.toolTip()
    # The GM's own map goes on as ever.
    assert "tombril" in window.map_view.map_scene.tokens
    # Fixed: the next change rebuilds the players' scene from scratch, and it shows again.
    controller.do(act.Move("tombril", (8, 7), forced=True))
    assert not player.paused and not label.isVisible()
    assert not all_black(picture(player))


def test_an_error_while_painting_blanks_the_player_view(
    window: MainWindow, player: PlayerView, monkeypatch: pytest.MonkeyPatch
) -> None:
    class BrokenMath:
        """What the players' light reads its cells with, failing (the GM's light paints without it)."""

        @staticmethod
        def floor(value: float) -> int:
            raise ValueError("a picture path with a NUL in it")

        ceil = floor

    controller = window.controller
    controller.do(act.SetAmbientLight("dark"))
    with monkeypatch.context() as patch:
        patch.setattr(light_module, "math", BrokenMath)
        image = picture(player)
        assert all_black(image)
        assert player.paused
        assert "ValueError" in window.player_paused_label.toolTip()
        # A change while the paint still fails: still black, no flicker of the GM's notice.
        controller.do(act.Move("tombril", (8, 8), forced=True))
        assert all_black(picture(player)) and player.paused
        assert window.player_paused_label.isVisible()
    # Painting works again: the next change shows the players their map.
    controller.do(act.Move("tombril", (8, 7), forced=True))
    assert not all_black(picture(player))
    assert not player.paused and not window.player_paused_label.isVisible()


def test_a_player_view_that_cannot_be_built_opens_black(
    qtbot: QtBot, window: MainWindow, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(controller: object) -> frozenset[str]:
        raise RuntimeError("the scene could not be built")

    monkeypatch.setattr(fog_module, "_players_unseen", broken)
    window.player_view_action.trigger()
    view = window.player_view
    assert view is not None
    qtbot.waitExposed(view)
    assert view.paused and all_black(picture(view))
    assert window.player_paused_label.isVisible()
