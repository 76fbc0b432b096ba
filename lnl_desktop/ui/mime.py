"""Drag-and-drop payloads shared by the docks (sources) and the map (target)."""

from __future__ import annotations

import json
from typing import Any

from PySide6.QtCore import QMimeData

# A combatant already in the encounter; payload: its id (UTF-8).
MIME_COMBATANT = "application/x-lnl-combatant"
# A creature from the bestiary; payload: JSON of Combatant fields without id and side.
MIME_CREATURE = "application/x-lnl-creature"


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
