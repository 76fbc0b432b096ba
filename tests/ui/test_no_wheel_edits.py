"""The mouse wheel scrolls, it never edits: over every combo box, spin box and slider of every dock
and dialog, a wheel turned either way changes no value and adds no undo step unless the field has
the keyboard focus; it scrolls the panel round it instead. Scrolling down the Sheet once moved
Tombril's Side from Party to Opponents ("Tombril: side Party → Opponents" in the log).

The demos: the Hill Giant (Laurels & Loot), the goblin ambush (Old-School d20), the bandit mill
(Group d10), the window 1366 x 740.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QDialog,
    QScrollArea,
    QSlider,
    QWidget,
)
from waiting import run_until

from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.model import Phase, Side
from lnl_desktop.core.files import storage
from lnl_desktop.paths import resource
from lnl_desktop.ui.dialogs.area import AreaEffectDialog
from lnl_desktop.ui.dialogs.combat import StartCombatDialog
from lnl_desktop.ui.dialogs.damage_heal import DamageHealDialog
from lnl_desktop.ui.dialogs.faces import FacesDialog
from lnl_desktop.ui.dialogs.map_settings import BackgroundDialog, MapSettingsDialog
from lnl_desktop.ui.dialogs.options import RulesOptionsDialog
from lnl_desktop.ui.dialogs.rulesets import ConvertDialog, NewEncounterDialog
from lnl_desktop.ui.docks.prompts import ToolDialog
from lnl_desktop.ui.plumbing.controller import TableController
from lnl_desktop.ui.window.main_window import MainWindow

DEMOS = ["hill-giant.lnl", "goblin-ambush-osr.lnl", "bandit-mill-d10.lnl"]
EDITORS = (QComboBox, QAbstractSpinBox, QSlider)


def wheel(widget: QWidget, dy: int, dx: int = 0) -> None:
    """One notch of the wheel over the middle of ``widget`` (down for a negative ``dy``)."""
    at = QPointF(widget.rect().center())
    event = QWheelEvent(
        at,
        QPointF(widget.mapToGlobal(at.toPoint())),
        QPoint(0, 0),
        QPoint(dx, dy),
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
        Qt.ScrollPhase.NoScrollPhase,
        False,
    )
    QApplication.sendEvent(widget, event)


def editors_in(root: QWidget) -> list[QWidget]:
    return [w for w in root.findChildren(QWidget) if isinstance(w, EDITORS) and w.isVisible() and w.isEnabled()]


def shown(widget: QWidget) -> object:
    if isinstance(widget, QComboBox):
        return (widget.currentIndex(), widget.currentText())
    if isinstance(widget, QAbstractSpinBox):
        return widget.text()
    assert isinstance(widget, QSlider)
    return widget.value()


def no_focus_in(widget: QWidget) -> None:
    """As when the GM scrolls past the field without having clicked it."""
    focused = QApplication.focusWidget()
    if focused is not None and (focused is widget or widget.isAncestorOf(focused)):
        focused.clearFocus()
    assert not widget.hasFocus()


def wheel_over_every_editor(root: QWidget, controller: TableController, where: str) -> int:
    """Wheel up and down over every editable field in ``root``; nothing may change. How many there were."""
    stack = controller.undo_stack
    fields = editors_in(root)
    for field in fields:
        no_focus_in(field)
        before, steps, log = shown(field), (stack.count(), stack.index()), len(controller.encounter.log)
        for dy in (-120, -120, 120, 120, 120):  # both ways: one of them would move any field
            wheel(field, dy)
        QApplication.processEvents()
        what = f"{where}: {type(field).__name__} {field.objectName() or field.toolTip()[:40]!r}"
        assert shown(field) == before, f"the wheel changed {what}"
        assert (stack.count(), stack.index()) == steps, f"the wheel made an undo step in {what}"
        assert len(controller.encounter.log) == log, f"the wheel wrote to the log from {what}"
        assert field.focusPolicy() != Qt.FocusPolicy.WheelFocus, f"a wheel would give {what} the focus"
    return len(fields)


def window_for(laptop_window, demo: str) -> MainWindow:  # type: ignore[no-untyped-def]
    """The demo's window in its first fight: a turn under way, its combatant selected."""
    window: MainWindow = laptop_window(storage.load(resource("encounters", demo)))
    controller = window.controller
    dialog = window.turns_panel.start_combat()
    dialog.accept()
    dialog.close()  # where the rules wait for more (Group d10's declarations)
    window.activateWindow()  # the keyboard back on the window, as after the dialog at the table
    run_until(window.isActiveWindow, 5, "the window active again")
    combat = controller.encounter.combat
    if combat.phase is not Phase.SETUP and combat.turn is None:
        # Whichever side won the initiative: the first of it whose turn may begin.
        for c in sorted(controller.encounter.combatants, key=lambda c: c.side is not Side.PARTY):
            if controller.do(act.BeginTurn(c.id)) is not None:
                break
    party = next(c.id for c in controller.encounter.combatants if c.side is Side.PARTY)
    controller.select(combat.turn.combatant if combat.turn is not None else party)
    return window


@pytest.fixture(params=DEMOS)
def fighting(request: pytest.FixtureRequest, laptop_window) -> Iterator[MainWindow]:  # type: ignore[no-untyped-def]
    yield window_for(laptop_window, request.param)


def test_no_wheel_over_any_dock_edits_a_field_it_has_not_the_focus_of(fighting: MainWindow) -> None:
    window = fighting
    counted: dict[str, int] = {}
    for title, dock in window.docks.items():
        dock.show()
        dock.raise_()
        QApplication.processEvents()
        counted[title] = wheel_over_every_editor(dock, window.controller, f"the {title} dock")
    # Not a test of nothing: the docks with fields have them on show.
    assert counted["Sheet"] >= 2 and counted["Round log"] >= 1 and counted["Odds"] >= 1, counted
    if window.controller.encounter.combat.turn is not None:
        assert counted["Action"] >= 1, counted  # the turn's action, means and target
    else:
        assert counted["Turns"] >= 1, counted  # Group d10's declarations


def dialogs_of(window: MainWindow) -> Iterator[tuple[str, QDialog]]:
    """Every dialog the GM can open on this encounter, made as the window makes it, one at a time."""
    controller, encounter = window.controller, window.controller.encounter

    def apply(changes: dict[str, object]) -> str | None:
        done = controller.do(act.EditOptions(changes)) is not None
        return None if done else controller.refusal or "refused"

    yield "Rules options", RulesOptionsDialog(encounter.options, controller.engine.ruleset.title, window, apply=apply)
    yield "Map settings", MapSettingsDialog(encounter.map, window)
    yield "Background", BackgroundDialog(encounter.map.background, controller.base_dir, window, folders=window.folders)
    yield "Start combat", StartCombatDialog(encounter, window)
    yield "New encounter", NewEncounterDialog(parent=window)
    yield "Convert", ConvertDialog(encounter, window)
    yield "Faces", FacesDialog("A roll", "Type 1 die", lambda faces: None, window)
    cid = controller.selected
    assert cid is not None
    yield "Damage / Heal", DamageHealDialog(controller, cid, window)
    token = encounter.tokens[cid]
    assert controller.do(act.PlaceTemplate("circle", (token.cell[0] + 3.0, token.cell[1] + 0.5), 10, 0.0, "Fireball"))
    template = controller.encounter.templates[-1]
    yield "Area effect", AreaEffectDialog(controller, template, window, caster=cid)
    for spec in controller.engine.ruleset.prompts.tools(controller.engine):
        dialog = ToolDialog(controller, spec, window)
        dialog.ask()
        yield spec.title, dialog


def test_no_wheel_over_any_dialog_edits_a_field_it_has_not_the_focus_of(fighting: MainWindow) -> None:
    window = fighting
    counted: dict[str, int] = {}
    for name, dialog in dialogs_of(window):
        dialog.show()
        QApplication.processEvents()
        counted[name] = wheel_over_every_editor(dialog, window.controller, f"the {name} dialog")
        dialog.close()
        dialog.deleteLater()
    assert counted["Map settings"] >= 4 and counted["Damage / Heal"] >= 1 and counted["Area effect"] >= 1, counted
    assert counted["Rules options"] >= 1, counted


def side_box(window: MainWindow) -> QComboBox:
    sheet = window.sheet
    (box,) = [w for w in editors_in(sheet) if isinstance(w, QComboBox) and w.currentText() == "Party"]
    return box


def sheet_scroll(window: MainWindow) -> QScrollArea:
    scroll = window.sheet.scroll
    assert isinstance(scroll, QScrollArea)
    return scroll


@pytest.fixture
def sheet_in_front(laptop_window) -> MainWindow:  # type: ignore[no-untyped-def]
    """The Hill Giant's fight, Tombril's Sheet in front, scrolled to the top."""
    window = window_for(laptop_window, DEMOS[0])
    window.controller.select("tombril")
    dock = window.docks["Sheet"]
    dock.show()
    dock.raise_()
    QApplication.processEvents()
    bar = sheet_scroll(window).verticalScrollBar()
    assert bar.maximum() > 0  # at 1366 x 740 the Sheet is taller than its dock: there is a way to scroll
    bar.setValue(0)
    return window


def test_the_wheel_over_the_sides_box_scrolls_the_sheet_and_leaves_tombril_in_the_party(
    sheet_in_front: MainWindow,
) -> None:
    window = sheet_in_front
    box = side_box(window)
    no_focus_in(box)
    bar = sheet_scroll(window).verticalScrollBar()
    wheel(box, -120)  # down
    assert bar.value() > 0  # the Sheet scrolled on
    c = window.controller.combatant("tombril")
    assert c is not None and c.side is Side.PARTY and box.currentText() == "Party"
    assert not [e for e in window.controller.encounter.log if "side" in getattr(e, "text", "")]
    # Clicked first (the keyboard focus in it): the wheel steps it, as the GM means it to.
    box.setFocus(Qt.FocusReason.MouseFocusReason)
    steps = window.controller.undo_stack.count()
    wheel(box, -120)
    assert box.currentText() != "Party" and window.controller.undo_stack.count() == steps + 1


def test_an_up_and_down_wheel_over_the_weapons_table_scrolls_the_sheet_not_the_table_sideways(
    sheet_in_front: MainWindow,
) -> None:
    window = sheet_in_front
    table = window.sheet.item_tables["weapons"]
    sideways = table.horizontalScrollBar().value()
    bar = sheet_scroll(window).verticalScrollBar()
    assert table.verticalScrollBar().maximum() == 0  # every weapon on show: nothing to scroll up or down
    assert table.horizontalScrollBar().maximum() > 0  # its columns a little wider than the dock
    wheel(table.viewport(), -120)
    assert table.horizontalScrollBar().value() == sideways
    assert bar.value() > 0
    # A sideways wheel (a tilt or a touchpad) still scrolls it sideways.
    wheel(table.viewport(), 0, dx=-120)
    assert table.horizontalScrollBar().value() != sideways
