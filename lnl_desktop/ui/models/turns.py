"""The Turns dock's list as an item model: the groups of the round (a side, or a place of the turn
order) as parents, their combatants as children; a place held by one combatant is one line.

The dock works out each line's look (:class:`Line`: texts, tooltips, fonts, colours, the state
this round and whether its turn may begin, as the engine answers them) and hands the whole list to
:meth:`TurnsModel.show`. The model tells its views only what changed: ``dataChanged`` for lines
whose look changed, ``layoutChanged`` when the same lines moved (a new round's order), a reset
only when lines come or go or the columns change. :class:`LineView` reads a line as a tree widget
item is read (``text``, ``toolTip``, ``font``, ``data``, ``child``...). Texts and tooltips are
shown as :func:`visible` writes them (a control or bidi character in a name, as its escape).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QAbstractItemModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor, QFont

from lnl_desktop.core.encounter.words import visible

Index = QModelIndex | QPersistentModelIndex

ID_ROLE = Qt.ItemDataRole.UserRole + 1  # the combatant's id ("" for a group's heading)
STATE_ROLE = Qt.ItemDataRole.UserRole + 2  # its state this round: waiting, acting now, acted...
MAY_BEGIN_ROLE = Qt.ItemDataRole.UserRole + 3  # whether its turn may begin now

_TOP = 0  # the internal id of a top-level line; a child's is its parent's row + 1

# Roles and flags as plain ints, looked up once: Qt asks data() and flags() for every cell it paints
# or lays out, and each Qt enum member read or combined in Python costs more than the answer itself.
_DISPLAY = int(Qt.ItemDataRole.DisplayRole)
_TIP = int(Qt.ItemDataRole.ToolTipRole)
_FONT = int(Qt.ItemDataRole.FontRole)
_FORE = int(Qt.ItemDataRole.ForegroundRole)
_BACK = int(Qt.ItemDataRole.BackgroundRole)
_HEADING_FLAGS = Qt.ItemFlag.ItemIsEnabled
_ROW_FLAGS = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
_NO_FLAGS = Qt.ItemFlag.NoItemFlags
_HORIZONTAL = Qt.Orientation.Horizontal


@dataclass
class Line:
    """One line of the list as shown: a combatant's row, or a group's heading (``cid`` None) with
    its members as ``children``."""

    cid: str | None
    texts: list[str]
    tips: dict[int, str] = field(default_factory=dict)
    fonts: dict[int, QFont] = field(default_factory=dict)
    fore: dict[int, QColor] = field(default_factory=dict)
    back: dict[int, QColor] = field(default_factory=dict)
    state: str = ""
    may_begin: bool = False
    declared: tuple[str | None, bool] | None = None  # the Declared column: the declaration, whether missing
    children: list[Line] = field(default_factory=list)
    # What data() answers, by column then role: worked out when the line is first painted. A line is
    # not changed once the model shows it (the dock hands over a new line instead).
    cells: list[dict[int, Any]] | None = field(default=None, repr=False, compare=False)

    @property
    def heading(self) -> bool:
        return self.cid is None

    def prepare(self, columns: int) -> list[dict[int, Any]]:
        """Every answer of every column, the words as :func:`visible` writes them and the colours as
        brushes: painting a cell then reads a dict, not the line's parts."""
        cells: list[dict[int, Any]] = []
        for column in range(max(columns, len(self.texts))):
            cell: dict[int, Any] = {
                ID_ROLE: self.cid if column == 0 else None,
                STATE_ROLE: self.state,
                MAY_BEGIN_ROLE: self.may_begin,
            }
            if column < len(self.texts):
                cell[_DISPLAY] = visible(self.texts[column])
            tip = self.tips.get(column)
            if tip is not None:
                cell[_TIP] = visible(tip)
            font = self.fonts.get(column)
            if font is not None:
                cell[_FONT] = font
            for role, colors in ((_FORE, self.fore), (_BACK, self.back)):
                color = colors.get(column)
                if color is not None:
                    cell[role] = QBrush(color)
            cells.append(cell)
        self.cells = cells
        return cells

    def look(self) -> tuple[object, ...]:
        """What the line shows, its children left out: two lines alike look the same."""
        fonts = {column: font.key() for column, font in self.fonts.items()}
        fore = {column: color.name() for column, color in self.fore.items()}
        back = {column: color.name() for column, color in self.back.items()}
        return (self.cid, self.texts, self.tips, fonts, fore, back, self.state, self.may_begin, self.declared)


def _shape(lines: list[Line]) -> list[tuple[str | None, list[str | None]]]:
    return [(line.cid, [child.cid for child in line.children]) for line in lines]


def _every(lines: list[Line]) -> list[Line]:
    return [c for line in lines for c in (line, *line.children)]


def _cids(lines: list[Line]) -> list[str]:
    """Every line's combatant ("" for a heading), in order of id: the same lines, wherever they are."""
    return sorted(line.cid or "" for line in _every(lines))


class TurnsModel(QAbstractItemModel):
    """The groups and combatants of the Turns list, as :class:`Line` records the dock works out."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._lines: list[Line] = []
        self._headers: list[str] = []
        self._header_tips: dict[int, str] = {}
        self._places: dict[str, tuple[int, int | None]] = {}  # each combatant's (row, child row)

    # -- what the dock gives --------------------------------------------------------------------

    def headers(self) -> list[str]:
        return list(self._headers)

    def show(self, headers: list[str], tips: dict[int, str], lines: list[Line]) -> tuple[str, set[str]]:
        """Show these columns and lines. What the views were told ("reset", "layout", "data" or ""),
        and the combatants whose lines look otherwise than before (every one after a reset)."""
        old = self._lines
        was = {line.cid: line.look() for line in _every(old) if line.cid is not None}
        changed = {line.cid for line in _every(lines) if line.cid is not None and was.get(line.cid) != line.look()}
        if headers != self._headers or tips != self._header_tips:
            self._reset(lines, headers, tips)
            return "reset", {line.cid for line in _every(lines) if line.cid is not None}
        if _shape(old) == _shape(lines):
            repaint = [
                (row, sub)
                for row, line in enumerate(lines)
                for sub, (new, shown) in enumerate(
                    [(line, old[row]), *zip(line.children, old[row].children, strict=True)], start=-1
                )
                if new.look() != shown.look()
            ]
            self._set_lines(lines)
            self._repaint_spans(repaint)
            return ("data" if repaint else ""), changed
        if [len(line.children) for line in old] == [len(line.children) for line in lines] and _cids(old) == _cids(
            lines
        ):
            self._move_lines(lines)
            return "layout", changed
        self._reset(lines, headers, tips)
        return "reset", {line.cid for line in _every(lines) if line.cid is not None}

    def _reset(self, lines: list[Line], headers: list[str], tips: dict[int, str]) -> None:
        self.beginResetModel()
        self._headers, self._header_tips = list(headers), dict(tips)
        for line in _every(lines):
            line.cells = None  # prepared for other columns, if ever
        self._set_lines(lines)
        self.endResetModel()

    def replace(self, line: Line) -> bool:
        """Put in a combatant's line as it looks now (same place); whether it looked otherwise."""
        place = self._places.get(line.cid or "")
        if place is None:
            return False
        row, sub = place
        was = self._lines[row] if sub is None else self._lines[row].children[sub]
        if was.look() == line.look():
            return False
        if sub is None:
            line.children = was.children
            self._lines[row] = line
        else:
            self._lines[row].children[sub] = line
        self._repaint(row, sub)
        return True

    def _set_lines(self, lines: list[Line]) -> None:
        self._lines = lines
        self._places = {}
        for row, line in enumerate(lines):
            if line.cid is not None:
                self._places[line.cid] = (row, None)
            for sub, child in enumerate(line.children):
                if child.cid is not None:
                    self._places[child.cid] = (row, sub)

    def _move_lines(self, lines: list[Line]) -> None:
        """The same lines in other places: the views keep their selection and widgets on them."""
        self.layoutAboutToBeChanged.emit()
        olds = self.persistentIndexList()
        keys = [self._key(index) for index in olds]
        self._set_lines(lines)
        news = [self._index_of(key, index.column()) for key, index in zip(keys, olds, strict=True)]
        self.changePersistentIndexList(olds, news)
        self.layoutChanged.emit()

    def _key(self, index: Index) -> tuple[str, int]:
        line = self.line(index)
        if line is None:
            return ("", -1)
        return (line.cid, -1) if line.cid is not None else ("", index.row())

    def _index_of(self, key: tuple[str, int], column: int) -> QModelIndex:
        cid, row = key
        if cid:
            return self.index_of(cid, column)
        return self.index(row, column) if 0 <= row < len(self._lines) else QModelIndex()

    def _repaint_spans(self, places: list[tuple[int, int]]) -> None:
        """Tell the views of the changed lines, one span per group (``(row, -1)``: a top line;
        ``(row, sub)``: a group's member), not one line at a time: each telling has a cost in Qt."""
        tops = [row for row, sub in places if sub < 0]
        if tops:
            self._repaint_rows(QModelIndex(), min(tops), max(tops))
        members: dict[int, list[int]] = {}
        for row, sub in places:
            if sub >= 0:
                members.setdefault(row, []).append(sub)
        for row, subs in members.items():
            self._repaint_rows(self.index(row, 0), min(subs), max(subs))

    def _repaint_rows(self, parent: QModelIndex, first: int, last: int) -> None:
        column = max(len(self._headers) - 1, 0)
        self.dataChanged.emit(self.index(first, 0, parent), self.index(last, column, parent))

    def _repaint(self, row: int, sub: int | None) -> None:
        last = max(len(self._headers) - 1, 0)
        parent = QModelIndex() if sub is None else self.index(row, 0)
        place = row if sub is None else sub
        self.dataChanged.emit(self.index(place, 0, parent), self.index(place, last, parent))

    # -- lookups --------------------------------------------------------------------------------

    def line(self, index: Index) -> Line | None:
        row = index.row()
        if row < 0:  # an invalid index
            return None
        parent = index.internalId()
        lines = self._lines if parent == _TOP else self._children(parent - 1)
        return lines[row] if row < len(lines) else None

    def _children(self, row: int) -> list[Line]:
        return self._lines[row].children if row < len(self._lines) else []

    def index_of(self, cid: str, column: int = 0) -> QModelIndex:
        """The index of combatant ``cid``'s line (invalid when it has none)."""
        place = self._places.get(cid)
        if place is None:
            return QModelIndex()
        row, sub = place
        return self.index(row, column) if sub is None else self.index(sub, column, self.index(row, 0))

    def cids(self) -> list[str]:
        return list(self._places)

    # -- the model --------------------------------------------------------------------------------

    def index(self, row: int, column: int, parent: Index = QModelIndex()) -> QModelIndex:  # noqa: B008 - Qt's own default
        if column < 0 or column >= len(self._headers) or row < 0:
            return QModelIndex()
        top = parent.row()
        if top < 0:  # the invisible root
            return self.createIndex(row, column, _TOP) if row < len(self._lines) else QModelIndex()
        if parent.internalId() != _TOP or top >= len(self._lines) or row >= len(self._lines[top].children):
            return QModelIndex()
        return self.createIndex(row, column, top + 1)

    def parent(self, index: Index = QModelIndex()) -> QModelIndex:  # type: ignore[override]  # noqa: B008
        parent = index.internalId()  # an invalid index's is 0, a top line's too
        if parent == _TOP:
            return QModelIndex()
        return self.createIndex(parent - 1, 0, _TOP)

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        top = parent.row()
        if top < 0:
            return len(self._lines)
        if parent.column() != 0 or parent.internalId() != _TOP or top >= len(self._lines):
            return 0
        return len(self._lines[top].children)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return len(self._headers)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = _DISPLAY) -> Any:
        if orientation != _HORIZONTAL or not 0 <= section < len(self._headers):
            return None
        if role == _DISPLAY:
            return self._headers[section]
        if role == _TIP:
            return self._header_tips.get(section)
        return None

    def flags(self, index: Index) -> Qt.ItemFlag:
        line = self.line(index)
        if line is None:
            return _NO_FLAGS
        return _HEADING_FLAGS if line.cid is None else _ROW_FLAGS

    def data(self, index: Index, role: int = _DISPLAY) -> Any:
        # Read from the line's prepared answers: Qt asks every role of every cell it paints.
        line = self.line(index)
        if line is None:
            return None
        cells = line.cells or line.prepare(len(self._headers))
        column = index.column()
        return cells[column].get(role) if 0 <= column < len(cells) else None


class LineView:
    """A line of the list read as a ``QTreeWidgetItem`` is: by column, and its children."""

    def __init__(self, index: Index) -> None:
        self._index = QPersistentModelIndex(index)

    def index(self, column: int = 0) -> QModelIndex:
        index = QModelIndex(self._index)
        return index.siblingAtColumn(column) if column else index

    def data(self, column: int, role: int) -> Any:
        return self.index(column).data(role)

    def text(self, column: int) -> str:
        return str(self.data(column, Qt.ItemDataRole.DisplayRole) or "")

    def toolTip(self, column: int) -> str:
        return str(self.data(column, Qt.ItemDataRole.ToolTipRole) or "")

    def font(self, column: int) -> QFont:
        font = self.data(column, Qt.ItemDataRole.FontRole)
        return font if isinstance(font, QFont) else QFont()

    def foreground(self, column: int) -> QBrush:
        brush = self.data(column, Qt.ItemDataRole.ForegroundRole)
        return brush if isinstance(brush, QBrush) else QBrush()

    def background(self, column: int) -> QBrush:
        brush = self.data(column, Qt.ItemDataRole.BackgroundRole)
        return brush if isinstance(brush, QBrush) else QBrush()

    def childCount(self) -> int:
        index = self.index()
        return index.model().rowCount(index) if index.isValid() else 0

    def child(self, row: int) -> LineView:
        index = self.index()
        return LineView(index.model().index(row, 0, index))


class HeaderView:
    """The list's header read as a tree widget's header item: ``text`` and ``toolTip`` by column."""

    def __init__(self, model: TurnsModel) -> None:
        self._model = model

    def text(self, column: int) -> str:
        return str(self._model.headerData(column, Qt.Orientation.Horizontal) or "")

    def toolTip(self, column: int) -> str:
        tip = self._model.headerData(column, Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole)
        return str(tip or "")
