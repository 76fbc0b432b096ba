"""The Round log dock on a long fight: its early rounds, kept sealed in the log's book, are there to
scroll back to and to pick by round, and the newest events still come at the bottom."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt
from pytestqt.qtbot import QtBot

from lnl_desktop.core import Combatant, Encounter, Engine, MapGrid, RandomDice, Side, Token, Weapon
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.log_book import LogBook
from lnl_desktop.core.rules.lnl import script
from lnl_desktop.ui.docks.log import RoundLog
from lnl_desktop.ui.plumbing.controller import TableController

ROUNDS = 150


def fighter(name: str, side: Side) -> Combatant:
    weapons = [Weapon(name="Sword", die="d6")]
    return Combatant(name=name, side=side, level=3, stamina_max=200, injury_max=100, weapons=weapons)


def long_fight() -> Encounter:
    """Ana and Orc trade blows for ROUNDS rounds, healed by the GM after each."""
    encounter = Encounter(
        map=MapGrid(width=30, height=30),
        combatants=[fighter("Ana", Side.PARTY), fighter("Orc", Side.OPPONENTS)],
        tokens={"ana": Token(cell=(10, 10), facing=90), "orc": Token(cell=(11, 10), facing=270)},
    )
    engine = Engine(encounter, RandomDice(3))
    engine.start_combat(face=4)
    for _ in range(ROUNDS):
        while engine.waiting():
            who = engine.waiting()[0].id
            engine.begin_turn(who)
            script.attack(engine, who, "orc" if who == "ana" else "ana", "Sword")
            engine.end_turn()
        for c in list(engine.encounter.combatants):
            engine.edit(c.id, stamina=c.stamina_max, injury=c.injury_max)
        engine.next_round()
    return engine.encounter


def shown_texts(dock: RoundLog) -> list[str]:
    proxy = dock.proxy
    return [proxy.index(row, 1).data() for row in range(proxy.rowCount())]


def test_the_round_log_scrolls_back_to_round_one_of_a_long_fight(qtbot: QtBot) -> None:
    encounter = long_fight()
    log = encounter.log
    assert isinstance(log, LogBook) and log.sealed > 1000  # round 1 is long sealed
    first_round = [e.text for e in log if e.round == 1]
    controller = TableController(encounter)
    dock = RoundLog(controller)
    qtbot.addWidget(dock)
    dock.resize(500, 400)
    dock.show()
    qtbot.waitExposed(dock)
    assert dock.proxy.rowCount() == len(log)

    dock.table.scrollToTop()
    top = dock.table.indexAt(QPoint(4, 4))
    assert top.row() == 0 and top.siblingAtColumn(1).data() == log[0].text
    row_one = next(i for i, e in enumerate(log) if e.round == 1)
    dock.table.scrollTo(dock.proxy.index(row_one, 1), dock.table.ScrollHint.PositionAtTop)
    shown = dock.table.indexAt(QPoint(4, 4))
    assert shown.row() == row_one and shown.siblingAtColumn(1).data() == first_round[0]
    assert not dock.following  # scrolled up to read: new events leave the view where it is

    dock.set_round(1)  # the round picked: round 1's events, all of them, in order
    assert shown_texts(dock) == first_round
    dock.set_round(None)

    controller.do(act.BeginTurn(controller.engine.waiting()[0].id))
    assert dock.proxy.rowCount() == len(controller.encounter.log)
    last = dock.proxy.index(dock.proxy.rowCount() - 1, 1)
    assert last.data(Qt.ItemDataRole.DisplayRole) == controller.encounter.log[-1].text
