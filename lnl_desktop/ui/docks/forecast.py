"""The Forecast dock: the exact damage distribution of the attack being set up, before it is rolled.

It follows ``controller.plan`` (attacker, target, weapon or spell, mode, the action's own inputs)
and the encounter's numbers, and shows the ruleset's forecast (``ruleset.attacks.forecast``, a
:class:`~lnl_desktop.core.dice.odds.Forecast`) as a bar chart with the mean marked, the
thresholds the ruleset names (:attr:`Forecast.thresholds`: where the target's SP empties, where it
goes down), its summary ("Mean 35.0 damage · 12% to empty SP · <1% to put it down") and its notes.
For a ruleset that rolls to hit (``Forecast.p_hit``) the chance to hit comes first, in words, and
the chart is the damage on a hit.
The means is asked of the ruleset (``ruleset.actions.means``), which may say there is no forecast.

pyqtgraph is heavy to import, so this module never imports it at the top: the chart is built the
first time the panel is shown (``showEvent``), and the app starts without it. While hidden, the
panel only notes that it is out of date and recomputes when shown again.
"""

from __future__ import annotations

import html
from copy import deepcopy
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent, QPointF, Qt, QTimer
from PySide6.QtGui import QColor, QCursor, QFont, QPaintEvent, QPalette, QShowEvent
from PySide6.QtWidgets import QLabel, QStackedWidget, QToolTip, QVBoxLayout, QWidget

from lnl_desktop.core.dice.odds import Forecast, Threshold
from lnl_desktop.core.encounter.model import Phase
from lnl_desktop.core.errors import RulesError
from lnl_desktop.ui.plumbing.controller import AttackPlan, TableController

if TYPE_CHECKING:  # only for the type checker: importing pyqtgraph here would load it at start-up
    import pyqtgraph

# What the dock says while no attack is being set up, in each case.
NO_COMBAT = "No combat yet. Once a turn is under way, the damage of the attack being set up shows here."
COMBAT_OVER = "The combat is over: there is no attack to forecast."
NO_TURN = "No turn is under way: begin someone's turn in the Turns dock, then set up an attack."

# Okabe-Ito colours (as the map's): calm sky blue for the plain blows, orange (then yellow, then
# reddish purple) for the states the ruleset names on the way (SP runs out), vermillion where the
# target goes down; the mean in the palette's text colour.
BAR = QColor("#56B4E9")
BAR_SP_EMPTY = QColor("#E69F00")
BAR_DOWN = QColor("#D55E00")
BAR_REACHED = (BAR_SP_EMPTY, QColor("#F0E442"), QColor("#CC79A7"))

# The chart shows the damage range that holds all but this much of the probability on each side.
VIEW_TAIL = 0.0005


@dataclass(frozen=True)
class _Inputs:
    """Everything the forecast depends on; a new forecast is computed only when this changes."""

    plan: AttackPlan
    attacker: Any  # the ruleset's stat block
    target: Any
    means: Any  # what ruleset.actions.means gave: a weapon or a spell
    mode: Any  # the spec's mode (the shared attack word where it is one), or the ruleset's own ("melee")
    options: Any
    # Where everyone stands and how the others are (a guard, a facing), as plain data: a to-hit
    # ruleset reads range, facing and allies from the encounter. The GM's notes never count.
    world: Any = None


def _copy(value: Any) -> Any:
    return value.model_copy(deep=True) if hasattr(value, "model_copy") else deepcopy(value)


def _pct(p: float) -> str:
    if p <= 0:
        return "0%"
    if p < 0.001:
        return "<0.1%"
    return f"{p * 100:.1f}%"


def _chance(p: float) -> str:
    """A chance to hit: whole percents when exact (a d20's faces are 5% each), else one decimal."""
    percent = p * 100
    if abs(percent - round(percent)) < 1e-9:
        return f"{round(percent)}%"
    return f"{percent:.1f}%"


class _Reading:
    """What the forecast of ``controller.plan`` reads, and the words when there is none: shared
    by the Forecast dock and the Action dock's forecast line."""

    controller: TableController

    def _idle_words(self) -> str:
        """What the dock says when no attack is being set up: no combat, no turn, or no attack chosen."""
        combat = self.controller.encounter.combat
        if combat.phase is Phase.ENDED:
            return COMBAT_OVER
        if combat.phase is not Phase.FIGHTING:
            return NO_COMBAT
        turn = combat.turn
        if turn is None:
            return NO_TURN
        actor = self.controller.combatant(turn.combatant)
        name = actor.name if actor is not None else turn.combatant
        if turn.action is not None:
            return f"{name} has taken the action this turn ({turn.action}): there is nothing left to forecast."
        return (
            f"{name} has no attack chosen: pick an attack, a weapon or a damaging spell in the Action dock"
            " to see its damage here."
        )

    def _missing_words(self, plan: AttackPlan) -> str:
        """What the attack being set up still lacks: its target, or its weapon or spell."""
        actor = self.controller.combatant(plan.attacker)
        name = actor.name if actor is not None else plan.attacker
        if plan.target is None:
            return f"Pick a target for {name}: click its token on the map, or choose it in the Action dock."
        what = "spell" if plan.uses == "spell" else "weapon"
        return f"{name} has no {what} chosen: pick one in the Action dock."

    def _no_forecast(self, plan: AttackPlan | None = None) -> str:
        what = plan.action.lower().rstrip("…") if plan is not None and plan.action else "this action"
        return f"{self.controller.engine.ruleset.title} gives no forecast for {what}."

    def _inputs_now(self, world: bool = True) -> _Inputs | str:
        """The forecast's inputs from the plan and the encounter, or the hint to show instead;
        without ``world`` the rest of the encounter is left out (the caller keys on the engine's step)."""
        plan = self.controller.plan
        if plan is None:
            return self._idle_words()
        if plan.uses not in ("weapon", "spell"):
            return self._no_forecast(plan)  # an action aimed at someone without a weapon or a spell (Defend)
        if plan.target is None or plan.means is None:
            return self._missing_words(plan)
        attacker = self.controller.combatant(plan.attacker)
        target = self.controller.combatant(plan.target)
        if attacker is None or target is None:
            return self._idle_words() if attacker is None else f"Pick a target for {attacker.name}."
        if attacker.id == target.id:
            return f"{attacker.name} cannot attack itself: pick another target"
        ruleset = self.controller.engine.ruleset
        mode = plan.mode  # the ActionSpec's mode word: the ruleset's own, read by its attacks capability
        spell = plan.uses == "spell"
        try:
            means = ruleset.actions.means(attacker, plan.means, spell=spell)
        except (RulesError, AttributeError, LookupError):
            try:  # a spell picked for a weapon's action, or the reverse: forecast what was picked
                means = ruleset.actions.means(attacker, plan.means, spell=not spell)
            except (RulesError, AttributeError, LookupError):
                return (
                    f"{attacker.name} has no weapon or spell named {plan.means!r}:"
                    " pick one of its own in the Action dock."
                )
        if means is None:
            return self._no_forecast(plan)  # the ruleset forecasts nothing with this
        encounter = self.controller.encounter
        if not world:
            return _Inputs(plan, attacker, target, means, mode, encounter.options, None)
        others = tuple(
            c.model_dump(exclude={"notes"}) for c in encounter.combatants if c.id not in (attacker.id, target.id)
        )
        tokens = tuple(sorted((cid, token.model_dump()) for cid, token in encounter.tokens.items()))
        return _Inputs(
            plan, attacker, target, means, mode, encounter.options, (tokens, others, encounter.combat.model_dump())
        )

    def _compute(self, inputs: _Inputs) -> Forecast | None:
        """The ruleset's forecast for ``inputs`` (None: it gives none for them)."""
        ruleset = self.controller.engine.ruleset
        return ruleset.attacks.forecast(
            inputs.attacker,
            inputs.target,
            inputs.means,
            inputs.mode,
            inputs.options,
            ignore_dex=inputs.plan.ignore_dex,
            encounter=self.controller.encounter,
            extras=inputs.plan.extra_values,
        )


class ForecastPanel(_Reading, QWidget):
    """Damage forecast of ``controller.plan``: a bar chart and a line of chances."""

    def __init__(self, controller: TableController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Forecast")
        self.controller = controller
        self.forecast: Forecast | None = None
        self._inputs: _Inputs | None = None
        self._dirty = True
        # Built on the first show (pyqtgraph is imported then).
        self.plot: pyqtgraph.PlotWidget | None = None
        self.bars: list[pyqtgraph.BarGraphItem] = []
        self.mean_line: pyqtgraph.InfiniteLine | None = None
        # A line per threshold the ruleset names on the way (SP empties), then the line where it goes down.
        self._markers: list[pyqtgraph.InfiniteLine] = []

        self.title_label = QLabel(self)
        self.title_label.setWordWrap(True)
        # A ruleset that rolls to hit: the chance in words, the first thing the GM reads.
        self.hit_label = QLabel(self)
        self.hit_label.setWordWrap(True)
        self.hit_label.hide()
        self._size_fonts()
        self.formula_label = QLabel(self)
        self.formula_label.setWordWrap(True)
        self.summary_label = QLabel(self)
        self.summary_label.setWordWrap(True)
        self.summary_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.summary_label.setToolTip(
            "Exact chances of the dice (exploding without limit), after DEX and AP, before any parry;"
            " SP and IP as they stand now."
        )
        # The ruleset's own lines about this attack (a weapon broken until repaired, what a parry stops it with).
        self.notes_label = QLabel(self)
        self.notes_label.setWordWrap(True)
        self.notes_label.hide()

        self.hint = QLabel(self._idle_words(), self)
        self.hint.setWordWrap(True)
        self.hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self._quiet([self.formula_label, self.hint])

        self.chart_holder = QWidget(self)
        self._chart_layout = QVBoxLayout(self.chart_holder)
        self._chart_layout.setContentsMargins(0, 0, 0, 0)

        page = QWidget(self)
        page_layout = QVBoxLayout(page)
        page_layout.setContentsMargins(0, 0, 0, 0)
        page_layout.setSpacing(2)
        page_layout.addWidget(self.title_label)
        page_layout.addWidget(self.hit_label)
        page_layout.addWidget(self.formula_label)
        page_layout.addWidget(self.chart_holder, 1)
        page_layout.addWidget(self.summary_label)
        page_layout.addWidget(self.notes_label)

        self.stack = QStackedWidget(self)
        self.stack.addWidget(self.hint)
        self.stack.addWidget(page)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 4, 6, 4)
        layout.addWidget(self.stack)

        controller.planChanged.connect(self._on_changed)
        controller.eventsApplied.connect(self._on_changed)
        controller.encounterReplaced.connect(self._on_changed)

    def _quiet(self, labels: list[QLabel]) -> None:
        """A quieter text colour that stays readable (the disabled grey is too faint for numbers)."""
        palette = self.palette()
        text = palette.color(QPalette.ColorRole.WindowText)
        back = palette.color(QPalette.ColorRole.Window)
        mixed = QColor(*((2 * a + b) // 3 for a, b in zip(text.getRgb()[:3], back.getRgb()[:3], strict=True)))
        for label in labels:
            lp = label.palette()
            lp.setColor(QPalette.ColorRole.WindowText, mixed)
            label.setPalette(lp)

    # -- what to show ------------------------------------------------------------------------

    @property
    def showing_hint(self) -> bool:
        return self.stack.currentIndex() == 0

    @property
    def hint_text(self) -> str:
        return self.hint.text()

    def _size_fonts(self) -> None:
        """The title in bold and the chance to hit a quarter larger, both from the panel's font, so
        they follow the UI scale (called again whenever the font changes)."""
        base = self.font()
        title = QFont(base)
        title.setBold(True)
        self.title_label.setFont(title)
        hit = QFont(base)
        hit.setBold(True)
        if base.pointSizeF() > 0:
            hit.setPointSizeF(base.pointSizeF() * 1.25)
        else:
            hit.setPixelSize(round(base.pixelSize() * 1.25))
        self.hit_label.setFont(hit)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:
            self._size_fonts()

    def refresh(self) -> None:
        """Recompute if the plan or the numbers it depends on changed (cheap when nothing did)."""
        self._dirty = False
        inputs = self._inputs_now()
        if isinstance(inputs, str):
            self._inputs = None
            self.forecast = None
            self.hint.setText(inputs)
            self.stack.setCurrentIndex(0)
            return
        if inputs == self._inputs and self.forecast is not None:
            self.stack.setCurrentIndex(1)
            return
        # Copies: undo writes old values back into the very objects the encounter holds, so a
        # kept reference would change along with them and compare equal to the restored state.
        self._inputs = replace(
            inputs,
            attacker=_copy(inputs.attacker),
            target=_copy(inputs.target),
            means=_copy(inputs.means),
        )
        forecast = self._compute(inputs)
        if forecast is None:
            self._inputs = None
            self.forecast = None
            self.hint.setText(self._no_forecast(inputs.plan))
            self.stack.setCurrentIndex(0)
            return
        self.forecast = forecast
        self._show_words(inputs, self.forecast)
        self._draw()
        self.stack.setCurrentIndex(1)

    def on_screen(self) -> bool:
        """Shown and not behind another tab: a dock tabbed behind another is "visible" to Qt, only
        moved off the screen."""
        return self.isVisible() and not self.visibleRegion().isEmpty()

    def _on_changed(self, *args: object) -> None:
        if self.on_screen():
            self.refresh()
        else:
            self._dirty = True  # recomputed when it is next on screen

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self._catch_up()

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        if self.plot is None or self._dirty:
            # Its tab came to the front (no show event for that): build and refresh once painted.
            QTimer.singleShot(0, self._catch_up)

    def _catch_up(self) -> None:
        if not self.on_screen():
            return
        if self.plot is None:
            self._build_chart()
            self._draw()
        if self._dirty:
            self.refresh()

    def _show_words(self, inputs: _Inputs, fc: Forecast) -> None:
        plain = not inputs.mode or inputs.mode in ("attack", "spell")  # the spec's mode words
        mode = "" if plain else f" ({inputs.mode})"
        # The ruleset's words for the weapon or spell ("Shortsword +2"), else its name as the plan names it.
        name = fc.means_label or str(inputs.plan.means)
        self.title_label.setText(f"{inputs.attacker.name} → {inputs.target.name}: {name}{mode}")
        notes, where = fc.notes, fc.where
        self.notes_label.setText("\n".join(notes))
        self.notes_label.setVisible(bool(notes))
        if fc.p_hit is not None:
            edge = f" with {fc.edge}" if fc.edge else ""
            self.hit_label.setText(f"Chance to hit {_chance(fc.p_hit)}{edge} (natural 1 misses, natural 20 hits)")
            self.hit_label.setToolTip(
                "The d20's twenty faces against the target's AC with every modifier; a natural 1 always misses"
                " and a natural 20 always hits. The chart below is the damage on a hit."
            )
        self.hit_label.setVisible(fc.p_hit is not None)
        # The ruleset's words for where the damage goes ("to HP"), unless its formula says it already.
        self.formula_label.setText(fc.formula if where in fc.formula else f"{fc.formula} · {where}")
        bars = ", ".join(f"{g.now} {g.label}" for g in self.controller.engine.ruleset.tokens.gauges(inputs.target))
        if fc.exploding:
            dice = f"{fc.dice} d{fc.sides} rolled, each maximum rolling again without limit (the '!')."
        else:
            dice = "The damage dice are rolled once each (nothing explodes)."
        on_hit = "\nOn a hit: a miss does no damage." if fc.p_hit is not None else ""
        self.formula_label.setToolTip(f"{dice}{on_hit}\n{inputs.target.name} has {bars} now.")
        if fc.exploding:
            self.summary_label.setToolTip(
                "Exact chances of the dice (exploding without limit), after DEX and AP, before any parry;"
                " SP and IP as they stand now."
            )
        else:
            hit = " over the d20 to hit and" if fc.p_hit is not None else " of"
            self.summary_label.setToolTip(f"Exact chances{hit} the damage dice; {bars} as they stand now.")
        self.summary_label.setText(fc.summary)

    # -- the chart ---------------------------------------------------------------------------

    def _build_chart(self) -> None:
        """Import pyqtgraph and build the plot: only when the panel is first shown."""
        import pyqtgraph as pg  # deliberately late: the app starts without it

        palette = self.palette()
        background = palette.color(QPalette.ColorRole.Base)
        text = palette.color(QPalette.ColorRole.WindowText)
        self.plot = pg.PlotWidget(self.chart_holder, background=background)
        self.plot.setMinimumHeight(120)
        self.plot.setMenuEnabled(False)
        self.plot.hideButtons()
        self.plot.setMouseEnabled(x=False, y=False)
        item = self.plot.getPlotItem()
        item.showGrid(x=False, y=True, alpha=0.15)
        axis_pen = pg.mkPen(text)
        for name, label in (("bottom", "damage"), ("left", "chance %")):
            axis = item.getAxis(name)
            axis.setPen(axis_pen)
            axis.setTextPen(axis_pen)
            axis.setLabel(label, color=text.name())
        item.getViewBox().setDefaultPadding(0.02)
        self.mean_line = pg.InfiniteLine(
            angle=90,
            movable=False,
            pen=pg.mkPen(text, width=2, style=Qt.PenStyle.DashLine),
            label="mean {value:.1f}",
            labelOpts={"color": text, "fill": pg.mkBrush(background)},
        )
        self.mean_line.setZValue(10)
        self.plot.addItem(self.mean_line, ignoreBounds=True)
        self.mean_line.hide()
        # Bar items and threshold lines are made as a forecast first needs them and updated in place:
        # the plain bars, and the lines of one state on the way and of going down, to begin with.
        self._bar(0)
        self._markers = [self._line(BAR_REACHED[0]), self._line(BAR_DOWN)]
        self.plot.scene().sigMouseMoved.connect(self._on_mouse_moved)
        self._chart_layout.addWidget(self.plot)

    def _bar(self, index: int) -> pyqtgraph.BarGraphItem:
        """The ``index``-th bar item (0: the plain bars, then one per threshold), made when first asked for."""
        import pyqtgraph as pg  # already loaded by _build_chart

        assert self.plot is not None
        while len(self.bars) <= index:
            bar = pg.BarGraphItem(x=[0], height=[0], width=1.0, brush=pg.mkBrush(BAR), pen=pg.mkPen(None))
            bar.hide()
            self.plot.addItem(bar)
            self.bars.append(bar)
        return self.bars[index]

    def _line(self, color: QColor) -> pyqtgraph.InfiniteLine:
        """A dotted threshold line in ``color``, hidden until a forecast places it."""
        import pyqtgraph as pg  # already loaded by _build_chart

        assert self.plot is not None
        background = self.palette().color(QPalette.ColorRole.Base)
        line = pg.InfiniteLine(
            angle=90,
            movable=False,
            pen=pg.mkPen(color.darker(115), width=1, style=Qt.PenStyle.DotLine),
            label="",
            labelOpts={"color": color.darker(150), "fill": pg.mkBrush(background)},
        )
        line.hide()
        self.plot.addItem(line, ignoreBounds=True)
        return line

    def _draw(self) -> None:
        """Put the current forecast on the chart (nothing to do before the chart exists)."""
        if self.plot is None:
            return
        import pyqtgraph as pg  # already loaded by _build_chart

        fc = self.forecast
        if fc is None or not fc.damage:
            for item in (*self.bars, *self._markers, self.mean_line):
                item.hide()
            return
        on_hit = fc.p_hit is not None
        item = self.plot.getPlotItem()
        # A to-hit ruleset's chart is the damage on a hit; the chance to hit is said above it.
        item.setTitle("damage on a hit" if on_hit else None)
        item.getAxis("bottom").setLabel("damage on a hit" if on_hit else "damage")
        thresholds = fc.thresholds
        on_the_way = [t for t in thresholds if not t.down]
        while len(self._markers) - 1 < len(on_the_way):  # one more state on the way: a line before "down"
            self._markers.insert(len(self._markers) - 1, self._line(_colour(len(self._markers) - 1)))
        down = next((t for t in thresholds if t.down), None)
        placed_lines = [*zip(self._markers, on_the_way, strict=False), (self._markers[-1], down)]
        for line, threshold in placed_lines:
            if threshold is not None:
                line.label.setFormat(threshold.label)

        low, high = _view_range(fc)
        shown = [(d, p) for d, p in fc.damage.items() if low <= d <= high]
        width = 0.85 if high - low <= 80 else 1.0
        # A bar takes the colour of the highest threshold it reaches: group 0 reaches none.
        groups: list[list[tuple[int, float]]] = [[] for _ in range(len(thresholds) + 1)]
        for d, p in shown:
            groups[_reached(thresholds, d) + 1].append((d, p))
        colours = [BAR, *(BAR_DOWN if t.down else _colour(on_the_way.index(t)) for t in thresholds)]
        self._bar(len(groups) - 1)
        for bar in self.bars[len(groups) :]:
            bar.hide()
        for bar, values, color in zip(self.bars, groups, colours, strict=False):
            if not values:
                bar.hide()
                continue
            bar.setOpts(
                x=[d for d, _ in values],
                height=[p * 100 for _, p in values],
                width=width,
                brush=pg.mkBrush(color),
                pen=pg.mkPen(color.darker(130)) if width < 1 else pg.mkPen(None),
            )
            bar.show()

        text = self.palette().color(QPalette.ColorRole.WindowText)
        span = max(high - low + 1, 1)
        # Labels sit in the headroom above the bars: the mean on the top row, a threshold one row
        # lower when it would run into a label already placed; near the right edge, text goes left.
        placed: list[tuple[float, float]] = []

        def place(x: float, line: pyqtgraph.InfiniteLine) -> None:
            row = 0.95
            while any(abs(x - px) < 0.16 * span and pr == row for px, pr in placed):
                row -= 0.09
            placed.append((x, row))
            side = (1, 0.5) if x > high - 0.2 * span else (0, 0.5)
            line.label.setPosition(row)
            line.label.anchors = [side, side]
            line.label.updatePosition()

        self.mean_line.show()  # before setPos: a hidden line's label does not follow its value
        self.mean_line.setPos(fc.mean)
        self.mean_line.label.setColor(text)
        place(fc.mean, self.mean_line)
        on_the_lines = {id(line) for line, _ in placed_lines}
        for line in self._markers:
            if id(line) not in on_the_lines:
                line.hide()
        for line, threshold in placed_lines:
            where = threshold.from_amount if threshold is not None else None
            if where is None or not low <= where <= high:
                line.hide()
                continue
            line.show()
            line.setPos(where - 0.5)
            place(where - 0.5, line)

        top = max(p for _, p in shown) * 100
        self.plot.setXRange(low - 0.5, high + 0.5, padding=0.02)
        self.plot.setYRange(0, top * 1.32, padding=0)
        self.plot.setToolTip("")

    def bar_count(self) -> int:
        """How many damage values have a bar on the chart."""
        return sum(len(bar.opts["x"]) for bar in self.bars if bar.isVisible())

    def tooltip_at(self, damage: float) -> str:
        """The words for the bar nearest ``damage`` (what hovering the chart shows)."""
        fc = self.forecast
        if fc is None or not fc.damage:
            return ""
        amount = round(damage)
        p = fc.damage.get(amount, 0.0)
        at_least = fc.chance_at_least(amount)
        on_hit = " on a hit" if fc.p_hit is not None else ""
        words = [f"{amount} damage{on_hit}: {_pct(p)}", f"{amount} or more{on_hit}: {_pct(at_least)}"]
        thresholds = fc.thresholds
        reached = _reached(thresholds, amount)
        if reached >= 0:
            threshold = thresholds[reached]
            words.append("puts it down" if threshold.down else f"reaches {threshold.label}")
        return "\n".join(words)

    def _on_mouse_moved(self, pos: QPointF) -> None:
        if self.plot is None or self.forecast is None:
            return
        view = self.plot.getPlotItem().getViewBox()
        if not view.sceneBoundingRect().contains(pos):
            QToolTip.hideText()
            return
        point = view.mapSceneToView(pos)
        text = self.tooltip_at(point.x())
        if text:
            QToolTip.showText(QCursor.pos(), text, self.plot)


def _colour(index: int) -> QColor:
    """The colour of the ``index``-th state on the way to going down."""
    return BAR_REACHED[index % len(BAR_REACHED)]


def _reached(thresholds: tuple[Threshold, ...], amount: int) -> int:
    """The index of the highest threshold ``amount`` damage reaches (going down first), -1 for none."""
    best = -1
    for index, threshold in enumerate(thresholds):
        if amount >= threshold.from_amount and (best < 0 or threshold.down or not thresholds[best].down):
            best = index
    return best


def _view_range(fc: Forecast) -> tuple[int, int]:
    """The damage values worth showing: all but VIEW_TAIL of the probability on either side."""
    amounts = list(fc.damage)
    total = 0.0
    low = amounts[0]
    for d in amounts:
        total += fc.damage[d]
        if total > VIEW_TAIL:
            low = d
            break
    total = 0.0
    high = amounts[-1]
    for d in reversed(amounts):
        total += fc.damage[d]
        if total > VIEW_TAIL:
            high = d
            break
    # Keep the mean and a few values either side in view.
    low = min(low, int(fc.mean))
    high = max(high, low + 5, int(fc.mean) + 1)
    return low, high


class ForecastLine(_Reading, QLabel):
    """The forecast in words beside the Action dock's Roll button: the chance to hit and the
    damage's summary line, so the GM reads them without leaving the Roll button (the Forecast
    tab has the chart). Hidden while there is nothing to forecast."""

    def __init__(self, controller: TableController, parent: QWidget | None = None) -> None:
        QLabel.__init__(self, parent)
        self.controller = controller
        self.setObjectName("forecastLine")
        self.setWordWrap(True)
        self.setTextFormat(Qt.TextFormat.RichText)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self._key: tuple[Any, ...] | None = None  # the plan and the engine's step it was read at
        self.forecast: Forecast | None = None
        self.hide()
        controller.planChanged.connect(self.refresh)
        controller.eventsApplied.connect(self.refresh)
        controller.encounterReplaced.connect(self.refresh)

    def refresh(self, *args: object) -> None:
        """Read again when the plan or the encounter changed (every change counts the engine's step)."""
        plan = self.controller.plan
        key = (plan, self.controller.engine.touched.step, self.controller.encounter.combat.turn is not None)
        if key == self._key:
            return
        self._key = key
        inputs = self._inputs_now(world=False)
        forecast = None if isinstance(inputs, str) else self._compute(inputs)
        self.forecast = forecast
        if forecast is None or isinstance(inputs, str):
            self.setText("")
            self.hide()
            return
        hit = f"hit {_chance(forecast.p_hit)} · " if forecast.p_hit is not None else ""
        self.setText(f"<b>Forecast:</b> {html.escape(hit + forecast.summary)}")
        self.setToolTip(f"{inputs.attacker.name} → {inputs.target.name}. The chart is in the Forecast tab (Ctrl+D).")
        self.show()
