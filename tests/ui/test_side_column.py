"""The side column at the table, measured in a real window of a laptop's size (1366 x 768) and of a
1920 x 1080 screen at 150 % UI scale: every line of a 12-combatant turn order in view in each phase
(setting up, declaring, a turn under way, the round over); beside Roll, the failing check named and
the forecast, without scrolling or switching tabs; the column's width the same in every phase; the
Turns tab in front when the combat starts; the GM's own splitter position kept; round-log lines and
the status bar's message wrapped rather than cut off with "…".

"In view" is measured, not assumed: a row's rectangle inside its list's viewport, a widget's
visible region (what its scroll area, dock and tab leave of it), never just ``isVisible()``."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QSettings, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QMessageBox, QStyle, QTreeWidgetItem, QWidget
from pytestqt.qtbot import QtBot

from lnl_desktop.core.dice.rolls import RandomDice
from lnl_desktop.core.encounter.model import Phase
from lnl_desktop.core.files import storage
from lnl_desktop.paths import resource
from lnl_desktop.ui.docks.bestiary import load_bestiary
from lnl_desktop.ui.plumbing.theme import Presentation
from lnl_desktop.ui.window.main_window import MainWindow
from lnl_desktop.ui.window.recovery import RecoveryStore

# (width, height less the window frame, UI scale %): a laptop, and a large screen at 150 %.
LAPTOP = (1366, 740, 100)
LARGE = (1920, 1050, 150)
DEMOS = ("goblin-ambush-osr.lnl", "bandit-mill-d10.lnl")

Factory = Callable[..., MainWindow]


@pytest.fixture
def table(qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Factory]:
    """A main window of the given size and UI scale on a demo with 12 combatants (3 from the bestiary)."""
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Discard)
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    recovery = RecoveryStore(tmp_path / "recovery")

    def make(demo: str, size: tuple[int, int, int] = LAPTOP, fighters: int = 12) -> MainWindow:
        width, height, scale = size
        settings.setValue("presentation/scale", scale)
        window = MainWindow(storage.load(resource("encounters", demo)), None, settings=settings, recovery=recovery)
        qtbot.addWidget(window)
        window.resize(width, height)
        with qtbot.waitActive(window):
            window.show()
            window.activateWindow()
        creatures, _ = load_bestiary(None, window.controller.engine.ruleset)
        while len(window.controller.encounter.combatants) < fighters:
            window.bestiary.add_creature(creatures[len(window.controller.encounter.combatants) % len(creatures)])
        settle()
        return window

    yield make
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    Presentation().apply(app)  # the application's font back to 100 % for the tests after


def settle() -> None:
    for _ in range(5):
        QApplication.processEvents()


def lines(window: MainWindow) -> list[QTreeWidgetItem]:
    tree = window.turns_panel.tree
    found: list[QTreeWidgetItem] = []
    for i in range(tree.topLevelItemCount()):
        item = tree.topLevelItem(i)
        found.append(item)
        found += [item.child(j) for j in range(item.childCount())]
    return found


def lines_out_of_view(window: MainWindow) -> list[str]:
    """The turn order's lines not wholly in view (the Turns tab in front, each row inside the list's viewport)."""
    panel = window.turns_panel
    assert not panel.visibleRegion().isEmpty(), "the Turns tab is in front"
    tree = panel.tree
    view = tree.viewport().rect()
    seen = tree.viewport().visibleRegion().boundingRect()
    return [
        item.text(0)
        for item in lines(window)
        if not (view.contains(tree.visualItemRect(item)) and seen.contains(tree.visualItemRect(item)))
    ]


def wholly_in_view(widget: QWidget) -> bool:
    """Shown and not cut by its scroll area, dock, tab or the window's edge."""
    if not widget.isVisible() or widget.height() == 0:
        return False
    window_rect = widget.window().rect()
    where = widget.mapTo(widget.window(), QPoint(0, 0))
    inside_window = window_rect.contains(widget.rect().translated(where))
    return inside_window and widget.visibleRegion().boundingRect() == widget.rect()


def start(window: MainWindow) -> None:
    dialog = window.turns_panel.start_combat()
    if "nobody surprised" in dialog.situation_buttons:
        dialog.set_situation("nobody surprised")
    dialog.accept()
    settle()
    assert window.controller.encounter.combat.phase is Phase.FIGHTING, window.controller.refusal


def declare_everyone(window: MainWindow) -> None:
    if window.turns_panel.declare_spec is not None:
        window.turns_panel.declare_all()
        settle()


def begin_first_turn(window: MainWindow) -> str:
    turns = window.turns_panel
    cid = next(c.id for c in window.controller.encounter.combatants if turns.may_begin(c.id)[0])
    assert turns.begin_turn(cid)
    settle()
    return cid


def aim_out_of_reach(window: MainWindow) -> None:
    """A melee attack on a foe out of reach: refused by one check."""
    panel = window.action_panel
    for c in window.controller.encounter.combatants:
        try:
            panel.set_target(c.id)
        except ValueError:
            continue  # not a possible target (oneself, one's own side)
        if not panel.allowed()[0]:
            break
    settle()
    assert not panel.allowed()[0]


@pytest.mark.parametrize("size", [LAPTOP, LARGE], ids=["1366x768", "1920x1080@150"])
@pytest.mark.parametrize("demo", DEMOS)
def test_every_line_of_a_12_combatant_turn_order_is_in_view_in_every_phase(
    table: Factory, demo: str, size: tuple[int, int, int]
) -> None:
    window = table(demo, size)
    assert len(window.controller.encounter.combatants) == 12
    assert not lines_out_of_view(window), "setting up"
    declare_everyone(window)
    assert not lines_out_of_view(window), "declared"
    start(window)
    assert not lines_out_of_view(window), "fighting, no turn yet"
    begin_first_turn(window)
    assert not window.action_panel.visibleRegion().isEmpty()  # the Action tab forward, the order whole
    assert not lines_out_of_view(window), "a turn under way"
    # The round over: everyone ends up acted, the next round's initiative to roll.
    controller = window.controller
    while True:
        if controller.encounter.combat.turn is not None:
            assert window.turns_panel.end_turn()
        waiting = [c.id for c in controller.encounter.combatants if window.turns_panel.may_begin(c.id)[0]]
        if not waiting:
            break
        assert window.turns_panel.begin_turn(waiting[0])
    settle()
    assert controller.engine.round_over
    assert not lines_out_of_view(window), "the round over"


@pytest.mark.parametrize("size", [LAPTOP, LARGE], ids=["1366x768", "1920x1080@150"])
@pytest.mark.parametrize("demo", DEMOS)
def test_the_failing_check_the_forecast_and_roll_are_in_view_together(
    table: Factory, demo: str, size: tuple[int, int, int]
) -> None:
    window = table(demo, size)
    declare_everyone(window)
    start(window)
    begin_first_turn(window)
    aim_out_of_reach(window)
    panel = window.action_panel
    failing = next(r for r in panel.rows if r.blocks)
    # The summary beside Roll names the check that fails, with its reason.
    assert failing.label in panel.verdict_label.text() and failing.reason in panel.verdict_label.text()
    assert panel.forecast_line.text() and "%" in panel.forecast_line.text()
    for widget in (panel.verdict_label, panel.forecast_line, panel.roll_button):
        assert wholly_in_view(widget), widget.objectName() or widget.text()
    assert not lines_out_of_view(window)  # and the turn order still whole


def test_the_column_keeps_its_width_through_the_phases(table: Factory) -> None:
    window = table("goblin-ambush-osr.lnl")
    column = window.docks["Turns"].width()
    map_width = window.map_view.width()
    widths = []
    declare_everyone(window)
    start(window)
    widths.append(window.docks["Turns"].width())
    cid = begin_first_turn(window)
    aim_out_of_reach(window)
    widths.append(window.docks["Turns"].width())
    window.docks["Round log"].raise_()
    settle()
    widths.append(window.docks["Turns"].width())
    assert window.turns_panel.end_turn()
    settle()
    widths.append(window.docks["Turns"].width())
    assert widths == [column] * len(widths), f"{cid}: {widths}"
    assert window.map_view.width() == map_width


def test_the_turns_tab_comes_forward_when_combat_starts(table: Factory) -> None:
    window = table("goblin-ambush-osr.lnl", fighters=9)
    window.docks["Bestiary"].raise_()
    settle()
    assert window.turns_panel.visibleRegion().isEmpty()
    start(window)
    assert not window.turns_panel.visibleRegion().isEmpty()


def drag(window: MainWindow, start: QPoint, end: QPoint) -> None:
    handle = window.windowHandle()
    QTest.mousePress(handle, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, start)
    QTest.mouseMove(handle, end)
    QTest.mouseRelease(handle, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, end)
    settle()


def test_the_gms_own_splitter_position_is_kept(table: Factory) -> None:
    window = table("goblin-ambush-osr.lnl", fighters=9)
    turns, action = window.docks["Turns"], window.docks["Action"]
    # The splitter between the Turns and the Action groups: right below the Turns dock.
    extent = window.style().pixelMetric(QStyle.PixelMetric.PM_DockWidgetSeparatorExtent)
    between = QPoint(turns.x() + turns.width() // 2, turns.geometry().bottom() + 1 + extent // 2)
    assert action.y() > between.y()
    before = turns.height()
    drag(window, between, between + QPoint(0, -60))
    own = turns.height()
    assert own < before - 30, "the GM dragged the splitter up"
    start(window)
    begin_first_turn(window)
    assert turns.height() == own  # the work moved to the Action dock: the GM's split stays
    assert window.turns_panel.end_turn()
    settle()
    assert turns.height() == own
    window.reset_layout()  # View ▸ Reset layout: the app's own split again
    settle()
    assert turns.height() != own


def test_round_log_lines_wrap_and_the_status_bar_keeps_the_numbers(table: Factory) -> None:
    window = table("goblin-ambush-osr.lnl", fighters=9)
    start(window)
    begin_first_turn(window)
    panel = window.action_panel
    for c in window.controller.encounter.combatants:
        try:
            panel.set_target(c.id)
        except ValueError:
            continue
        if panel.allowed()[0]:
            break
    assert panel.allowed()[0]
    events = panel.roll()
    assert events
    said = window.statusBar().currentMessage()
    words = window.statusBar().words  # the bar's message, as the GM sees it
    assert words.text() == said and wholly_in_view(words)
    needed = words.fontMetrics().boundingRect(0, 0, words.width(), 10_000, Qt.TextFlag.TextWordWrap, said)
    assert needed.height() <= words.height(), "the whole message fits its lines"
    window.docks["Round log"].raise_()
    settle()
    log = window.round_log
    table_view = log.table
    metrics = table_view.fontMetrics()
    row = max(range(log.proxy.rowCount()), key=lambda r: metrics.horizontalAdvance(log.proxy.index(r, 1).data()))
    text = log.proxy.index(row, 1).data()
    one_line = metrics.horizontalAdvance(text)
    assert one_line > table_view.columnWidth(1), "a line longer than the log is wide"
    lines_needed = table_view.fontMetrics().boundingRect(
        0, 0, table_view.columnWidth(1) - 8, 10_000, Qt.TextFlag.TextWordWrap, text
    )
    assert table_view.rowHeight(row) >= lines_needed.height(), "the row is as tall as its wrapped words"
    assert table_view.textElideMode() == Qt.TextElideMode.ElideNone and table_view.wordWrap()


@pytest.mark.parametrize("demo", DEMOS)
def test_the_turn_order_stays_whole_with_another_tab_of_the_lower_group_in_front(table: Factory, demo: str) -> None:
    """The GM reads the Round log or the Sheet while declaring: that tab holds the lower part of the
    column in the Action dock's place, and the turn order above it still shows every line."""
    window = table(demo)
    for name in ("Round log", "Sheet"):
        window.docks[name].show()
        window.docks[name].raise_()
        settle()
        declare_everyone(window)
        settle()
        assert not lines_out_of_view(window), name


@pytest.mark.parametrize("seed", [0, 1, 2], ids=["party first", "opponents first", "party first again"])
def test_the_split_stays_put_from_one_turn_to_the_next(table: Factory, seed: int) -> None:
    """Between two turns the turn's buttons hide and the turn order needs a line less: the split stays where
    it is (the Action dock has its room), rather than the whole side panel laid out and painted again twice
    a turn; every line of the order stays in view. (At the round's end the order says more, and may grow.)"""
    window = table("hill-giant.lnl", fighters=1)
    window.controller.engine.dice = RandomDice(seed)
    start(window)
    turns = window.turns_panel
    dock = window.docks["Turns"]
    begin_first_turn(window)
    during = dock.height()
    assert not lines_out_of_view(window)
    checked = 0
    for _ in range(3):
        assert turns.end_turn()
        settle()
        if not any(turns.may_begin(c.id)[0] for c in window.controller.encounter.combatants):
            break  # the round is over: its end has lines of its own
        assert dock.height() == during, "between two turns"
        assert not lines_out_of_view(window)
        begin_first_turn(window)
        assert dock.height() == during, "the next turn"
        assert not lines_out_of_view(window)
        checked += 1
    assert checked >= 1
