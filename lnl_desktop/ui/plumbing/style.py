"""Colours and sizes shared by the map and the docks.

The side colours are from the Okabe-Ito palette, distinct for the common colour-blindnesses;
tokens also differ by shape (Party round, Opponents square) so colour is never the only cue.

Sizes in points written into style sheets or rich text do not follow the application font, so
they go through :func:`scaled_css` (the UI scale, View ▸ UI scale); :func:`keep_scaled` gives a
widget a style sheet that is scaled again whenever the application font changes.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from PySide6.QtCore import QObject
from PySide6.QtGui import QColor, QFont, QGuiApplication
from PySide6.QtWidgets import QWidget

from lnl_desktop.core.encounter.model import Side
from lnl_desktop.ui.plumbing.theme import ui_scale

CELL_PX = 64  # scene units per grid cell

PARTY = QColor("#0072B2")  # blue
OPPONENTS = QColor("#D55E00")  # vermillion
DOWN = QColor("#7f7f7f")
RESERVE_BAR = QColor("#F0E442")  # yellow: a gauge that takes the blows first (and a plain health bar)
WOUND_BAR = QColor("#CC3311")  # red: a gauge of wounds
WALL = QColor("#3b3b3b")
DIFFICULT = QColor("#8c6d3f")
REACH_FILL = QColor(0, 158, 115, 70)  # bluish green, translucent
BLOCKED = QColor("#CC3311")
CONE = QColor(230, 159, 0, 60)  # orange, translucent


def side_color(side: Side) -> QColor:
    return PARTY if side is Side.PARTY else OPPONENTS


# A size in points: "13pt", "10.5pt" (not part of a longer word or number).
_POINTS = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)pt\b")


def scaled_css(css: str, scale: float | None = None) -> str:
    """``css`` (a style sheet, or rich text with inline styles) with every size in points multiplied
    by the UI scale (``theme.ui_scale()`` unless ``scale`` is given): "13pt" is "26pt" at 200 %."""
    factor = ui_scale() if scale is None else scale
    if factor == 1:
        return css
    return _POINTS.sub(lambda found: f"{round(float(found.group(1)) * factor, 2):g}pt", css)


class ScaledStyle(QObject):
    """A widget's style sheet kept at the UI scale: set now, and set again (scaled anew) each time
    the application font changes, which is how a change of the UI scale arrives.

    Qt does not carry an application font change into a widget that has a style sheet (nor into its
    children): setting the sheet again re-resolves their fonts from the new application font.
    ``then`` is called after each re-application (for rich text that carries sizes of its own).
    """

    def __init__(self, widget: QWidget, css: str, then: Callable[[], None] | None = None) -> None:
        super().__init__(widget)
        self.widget = widget
        self.css = css
        self.then = then
        self.apply()
        app = QGuiApplication.instance()
        if isinstance(app, QGuiApplication):
            app.fontChanged.connect(self._on_font_changed)

    def apply(self) -> None:
        self.widget.setStyleSheet(scaled_css(self.css))

    def _on_font_changed(self, font: QFont) -> None:
        self.apply()
        if self.then is not None:
            self.then()


def keep_scaled(widget: QWidget, css: str, then: Callable[[], None] | None = None) -> ScaledStyle:
    """Give ``widget`` the style sheet ``css`` at the UI scale, kept so when the scale changes."""
    return ScaledStyle(widget, css, then)
