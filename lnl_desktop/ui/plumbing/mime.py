"""Drag-and-drop payloads shared by the docks (sources) and the map (target)."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from PySide6.QtCore import QMimeData, QModelIndex, QObject, QPersistentModelIndex, Qt, QTimer, Signal

# A combatant already in the encounter; payload: its id (UTF-8).
MIME_COMBATANT = "application/x-lnl-combatant"
# A creature from the bestiary; payload: JSON of Combatant fields without id and side.
MIME_CREATURE = "application/x-lnl-creature"
# A party roster character; payload: JSON {"ruleset", "version", "character": its stat block}.
MIME_PARTY = "application/x-lnl-party-character"


def combatant_mime(cid: str) -> QMimeData:
    data = QMimeData()
    data.setData(MIME_COMBATANT, cid.encode())
    data.setText(cid)
    return data


def creature_mime(creature: dict[str, Any]) -> QMimeData:
    data = QMimeData()
    data.setData(MIME_CREATURE, json.dumps(creature).encode())
    data.setText(str(creature.get("name", "creature")))
    return data


def party_mime(ruleset: str, version: int, character: dict[str, Any]) -> QMimeData:
    data = QMimeData()
    payload = {"ruleset": ruleset, "version": version, "character": character}
    data.setData(MIME_PARTY, json.dumps(payload).encode())
    data.setText(str(character.get("name", "character")))
    return data


def read_party(data: QMimeData) -> tuple[str, int, dict[str, Any]] | None:
    """A dragged party character: its ruleset, its roster version and its stat block (None if not one)."""
    if not data.hasFormat(MIME_PARTY):
        return None
    try:
        payload = json.loads(bytes(data.data(MIME_PARTY).data()).decode())
    except ValueError:
        return None
    if not isinstance(payload, dict):
        return None
    ruleset, version, character = payload.get("ruleset"), payload.get("version"), payload.get("character")
    if not isinstance(ruleset, str) or not isinstance(character, dict):
        return None
    if not isinstance(version, int) or isinstance(version, bool):
        return None
    return ruleset, version, character


def read_combatant(data: QMimeData) -> str | None:
    if not data.hasFormat(MIME_COMBATANT):
        return None
    return bytes(data.data(MIME_COMBATANT).data()).decode()


def read_creature(data: QMimeData) -> dict[str, Any] | None:
    if not data.hasFormat(MIME_CREATURE):
        return None
    try:
        creature = json.loads(bytes(data.data(MIME_CREATURE).data()).decode())
    except ValueError:
        return None
    return creature if isinstance(creature, dict) else None


class RowDragSource:
    """Item-model mixin: a dragged row leaves as one payload (copy only).

    The model names its ``MIME_TYPE`` and says what a row carries (``row_mime``); a "move" is not
    offered, or the view would try to remove the dragged rows afterwards.
    """

    MIME_TYPE: str
    row_mime: Callable[[int], QMimeData]  # what one row carries, given by each model

    def flags(self, index: QModelIndex | QPersistentModelIndex) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsDragEnabled

    def mimeTypes(self) -> list[str]:
        return [self.MIME_TYPE]

    def mimeData(self, indexes: Sequence[QModelIndex]) -> QMimeData:
        for index in indexes:
            if index.isValid():
                return self.row_mime(index.row())
        return QMimeData()

    def supportedDragActions(self) -> Qt.DropAction:
        return Qt.DropAction.CopyAction


class FileDrops(QObject):
    """Files dropped from the desktop on a widget that takes other drops too (the map takes
    tokens): ``wanted`` says which files it takes (none until set), ``dropped`` gives the first
    one, once the drop has returned (what it starts may show a dialog of its own)."""

    dropped = Signal(Path)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.wanted: Callable[[Path], bool] = lambda path: False

    def paths(self, data: QMimeData) -> list[Path]:
        urls = data.urls() if data.hasUrls() else []
        return [Path(url.toLocalFile()) for url in urls if url.isLocalFile() and self.wanted(Path(url.toLocalFile()))]

    def accepts(self, data: QMimeData) -> bool:
        return bool(self.paths(data))

    def take(self, data: QMimeData) -> None:
        paths = self.paths(data)
        if paths:
            QTimer.singleShot(0, lambda: self.dropped.emit(paths[0]))


def creature_for(entry: dict[str, Any], side: str = "Opponents") -> dict[str, Any]:
    """The data to add a bestiary ``entry`` on ``side``; the engine numbers a name that is taken ("Goblin 2")."""
    return entry | {"side": side}
