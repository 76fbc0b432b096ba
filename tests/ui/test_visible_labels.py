"""A name typed with a right-to-left override and an ESC is shown with both as escapes wherever the
program shows it (the token, the Turns list, the Combatants dock, the log, the player view's banner,
the window's title, the exports, the odds command), and kept as typed in the file."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import QModelIndex, QSettings, Qt
from PySide6.QtWidgets import QApplication, QMessageBox
from pytestqt.qtbot import QtBot

from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.drawings import Drawing, DrawingKind
from lnl_desktop.core.encounter.model import Encounter
from lnl_desktop.core.engine.engine import Engine
from lnl_desktop.core.files import export, storage
from lnl_desktop.paths import demo_encounter_path
from lnl_desktop.ui.map.drawings import DrawingItem
from lnl_desktop.ui.map.labels import token_labels
from lnl_desktop.ui.plumbing.theme import Presentation
from lnl_desktop.ui.window.main_window import MainWindow
from lnl_desktop.ui.window.player_view import banner_text
from lnl_desktop.ui.window.recovery import RecoveryStore

TYPED = "Tom\u202ebril\x1b[2J"  # a right-to-left override, then a terminal's "clear the screen"
SHOWN = "Tom\\u202ebril\\x1b[2J"
RAW = ("\u202e", "\u2066", "\u2067", "\x1b", "\x07")


def hostile(encounter: Encounter) -> Encounter:
    """The demo with Tombril named as typed, and a label that has a line of its own and an ESC."""
    named = [c.model_copy(update={"name": TYPED}) if c.id == "tombril" else c for c in encounter.combatants]
    label = Drawing(id="d1", kind=DrawingKind.TEXT, points=((2, 2),), text="Trap\nhere\x1b[5m", shown=True)
    return encounter.model_copy(update={"combatants": named, "name": f"Mill\u2067 {TYPED}", "drawings": (label,)})


@pytest.fixture
def window(qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> MainWindow:
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Discard)
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    main = MainWindow(
        hostile(storage.load(demo_encounter_path())), settings=settings, recovery=RecoveryStore(tmp_path / "recovery")
    )
    qtbot.addWidget(main)
    main.show()
    qtbot.waitExposed(main)
    yield main
    Presentation().apply(QApplication.instance())


def assert_escaped(text: str) -> None:
    assert not any(ch in text for ch in RAW), repr(text)


def test_a_hostile_name_is_shown_escaped_everywhere(qtbot: QtBot, window: MainWindow) -> None:
    controller = window.controller
    # the window's title
    assert_escaped(window.windowTitle())
    assert "Mill\\u2067 " + SHOWN in window.windowTitle()

    # the token: its tooltip names it, its label is letters only
    token = window.map_view.map_scene.tokens["tombril"]
    assert SHOWN in token.toolTip()
    assert_escaped(token.look.tooltip)
    assert_escaped(token.look.label)

    # the Combatants dock: the name shown, its tooltip; the sheet edits it as typed
    model = window.combatants_panel.model
    row = model.row_of("tombril")
    assert model.index(row, 0).data() == SHOWN
    assert_escaped(model.index(row, 0).data(Qt.ItemDataRole.ToolTipRole))
    assert controller.combatant("tombril").name == TYPED

    # the Turns list
    item = window.turns_panel.item_for("tombril")
    assert item is not None
    assert item.text(0) == SHOWN
    assert_escaped(item.toolTip(0))

    # a turn under way: the banner, the turn buttons, the log's lines
    assert controller.do(act.StartCombat(face=5)) is not None, controller.refusal
    assert controller.do(act.BeginTurn("tombril")) is not None, controller.refusal
    assert controller.do(act.OtherAction("tombril", "shouts")) is not None, controller.refusal
    assert banner_text(controller) == f"Round 1 · {SHOWN}'s turn"
    window.player_view_action.trigger()
    assert window.player_view is not None
    assert window.player_view.banner.text().startswith(f"Round 1 · {SHOWN}'s turn")
    assert_escaped(window.turns_panel.end_turn_button.text())
    assert_escaped(window.turns_panel.end_turn_button.toolTip())

    log = window.round_log.model
    texts = [log.index(r, 1).data() for r in range(log.rowCount(QModelIndex()))]
    tips = [log.index(r, 1).data(Qt.ItemDataRole.ToolTipRole) for r in range(log.rowCount(QModelIndex()))]
    assert any(SHOWN in text for text in texts), texts
    for text in texts + tips:
        assert_escaped(text)
    assert any(TYPED in e.text for e in controller.encounter.log)  # the log keeps the name as typed


def test_a_drawing_label_keeps_its_lines_and_escapes_the_rest(window: MainWindow) -> None:
    item = next(i for i in window.map_view.map_scene.items() if isinstance(i, DrawingItem))
    assert item.shown_text == "Trap\nhere\\x1b[5m"
    assert item.drawing.text == "Trap\nhere\x1b[5m"


def test_short_labels_never_draw_nothing() -> None:
    assert token_labels(["\u3164\u3164", "Goblin"]) == ["\\u3164\\u3164", "Go"]


def test_the_file_keeps_the_name_as_typed(tmp_path: Path) -> None:
    encounter = hostile(storage.load(demo_encounter_path()))
    path = storage.save(encounter, tmp_path / "hostile.lnl")
    again = storage.load(path)
    assert again.combatant("tombril").name == TYPED
    assert again.name == encounter.name
    assert again.drawings[0].text == "Trap\nhere\x1b[5m"


def test_exports_escape_what_a_terminal_or_browser_would_obey() -> None:
    engine = Engine(hostile(storage.load(demo_encounter_path())))
    engine.apply(act.StartCombat(face=5))
    engine.apply(act.BeginTurn("tombril"))
    engine.apply(act.OtherAction("tombril", "shouts \u2066back\x07"))
    encounter = engine.encounter
    for text in (export.to_markdown(encounter), export.to_html(encounter), export.to_csv(encounter)):
        assert_escaped(text)
        assert SHOWN in text


def test_the_odds_command_prints_names_escaped(tmp_path: Path) -> None:
    path = storage.save(hostile(storage.load(demo_encounter_path())), tmp_path / "hostile.lnl")
    done = subprocess.run(
        [sys.executable, "-m", "lnl_desktop", "odds", str(path), "--fights", "20", "--seed", "1"],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert_escaped(done.stdout)
    assert SHOWN in done.stdout


def test_the_status_bar_and_a_refusal_show_a_hostile_name_escaped(window: MainWindow) -> None:
    """Every message that names a combatant reaches the status bar or the refusal toast: both escape."""
    controller = window.controller
    controller.do(act.Move("tombril", (8, 8), forced=True))
    window.statusBar().showMessage(f"{TYPED} moves 10 ft")
    words = window.statusBar().words.text()
    assert SHOWN in words
    assert_escaped(words)
    window.toast.say(f"{TYPED} has no action left")
    assert SHOWN in window.toast.text()
    assert_escaped(window.toast.text())
