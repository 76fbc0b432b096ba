"""A table model of every combatant: side, level, SP, IP, status."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt

from lnl_desktop.core.engine import Engine
from lnl_desktop.core.events import Event
from lnl_desktop.core.model import Combatant

Index = QModelIndex | QPersistentModelIndex


def status_of(c: Combatant) -> str:
    """Short status words for a combatant, most important first."""
    words = []
    if c.down:
        words.append("down")
    if c.surprised:
        words.append("surprised")
    if c.parry is not None:
        words.append(f"parrying ({c.parry.label})")
    if c.concealed:
        words.append("concealed")
    broken = [w.name for w in c.weapons if w.state.value == "broken"]
    if broken:
        words.append("broken: " + ", ".join(broken))
    words.extend(c.conditions)
    return ", ".join(words)


class CombatantsModel(QAbstractTableModel):
    COLUMNS = ("Name", "Side", "Level", "SP", "IP", "AP", "Move", "Status")

    def __init__(self, engine: Engine) -> None:
        super().__init__()
        self._engine = engine
        engine.subscribe(self._on_events)

    def combatant(self, row: int) -> Combatant:
        return self._engine.encounter.combatants[row]

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 - Qt's own default
        return 0 if parent.isValid() else len(self._engine.encounter.combatants)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self.COLUMNS[section]
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        c = self.combatant(index.row())
        column = self.COLUMNS[index.column()]
        if role == Qt.ItemDataRole.DisplayRole:
            return {
                "Name": c.name,
                "Side": c.side.value,
                "Level": c.level,
                "SP": f"{c.stamina} / {c.stamina_max}",
                "IP": f"{c.injury} / {c.injury_max}",
                "AP": c.armor_points,
                "Move": f"{c.move_ft} ft",
                "Status": status_of(c),
            }[column]
        if role == Qt.ItemDataRole.ToolTipRole and column == "Name":
            return "\n".join(w.label for w in c.weapons) or "no weapons"
        if role == Qt.ItemDataRole.TextAlignmentRole and column in ("Level", "SP", "IP", "AP", "Move"):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def reset(self) -> None:
        self.beginResetModel()
        self.endResetModel()

    def _on_events(self, events: list[Event]) -> None:
        # Combatants can be added, removed or replaced by any action; a reset is cheap at this size.
        self.reset()
