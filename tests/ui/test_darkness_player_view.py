"""Darkness hides on the player view (RULES §15), fog of war off: an archer in pitch dark is not
drawn for the players (no token item, and the pixels where it stands are the darkness's), a torch's
light shows it, and a Party member with 60 ft darkvision shows it within 60 ft and not beyond; the
darkvision's cells are dimmed for the players, not black. The GM always sees the archer. The GM
types a darkvision on the Sheet (one undo step) and finds the rule among the Rules options.

A 30 x 8 map, ambient light dark: Ana (Party) at (2, 3), the archer at (12, 3), 50 ft from her.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QCheckBox, QGraphicsView
from pytestqt.qtbot import QtBot
from qt_pictures import render

from lnl_desktop.core.encounter.actions import EditCombatant, Move, PlaceLight, SetAmbientLight
from lnl_desktop.core.encounter.map_model import MapGrid, Token
from lnl_desktop.core.encounter.model import Side
from lnl_desktop.core.rules.lnl.model import Combatant, Encounter
from lnl_desktop.ui.dialogs.options import RulesOptionsDialog
from lnl_desktop.ui.map import MapView
from lnl_desktop.ui.plumbing.controller import TableController
from lnl_desktop.ui.plumbing.style import CELL_PX
from lnl_desktop.ui.window.main_window import MainWindow
from lnl_desktop.ui.window.player_view import PlayerView

Table = tuple[TableController, MapView, PlayerView]


@pytest.fixture
def table(qtbot: QtBot) -> Table:
    encounter = Encounter(
        name="Dark hall",
        map=MapGrid(width=30, height=8),
        options={"light": "dark"},
        combatants=[
            Combatant(id="ana", name="Ana", side=Side.PARTY, level=1, stamina_max=6, injury_max=6, vision_deg=360),
            Combatant(id="archer", name="Archer", side=Side.OPPONENTS, level=1, stamina_max=4, injury_max=4),
        ],
        tokens={"ana": Token(cell=(2, 3), facing=90), "archer": Token(cell=(12, 3), facing=270)},
    )
    controller = TableController(encounter)
    view = MapView(controller)
    qtbot.addWidget(view)
    view.resize(1000, 500)
    view.show()
    qtbot.waitExposed(view)
    players = PlayerView(controller, view)
    qtbot.addWidget(players)
    players.resize(1000, 500)
    players.show()
    qtbot.waitExposed(players)
    return controller, view, players


def shade(view: QGraphicsView, image: QImage, cell: tuple[int, int]) -> int:
    """How light the players' picture is at the middle of ``cell`` (where a token's disc is drawn)."""
    where = view.mapFromScene(QPointF((cell[0] + 0.5) * CELL_PX, (cell[1] + 0.5) * CELL_PX))
    return image.pixelColor(where.x(), where.y()).lightness()


def drawn(players: PlayerView, cid: str) -> bool:
    item = players.scene.tokens.get(cid)
    return item is not None and item.isVisible()


def test_an_archer_in_pitch_dark_is_not_drawn_for_the_players_and_a_torch_shows_it(table: Table) -> None:
    controller, view, players = table
    assert not controller.encounter.fog.enabled
    assert not drawn(players, "archer") and drawn(players, "ana")
    assert "archer" in view.map_scene.tokens  # the GM sees it
    dark = shade(players.view, render(players.view), (12, 3))
    assert dark < 40  # nothing but darkness where it stands
    controller.do(PlaceLight("torch", cell=(13, 3)))
    assert drawn(players, "archer")
    assert shade(players.view, render(players.view), (12, 3)) > dark + 30
    controller.undo_stack.undo()
    assert not drawn(players, "archer")
    controller.do(SetAmbientLight("dim"))
    assert drawn(players, "archer")


def test_darkvision_shows_the_archer_within_60_ft_and_not_beyond(table: Table) -> None:
    controller, _view, players = table
    controller.do(EditCombatant("ana", {"darkvision_ft": 60}))
    assert drawn(players, "archer")  # 50 ft
    levels = players.scene.light.levels
    assert levels is not None and levels[3, 12] == 1 and levels[3, 20] == 0  # dimmed for the players, not lit
    controller.do(Move("archer", to=(16, 3), forced=True))  # 70 ft
    assert not drawn(players, "archer")
    controller.do(Move("ana", to=(5, 3), forced=True))  # 55 ft again
    assert drawn(players, "archer")
    controller.undo_stack.undo()
    controller.undo_stack.undo()
    controller.undo_stack.undo()  # no darkvision
    assert controller.encounter.combatant("ana").darkvision_ft == 0
    assert not drawn(players, "archer")


def test_the_gm_gives_darkvision_on_the_sheet_and_finds_the_rule_among_the_rules_options(
    laptop_window: Callable[..., MainWindow], qtbot: QtBot
) -> None:
    window = laptop_window()
    hero = next(c for c in window.controller.encounter.combatants if c.side is Side.PARTY)
    window.docks["Sheet"].raise_()
    window.controller.select(hero.id)
    steps = window.controller.undo_stack.count()
    edit = window.sheet.editor("darkvision_ft")
    edit.setFocus()
    edit.selectAll()
    qtbot.keyClicks(edit, "60")
    qtbot.keyClick(edit, Qt.Key.Key_Return)
    assert window.controller.encounter.combatant(hero.id).darkvision_ft == 60
    assert window.controller.undo_stack.count() == steps + 1
    assert "darkvision" in window.controller.encounter.log[-1].text.lower()
    window.controller.undo_stack.undo()
    assert window.controller.encounter.combatant(hero.id).darkvision_ft == 0
    dialog = RulesOptionsDialog(window.controller.encounter.options, "L&L", window)
    box = dialog.editors["darkvision"]
    assert isinstance(box, QCheckBox) and box.isChecked() and box.text().startswith("Darkvision counts")
