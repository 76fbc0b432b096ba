"""The Odds dock at any size: on a 1366 x 768 laptop and on a 1920 x 1080 projector at 150 % (as
the system scales it: 1280 x 720 logical pixels; and as the app's own 150 % scale does it), nothing of
it drawn over the status bar or off screen, What if, Pin and Clear within reach (the dock scrolls),
the charts never squashed, their labels never over one another (a long name elided, in full on
hover). And Ctrl+Shift+O brings the dock to the front from behind another tab, hiding it only when
it is in front."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from itertools import pairwise
from typing import Any

import pytest
from PySide6.QtCore import QPoint, QPointF, QRect, QRectF, Qt
from PySide6.QtGui import QFontMetricsF, QPainter, QPicture
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QScrollArea, QTabBar, QWidget
from waiting import run_until

from lnl_desktop.core.files import storage
from lnl_desktop.paths import demo_encounter_path

SIZES = [
    pytest.param(1366, 740, 100, id="laptop 1366x768"),
    pytest.param(1280, 690, 100, id="projector 1920x1080 at 150 % by the system"),
    pytest.param(1920, 1050, 150, id="projector 1920x1080 at the app's 150 %"),
]


def odds_panel(window: Any) -> Any:
    dock = window.docks["Odds"]
    dock.show()
    dock.raise_()
    panel = window._panel("Odds")
    run_until(lambda: panel.odds is not None and panel.odds.fights == 10_000, what="the fight odds")
    QApplication.processEvents()
    return panel


def in_window(widget: QWidget, window: Any) -> QRect:
    return QRect(widget.mapTo(window, QPoint(0, 0)), widget.size())


def in_view(widget: QWidget, window: Any) -> QRect:
    """Where ``widget`` shows in the window once scrolled to (when it sits in a scroll area); it must
    show whole there."""
    place = in_window(widget, window)
    parent = widget.parentWidget()
    while parent is not None and not isinstance(parent, QScrollArea):
        parent = parent.parentWidget()
    if parent is None:
        return place
    parent.ensureWidgetVisible(widget, 0, 0)
    QApplication.processEvents()
    place, viewport = in_window(widget, window), in_window(parent.viewport(), window)
    assert viewport.contains(place), (place, viewport)
    return viewport


def drawn_labels(axis: Any) -> list[tuple[QRectF, str]]:
    """The tick labels the axis draws, each as the rectangle its whole text takes in the tick font."""
    picture = QPicture()
    painter = QPainter(picture)
    font = axis.style["tickFont"] or QApplication.font()
    painter.setFont(font)
    try:
        _axis, _ticks, texts = axis.generateDrawSpecs(painter)
    finally:
        painter.end()
    metrics = QFontMetricsF(font)
    labels = []
    for rect, _flags, text in texts:
        whole = QRectF(0, 0, metrics.horizontalAdvance(text), metrics.height())
        whole.moveCenter(rect.center())
        labels.append((whole, text))
    return labels


def assert_apart(labels: list[tuple[QRectF, str]], where: str) -> None:
    for (a, at), (b, bt) in pairwise(sorted(labels, key=lambda label: (label[0].y(), label[0].x()))):
        assert not a.intersects(b), f"{where}: {at!r} over {bt!r}"


@pytest.mark.parametrize(("width", "height", "scale"), SIZES)
def test_the_odds_dock_fits_and_its_charts_are_readable(
    laptop_window: Callable[..., Any], width: int, height: int, scale: int
) -> None:
    window = laptop_window()
    try:
        if scale != 100:
            window.set_presentation(scale=scale)
        window.resize(width, height)
        QApplication.processEvents()
        panel = odds_panel(window)
        status = window.statusBar().geometry()
        dock = window.docks["Odds"].geometry()
        assert window.rect().contains(dock) and dock.bottom() < status.top(), (dock, status)
        for widget in (panel.who_combo, panel.plan_combo, panel.pin_button, panel.clear_button):
            seen = in_view(widget, window)
            assert dock.contains(seen) and seen.bottom() < status.top(), (widget.toolTip(), seen, dock, status)
        # The charts keep their room (the dock scrolls rather than squash them to a few pixels).
        line = QFontMetricsF(panel.font()).height()
        drops, rounds = panel.plots()
        people = len(panel.odds.combatants)
        assert drops.height() >= line * (people + 2), (drops.height(), line)
        assert rounds.height() >= 4 * line, (rounds.height(), line)
        # Every name stands on its own line, every number apart, none cut off.
        names = drawn_labels(drops.getAxis("left"))
        assert len(names) == people and all(text for _rect, text in names)
        assert_apart(names, "the drop chart's names")
        assert all(rect.width() <= drops.getAxis("left").width() for rect, _text in names)
        # A loaded machine lays the charts out a few events later: their labels, once they are there.
        axes = [plot.getAxis(side) for plot in (drops, rounds) for side in ("bottom", "left")]
        with contextlib.suppress(AssertionError):
            run_until(lambda: all(drawn_labels(axis) for axis in axes), 5, "the charts' labels")
        for plot, what in ((drops, "the drop chart"), (rounds, "the rounds chart")):
            for side in ("bottom", "left"):
                labels = drawn_labels(plot.getAxis(side))
                assert labels, f"{what}'s {side} axis has no labels"
                assert_apart(labels, f"{what}'s {side} axis")
    finally:
        window.set_presentation(scale=100)  # the application font is shared by every test


def test_a_long_name_is_elided_on_the_chart_and_whole_on_hover(laptop_window: Callable[..., Any]) -> None:
    encounter = storage.load(demo_encounter_path())
    long_name = "Cedryk the Sneaky, Third Son of the Baron of the Old Tower Gate"
    cedryk = next(c for c in encounter.combatants if c.id == "cedryk")
    encounter = encounter.model_copy(
        update={
            "combatants": [c.model_copy(update={"name": long_name}) if c is cedryk else c for c in encounter.combatants]
        }
    )
    window = laptop_window(encounter)
    panel = odds_panel(window)
    drops, _rounds = panel.plots()
    shown = {text for _rect, text in drawn_labels(drops.getAxis("left"))}
    assert long_name not in shown and any(text.startswith("Cedryk") and text.endswith("…") for text in shown)
    assert drops.getAxis("left").width() <= drops.width() * 0.5  # the bars keep most of the chart
    row = [c.id for c in panel.odds.combatants].index("cedryk")
    y = len(panel.odds.combatants) - 1 - row
    drops.scene().sigMouseMoved.emit(drops.getViewBox().mapViewToScene(QPointF(0.5, y)))
    assert drops.toolTip().startswith(f"{long_name}: drops in ")


def front_tabs(window: Any) -> set[str]:
    bars = [bar for bar in window.findChildren(QTabBar) if bar.isVisible() and bar.parent() is window]
    return {bar.tabText(bar.currentIndex()) for bar in bars}


def test_ctrl_shift_o_brings_the_odds_to_the_front_and_hides_them_only_from_there(
    laptop_window: Callable[..., Any],
) -> None:
    window = laptop_window()
    odds, action = window.docks["Odds"], window.docks["Action"]
    window.tabifyDockWidget(action, odds)
    action.raise_()
    QApplication.processEvents()
    assert odds.toggleViewAction().isChecked() and "Odds" not in front_tabs(window)  # behind the Action tab

    def press() -> None:
        keys = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
        QTest.keyClick(window.windowHandle(), Qt.Key.Key_O, keys)
        QApplication.processEvents()

    press()
    assert odds.isVisible() and "Odds" in front_tabs(window)
    press()
    assert not odds.isVisible() and not odds.toggleViewAction().isChecked()
    press()
    assert odds.isVisible() and "Odds" in front_tabs(window)
