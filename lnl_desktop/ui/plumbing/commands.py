"""QUndoCommands: one command per engine action, so Edit > Undo walks the same history.

The engine checks and applies the action *before* the command is pushed: an illegal action
raises ``IllegalAction`` and nothing reaches the undo stack. The command's first ``redo`` (which
``QUndoStack.push`` calls) is therefore a no-op; later redos replay the engine's record with the
same dice, and undos restore the engine's snapshot.
"""

from __future__ import annotations

from PySide6.QtGui import QUndoCommand, QUndoStack

from lnl_desktop.core.dice.rolls import DiceSource
from lnl_desktop.core.encounter.actions import Action
from lnl_desktop.core.encounter.events import Event
from lnl_desktop.core.engine.engine import Engine


class EngineCommand(QUndoCommand):
    def __init__(self, engine: Engine, action: Action, events: list[Event]) -> None:
        super().__init__(_title(events, action))
        self.engine = engine
        self.action = action
        self.events = events
        self._pushed = False

    def redo(self) -> None:
        if not self._pushed:
            self._pushed = True  # already applied by push_action
            return
        self.engine.redo()

    def undo(self) -> None:
        self.engine.undo()


def push_action(stack: QUndoStack, engine: Engine, action: Action, dice: DiceSource | None = None) -> list[Event]:
    """Apply ``action`` through the engine and record it on ``stack``; raises if it is refused."""
    events = engine.apply(action, dice)
    stack.push(EngineCommand(engine, action, events))
    return events


def _title(events: list[Event], action: Action) -> str:
    if events:
        text = events[0].text
        return text if len(text) <= 80 else text[:77] + "…"
    return type(action).__name__
