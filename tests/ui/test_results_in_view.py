"""Every result where the GM looks, in a laptop-sized window (1366 x 768 less its frame), in each
ruleset: after Roll the Action dock's result box is scrolled into view (the Old-School Owlbear's
three attacks, each of which leaves the set-up open for the next one), and the status bar names the
result itself (the hit or miss and the damage), not what came with it (the attacker turning to face
its target, a foe going down, the template lifted after an area effect). An area effect laid with
the Template tool and rolled from its dialog shows in the result box and the status bar too."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from action_steps import START, attack
from PySide6.QtCore import QEvent, QPoint, QPointF, QRect, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication
from waiting import run_until

from lnl_desktop.core.dice.rolls import ScriptedDice
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.events import AreaEffectResolved
from lnl_desktop.core.files import storage
from lnl_desktop.core.map.areas import AreaShape
from lnl_desktop.core.rules.d10 import Declare
from lnl_desktop.core.rules.registry import get_ruleset
from lnl_desktop.paths import resource
from lnl_desktop.ui.dialogs.area import AreaEffectDialog
from lnl_desktop.ui.docks.actions import ActionPanel
from lnl_desktop.ui.plumbing.style import CELL_PX
from lnl_desktop.ui.window.main_window import MainWindow

LEFT, NONE = Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
WAIT_S = 5.0


def result_in_view(panel: ActionPanel) -> bool:
    """Whether the GM sees the result box: the Action tab in front, the box's headline wholly inside
    the dock's scrolled viewport, and the whole box there too when it fits."""
    box, viewport = panel.result_box, panel.scroll.viewport()
    if not box.isVisible() or panel.visibleRegion().isEmpty() or box.visibleRegion().isEmpty():
        return False
    headline = panel.damage_label
    seen = viewport.rect()
    if not seen.contains(QRect(headline.mapTo(viewport, QPoint(0, 0)), headline.size())):
        return False
    return box.height() > seen.height() or seen.contains(QRect(box.mapTo(viewport, QPoint(0, 0)), box.size()))


def wait_in_view(panel: ActionPanel, what: str) -> None:
    run_until(lambda: result_in_view(panel), WAIT_S, f"{what}: the result box in view")


def status(window: MainWindow) -> str:
    return window.statusBar().currentMessage()


def open_window(laptop_window: Any, demo: str) -> MainWindow:
    window: MainWindow = laptop_window(storage.load(resource("encounters", demo)))
    return window


# -- each ruleset's attack: a blow that fells the foe (its fall comes after the hit in the log) ------


def lnl_blow(window: MainWindow) -> None:
    controller = window.controller
    assert controller.do(act.EditCombatant("hill-giant", {"stamina": 2, "injury": 1})) is not None
    if controller.engine.ruleset.name == "lnl":
        assert controller.do(act.StartCombat("nobody ambushes", 5)) is not None, controller.refusal
    else:
        assert controller.do(act.StartCombat("no surprise", None, initiative_face=5)) is not None, controller.refusal
    assert controller.do(act.BeginTurn("tombril")) is not None
    assert controller.do(act.Move("tombril", (14, 6))) is not None
    attack(window, "attack", "Shortsword", "hill-giant", [5, 3, 4, 3, 2])


def osr_blow(window: MainWindow) -> None:
    controller = window.controller
    # Party d20 15 + 1, Opponents d20 5 + 1: the Party first.
    assert controller.do(act.StartCombat("nobody surprised"), ScriptedDice([15, 5])) is not None, controller.refusal
    assert controller.do(act.BeginTurn("tombril")) is not None
    attack(window, "melee", "Longsword", "goblin-1", [14, 6])


def d10_blow(window: MainWindow) -> None:
    controller = window.controller
    for c in controller.encounter.combatants:
        assert controller.do(Declare(c.id, "attack")) is not None
    done = controller.do(act.StartCombat("Party ambushes"), ScriptedDice([12, 8, 9, 4, 2]))
    assert done is not None, controller.refusal
    assert controller.do(act.BeginTurn("tombril")) is not None
    attack(window, "attack", "Longsword", "bandit-1", [3, 14, 2, 6])


BLOWS: dict[str, tuple[str, Callable[[MainWindow], None], str, str]] = {
    # ruleset: (demo, the blow, how the status bar's line begins, what it says of the result)
    "lnl": ("hill-giant.lnl", lnl_blow, "Tombril attacks Hill Giant with Shortsword", "= 31 damage"),
    "classic": ("hill-giant-classic.lnl", lnl_blow, "Tombril attacks Hill Giant with Shortsword", "= 31 damage"),
    "osr": ("goblin-ambush-osr.lnl", osr_blow, "Tombril attacks Goblin 1 with Longsword", "hit; damage"),
    "d10": ("bandit-mill-d10.lnl", d10_blow, "Tombril attacks Bandit 1 with Longsword", "hit; damage"),
}


@pytest.mark.parametrize("ruleset", list(BLOWS))
def test_an_attack_that_fells_its_foe_shows_the_hit_in_view_and_on_the_status_bar(
    laptop_window: Any, ruleset: str
) -> None:
    demo, blow, begins, says = BLOWS[ruleset]
    window = open_window(laptop_window, demo)
    panel = window.action_panel
    blow(window)
    wait_in_view(panel, ruleset)
    assert panel.damage_label.text().strip()
    # The hit and its damage, not the fall (or the morale check) the log adds after it.
    assert status(window).startswith(begins), status(window)
    assert says in status(window), status(window)


# -- the Owlbear's three attacks: the set-up stays open between them, the result below it ------------


def test_each_of_the_owlbears_three_attacks_shows_its_result_in_view_and_on_the_status_bar(
    laptop_window: Any,
) -> None:
    window = open_window(laptop_window, "goblin-ambush-osr.lnl")
    controller, panel = window.controller, window.action_panel
    owlbear = next(c for c in get_ruleset("osr").bestiary() if c["name"] == "Owlbear")
    assert owlbear["attacks"] == 3
    assert controller.do(act.AddCombatant({**owlbear, "side": "Opponents"}, cell=(5, 6), facing=90)) is not None
    # Opponents d20 19, Party d20 2: the Owlbear's side first.
    assert controller.do(act.StartCombat("nobody surprised"), ScriptedDice([2, 19])) is not None, controller.refusal
    assert window.turns_panel.begin_turn("owlbear")
    rolls = [
        ("tombril", [2], "(attack 1 of 3)", "miss", "Miss: Tombril is not hit"),
        ("brannoc", [15, 3, 3], "(attack 2 of 3)", "hit; damage", "Hit: 8 damage → Brannoc"),
        ("tombril", [4], "(attack 3 of 3)", "miss", "Miss: Tombril is not hit"),
    ]
    for target, faces, which, says, headline in rolls:
        panel.scroll.verticalScrollBar().setValue(0)  # the GM was looking at the set-up
        attack(window, "melee", "Claws and beak", target, faces)
        wait_in_view(panel, f"attack {which}")
        assert panel.damage_label.text().startswith(headline), panel.damage_label.text()
        # The attack's own line, not "Owlbear turns to face Tombril" nor "Brannoc is defeated".
        line = status(window)
        assert line.startswith("Owlbear attacks") and which in line and says in line, line


# -- an area effect laid with the Template tool ----------------------------------------------------


def at(window: MainWindow, point: tuple[float, float]) -> QPoint:
    view = window.map_view
    assert view is not None
    return view.mapFromScene(QPointF(point[0] * CELL_PX, point[1] * CELL_PX))


def drag(window: MainWindow, points: list[tuple[float, float]]) -> None:
    """A left-button drag on the map's viewport through ``points`` (in cells)."""
    viewport = window.map_view.viewport()
    QTest.mousePress(viewport, LEFT, NONE, at(window, points[0]))
    for point in points[1:]:
        where = QPointF(at(window, point))
        move = QMouseEvent(
            QEvent.Type.MouseMove, where, viewport.mapToGlobal(where), Qt.MouseButton.NoButton, LEFT, NONE
        )
        QApplication.sendEvent(viewport, move)
    QTest.mouseRelease(viewport, LEFT, NONE, at(window, points[-1]))


def lay_and_roll(window: MainWindow, shape: AreaShape, points: list[tuple[float, float]]) -> AreaEffectResolved:
    """The Template tool lays the area, its dialog rolls a free "Oil flask" of 2d6 with the app's dice."""
    view = window.map_view
    view.set_tool("template")
    view.template_style.shape = shape
    drag(window, points)
    dialog = view.area_dialog
    assert isinstance(dialog, AreaEffectDialog) and dialog.targets()
    dialog.name_edit.setText("Oil flask")
    dialog.dice_edit.setText("2d6")
    if "dc" in dialog.editors:  # the rulesets that ask a DC
        dialog.editors["dc"].setValue(12)
    QTest.mouseClick(dialog.roll_button, LEFT)
    assert not dialog.isVisible(), dialog.refusal.text()
    # The app's dice: whatever they show, the effect is in the log (a fall or a morale check may follow).
    resolved = next(e for e in reversed(window.controller.encounter.log) if isinstance(e, AreaEffectResolved))
    return resolved


def begin_first_party_turn(window: MainWindow, ruleset: str) -> None:
    """Combat started and the first Party member's turn begun: its set-up open, nothing done yet."""
    START[ruleset](window)
    assert window.controller.do(act.BeginTurn("tombril")) is not None


@pytest.mark.parametrize("ruleset", list(BLOWS))
def test_an_area_effect_during_a_turn_shows_its_result_in_view_and_on_the_status_bar(
    laptop_window: Any, ruleset: str
) -> None:
    window = open_window(laptop_window, BLOWS[ruleset][0])
    panel, encounter = window.action_panel, window.controller.encounter
    begin_first_party_turn(window, ruleset)
    assert panel.setup.isVisible()  # Tombril has not acted: the set-up fills the dock above the result
    foe = next(c for c in encounter.combatants if c.side.value == "Opponents" and c.id in encounter.tokens)
    x, y = encounter.tokens[foe.id].cell
    window.docks["Sheet"].raise_()  # the GM was reading a sheet: the Action tab behind
    resolved = lay_and_roll(window, AreaShape.CIRCLE, [(x + 0.5, y + 0.5), (x + 1.5, y + 0.5), (x + 2.5, y + 0.5)])
    wait_in_view(panel, f"{ruleset} area effect")
    assert panel.damage_label.text().startswith("Oil flask:"), panel.damage_label.text()
    assert "Oil flask" in panel.result_text()
    # The effect's roll and what each target took, not "GM lifts the 10 ft radius circle".
    assert status(window) == resolved.text
    assert foe.name in status(window)


def test_a_trap_before_combat_shows_its_result_in_the_action_dock_and_on_the_status_bar(laptop_window: Any) -> None:
    window = open_window(laptop_window, "hill-giant.lnl")
    panel = window.action_panel
    assert window.controller.encounter.combat.turn is None
    # A 30 ft cone from the east edge of Tombril's cell towards the Half-orc.
    resolved = lay_and_roll(window, AreaShape.CONE, [(9.1, 6.6), (11, 6.8), (13, 7.0), (14.6, 7.0)])
    wait_in_view(panel, "the cone")
    assert panel.damage_label.text().startswith("Oil flask:")
    assert "Half-orc" in panel.result_text()
    assert status(window) == resolved.text and "lifts" not in status(window)
    # Undo takes the result away again: it is read from the round log.
    window.controller.undo_stack.undo()
    assert not panel.result_box.isVisibleTo(panel)


def test_the_result_stays_in_view_while_the_column_settles_until_the_gm_scrolls(laptop_window: Any) -> None:
    # A real window lays the next attack's set-up out again after the roll: the column grows above
    # the box once it was scrolled to, and the box slid below the fold (seen under X11, not offscreen).
    window = open_window(laptop_window, "goblin-ambush-osr.lnl")
    controller, panel = window.controller, window.action_panel
    owlbear = next(c for c in get_ruleset("osr").bestiary() if c["name"] == "Owlbear")
    assert controller.do(act.AddCombatant({**owlbear, "side": "Opponents"}, cell=(5, 6), facing=90)) is not None
    assert controller.do(act.StartCombat("nobody surprised"), ScriptedDice([2, 19])) is not None, controller.refusal
    assert window.turns_panel.begin_turn("owlbear")
    attack(window, "melee", "Claws and beak", "tombril", [2])
    wait_in_view(panel, "the first attack")
    bar = panel.scroll.verticalScrollBar()
    longest = bar.maximum()
    # Lines above the box, after the scroll to it: the column grows as the next set-up's does.
    panel.used_label.setText("<br>".join(["a line the set-up gained"] * 12))
    panel.used_label.show()
    run_until(lambda: bar.maximum() > longest + 100, WAIT_S, "the column grown")
    assert result_in_view(panel)
    # The GM scrolls up to the set-up: it stays there, the column's next change does not pull it back.
    bar.triggerAction(bar.SliderAction.SliderToMinimum)
    longest = bar.maximum()
    panel.used_label.setText("<br>".join(["a line the set-up gained"] * 16))
    run_until(lambda: bar.maximum() > longest + 40, WAIT_S, "the column grown again")
    assert bar.value() == 0 and not result_in_view(panel)
