"""The Turns list's item model answers Qt from a table prepared per line: the same answers as the
line's parts say (words as visible() writes them, colours as brushes, the roles the dock reads), the
new look as soon as a line changes, and only the changed line told to the views. The list's header
height and selected line, read the cheap way, agree with Qt's own answers."""

from __future__ import annotations

from PySide6.QtCore import QItemSelectionModel, QModelIndex, QSignalBlocker, Qt
from PySide6.QtGui import QBrush, QColor, QFont
from pytestqt.qtbot import QtBot

from lnl_desktop.ui.docks.turns import TurnsPanel
from lnl_desktop.ui.models.turns import ID_ROLE, MAY_BEGIN_ROLE, STATE_ROLE, Line, TurnsModel
from lnl_desktop.ui.window.main_window import MainWindow

HEADERS = ["Combatant", "This round", "SP", "IP"]
DISPLAY, TIP, FONT = Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole, Qt.ItemDataRole.FontRole
FORE, BACK = Qt.ItemDataRole.ForegroundRole, Qt.ItemDataRole.BackgroundRole


def row(cid: str, name: str, state: str = "waiting", sp: str = "30") -> Line:
    bold = QFont()
    bold.setBold(True)
    return Line(
        cid,
        [name, state, sp, "20"],
        tips={0: f"{name}: on the Party's side"},
        fonts={1: bold},
        fore={1: QColor("#1b7a3a")},
        state=state,
        may_begin=state == "waiting",
    )


def lines() -> list[Line]:
    heading = Line(None, ["Party"], tips={0: "The Party's side"}, back={0: QColor("#fff3c4")})
    heading.children = [row("tombril", "Tombril"), row("janine", "Janine\u202e")]
    return [heading, row("giant", "Hill Giant", state="acted")]


def test_every_role_answers_as_the_line_says() -> None:
    model = TurnsModel()
    assert model.show(HEADERS, {}, lines())[0] == "reset"
    party = model.index(0, 0)
    janine = model.index_of("janine")
    giant = model.index_of("giant", 1)

    assert party.data(DISPLAY) == "Party" and party.data(ID_ROLE) is None
    assert party.data(BACK) == QBrush(QColor("#fff3c4")) and model.index(0, 1).data(DISPLAY) is None
    assert janine.parent() == party and janine.row() == 1
    assert janine.data(DISPLAY) == "Janine\\u202e"  # a bidi control shown as its escape, never obeyed
    assert janine.data(TIP) == "Janine\\u202e: on the Party's side"
    assert janine.data(ID_ROLE) == "janine" and janine.siblingAtColumn(2).data(ID_ROLE) is None
    assert giant.data(DISPLAY) == "acted" and giant.data(FONT).bold() and giant.data(FORE).color() == QColor("#1b7a3a")
    assert giant.data(STATE_ROLE) == "acted" and giant.data(MAY_BEGIN_ROLE) is False
    assert janine.siblingAtColumn(3).data(STATE_ROLE) == "waiting" and janine.data(MAY_BEGIN_ROLE) is True
    assert giant.data(FORE) is not None and model.index_of("giant", 0).data(FORE) is None
    # Headings are not picked; combatants are; nothing past the lines answers.
    assert not model.flags(party) & Qt.ItemFlag.ItemIsSelectable
    assert model.flags(janine) & Qt.ItemFlag.ItemIsSelectable
    assert model.data(QModelIndex(), DISPLAY) is None and model.flags(QModelIndex()) == Qt.ItemFlag.NoItemFlags
    assert model.rowCount() == 2 and model.rowCount(party) == 2 and model.rowCount(giant) == 0
    assert (
        not model.index(2, 0).isValid() and not model.index(0, 4).isValid() and not model.index(2, 0, party).isValid()
    )
    assert (
        model.headerData(2, Qt.Orientation.Horizontal) == "SP" and model.headerData(2, Qt.Orientation.Vertical) is None
    )


def test_a_changed_line_answers_anew_and_alone_is_told(qtbot: QtBot) -> None:
    model = TurnsModel()
    model.show(HEADERS, {}, lines())
    assert model.index_of("tombril", 2).data(DISPLAY) == "30"  # painted once: its answers are prepared
    told: list[tuple[int, int, int, int]] = []
    model.dataChanged.connect(lambda a, b, *_: told.append((a.row(), b.row(), a.column(), b.column())))
    changed = lines()
    changed[0].children[0] = row("tombril", "Tombril", sp="12")

    assert model.show(HEADERS, {}, changed) == ("data", {"tombril"})
    assert model.index_of("tombril", 2).data(DISPLAY) == "12"
    assert told == [(0, 0, 0, 3)]  # Tombril's line, every column; not Janine's, not the giant's

    assert model.replace(row("giant", "Hill Giant", state="down"))
    assert model.index_of("giant", 1).data(DISPLAY) == "down" and model.index_of("giant").data(STATE_ROLE) == "down"
    assert not model.replace(row("giant", "Hill Giant", state="down"))  # the same look: nothing to tell


def test_more_columns_after_a_reset_answer_for_every_column() -> None:
    model = TurnsModel()
    shown = [Line("giant", ["Hill Giant", "acted"], state="acted")]  # words for the first two columns
    model.show(HEADERS[:2], {}, shown)
    assert model.index_of("giant", 1).data(STATE_ROLE) == "acted"  # painted: prepared for two columns
    assert model.show(HEADERS, {}, shown)[0] == "reset"
    assert model.index_of("giant", 3).data(STATE_ROLE) == "acted" and model.index_of("giant", 3).data(DISPLAY) is None


def test_the_header_height_follows_its_titles_and_font(demo_window: MainWindow, qtbot: QtBot) -> None:
    panel: TurnsPanel = demo_window.turns_panel
    tree = panel.tree
    assert tree.header_height() == tree.header().sizeHint().height() > 0
    first = tree.header_height()
    model = tree.turns_model
    model.show(["Combatant\nand kin", *HEADERS[1:]], {}, lines())  # a title on two lines: a taller header
    assert tree.header_height() == tree.header().sizeHint().height() > first
    font = tree.font()
    font.setPointSizeF(font.pointSizeF() * 2)
    tree.setFont(font)
    assert tree.header_height() == tree.header().sizeHint().height()


def test_the_selected_line_is_read_however_it_was_selected(demo_window: MainWindow, qtbot: QtBot) -> None:
    panel: TurnsPanel = demo_window.turns_panel
    model = panel.turns_model
    selection = panel.tree.selectionModel()
    rows = QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows
    cids = [cid for cid in model.cids() if cid]
    first, second = cids[0], cids[1]

    selection.setCurrentIndex(model.index_of(first, 1), rows)
    assert panel.selected_id() == first
    # Selected by code without moving the current line (the dock, not told, does not follow it): the
    # selected one is read, not the current.
    with QSignalBlocker(selection):
        selection.select(model.index_of(second), rows)
    assert selection.currentIndex().siblingAtColumn(0) == model.index_of(first)
    assert panel.selected_id() == second
    selection.clearSelection()
    assert panel.selected_id() is None
