"""Honest docks: what cannot be done now is disabled and says why, a refusal goes when the
state it told of changes, the default target follows the actor until the GM picks one, the docks'
point sizes follow the UI scale, and the Forecast dock says what is going on in a GM's words.

The demo encounter: Tombril at (8, 6), the Hill Giant (2 x 2) at (15, 6), the Half-orc at (13, 9),
the Half-orc Glaive at (14, 4), the Half-orc Archer at (20, 11). From where Tombril stands the
Half-orc is the nearest foe (30 ft; the Giant and the Glaive are 35 ft away).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.model import Phase
from lnl_desktop.core.files import storage
from lnl_desktop.core.rules.lnl.model import Encounter, SurpriseSituation
from lnl_desktop.paths import demo_encounter_path
from lnl_desktop.ui.docks.actions import ActionPanel
from lnl_desktop.ui.docks.forecast import COMBAT_OVER, NO_COMBAT, NO_TURN, ForecastPanel
from lnl_desktop.ui.docks.sheet import CombatantSheet
from lnl_desktop.ui.docks.turns import TurnsPanel
from lnl_desktop.ui.map import MapView
from lnl_desktop.ui.plumbing import style, theme
from lnl_desktop.ui.plumbing.controller import TableController
from lnl_desktop.ui.plumbing.theme import Presentation

LEFT = Qt.MouseButton.LeftButton
NONE = Qt.KeyboardModifier.NoModifier
Cell = tuple[int, int]


@dataclass
class Table:
    controller: TableController
    view: MapView
    turns: TurnsPanel
    panel: ActionPanel
    forecast: ForecastPanel
    sheet: CombatantSheet

    def cell(self, cid: str) -> Cell:
        return self.controller.encounter.tokens[cid].cell


@pytest.fixture
def table(qtbot: QtBot) -> Iterator[Table]:
    controller = TableController(storage.load(demo_encounter_path()))
    view = MapView(controller)
    turns = TurnsPanel(controller)
    panel = ActionPanel(controller)
    forecast = ForecastPanel(controller)
    sheet = CombatantSheet(controller)
    sizes = ((view, (1200, 800)), (turns, (380, 520)), (panel, (420, 900)), (forecast, (420, 320)), (sheet, (380, 600)))
    for widget, size in sizes:
        qtbot.addWidget(widget)
        widget.resize(*size)
        widget.show()
    qtbot.waitExposed(view)
    yield Table(controller, view, turns, panel, forecast, sheet)


def click_token(view: MapView, cell: Cell) -> None:
    point = view.mapFromScene(view.scene_point_of(cell))
    QTest.mousePress(view.viewport(), LEFT, NONE, point)
    QTest.mouseRelease(view.viewport(), LEFT, NONE, point)


def click_row(turns: TurnsPanel, cid: str) -> None:
    item = turns.item_for(cid)
    assert item is not None
    QTest.mouseClick(turns.tree.viewport(), LEFT, NONE, turns.tree.visualItemRect(item).center())


def start(table: Table, face: str = "5") -> None:
    """Start combat as the GM does: the dialog, nobody ambushes, the d6 typed (5: the Party first)."""
    dialog = table.turns.start_combat()
    dialog.set_situation(SurpriseSituation.NOBODY)
    QTest.keyClicks(dialog.face_edit, face)
    QTest.mouseClick(dialog.start_button, LEFT)
    assert table.controller.encounter.combat.phase is Phase.FIGHTING


def take_turn(table: Table, cid: str) -> None:
    click_row(table.turns, cid)
    assert table.turns.take_turn_button.isEnabled(), table.turns.take_turn_button.toolTip()
    QTest.mouseClick(table.turns.take_turn_button, LEFT)
    assert table.panel.active() is not None and table.panel.active().id == cid


def choose_in_combo(combo, data: object) -> None:  # type: ignore[no-untyped-def]
    """Walk the combo with the arrow keys, as from the keyboard, until ``data`` is the current item."""
    target = combo.findData(data)
    assert target >= 0, f"{data!r} is not offered"
    combo.setFocus()
    while combo.currentIndex() != target:
        QTest.keyClick(combo, Qt.Key.Key_Down if combo.currentIndex() < target else Qt.Key.Key_Up)


# -- 1. the default target follows the actor until the GM picks one ------------------------------


def test_the_default_target_is_chosen_again_after_each_move_and_its_undo(table: Table) -> None:
    controller, panel = table.controller, table.panel
    start(table)
    take_turn(table, "tombril")
    assert panel.target() == "half-orc" and not panel.target_picked_by_hand()

    # Tombril steps next to the Glaive (30 ft): the Glaive, 5 ft away, is the target now.
    assert controller.do(act.Move("tombril", to=(13, 4))) is not None
    assert table.cell("tombril") == (13, 4)
    assert panel.target() == "half-orc-glaive"
    assert panel.target_combo.currentData() == "half-orc-glaive"
    assert controller.plan is not None and controller.plan.target == "half-orc-glaive"  # the forecast and the ring

    controller.undo_stack.undo()  # back where he stood: the Half-orc again
    assert table.cell("tombril") == (8, 6) and panel.target() == "half-orc"
    controller.undo_stack.redo()
    assert panel.target() == "half-orc-glaive"

    # The GM picks the Giant in the list (arrow keys): it stays, wherever Tombril goes this turn.
    choose_in_combo(panel.target_combo, "hill-giant")
    assert panel.target() == "hill-giant" and panel.target_picked_by_hand()
    controller.undo_stack.undo()
    assert table.cell("tombril") == (8, 6) and panel.target() == "hill-giant"
    assert controller.do(act.Move("tombril", to=(12, 8))) is not None  # next to the Half-orc
    assert panel.target() == "hill-giant" and panel.target_combo.currentData() == "hill-giant"
    assert controller.plan is not None and controller.plan.target == "hill-giant"

    # A new turn starts with the nearest foe again.
    table.turns.end_turn_action.trigger()
    take_turn(table, "janine")
    assert not panel.target_picked_by_hand() and panel.target() == "half-orc"


def test_a_click_on_a_token_is_a_pick_that_a_move_keeps(table: Table) -> None:
    controller, panel = table.controller, table.panel
    start(table)
    take_turn(table, "tombril")
    click_token(table.view, (20, 11))  # the Archer, far away
    assert panel.target() == "half-orc-archer" and panel.target_picked_by_hand()
    assert controller.do(act.Move("tombril", to=(13, 4))) is not None
    assert panel.target() == "half-orc-archer"


def test_the_default_follows_a_forced_move_too(table: Table) -> None:
    controller, panel = table.controller, table.panel
    start(table)
    take_turn(table, "tombril")
    # The GM's hand puts Tombril beside the Archer: no movement spent, and the Archer is the nearest.
    assert controller.do(act.Move("tombril", to=(19, 11), forced=True)) is not None
    assert panel.target() == "half-orc-archer"


# -- 2. the docks' point sizes follow the UI scale -------------------------------------------------


def test_scaled_css_multiplies_every_point_size() -> None:
    css = "QLabel#a { font-size: 13pt; } QLabel#b { font-size: 10.5pt; padding: 4px 6px; } 12pt"
    assert style.scaled_css(css, 2.0) == (
        "QLabel#a { font-size: 26pt; } QLabel#b { font-size: 21pt; padding: 4px 6px; } 24pt"
    )
    assert style.scaled_css(css, 1.25) == (
        "QLabel#a { font-size: 16.25pt; } QLabel#b { font-size: 13.12pt; padding: 4px 6px; } 15pt"
    )
    assert style.scaled_css(css, 1.0) == css
    assert style.scaled_css("width: 12ptx; 3.5pt", 2.0) == "width: 12ptx; 7pt"  # a whole size in points only


@pytest.fixture
def app_at_100(qtbot: QtBot) -> Iterator[QApplication]:
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    Presentation(scale=100).apply(app)
    yield app
    Presentation(scale=100).apply(app)
    assert theme.ui_scale() == 1.0


def test_a_scale_change_at_run_time_grows_the_docks_text_at_once(table: Table, app_at_100: QApplication) -> None:
    turns, panel, sheet, forecast = table.turns, table.panel, table.sheet, table.forecast
    start(table)
    take_turn(table, "tombril")
    assert table.controller.do(act.Move("tombril", to=(14, 6))) is not None
    panel.set_target("hill-giant")
    QTest.mouseClick(panel.roll_button, LEFT)
    assert panel.last_result is not None and panel.damage_label.isVisible()
    table.controller.select("tombril")

    labels = {
        "banner": turns.banner,
        "round": turns.round_label,
        "tree": turns.tree,
        "title": panel.title,
        "damage": panel.damage_label,
        "result": panel.result_label,
        "movement": panel.movement_label,
        "sheet title": sheet.title,
        "forecast title": forecast.title_label,
        "chance to hit": forecast.hit_label,
    }
    before = {name: widget.font().pointSizeF() for name, widget in labels.items()}
    assert before["banner"] == 12 and before["damage"] == 13 and before["sheet title"] == 13
    assert "font-size:12pt" in panel._check_widgets[0].text()  # a checklist mark: rich text in points

    Presentation(scale=200).apply(app_at_100)
    # The docks with style sheets follow at once; the rest when Qt delivers the font change to the window.
    assert {name: labels[name].font().pointSizeF() for name in ("banner", "damage", "sheet title")} == {
        "banner": 24,
        "damage": 26,
        "sheet title": 26,
    }
    app_at_100.processEvents()
    after = {name: widget.font().pointSizeF() for name, widget in labels.items()}
    assert after == {name: size * 2 for name, size in before.items()}
    marks = [w.text() for w in panel._check_widgets if "font-size" in w.text()]
    assert marks and all("font-size:24pt" in text for text in marks)

    Presentation(scale=100).apply(app_at_100)
    app_at_100.processEvents()
    assert {name: widget.font().pointSizeF() for name, widget in labels.items()} == before


# -- 3. what cannot be done now is disabled, and says why ----------------------------------------


def test_before_combat_only_start_is_available_and_the_rest_say_why(table: Table) -> None:
    turns = table.turns
    available = turns.availability()
    assert set(available) == {"start", "next_round", "end_combat", "end_turn"}
    assert available["start"] == ""
    assert available["next_round"] == "No combat yet: start the combat first"
    assert available["end_combat"] == "No combat yet: there is nothing to end"
    assert available["end_turn"] == "No combat yet: start the combat first"
    assert turns.start_button.isVisible() and turns.start_button.isEnabled()
    assert not turns.next_round_button.isEnabled()
    assert turns.next_round_button.toolTip() == available["next_round"]
    assert not turns.end_combat_button.isEnabled()
    assert turns.end_combat_button.toolTip() == available["end_combat"]
    action = turns.end_turn_action
    assert not action.isEnabled()
    assert action.toolTip() == "End turn: No combat yet: start the combat first"
    assert action.statusTip() == action.toolTip()


def test_during_a_fight_start_is_disabled_and_the_turn_steps_follow_the_turn(table: Table, qtbot: QtBot) -> None:
    turns, controller = table.turns, table.controller
    said: list[dict[str, str]] = []
    turns.availabilityChanged.connect(lambda: said.append(turns.availability()))
    start(table)
    assert said and said[-1]["start"] == "A fight is under way: end the combat first"
    assert not turns.start_button.isEnabled()
    assert turns.start_button.toolTip() == "A fight is under way: end the combat first"
    assert turns.end_combat_button.isVisible() and turns.end_combat_button.isEnabled()
    assert turns.availability()["end_turn"] == "No turn is under way: take one first"
    assert not turns.end_turn_action.isEnabled()
    assert turns.end_turn_action.statusTip() == "End turn: No turn is under way: take one first"
    assert not turns.end_turn_button.isEnabled()
    assert turns.end_turn_button.toolTip() == "No turn is under way: take one first"

    take_turn(table, "tombril")
    available = turns.availability()
    assert available["end_turn"] == ""
    assert available["next_round"] == "Tombril's turn is under way: end it first"
    assert said[-1] == available  # announced
    assert turns.end_turn_action.isEnabled() and turns.end_turn_action.statusTip() == "End Tombril's turn"
    assert not turns.next_round_button.isEnabled()

    # Space ends the turn through the action.
    turns.end_turn_action.trigger()
    assert controller.encounter.combat.turn is None
    assert not turns.end_turn_action.isEnabled()
    assert said[-1]["end_turn"] == "No turn is under way: take one first"

    # Undo brings the turn back, and with it End turn.
    controller.undo_stack.undo()
    assert turns.end_turn_action.isEnabled() and said[-1]["end_turn"] == ""


def test_wrong_faces_in_the_initiative_box_disable_the_button_and_say_why_when_asked(table: Table) -> None:
    turns, controller = table.turns, table.controller
    start(table)
    for cid in ("tombril", "cedryk", "janine", "hill-giant", "half-orc", "half-orc-glaive", "half-orc-archer"):
        assert controller.do(act.BeginTurn(cid)) is not None
        assert controller.do(act.EndTurn()) is not None
    assert controller.engine.round_over
    assert turns.availability()["next_round"] == "" and turns.next_round_button.isEnabled()
    QTest.keyClicks(turns.initiative_edit, "7")
    why = "Initiative: 7 is not a face of a d6 (1 to 6): face 1 is the d6 for initiative"
    assert not turns.next_round_button.isEnabled() and turns.next_round_button.toolTip() == why
    # The round itself may begin: asked for (Ctrl+R in the window), the box's faces are refused with why.
    assert turns.availability()["next_round"] == ""
    assert not turns.roll_next_round()
    assert turns.message == why and controller.encounter.combat.round == 1
    QTest.keyClick(turns.initiative_edit, Qt.Key.Key_Backspace)
    QTest.keyClicks(turns.initiative_edit, "2")
    assert turns.next_round_button.isEnabled()
    QTest.mouseClick(turns.next_round_button, LEFT)
    assert controller.encounter.combat.round == 2 and turns.message == ""
    assert turns.availability()["next_round"] == ""


def test_start_is_unavailable_while_a_side_is_empty(qtbot: QtBot) -> None:
    controller = TableController(Encounter())
    turns = TurnsPanel(controller)
    qtbot.addWidget(turns)
    assert turns.availability()["start"] == "Both sides need at least one combatant"
    assert not turns.start_button.isEnabled()
    assert turns.start_button.toolTip() == "Both sides need at least one combatant"


def test_after_the_combat_ends_start_is_available_again(table: Table, monkeypatch: pytest.MonkeyPatch) -> None:
    turns = table.turns
    start(table)
    assert turns.end_combat(confirm=False)
    available = turns.availability()
    assert available["start"] == "" and turns.start_button.isEnabled()
    assert available["end_combat"] == "The combat is already over"
    assert available["next_round"] == available["end_turn"] == "The combat is over: Start combat begins a new one"


def test_the_roll_button_is_disabled_with_the_reason(table: Table) -> None:
    panel = table.panel
    start(table)
    take_turn(table, "tombril")
    assert panel.target() == "half-orc"  # 30 ft away: out of a shortsword's reach
    assert not panel.roll_button.isEnabled()
    assert panel.roll_button.toolTip().startswith("Not allowed: ")
    assert "Within 5 ft (melee)" in panel.roll_button.toolTip()
    assert not panel.faces_button.isEnabled()
    assert panel.faces_button.toolTip() == panel.roll_button.toolTip()


# -- refusals go when the state they told of changes -------------------------------------------------


def test_a_refusal_in_the_turns_dock_goes_with_the_next_change(table: Table) -> None:
    turns, controller = table.turns, table.controller
    start(table)
    assert not turns.begin_turn("hill-giant")  # the Party acts first
    assert "the Party" in turns.message
    assert controller.do(act.EditCombatant("janine", {"notes": "watching"})) is not None  # any change
    assert turns.message == ""

    assert not turns.begin_turn("hill-giant")
    assert turns.message
    controller.undo_stack.undo()  # an undo changes the state too
    assert turns.message == ""

    assert not turns.begin_turn("hill-giant")
    controller.undo_stack.redo()
    assert turns.message == ""

    assert not turns.begin_turn("hill-giant")
    controller.replace_encounter(storage.load(demo_encounter_path()))
    assert turns.message == ""


def test_a_refusal_in_the_action_dock_goes_with_the_next_change(table: Table) -> None:
    panel, controller = table.panel, table.controller
    start(table)
    take_turn(table, "tombril")
    choose_in_combo(panel.target_combo, "half-orc-archer")  # 70 ft away, wherever Tombril goes now
    assert panel.roll() is None  # out of reach: refused (the button is disabled; a script may still ask)
    assert panel.message.startswith("Not allowed: ")
    assert controller.do(act.Move("tombril", to=(12, 8))) is not None
    assert panel.message == ""

    assert panel.roll() is None
    assert panel.message
    controller.undo_stack.undo()
    assert panel.message == ""

    assert panel.roll() is None
    controller.undo_stack.redo()
    assert panel.message == ""

    assert panel.roll() is None
    controller.replace_encounter(storage.load(demo_encounter_path()))
    assert panel.message == ""


# -- 4. the Forecast dock in a GM's words ------------------------------------------------------------


def test_the_forecast_says_what_is_going_on(table: Table) -> None:
    forecast, panel, controller = table.forecast, table.panel, table.controller
    assert forecast.showing_hint and forecast.hint_text == NO_COMBAT
    start(table)
    assert forecast.hint_text == NO_TURN
    take_turn(table, "tombril")

    panel.set_kind("dash")  # no attack chosen
    assert forecast.showing_hint
    assert forecast.hint_text == (
        "Tombril has no attack chosen: pick an attack, a weapon or a damaging spell in the Action dock"
        " to see its damage here."
    )
    panel.set_kind("attack")
    assert not forecast.showing_hint  # the Half-orc, the nearest foe, with the Shortsword
    choose_in_combo(panel.target_combo, None)  # the GM clears the target
    assert forecast.hint_text == (
        "Pick a target for Tombril: click its token on the map, or choose it in the Action dock."
    )
    click_token(table.view, (13, 9))
    assert not forecast.showing_hint and "Half-orc" in forecast.title_label.text()

    panel.set_kind("dash")
    QTest.mouseClick(panel.roll_button, LEFT)
    assert controller.encounter.combat.turn.action is not None
    assert forecast.hint_text == "Tombril has taken the action this turn (dash): there is nothing left to forecast."

    assert table.turns.end_combat(confirm=False)
    assert forecast.hint_text == COMBAT_OVER
