"""The window's session (RULES §16): File ▸ Open session…, New session…, Export session log…; Combat ▸
End fight and carry on (offered by itself when one side is out); Rest…; the Session dock's panel and
opening one of the night's encounters with the party brought in.

The roster and the one undo step that changes it with the encounter are the window's
:class:`~lnl_desktop.ui.plumbing.party.WindowParty`; this module asks it, never writes the roster
file itself. The session layer (``core.session``) and the dialogs are loaded when first used.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, QSettings, QStandardPaths, Qt, QTimer
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QFileDialog, QInputDialog, QMainWindow, QMessageBox, QVBoxLayout, QWidget

from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.model import Phase
from lnl_desktop.core.errors import RulesError
from lnl_desktop.core.rules.registry import get_ruleset

if TYPE_CHECKING:
    from lnl_desktop.core.session.party import Conflict
    from lnl_desktop.ui.dialogs.carry_on import CarryOnOffer
    from lnl_desktop.ui.docks.session import SessionPanel
    from lnl_desktop.ui.plumbing.controller import TableController
    from lnl_desktop.ui.plumbing.party import WindowParty
    from lnl_desktop.ui.plumbing.session_odds import SessionOddsService
    from lnl_desktop.ui.window.document import Document

SESSION_KEY = "session/folder"  # QSettings: the session folder open last, reopened at start
CARRY_ON_TEXT = "Carry the party on"
CARRY_ON_SHORTCUT = "Ctrl+Shift+E"
LOG_FILTER = "Markdown (*.md);;HTML (*.html)"
# The demo sessions resources/sessions holds, one per ruleset family, and where their copies go.
DEMO_SESSIONS = ("lnl_old_tower", "osr_hobgoblin_ford", "d10_mill_road")
DEMO_FOLDER = "Laurels & Loot demo sessions"


class WindowSession(QObject):
    """The session's actions and the Session dock's panel, for one main window."""

    def __init__(
        self,
        window: QMainWindow,
        controller: TableController,
        document: Document,
        party: WindowParty,
        settings: QSettings,
    ) -> None:
        super().__init__(window)
        self.window = window
        self.controller = controller
        self.document = document
        self.party = party
        self.settings = settings
        self._panel: SessionPanel | None = None
        self._odds: SessionOddsService | None = None
        self._offer: CarryOnOffer | None = None
        self._offered = False  # "one side is out" offered once per fight
        self.last_refusal = ""
        # The conflicts asked: {character id: fight wins} or None (cancelled). Tests may answer it.
        self.ask_conflicts: Callable[[Sequence[Conflict], str], dict[str, bool] | None] = self._ask_conflicts
        self.summary_box: QMessageBox | None = None
        self._build_actions()
        for signal in (controller.encounterReplaced, party.changed, document.titleChanged):
            signal.connect(self.refresh)
        controller.eventsApplied.connect(self._events)
        controller.encounterReplaced.connect(self._fight_replaced)
        self.refresh()
        QTimer.singleShot(0, self.reopen)  # after the party's own reopening: the session wins

    # -- actions -------------------------------------------------------------------------------

    def _action(self, text: str, slot: Callable[[], object], shortcut: str | None, tip: str) -> QAction:
        action = QAction(text, self.window)
        if shortcut:
            action.setShortcut(QKeySequence(shortcut))
        action.setStatusTip(tip)
        action.setToolTip(tip)
        action.setData(tip)  # the tip when it can act; a disabled one says why instead
        action.triggered.connect(lambda _=False: slot())
        return action

    def _build_actions(self) -> None:
        self.open_session_action = self._action(
            "Open &session…",
            self.open_session,
            None,
            "Open a session folder: the party roster and the night's encounters",
        )
        self.new_session_action = self._action(
            "New s&ession…",
            self.new_session,
            None,
            "Make a session in a folder: an empty party of this encounter's ruleset and the folder's encounters",
        )
        self.export_log_action = self._action(
            "Export session &log…",
            self.export_log,
            None,
            "Save every fight and rest of the session in one Markdown or HTML file",
        )
        self.carry_on_action = self._action(
            "End fight and &carry on",
            self.carry_on,
            CARRY_ON_SHORTCUT,
            "End the fight and write each party character's state back to the roster, with a summary (undoable)",
        )
        self.rest_action = self._action(
            "R&est…", self.rest, None, "A rest for the whole party or chosen characters, as the ruleset says (undoable)"
        )
        self.open_next_action = self._action(
            "Open &next encounter",
            self.open_next,
            None,
            "Open the session's first encounter not yet played, with the party brought in",
        )

    @staticmethod
    def _able(action: QAction, reason: str) -> None:
        """Enabled with its own tip, or disabled with the reason in its tip."""
        action.setEnabled(not reason)
        tip = reason or str(action.data())
        action.setToolTip(tip)
        action.setStatusTip(tip)

    def refresh(self) -> None:
        """The actions' enabled state and the Session dock, after the encounter or the party changed."""
        self.refresh_actions()
        if self._panel is not None:
            self._panel.show_session(self.party.session, self.party.roster, self.current_name())

    def refresh_actions(self) -> None:
        self._able(self.carry_on_action, self.carry_on_reason())
        self._able(self.rest_action, self.rest_reason())
        self._able(self.export_log_action, "" if self.party.session is not None else "Open a session first")
        self._able(self.open_next_action, self.open_next_reason())

    def current_name(self) -> str | None:
        """The session's encounter open in the window (its file name), or None."""
        folder, path = self.party.session, self.document.path
        if folder is None or path is None:
            return None
        name = path.name
        inside_folder = path.resolve().parent == folder.folder
        return name if inside_folder and name in folder.session.encounters else None

    def _refuse(self, title: str, reason: str) -> None:
        self.last_refusal = reason
        self.controller.message.emit(f"{title}: {reason}")
        QMessageBox.warning(self.window, title, reason)

    # -- the Session dock ------------------------------------------------------------------------

    def add_dock(self, add: Callable[[str, QWidget, Qt.DockWidgetArea, str], None], dock: Callable[[], Any]) -> None:
        """The Session dock, through the window's ``add`` (one name on its tab and in the View menu); its
        panel made when the dock first shows (``dock()``: the dock), the worker with it."""
        holder = QWidget()
        QVBoxLayout(holder).setContentsMargins(0, 0, 0, 0)
        add("Session", holder, Qt.DockWidgetArea.RightDockWidgetArea, "")
        made = dock()

        def shown(visible: bool) -> None:
            if visible and self._panel is None:
                holder.layout().addWidget(self.panel())

        made.visibilityChanged.connect(shown)
        made.toggleViewAction().setStatusTip("Show or hide the Session dock: the night's encounters and their odds")

    def add_rest_button(self, party_dock: Any) -> None:
        """Rest… as a button of the Party dock, once its panel is made (it is built when first shown)."""

        def shown(visible: bool) -> None:
            panel = party_dock.widget()
            if visible and hasattr(panel, "add_action_button") and not getattr(panel, "rest_button", None):
                panel.rest_button = panel.add_action_button(self.rest_action)

        party_dock.visibilityChanged.connect(shown)
        shown(party_dock.isVisible())

    def panel(self) -> SessionPanel:
        """The Session dock's panel, made when first shown (its odds worker with it)."""
        if self._panel is None:
            from lnl_desktop.ui.docks.session import SessionPanel
            from lnl_desktop.ui.plumbing.session_odds import SessionOddsService

            self._odds = SessionOddsService(self)
            self._panel = SessionPanel(self._odds)
            self._panel.openRequested.connect(self.open_encounter)
            self._panel.show_session(self.party.session, self.party.roster, self.current_name())
        return self._panel

    # -- the session folder ----------------------------------------------------------------------

    def open_session(self) -> bool:
        start = str(self.settings.value(SESSION_KEY, "") or self.document.folders.start())
        folder = QFileDialog.getExistingDirectory(self.window, "Open session folder", start)
        return bool(folder) and self.open_session_folder(Path(folder))

    def open_session_folder(self, folder: Path) -> bool:
        """Open the session in ``folder``: its roster becomes the window's party. Refused with the reason
        (nothing changes) for a folder that is not a session, or names a file outside itself."""
        from lnl_desktop.core.session.folder import open_session

        try:
            session = open_session(folder)
        except RulesError as error:
            self._refuse("Cannot open the session", str(error))
            return False
        reason = self.party.open_session(session)
        if reason is not None:
            self._refuse("Cannot open the session", reason)
            return False
        self.settings.setValue(SESSION_KEY, str(session.folder))
        self.controller.message.emit(
            f"Opened the session {session.session.name}: {len(session.session.encounters)} encounters"
        )
        self.refresh()
        return True

    # -- the demo sessions --------------------------------------------------------------------

    def demo_sessions(self) -> list[tuple[str, str]]:
        """(folder, the session's name) of each demo session the program carries."""
        from lnl_desktop.core.session.folder import SESSION_FILE, open_session
        from lnl_desktop.paths import resource

        found = []
        for name in DEMO_SESSIONS:
            if resource("sessions", name, SESSION_FILE).is_file():
                try:
                    found.append((name, open_session(resource("sessions", name)).session.name))
                except RulesError:
                    continue  # a broken install: the entry is left out rather than offered to fail
        return found

    def open_demo_session(self, name: str, root: Path | None = None) -> bool:
        """The demo session ``name`` copied into the GM's documents (``root``: "Laurels & Loot demo sessions"
        there) and opened. A copy made before is opened as it was left: the GM's night is never overwritten."""
        import shutil

        from lnl_desktop.core.session.folder import SESSION_FILE
        from lnl_desktop.paths import resource

        source = resource("sessions", name)
        if root is None:
            documents = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation)
            root = Path(documents or Path.home()) / DEMO_FOLDER
        target = root / name
        if not (target / SESSION_FILE).is_file():
            try:
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copytree(source, target, dirs_exist_ok=True)
            except OSError as error:
                self._refuse("Cannot open the demo session", f"{target} could not be written: {error.strerror}")
                return False
        else:
            self.controller.message.emit(f"Opening your copy of the demo session in {target}")
        return self.open_session_folder(target)

    def reopen(self) -> None:
        """The session open last time, if its folder is still one (said in the status bar if not)."""
        remembered = self.settings.value(SESSION_KEY, "")
        if self.party.session is not None:
            return
        if isinstance(remembered, str) and remembered and Path(remembered, "session.json").exists():
            from lnl_desktop.core.session.folder import open_session

            try:
                session = open_session(remembered)
            except RulesError as error:
                self.controller.message.emit(f"The last session was not reopened: {error}")
                return
            if self.party.open_session(session) is None:
                self.refresh()

    def new_session(self) -> bool:
        folder = QFileDialog.getExistingDirectory(self.window, "New session in folder", self.document.folders.start())
        if not folder:
            return False
        name, ok = QInputDialog.getText(self.window, "New session", "The session's name:", text=Path(folder).name)
        return ok and self.new_session_in(Path(folder), name.strip() or "Session")

    def new_session_in(self, folder: Path, name: str) -> bool:
        """A session in ``folder`` for this encounter's ruleset, its .lnl files listed, then opened."""
        from lnl_desktop.core.session.folder import new_session

        try:
            made = new_session(folder, self.controller.encounter.ruleset, name)
        except (RulesError, ValueError, OSError) as error:
            self._refuse("Cannot make the session", str(error))
            return False
        return self.open_session_folder(made.folder)

    def export_log(self) -> bool:
        folder = self.party.session
        if folder is None:
            return False
        start = str(folder.folder / f"{folder.session.name}.md")
        name, chosen = QFileDialog.getSaveFileName(self.window, "Export session log", start, LOG_FILTER)
        if not name:
            return False
        path = Path(name)
        if path.suffix.lower() not in (".md", ".html", ".htm"):
            path = path.with_suffix(".html" if chosen.startswith("HTML") else ".md")
        return self.export_log_to(path)

    def export_log_to(self, path: Path) -> bool:
        """The session log (every fight and rest, in order) written to ``path``, Markdown or HTML by suffix."""
        from lnl_desktop.core.session.log import export_session_log

        folder, roster = self.party.session, self.party.roster
        if folder is None or roster is None:
            self._refuse("No session log", "Open a session first")
            return False
        try:
            current = self.current_name()
            # The fight open now as the GM sees it, saved or not.
            open_now = {current: self.controller.encounter} if current is not None else {}
            export_session_log(folder, roster, path, open_now)
        except (RulesError, OSError) as error:
            self._refuse("Session log not written", str(error))
            return False
        self.controller.message.emit(f"Session log written to {path.name}")
        return True

    # -- opening an encounter with the party ----------------------------------------------------------

    def open_next_reason(self) -> str:
        if self.party.session is None:
            return "Open a session first (File ▸ Open session…)"
        if self._next_name() is None:
            return "Every encounter of the session has been played"
        return ""

    def _next_name(self) -> str | None:
        from lnl_desktop.ui.docks.session import played_encounters

        folder = self.party.session
        if folder is None:
            return None
        played = played_encounters(self.party.roster)
        current = self.current_name()
        if current is not None:
            played.add(current)
        return folder.next_encounter(played)

    def open_next(self) -> bool:
        name = self._next_name()
        return name is not None and self.open_encounter(name)

    def open_encounter(self, name: str) -> bool:
        """The session's encounter ``name`` in the window, the party brought in (unsaved until Save);
        unsaved work is asked about first. A file that cannot be read: the reason, nothing changes."""
        from lnl_desktop.core.session.folder import inside
        from lnl_desktop.core.session.party import bring_in

        folder, roster = self.party.session, self.party.roster
        if folder is None or roster is None:
            self._refuse("Cannot open the encounter", "Open a session first")
            return False
        try:
            path = inside(folder.folder, name)
            saved = folder.load_encounter(name)
            brought = bring_in(saved, roster)
        except RulesError as error:
            self._refuse("Cannot open the encounter", str(error))
            return False
        if not self.document.confirm_discard() or not self.document.load(path):
            return False
        self.document.replace(brought, path)
        if brought.model_dump() != saved.model_dump():
            # The party came in: that is unsaved work until Save (its recovery copy written now).
            self.controller.undo_stack.resetClean()
            self.document.autosave()
            self.document.titleChanged.emit()
        self.controller.message.emit(f"Opened {name} with the party brought in")
        self.refresh()
        return True

    # -- carrying the party on ------------------------------------------------------------------

    def carry_on_reason(self) -> str:
        """Why the fight cannot be carried on now ("" when it can)."""
        encounter = self.controller.encounter
        if self.party.roster is None:
            return "No party is open: open a session or a party first"
        if self.party.roster.ruleset != encounter.ruleset:
            return self.party.ruleset_mismatch() or "The party plays another ruleset"
        linked = [c for c in encounter.combatants if c.id in encounter.party_links]
        if not linked:
            return (
                "No party character is in this fight: bring the party in (Session dock) or add them from the Party dock"
            )
        return ""

    def fight_name(self) -> str:
        path = self.document.path
        return path.name if path is not None else self.controller.encounter.name

    def carry_on(self) -> bool:
        """End the fight (if it runs) and write each party character back, in one undo step; the
        conflicts asked first; the summary shown after."""
        from lnl_desktop.core.session.party import carry_on

        reason = self.carry_on_reason()
        if reason:
            self._refuse("Cannot carry the party on", reason)
            return False
        self.party.refresh_from_disk()  # another window's carry-on meanwhile: asked about, not overwritten
        assert self.party.roster is not None
        encounter, roster, fight = self.controller.encounter, self.party.roster, self.fight_name()
        try:
            result = carry_on(encounter, roster, fight)
            if result.conflicts:
                decided = self.ask_conflicts(result.conflicts, fight)
                if decided is None:
                    self.controller.message.emit("Not carried on: the conflicts were left unanswered")
                    return False
                result = carry_on(encounter, roster, fight, decided)
        except RulesError as error:
            self._refuse("Cannot carry the party on", str(error))
            return False
        actions: list[Any] = []
        if encounter.combat.phase is Phase.FIGHTING:
            actions.append(act.EndCombat())
        if result.links:
            actions.append(act.LinkParty(dict(result.links)))
        note = act.PartyNote("carried on", tuple(result.lines))
        if not self.party.push(CARRY_ON_TEXT, result.roster, note=note, actions=actions):
            return False
        if self._offer is not None:
            self._offer.hide()
        from lnl_desktop.ui.dialogs.carry_on import show_summary

        self.summary_box = show_summary(self.window, result.lines)
        return True

    def _ask_conflicts(self, conflicts: Sequence[Conflict], fight: str) -> dict[str, bool] | None:
        from lnl_desktop.ui.dialogs.carry_on import ConflictsDialog

        dialog = ConflictsDialog(conflicts, fight, self.window)
        return dialog.decided() if dialog.exec() else None

    # -- one side out: the offer -----------------------------------------------------------------

    def _fight_replaced(self) -> None:
        self._offered = False
        if self._offer is not None:
            self._offer.hide()

    def side_out(self) -> str:
        """The side with no one standing on the map ("" while both stand, or outside a fight)."""
        encounter = self.controller.encounter
        if encounter.combat.phase is not Phase.FIGHTING:
            return ""
        fights = self.controller.engine.ruleset.fights
        on_map = [c for c in encounter.combatants if c.id in encounter.tokens]
        for side in {c.side for c in on_map}:
            ones = [c for c in on_map if c.side is side]
            if all((fights.out(c) if fights is not None else c.down) for c in ones):
                return str(side.value)
        return ""

    def _events(self, events: list[object]) -> None:
        self.refresh_actions()
        if self.controller.encounter.combat.phase is not Phase.FIGHTING:
            self._offered = False  # a new fight offers again
            return
        if self._offered or self.carry_on_reason():
            return
        side = self.side_out()
        if side:
            self._offered = True
            self.offer_bar().offer(f"The {side} are out of the fight.")

    def offer_bar(self) -> CarryOnOffer:
        if self._offer is None:
            from lnl_desktop.ui.dialogs.carry_on import CarryOnOffer

            self._offer = CarryOnOffer(self.window.centralWidget())
            self._offer.taken.connect(self.carry_on)
        return self._offer

    # -- rest ----------------------------------------------------------------------------------

    def rest_reason(self) -> str:
        """Why the party cannot rest now ("" when it can); the dialog is loaded only when asked for."""
        roster = self.party.roster
        if roster is None:
            return "Open or make a party first (Party dock, or File ▸ Open session…)"
        ruleset = get_ruleset(roster.ruleset)
        if ruleset.rest is None:
            return f"{ruleset.title} has no rules for rest between fights"
        return "" if roster.characters else "The party has no characters yet"

    def rest(self) -> bool:
        """The Rest dialog; OK: the rest in one undo step with its log line."""
        from lnl_desktop.ui.dialogs.rest import RestDialog

        reason = self.rest_reason()
        if reason:
            self._refuse("No rest", reason)
            return False
        self.party.refresh_from_disk()  # rest the party as it stands now, whichever window wrote it last
        assert self.party.roster is not None
        dialog = RestDialog(self.party.roster, self.window)
        self.rest_dialog = dialog  # for tests: the dialog while it is open
        try:
            if not dialog.exec():
                return False
        finally:
            self.rest_dialog = None
        return self.apply_rest(dialog)

    def apply_rest(self, dialog: Any) -> bool:
        rested = dialog.rested()
        if rested is None:
            return False
        words = dialog.kind_box.currentText()
        note = act.PartyNote("rest", tuple(rested.lines))
        return self.party.push(words, rested.roster, note=note)
