"""Condition markers on tokens: a condition added on the Sheet puts a lettered badge round the token,
named on hover, gone on undo; the player view shows the Party's always and the Opponents' only when
the GM shares them.

The demo encounter: Tombril (Party) at (8, 6), the Half-orc (Opponents) at (13, 9).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from players import open_player_view
from PySide6.QtCore import QEvent, QRect, QRectF, QSettings
from PySide6.QtGui import QColor, QHelpEvent, QImage, QPainter
from PySide6.QtWidgets import QApplication, QGraphicsView, QMessageBox, QToolTip
from pytestqt.qtbot import QtBot

from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.files import storage
from lnl_desktop.core.rules.registry import get_ruleset
from lnl_desktop.paths import demo_encounter_path, resource
from lnl_desktop.ui.map import tokens as tokens_module
from lnl_desktop.ui.map.markers import MARKERS, MAX_MARKERS, marker_style, place_markers
from lnl_desktop.ui.map.token_look import TokenLook
from lnl_desktop.ui.map.tokens import TokenItem, token_layout
from lnl_desktop.ui.plumbing.theme import Presentation
from lnl_desktop.ui.window.main_window import MainWindow
from lnl_desktop.ui.window.player_view import PlayerView
from lnl_desktop.ui.window.recovery import RecoveryStore

DEMOS = ("hill-giant.lnl", "hill-giant-classic.lnl", "goblin-ambush-osr.lnl", "bandit-mill-d10.lnl")


@pytest.fixture(autouse=True)
def discard_at_teardown(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Discard)


def make_window(qtbot: QtBot, tmp_path: Path, path: Path, recovery: str = "recovery") -> MainWindow:
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    main = MainWindow(storage.load(path), settings=settings, recovery=RecoveryStore(tmp_path / recovery))
    qtbot.addWidget(main)
    main.show()
    qtbot.waitExposed(main)
    return main


@pytest.fixture
def window(qtbot: QtBot, tmp_path: Path) -> Iterator[MainWindow]:
    yield make_window(qtbot, tmp_path, demo_encounter_path())
    Presentation().apply(QApplication.instance())


@pytest.fixture
def player(qtbot: QtBot, window: MainWindow) -> PlayerView:
    view = open_player_view(qtbot, window)
    return view


def render(view: QGraphicsView) -> QImage:
    image = QImage(view.viewport().size(), QImage.Format.Format_RGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    view.render(painter)
    painter.end()
    return image


def on_view(view: QGraphicsView, item: TokenItem, rect: QRectF) -> QRect:
    """``rect`` of ``item`` (its own units) in the view's pixels."""
    return view.mapFromScene(item.mapRectToScene(rect)).boundingRect()


def crop(image: QImage, rect: QRect) -> QImage:
    return image.copy(rect.intersected(image.rect()))


def colour_share(image: QImage, rect: QRect, colour: str) -> float:
    """How much of ``rect`` is near ``colour``."""
    want = QColor(colour)
    part = crop(image, rect)
    hits = total = 0
    for y in range(part.height()):
        for x in range(part.width()):
            c = part.pixelColor(x, y)
            total += 1
            if abs(c.red() - want.red()) + abs(c.green() - want.green()) + abs(c.blue() - want.blue()) < 60:
                hits += 1
    return hits / max(total, 1)


def add_on_sheet(window: MainWindow, cid: str, word: str) -> None:
    window.controller.select(cid)
    sheet = window.sheet
    assert sheet.current() is not None and sheet.current().id == cid
    assert sheet.add_condition(word)


# -- the table ------------------------------------------------------------------------------------------


def test_every_menu_condition_has_its_own_badge() -> None:
    for name in ("lnl", "classic", "osr", "d10"):
        for word in get_ruleset(name).conditions.menu():
            assert marker_style(word)[0] != "?"
            assert marker_style(word)[1:] != ("#DDDDDD", "#141414"), word  # not the neutral colour
    badges = {(letters, back) for letters, back, _ in MARKERS.values()}
    assert len(badges) == len(MARKERS)  # no two alike
    assert marker_style("prone")[0] == "P" and marker_style("stunned")[0] == "St" and marker_style("grappled")[0] == "G"
    assert marker_style("frightened of Ogre")[:2] == marker_style("frightened")[:2]
    assert marker_style("exhausted 2")[0] == "Ex2"
    assert marker_style("held by vines") == ("HB", "#DDDDDD", "#141414")  # the GM's own word: neutral
    assert marker_style("hasted")[0] == "Ha"


def test_markers_keep_clear_of_the_label_the_bars_and_each_other(window: MainWindow) -> None:
    item = window.map_view.map_scene.tokens["tombril"]
    words = ("prone", "stunned", "grappled", "poisoned", "blinded", "deafened", "charmed", "burning")
    for ui_scale in (1.0, 1.5, 2.0):
        for lod in (1.0, 2.0, 4.0):
            look = TokenLook(**{**item.look.__dict__, "markers": words, "surprised": True, "guard": True})
            layout = token_layout(look, lod, ui_scale)
            assert layout.mode == "full" and layout.bars
            shown = layout.markers
            assert 1 <= len(shown) <= MAX_MARKERS
            assert sum(len(m.words) for m in shown) == len(words)  # every word in a badge or in "+N"
            assert shown[-1].letters == f"+{len(shown[-1].words)}"
            label = tokens_module._label_box(look, look.size * 64, ui_scale)
            keep = [label, *layout.bars, *tokens_module._badge_boxes(look, look.size * 64, layout.badge_radius)]
            for i, m in enumerate(shown):
                assert layout.bounds.contains(m.rect)
                assert not any(m.rect.intersects(r) for r in keep)
                assert not any(m.rect.intersects(o.rect) for o in shown[i + 1 :])
    assert place_markers((), 64, 14, ()) == ()


# -- the GM's map -----------------------------------------------------------------------------------------


def test_a_condition_from_the_sheet_puts_a_marker_on_the_token(window: MainWindow, qtbot: QtBot) -> None:
    view = window.map_view
    scene = view.map_scene
    item = scene.tokens["tombril"]
    window.controller.select("tombril")
    before_looks = {cid: i.look for cid, i in scene.tokens.items()}
    before = render(view)
    assert item.look.markers == ()

    add_on_sheet(window, "tombril", "prone")
    assert item.look.markers == ("prone",)
    layout = item.layout()
    (marker,) = layout.markers
    assert marker.letters == "P" and marker.words == ("prone",)
    # Only the token whose combatant changed has a new look (and so a repaint).
    assert [cid for cid, i in scene.tokens.items() if i.look is not before_looks[cid]] == ["tombril"]

    after = render(view)
    where = on_view(view, item, marker.rect)
    assert crop(before, where) != crop(after, where)
    assert colour_share(after, where, MARKERS["prone"][1]) > 0.2  # the prone badge's yellow

    # Its name on hover: the badge under the cursor, and the token's tooltip.
    centre = item.mapToScene(marker.rect.center())
    assert item.marker_at(centre) is not None and item.marker_at(centre).name == "prone"
    assert item.marker_at(item.mapToScene(item.extent / 2, item.extent / 2)) is None
    assert "Markers:" in item.toolTip() and "prone" in item.toolTip()
    pos = view.mapFromScene(centre)
    QApplication.sendEvent(view.viewport(), QHelpEvent(QEvent.Type.ToolTip, pos, view.viewport().mapToGlobal(pos)))
    assert "prone" in QToolTip.text()
    QToolTip.hideText()

    # One undo step takes it away.
    window.controller.undo_stack.undo()
    assert item.look.markers == ()
    assert item.layout().markers == ()
    assert crop(render(view), where) == crop(before, where)


def test_a_rulesets_own_action_shows_its_condition(qtbot: QtBot, tmp_path: Path) -> None:
    """Group d10's grapple (a rules action, not a typed word) and a dropped weapon show as markers."""
    main = make_window(qtbot, tmp_path, resource("encounters", "bandit-mill-d10.lnl"))
    encounter = main.controller.encounter
    ruleset = main.controller.engine.ruleset
    c = encounter.combatants[0]
    main.controller.do(act.EditCombatant(c.id, {"conditions": ["grappled"]}))
    assert "grappled" in ruleset.tokens.markers(main.controller.combatant(c.id))
    assert main.map_view.map_scene.tokens[c.id].look.markers[0] == "grappled"
    armed = next((x for x in encounter.combatants if getattr(x, "weapons", None)), None)
    assert armed is not None
    weapons = [w.model_dump() for w in armed.weapons]
    weapons[0]["dropped"] = True
    main.controller.do(act.EditCombatant(armed.id, {"weapons": weapons}))
    assert "disarmed" in ruleset.tokens.markers(main.controller.combatant(armed.id))


# -- the player view --------------------------------------------------------------------------------------


def test_the_player_view_shows_the_partys_markers_not_the_opponents_unless_shared(
    window: MainWindow, player: PlayerView, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert not window.share_markers_action.isChecked()  # off by default
    scene = player.scene
    view = player.view
    hero, foe = scene.tokens["tombril"], scene.tokens["half-orc"]
    foe_area = on_view(view, foe, foe.boundingRect())
    bare = render(view)

    add_on_sheet(window, "tombril", "prone")
    add_on_sheet(window, "half-orc", "stunned")
    shown = render(view)
    (mark,) = hero.layout().markers
    hero_at = on_view(view, hero, mark.rect)
    assert crop(shown, hero_at) != crop(bare, hero_at)
    assert colour_share(shown, hero_at, MARKERS["prone"][1]) > 0.2
    assert foe.look.markers == () and foe.layout().markers == ()
    assert "stunned" not in foe.toolTip()
    assert crop(shown, foe_area) == crop(bare, foe_area)  # nothing of the Opponent's condition

    # The control: without the filter the same comparison sees the Opponent's marker.
    real_of = TokenLook.of.__func__

    def leaky(cls, *args, **kwargs):  # type: ignore[no-untyped-def]
        look = real_of(cls, *args, **kwargs)
        c = args[0]
        return TokenLook(**{**look.__dict__, "markers": tuple(c.conditions)})

    with monkeypatch.context() as patch:
        patch.setattr(TokenLook, "of", classmethod(leaky))
        scene._basis = None
        scene.sync()
        leaked = render(view)
        assert foe.layout().markers
        assert crop(leaked, foe_area) != crop(bare, foe_area)
    scene._basis = None
    scene.sync()
    assert crop(render(view), foe_area) == crop(bare, foe_area)

    # Shared from the View menu: the Opponent's marker shows, and the setting is kept.
    window.share_markers_action.trigger()
    assert window.share_markers_action.isChecked()
    assert str(window.settings.value("player_view/opponent_conditions")).lower() == "true"
    (foe_mark,) = foe.layout().markers
    assert foe_mark.letters == "St"
    shared = render(view)
    assert colour_share(shared, on_view(view, foe, foe_mark.rect), MARKERS["stunned"][1]) > 0.2
    assert "stunned" in foe.toolTip()
    window.share_markers_action.trigger()
    assert foe.look.markers == ()
    assert crop(render(view), foe_area) == crop(bare, foe_area)


def test_the_shared_setting_is_kept_for_the_next_window(qtbot: QtBot, tmp_path: Path) -> None:
    first = make_window(qtbot, tmp_path, demo_encounter_path())
    first.share_markers_action.trigger()
    first.settings.sync()
    first.close()
    again = make_window(qtbot, tmp_path, demo_encounter_path(), "recovery-again")
    assert again.share_markers_action.isChecked()
    again.controller.do(act.EditCombatant("half-orc", {"conditions": ["prone"]}))
    view = again.ensure_player_view()
    assert view.scene.tokens["half-orc"].look.markers == ("prone",)


def test_a_hidden_token_shows_no_marker_to_the_players(window: MainWindow, player: PlayerView) -> None:
    window.share_markers_action.trigger()
    window.controller.do(act.EditCombatant("half-orc", {"conditions": ["prone"]}))
    assert player.scene.tokens["half-orc"].look.markers == ("prone",)
    window.controller.do(act.SetHidden("half-orc", True))
    assert "half-orc" not in player.scene.tokens
    gm_item = window.map_view.map_scene.tokens["half-orc"]
    assert gm_item.look.markers == ("prone",)  # the GM still sees it, faded


# -- every ruleset's demo ---------------------------------------------------------------------------------


@pytest.mark.parametrize("demo", DEMOS)
def test_every_demo_paints_with_markers(demo: str, qtbot: QtBot, tmp_path: Path) -> None:
    main = make_window(qtbot, tmp_path, resource("encounters", demo))
    main.share_markers_action.trigger()
    player = main.ensure_player_view()
    words = main.controller.engine.ruleset.conditions.menu()
    for c in main.controller.encounter.combatants:
        if c.id in main.controller.encounter.tokens:
            main.controller.do(act.EditCombatant(c.id, {"conditions": [w for w in words if w != "exhausted 3"][:8]}))
    for view in (main.map_view, player.view):
        for zoom in (0.5, 1.0, 3.0):
            view.resetTransform()
            view.scale(zoom, zoom)
            view.map_scene.set_view_scale(zoom)
            image = render(view)
            assert not image.isNull()
        marked = [i for i in view.map_scene.tokens.values() if i.layout().markers]
        assert marked
