"""The Fight odds dock (GM only): the rest of the fight played thousands of times from the table's
state, at a glance — each side's chance to win with its 95 % margin in words, each combatant's
chance to drop (and to die, where the ruleset tells them apart) as a bar chart, the rounds left, the
health left. Worked out on a worker a moment after each change while the dock shows
(:class:`lnl_desktop.ui.fight_odds.FightOddsService`); pyqtgraph is imported when it first shows.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPalette, QShowEvent
from PySide6.QtWidgets import (
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from lnl_desktop.core.encounter.model import Side
from lnl_desktop.ui import style
from lnl_desktop.ui.controller import TableController

if TYPE_CHECKING:  # pyqtgraph only once the dock shows
    import pyqtgraph

    from lnl_desktop.core.sim.odds import FightOdds
    from lnl_desktop.ui.fight_odds import FightOddsService

DROP_COLOR = QColor("#EE7733")
DIE_COLOR = QColor("#CC3311")
ROUNDS_COLOR = QColor("#0077BB")


class FightOddsPanel(QWidget):
    """Who wins, who drops, how long: the odds of the table's state."""

    def __init__(self, controller: TableController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.controller = controller
        self.service: FightOddsService | None = None
        self.odds: FightOdds | None = None
        self.headline = QLabel("Fight odds show here once worked out", self)
        self.headline.setObjectName("banner")
        self.headline.setWordWrap(True)
        self.status = QLabel(self)
        self.status.setObjectName("note")
        self.status.setWordWrap(True)
        self.chart_holder = QWidget(self)
        self.chart_layout = QVBoxLayout(self.chart_holder)
        self.chart_layout.setContentsMargins(0, 0, 0, 0)
        self.table = QTableWidget(0, 4, self)
        self.table.setHorizontalHeaderLabels(["Combatant", "Drops", "Dies", "Left"])
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setSelectionMode(QTableWidget.SelectionMode.NoSelection)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for col in (1, 2, 3):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.headline)
        layout.addWidget(self.status)
        layout.addWidget(self.chart_holder, 3)
        layout.addWidget(self.table, 2)
        self.drop_plot: pyqtgraph.PlotWidget | None = None
        self.rounds_plot: pyqtgraph.PlotWidget | None = None

    def attach(self, service: FightOddsService) -> None:
        self.service = service
        service.full_wants.append(self.isVisible)
        service.started.connect(self._working)
        service.ready.connect(self.show_odds)
        service.failed.connect(self._failed)
        if service.latest is not None:
            self.show_odds(service.latest, True)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self.drop_plot is None:
            self._build_charts()
        if self.service is not None:
            self.service.request()

    # -- what the service says ---------------------------------------------------------------------

    def _working(self) -> None:
        if self.isVisible():
            self.status.setText("Working the odds out…")

    def _failed(self, words: str) -> None:
        self.odds = None
        self.headline.setText("No fight odds")
        self.status.setText(words)

    def show_odds(self, odds: FightOdds, final: bool) -> None:
        self.odds = odds
        party, opponents = odds.party_wins, odds.opponents_win
        margins = f"± {odds.margin(party):.1%}", f"± {odds.margin(opponents):.1%}"
        self.headline.setText(f"Party wins {party:.0%} {margins[0]} · Opponents {opponents:.0%} {margins[1]}")
        lo, hi = odds.rounds_range()
        rounds = f"{lo} round{'s' if lo != 1 else ''}" if lo == hi else f"{lo}–{hi} rounds"
        first = "" if final else " (a first estimate; the full count follows)"
        self.status.setText(
            f"Someone of the Party drops in {odds.someone_drops:.0%} · {rounds} left in 8 fights of 10 · "
            f"{odds.fights:,} fights in {odds.seconds:.2f} s{first}. The margins: 95 % of such counts fall within them."
        )
        ruleset = self.controller.engine.ruleset
        self.setToolTip(f"The default tactic: {ruleset.sim_tactic}" if ruleset.sim_tactic else "")
        self._fill_table(odds)
        self._draw(odds)

    def _fill_table(self, odds: FightOdds) -> None:
        tells_death = any(c.die is not None for c in odds.combatants)
        self.table.setColumnHidden(2, not tells_death)
        self.table.setRowCount(len(odds.combatants))
        for row, c in enumerate(odds.combatants):
            name = QTableWidgetItem(c.name)
            name.setForeground(style.side_color(Side(c.side)))
            cells = [
                name,
                QTableWidgetItem(f"{c.drop:.0%}"),
                QTableWidgetItem(f"{c.die:.0%}" if c.die is not None else ""),
                QTableWidgetItem(", ".join(f"{k} {v:.0f}" for k, v in c.health_left.items())),
            ]
            for col, item in enumerate(cells):
                if col:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                item.setToolTip(f"{c.name}: drops in {c.drop:.1%} ± {odds.margin(c.drop):.1%} of the fights")
                self.table.setItem(row, col, item)

    # -- the charts --------------------------------------------------------------------------------

    def _build_charts(self) -> None:
        import pyqtgraph as pg  # deliberately late: the app starts without it

        background = self.palette().color(QPalette.ColorRole.Base)
        text = self.palette().color(QPalette.ColorRole.Text)
        self.drop_plot = pg.PlotWidget(self.chart_holder, background=background)
        self.rounds_plot = pg.PlotWidget(self.chart_holder, background=background)
        for plot in (self.drop_plot, self.rounds_plot):
            plot.setMenuEnabled(False)
            plot.setMouseEnabled(x=False, y=False)
            plot.hideButtons()
            for axis in ("left", "bottom"):
                plot.getAxis(axis).setPen(pg.mkPen(text))
                plot.getAxis(axis).setTextPen(pg.mkPen(text))
        self.drop_plot.setLabel("bottom", "chance to drop (darker: to die)")
        self.drop_plot.setXRange(0, 1, padding=0.02)
        self.rounds_plot.setLabel("bottom", "rounds left")
        self.rounds_plot.setMaximumHeight(140)
        self.chart_layout.addWidget(self.drop_plot, 3)
        self.chart_layout.addWidget(self.rounds_plot, 1)
        if self.odds is not None:
            self._draw(self.odds)

    def _draw(self, odds: FightOdds) -> None:
        if self.drop_plot is None or self.rounds_plot is None:
            return
        import pyqtgraph as pg

        self.drop_plot.clear()
        people = list(odds.combatants)
        ys = list(range(len(people)))[::-1]
        colors = [pg.mkBrush(style.side_color(Side(c.side))) for c in people]
        self.drop_plot.addItem(
            pg.BarGraphItem(x0=[0] * len(people), y=ys, width=[c.drop for c in people], height=0.7, brushes=colors)
        )
        deaths = [c.die or 0.0 for c in people]
        if any(deaths):
            self.drop_plot.addItem(
                pg.BarGraphItem(x0=[0] * len(people), y=ys, width=deaths, height=0.35, brush=pg.mkBrush(DIE_COLOR))
            )
        self.drop_plot.getAxis("left").setTicks([[(y, c.name) for y, c in zip(ys, people, strict=True)]])
        self.drop_plot.setYRange(-0.6, len(people) - 0.4, padding=0)
        self.rounds_plot.clear()
        keys = sorted(odds.rounds)
        self.rounds_plot.addItem(
            pg.BarGraphItem(x=keys, height=[odds.rounds[k] for k in keys], width=0.8, brush=pg.mkBrush(ROUNDS_COLOR))
        )

    def plots(self) -> tuple[Any, Any]:
        return self.drop_plot, self.rounds_plot
