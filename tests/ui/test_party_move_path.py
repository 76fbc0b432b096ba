"""A Party move on a big map costs what it changed: the windows' work after a token moves.

The Turns dock reads the combatants and the combat state only: a token moved outside a turn (the fog
growing with it) leaves it as it was, with no refresh (and so no relayout of the side panel), while a
change it shows still refreshes it. The recovery journal writes each change's line at once and hands
the disk's wait to its worker after the frame, once for all the lines written in it. Counted calls,
no clocks.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from lnl_desktop.core import Combatant, Encounter, MapGrid, Side, Token, Weapon
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.files import journal as journal_module
from lnl_desktop.ui.docks.turns import TurnsPanel
from lnl_desktop.ui.plumbing.controller import TableController


def table() -> Encounter:
    """Ana of the Party and a row of goblins on a 40 x 40 map, fog of war on."""
    combatants = [
        Combatant(
            name="Ana", side=Side.PARTY, level=3, stamina_max=20, injury_max=9, weapons=[Weapon(name="Sword", die="d8")]
        )
    ]
    tokens = {"ana": Token(cell=(5, 5), facing=90)}
    for n in range(20):
        cid = f"g{n}"
        combatants.append(
            Combatant(id=cid, name=f"Goblin {n + 1}", side=Side.OPPONENTS, level=1, stamina_max=4, injury_max=3)
        )
        tokens[cid] = Token(cell=(2 * n % 40, 20 + n // 20))
    encounter = Encounter(map=MapGrid(width=40, height=40), combatants=combatants, tokens=tokens)
    encounter.fog.enabled = True
    return encounter


def shown(panel: TurnsPanel) -> tuple[Any, ...]:
    model = panel.turns_model
    rows = [[model.data(model.index(r, c)) for c in range(model.columnCount())] for r in range(model.rowCount())]
    buttons = [
        (b.text(), b.isVisible(), b.isEnabled(), b.toolTip()) for b in (panel.start_button, panel.end_turn_button)
    ]
    return panel.round_label.text(), panel.banner.text(), rows, buttons


def test_a_party_move_leaves_the_turns_dock_alone_and_a_change_it_shows_refreshes_it(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    controller = TableController(table())
    panel = TurnsPanel(controller)
    qtbot.addWidget(panel)
    refreshed: list[int] = []
    original = panel.refresh
    monkeypatch.setattr(panel, "refresh", lambda: refreshed.append(controller.engine.touched.step) or original())
    before = shown(panel)
    explored = len(controller.encounter.fog.explored)
    for cell in ((6, 5), (7, 6), (6, 5)):
        assert controller.do(act.Move("ana", cell, forced=True)) is not None, controller.refusal
    assert len(controller.encounter.fog.explored) > explored  # the fog grew with the moves
    assert refreshed == []
    assert shown(panel) == before
    controller.undo_stack.undo()  # an undo of a move touches a token alone too
    assert refreshed == []
    assert controller.do(act.EditCombatant("g3", {"stamina": 1})) is not None
    assert len(refreshed) == 1  # a hit: its row and the header are looked at again
    assert controller.do(act.StartCombat("nobody ambushes", 4)) is not None
    assert len(refreshed) == 2
    fresh = TurnsPanel(controller)
    qtbot.addWidget(fresh)
    assert shown(panel) == shown(fresh)


def test_the_journal_line_is_written_at_once_and_the_disk_wait_handed_off_after_the_frame(
    laptop_window: Any, monkeypatch: pytest.MonkeyPatch, qtbot: QtBot
) -> None:
    window = laptop_window(table())
    handed: list[int] = []
    original = journal_module._sync_later
    monkeypatch.setattr(journal_module, "_sync_later", lambda fd: handed.append(fd) or original(fd))
    journal = window.document.journal
    controller = window.controller
    for cell in ((6, 5), (7, 5)):  # two changes before the event loop runs again
        assert controller.do(act.Move("ana", cell, forced=True)) is not None, controller.refusal
    # On the disk's way already (a kill loses nothing), the worker not woken mid-frame.
    lines = journal._journal_path(journal.generation).read_text().splitlines()
    assert [json.loads(line)["action"]["to"] for line in lines[-2:]] == [[6, 5], [7, 5]]
    assert handed == []
    qtbot.waitUntil(lambda: len(handed) == 1)  # one hand-off for both lines, once the frame is drawn
    journal.wait_synced()
    QApplication.processEvents()
    assert len(handed) == 1
