"""The party's start cells on the GM's map (RULES §16): a faint outlined "P" on each cell where the
session places the party's characters when it brings them in (in (y, x) order).

GM only: the players' scene never makes one, and it is no
:class:`~lnl_desktop.ui.map.overlays.Overlay`, so the player view never shares it. The GM marks and
clears the cells from the floor's right-click menu (:func:`start_cell_entry`).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFont, QPainter, QPen
from PySide6.QtWidgets import QGraphicsItem, QMenu, QStyleOptionGraphicsItem, QWidget

from lnl_desktop.core.encounter.actions import Action, EditMap
from lnl_desktop.core.encounter.map_model import MAX_START_CELLS, MapGrid
from lnl_desktop.core.map.grid import Cell
from lnl_desktop.ui.plumbing.style import CELL_PX

START_CELLS_Z = 6.5  # over the floor and the drawings, under the GM's fog shade and the tokens
START_CELL_COLOR = QColor(40, 110, 200, 150)  # faint: a reminder under the tokens, not a cover


def start_cells_edit(grid: MapGrid, cell: Cell) -> tuple[EditMap | None, str]:
    """The edit that marks ``cell`` as a party start cell, or clears it when it is one, with why it
    cannot be done instead ("" when it can)."""
    x, y = cell
    if not (0 <= x < grid.width and 0 <= y < grid.height):
        return None, "Right-click on the map to mark a party start cell there"
    cells = grid.start_cells
    if cell in cells:
        return EditMap({"start_cells": sorted(cells - {cell})}), ""
    if cell in grid.walls:
        return None, f"({x}, {y}) is a wall: a party start cell is open floor"
    if len(cells) >= MAX_START_CELLS:
        return None, f"The map has {MAX_START_CELLS:,} party start cells, the most it may have"
    return EditMap({"start_cells": sorted(cells | {cell})}), ""


def start_cell_entry(menu: QMenu, grid: MapGrid, cell: Cell | None, do: Callable[[Action], object]) -> None:
    """The floor menu's checkable "Party start cell" on ``grid``: checked on a marked cell (a click
    clears it), unchecked on another (a click marks it); one undoable map edit through ``do`` either way."""
    marked = cell is not None and cell in grid.start_cells
    edit, why = start_cells_edit(grid, cell) if cell is not None else (None, "Right-click on the map to mark a cell")
    entry = menu.addAction("Party &start cell")
    entry.setCheckable(True)
    entry.setChecked(marked)
    tip = (
        "Clear this party start cell (undoable)"
        if marked
        else "Place the party here when the session brings it in: one character a cell (undoable)"
    )
    entry.setEnabled(edit is not None)
    entry.setToolTip(why or tip)
    entry.setStatusTip(why or tip)
    if edit is not None:
        entry.triggered.connect(lambda _=False: do(edit))


class StartCellsItem(QGraphicsItem):
    """The party's start cells on the GM's map: each an outlined square with a "P"."""

    def __init__(self) -> None:
        super().__init__()
        self.cells: frozenset[Cell] = frozenset()
        self._rect = QRectF()
        self.setZValue(START_CELLS_Z)
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)

    def refresh(self, grid: MapGrid) -> None:
        """Show ``grid``'s start cells (nothing to do when they are the ones shown)."""
        cells = grid.start_cells
        if cells == self.cells:
            return
        self.prepareGeometryChange()
        self.cells = cells
        if cells:
            xs, ys = [x for x, _ in cells], [y for _, y in cells]
            self._rect = QRectF(
                min(xs) * CELL_PX,
                min(ys) * CELL_PX,
                (max(xs) - min(xs) + 1) * CELL_PX,
                (max(ys) - min(ys) + 1) * CELL_PX,
            )
        else:
            self._rect = QRectF()
        self.setVisible(bool(cells))
        self.update()

    def boundingRect(self) -> QRectF:
        return self._rect

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        inset = CELL_PX * 0.12
        pen = QPen(START_CELL_COLOR, max(1.0, CELL_PX / 24))
        pen.setStyle(Qt.PenStyle.DashLine)
        painter.setPen(pen)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        font = QFont(painter.font())
        font.setBold(True)
        font.setPixelSize(max(6, round(CELL_PX * 0.45)))
        painter.setFont(font)
        exposed = option.exposedRect if option is not None else self._rect
        for x, y in self.cells:
            square = QRectF(x * CELL_PX, y * CELL_PX, CELL_PX, CELL_PX)
            if not square.intersects(exposed) and not exposed.isEmpty():
                continue
            painter.drawRect(square.adjusted(inset, inset, -inset, -inset))
            painter.drawText(square, Qt.AlignmentFlag.AlignCenter, "P")
