"""The Party dock (RULES §16): the party roster's characters as they stand (health in the ruleset's words,
lasting conditions, dead), its file, and the ways in and out of it.

A character drags onto the map as :func:`lnl_desktop.ui.plumbing.mime.party_mime` (it joins as it stands,
linked to the roster); a combatant dragged here from the Combatants dock is taken into the party (the
same as *Add to the party*). Selecting a character shows it on the Sheet, where it is edited; every
change is one undo step through :meth:`WindowParty.push`, with a line in the round log.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from PySide6.QtCore import (
    QAbstractListModel,
    QMimeData,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
)
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFileDialog,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QListView,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.words import visible
from lnl_desktop.core.errors import RulesError
from lnl_desktop.core.rules.registry import get_ruleset
from lnl_desktop.core.session.roster import ROSTER_SUFFIX, noted, with_characters, without_character
from lnl_desktop.ui.plumbing.controller import TableController
from lnl_desktop.ui.plumbing.mime import MIME_COMBATANT, MIME_PARTY, party_mime, read_combatant
from lnl_desktop.ui.plumbing.party import WindowParty

Index = QModelIndex | QPersistentModelIndex
ID_ROLE = Qt.ItemDataRole.UserRole + 1
FILE_FILTER = f"Party rosters (*{ROSTER_SUFFIX})"


def state_words(ruleset_name: str, c: Any) -> str:
    """A character's state in its ruleset's words: health, lasting conditions, dead."""
    ruleset = get_ruleset(ruleset_name)
    summary = ruleset.views.summary(c)
    health = health_words(ruleset, c, summary)
    words = [health, summary, *gear_words(c)]
    if ruleset.rest is not None and ruleset.rest.dead(c):
        words.insert(0, "DEAD")
    conditions = [str(getattr(w, "value", w)) for w in getattr(c, "conditions", ())]
    if conditions:
        words.append("conditions: " + ", ".join(conditions))
    return " · ".join(w for w in words if w)


def health_words(ruleset: Any, c: Any, summary: str = "") -> str:
    """'SP 55/55, IP 8/14': each health value the GM types, in the ruleset's words, with its maximum; one the
    ruleset's ``summary`` line already shows ("14/14 HP") is not said twice."""
    labels = dict(ruleset.health.kinds(True))
    said = []
    for field, kind in ruleset.health.fields().items():
        top = getattr(c, f"{field}_max", None)
        value = getattr(c, field, None)
        if value is not None and not (top is not None and f"{value}/{top}" in summary):
            said.append(f"{labels.get(kind, field)} {value}" + (f"/{top}" if top is not None else ""))
    return ", ".join(said)


# The states of a weapon or a shield the next fight must know about.
LOST_GEAR = frozenset({"broken", "destroyed"})


def gear_words(c: Any) -> list[str]:
    """'Longsword broken', 'Shield destroyed': gear the stat block says is out of use."""
    said = []
    for name in type(c).model_fields:
        value = getattr(c, name)
        for item in value if isinstance(value, list) else [value]:
            state = getattr(item, "state", None)
            if str(getattr(state, "value", state)) in LOST_GEAR:
                said.append(f"{getattr(item, 'name', name)} {getattr(state, 'value', state)}")
    return said


class PartyModel(QAbstractListModel):
    """The roster's characters; each drags onto the map, and a combatant dropped here joins the party."""

    def __init__(self, party: WindowParty, panel: PartyPanel) -> None:
        super().__init__(panel)
        self.party = party
        self.panel = panel
        party.changed.connect(self.refresh)
        party.controller.encounterReplaced.connect(self.refresh)

    def refresh(self) -> None:
        self.beginResetModel()
        self.endResetModel()

    def characters(self) -> list[Any]:
        return list(self.party.roster.characters) if self.party.roster is not None else []

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 (Qt's default argument)
        return 0 if parent.isValid() else len(self.characters())

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        characters = self.characters()
        if not index.isValid() or not 0 <= index.row() < len(characters) or self.party.roster is None:
            return None
        c = characters[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return f"{visible(c.name)}\n{state_words(self.party.roster.ruleset, c)}"
        if role == Qt.ItemDataRole.ToolTipRole:
            why = self.party.ruleset_mismatch()
            tip = "Drag onto the map to bring it into this encounter as it stands; Enter shows it on the Sheet"
            return f"{visible(c.name)}: {state_words(self.party.roster.ruleset, c)}\n{why or tip}"
        if role == ID_ROLE:
            return c.id
        return None

    def flags(self, index: Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.ItemIsDropEnabled
        flags = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
        if self.party.plays_encounter_ruleset:
            flags |= Qt.ItemFlag.ItemIsDragEnabled
        return flags

    def mimeTypes(self) -> list[str]:
        return [MIME_PARTY, MIME_COMBATANT]

    def mimeData(self, indexes: Sequence[QModelIndex]) -> QMimeData:
        roster = self.party.roster
        for index in indexes:
            if index.isValid() and roster is not None:
                c = self.characters()[index.row()]
                return party_mime(roster.ruleset, roster.version(c.id), c.model_dump(mode="json"))
        return QMimeData()

    def supportedDragActions(self) -> Qt.DropAction:
        return Qt.DropAction.CopyAction

    def supportedDropActions(self) -> Qt.DropAction:
        return Qt.DropAction.CopyAction

    def canDropMimeData(self, data: QMimeData, action: Qt.DropAction, row: int, column: int, parent: Index) -> bool:
        return data.hasFormat(MIME_COMBATANT) and self.party.plays_encounter_ruleset

    def dropMimeData(self, data: QMimeData, action: Qt.DropAction, row: int, column: int, parent: Index) -> bool:
        cid = read_combatant(data)
        return cid is not None and self.panel.add_to_party(cid)


class PartyPanel(QWidget):
    """The roster's characters with New party…, Open party…, New character, Add to the party, Remove."""

    def __init__(self, controller: TableController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Party")
        self.controller = controller
        self.party: WindowParty | None = None
        self.folders: Any = None  # the main window's memory of folders (set by it)
        self.header = QLabel("No party open", self)
        self.header.setWordWrap(True)
        self.list = QListView(self)
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.list.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.list.setDragEnabled(True)
        self.list.setAcceptDrops(True)
        self.list.setDropIndicatorShown(True)
        self.list.setDragDropMode(QAbstractItemView.DragDropMode.DragDrop)
        self.list.setDefaultDropAction(Qt.DropAction.CopyAction)
        self.list.setAlternatingRowColors(True)
        self.list.setWordWrap(True)

        self.new_party_button = self._button("New party…", "Start an empty party of this encounter's ruleset")
        self.open_party_button = self._button("Open party…", f"Open a party roster file ({ROSTER_SUFFIX})")
        self.new_character_button = self._button("New character", "A blank character of the ruleset, named")
        self.add_button = self._button(
            "Add to the party", "Copy the combatant selected in the Combatants dock into the party (or drag it here)"
        )
        self.remove_button = self._button("Remove from the party", "Let the selected character go (Delete; Undo)")
        self.new_party_button.clicked.connect(lambda: self.new_party())
        self.open_party_button.clicked.connect(lambda: self.open_party())
        self.new_character_button.clicked.connect(lambda: self.new_character())
        self.add_button.clicked.connect(lambda: self.add_to_party())
        self.remove_button.clicked.connect(lambda: self.remove_selected())

        remove = QAction("Remove from the party", self.list)
        remove.setShortcut(QKeySequence.StandardKey.Delete)
        remove.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
        remove.triggered.connect(lambda: self.remove_selected())
        self.list.addAction(remove)
        self.list.activated.connect(lambda index: self._pick(index.data(ID_ROLE)))

        files = QHBoxLayout()
        files.addWidget(self.new_party_button)
        files.addWidget(self.open_party_button)
        files.addStretch(1)
        people = QHBoxLayout()
        for button in (self.new_character_button, self.add_button, self.remove_button):
            people.addWidget(button)
        people.addStretch(1)
        # The session's own commands (Rest…) go here: add_action_button.
        self.actions_row = QHBoxLayout()
        self.actions_row.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.header)
        layout.addLayout(files)
        layout.addWidget(self.list, 1)
        layout.addLayout(people)
        layout.addLayout(self.actions_row)
        controller.selectionChanged.connect(lambda _cid: self._refresh_buttons())
        controller.encounterReplaced.connect(self._refresh)
        self._refresh()

    def _button(self, text: str, tip: str) -> QPushButton:
        button = QPushButton(text, self)
        button.setToolTip(tip)
        return button

    def attach_party(self, party: WindowParty) -> None:
        """Show ``party`` (the window's): made by the main window once, after this panel."""
        self.party = party
        self.model = PartyModel(party, self)
        self.list.setModel(self.model)
        self.list.selectionModel().selectionChanged.connect(self._on_rows_selected)
        party.changed.connect(self._refresh)
        self._refresh()

    def add_action_button(self, action: QAction) -> QPushButton:
        """A button for one of the session's commands (Rest…), in the row kept for them."""
        button = QPushButton(action.text(), self)
        button.setToolTip(action.toolTip())
        button.setEnabled(action.isEnabled())
        button.clicked.connect(action.trigger)

        def follow() -> None:  # a disabled Rest… says why, as its menu entry does
            button.setEnabled(action.isEnabled())
            button.setText(action.text())
            button.setToolTip(action.toolTip())

        action.changed.connect(follow)
        self.actions_row.insertWidget(self.actions_row.count() - 1, button)
        return button

    # -- showing -------------------------------------------------------------------------------

    def _refresh(self) -> None:
        party = self.party
        roster = party.roster if party is not None else None
        if party is None or roster is None or party.path is None:
            self.header.setText("No party open: New party… or Open party…")
        else:
            count = len(roster.characters)
            # Rich text: a name typed with "<" or "&" is shown as typed, never read as markup.
            name, file = html.escape(visible(roster.name)), html.escape(visible(party.path.name))
            words = f"<b>{name}</b> ({file}): {count} character{'' if count == 1 else 's'}"
            why = party.ruleset_mismatch()
            said = f"<br><span style='color:#b00020'>{html.escape(visible(why))}</span>" if why else ""
            self.header.setText(words + said)
        self._refresh_buttons()

    def _refresh_buttons(self) -> None:
        party = self.party
        open_ = party is not None and party.roster is not None
        why = party.ruleset_mismatch() if party is not None else "No party open"
        self.new_character_button.setEnabled(open_)
        cid = self.controller.selected
        self.add_button.setEnabled(not why and cid is not None)
        self.add_button.setToolTip(
            why or ("Copy the selected combatant into the party (or drag it here)" if cid else "Select a combatant")
        )
        self.remove_button.setEnabled(open_ and self.selected_id() is not None)
        self.list.setToolTip(why or "Drag a character onto the map; drag a combatant here to take it in")

    def selected_id(self) -> str | None:
        if self.party is None:
            return None
        rows = self.list.selectionModel().selectedRows() if self.list.selectionModel() else []
        return rows[0].data(ID_ROLE) if rows else None

    def _on_rows_selected(self, *_: object) -> None:
        cid = self.selected_id()
        self._refresh_buttons()
        if cid is not None:
            self._pick(cid)

    def _pick(self, cid: str | None) -> None:
        if self.party is not None and cid:
            self.party.pick(cid)

    def select_character(self, cid: str) -> None:
        """Select ``cid``'s row (and so show it on the Sheet)."""
        for row in range(self.model.rowCount()):
            index = self.model.index(row, 0)
            if index.data(ID_ROLE) == cid:
                self.list.setCurrentIndex(index)
                return

    # -- files ---------------------------------------------------------------------------------

    def _start_folder(self) -> str:
        if self.party is not None and self.party.path is not None:
            return str(self.party.path.parent)
        return str(self.controller.base_dir or Path.home())

    def new_party(self, path: Path | None = None) -> bool:
        if self.party is None:
            return False
        if path is None:
            chosen, _ = QFileDialog.getSaveFileName(self, "New party", self._start_folder(), FILE_FILTER)
            if not chosen:
                return False
            path = Path(chosen if chosen.endswith(ROSTER_SUFFIX) else chosen + ROSTER_SUFFIX)
        return self._said(self.party.new_roster(path))

    def open_party(self, path: Path | None = None) -> bool:
        if self.party is None:
            return False
        if path is None:
            chosen, _ = QFileDialog.getOpenFileName(self, "Open party", self._start_folder(), FILE_FILTER)
            if not chosen:
                return False
            path = Path(chosen)
        return self._said(self.party.open_roster(path))

    def _said(self, reason: str | None) -> bool:
        if reason is not None:
            self.controller.message.emit(reason)
            QMessageBox.warning(self, "Party", reason)
            return False
        return True

    # -- characters ----------------------------------------------------------------------------

    def new_character(self, name: str | None = None) -> str | None:
        """A blank character of the party's ruleset named ``name`` (asked when None): its id, or None."""
        party = self.party
        if party is None or party.roster is None:
            return None
        if name is None:
            name, ok = QInputDialog.getText(self, "New character", "Name:")
            if not ok:
                return None
        name = name.strip()
        ruleset = get_ruleset(party.roster.ruleset)
        taken = {c.id for c in party.roster.characters}
        data = {**ruleset.views.new_combatant(), "name": name, "side": "Party"}
        data["id"] = _new_id(name, taken)
        try:
            c = ruleset.stat_block.model_validate(data)
            after = with_characters(party.roster, [c])
        except (RulesError, ValueError) as error:
            self._refuse(f"New character: {_first_line(error)}")
            return None
        line = f"{c.name}: a new character"
        if not party.push(
            f"New party character {c.name}", noted(after, "added", [line]), act.PartyNote("added", (line,))
        ):
            return None
        self.select_character(c.id)
        return c.id

    def add_to_party(self, cid: str | None = None) -> bool:
        """The combatant ``cid`` (the selected one) copied into the party and linked to it, one undo step."""
        cid = cid or self.controller.selected
        return self.party is not None and cid is not None and self.party.take_in(cid)

    def remove_selected(self, cid: str | None = None) -> bool:
        """Let the selected character go from the party (its combatant here unlinked), one undo step."""
        party = self.party
        cid = cid or self.selected_id()
        if party is None or party.roster is None or cid is None:
            return False
        c = party.roster.character(cid)
        if c is None:
            return False
        line = f"{c.name}: let go from the party"
        actions: list[act.Action] = []
        if cid in self.controller.encounter.party_links:
            actions.append(act.LinkParty({cid: None}))
        if party.picked_id == cid:
            party.pick(None)
        after = noted(without_character(party.roster, cid), "removed", [line])
        return party.push(f"Remove {c.name} from the party", after, act.PartyNote("removed", (line,)), actions)

    def _refuse(self, reason: str) -> None:
        self.controller.refusal = reason
        self.controller.message.emit(reason)
        self.controller.refused.emit(reason)


def _new_id(name: str, taken: set[str]) -> str:
    base = "".join(ch if ch.isalnum() else "-" for ch in name.lower()).strip("-") or "character"
    cid, n = base, 2
    while cid in taken:
        cid, n = f"{base}-{n}", n + 1
    return cid


def _first_line(error: Exception) -> str:
    return str(error).splitlines()[0] if str(error) else type(error).__name__
