"""The window speaks the game's words: a refused field on the Sheet names it by its label and its
limits (never pydantic's "Input should be..."), each dock has one name on its tab, in the View menu
and on its panel, and the file dialogs start beside the open encounter file."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog, QLineEdit, QTabBar
from pytestqt.qtbot import QtBot

from lnl_desktop.core.encounter.validation import field_label
from lnl_desktop.core.files import storage
from lnl_desktop.core.rules.registry import BUILT_IN, get_ruleset
from lnl_desktop.paths import resource
from lnl_desktop.ui.docks.sheet import CombatantSheet
from lnl_desktop.ui.window.main_window import MainWindow

WindowFactory = Callable[..., MainWindow]


def demo_path(ruleset: str) -> Path:
    name = get_ruleset(ruleset).demo()
    assert name is not None
    return resource("encounters", name)


def type_into(qtbot: QtBot, edit: QLineEdit, text: str) -> None:
    """What a GM does: select the field's text, type over it, press Enter."""
    edit.setFocus()
    edit.selectAll()
    qtbot.keyClicks(edit, text)
    qtbot.keyClick(edit, Qt.Key.Key_Return)


def sheet_of(window: MainWindow) -> tuple[str, CombatantSheet]:
    """The Sheet tab brought forward on the first combatant: the combatant's name and the sheet."""
    window.docks["Sheet"].raise_()
    first = window.controller.encounter.combatants[0]
    window.controller.select(first.id)
    return first.name, window.sheet


# -- the Sheet's messages --------------------------------------------------------------------------


def test_a_negative_dr_typed_on_the_sheet_is_refused_in_the_games_words(
    laptop_window: WindowFactory, qtbot: QtBot
) -> None:
    window = laptop_window(storage.load(demo_path("d10")))
    name, sheet = sheet_of(window)
    before = window.controller.encounter.model_dump()
    steps = window.controller.undo_stack.count()
    dr = sheet.editor("dr")
    shown = dr.text()
    type_into(qtbot, dr, "-5")
    assert sheet.message == f"{name}: DR cannot be below 0 (got -5)"
    assert dr.property("invalid") is True and dr.text() == shown
    assert window.controller.encounter.model_dump() == before
    assert window.controller.undo_stack.count() == steps


@pytest.mark.parametrize(
    ("ruleset", "field", "text", "says"),
    [
        ("lnl", "level", "41", "Level cannot be above 40 (got 41)"),
        ("lnl", "dex_bonus", "-11", "DEX bonus cannot be below -10 (got -11)"),
        ("lnl", "move_ft", "900", "Move cannot be above 500 (got 900)"),
        ("lnl", "vision_deg", "0", "Field of vision cannot be below 1 (got 0)"),
        ("osr", "morale", "13", "Morale cannot be above 12 (got 13)"),
        ("osr", "attack_bonus", "99", "Attack bonus cannot be above"),
        ("d10", "defense", "-1", "Defense cannot be below"),
        ("classic", "armor", "31", "cannot be above 30 (got 31)"),
    ],
)
def test_every_refused_number_names_its_field_and_its_limit(
    laptop_window: WindowFactory, qtbot: QtBot, ruleset: str, field: str, text: str, says: str
) -> None:
    window = laptop_window(storage.load(demo_path(ruleset)))
    name, sheet = sheet_of(window)
    type_into(qtbot, sheet.editor(field), text)
    assert sheet.message.startswith(f"{name}: ") and says in sheet.message
    assert "Input should" not in sheet.message and f" {field}:" not in sheet.message


@pytest.mark.parametrize("ruleset", list(BUILT_IN))
def test_messages_name_every_field_as_the_sheet_labels_it(laptop_window: WindowFactory, ruleset: str) -> None:
    window = laptop_window(storage.load(demo_path(ruleset)))
    _, sheet = sheet_of(window)
    stat_block = get_ruleset(ruleset).stat_block
    checked = 0
    for key, binding in sheet.bindings.items():
        if binding.key != key or key not in stat_block.model_fields or key in ("traits", "shield"):
            continue  # a check box that edits a list (traits), or the shield box as a whole
        assert field_label(stat_block, (key,)) == binding.label, key
        checked += 1
    assert checked >= 8


# -- one name per dock -----------------------------------------------------------------------------


def test_each_dock_has_one_name_on_its_tab_in_the_view_menu_and_on_its_panel(laptop_window: WindowFactory) -> None:
    window = laptop_window()
    view_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&View")
    toggles = {a.text() for a in view_menu.actions()}
    tabs = {bar.tabText(i) for bar in window.findChildren(QTabBar) for i in range(bar.count())}
    for title, dock in window.docks.items():
        assert dock.windowTitle() == title
        assert dock.toggleViewAction().text() == title and title in toggles
        assert title in dock.toggleViewAction().statusTip()
        dock.raise_()  # the panel is made when first shown
        panel = window._panel(title) if title not in ("Turns", "Action", "Rules call for") else dock.widget()
        if panel.windowTitle():
            assert panel.windowTitle() == title, title
    assert {"Sheet", "History", "Round log", "Combatants"} <= tabs
    assert tabs <= set(window.docks)
    assert "Combatant sheet" not in toggles and "Undo history" not in toggles


# -- where the file dialogs start ------------------------------------------------------------------


def test_the_open_dialog_starts_beside_the_open_file(
    laptop_window: WindowFactory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    campaign = tmp_path / "campaign"
    campaign.mkdir()
    fight = campaign / "fight.lnl"
    shutil.copy(demo_path("lnl"), fight)
    window = laptop_window(storage.load(fight), fight)
    starts: list[str] = []

    def open_dialog(parent: object, title: str, start: str, filters: str) -> tuple[str, str]:
        starts.append(start)
        return "", ""

    def save_dialog(parent: object, title: str, start: str, filters: str) -> tuple[str, str]:
        starts.append(start)
        return "", ""

    monkeypatch.setattr(QFileDialog, "getOpenFileName", open_dialog)
    monkeypatch.setattr(QFileDialog, "getSaveFileName", save_dialog)
    window.open_action.trigger()  # File ▸ Open…
    assert starts and Path(starts[-1]) == campaign.resolve()
    window.docks["Sheet"].raise_()
    window.controller.select(window.controller.encounter.combatants[0].id)
    window.sheet.choose_portrait()  # Picture… on the Sheet
    assert Path(starts[-1]) == campaign.resolve()
    window.round_log.export()  # Export on the Round log
    assert Path(starts[-1]).parent == campaign.resolve()
