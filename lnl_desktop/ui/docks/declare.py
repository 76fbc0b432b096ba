"""The Turns dock's declare phase and row commands.

A ruleset with a declare phase (``ruleset.rounds.declarations``: every combatant's action is declared
before initiative) adds a Declared column: a narrow combo per combatant able to act. While the
declarations are open (before combat, between rounds) a pick is one undoable, logged step and the
banner names who must still declare before the initiative roll ("All: <choice>" fills them in at
once); during a round a change asks first, and the log records it as a GM override. A ruleset's
commands on a combatant (``ruleset.rounds.row_actions``: put it in a group of its own) make up the row's
context menu (right click, the menu key or Shift+F10).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QModelIndex, QPoint, QSignalBlocker, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QComboBox, QMenu, QMessageBox, QToolButton

from lnl_desktop.core.errors import RulesError
from lnl_desktop.core.rules.specs import DeclareSpec
from lnl_desktop.ui.dialogs.faces import engine_dry_run

if TYPE_CHECKING:
    from lnl_desktop.core.encounter.events import Event
    from lnl_desktop.ui.docks.turns_list import TurnsView
    from lnl_desktop.ui.plumbing.controller import TableController

DECLARED = "Declared"  # the column of a ruleset with a declare phase
MISSING_MARK = QColor("#fff3c4")  # the cell of a combatant who must still declare
NAMES_SHOWN = 4  # the banner names this many of those who must still declare, then counts the rest


def names_said(names: list[str], limit: int = NAMES_SHOWN) -> str:
    """'Tombril, Ogre' or 'Goblin 1, …, Goblin 6 and 3 more': a list of names that keeps the banner short."""
    if len(names) <= limit:
        return ", ".join(names)
    return f"{', '.join(names[:limit])} and {len(names) - limit} more"


class DeclarePhase:
    """The Turns dock's declarations and the row's commands, mixed into the dock (:class:`TurnsPanel`)."""

    # What the dock gives.
    controller: TableController
    tree: TurnsView
    declare_spec: DeclareSpec | None  # the ruleset's declare phase, as of the last refresh
    declare_all_button: QToolButton
    context_menu: QMenu | None  # the row's menu on show (right click, menu key)
    _declared_column: int | None  # the Declared column's index, when shown
    message: str  # the refusal shown in the dock
    _do: Callable[..., list[Event] | None]  # apply an action; a refusal is said in the dock
    _refuse: Callable[[str], None]

    def declarations(self) -> DeclareSpec | None:
        """The ruleset's declare phase as it stands (None for a ruleset without one)."""
        engine = self.controller.engine
        try:
            return engine.ruleset.rounds.declarations(engine)
        except RulesError:
            return None

    def declare(self, cid: str, key: str, confirm: bool = True) -> bool:
        """Declare ``key`` for ``cid`` (a pick in the Declared column or the row's menu): one undoable,
        logged step. During a round the declarations are locked: a change asks first (``confirm``) and
        the log records it as a GM override. A refusal is said in the dock."""
        spec = self.declarations()
        c = self.controller.combatant(cid)
        if spec is None or c is None:
            self._refuse("Nobody declares actions under these rules")
            return False
        if spec.declared.get(cid) == key:
            return True
        if not spec.open and confirm:
            answer = QMessageBox.question(
                self,
                "Change a declaration",
                f"Change {c.name}'s declared action during the round? The log records a GM override.",
                QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
                QMessageBox.StandardButton.No,
            )
            if answer != QMessageBox.StandardButton.Yes:
                self._show_declaration(cid)
                return False
        try:
            action = spec.build(cid, key)
        except RulesError as refused:
            self._refuse(str(refused))
            self._show_declaration(cid)
            return False
        if self._do(action) is None:
            self._show_declaration(cid)
            return False
        return True

    def declare_all(self, key: str | None = None) -> int:
        """Declare ``key`` (the first choice by default) for everyone who must still declare, as one
        undo step; how many were declared. Checked first on a copy: a refusal changes nothing."""
        spec = self.declarations()
        if spec is None or not spec.missing or not spec.choices:
            self._refuse("Everyone has declared")
            return 0
        key = key or spec.choices[0][0]
        label = dict(spec.choices).get(key, key)
        names = self._names(spec.missing)
        if not spec.open:
            answer = QMessageBox.question(
                self,
                "Declare during the round",
                f"Declare {label} for {names} during the round? The log records GM overrides.",
                QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
                QMessageBox.StandardButton.No,
            )
            if answer != QMessageBox.StandardButton.Yes:
                return 0
        try:
            steps = [spec.build(cid, key) for cid in spec.missing]
            engine_dry_run(self.controller.encounter, *steps)(None)
        except RulesError as refused:
            self._refuse(str(refused))
            return 0
        stack = self.controller.undo_stack
        several = len(steps) > 1
        if several:
            stack.beginMacro(f"All: {label} ({len(steps)} declarations)")
        done = 0
        try:
            for step in steps:
                if self._do(step) is None:
                    break
                done += 1
        finally:
            if several:
                stack.endMacro()
        return done

    def declare_combo(self, cid: str) -> QComboBox | None:
        """The Declared column's combo of ``cid``, if it has one."""
        column = self._declared_column
        index = self.tree.turns_model.index_of(cid, column) if column is not None else QModelIndex()
        if not index.isValid():
            return None
        widget = self.tree.indexWidget(index)
        return widget if isinstance(widget, QComboBox) else None

    def row_menu(self, cid: str) -> QMenu | None:
        """The row's context menu: its declaration, then the ruleset's commands on it (None if neither)."""
        c = self.controller.combatant(cid)
        if c is None:
            return None
        engine = self.controller.engine
        menu = QMenu(self)
        menu.setToolTipsVisible(True)
        spec = self.declarations()
        if spec is not None and self._may_declare(spec, c):
            current = spec.declared.get(cid)
            sub = menu.addMenu(f"Declare for {c.name}")
            sub.setToolTipsVisible(True)
            for key, label in spec.choices:
                entry = sub.addAction(label)
                entry.setCheckable(True)
                entry.setChecked(key == current)
                entry.setToolTip(self._declare_tip(spec, c))
                entry.triggered.connect(lambda _=False, key=key: self.declare(cid, key))
        try:
            commands = engine.ruleset.rounds.row_actions(engine, c)
        except RulesError:
            commands = ()
        if commands and not menu.isEmpty():
            menu.addSeparator()
        for command in commands:
            entry = menu.addAction(command.label)
            entry.setToolTip(command.tip)
            entry.setStatusTip(command.tip)
            entry.triggered.connect(lambda _=False, command=command: self.apply_row_action(command))
        if menu.isEmpty():
            menu.deleteLater()
            return None
        return menu

    def show_row_menu(self, cid: str, where: QPoint) -> QMenu | None:
        """Pop up the row's menu at ``where`` (global); the menu shown, or None when it has nothing."""
        menu = self.row_menu(cid)
        if menu is None:
            return None
        menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.context_menu = menu
        menu.destroyed.connect(lambda *_: setattr(self, "context_menu", None))
        menu.popup(where)
        return menu

    def apply_row_action(self, command: Any) -> bool:
        """Apply one of the ruleset's row commands (a ``RowAction``) as one undoable step."""
        try:
            action = command.build()
        except RulesError as refused:
            self._refuse(str(refused))
            return False
        return self._do(action) is not None

    def _name_the_missing(self, then: str) -> None:
        """After a refusal: when declarations are missing, the message names everyone who must still declare."""
        spec = self.declarations()
        if spec is None or not spec.missing:
            return
        by_id = self.controller.encounter.by_id()
        names = [by_id[cid].name if cid in by_id else cid for cid in spec.missing]
        said = self.message
        if not all(name in said for name in names):
            words = f"Declare for: {', '.join(names)} — then {then}"
            self._refuse(f"{said.rstrip('.')}. {words}" if said else words)

    def _may_declare(self, spec: DeclareSpec, c: Any) -> bool:
        """Whether ``c`` gets a declaration: able to act, or one is asked of it or recorded for it."""
        return c.id in spec.missing or c.id in spec.declared or not c.down

    def _declare_tip(self, spec: DeclareSpec, c: Any) -> str:
        if c.id in spec.missing:
            return f"{c.name} must still declare an action before the initiative roll"
        if spec.open:
            return f"{c.name}'s declared action for the coming round: it may change freely until initiative"
        return f"{c.name}'s declared action this round: changing it is a GM override, and the log says so"

    def _names(self, ids: tuple[str, ...] | list[str], limit: int = NAMES_SHOWN) -> str:
        by_id = self.controller.encounter.by_id()
        return names_said([by_id[cid].name if cid in by_id else cid for cid in ids], limit)

    def _missing_words(self, then: str, limit: int = NAMES_SHOWN) -> str:
        """'Declare for: Tombril, Ogre — then roll initiative' ("" when nobody must declare)."""
        spec = self.declare_spec
        if spec is None or not spec.missing:
            return ""
        return f"Declare for: {self._names(spec.missing, limit)} — then {then}"

    def _show_declaration(self, cid: str) -> None:
        """Put ``cid``'s combo back to what is declared (after a refusal, or a change not confirmed)."""
        combo = self.declare_combo(cid)
        spec = self.declarations()
        if combo is None or spec is None:
            return
        key = spec.declared.get(cid)
        with QSignalBlocker(combo):
            combo.setCurrentIndex(combo.findData(key) if key is not None else -1)

    def _on_declare_picked(self, cid: str, combo: QComboBox, index: int) -> None:
        key = combo.itemData(index)
        if isinstance(key, str):
            self.declare(cid, key)

    def _declaration_of(self, c: Any) -> tuple[str | None, bool] | None:
        """What the Declared column shows for ``c``: its declaration and whether one is missing (None: no combo)."""
        spec = self.declare_spec
        if spec is None or not self._may_declare(spec, c):
            return None
        return spec.declared.get(c.id), c.id in spec.missing

    def _refresh_declare_all(self) -> None:
        """The "All: <choice>" button: shown while someone must still declare."""
        spec = self.declare_spec
        button = self.declare_all_button
        shown = spec is not None and bool(spec.missing) and bool(spec.choices)
        button.setVisible(shown)
        if spec is None or not shown:
            return
        label = spec.choices[0][1]
        short = label if len(label) <= 14 else label[:13] + "…"
        button.setText(f"All: {short}")
        names = self._names(spec.missing, limit=len(spec.missing))
        button.setToolTip(
            f"Declare {label} for everyone who has not declared yet ({names}): one undo step. "
            "The arrow offers the other choices"
        )
        button.setAccessibleName(f"Declare {label} for all who have not declared")
        menu = button.menu()
        menu.clear()
        for choice, words in spec.choices:
            entry = menu.addAction(f"All: {words}")
            entry.triggered.connect(lambda _=False, choice=choice: self.declare_all(choice))

    def _add_declare_combo(self, index: QModelIndex, c: Any, spec: DeclareSpec) -> None:
        """The Declared cell: a narrow combo of the choices (empty until declared), or nothing for
        a combatant who cannot act and has no declaration."""
        if not self._may_declare(spec, c):
            return
        combo = QComboBox()
        combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        combo.setMinimumContentsLength(7)
        combo.setFocusPolicy(Qt.FocusPolicy.StrongFocus)  # a wheel over the list scrolls it, never picks
        combo.installEventFilter(self)
        combo.setPlaceholderText("declare…")
        for key, label in spec.choices:
            combo.addItem(label, key)
        current = spec.declared.get(c.id)
        if current is not None and combo.findData(current) < 0:
            combo.addItem(current, current)  # a declaration the choices do not list (kept as it is)
        combo.setCurrentIndex(combo.findData(current) if current is not None else -1)
        missing = c.id in spec.missing
        combo.setProperty("missing", missing)
        combo.setToolTip(self._declare_tip(spec, c))
        combo.setAccessibleName(f"{c.name}'s declared action")
        view = combo.view()
        view.setMinimumWidth(view.sizeHintForColumn(0) + 24)  # the list pops up as wide as its words
        combo.activated.connect(lambda index, cid=c.id, combo=combo: self._on_declare_picked(cid, combo, index))
        self.tree.setIndexWidget(index.siblingAtColumn(2), combo)
