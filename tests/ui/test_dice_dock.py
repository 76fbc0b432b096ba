"""The Dice dock through the real main window: typing an expression and Enter, the faces and the
total shown, the round log's line, undo, a mistake shown with its place, typed faces, the
ruleset's quick rolls, and a secret roll never reaching the player view."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QImage, QKeySequence
from PySide6.QtWidgets import QApplication, QMessageBox
from pytestqt.qtbot import QtBot

from lnl_desktop.core.dice.rolls import ScriptedDice
from lnl_desktop.core.encounter.actions import Face
from lnl_desktop.core.encounter.events import DiceRolled
from lnl_desktop.core.files import storage
from lnl_desktop.paths import demo_encounter_path
from lnl_desktop.ui.docks.dice import DicePanel
from lnl_desktop.ui.plumbing.theme import Presentation
from lnl_desktop.ui.window.main_window import MainWindow
from lnl_desktop.ui.window.player_view import PlayerView
from lnl_desktop.ui.window.recovery import RecoveryStore


@pytest.fixture
def window(qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[MainWindow]:
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Discard)
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    main = MainWindow(
        storage.load(demo_encounter_path()), settings=settings, recovery=RecoveryStore(tmp_path / "recovery")
    )
    qtbot.addWidget(main)
    with qtbot.waitActive(main):
        main.show()
        main.activateWindow()
    yield main
    Presentation().apply(QApplication.instance())


def dice_with(window: MainWindow, faces: list[int]) -> None:
    """The window's dice give these faces next (the app's own dice, scripted)."""
    window.controller.engine.dice = ScriptedDice(faces)


def rolls(window: MainWindow) -> list[DiceRolled]:
    return [e for e in window.controller.encounter.log if isinstance(e, DiceRolled)]


def open_dice(qtbot: QtBot, window: MainWindow) -> DicePanel:
    """The GM's way in: Combat ▸ Roll dice… by its shortcut puts the cursor in the field."""
    assert window.roll_dice_action.shortcut() == QKeySequence("Ctrl+Shift+R")
    keys = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
    qtbot.keyClick(window.map_view, Qt.Key.Key_R, keys)
    panel = window.dice_panel
    qtbot.waitUntil(lambda: panel.field.hasFocus())
    assert window.docks["Dice"].isVisible()
    return panel


def test_typing_an_expression_and_enter_rolls_it(qtbot: QtBot, window: MainWindow) -> None:
    panel = open_dice(qtbot, window)
    dice_with(window, [4, 6])
    qtbot.keyClicks(panel.field, "2d6+3 stealth")
    qtbot.keyClick(panel.field, Qt.Key.Key_Return)
    (event,) = rolls(window)
    assert event.text == "GM rolls 2d6+3 (stealth): 4 + 6 + 3 = 13"
    assert panel.total_label.text() == "13"
    assert "<b>4</b>" in panel.faces_label.text() and "<b>6</b>" in panel.faces_label.text()
    assert "5 to 15" in panel.caption_label.text()
    assert panel.history.count() == 1 and "13" in panel.history.item(0).text()
    # The round log shows the line.
    log = window.round_log
    texts = [log.model.index(r, 0).data() for r in range(log.model.rowCount())]
    assert any("GM rolls 2d6+3 (stealth)" in str(t) for t in texts) or any(
        "GM rolls 2d6+3 (stealth)" in str(log.model.index(r, c).data())
        for r in range(log.model.rowCount())
        for c in range(log.model.columnCount())
    )
    # One undo step takes it away, from the log, the history and the result.
    window.undo_action.trigger()
    assert rolls(window) == []
    assert panel.history.count() == 0
    assert panel.total_label.text() == "–"
    window.redo_action.trigger()
    assert [e.text for e in rolls(window)] == [event.text]
    assert panel.total_label.text() == "13"


def test_dropped_and_exploding_faces_are_marked(qtbot: QtBot, window: MainWindow) -> None:
    panel = open_dice(qtbot, window)
    dice_with(window, [1, 5, 6, 4])
    qtbot.keyClicks(panel.field, "4d6kh3")
    panel.roll_button.click()
    assert panel.total_label.text() == "15"
    assert "<s" in panel.faces_label.text() and ">1</s>" in panel.faces_label.text()
    panel.field.clear()
    dice_with(window, [6, 2, 3, 1])
    qtbot.keyClicks(panel.field, "3d6!")
    qtbot.keyClick(panel.field, Qt.Key.Key_Return)
    assert panel.total_label.text() == "12"
    assert "<b>6!</b>" in panel.faces_label.text() and "<b>+1</b>" in panel.faces_label.text()
    assert "3 or more" in panel.caption_label.text()
    assert panel.history.count() == 2 and "3d6!" in panel.history.item(0).text()


def test_a_bad_expression_shows_its_place_and_changes_nothing(qtbot: QtBot, window: MainWindow) -> None:
    panel = open_dice(qtbot, window)
    log_length = len(window.controller.encounter.log)
    steps = window.controller.undo_stack.count()
    qtbot.keyClicks(panel.field, "2d")
    qtbot.keyClick(panel.field, Qt.Key.Key_Return)
    assert panel.error_label.isVisible()
    assert "at 3: a die needs its sides" in panel.error_label.text()
    assert panel.field.cursorPosition() == 2  # at the mistake
    for bad in ("d0", "999999d6", "x" * 5000):
        panel.field.setText(bad)
        panel.roll_button.click()
        assert "at " in panel.error_label.text()
    assert "at 201" in panel.error_label.text()
    assert len(window.controller.encounter.log) == log_length
    assert window.controller.undo_stack.count() == steps
    # Typing again clears the mistake.
    panel.field.clear()
    qtbot.keyClicks(panel.field, "d")
    assert not panel.error_label.isVisible()


def test_quick_rolls_follow_the_ruleset(qtbot: QtBot, window: MainWindow) -> None:
    panel = open_dice(qtbot, window)
    assert [b.text() for b in panel.quick_buttons] == ["Initiative d6", "d20"]
    dice_with(window, [5])
    panel.quick_buttons[0].click()
    assert rolls(window)[-1].text == "GM rolls d6: 5"
    assert window.document.open_demo("osr")
    assert [b.text() for b in panel.quick_buttons] == ["d20", "Advantage", "Disadvantage"]
    dice_with(window, [4, 17])
    panel.quick_buttons[1].click()
    assert panel.total_label.text() == "17"


def test_typed_faces_through_the_faces_dialog(qtbot: QtBot, window: MainWindow) -> None:
    panel = open_dice(qtbot, window)
    qtbot.keyClicks(panel.field, "3d6! fire")
    dialog = panel.type_faces()
    assert dialog is not None
    assert "at least 3 faces" in dialog.hint_label.text()
    qtbot.keyClicks(dialog.edit, "6 2 3")
    assert not dialog.ok_button.isEnabled()  # the 6 explodes: one more die
    assert "explode" in dialog.status_label.text()
    dialog.edit.setText("6 2 3 4")
    assert dialog.ok_button.isEnabled()
    dialog.ok_button.click()
    assert rolls(window)[-1].text == "GM rolls 3d6! (fire): 6! + 2 + 3 + 4 = 15"
    window.undo_action.trigger()
    window.redo_action.trigger()  # the same typed faces again
    assert rolls(window)[-1].total == 15


def render(view: PlayerView) -> QImage:
    """The whole player window as the players see it: the banner and the map."""
    return view.grab().toImage()


def test_a_secret_roll_never_reaches_the_player_view(qtbot: QtBot, window: MainWindow) -> None:
    window.player_view_action.trigger()
    player = window.player_view
    assert player is not None
    qtbot.waitExposed(player)
    panel = open_dice(qtbot, window)
    before_text = player.banner.text()
    before = render(player)

    panel.secret_box.setChecked(True)
    dice_with(window, [19])
    qtbot.keyClicks(panel.field, "d20 secret door")
    qtbot.keyClick(panel.field, Qt.Key.Key_Return)
    assert rolls(window)[-1].text == "GM rolls d20 (secret door) in secret: 19"
    assert player.banner.text() == before_text
    assert "secret door" not in player.banner.text() and "19" not in player.banner.text()
    assert render(player) == before  # not a pixel changed
    # Its undo changes nothing either.
    window.undo_action.trigger()
    assert player.banner.text() == before_text
    assert render(player) == before

    # The control: a shared roll shows on the banner, so the check above can see a roll if one leaks.
    panel.secret_box.setChecked(False)
    panel.field.clear()
    dice_with(window, [13])
    qtbot.keyClicks(panel.field, "d20 perception")
    qtbot.keyClick(panel.field, Qt.Key.Key_Return)
    assert "Roll d20 (perception): 13" in player.banner.text()
    assert render(player) != before
    # A secret roll after a shared one leaves the banner as it was.
    shown = player.banner.text()
    panel.secret_box.setChecked(True)
    dice_with(window, [2])
    panel.roll_quick("d6")
    assert player.banner.text() == shown
    # Anything else done takes the shared roll off the banner.
    cid, token = next(iter(window.controller.encounter.tokens.items()))
    assert window.controller.do(Face(cid, (token.facing + 1) % 8)) is not None
    assert "Roll" not in player.banner.text()


def test_a_roll_past_the_limit_is_refused_in_the_dock_and_nothing_is_logged(qtbot: QtBot, window: MainWindow) -> None:
    panel = open_dice(qtbot, window)
    log_length = len(window.controller.encounter.log)
    steps = window.controller.undo_stack.count()
    too_big = "+".join(["100d2!"] * 20)
    qtbot.keyClicks(panel.field, too_big)
    qtbot.keyClick(panel.field, Qt.Key.Key_Return)
    assert panel.error_label.isVisible()
    assert "at 71: at most 1,000 dice in one roll (this asks for 2,000)" in panel.error_label.text()
    assert panel.field.cursorPosition() == 70  # at the term that goes past the limit
    assert len(window.controller.encounter.log) == log_length
    assert window.controller.undo_stack.count() == steps
    assert panel.history.count() == 0
    # A Kelvin sign is not a k: refused at its place.
    panel.field.setText("2d6\u212a1")
    panel.roll_button.click()
    assert "at 4: character" in panel.error_label.text() and "U+212A" in panel.error_label.text()
    assert len(window.controller.encounter.log) == log_length


def test_the_biggest_roll_is_shown_compactly(qtbot: QtBot, window: MainWindow) -> None:
    from lnl_desktop.core.dice.notation import MOST_ROLLED

    panel = open_dice(qtbot, window)
    dice_with(window, [1] * 50 + [2] * (MOST_ROLLED - 1000) + [1] * 950)
    qtbot.keyClicks(panel.field, "50d2!+" + "+".join(["100d2!"] * 9) + " + 50d2!")
    qtbot.keyClick(panel.field, Qt.Key.Key_Return)
    assert not panel.error_label.isVisible()
    (event,) = rolls(window)
    assert panel.total_label.text() == str(event.total)
    faces = panel.faces_label.text()
    assert faces.count("<b>1</b>") == 100  # the first and last terms' faces, each shown
    assert "100d2!: <b>6100</b> (3,100 dice, 3,000 from explosions)" in faces  # the second's explosions
    assert "dice, " in faces and "from explosions" in faces
    assert len(faces) < 5_000
    assert len(panel.history.item(0).text()) < 1_000
    # Exploding dice past the most one roll rolls: refused, and nothing logged.
    dice_with(window, [2] * (MOST_ROLLED + 1))
    panel.field.setText("d2!")
    panel.roll_button.click()
    assert f"at most {MOST_ROLLED:,} dice rolled in one roll" in panel.error_label.text()
    assert len(rolls(window)) == 1


def test_typed_faces_for_more_dice_than_the_dialog_takes_are_refused(qtbot: QtBot, window: MainWindow) -> None:
    panel = open_dice(qtbot, window)
    qtbot.keyClicks(panel.field, "+".join(["100d2!"] * 4))
    assert panel.type_faces() is None
    assert "typed faces are for at most 300 dice (this asks for 400)" in panel.error_label.text()
    panel.field.setText("+".join(["100d6"] * 3))
    dialog = panel.type_faces()
    assert dialog is not None and "300 faces" in dialog.hint_label.text()
    dialog.reject()
