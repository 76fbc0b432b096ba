"""The Action dock: the active combatant's action this turn, checked before anything is rolled.

The GM picks the action (the encounter's ruleset lists them, ``ruleset.actions.kinds``; in L&L: attack, power
attack, sneak attack, a damaging spell, parry, dash, leap, or anything else in words), the weapon, spell or
other means (the ruleset's own choices: what L&L parries with) and the target (from the list or by clicking
its token; until the GM picks one, the nearest foe from where the combatant stands, chosen again after every
move and its undo; an action aimed at one's own side, such as guarding an ally, offers the acting side and
oneself instead of foes), and the action's own inputs the ruleset describes (cover, a second weapon: one small
editor each, passed to the action as keywords: :mod:`.action_inputs`). Before any die is rolled the dock shows
the engine's own checks as a checklist, each with its reason (out of reach, too close to shoot, weapon broken,
action already used...), and for an action the GM may override, every point it covers with the override:
the core works them out from the action as set up (an :class:`~lnl_desktop.core.engine.plan.ActionPlan`,
:func:`~lnl_desktop.core.engine.plan.checklist`) and :mod:`.action_checklist` draws them. The dice come from
the app ("Roll") or from the GM's table ("Type faces…", checked by a dry run first). The result box shows the
last result of the turn (an attack, a counter-attack, a save...), read from the round log in the ruleset's
words (``ruleset.actions.result``), so undo takes it away again, and each new one is scrolled into view (the
set-up of a monster's next attack stays above it); a formula wraps between its terms, never inside one
(:mod:`.action_result`). A turn opens on the action the rules already name for it
(``ruleset.actions.opening``: a declared one), else on the first attack. Roll is disabled with the reasons
while the action may not be taken, and a refusal goes as soon as the encounter changes. The targeted action
being set up is kept in ``controller.plan`` for the forecast and the map."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent, QPoint, QSignalBlocker, Qt, QTimer
from PySide6.QtGui import QMouseEvent, QTextDocument, QWheelEvent
from PySide6.QtWidgets import (
    QApplication,
    QCheckBox,
    QComboBox,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from lnl_desktop.core.encounter.events import Event
from lnl_desktop.core.encounter.model import Phase
from lnl_desktop.core.engine.party_view import players_unseen
from lnl_desktop.core.engine.plan import (
    ActionPlan,
    Checklist,
    CheckRow,
    checked_attack_mode,
    checklist,
    nearest_foe,
)
from lnl_desktop.core.rules.specs import ActionSpec
from lnl_desktop.ui.dialogs.area import AreaEffectButton
from lnl_desktop.ui.dialogs.faces import FacesDialog
from lnl_desktop.ui.docks.action_checklist import ChecklistBox, escape, override_label
from lnl_desktop.ui.docks.action_choices import ChoiceLists, feet
from lnl_desktop.ui.docks.action_inputs import ActionInputs
from lnl_desktop.ui.docks.action_result import ResultBox, last_result
from lnl_desktop.ui.docks.action_taking import TakingAction
from lnl_desktop.ui.plumbing import style
from lnl_desktop.ui.plumbing.controller import AttackPlan, TableController
from lnl_desktop.ui.plumbing.widgets import RefusalLabel

if TYPE_CHECKING:  # for the type checker only: the forecast's modules load with the first turn
    from lnl_desktop.ui.docks.forecast import ForecastLine


class ActionPanel(ChoiceLists, TakingAction, QWidget):
    """The active combatant's action: choose, check, roll (or type faces), see the result."""

    _STYLE = """
        QLabel#title { font-size: 13pt; font-weight: bold; }
        QLabel#movement { font-size: 10.5pt; }
        QLabel#note { color: #3b3b3b; background: #f4f1e8; border-radius: 3px; padding: 4px 6px; }
        QLabel#damage { font-size: 13pt; font-weight: bold; }
        QLabel#verdict { color: #8e0000; font-weight: bold; }
    """

    def __init__(self, controller: TableController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Action")
        # Its point sizes follow the UI scale; the checklist's marks (rich text in points) are redrawn then.
        self.scaled_style = style.keep_scaled(self, self._STYLE, then=self._rescaled)
        self.controller = controller
        self.faces_dialog: FacesDialog | None = None
        self.rows: list[CheckRow] = []
        self.checks: Checklist | None = None  # the core's answer for the action as set up
        self._turn_key: tuple[int, str] | None = None
        self._kind = "attack"
        self._weapon: str | None = None
        self._spell: str | None = None
        self._choice: str | None = None  # one of the ruleset's own choices (L&L: what to parry with)
        self._target: str | None = None  # a foe (or anyone) for an action aimed at another
        # Whether the GM picked the target this turn (in the list or on the map); until then the
        # default, the nearest foe, is chosen again whenever the acting combatant stands elsewhere.
        self._target_by_hand = False
        self._default_from: Any = None  # the acting combatant's cell when the default was chosen
        self._ally: str | None = None  # oneself or a friend, for an action aimed at one's own side
        self._refreshing = False

        self.title = QLabel(self)
        self.title.setObjectName("title")
        self.title.setTextFormat(Qt.TextFormat.RichText)
        self.movement_label = QLabel(self)
        self.movement_label.setObjectName("movement")
        self.movement_label.setWordWrap(True)
        self.movement_label.setToolTip("Movement may come before the action, after it, or both (RULES §3)")

        self.kind_combo = QComboBox(self)
        self.kind_combo.setToolTip("The turn's one action")
        self.specs: dict[str, ActionSpec] = {}
        self._specs_of: str | None = None  # the ruleset the kind list was filled for
        self._fill_kind_items()
        self.means_combo = QComboBox(self)
        self.means_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.means_combo.setMinimumContentsLength(18)
        self.means_caption = QLabel("Weapon", self)
        self.target_combo = QComboBox(self)
        self.target_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.target_combo.setMinimumContentsLength(18)
        self.target_combo.setToolTip("Click the target's token on the map, or pick it here")
        self.target_caption = QLabel("Target", self)
        self.ignore_dex_check = QCheckBox("GM: ignore the target's DEX", self)
        self.ignore_dex_check.setToolTip("A GM ruling: the target's DEX bonus is not subtracted from this attack")
        self.other_edit = QLineEdit(self)
        self.other_edit.setPlaceholderText("e.g. grapples the Half-orc, reloads, takes aim")
        self.other_edit.setToolTip("The action in words; it goes into the round log")
        self.other_caption = QLabel("What", self)

        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.setLabelAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        form.addRow("Action", self.kind_combo)
        form.addRow(self.means_caption, self.means_combo)
        form.addRow(self.target_caption, self.target_combo)
        form.addRow(self.other_caption, self.other_edit)
        # The action's own inputs (ActionSpec.extras), two to a line: cover, subdual, a GM's edge...
        self.extras_box = ActionInputs(self._on_extra, self)
        form.addRow(self.extras_box)
        form.addRow("", self.ignore_dex_check)
        self.form = form

        self.checklist_box = ChecklistBox(self)
        self.override_check = self.checklist_box.override_check
        self._override_offered = False  # a check the GM may override blocks (or is overridden) now

        self.note_label = QLabel(self)
        self.note_label.setObjectName("note")
        self.note_label.setWordWrap(True)
        self.note_label.setTextFormat(Qt.TextFormat.RichText)

        self.roll_button = QPushButton("Roll", self)
        self.roll_button.setDefault(True)
        self.roll_button.clicked.connect(lambda: self.roll())
        self.faces_button = QPushButton("Type faces…", self)
        self.faces_button.clicked.connect(lambda: self.type_faces())
        # The buttons stay at the foot of the dock, below the scrolling set-up: however many inputs
        # and checks the action has, Roll is on screen.
        self.buttons_bar = QWidget(self)
        buttons = QHBoxLayout(self.buttons_bar)
        buttons.setContentsMargins(0, 0, 0, 0)
        buttons.addWidget(self.roll_button, 1)
        buttons.addWidget(self.faces_button, 1)
        self.area_button = AreaEffectButton(controller, self)  # RULES §14: lays the means' area on the map
        buttons.addWidget(self.area_button, 1)

        self.message_label = RefusalLabel(self)
        # Beside Roll, never below the fold: what stops the action, named, and the forecast.
        self.verdict_label = QLabel(self)
        self.verdict_label.setObjectName("verdict")
        self.verdict_label.setWordWrap(True)
        self.verdict_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.verdict_label.hide()
        # The forecast's line is made with the first turn: its modules are not on the start path.
        self._forecast_line: ForecastLine | None = None

        self.result_box = ResultBox(self)
        self.damage_label = self.result_box.damage_label
        self.result_label = self.result_box.result_label
        self.last_result: Event | None = None  # the round log's event the result box shows

        self.placeholder = QLabel(
            "No turn is under way. Pick who goes next in the Turns dock (or click a waiting token on the map).", self
        )
        self.placeholder.setWordWrap(True)
        self.placeholder.setEnabled(False)

        self.setup = QWidget(self)
        setup_layout = QVBoxLayout(self.setup)
        setup_layout.setContentsMargins(0, 0, 0, 0)
        setup_layout.addLayout(form)
        setup_layout.addWidget(self.checklist_box)
        setup_layout.addWidget(self.note_label)

        self.used_label = QLabel(self)
        self.used_label.setObjectName("note")
        self.used_label.setWordWrap(True)
        self.used_label.setTextFormat(Qt.TextFormat.RichText)

        body = QWidget()
        column = QVBoxLayout(body)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.title)
        column.addWidget(self.movement_label)
        column.addWidget(self.placeholder)
        column.addWidget(self.setup)
        column.addWidget(self.used_label)
        column.addWidget(self.result_box)
        column.addStretch(1)
        scroll = QScrollArea(self)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidget(body)
        self.scroll = scroll
        # A new result stays in view while the column settles (a real window lays the set-up out again
        # after the roll, growing the column under the box), until the GM scrolls for themselves.
        self._keep_result_in_view = False
        bar = scroll.verticalScrollBar()
        bar.rangeChanged.connect(self._column_changed)
        bar.sliderPressed.connect(self._scrolled_by_hand)
        bar.actionTriggered.connect(self._scrolled_by_hand)
        scroll.viewport().installEventFilter(self)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(scroll, 1)
        layout.addWidget(self.message_label)
        layout.addWidget(self.verdict_label)
        layout.addWidget(self.buttons_bar)
        self.footer = layout

        self.kind_combo.currentIndexChanged.connect(self._on_kind)
        self.means_combo.currentIndexChanged.connect(self._on_means)
        self.target_combo.currentIndexChanged.connect(self._on_target)
        self.target_combo.activated.connect(self._on_target_picked)
        self.ignore_dex_check.toggled.connect(lambda *_: self._changed())
        self.override_check.toggled.connect(lambda *_: self._changed())
        self.other_edit.textChanged.connect(lambda *_: self._changed())

        controller.eventsApplied.connect(self._on_events)
        controller.encounterReplaced.connect(self._on_replaced)
        controller.planChanged.connect(self._on_plan)
        self.refresh()

    @property
    def forecast_line(self) -> ForecastLine:
        """The forecast in words above Roll, made when first needed (a turn under way)."""
        if self._forecast_line is None:
            from lnl_desktop.ui.docks.forecast import ForecastLine

            line = ForecastLine(self.controller, self)
            self.footer.insertWidget(self.footer.indexOf(self.buttons_bar), line)
            self._forecast_line = line
            line.refresh()
        return self._forecast_line

    # -- what the panel is about ---------------------------------------------------------------

    def active(self) -> Any:
        """The combatant whose turn is under way (looked up afresh), or None."""
        turn = self.controller.encounter.combat.turn
        return self.controller.combatant(turn.combatant) if turn is not None else None

    def kind(self) -> str:
        return self._kind

    def spec(self) -> ActionSpec:
        """The ruleset's description of the chosen action."""
        return self.specs[self._kind]

    def _raw_means(self) -> str | None:
        uses = self.spec().uses
        return {"spell": self._spell, "choice": self._choice, "weapon": self._weapon}.get(uses)

    def means(self) -> str | None:
        """The weapon, spell or choice of the current action, by the name the ruleset gives it (L&L: 'shield')."""
        raw = self._raw_means()
        return dict(self.spec().means_names).get(raw, raw) if raw is not None else None

    def target(self) -> str | None:
        """The chosen target: a foe (or anyone), or for an action aimed at one's own side, oneself or an ally."""
        spec = self.spec()
        if not spec.targeted:
            return None
        return self._ally if spec.allies else self._target

    def extras(self) -> dict[str, Any]:
        """The values of the chosen action's own inputs (cover, a second weapon...), by key."""
        return self.extras_box.values_of(self.spec())

    def set_extra(self, key: str, value: Any) -> None:
        """Set one of the action's own inputs through its editor, as the GM would."""
        self.extras_box.set_value(self.spec(), key, value)

    @property
    def extra_editors(self) -> dict[str, QWidget]:
        """The editors of the chosen action's own inputs, by key."""
        return self.extras_box.editors

    @property
    def _check_widgets(self) -> list[QWidget]:
        """The checklist's labels (its marks and its lines) as drawn now."""
        return self.checklist_box.widgets

    def plan(self) -> ActionPlan | None:
        """The action as set up, as the core's plan (None when no turn is under way)."""
        c = self.active()
        if c is None:
            return None
        return ActionPlan(
            c.id,
            self._kind,
            self._raw_means(),
            self.target(),
            self.other_edit.text(),
            self.override_check.isChecked(),
            self.ignore_dex_check.isChecked() and self.spec().ignore_dex,
            tuple(self.extras().items()),
        )

    def set_kind(self, key: str) -> None:
        index = self.kind_combo.findData(key)
        if index < 0:
            raise ValueError(f"unknown action {key!r} (actions: {', '.join(self.specs)})")
        self.kind_combo.setCurrentIndex(index)

    def set_means(self, name: str) -> None:
        """Pick a weapon, a spell, or one of the ruleset's choices by its name (L&L's parry: a weapon or 'shield')."""
        key = next((k for k, named in self.spec().means_names if named == name), name)
        index = self.means_combo.findData(key)
        if index < 0:
            raise ValueError(f"{name!r} is not in the list")
        self.means_combo.setCurrentIndex(index)

    def set_target(self, cid: str | None) -> None:
        index = self.target_combo.findData(cid)
        if index < 0:
            raise ValueError(f"{cid!r} is not a possible target")
        self.target_combo.setCurrentIndex(index)

    def overriding(self) -> bool:
        """Whether the GM override is on for the action as set up (offered, and ticked)."""
        return self.spec().gm_override and self._override_offered and self.override_check.isChecked()

    def override_label(self) -> str:
        """The override's words for the chosen action: the ruleset's, or the dock's own."""
        return override_label(self.spec())

    def allowed(self) -> tuple[bool, list[str]]:
        """Whether the action as set up may be taken now, and the reasons it may not."""
        if self.active() is None:
            return False, ["no turn is under way"]
        reasons = self.checks.refusals if self.checks is not None else []
        return not reasons, reasons

    @property
    def message(self) -> str:
        """The refusal shown in the panel ("" when none). It goes when the encounter changes (an
        action, undo, redo, another encounter): it told of the state before."""
        return self.message_label.shown_text

    def result_text(self) -> str:
        """The result box's details as plain words (ordinary spaces, one line per line)."""
        document = QTextDocument()
        document.setHtml(self.result_label.text())
        return document.toPlainText()

    def bring_result_into_view(self, settle: bool = True) -> None:
        """Scroll the set-up so the result box shows whole, or from its headline down when it is
        taller than the dock: the Roll button is at the foot, the result would be below the fold."""
        box = self.result_box
        if not box.isVisibleTo(self):
            return
        self._keep_result_in_view = True
        if settle:
            # The box was just filled and the set-up above it changed: lay the column out first.
            QApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
        body = self.scroll.widget()
        top = box.mapTo(body, QPoint(0, 0)).y()
        bar = self.scroll.verticalScrollBar()
        room = self.scroll.viewport().height()
        if box.height() <= room:
            bar.setValue(min(max(bar.value(), top + box.height() - room), top))
        else:
            bar.setValue(top)

    def _column_changed(self, *_: int) -> None:
        if self._keep_result_in_view:
            self.bring_result_into_view(settle=False)

    def _scrolled_by_hand(self, *_: object) -> None:
        self._keep_result_in_view = False

    def eventFilter(self, watched: Any, event: QEvent) -> bool:
        # Every event of the column's viewport passes here (its paints, its layouts): a wheel or a press
        # is told by its class first, the rest let by before their type is read (slow in Python).
        if not isinstance(event, QWheelEvent | QMouseEvent):
            return False
        if event.type() in (QEvent.Type.Wheel, QEvent.Type.MouseButtonPress) and watched is self.scroll.viewport():
            self._keep_result_in_view = False  # the GM looks elsewhere in the column
        return super().eventFilter(watched, event)

    def _rescaled(self) -> None:
        """The UI scale changed: the checklist is built again (its marks' sizes are in points)."""
        self.checklist_box.forget()
        self.refresh()

    # -- messages ------------------------------------------------------------------------------

    def _refuse(self, text: str) -> None:
        self.message_label.refuse(text)

    def _clear_message(self) -> None:
        self.message_label.clear_refusal()

    # -- choices -------------------------------------------------------------------------------

    def _on_kind(self, index: int) -> None:
        if self._refreshing:
            return
        self._kind = self.kind_combo.itemData(index) or next(iter(self.specs))
        self._changed()

    def _on_means(self, index: int) -> None:
        if self._refreshing:
            return
        data = self.means_combo.itemData(index)
        uses = self.spec().uses
        if uses == "spell":
            self._spell = data
        elif uses == "choice":
            self._choice = data
        else:
            self._weapon = data
        self._changed()

    def _on_target(self, index: int) -> None:
        if self._refreshing:
            return
        if self.spec().allies:
            self._ally = self.target_combo.itemData(index)
        else:
            self._target = self.target_combo.itemData(index)
            self._target_by_hand = True
        self._changed()

    def _on_target_picked(self, index: int) -> None:
        """A pick in the list, even of the target already shown: the GM's, kept for the rest of the turn."""
        if not self._refreshing and not self.spec().allies:
            self._target_by_hand = True

    def _nearest_foe(self, c: Any) -> str | None:
        """The default target: the nearest foe, never for a Party member one hidden from the players."""
        encounter = self.controller.encounter
        return nearest_foe(encounter, c, players_unseen(encounter))

    def target_picked_by_hand(self) -> bool:
        """Whether the GM picked this turn's target (then it stays); else the default follows the actor."""
        return self._target_by_hand

    def _on_extra(self, key: str, value: Any) -> None:
        if self._refreshing:
            return
        self.extras_box.values[key] = value
        self._changed()

    def _changed(self) -> None:
        if not self._refreshing:
            self._clear_message()
            self.refresh()

    def _on_plan(self) -> None:
        plan = self.controller.plan
        c = self.active()
        spec = self.spec()
        if plan is None or c is None or plan.attacker != c.id or not spec.targeted:
            return
        if spec.allies:
            # Aimed at one's own side: a click on oneself or a friend picks it; on a foe, it is refused.
            if plan.target == self._ally or plan.target is None:
                return
            chosen = self.controller.combatant(plan.target)
            if chosen is not None and chosen.side is c.side:
                self._ally = chosen.id
                self._clear_message()
                self.refresh()
            else:
                name = chosen.name if chosen is not None else plan.target
                self._refuse(
                    f"{spec.label} is aimed at {c.name} or one of the {c.side.value}, not at {name}: "
                    f"pick {c.name} or an ally"
                )
                self._sync_plan()  # the plan goes back to the ally chosen before
            return
        if plan.target != self._target and plan.target != c.id:
            self._target = plan.target
            self._target_by_hand = True  # a click on the map
            self._clear_message()
            self.refresh()

    def _reset_choices(self, c: Any) -> None:
        """A new turn: sensible defaults for this combatant (its first usable attack, the nearest foe)."""
        self._weapon = self._spell = self._choice = self._target = self._ally = None
        self._target_by_hand = False
        self.extras_box.reset()  # the action's own inputs go back to their defaults
        with QSignalBlocker(self.ignore_dex_check), QSignalBlocker(self.override_check):
            self.ignore_dex_check.setChecked(False)
            self.override_check.setChecked(False)
        with QSignalBlocker(self.other_edit):
            self.other_edit.clear()
        self._clear_message()
        if c is None:
            return
        ruleset = self.controller.engine.ruleset
        usable = [k for k, spec in self.specs.items() if ruleset.actions.available(spec, c)[0]]
        targeted = [k for k in usable if self.specs[k].targeted]
        words = [k for k in usable if self.specs[k].uses == "text"]
        # The action the rules already name for this turn (a declared one), else the first attack.
        opening = ruleset.actions.opening(self.controller.encounter, c)
        self._kind = opening if opening in usable else (targeted or words or usable or list(self.specs))[0]
        self._validate_choices(c)
        self._target = self._nearest_foe(c)
        self._default_from = self._cell_of(c)
        self._ally = c.id  # an action aimed at one's own side starts with oneself

    def _cell_of(self, c: Any) -> Any:
        token = self.controller.encounter.tokens.get(c.id)
        return token.cell if token is not None else None

    # -- keeping in step -----------------------------------------------------------------------

    def _on_events(self, events: list[Event]) -> None:
        self._clear_message()  # a refusal told of the state before: it no longer holds
        self.refresh()

    def _on_replaced(self) -> None:
        self._clear_message()
        self._turn_key = None
        self.extras_box.reset()
        self._fill_kind_items()
        self.refresh()

    def _fill_kind_items(self) -> None:
        """The action menu of the encounter's ruleset (refilled when another ruleset's encounter comes)."""
        ruleset = self.controller.engine.ruleset
        if ruleset.name == self._specs_of:
            return
        self._specs_of = ruleset.name
        self.specs = {spec.key: spec for spec in ruleset.actions.kinds()}
        with QSignalBlocker(self.kind_combo):
            self.kind_combo.clear()
            for spec in self.specs.values():
                self.kind_combo.addItem(spec.label, spec.key)
                self.kind_combo.setItemData(self.kind_combo.count() - 1, spec.tip, Qt.ItemDataRole.ToolTipRole)
        if self._kind not in self.specs:
            self._kind = next(iter(self.specs), "")

    def refresh(self) -> None:
        """Redraw from the engine: the turn, the choices still valid, the checks, the result."""
        if self._refreshing:
            return
        self._refreshing = True
        try:
            self._refresh()
        finally:
            self._refreshing = False
        self._sync_plan()

    def _refresh(self) -> None:
        self._fill_kind_items()  # a ruleset conversion keeps the encounter's place but not its actions
        encounter = self.controller.encounter
        combat = encounter.combat
        c = self.active()
        key = (combat.round, c.id) if c is not None and combat.phase is Phase.FIGHTING else None
        if key != self._turn_key:
            self._turn_key = key
            self._keep_result_in_view = False
            self._reset_choices(c)
        elif c is not None and not self._target_by_hand and self._cell_of(c) != self._default_from:
            # The GM has not picked a target and the acting combatant moved (or a move was undone or
            # redone): the default is chosen again, the nearest foe from where it stands now.
            self._target = self._nearest_foe(c)
            self._default_from = self._cell_of(c)
        elif c is not None and self._target and self._action_open(c) and self._felled(self._target):
            # The next of several attacks, its last target felled: the nearest foe still standing.
            self._target, self._target_by_hand = self._nearest_foe(c), False
        shown = self.result_box.show_result(last_result(encounter, self.controller.engine.ruleset))
        if shown is not None and shown is not self.last_result:
            # A new result (a roll, an area effect, a save): brought into view once the column is laid out.
            QTimer.singleShot(0, self, self.bring_result_into_view)
        self.last_result = shown
        if c is None:
            self.title.setText("Action")
            self.movement_label.hide()
            self.placeholder.show()
            self.setup.hide()
            self.buttons_bar.hide()
            self.verdict_label.hide()
            self.used_label.hide()
            self.rows, self.checks = [], None
            return
        self.placeholder.hide()
        self.movement_label.show()
        self.forecast_line.refresh()  # made now if this is the first turn
        color = style.side_color(c.side).name()
        self.title.setText(f'<span style="color:{color}">■</span> {escape(c.name)}\'s turn')
        self.movement_label.setText(self._movement_text(c))
        self._validate_choices(c)
        self._fill_kinds(c)
        self._fill_means(c)
        self._fill_targets(c)
        spec = self.spec()
        ruleset = self.controller.engine.ruleset
        self.means_caption.setText(spec.means_caption or ("Spell" if spec.uses == "spell" else "Weapon"))
        for widget in (self.means_caption, self.means_combo):
            widget.setVisible(spec.uses in ("weapon", "spell", "choice"))
        for widget in (self.target_caption, self.target_combo):
            widget.setVisible(spec.targeted)
        self.target_caption.setText("Who" if spec.allies else "Target")
        self.extras_box.show_for((self._specs_of, self._kind, self._turn_key), spec, c, ruleset, self._weapon)
        self.ignore_dex_check.setVisible(checked_attack_mode(ruleset, spec) is not None)
        self.ignore_dex_check.setEnabled(spec.ignore_dex)
        self.ignore_dex_check.setToolTip(
            f"A {spec.label.lower()} never subtracts the target's DEX"
            if not spec.ignore_dex
            else "A GM ruling: the target's DEX bonus is not subtracted from this attack"
        )
        for widget in (self.other_caption, self.other_edit):
            widget.setVisible(spec.uses == "text")
        used = combat.turn is not None and combat.turn.action is not None and not self._action_open(c)
        for widget in (self.kind_combo, self.means_combo, self.target_combo, self.other_edit, self.ignore_dex_check):
            if used:
                widget.setEnabled(False)
                widget.setToolTip(f"{c.name} already took the action this turn")
            elif widget is not self.ignore_dex_check:
                widget.setEnabled(True)
                widget.setToolTip("")
        if not used:
            self.target_combo.setToolTip(
                f"{c.name} or an ally: click its token on the map, or pick it here"
                if spec.allies
                else "Click the target's token on the map, or pick it here"
            )
        plan = self.plan()
        assert plan is not None
        self.checks = checklist(self.controller.engine, plan, spec)
        self.rows = list(self.checks.rows)
        self._override_offered = self.checks.override_offered
        self.checklist_box.show_rows(self._kind, self.rows, spec, self._override_offered)
        self._show_note(self.checks.notes)
        self._show_buttons(c)
        # Once the action is taken the set-up gives way to what was done and its result.
        self.setup.setVisible(not used)
        self.buttons_bar.setVisible(not used)
        self.verdict_label.setVisible(not used and bool(self.verdict_label.text()))
        self.used_label.setVisible(used)
        if used and combat.turn is not None and combat.turn.action is not None:
            turn = combat.turn
            detail = f" — {escape(turn.action_detail)}" if turn.action_detail else ""
            left = self.controller.engine.feet_left(c.id) or 0
            self.used_label.setText(
                f"<b>Action taken:</b> {escape(turn.action)}{detail}.<br>"
                f"{escape(c.name)} may still move {feet(max(left, 0))}; end the turn when done (Space)."
            )

    def _felled(self, cid: str) -> bool:
        target = self.controller.combatant(cid)
        return target is None or bool(target.down)

    def _action_open(self, c: Any) -> bool:
        """Whether the action taken allows more of it (the next of a monster's several attacks)."""
        return c is not None and bool(self.controller.engine.ruleset.actions.still_open(self.controller.encounter, c))

    # -- the checks ----------------------------------------------------------------------------

    def _show_note(self, notes: tuple[tuple[str, str], ...]) -> None:
        text = " ".join(f"<b>{escape(head)}</b> {escape(words)}" if head else escape(words) for head, words in notes)
        self.note_label.setText(text)
        self.note_label.setVisible(bool(notes))

    def _show_buttons(self, c: Any) -> None:
        ruleset = self.controller.engine.ruleset
        if ruleset.areas is None:  # a ruleset without area effects: the button says so, disabled
            self.area_button.show()
            self.area_button.setEnabled(False)
            self.area_button.setToolTip(f"{ruleset.title} has no area effects")
        else:
            self.area_button.setEnabled(True)
            self.area_button.show_for(c)
        ok, reasons = self.allowed()
        spec = self.spec()
        self.roll_button.setText(spec.button or spec.label.rstrip("…"))
        why = "Not allowed: " + "; ".join(reasons)
        # The summary beside Roll names the failing check (the first; the checklist has them all).
        more = f" (and {len(reasons) - 1} more check{'s' if len(reasons) > 2 else ''})" if len(reasons) > 1 else ""
        self.verdict_label.setText("" if ok else f"Not allowed: {reasons[0]}{more}")
        self.verdict_label.setToolTip("" if ok else why)
        self.roll_button.setEnabled(ok)
        self.roll_button.setToolTip(
            ("The app rolls the dice" if spec.rolls else f"{c.name}: {spec.label.lower().rstrip('…')}") if ok else why
        )
        self.faces_button.setVisible(spec.rolls)
        self.faces_button.setEnabled(ok and spec.rolls)
        self.faces_button.setToolTip("Type the faces your own dice show" if ok else why)

    # -- the plan for the forecast and the map -------------------------------------------------

    def _sync_plan(self) -> None:
        c = self.active()
        turn = self.controller.encounter.combat.turn
        plan: AttackPlan | None = None
        spec = self.specs.get(self._kind)
        aimed = spec is not None and (spec.targeted or spec.mode is not None)
        taking = turn is not None and (turn.action is None or self._action_open(c))
        if c is not None and taking and spec is not None and aimed:
            plan = AttackPlan(
                c.id,
                self.target(),
                self.means(),
                spec.mode,
                self.ignore_dex_check.isChecked() and spec.ignore_dex,
                extras=tuple(self.extras().items()),
                action=spec.label,
                uses=spec.uses,
                allies=spec.allies,
            )
        self.controller.set_plan(plan)
