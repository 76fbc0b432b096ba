"""The "Rules call for" dock: what the rules ask of the GM now, one card each.

A ruleset queues items in ``combat.pending`` (a counter-attack after a move, a death save at 0 HP,
a morale check) and says how to ask about each one (``ruleset.prompts.prompt``): a title, the stakes, the
GM's inputs (:class:`~lnl_desktop.core.rules.base.Setting`) and the choices, each of which builds
the engine action that takes the item up. :class:`PromptsPanel` lists the queue with those inputs
and buttons, plus "Skip" (the generic ``SkipPending``, logged and undoable). A choice that rolls
offers the app's dice or the GM's own ("Type faces…", checked by a dry run on a copy of the
encounter before anything is applied). Everything goes through the controller: one undo step
each, and a refused action says why on its card and changes nothing.

An urgent item (a death save) is asked at once, when it is queued, in a :class:`PromptDialog`
that takes the focus without blocking the window; meanwhile its card in the dock is folded to its
title (the question is in one place at a time), and closing the dialog leaves the item in the queue.

The same card (:class:`~lnl_desktop.ui.docks.prompt_card.SpecCard`) answers a ruleset's *tools*,
the rolls the GM calls for on demand with no queued item (``ruleset.prompts.tools``: a morale check from
the Combat menu; ``ruleset.prompts.combatant_tools``: a saving throw from the Sheet): a
:class:`ToolDialog` shows it without Skip, with Close, and the roll's line once rolled.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from lnl_desktop.core.encounter.actions import SkipPending
from lnl_desktop.core.encounter.events import Event, Undone
from lnl_desktop.core.encounter.model import Pending
from lnl_desktop.core.errors import RulesError
from lnl_desktop.core.rules.specs import PromptSpec
from lnl_desktop.ui.docks.prompt_card import SpecCard
from lnl_desktop.ui.plumbing import style
from lnl_desktop.ui.plumbing.controller import TableController

NOTHING_WAITING = "Nothing waiting: the rules call for nothing now."
URGENT = "Now"  # the words that mark an urgent item (not only its colour)

# -- what waits ------------------------------------------------------------------------------------


def _key(item: Pending) -> str:
    """What one item's inputs are remembered by while it waits (its index moves as others go)."""
    return item.model_dump_json()


def ask_spec(controller: TableController, item: Pending) -> PromptSpec:
    """How the ruleset asks about ``item``; its own words alone if the ruleset cannot say more."""
    try:
        return controller.engine.ruleset.prompts.prompt(controller.engine, item)
    except (RulesError, ValueError):
        return PromptSpec(item.kind.capitalize(), item.text, (), ())


# -- one waiting item ------------------------------------------------------------------------------


class PromptCard(SpecCard):
    """One waiting item of the queue: its question (``ruleset.prompts.prompt``) and Skip. The item is
    looked up again at each click, so a card never acts on an item that has gone or moved."""

    def __init__(
        self,
        controller: TableController,
        index: int,
        item: Pending,
        values: dict[str, Any] | None = None,
        parent: QWidget | None = None,
        *,
        heading: bool = True,
    ) -> None:
        super().__init__(
            controller,
            ask_spec(controller, item),
            values,
            parent,
            heading=heading,
            who=item.who,
            title_tip=(
                "The rules call for this at once: take it or skip it"
                if item.urgent
                else "Waiting for the GM: take it or skip it"
            ),
        )
        self.index = index
        self.item = item
        self.setProperty("urgent", item.urgent)
        if item.urgent:
            self.title_label.setText(f"{URGENT}: {self.spec.title}")

        skip_row = QHBoxLayout()
        skip_row.setSpacing(4)
        self.skip_button = QPushButton("Skip", self)
        self.skip_button.setToolTip("Pass over it: it leaves the queue and the log says so (undoable)")
        self.skip_button.clicked.connect(lambda: self.skip())
        self.reason_edit = QLineEdit(self)
        self.reason_edit.setPlaceholderText("why (optional)")
        self.reason_edit.setToolTip("The reason the log gives for the skip")
        self.reason_edit.returnPressed.connect(lambda: self.skip())
        skip_row.addWidget(self.skip_button)
        skip_row.addWidget(self.reason_edit, 1)
        self.card_layout.insertLayout(self.card_layout.indexOf(self.refusal_label), skip_row)

        # While the item is asked in its own window, the card keeps only its title and this line: the
        # question, its inputs and its buttons are in one place at a time.
        self.elsewhere_row = QWidget(self)
        elsewhere = QHBoxLayout(self.elsewhere_row)
        elsewhere.setContentsMargins(0, 0, 0, 0)
        self.elsewhere_label = QLabel("Asked in its own window.", self.elsewhere_row)
        self.elsewhere_label.setEnabled(False)
        self.show_button = QPushButton("Show it", self.elsewhere_row)
        self.show_button.setToolTip("Bring the window that asks it to the front")
        elsewhere.addWidget(self.elsewhere_label, 1)
        elsewhere.addWidget(self.show_button)
        self.card_layout.insertWidget(1, self.elsewhere_row)
        self.elsewhere_row.hide()
        self._hidden_here: list[QWidget] = []

    def set_asked_elsewhere(self, asked: bool) -> None:
        """Fold the card to its title while a window asks the same question (``asked``), or unfold it."""
        if asked == self.elsewhere_row.isVisibleTo(self):
            return
        if asked:
            keep = (self.title_label, self.elsewhere_row)
            self._hidden_here = [
                w
                for w in self.findChildren(QWidget, options=Qt.FindChildOption.FindDirectChildrenOnly)
                if w not in keep and not w.isHidden()
            ]
            for widget in self._hidden_here:
                widget.hide()
        else:
            for widget in self._hidden_here:
                widget.show()
            self._hidden_here = []
        self.elsewhere_row.setVisible(asked)

    def asked_elsewhere(self) -> bool:
        """Whether the card is folded: its question is asked in a window of its own."""
        return self.elsewhere_row.isVisibleTo(self)

    def current_index(self) -> int | None:
        """Where the item is in the queue now; None once it has been taken or skipped."""
        pending = self.controller.encounter.combat.pending
        if 0 <= self.index < len(pending) and pending[self.index] == self.item:
            return self.index
        for i, other in enumerate(pending):
            if other == self.item:
                return i
        return None

    def fresh_spec(self) -> PromptSpec | None:
        index = self.current_index()
        if index is None:
            self.refuse("It is no longer waiting (taken, skipped or undone)")
            return None
        self.index = index
        return ask_spec(self.controller, self.controller.encounter.combat.pending[index])

    def skip(self) -> list[Event] | None:
        """Pass over the item: ``SkipPending``, with the reason typed (if any)."""
        index = self.current_index()
        if index is None:
            self.refuse("It is no longer waiting (taken, skipped or undone)")
            return None
        return self._apply(SkipPending(index, self.reason_edit.text().strip()), None)


# -- the queue ---------------------------------------------------------------------------------


class PromptsPanel(QWidget):
    """The queue of what the rules call for, one :class:`PromptCard` each; "Nothing waiting" when empty.

    It is redrawn from the engine after every event (undo included). Items that appear are
    announced with :attr:`queued`; an urgent one is asked at once in a :class:`PromptDialog`
    (one at a time) while :attr:`auto_ask` is on."""

    # The queue's indices of items just queued (not those an undo brought back).
    queued = Signal(list)
    # How many items wait, after each change.
    countChanged = Signal(int)

    _STYLE = """
        QFrame#prompt_card { border: 1px solid #9a9a9a; border-radius: 4px; }
        QFrame#prompt_card[urgent="true"] { border: 2px solid #EE7733; border-left: 6px solid #EE7733; }
        QLabel#prompt_title { font-weight: bold; }
    """

    def __init__(self, controller: TableController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Rules call for")
        self.scaled_style = style.keep_scaled(self, self._STYLE)  # follows the UI scale
        self.controller = controller
        self.auto_ask = True
        self.cards: list[PromptCard] = []
        self.dialog: PromptDialog | None = None
        self._to_ask: list[Pending] = []
        self._values: dict[str, dict[str, Any]] = {}
        self._known: list[Pending] = list(controller.encounter.combat.pending)

        self.empty_label = QLabel(NOTHING_WAITING, self)
        self.empty_label.setWordWrap(True)
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.empty_label.setEnabled(False)
        self.scroll = QScrollArea(self)
        self.scroll.setWidgetResizable(True)
        self.scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list_widget = QWidget(self.scroll)
        self.list_layout = QVBoxLayout(self.list_widget)
        self.list_layout.setContentsMargins(0, 0, 0, 0)
        self.list_layout.setSpacing(6)
        self.list_layout.addStretch(1)
        self.scroll.setWidget(self.list_widget)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.empty_label)
        layout.addWidget(self.scroll, 1)

        controller.eventsApplied.connect(self._on_events)
        controller.encounterReplaced.connect(self._on_replaced)
        self.refresh()

    # -- what waits --------------------------------------------------------------------------

    @property
    def pending(self) -> list[Pending]:
        return list(self.controller.encounter.combat.pending)

    def card_for(self, index: int) -> PromptCard:
        return self.cards[index]

    def refresh(self) -> None:
        """Build the cards again from the queue (the GM's inputs on waiting items are kept)."""
        pending = self.pending
        for card in self.cards:
            # Not unparented: a card may be inside its own button's click (it applied the action).
            self.list_layout.removeWidget(card)
            card.hide()
            card.deleteLater()
        live = {_key(item) for item in pending}
        self._values = {k: v for k, v in self._values.items() if k in live}
        self.cards = []
        for index, item in enumerate(pending):
            card = PromptCard(self.controller, index, item, self._values.setdefault(_key(item), {}), self.list_widget)
            card.show_button.clicked.connect(self._show_dialog)
            self.list_layout.insertWidget(index, card)
            self.cards.append(card)
        self.empty_label.setVisible(not pending)
        self.scroll.setVisible(bool(pending))
        self._fold_asked()
        self.countChanged.emit(len(pending))

    def _fold_asked(self) -> None:
        """The card of the item a dialog asks about is folded to its title: one question, one place."""
        asked = self.dialog.item if self.dialog is not None and self.dialog.isVisible() else None
        for card in self.cards:
            card.set_asked_elsewhere(asked is not None and card.item == asked)

    def _show_dialog(self) -> None:
        if self.dialog is not None:
            self.dialog.ask()

    def _on_events(self, events: list[Event]) -> None:
        pending = self.pending
        if not pending and not self._known and not self.cards:
            return  # nothing waited and nothing waits: the common case costs nothing
        fresh = _new_items(self._known, pending)
        brought_back = bool(events) and all(isinstance(e, Undone) for e in events)
        self._known = pending
        self.refresh()
        if fresh and not brought_back:
            self.queued.emit(fresh)
            if self.auto_ask:
                self._to_ask += [pending[i] for i in fresh if pending[i].urgent]
                self._ask_next()

    def _on_replaced(self) -> None:
        self._to_ask = []
        if self.dialog is not None:
            self.dialog.reject()
        self._known = self.pending
        self.refresh()

    # -- urgent items ------------------------------------------------------------------------

    def ask(self, index: int) -> PromptDialog:
        """Ask about the item at ``index`` in a dialog of its own, at once (it takes the focus)."""
        item = self.pending[index]
        if self.dialog is not None:
            self.dialog.finished.disconnect(self._dialog_done)
            self.dialog.reject()
        dialog = PromptDialog(self.controller, item, self._values.setdefault(_key(item), {}), self.window())
        dialog.finished.connect(self._dialog_done)
        self.dialog = dialog
        dialog.ask()
        self._fold_asked()
        return dialog

    def _ask_next(self) -> None:
        if self.dialog is not None:
            return  # one question at a time: the next comes when this one is closed
        pending = self.pending
        while self._to_ask:
            item = self._to_ask.pop(0)
            if item in pending:
                self.ask(pending.index(item))
                return

    def _dialog_done(self, result: int) -> None:
        dialog, self.dialog = self.dialog, None
        if dialog is not None:
            dialog.deleteLater()
        self._fold_asked()  # closed with the item still waiting: its card unfolds in the dock
        self._ask_next()


def _new_items(before: list[Pending], after: list[Pending]) -> list[int]:
    """The indices in ``after`` of the items that were not in ``before`` (as many times)."""
    left = list(before)
    fresh = []
    for index, item in enumerate(after):
        if item in left:
            left.remove(item)
        else:
            fresh.append(index)
    return fresh


class PromptDialog(QDialog):
    """One urgent item asked at once: the same inputs and choices as its card, in a window that
    takes the focus but blocks nothing. It closes when the item is taken or skipped (here or
    elsewhere); closing it by hand leaves the item waiting in the dock."""

    def __init__(
        self,
        controller: TableController,
        item: Pending,
        values: Mapping[str, Any] | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.controller = controller
        self.item = item
        self._values: dict[str, Any] = values if isinstance(values, dict) else dict(values or {})
        self.setModal(False)
        self.setWindowModality(Qt.WindowModality.NonModal)
        self.setMinimumWidth(380)
        self.scaled_style = style.keep_scaled(self, PromptsPanel._STYLE)
        self.heading = QLabel(self)
        self.heading.setObjectName("prompt_title")
        self.heading.setWordWrap(True)
        self.note = QLabel("Close it to leave it waiting in the “Rules call for” dock.", self)
        self.note.setWordWrap(True)
        self.note.setEnabled(False)
        self._layout = QVBoxLayout(self)
        self._layout.addWidget(self.heading)
        self.card: PromptCard | None = None
        self._layout.addWidget(self.note)
        self._build()
        controller.eventsApplied.connect(self._on_events)
        controller.encounterReplaced.connect(self.reject)
        self.finished.connect(self._disconnect)

    def _index(self) -> int | None:
        pending = self.controller.encounter.combat.pending
        return next((i for i, other in enumerate(pending) if other == self.item), None)

    def _build(self) -> None:
        index = self._index()
        if index is None:
            return
        card = PromptCard(self.controller, index, self.item, self._values, self, heading=False)
        if self.card is not None:
            self._layout.replaceWidget(self.card, card)
            self.card.hide()
            self.card.deleteLater()
        else:
            self._layout.insertWidget(1, card)
        self.card = card
        title = card.spec.title
        self.setWindowTitle(f"{title} — the rules call for it now" if self.item.urgent else title)
        self.heading.setText(f"{URGENT}: {title}" if self.item.urgent else title)

    def ask(self) -> None:
        """Show the dialog and give it the focus (its first choice is the default button)."""
        self.adjustSize()
        self.show()
        self.raise_()
        self.activateWindow()
        if self.card is not None and self.card.choice_buttons:
            first = self.card.choice_buttons[0]
            first.setDefault(True)
            first.setFocus(Qt.FocusReason.ActiveWindowFocusReason)

    def _on_events(self, events: list[Event]) -> None:
        if not self.isVisible():
            return
        if self._index() is None:
            self.accept()  # taken or skipped: nothing more to ask
        else:
            self._build()

    def _disconnect(self) -> None:
        try:
            self.controller.eventsApplied.disconnect(self._on_events)
            self.controller.encounterReplaced.disconnect(self.reject)
        except (RuntimeError, TypeError):
            pass


# -- rolls on the GM's demand ------------------------------------------------------------------------


def table_tools(controller: TableController) -> tuple[PromptSpec, ...]:
    """The rolls the GM may call for at any time (``ruleset.prompts.tools``: a morale check); none when the
    ruleset offers none (or declares no such hook)."""
    try:
        return tuple(controller.engine.ruleset.prompts.tools(controller.engine))
    except (RulesError, ValueError):
        return ()


def combatant_tools(controller: TableController, cid: str) -> tuple[PromptSpec, ...]:
    """The rolls for the combatant ``cid`` on the GM's demand (``ruleset.prompts.combatant_tools``: a saving
    throw); none when the ruleset offers none or the combatant is gone."""
    c = controller.combatant(cid)
    if c is None:
        return ()
    try:
        return tuple(controller.engine.ruleset.prompts.combatant_tools(controller.engine, c))
    except (RulesError, ValueError):
        return ()


def tool_label(spec: PromptSpec, who: str = "") -> str:
    """A menu entry's or a button's words for a tool, "…" for the dialog it opens: the title
    ("Morale check: Opponents…"), or for a combatant's tool the title less the name ("Saving throw…")."""
    title = spec.title.split(":")[0].strip() if who else spec.title
    return f"{title}…"


def _shape(spec: PromptSpec) -> tuple[object, ...]:
    """What a card shows of a spec (the choices' builders left out: they are new functions each time)."""
    return (spec.title, spec.text, spec.settings, tuple((c.label, c.tip, c.rolls) for c in spec.choices))


class ToolCard(SpecCard):
    """A tool of the ruleset (a :class:`PromptSpec` on the GM's demand, no queued item): no Skip.
    ``who`` names the combatant of a combatant's tool ("" for the table's own, a morale check).
    The tool is asked for again at each click, found by its title (a combatant's, by its place
    too: a renamed combatant keeps its saving throw)."""

    def __init__(
        self,
        controller: TableController,
        spec: PromptSpec,
        values: dict[str, Any] | None = None,
        parent: QWidget | None = None,
        *,
        who: str = "",
        heading: bool = True,
    ) -> None:
        super().__init__(
            controller,
            spec,
            values,
            parent,
            heading=heading,
            who=who,
            title_tip="On the GM's demand: the log records the roll, and Undo takes it back",
        )
        titles = [s.title for s in self.offered()]
        self.place = titles.index(spec.title) if spec.title in titles else -1

    def offered(self) -> tuple[PromptSpec, ...]:
        return combatant_tools(self.controller, self.who) if self.who else table_tools(self.controller)

    def current(self) -> PromptSpec | None:
        """The tool as the ruleset offers it now, or None."""
        offered = self.offered()
        found = next((s for s in offered if s.title == self.spec.title), None)
        if found is None and self.who and 0 <= self.place < len(offered):
            found = offered[self.place]
        return found

    def fresh_spec(self) -> PromptSpec | None:
        spec = self.current()
        if spec is None:
            gone = "the combatant is gone" if self.who and self.controller.combatant(self.who) is None else ""
            self.refuse(f"{self.spec.title}: no longer offered ({gone or 'the rules offer it no more'})")
        return spec


class ToolDialog(QDialog):
    """A roll the GM calls for on demand (the Combat menu's morale check, the sheet's saving throw),
    in a window that blocks nothing: the tool's inputs and choices as a card, the app's dice or
    "Type faces…" (checked by a dry run first), a refusal said on the card with nothing changed.

    After a roll the dialog stays open with the roll's line on show (the log has it too), so the
    GM can read it, and roll again; Close is then the default button, so Enter does not roll twice.
    An undo of the roll says so. ``who`` names the combatant of a combatant's tool."""

    def __init__(
        self,
        controller: TableController,
        spec: PromptSpec,
        parent: QWidget | None = None,
        *,
        who: str = "",
    ) -> None:
        super().__init__(parent)
        self.controller = controller
        self.who = who
        self._values: dict[str, Any] = {}
        self._rolled_at: int | None = None  # where the last roll's first event is in the log
        self._rolled: list[str] = []
        self.setModal(False)
        self.setWindowModality(Qt.WindowModality.NonModal)
        self.setMinimumWidth(380)
        self.scaled_style = style.keep_scaled(
            self,
            PromptsPanel._STYLE + "QLabel#tool_result { border: 1px solid #9a9a9a; border-radius: 3px; padding: 4px; }",
        )
        self.heading = QLabel(self)
        self.heading.setObjectName("prompt_title")
        self.heading.setWordWrap(True)
        self.result_label = QLabel(self)
        self.result_label.setObjectName("tool_result")
        self.result_label.setWordWrap(True)
        self.result_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.result_label.setToolTip("The last roll, as the round log records it")
        self.result_label.hide()
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        self.close_button = self.buttons.button(QDialogButtonBox.StandardButton.Close)
        self.close_button.setToolTip("Close it: the log keeps every roll")
        self.close_button.setAutoDefault(False)
        self.buttons.rejected.connect(self.reject)
        self._layout = QVBoxLayout(self)
        self._layout.addWidget(self.heading)
        self.card: ToolCard | None = None
        self._layout.addWidget(self.result_label)
        self._layout.addWidget(self.buttons)
        self._build(spec)
        controller.eventsApplied.connect(self._on_events)
        controller.encounterReplaced.connect(self.reject)
        self.finished.connect(self._disconnect)

    @property
    def spec(self) -> PromptSpec:
        assert self.card is not None
        return self.card.spec

    @property
    def result(self) -> str:
        """The last roll's line(s) on show, or ""."""
        return self.result_label.text() if self.result_label.isVisibleTo(self) else ""

    def _build(self, spec: PromptSpec) -> None:
        card = ToolCard(self.controller, spec, self._values, self, who=self.who, heading=False)
        card.applied.connect(self._on_rolled)
        if self.card is not None:
            old = self.card
            # Not unparented at once: the old card may be inside its own button's click.
            self._layout.replaceWidget(old, card)
            old.hide()
            old.deleteLater()
        else:
            self._layout.insertWidget(1, card)
        card.show()  # at once, not when the layout gets to it: the dialog's size must count it
        self.card = card
        self.setWindowTitle(spec.title)
        self.heading.setText(spec.title)
        first = card.choice_buttons[0] if card.choice_buttons else None
        if first is not None:
            first.setAutoDefault(False)
            first.setDefault(self._rolled_at is None)
        self._fit()

    def ask(self) -> None:
        """Show the dialog and give it the focus (its first choice is the default button)."""
        self.adjustSize()
        self.show()
        self.raise_()
        self.activateWindow()
        if self.card is not None and self.card.choice_buttons:
            self.card.choice_buttons[0].setFocus(Qt.FocusReason.ActiveWindowFocusReason)

    def _on_rolled(self, events: list[Event]) -> None:
        if not events:
            return
        log = self.controller.encounter.log
        self._rolled_at = len(log) - len(events)
        self._rolled = [e.text for e in events]
        self._show_result()
        self.close_button.setDefault(True)
        self.close_button.setFocus(Qt.FocusReason.OtherFocusReason)

    def _show_result(self) -> None:
        if self._rolled_at is None:
            self.result_label.hide()
            return
        log = self.controller.encounter.log
        there = self._rolled_at < len(log) and log[self._rolled_at].text == self._rolled[0]
        lines = "\n".join(self._rolled)
        self.result_label.setText(lines if there else f"Undone: {lines}")
        self.result_label.setEnabled(there)
        self.result_label.show()
        self._fit()

    def _fit(self) -> None:
        """Grow to show everything (a new card, the roll's line); never shrink under the GM's hand."""
        if not self.isVisible():
            return
        self._layout.activate()
        width = self.width()
        height = max(self.height(), self._layout.totalHeightForWidth(width), self.minimumSizeHint().height())
        if height > self.height():
            self.resize(width, height)

    def _on_events(self, events: list[Event]) -> None:
        if self.card is None:
            return
        self._show_result()
        fresh = self.card.current()
        if fresh is not None and _shape(fresh) != _shape(self.card.spec):
            self._build(fresh)

    def _disconnect(self) -> None:
        try:
            self.controller.eventsApplied.disconnect(self._on_events)
            self.controller.encounterReplaced.disconnect(self.reject)
        except (RuntimeError, TypeError):
            pass
