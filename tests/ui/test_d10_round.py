"""One round of the Group d10 demo (Bandits at the Mill) in the real main window, from the docks:
declarations in the Turns dock, the opposed surprise roll and the d10s typed in the Start combat
dialog, an attack with advantage from surprise that drops a minion, and a free attack marked
while a token is dragged away from a foe with real mouse events and queued after the drop."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QSettings, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot

from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.files import storage
from lnl_desktop.core.map.grid import Cell
from lnl_desktop.paths import resource
from lnl_desktop.ui.window.main_window import MainWindow
from lnl_desktop.ui.window.recovery import RecoveryStore


@pytest.fixture
def window(qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> MainWindow:
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Discard)
    w = MainWindow(
        storage.load(resource("encounters", "bandit-mill-d10.lnl")),
        None,
        settings=QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat),
        recovery=RecoveryStore(tmp_path / "r"),
    )
    qtbot.addWidget(w)
    w.resize(1366, 768)
    w.show()
    qtbot.waitExposed(w)
    return w


def at(window: MainWindow, cell: Cell) -> QPoint:
    view = window.map_view
    return view.mapFromScene(view.scene_point_of(cell, 1))


def test_a_round_with_declarations_surprise_advantage_a_minion_and_a_free_attack(
    window: MainWindow, qtbot: QtBot
) -> None:
    controller, turns, panel = window.controller, window.turns_panel, window.action_panel
    spec = turns.declarations()
    assert spec is not None and spec.open and len(spec.missing) == 9

    # Declarations: everyone attacks, but Cedryk, who will step away from the Ogre.
    assert turns.declare("cedryk", "move")
    assert turns.declare_all("attack") == 8
    assert controller.encounter.combat.declaring["cedryk"] == "move"
    assert "Cedryk declares for round 1: Move only" in [e.text for e in controller.encounter.log]

    # The Party ambushes: d20 12 + Tombril's Stealth 0 (the lowest) against d20 8 + the captain's
    # Perception 2: 12 against 10, surprise (by 2, not 5). Then a d10 per group, in the order they
    # first appear: Party 9, the captain (a group of its own) 4, the Opponents 2.
    dialog = turns.start_combat()
    dialog.set_situation("Party ambushes")
    dialog.set_initiative_faces("12 8 9 4 2")
    assert dialog.problem() is None, dialog.problem()
    dialog.accept()
    combat = controller.encounter.combat
    assert combat.phase.value == "fighting", controller.refusal
    assert (combat.ambushers, combat.full_surprise) == ("Party", False)
    assert [s.title for s in combat.order] == ["Party", "Bandit captain", "Opponents"]
    assert (
        "surprise: the Party roll with advantage, the Opponents with disadvantage" in controller.encounter.log[-1].text
    )

    # Tombril attacks Bandit 1 (a minion) with advantage from surprise: 3/14, the higher kept.
    assert turns.begin_turn("tombril")
    panel.set_kind("attack")
    panel.set_means("Longsword")
    panel.set_target("bandit-1")
    notes = " ".join(
        text
        for _, text in controller.engine.ruleset.actions.notes(
            controller.encounter,
            panel.spec(),
            controller.combatant("tombril"),
            "Longsword",
            controller.combatant("bandit-1"),
            panel.extras(),
        )
    )
    assert "advantage (surprise)" in notes and "Bandit 1 dies on any hit" in notes
    assert panel.faces_refusal([3, 14, 2, 6]) is None, panel.faces_refusal([3, 14, 2, 6])
    events = panel.apply_faces([3, 14, 2, 6])
    assert events, controller.refusal
    assert events[0].text.startswith(
        "Tombril attacks Bandit 1 with Longsword: 3/14 (advantage: 14) +3 melee = 17 vs Defense 10; "
        "advantage (surprise): hit; damage d8 2/6 (masterwork: 6)"
    )
    assert events[0].text.endswith("→ Bandit 1 is a minion: dies on any hit")
    assert controller.encounter.combatant("bandit-1").dead
    assert turns.end_turn()

    # Cedryk, next to the Ogre, is dragged away from it: the map marks the free attack before the
    # drop and it is queued in the Rules call for dock after it.
    assert controller.do(act.Move("cedryk", to=(11, 7), forced=True)) is not None
    assert turns.begin_turn("cedryk")
    viewport = window.map_view.viewport()
    QTest.mousePress(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, at(window, (11, 7)))
    for cell in ((10, 8), (9, 9)):
        QTest.mouseMove(viewport, at(window, cell))
    assert window.map_view.drag_layer.label.text.splitlines()[-1] == "Free attack from: Ogre"
    assert window.map_view.drag_layer.provoke.cells == [(11, 7)]
    QTest.mouseRelease(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, at(window, (9, 9)))
    assert controller.encounter.tokens["cedryk"].cell == (9, 9)
    pending = controller.encounter.combat.pending
    assert [(p.kind, p.who, p.target) for p in pending] == [("free attack", "ogre", "cedryk")]
    qtbot.waitUntil(lambda: window.prompts_panel.cards != [])
    card = window.prompts_panel.cards[0]
    assert card.title_label.text() == "Free attack"
    assert card.apply_faces(0, [2, 15]) is not None  # surprised: disadvantage, 2 kept: 2 + 4 against 13, a miss
    assert (
        "2/15 (disadvantage: 2) +4 melee = 6 vs Defense 13; disadvantage (surprised): miss"
        in controller.encounter.log[-1].text
    )
    assert controller.encounter.combat.pending == []
    assert turns.end_turn()

    # Janine ends the Party's turns; the Opponents' groups follow, then the round is over and the
    # next round's declarations open.
    assert turns.begin_turn("janine")
    assert turns.end_turn()
    while controller.engine.waiting():
        assert turns.begin_turn(controller.engine.waiting()[0].id)
        assert turns.end_turn()
    assert controller.engine.round_over
    spec = turns.declarations()
    assert spec is not None and spec.open and "tombril" in spec.missing
