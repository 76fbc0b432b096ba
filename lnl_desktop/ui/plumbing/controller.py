"""The table controller: the one object the window's parts share.

It owns the engine and the undo stack, knows which combatant is selected, and turns engine
events into Qt signals. Views call :meth:`TableController.do` with an action; a refused action
shows its reason (``message``) and changes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QUndoStack

from lnl_desktop.core.dice.rolls import DiceSource
from lnl_desktop.core.encounter.actions import Action, AddCombatant
from lnl_desktop.core.encounter.events import CombatantAdded, Event
from lnl_desktop.core.encounter.model import CombatantBase, Encounter
from lnl_desktop.core.engine.engine import UNDO_LIMIT, Engine
from lnl_desktop.core.errors import RulesError
from lnl_desktop.core.map.grid import Cell
from lnl_desktop.ui.plumbing.commands import push_action


@dataclass(frozen=True)
class AttackPlan:
    """The targeted action the GM is setting up in the action panel, before anything is rolled.

    The forecast and the map's overlays follow it; ``target``/``means`` are None until chosen.
    ``mode`` is the spec's mode word (:attr:`ActionSpec.mode`: "attack", "power attack", the
    ruleset's own "melee"), None for an action that has none. ``extras`` holds the values of the
    action's own inputs (:attr:`ActionSpec.extras`: cover, a second weapon...) in the spec's order.
    """

    attacker: str
    target: str | None = None
    means: str | None = None  # a weapon's or a spell's name
    mode: str | None = "attack"
    ignore_dex: bool = False
    extras: tuple[tuple[str, Any], ...] = ()
    # The action's name in the dock ("Defend") and what it is taken with (ActionSpec.uses: only a
    # weapon or a spell is forecast). Descriptions only: a plan made by hand (a script, a test)
    # compares equal to the dock's without them.
    action: str = field(default="", compare=False)
    uses: str = field(default="weapon", compare=False)
    allies: bool = False  # aimed at the acting combatant's own side (itself or an ally), not at a foe

    @property
    def extra_values(self) -> dict[str, Any]:
        """The action's extras by key, as ``ruleset.attacks.forecast``(extras=...)`` takes them."""
        return dict(self.extras)


class TableController(QObject):
    # Every batch of events the engine produced (actions, undo, redo).
    eventsApplied = Signal(list)
    # The whole encounter was replaced (New, Open, recovery): views rebuild from scratch.
    encounterReplaced = Signal()
    # The selected combatant's id, or "" for none.
    selectionChanged = Signal(str)
    # A sentence for the status bar: refusals, hints.
    message = Signal(str)
    # The attack being set up changed (controller.plan, may be None).
    planChanged = Signal()
    # An action was refused, with the reason (also said through ``message``): shown where the GM looks.
    refused = Signal(str)
    # The GM acts (an action is about to be applied, a press on the map): the fight odds' worker steps
    # aside before the work, not after.
    acting = Signal()

    def __init__(self, encounter: Encounter, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.engine = Engine(encounter)
        self.undo_stack = QUndoStack(self)
        # Commands the GM can undo: a quarter of the engine's actions (a Party command may take a few
        # at once), set while the stack is empty as Qt requires. Older ones drop off; the log keeps all.
        self.undo_stack.setUndoLimit(UNDO_LIMIT // 4)
        self.selected: str | None = None
        self.plan: AttackPlan | None = None
        # Why the last action was refused (None after one that went through): for the docks to show.
        self.refusal: str | None = None
        # The folder of the open file: a background image's relative path is relative to it.
        self.base_dir: Path | None = None
        self.pushing = False  # True while a new step goes onto the undo stack (not an undo or redo)
        self.engine.subscribe(self._forward)

    @property
    def encounter(self) -> Encounter:
        return self.engine.encounter

    @property
    def revision(self) -> int:
        """Counts the changes to the encounter (actions, undo, redo, another encounter): what the
        views work out from the whole encounter is kept until it moves on."""
        return self.engine.touched.step

    def combatant(self, cid: str) -> CombatantBase | None:
        try:
            return self.encounter.combatant(cid)
        except RulesError:
            return None

    def _forward(self, events: list[Event]) -> None:
        if self.selected is not None and self.combatant(self.selected) is None:
            self.select(None)
        self.eventsApplied.emit(events)

    def do(self, action: Action, dice: DiceSource | None = None) -> list[Event] | None:
        """Apply one action as one undoable step; on refusal say why and return None."""
        self.acting.emit()
        self.pushing = True
        try:
            events = push_action(self.undo_stack, self.engine, action, dice)
        except RulesError as refused:
            self.refusal = str(refused)
            self.message.emit(self.refusal)
            self.refused.emit(self.refusal)
            return None
        finally:
            self.pushing = False
        self.refusal = None
        if events:
            self.message.emit(self.result_words(events))
        return events

    def result_words(self, events: list[Event]) -> str:
        """What the status bar says of an action's events: its result (the hit or miss and the
        damage, an area effect's roll) in the round log's words, not what came with it (the attacker
        turning to face its target, the template lifted after the effect, a fallen foe's morale);
        for an action with no result (a move, an edit), its last event."""
        ruleset = self.engine.ruleset
        for i in range(len(events) - 1, -1, -1):
            if ruleset.actions.result(self.encounter, events[i], events[i + 1 :]) is not None:
                return events[i].text
        return events[-1].text

    def add_combatant(self, data: dict[str, Any], cell: Cell | None = None, facing: int = 0) -> str | None:
        """Add a combatant (on ``cell`` if given) and select it; its id, or None if refused."""
        events = self.do(AddCombatant(data, cell=cell, facing=facing))
        added = next((e.combatant for e in events or [] if isinstance(e, CombatantAdded)), None)
        if added is not None:
            self.select(added)
        return added

    def select(self, cid: str | None) -> None:
        if cid == self.selected:
            return
        self.selected = cid
        self.selectionChanged.emit(cid or "")

    def set_plan(self, plan: AttackPlan | None) -> None:
        renamed = (
            plan is not None
            and self.plan is not None
            and (plan.action, plan.uses) != (self.plan.action, self.plan.uses)
        )
        if plan != self.plan or renamed:
            self.plan = plan
            self.planChanged.emit()

    def replace_encounter(self, encounter: Encounter) -> None:
        """Start over on another encounter: a fresh history, nothing selected."""
        self.undo_stack.clear()
        self.engine.replace(encounter)  # its ruleset too
        self.selected = None
        self.plan = None
        self.encounterReplaced.emit()
        self.planChanged.emit()
        self.selectionChanged.emit("")
