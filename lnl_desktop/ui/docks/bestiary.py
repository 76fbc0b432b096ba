"""The Bestiary dock: ready-made creatures to add to the encounter or drag onto the map.

The creatures are the encounter's ruleset's (``resources/bestiary.json`` for L&L,
``bestiary-classic.json`` for L&L Classic): stat-block fields without ``id`` and ``side``. An
item drags as :func:`lnl_desktop.ui.plumbing.mime.creature_mime` (the map places it); "Add to encounter"
or a double-click adds it to the Opponents without a token.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from PySide6.QtCore import (
    QAbstractListModel,
    QMimeData,
    QModelIndex,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListView,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from lnl_desktop.core.rules.bestiary import read_bestiary
from lnl_desktop.core.rules.registry import DEFAULT_RULESET, Ruleset, get_ruleset
from lnl_desktop.paths import resource
from lnl_desktop.ui.plumbing.controller import TableController
from lnl_desktop.ui.plumbing.mime import MIME_CREATURE, RowDragSource, creature_for, creature_mime

Index = QModelIndex | QPersistentModelIndex

SIZE_WORDS = {1: "medium", 2: "large", 3: "huge", 4: "gargantuan"}


def bestiary_path() -> Path:
    return resource("bestiary.json")


def load_bestiary(path: Path | None = None, ruleset: Ruleset | None = None) -> tuple[list[dict[str, Any]], list[str]]:
    """The valid creatures of a bestiary (the ruleset's own, L&L's by default), and a line per problem."""
    return read_bestiary(ruleset or get_ruleset(DEFAULT_RULESET), path)


def creature_summary(entry: dict[str, Any], ruleset: Ruleset | None = None) -> str:
    """A creature's stats as a tooltip, in the ruleset's words."""
    ruleset = ruleset or get_ruleset(DEFAULT_RULESET)
    c = ruleset.stat_block.model_validate(entry | {"side": "Opponents"})
    size = SIZE_WORDS.get(c.size, "")
    head, *items = ruleset.views.creature_lines(c)
    lines = [head, *ruleset.views.stat_line(c).splitlines()]
    lines.append(f"Size {c.size} x {c.size} ({size}), field of vision {c.vision_deg}°")
    lines += items
    lines += [f"Trait: {t.value}" for t in c.traits]
    if c.notes:
        lines.append(c.notes)
    return "\n".join(lines)


class CreatureListModel(RowDragSource, QAbstractListModel):
    """The bestiary's creatures; each drags as a creature for the map."""

    MIME_TYPE = MIME_CREATURE

    CREATURE_ROLE = Qt.ItemDataRole.UserRole + 1

    def __init__(self, creatures: Sequence[dict[str, Any]], parent: Any = None, ruleset: Ruleset | None = None) -> None:
        super().__init__(parent)
        self._creatures = list(creatures)
        self.ruleset = ruleset or get_ruleset(DEFAULT_RULESET)

    def set_creatures(self, creatures: Sequence[dict[str, Any]], ruleset: Ruleset) -> None:
        self.beginResetModel()
        self._creatures = list(creatures)
        self.ruleset = ruleset
        self.endResetModel()

    def creature(self, row: int) -> dict[str, Any]:
        return dict(self._creatures[row])

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 - Qt's own default
        return 0 if parent.isValid() else len(self._creatures)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._creatures):
            return None
        entry = self._creatures[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            size = entry.get("size", 1)
            level = f"level {entry['level']}, " if "level" in entry else ""
            return f"{entry['name']} — {level}size {size}×{size}"
        if role == Qt.ItemDataRole.ToolTipRole:
            return creature_summary(entry, self.ruleset)
        if role == self.CREATURE_ROLE:
            return self.creature(index.row())
        return None

    def row_mime(self, row: int) -> QMimeData:
        return creature_mime(self.creature(row))


class BestiaryPanel(QWidget):
    """A filterable list of creatures: drag one onto the map, or add it to the encounter."""

    def __init__(self, controller: TableController, parent: QWidget | None = None, path: Path | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Bestiary")
        self.controller = controller
        self._path = path
        self.ruleset_name = self._path_for = controller.engine.ruleset.name
        creatures, self.problems = self._read()
        self.model = CreatureListModel(creatures, self, controller.engine.ruleset)
        self.proxy = QSortFilterProxyModel(self)
        self.proxy.setSourceModel(self.model)
        self.proxy.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)

        self.filter = QLineEdit(self)
        self.filter.setPlaceholderText("Filter creatures")
        self.filter.setClearButtonEnabled(True)
        self.filter.setToolTip("Show only the creatures whose name contains this text")
        self.filter.textChanged.connect(self.proxy.setFilterFixedString)

        self.list = QListView(self)
        self.list.setModel(self.proxy)
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.list.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.list.setDragEnabled(True)
        self.list.setDragDropMode(QAbstractItemView.DragDropMode.DragOnly)
        self.list.setDefaultDropAction(Qt.DropAction.CopyAction)
        self.list.setAlternatingRowColors(True)
        self.list.setUniformItemSizes(True)
        self.list.setSpacing(1)
        self.list.activated.connect(self._on_activated)
        self.list.selectionModel().selectionChanged.connect(self._update_button)

        self.add_button = QPushButton("Add to encounter", self)
        self.add_button.setToolTip(
            "Add the selected creature to the Opponents without a token; drag a creature onto the map to place it"
        )
        self.add_button.clicked.connect(self.add_selected)

        self.hint = QLabel("Drag a creature onto the map to place it, or double-click to add it without a token.")
        self.hint.setWordWrap(True)
        self.hint.setEnabled(False)  # drawn in the palette's quieter colour

        self.problem_label = QLabel("\n".join(self.problems), self)
        self.problem_label.setWordWrap(True)
        self.problem_label.setStyleSheet("color: #b00020;")
        self.problem_label.setVisible(bool(self.problems))

        buttons = QHBoxLayout()
        buttons.addWidget(self.add_button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.filter)
        layout.addWidget(self.list, 1)
        layout.addWidget(self.hint)
        layout.addWidget(self.problem_label)
        layout.addLayout(buttons)
        self._update_button()
        controller.encounterReplaced.connect(self._follow_ruleset)
        controller.eventsApplied.connect(lambda *_: self._follow_ruleset())

    def _read(self) -> tuple[list[dict[str, Any]], list[str]]:
        ruleset = self.controller.engine.ruleset
        # A bestiary file given to the panel (a GM's own, a test's) is for the ruleset it opened with.
        path = self._path if ruleset.name == self._path_for else None
        if path is None and not hasattr(ruleset, "bestiary_file"):
            return ruleset.bestiary(), []  # a ruleset of its own brings its creatures its own way
        return read_bestiary(ruleset, path)

    def _follow_ruleset(self) -> None:
        """Show the creatures of the encounter's ruleset (another file, a conversion)."""
        ruleset = self.controller.engine.ruleset
        if ruleset.name == self.ruleset_name:
            return
        self.ruleset_name = ruleset.name
        creatures, self.problems = self._read()
        self.model.set_creatures(creatures, ruleset)
        self.problem_label.setText("\n".join(self.problems))
        self.problem_label.setVisible(bool(self.problems))
        self.setToolTip(f"Creatures for {ruleset.title}")
        self._update_button()

    def selected_creature(self) -> dict[str, Any] | None:
        rows = self.list.selectionModel().selectedRows()
        return rows[0].data(CreatureListModel.CREATURE_ROLE) if rows else None

    def _update_button(self, *_: object) -> None:
        self.add_button.setEnabled(self.selected_creature() is not None)

    def _on_activated(self, index: QModelIndex) -> None:
        creature = index.data(CreatureListModel.CREATURE_ROLE)
        if creature:
            self.add_creature(creature)

    def add_selected(self) -> str | None:
        creature = self.selected_creature()
        return self.add_creature(creature) if creature else None

    def add_creature(self, entry: dict[str, Any]) -> str | None:
        """Add ``entry`` to the Opponents (no token) and select it; the new id, or None if refused."""
        return self.controller.add_combatant(creature_for(entry))
