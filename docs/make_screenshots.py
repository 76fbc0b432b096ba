"""Regenerate the README's screenshots in docs/screenshots/ (offscreen, the demo encounter).

Run with ``python3 dev.py screenshots``. Each picture is the real main window driven by real
mouse events, so the pictures show what a GM sees.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QEvent, QPointF, QSettings, Qt
from PySide6.QtGui import QColor, QImage, QMouseEvent, QPainter
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from lnl_desktop.core.dice.rolls import ScriptedDice
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.files import storage
from lnl_desktop.core.map.grid import Cell
from lnl_desktop.paths import demo_encounter_path
from lnl_desktop.ui.window.main_window import MainWindow
from lnl_desktop.ui.window.recovery import RecoveryStore

OUT = Path(__file__).resolve().parent / "screenshots"
LEFT, NONE = Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier


def window(app: QApplication, scratch: Path) -> MainWindow:
    # Settings of its own: each picture shows a first start, not the layout the last window left.
    settings = QSettings(str(Path(tempfile.mkdtemp(dir=scratch)) / "settings.ini"), QSettings.Format.IniFormat)
    main = MainWindow(storage.load(demo_encounter_path()), settings=settings, recovery=RecoveryStore(scratch))
    main.resize(1600, 1000)
    main.show()
    app.processEvents()
    main.map_view.fit_map()
    app.processEvents()
    return main


def settle(app: QApplication) -> None:
    """Let layouts that depend on wrapped text finish (they take a few passes)."""
    for _ in range(4):
        app.processEvents()


def point(main: MainWindow, cell: Cell) -> QPointF:
    view = main.map_view
    return QPointF(view.mapFromScene(view.scene_point_of(cell, 1)))


def mouse_move(main: MainWindow, cell: Cell, buttons: Qt.MouseButton = LEFT) -> None:
    viewport = main.map_view.viewport()
    at = point(main, cell)
    event = QMouseEvent(QEvent.Type.MouseMove, at, viewport.mapToGlobal(at), Qt.MouseButton.NoButton, buttons, NONE)
    QApplication.sendEvent(viewport, event)


def main() -> int:
    app = QApplication.instance() or QApplication(sys.argv[:1])
    OUT.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix="lnl-shots-"))

    # 1. The demo encounter as it opens, Tombril selected.
    main = window(app, scratch)
    main.controller.select("tombril")
    app.processEvents()
    main.grab().save(str(OUT / "main-window.png"))

    # 3. Mid-drag in a fight: Cedryk slips out from behind the crates, a waypoint pinned.
    main.controller.do(act.Face("half-orc", 0))  # the Half-orc looks north, towards Tombril
    main.controller.engine.start_combat(face=5)
    main.controller.do(act.BeginTurn("cedryk"))
    main.controller.select("cedryk")
    viewport = main.map_view.viewport()

    # 2. Hovering a foe: its vision cone and the cells from which Cedryk's approach stays unseen.
    mouse_move(main, (13, 9), Qt.MouseButton.NoButton)
    app.processEvents()
    main.grab().save(str(OUT / "vision-cone.png"))

    QTest.mousePress(viewport, LEFT, NONE, point(main, (5, 12)).toPoint())
    for cell in ((5, 13), (6, 14), (7, 14)):
        mouse_move(main, cell)
    QTest.keyClick(viewport, Qt.Key.Key_W)  # pin a waypoint
    for cell in ((8, 13), (9, 12)):
        mouse_move(main, cell)
    app.processEvents()
    main.grab().save(str(OUT / "drag-overlays.png"))
    QTest.mouseRelease(viewport, LEFT, NONE, point(main, (9, 12)).toPoint())
    app.processEvents()

    main.controller.undo_stack.setClean()
    main.close()

    # 4. Combat: Cedryk sneaks round behind the Half-orc; the action panel's sneak checklist and
    #    the forecast; then the attack with the rules text's faces, typed in.
    main = window(app, scratch)
    controller = main.controller
    controller.do(act.Move("cedryk", (12, 12), forced=True))
    controller.do(act.EditCombatant("cedryk", {"concealed": False}))
    controller.do(act.StartCombat(face=5))
    controller.do(act.BeginTurn("cedryk"))
    controller.select("cedryk")
    viewport = main.map_view.viewport()
    QTest.mousePress(viewport, LEFT, NONE, point(main, (12, 12)).toPoint())
    for cell in ((13, 12), (14, 11)):
        mouse_move(main, cell)
    QTest.keyClick(viewport, Qt.Key.Key_W)
    for cell in ((14, 10), (14, 9)):
        mouse_move(main, cell)
    QTest.mouseRelease(viewport, LEFT, NONE, point(main, (14, 9)).toPoint())
    main.action_panel.set_kind("sneak")
    main.action_panel.set_target("half-orc")
    main.docks["Action"].raise_()
    settle(app)
    main.grab().save(str(OUT / "combat-sneak.png"))
    main.action_panel.apply_faces([9, 4, 2, 2])
    main.docks["Round log"].raise_()
    settle(app)
    main.grab().save(str(OUT / "combat-result.png"))
    main.controller.undo_stack.setClean()
    main.close()

    # 5. The player view beside the GM's window: the Half-orc Archer hidden from the players, the
    #    Half-orc hurt (a condition word, not its numbers), Tombril's turn on the banner.
    main = window(app, scratch)
    controller = main.controller
    controller.do(act.SetHidden("half-orc-archer", True))
    orc = controller.encounter.combatant("half-orc")
    controller.do(act.EditCombatant("half-orc", {"stamina": max(0, orc.stamina_max // 3)}))
    controller.do(act.StartCombat(face=5))
    controller.do(act.BeginTurn("tombril"))
    controller.select("tombril")
    main.show_player_view(True)
    player = main.ensure_player_view()
    player.resize(1100, 1000)
    settle(app)
    player.view.fit_map()
    player.view.finish_animations()
    settle(app)
    gm, players = main.grab(), player.grab()
    composite = QImage(
        gm.width() + players.width() + 24, max(gm.height(), players.height()), QImage.Format.Format_RGB32
    )
    composite.fill(QColor("#202020"))
    painter = QPainter(composite)
    painter.drawPixmap(0, 0, gm)
    painter.drawPixmap(gm.width() + 24, 0, players)
    painter.end()
    composite.save(str(OUT / "player-view.png"))
    main.controller.undo_stack.setClean()
    main.close()

    # 6. File ▸ New: the encounter's name and its ruleset.
    main = window(app, scratch)
    dialog = main.new_file()
    assert dialog is not None
    dialog.name_edit.setText("Ambush at the ford")
    dialog.rulesets.choose("classic")
    settle(app)
    dialog.grab().save(str(OUT / "new-encounter.png"))
    dialog.reject()

    # 7. The L&L Classic demo: Tombril's Classic sheet (WIS, Defense Points) in the main window.
    main.open_demo("classic")
    main.controller.select("tombril")
    main.docks["Sheet"].raise_()
    main.docks["Round log"].raise_()
    settle(app)
    main.map_view.fit_map()
    settle(app)
    main.grab().save(str(OUT / "classic-sheet.png"))
    main.controller.undo_stack.setClean()
    main.close()

    # 8. The Old-School d20 demo: Brannoc dragged out of melee, the counter-attacks marked before
    #    the drop; then Tombril's attack set up with its chance to hit and the forecast.
    main = window(app, scratch)
    main.open_demo("osr")
    main.controller.do(act.StartCombat(situation="nobody surprised"), ScriptedDice([15, 5]))
    main.controller.do(act.BeginTurn("brannoc"))
    main.controller.select("brannoc")
    main.map_view.fit_map()
    settle(app)
    viewport = main.map_view.viewport()
    QTest.mousePress(viewport, LEFT, NONE, point(main, (7, 8)).toPoint())
    for cell in ((6, 9), (6, 10), (6, 11)):
        mouse_move(main, cell)
    app.processEvents()
    main.grab().save(str(OUT / "osr-counter-attack.png"))
    QTest.keyClick(viewport, Qt.Key.Key_Escape)
    QTest.mouseRelease(viewport, LEFT, NONE, point(main, (6, 11)).toPoint())
    main.controller.do(act.EndTurn())
    main.controller.do(act.BeginTurn("tombril"))
    main.controller.select("tombril")
    panel = main.action_panel
    panel.set_kind("melee")
    panel.set_means("Longsword")
    panel.set_target("hobgoblin-chief")
    panel.set_extra("cover", "-2")
    main.docks["Action"].raise_()
    main.docks["Forecast"].show()
    main.docks["Forecast"].raise_()
    settle(app)
    main.grab().save(str(OUT / "osr-to-hit.png"))
    main.controller.undo_stack.setClean()
    main.close()

    # 9. The Group d10 demo: the declare phase before round 1 (Cedryk to move, the rest declared
    #    by the GM), then Tombril's attack on a bandit minion with advantage from surprise.
    main = window(app, scratch)
    main.open_demo("d10")
    turns = main.turns_panel
    turns.declare("cedryk", "move")
    turns.declare("janine", "cast")
    turns.declare("tombril", "attack")
    main.controller.select("tombril")
    main.docks["Round log"].show()
    main.docks["Round log"].raise_()
    main.map_view.fit_map()
    settle(app)
    main.grab().save(str(OUT / "d10-declare.png"))
    turns.declare_all("attack")
    main.controller.do(act.StartCombat(situation="Party ambushes"), ScriptedDice([12, 8, 9, 4, 2]))
    main.controller.do(act.BeginTurn("tombril"))
    panel = main.action_panel
    panel.set_kind("attack")
    panel.set_means("Longsword")
    panel.set_target("bandit-1")
    panel.set_extra("gm_edge", "advantage")
    panel.set_extra("gm_reason", "Janine flanks it")
    main.docks["Action"].raise_()
    main.docks["Forecast"].show()
    main.docks["Forecast"].raise_()
    settle(app)
    main.grab().save(str(OUT / "d10-advantage.png"))
    main.controller.undo_stack.setClean()
    main.close()

    for name in (
        "d10-declare.png",
        "d10-advantage.png",
        "osr-counter-attack.png",
        "osr-to-hit.png",
        "new-encounter.png",
        "classic-sheet.png",
        "main-window.png",
        "drag-overlays.png",
        "vision-cone.png",
        "combat-sneak.png",
        "combat-result.png",
        "player-view.png",
    ):
        print(OUT / name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
