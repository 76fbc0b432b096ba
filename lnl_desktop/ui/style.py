"""Colours and sizes shared by the map and the docks.

The side colours are from the Okabe-Ito palette, distinct for the common colour-blindnesses;
tokens also differ by shape (Party round, Opponents square) so colour is never the only cue.
"""

from __future__ import annotations

from PySide6.QtGui import QColor

from lnl_desktop.core.model import Side

CELL_PX = 64  # scene units per grid cell

PARTY = QColor("#0072B2")  # blue
OPPONENTS = QColor("#D55E00")  # vermillion
DOWN = QColor("#7f7f7f")
STAMINA = QColor("#F0E442")  # yellow bar
INJURY = QColor("#CC3311")  # red bar
WALL = QColor("#3b3b3b")
DIFFICULT = QColor("#8c6d3f")
REACH_FILL = QColor(0, 158, 115, 70)  # bluish green, translucent
BLOCKED = QColor("#CC3311")
CONE = QColor(230, 159, 0, 60)  # orange, translucent


def side_color(side: Side) -> QColor:
    return PARTY if side is Side.PARTY else OPPONENTS
