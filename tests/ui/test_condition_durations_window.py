"""Conditions with durations in the real main window (RULES §10 "How long a condition lasts"), as a
GM works them on the demo: a condition given from the Sheet's menu with how long it lasts, what is
left shown on the sheet and on the marker's tooltip, counted down by the end of turns and removed
with a log line, Undo bringing it back with its duration; typing on the conditions line keeps the
durations of the conditions kept."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QLineEdit, QMenu, QWidget
from waiting import run_until

from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.model import DurationKind
from lnl_desktop.core.files import storage
from lnl_desktop.paths import resource
from lnl_desktop.ui.plumbing import condition_menu
from lnl_desktop.ui.window.main_window import MainWindow

WindowFactory = Callable[..., MainWindow]


def entry(menu: QMenu, *path: str) -> QAction:
    """The action at ``path`` of the menu, by its text without the mnemonic's "&"."""
    action: QAction | None = None
    for i, text in enumerate(path):
        found = [a for a in menu.actions() if a.text().replace("&&", "\0").replace("&", "").replace("\0", "&") == text]
        assert found, f"no {text!r} in {[a.text() for a in menu.actions()]}"
        action = found[0]
        if i < len(path) - 1:
            sub = action.menu()
            assert isinstance(sub, QMenu), f"{text!r} is no sub-menu"
            menu = sub
    assert action is not None
    return action


def shown(label: QWidget) -> bool:
    """Shown on the sheet (whether or not its dock is the tab in front)."""
    return not label.isHidden()


def sheet_menu(window: MainWindow, cid: str) -> QMenu:
    window.controller.select(cid)
    return window.sheet.fill_conditions_menu()


def token_tip(window: MainWindow, cid: str) -> str:
    return window.map_view.map_scene.tokens[cid].toolTip()


def log_lines(window: MainWindow) -> list[str]:
    model = window.round_log.model
    return [
        str(model.index(row, column).data(Qt.ItemDataRole.DisplayRole) or "")
        for row in range(model.rowCount())
        for column in range(model.columnCount())
    ]


def play_until_turn_of(window: MainWindow, cid: str) -> None:
    """Every other combatant waiting takes and ends its turn (a new round when nobody waits) until
    ``cid`` begins its own."""
    controller = window.controller
    for _ in range(40):
        waiting = [c.id for c in controller.engine.waiting()]
        if cid in waiting:
            assert controller.do(act.BeginTurn(cid)) is not None, controller.refusal
            return
        if waiting:
            assert controller.do(act.BeginTurn(waiting[0])) is not None, controller.refusal
            assert controller.do(act.EndTurn()) is not None, controller.refusal
        else:
            assert controller.do(act.NextRound(face=4)) is not None, controller.refusal
    raise AssertionError(f"{cid} never had a turn")


def test_a_stun_of_one_round_from_the_sheets_menu_ends_by_itself_and_undo_brings_it_back(
    demo_window: MainWindow,
) -> None:
    window, controller, sheet = demo_window, demo_window.controller, demo_window.sheet
    menu = sheet_menu(window, "tombril")
    steps = controller.undo_stack.index()
    one_round = entry(menu, "Add condition", "stunned", "1 round")
    assert "end of its next turn" in one_round.toolTip()
    one_round.trigger()
    tombril = controller.combatant("tombril")
    assert tombril is not None and tombril.conditions == ["stunned"]
    given = tombril.durations["stunned"]
    assert (given.kind, given.rounds) == (DurationKind.ROUNDS, 1)
    assert controller.undo_stack.index() == steps + 1  # one step
    assert "Tombril is stunned (1 round)" in log_lines(window)

    # What is left, where the GM looks: the sheet and the marker's tooltip.
    assert shown(sheet.conditions_left) and sheet.conditions_left.text() == "stunned · 1 round left"
    assert sheet.editor("conditions").text() == "stunned"  # the line keeps the bare words to type in
    run_until(lambda: "stunned · 1 round left" in token_tip(window, "tombril"), 5, "the marker's tooltip")
    # The menu now lists it with what is left, and the stun is not offered again.
    menu = sheet_menu(window, "tombril")
    entry(menu, "stunned · 1 round left", "Remove")
    assert not entry(menu, "Add condition", "stunned").isEnabled()

    # The fight: Tombril's next turn ends it, in the same step as the end of that turn.
    assert controller.do(act.StartCombat(face=5)) is not None, controller.refusal
    play_until_turn_of(window, "tombril")
    assert controller.combatant("tombril").conditions == ["stunned"]  # type: ignore[union-attr]
    before_end = controller.undo_stack.index()
    assert controller.do(act.EndTurn()) is not None, controller.refusal
    assert controller.undo_stack.index() == before_end + 1
    tombril = controller.combatant("tombril")
    assert tombril is not None and tombril.conditions == [] and tombril.durations == {}
    assert "Tombril is no longer stunned (1 round)" in log_lines(window)
    assert not shown(sheet.conditions_left)
    run_until(lambda: "stunned" not in token_tip(window, "tombril"), 5, "the marker gone from the tooltip")

    # Undo of that one step: stunned again, with its round, on the sheet and the tooltip.
    controller.undo_stack.undo()
    tombril = controller.combatant("tombril")
    assert tombril is not None and tombril.conditions == ["stunned"]
    assert tombril.durations["stunned"].rounds == 1
    assert sheet.conditions_left.text() == "stunned · 1 round left"
    run_until(lambda: "stunned · 1 round left" in token_tip(window, "tombril"), 5, "the tooltip after Undo")


def test_n_rounds_asked_and_changed_and_removed_from_the_menu_each_one_step(
    demo_window: MainWindow, monkeypatch: pytest.MonkeyPatch
) -> None:
    window, controller, sheet = demo_window, demo_window.controller, demo_window.sheet
    asked: list[tuple[int, int]] = []

    def ask(parent: object, title: str, label: str, lowest: int, highest: int, start: int) -> int | None:
        asked.append((lowest, highest))
        return 5

    monkeypatch.setattr(condition_menu, "ask_number", ask)
    entry(sheet_menu(window, "hill-giant"), "Add condition", "prone", "N rounds…").trigger()
    assert asked == [(1, 1000)]  # a number the duration can hold, nothing else
    giant = controller.combatant("hill-giant")
    assert giant is not None and giant.durations["prone"].rounds == 5
    assert sheet.conditions_left.text() == "prone · 5 rounds left"

    # Cancelled: nothing changes, no step.
    monkeypatch.setattr(condition_menu, "ask_number", lambda *a: None)
    steps = controller.undo_stack.index()
    entry(sheet_menu(window, "hill-giant"), "prone · 5 rounds left", "Change duration", "N rounds…").trigger()
    assert controller.undo_stack.index() == steps

    # Until the start of Tombril's next turn (a spell's caster).
    entry(
        sheet_menu(window, "hill-giant"),
        "prone · 5 rounds left",
        "Change duration",
        "Until the start of a creature's turn",
        "Tombril's next turn",
    ).trigger()
    assert sheet.conditions_left.text() == "prone · until the start of Tombril's next turn"
    assert controller.undo_stack.index() == steps + 1

    entry(sheet_menu(window, "hill-giant"), "prone · until the start of Tombril's next turn", "Remove").trigger()
    assert controller.combatant("hill-giant").conditions == []  # type: ignore[union-attr]
    assert not shown(sheet.conditions_left)
    controller.undo_stack.undo()
    assert sheet.conditions_left.text() == "prone · until the start of Tombril's next turn"


def test_typing_on_the_conditions_line_keeps_the_durations_of_the_conditions_kept(demo_window: MainWindow) -> None:
    window, controller, sheet = demo_window, demo_window.controller, demo_window.sheet
    entry(sheet_menu(window, "tombril"), "Add condition", "stunned", "2 rounds").trigger()
    line = sheet.editor("conditions")
    assert isinstance(line, QLineEdit)
    line.setText("stunned, prone")
    line.editingFinished.emit()
    tombril = controller.combatant("tombril")
    assert tombril is not None and tombril.conditions == ["stunned", "prone"]
    assert tombril.durations["stunned"].rounds == 2
    assert sheet.conditions_left.text() == "stunned · 2 rounds left"
    line.setText("prone")
    line.editingFinished.emit()
    tombril = controller.combatant("tombril")
    assert tombril is not None and tombril.durations == {}
    assert not shown(sheet.conditions_left)


def test_a_save_each_turn_offers_the_rulesets_saves_and_asks_the_dc(
    laptop_window: WindowFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    window = laptop_window(storage.load(resource("encounters", "goblin-ambush-osr.lnl")))
    controller, sheet = window.controller, window.sheet
    dcs = iter([None, 13])  # the first DC asked is cancelled: nothing given
    monkeypatch.setattr(condition_menu, "ask_number", lambda *a: next(dcs))
    paralysis = ("Add condition", "paralyzed", "A save at the end of each turn", "Paralysis or Petrification…")
    steps = controller.undo_stack.index()
    entry(sheet_menu(window, "goblin-1"), *paralysis).trigger()
    assert controller.undo_stack.index() == steps and controller.combatant("goblin-1").conditions == []  # type: ignore[union-attr]
    entry(sheet_menu(window, "goblin-1"), *paralysis).trigger()
    goblin = controller.combatant("goblin-1")
    assert goblin is not None and goblin.conditions == ["paralyzed"]
    save = goblin.durations["paralyzed"]
    assert (save.kind, save.save, save.dc) == (DurationKind.SAVE, "Paralysis or Petrification", 13)
    assert sheet.conditions_left.text() == "paralyzed · save each turn (paralysis or petrification, DC 13)"
