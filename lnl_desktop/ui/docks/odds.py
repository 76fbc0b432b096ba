"""The Odds dock (GM only): the rest of the fight played thousands of times from the table's
state, at a glance — each side's chance to win with its 95 % margin in words, each combatant's
chance to drop (and to die, where the ruleset tells them apart) as a bar chart, the rounds left, the
health left. Worked out on a worker a moment after each change while the dock shows
(:class:`lnl_desktop.ui.plumbing.fight_odds.FightOddsService`); pyqtgraph is imported when it first shows.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent, QObject, QPointF, QSignalBlocker, Qt, QTimer
from PySide6.QtGui import QColor, QFontMetrics, QPalette, QShowEvent
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from lnl_desktop.core.encounter.model import Side
from lnl_desktop.core.rules.fight import MAX_ROUNDS, Plan
from lnl_desktop.core.sim.odds import LEFT_MEANS
from lnl_desktop.ui.plumbing import style
from lnl_desktop.ui.plumbing.controller import TableController
from lnl_desktop.ui.plumbing.fight_odds import no_simulator

if TYPE_CHECKING:  # pyqtgraph only once the dock shows
    import pyqtgraph

    from lnl_desktop.core.sim.odds import FightOdds
    from lnl_desktop.ui.plumbing.fight_odds import FightOddsService

DROP_COLOR = QColor("#EE7733")
DIE_COLOR = QColor("#CC3311")
ROUNDS_COLOR = QColor("#0077BB")
# The charts' room in lines of the dock's text: a combatant's bar and name each, the rounds at least;
# the dock scrolls rather than squash them (a projector's 150 % leaves it a few hundred pixels).
ROW_LINES = 1.5
AXIS_LINES = 3.0  # the bottom axis: its numbers and its name
ROUNDS_LINES = 6.0
NAME_SHARE = 0.4  # the names' part of the chart's width at most: a longer one is elided (full on hover)


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
        self.table = QTableWidget(0, 5, self)
        self.table.setHorizontalHeaderLabels(["Combatant", "Drops", "Dies", "Left", "What if"])
        self.table.setColumnHidden(4, True)
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setSelectionMode(QTableWidget.SelectionMode.NoSelection)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for col in (1, 2, 3, 4):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        # What if: a plan pinned for one combatant, the odds with it beside the odds without.
        self.who_combo = QComboBox(self)
        self.who_combo.setToolTip("Whose plan to pin")
        self.plan_combo = QComboBox(self)
        self.plan_combo.setToolTip("Its plan instead of the default tactic: retreat, or a foe to attack first")
        self.pin_button = QPushButton("&Pin", self)
        self.pin_button.setToolTip("See the odds with this plan beside the odds without it")
        self.clear_button = QPushButton("C&lear", self)
        self.clear_button.setToolTip("Back to the default tactic for everyone")
        self.whatif_label = QLabel(self)
        self.whatif_label.setWordWrap(True)
        self.whatif_label.setObjectName("note")
        for combo in (self.who_combo, self.plan_combo):
            # Narrow by default: the side panel keeps its width (the map would shrink and re-fit).
            combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            combo.setMinimumContentsLength(6)
        whatif_row = QHBoxLayout()
        whatif_row.addWidget(QLabel("What if", self))
        whatif_row.addWidget(self.who_combo, 2)
        whatif_row.addWidget(self.plan_combo, 3)
        pin_row = QHBoxLayout()  # a row of its own: the side panel keeps its width
        pin_row.addWidget(self.pin_button)
        pin_row.addWidget(self.clear_button)
        pin_row.addWidget(self.whatif_label, 1)
        for button in (self.pin_button, self.clear_button):
            button.setSizePolicy(QSizePolicy.Policy.Maximum, QSizePolicy.Policy.Fixed)
        # The chart and the table share the dock's height as tabs: at 1366 x 768 both would be cramped.
        self.views = QTabWidget(self)
        self.views.setDocumentMode(True)
        self.views.addTab(self.chart_holder, "Chart")
        self.views.addTab(self.table, "Table")
        self.views.setTabToolTip(1, "Each one's chance to drop and to die, the health left, and with the what-if")
        # Everything scrolls as one: a short dock (a projector at 150 %) keeps the charts readable and
        # What if, Pin and Clear within reach, never drawn over the status bar.
        self.content = QWidget(self)
        layout = QVBoxLayout(self.content)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.headline)
        layout.addWidget(self.status)
        layout.addLayout(whatif_row)  # above the charts: in view without scrolling
        layout.addLayout(pin_row)
        layout.addWidget(self.views, 1)
        self.scroll = QScrollArea(self)
        self.scroll.setWidgetResizable(True)
        self.scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll.setWidget(self.content)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(self.scroll)
        self.whatif_odds: FightOdds | None = None
        self.who_combo.currentIndexChanged.connect(self._fill_plans)
        self.pin_button.clicked.connect(self.pin)
        self.clear_button.clicked.connect(self.clear_plans)
        controller.eventsApplied.connect(lambda _e: self._fill_who())
        controller.encounterReplaced.connect(self._fill_who)
        self._fill_who()
        self.drop_plot: pyqtgraph.PlotWidget | None = None
        self.rounds_plot: pyqtgraph.PlotWidget | None = None
        self._elided: tuple[object, list[str]] = (None, [])  # (names, room, font) and the names as the chart shows them
        self._row_names: list[str] = []  # the drop chart's rows, top first, by their full names
        # The bars, made once and given each result's numbers (not cleared and made anew): the die bars
        # only while the ruleset tells dying apart.
        self._drop_bars: Any = None
        self._die_bars: Any = None
        self._round_bars: Any = None
        # A result is shown in pieces (words, table, drop chart, rounds chart), one per turn of the event
        # loop, so no hand-back from the worker holds the GUI thread a frame (40 combatants: 5-15 ms in all,
        # twice that while the worker holds the interpreter). A newer result drops the older one's pieces.
        self._pieces: deque[Callable[[], None]] = deque()
        self._piece_timer = QTimer(self)
        self._piece_timer.setSingleShot(True)
        self._piece_timer.setInterval(0)
        self._piece_timer.timeout.connect(self._next_piece)
        self._tick_font = ""  # the font the axes' labels were last given (its key)
        self._newest: FightOdds | None = None  # the newest result, shown or being shown
        self.chart_holder.installEventFilter(self)  # a new width: the names elided and the rounds ticked anew

    def attach(self, service: FightOddsService) -> None:
        self.service = service
        service.full_wants.append(self.isVisible)
        service.started.connect(self._working)
        service.ready.connect(self.show_odds)
        service.failed.connect(self._failed)
        service.whatif.connect(self.show_whatif)
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
        """Show ``odds`` in pieces (see ``_pieces``); :attr:`odds` is it once every piece is shown."""
        self._newest = odds
        self._pieces = deque(
            [
                lambda: self._say(odds, final),
                lambda: self._fill_table(odds),
                lambda: self._draw(odds),
                lambda: self._draw_rounds(odds),
                lambda: self._shown(odds),
            ]
        )
        self._next_piece()

    def _next_piece(self) -> None:
        if self._pieces:
            self._pieces.popleft()()
        if self._pieces:
            self._piece_timer.start()

    def _shown(self, odds: FightOdds) -> None:
        self.odds = odds

    def _say(self, odds: FightOdds, final: bool) -> None:
        party, opponents = odds.party_wins, odds.opponents_win
        margins = f"± {odds.margin(party):.1%}", f"± {odds.margin(opponents):.1%}"
        # What the two wins leave is named: fights still undecided when the simulation stops.
        undecided = f" · {odds.undecided_words()}" if odds.neither >= 0.005 else ""
        self.headline.setText(
            f"Party wins {party:.0%} {margins[0]} · Opponents {opponents:.0%} {margins[1]}{undecided}"
        )
        lo, hi = odds.rounds_range()
        rounds = f"{lo} round{'s' if lo != 1 else ''}" if lo == hi else f"{lo}–{hi} rounds"
        first = "" if final else " (a first estimate; the full count follows)"
        self.status.setText(
            f"Someone of the Party drops in {odds.someone_drops:.0%} · {rounds} left · {odds.fights:,} fights "
            f"in {odds.seconds:.2f} s{first}"
        )
        self.status.setToolTip(
            f"Rounds: the middle 8 fights of 10. The ± margins: 95 % of counts of {odds.fights:,} fights fall within "
            "them of the true chance, by the default tactic (the dock's tooltip). A fight neither side has won "
            f"within {MAX_ROUNDS} rounds counts for neither ({odds.neither:.1%})."
        )
        fights = self.controller.engine.ruleset.fights
        self.setToolTip(f"The default tactic: {fights.tactic}" if fights is not None and fights.tactic else "")

    # -- what if --------------------------------------------------------------------------------------

    def _fill_who(self) -> None:
        e = self.controller.encounter
        chosen = self.who_combo.currentData()
        with QSignalBlocker(self.who_combo):
            self.who_combo.clear()
            for c in e.combatants:
                if c.id in e.tokens and not c.down:
                    self.who_combo.addItem(c.name, c.id)
            self.who_combo.setCurrentIndex(max(0, self.who_combo.findData(chosen)))
        self._fill_plans()

    def _fill_plans(self) -> None:
        e = self.controller.encounter
        cid = self.who_combo.currentData()
        me = next((c for c in e.combatants if c.id == cid), None)
        ruleset = self.controller.engine.ruleset
        if ruleset.fights is None:  # nothing to pin a plan on: the controls say why
            me = None
        with QSignalBlocker(self.plan_combo):
            self.plan_combo.clear()
            if me is not None and ruleset.fights is not None:
                self.plan_combo.addItem("retreats (leaves the fight)", ("retreat", "", ""))
                modes = ruleset.fights.modes
                for f in e.combatants:
                    if f.side is not me.side and f.id in e.tokens and not f.down:
                        self.plan_combo.addItem(f"attacks {f.name} first", ("attack", f.id, ""))
                        for mode in modes:  # the ruleset's own: a sneak attack, on the GM's word
                            self.plan_combo.addItem(f"{mode}s {f.name} first", ("attack", f.id, mode))
        self.clear_button.setEnabled(self.service is not None and bool(self.service.plans))
        none = no_simulator(ruleset.title) if ruleset.fights is None else ""
        for widget in (self.who_combo, self.plan_combo, self.pin_button):
            widget.setEnabled(not none and (widget is not self.pin_button or me is not None))
        self.pin_button.setToolTip(none or "See the odds with this plan beside the odds without it")
        self.who_combo.setToolTip(none or "Whose plan to pin")
        self.plan_combo.setToolTip(none or "Its plan instead of the default tactic: retreat, or a foe to attack first")

    def pin(self) -> None:
        """Pin the chosen plan (replacing that combatant's own): the odds with it come beside the rest."""
        cid, data = self.who_combo.currentData(), self.plan_combo.currentData()
        if self.service is None or not cid or data is None:
            return
        kind, target, mode = data
        plans = (*(p for p in self.service.plans if p.combatant != cid), Plan(cid, kind, target, mode))
        self.service.set_plans(plans)
        self.clear_button.setEnabled(True)
        self.whatif_label.setText("Working the what-if out…")

    def clear_plans(self) -> None:
        if self.service is not None:
            self.service.set_plans(())
        self.clear_button.setEnabled(False)

    def show_whatif(self, odds: FightOdds | None) -> None:
        self.whatif_odds = odds
        self.table.setColumnHidden(4, odds is None)
        if odds is None or self.service is None:
            self.whatif_label.setText("")
            return
        names = self.controller.encounter.names()
        plans = ", ".join(p.words(names) for p in self.service.plans)
        base = self._newest or self.odds
        was = f" (without it {base.party_wins:.0%})" if base is not None else ""
        self.whatif_label.setText(
            f"If {plans}: Party wins {odds.party_wins:.0%} ± {odds.margin(odds.party_wins):.1%}{was}"
        )
        self._fill_whatif_column()

    def _fill_whatif_column(self) -> None:
        """The what-if's drops beside each row (the rows may have come after the what-if: filled again)."""
        odds = self.whatif_odds
        if odds is None or self.service is None:
            return
        plans = ", ".join(p.words(self.controller.encounter.names()) for p in self.service.plans)
        drops = {c.id: c.drop for c in odds.combatants}
        for row in range(self.table.rowCount()):
            cid = self.table.item(row, 0).data(Qt.ItemDataRole.UserRole)
            item = self._cell(row, 4)
            item.setText(f"{drops[cid]:.0%}" if cid in drops else "")
            item.setToolTip(f"Drops with the plan ({plans})")

    def _cell(self, row: int, col: int) -> QTableWidgetItem:
        """The table's item at (row, col), made once: a new result only changes its words."""
        item = self.table.item(row, col)
        if item is None:
            item = QTableWidgetItem()
            if col:
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            self.table.setItem(row, col, item)
        return item

    def _fill_table(self, odds: FightOdds) -> None:
        self.table.setColumnHidden(2, not odds.tells_death)
        # One column where dropping is dying (Group d10: 0 HP is dead), not two of the same numbers.
        drops = self.table.horizontalHeaderItem(1)
        drops.setText("Drops & dies" if odds.drop_is_death else "Drops")
        drops.setToolTip(
            "Each one's chance to drop, which in these fights is dying"
            if odds.drop_is_death
            else "Each one's chance to drop"
        )
        self.table.horizontalHeaderItem(3).setToolTip(f"Left: {LEFT_MEANS}")
        self.table.setRowCount(len(odds.combatants))
        for row, c in enumerate(odds.combatants):
            name = self._cell(row, 0)
            name.setText(c.name)
            name.setData(Qt.ItemDataRole.UserRole, c.id)
            name.setForeground(style.side_color(Side(c.side)))
            words = [
                c.name,
                f"{c.drop:.0%}",
                f"{c.die:.0%}" if c.die is not None else "",
                ", ".join(f"{k} {v:.0f}" for k, v in c.health_left.items()) if c.stood else "—",
            ]
            left = (
                f"{c.left_words()} on average over the {c.stood:.0%} of fights it stood at the end"
                if c.stood
                else "down at the end of every fight"
            )
            tip = f"{c.name}: {odds.drop_words} in {c.drop:.1%} ± {odds.margin(c.drop):.1%} of the fights; {left}"
            for col, text in enumerate(words):
                item = self._cell(row, col)
                item.setText(text)  # Qt leaves an item alone when its words are the same
                item.setToolTip(tip)
        self._fill_whatif_column()

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
        self.drop_plot.setLabel("bottom", "chance to drop")
        self.drop_plot.setXRange(0, 1, padding=0.02)
        self.rounds_plot.setLabel("bottom", "rounds left")
        self.drop_plot.scene().sigMouseMoved.connect(self._hover_drop)
        self.chart_layout.addWidget(self.drop_plot, 3)
        self.chart_layout.addWidget(self.rounds_plot, 1)
        if self.odds is not None:
            self._draw(self.odds)
            self._draw_rounds(self.odds)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange and self.odds is not None:
            self._draw(self.odds)  # a new UI scale: the rows' room and the labels measured again
            self._draw_rounds(self.odds)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.chart_holder and event.type() == QEvent.Type.Resize and self.odds is not None:
            self._set_ticks(self.odds)
        return super().eventFilter(watched, event)

    def _line(self) -> int:
        return QFontMetrics(self.font()).height()

    def _draw(self, odds: FightOdds) -> None:
        if self.drop_plot is None or self.rounds_plot is None:
            return
        import pyqtgraph as pg

        people = list(odds.combatants)
        ys = list(range(len(people)))[::-1]
        brushes = {side: pg.mkBrush(style.side_color(side)) for side in Side}
        colors = [brushes[Side(c.side)] for c in people]
        bars = {"x0": [0] * len(people), "y": ys, "width": [c.drop for c in people], "brushes": colors}
        if self._drop_bars is None:
            self._drop_bars = pg.BarGraphItem(height=0.7, **bars)
            self.drop_plot.addItem(self._drop_bars)
        else:
            self._drop_bars.setOpts(**bars)
        if odds.tells_death:
            label = "chance to drop (darker: to die)"
        else:
            label = "chance to drop and die (the same here)" if odds.drop_is_death else "chance to drop"
        if self.drop_plot.getAxis("bottom").labelText != label:  # its words laid out anew only when new
            self.drop_plot.setLabel("bottom", label)
        deaths = {"x0": [0] * len(people), "y": ys, "width": [c.die or 0.0 for c in people]}
        if not odds.tells_death:
            if self._die_bars is not None:  # a ruleset where dropping is dying: one bar, not two alike
                self.drop_plot.removeItem(self._die_bars)
                self._die_bars = None
        elif self._die_bars is None:
            self._die_bars = pg.BarGraphItem(height=0.35, brush=pg.mkBrush(DIE_COLOR), **deaths)
            self.drop_plot.addItem(self._die_bars)
        else:
            self._die_bars.setOpts(**deaths)
        self.drop_plot.setYRange(-0.6, len(people) - 0.4, padding=0)
        self._row_names = [c.name for c in people]
        # A line and a half of text a row, and room for the axis below: never squashed, the dock scrolls.
        line = self._line()
        self.drop_plot.setMinimumHeight(round(line * (ROW_LINES * max(len(people), 2) + AXIS_LINES)))

    def _draw_rounds(self, odds: FightOdds) -> None:
        """The rounds-left chart, and every axis's labels."""
        if self.drop_plot is None or self.rounds_plot is None:
            return
        import pyqtgraph as pg

        line = self._line()
        self.rounds_plot.setMinimumHeight(round(line * ROUNDS_LINES))
        self.rounds_plot.setMaximumHeight(round(line * ROUNDS_LINES * 1.5))
        keys = sorted(odds.rounds)
        bars = {"x": keys, "height": [odds.rounds[k] for k in keys]}
        if self._round_bars is None:
            self._round_bars = pg.BarGraphItem(width=0.8, brush=pg.mkBrush(ROUNDS_COLOR), **bars)
            self.rounds_plot.addItem(self._round_bars)
        else:
            self._round_bars.setOpts(**bars)
        # The range set now, not at the chart's next paint (pyqtgraph's auto range): a chart scrolled out of
        # sight would keep its old range, and its round labels, outside it, would not be drawn.
        if keys:
            self.rounds_plot.setXRange(keys[0] - 0.6, keys[-1] + 0.6, padding=0)
        self._set_ticks(odds)

    def _set_ticks(self, odds: FightOdds) -> None:
        """Every axis's labels set here, as few as fit side by side at the chart's width: names elided to
        a share of it (the full one on hover), percentages at quarters, rounds every so many."""
        if self.drop_plot is None or self.rounds_plot is None:
            return
        font = self.font()
        metrics = QFontMetrics(font)
        if self._tick_font != font.key():  # a new UI scale: every axis's labels in the new font
            self._tick_font = font.key()
            for plot in (self.drop_plot, self.rounds_plot):
                for axis in ("left", "bottom"):
                    plot.getAxis(axis).setTickFont(font)
        people = list(odds.combatants)
        width = max(self.chart_holder.width(), 8 * metrics.horizontalAdvance("M"))
        room = max(metrics.horizontalAdvance("Mmmm…"), round(width * NAME_SHARE))
        # Elided once per names, room and font: each new result of the same table would redo 40 of them.
        key = (tuple(c.name for c in people), room, font.key())
        if self._elided[0] != key:
            self._elided = (key, [metrics.elidedText(name, Qt.TextElideMode.ElideRight, room) for name in key[0]])
        names = self._elided[1]
        ys = list(range(len(people)))[::-1]
        name_width = max((metrics.horizontalAdvance(n) for n in names), default=0)
        left = self.drop_plot.getAxis("left")
        left.setWidth(name_width + metrics.horizontalAdvance("MM"))  # the names and the tick's gap
        left.setTicks([list(zip(ys, names, strict=True))])
        # Quarters (0 and 100 % would stand past the chart's ends), the middle alone on a narrow chart.
        percents = [(p / 4, f"{25 * p}%") for p in (1, 2, 3)]
        if width - name_width < 4 * metrics.horizontalAdvance("75% "):
            percents = percents[1:2]
        self.drop_plot.getAxis("bottom").setTicks([percents])
        # The rounds: a label every 1, 2, 5, 10… rounds, as many as fit with a gap between them.
        keys = sorted(odds.rounds) or [1]
        lo, hi = keys[0], keys[-1]
        label = metrics.horizontalAdvance(f"{hi} ") + metrics.horizontalAdvance("M")
        fit = max(1, (width - metrics.horizontalAdvance("100% ")) // label)
        step = next(s for s in (1, 2, 5, 10, 20, 50, 100) if (hi - lo) / s < fit or s == 100)
        self.rounds_plot.getAxis("bottom").setTicks([[(r, str(r)) for r in range(lo - lo % step, hi + 1, step)]])
        most = max(odds.rounds.values(), default=0.0)
        shares = [(0.0, "0%")] + ([(most, f"{most:.0%}")] if most else [])
        self.rounds_plot.getAxis("left").setTicks([shares])
        self.rounds_plot.getAxis("left").setWidth(left.width())  # the two charts' bars start alike
        self.drop_plot.setToolTip("Point at a bar or a name: the combatant's full name and chances")

    def _hover_drop(self, scene_pos: QPointF) -> None:
        """The full name (a long one is elided on the axis) and the chances of the row under the mouse."""
        if self.drop_plot is None or self.odds is None or not self._row_names:
            return
        y = self.drop_plot.getViewBox().mapSceneToView(scene_pos).y()
        row = len(self._row_names) - 1 - round(y)
        if 0 <= row < len(self.odds.combatants):
            self.drop_plot.setToolTip(self.row_words(row))

    def row_words(self, row: int) -> str:
        """'Cedryk the Sneaky: drops in 68 % ± 0.9 %, dies in 20 %': the chart's row in words."""
        odds = self.odds
        if odds is None:
            return ""
        c = odds.combatants[row]
        dies = f", dies in {c.die:.0%}" if odds.tells_death and c.die is not None else ""
        return f"{c.name}: {odds.drop_words} in {c.drop:.0%} ± {odds.margin(c.drop):.1%}{dies}"

    def plots(self) -> tuple[Any, Any]:
        return self.drop_plot, self.rounds_plot
