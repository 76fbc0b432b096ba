"""Counter-attacks shown while a token is dragged, driven by real mouse and key events on the map.

A small ruleset made here (L&L's rules, plus free attacks for leaving an enemy's 5 ft) says which
steps of a path provoke; the map must ring those steps and name the attackers at the cursor
before the drop, ask the ruleset once per cursor cell (not per mouse pixel), leave nothing on the
map after a drop, an Esc or a refused drop, and the engine queues the attacks once the move is made.

The demo encounter in round 1 with Tombril's turn begun: Tombril stands at (8, 6) with 30 ft; the
Half-orc is moved next to him at (9, 7) and the Half-orc with the glaive to (9, 4).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar

import pytest
from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from lnl_desktop.core.encounter.actions import SetHidden
from lnl_desktop.core.encounter.events import Event, RulesEvent
from lnl_desktop.core.encounter.model import Pending, Phase
from lnl_desktop.core.errors import RulesError
from lnl_desktop.core.files import storage
from lnl_desktop.core.rules import engagement
from lnl_desktop.core.rules import registry as rules
from lnl_desktop.core.rules.lnl import LnLRuleset
from lnl_desktop.core.rules.lnl.movement import LnlMovement
from lnl_desktop.core.rules.registry import get_ruleset, register
from lnl_desktop.core.rules.specs import Provocation
from lnl_desktop.paths import demo_encounter_path
from lnl_desktop.ui.map import MapView
from lnl_desktop.ui.plumbing.controller import TableController

LEFT = Qt.MouseButton.LeftButton
NONE = Qt.KeyboardModifier.NoModifier
SHIFT = Qt.KeyboardModifier.ShiftModifier

Cell = tuple[int, int]


# -- a ruleset with free attacks ----------------------------------------------------------------------


class ProvokingMovement(LnlMovement):
    """L&L's movement, but leaving an enemy's 5 ft gives it a free attack (queued after the move)."""

    def __init__(self, ruleset: Provoking) -> None:
        self.ruleset = ruleset
        self.provocation_word = ruleset.provocation_word

    def provocations(self, engine: Any, cid: str, path: list[Cell]) -> list[Provocation]:
        type(self.ruleset).asked.append(list(path))
        if engine.encounter.combat.phase is not Phase.FIGHTING:
            return []
        mover = engine.combatant(cid)
        return engagement.provocations(engine.encounter, mover, path, lambda c: 5.0, lambda s, t: not s.down)

    def after_move(self, engine: Any, c: Any, path: list[Cell], forced: bool) -> list[Event]:
        if forced:
            return []
        combat = engine.encounter.combat
        strikers = [cid for step in self.provocations(engine, c.id, path) for cid in step.attackers]
        for sid in strikers:
            text = f"{engine.combatant(sid).name} may attack {c.name}"
            combat.pending.append(Pending(kind="free attack", who=sid, target=c.id, text=text, round=combat.round))
        if not strikers:
            return []
        return [RulesEvent(round=combat.round, text=f"{c.name} provokes", ruleset=self.ruleset.name, name="provoked")]


class Provoking(LnLRuleset):
    """L&L, but leaving an enemy's 5 ft gives it a free attack (queued after the move)."""

    name = "ui-test-provoking"
    title = "Provoking (test)"
    asked: ClassVar[list[list[Cell]]] = []  # every path the map asked about
    provocation_word: ClassVar[str] = "Free attack"  # what the map calls the attack a path provokes

    def __init__(self) -> None:
        super().__init__()
        self.movement = ProvokingMovement(self)
        self.attacks.provocation_word = self.provocation_word  # who a queued attack strikes

    def demo(self) -> str | None:
        return None


class Countering(Provoking):
    """The same, with the ruleset's own word for the attack."""

    name = "ui-test-countering"
    title = "Countering (test)"
    provocation_word: ClassVar[str] = "Counter-attack"


def ruleset(cls: type[LnLRuleset]) -> Any:
    try:
        return get_ruleset(cls.name)
    except RulesError:
        return register(cls)


@pytest.fixture(autouse=True, scope="module")
def _forget_the_test_rulesets() -> Iterator[None]:
    """The registry has no way to take a ruleset out: the later tests (File ▸ New's list, the demo
    menu) must not meet these."""
    yield
    for cls in (Provoking, Countering):
        rules._loaded.pop(cls.name, None)


# -- set-up and real events ---------------------------------------------------------------------


def make_table(qtbot: QtBot, name: str | None) -> tuple[TableController, MapView, list[str]]:
    data = storage.load(demo_encounter_path()).model_dump(mode="json", exclude={"ruleset", "log"})
    data["tokens"]["half-orc"]["cell"] = [9, 7]
    data["tokens"]["half-orc-glaive"]["cell"] = [9, 4]
    encounter = get_ruleset(name or "lnl").new_encounter(**data)
    controller = TableController(encounter)
    controller.engine.start_combat(face=5)  # the Party acts first
    controller.engine.begin_turn("tombril")
    view = MapView(controller)
    qtbot.addWidget(view)
    view.resize(1200, 800)
    view.show()
    qtbot.waitExposed(view)
    infos: list[str] = []
    view.dragInfo.connect(infos.append)
    return controller, view, infos


@pytest.fixture
def table(qtbot: QtBot) -> tuple[TableController, MapView, list[str]]:
    Provoking.asked.clear()
    return make_table(qtbot, ruleset(Provoking).name)


def at(view: MapView, cell: Cell) -> QPoint:
    return view.mapFromScene(view.scene_point_of(cell))


def press(view: MapView, cell: Cell) -> None:
    QTest.mousePress(view.viewport(), LEFT, NONE, at(view, cell))


def release(view: MapView, cell: Cell, mods: Qt.KeyboardModifier = NONE) -> None:
    QTest.mouseRelease(view.viewport(), LEFT, mods, at(view, cell))


def move(view: MapView, cell: Cell, mods: Qt.KeyboardModifier = NONE, nudge: int = 0) -> None:
    # QTest.mouseMove carries no buttons: a real move event with the button held.
    point = QPointF(at(view, cell) + QPoint(nudge, nudge))
    event = QMouseEvent(
        QEvent.Type.MouseMove, point, view.viewport().mapToGlobal(point), Qt.MouseButton.NoButton, LEFT, mods
    )
    QApplication.sendEvent(view.viewport(), event)


def names_of(controller: TableController, *cids: str) -> str:
    return ", ".join(controller.encounter.combatant(cid).name for cid in cids)


def assert_nothing_shown(view: MapView) -> None:
    layer = view.drag_layer
    assert not layer.provoke.isVisible()
    assert layer.provoke.is_empty
    assert layer.label.text == ""


# -- while dragging ---------------------------------------------------------------------------------


def test_the_provoking_steps_are_ringed_and_the_attackers_named_before_the_drop(table) -> None:
    controller, view, infos = table
    press(view, (8, 6))
    move(view, (8, 5))
    layer = view.drag_layer
    # Leaving (8, 6) leaves the Half-orc's reach; (8, 5) is where the move would end: nothing more.
    assert layer.provoke.isVisible()
    assert layer.provoke.cells == [(8, 6)]
    half_orc = names_of(controller, "half-orc")
    assert layer.label.text == f"5 ft\nFree attack from: {half_orc}"
    move(view, (8, 3))
    # On through (8, 5), next to the glaive at (9, 4): a second step provokes, from someone else.
    assert layer.provoke.cells == [(8, 6), (8, 5)]
    both = names_of(controller, "half-orc", "half-orc-glaive")
    assert layer.label.text.splitlines() == ["15 ft", f"Free attack from: {both}"]
    assert infos[-1] == f"Tombril: path 15 ft, 15 ft left; Free attack from: {both}"
    # Back to a cell the move may end on without leaving anyone: the rings go.
    move(view, (8, 6))
    assert layer.provoke.cells == []
    assert not layer.provoke.isVisible()
    release(view, (8, 6))


def test_after_the_drop_the_marks_go_and_the_attacks_are_queued(table) -> None:
    controller, view, infos = table
    press(view, (8, 6))
    move(view, (8, 5))
    move(view, (8, 3))
    release(view, (8, 3))
    assert controller.encounter.tokens["tombril"].cell == (8, 3)
    assert_nothing_shown(view)
    assert infos[-1] == ""
    pending = controller.encounter.combat.pending
    assert [p.who for p in pending] == ["half-orc", "half-orc-glaive"]
    assert all(p.target == "tombril" for p in pending)


def test_escape_takes_the_marks_away_and_queues_nothing(table) -> None:
    controller, view, _ = table
    press(view, (8, 6))
    move(view, (8, 4))
    assert view.drag_layer.provoke.cells == [(8, 6), (8, 5)]
    QTest.keyClick(view.viewport(), Qt.Key.Key_Escape)
    assert_nothing_shown(view)
    assert controller.encounter.tokens["tombril"].cell == (8, 6)
    assert controller.encounter.combat.pending == []


def test_a_refused_drop_leaves_no_marks(table) -> None:
    controller, view, _ = table
    press(view, (8, 6))
    move(view, (8, 5))
    move(view, (2, 0))  # far beyond Tombril's 30 ft
    assert not view.drag_layer.provoke.is_empty
    release(view, (2, 0))
    assert controller.encounter.tokens["tombril"].cell == (8, 6)  # refused
    assert controller.refusal
    assert_nothing_shown(view)
    assert controller.encounter.combat.pending == []


def test_a_forced_move_provokes_nothing(table) -> None:
    controller, view, _ = table
    press(view, (8, 6))
    move(view, (8, 5))
    assert not view.drag_layer.provoke.is_empty
    move(view, (8, 4), mods=SHIFT)  # Shift: a forced move
    assert view.drag_layer.provoke.is_empty
    assert "from:" not in view.drag_layer.label.text
    release(view, (8, 4), mods=SHIFT)
    assert controller.encounter.tokens["tombril"].cell == (8, 4)
    assert controller.encounter.combat.pending == []


def test_the_ruleset_is_asked_once_per_cursor_cell_not_per_pixel(table) -> None:
    _, view, _ = table
    press(view, (8, 6))
    move(view, (8, 5))
    asked = len(Provoking.asked)
    for nudge in (1, 3, 5, 7, 9):  # the cursor moves within the same cell
        move(view, (8, 5), nudge=nudge)
    assert len(Provoking.asked) == asked
    move(view, (8, 4))
    assert len(Provoking.asked) == asked + 1
    assert Provoking.asked[-1] == [(8, 6), (8, 5), (8, 4)]  # the route's path, start to cursor
    release(view, (8, 4))


def test_the_label_uses_the_rulesets_own_word(qtbot: QtBot) -> None:
    controller, view, _ = make_table(qtbot, ruleset(Countering).name)
    press(view, (8, 6))
    move(view, (8, 5))
    half_orc = names_of(controller, "half-orc")
    assert view.drag_layer.label.text.splitlines()[-1] == f"Counter-attack from: {half_orc}"
    release(view, (8, 5))


def test_lnl_marks_nothing(qtbot: QtBot) -> None:
    controller, view, _ = make_table(qtbot, None)
    press(view, (8, 6))
    move(view, (8, 4))
    assert view.drag_layer.provoke.is_empty
    assert view.drag_layer.label.text == "10 ft"
    release(view, (8, 4))
    assert controller.encounter.combat.pending == []


def test_outside_combat_the_ruleset_is_not_asked(qtbot: QtBot) -> None:
    Provoking.asked.clear()
    data = storage.load(demo_encounter_path()).model_dump(mode="json", exclude={"ruleset", "log"})
    data["tokens"]["half-orc"]["cell"] = [9, 7]
    controller = TableController(ruleset(Provoking).new_encounter(**data))
    view = MapView(controller)
    qtbot.addWidget(view)
    view.resize(1200, 800)
    view.show()
    qtbot.waitExposed(view)
    press(view, (8, 6))
    move(view, (8, 4))
    assert view.drag_layer.provoke.is_empty
    release(view, (8, 4))
    assert Provoking.asked == []


def test_the_players_copy_leaves_out_an_attacker_hidden_from_them(table) -> None:
    controller, view, _ = table
    controller.do(SetHidden("half-orc-glaive", True))
    press(view, (8, 6))
    move(view, (8, 3))
    layer = view.drag_layer
    assert layer.provoke.cells == [(8, 6), (8, 5)]
    assert layer.provoke.players_cells == [(8, 6)]
    both = names_of(controller, "half-orc", "half-orc-glaive")
    shown = names_of(controller, "half-orc")
    assert layer.label.text.splitlines()[-1] == f"Free attack from: {both}"
    assert layer.label.players_text.splitlines()[-1] == f"Free attack from: {shown}"
    release(view, (8, 3))


# -- the Old-School d20 ruleset ---------------------------------------------------------------------


def test_old_school_counter_attacks_are_shown_while_dragging_and_queued_after(qtbot: QtBot) -> None:
    """The goblin ambush demo: Brannoc at (7, 8) stands next to the Hobgoblin chief (8, 7) and
    Goblin 1 (8, 8). Whoever acts first steps away from the other side."""
    from lnl_desktop.core.dice.rolls import RandomDice
    from lnl_desktop.paths import resource

    controller = TableController(storage.load(resource("encounters", "goblin-ambush-osr.lnl")))
    controller.engine.dice = RandomDice(3)
    controller.engine.start_combat("nobody surprised")
    first = controller.engine.ruleset.turns.waiting(controller.engine)[0]
    if first.side.value == "Party":
        mover, path, attackers = "brannoc", [(7, 8), (6, 9), (6, 10)], ("hobgoblin-chief", "goblin-1")
    else:
        mover, path, attackers = "goblin-1", [(8, 8), (9, 8), (10, 8)], ("tombril", "brannoc")
    controller.engine.begin_turn(mover)
    view = MapView(controller)
    qtbot.addWidget(view)
    view.resize(1200, 800)
    view.show()
    qtbot.waitExposed(view)
    press(view, path[0])
    for cell in path[1:]:
        move(view, cell)
    assert view.drag_layer.provoke.cells == [path[0]]
    assert view.drag_layer.label.text.splitlines()[-1] == f"Counter-attack from: {names_of(controller, *attackers)}"
    release(view, path[-1])
    assert_nothing_shown(view)
    assert controller.encounter.tokens[mover].cell == path[-1]
    queued = [(p.kind, p.who, p.target) for p in controller.encounter.combat.pending]
    assert queued == [("counter-attack", cid, mover) for cid in attackers]
