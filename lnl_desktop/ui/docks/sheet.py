"""The Sheet dock: every field of the selected combatant, editable.

Each field commits on its own (Enter, leaving the field, picking a choice) as one
``EditCombatant`` action through the controller: one undo step, one line in the log. The picture
(Picture…, Remove, or an image file dropped anywhere on the sheet) is one ``SetPortrait`` each. Nothing is
clamped or fixed silently: text that is not a number, or a value the rules refuse, is named in a
red message under the form, the field is marked, and it shows the combatant's value again.
The sheet keeps no copy of the combatant: it looks it up by id and redraws after every event.

The fields' editors follow the selected combatant's row of the Combatants model through a
``QDataWidgetMapper`` (:mod:`lnl_desktop.ui.docks.sheet_fields`, one small binding per field);
the ruleset's lists (weapons, spells...) are tables of their own
(:mod:`lnl_desktop.ui.docks.sheet_items`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QDragEnterEvent, QDragMoveEvent, QDropEvent, QPixmap
from PySide6.QtWidgets import (
    QFileDialog,
    QFormLayout,
    QFrame,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QMenu,
    QPushButton,
    QScrollArea,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.durations import condition_label, duration_of
from lnl_desktop.core.encounter.model import Side, Trait
from lnl_desktop.core.encounter.validation import humanize
from lnl_desktop.core.engine.edits import health_edit
from lnl_desktop.core.rules.specs import ItemBox, ItemColumn, ItemList, PromptSpec, SheetRow, SheetSpec
from lnl_desktop.ui.dialogs.damage_heal import DamageHealDialog, open_damage_heal
from lnl_desktop.ui.dialogs.setting_editors import plain
from lnl_desktop.ui.docks.prompts import ToolDialog, combatant_tools, tool_label
from lnl_desktop.ui.docks.sheet_fields import (
    SIZES,
    TIPS,
    BadInput,
    Binding,
    CheckBinding,
    ComboBinding,
    FieldMapper,
    ItemPartBinding,
    LineBinding,
    NotesBinding,
    int_binding,
    item_with,
    parse_conditions,
    row_binding,
    swatch,
)
from lnl_desktop.ui.docks.sheet_items import FittedTable, ItemListModel, item_box
from lnl_desktop.ui.models.combatants import CombatantsModel
from lnl_desktop.ui.plumbing import style
from lnl_desktop.ui.plumbing.condition_menu import fill_condition_menu
from lnl_desktop.ui.plumbing.controller import TableController
from lnl_desktop.ui.plumbing.folders import Folders
from lnl_desktop.ui.plumbing.portraits import PictureRefused, portrait_from_file, portrait_pixmap
from lnl_desktop.ui.plumbing.widgets import RefusalLabel

PORTRAIT_SHOWN_PX = 88  # the picture on the sheet
PICTURE_FILTER = "Pictures (*.png *.jpg *.jpeg *.gif *.bmp *.webp);;All files (*)"


# -- the sheet ------------------------------------------------------------------------------------


class CombatantSheet(QWidget):
    """Every field of the selected combatant, each committed as one undoable edit."""

    # A refused edit or unreadable input: the message shown under the form.
    editRefused = Signal(str)

    _STYLE = """
        QLineEdit[invalid="true"], QComboBox[invalid="true"], QTableView[invalid="true"],
        QPlainTextEdit[invalid="true"] { border: 2px solid #c62828; background: #fdecea; }
        QLabel#title { font-size: 13pt; font-weight: bold; }
    """

    def __init__(self, controller: TableController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Sheet")
        self.scaled_style = style.keep_scaled(self, self._STYLE)  # the title's size follows the UI scale
        self.controller = controller
        self.combatant_id: str | None = None
        self.bindings: dict[str, Binding] = {}  # by name: "level", "shield.armor", ...
        self.tool_dialog: ToolDialog | None = None  # a roll on demand opened from the sheet
        self.hand_dialog: DamageHealDialog | None = None  # the last Damage / Heal dialog opened
        self.folders: Folders | None = None  # where Picture… opens (the main window's memory of folders)
        self._marked: QWidget | None = None
        self.other: QWidget | None = None  # a party character's sheet shown in this one's place
        self.setAcceptDrops(True)  # a picture file dropped anywhere on the sheet becomes the portrait

        self.title = QLabel(self)
        self.title.setObjectName("title")
        self.title.setTextFormat(Qt.TextFormat.RichText)
        self.summary = QLabel(self)
        self.summary.setWordWrap(True)
        self.summary.setToolTip("Worked out from the fields below")

        scroll = QScrollArea(self)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll = scroll
        self.ruleset_name = ""
        self.item_models: dict[str, ItemListModel] = {}
        self.item_tables: dict[str, FittedTable] = {}
        # The selected combatant's row of the Combatants model, shown in the fields' editors.
        self.combatants = CombatantsModel(controller, self)
        self.mapper = FieldMapper(self.combatants, controller.combatant, self._commit_binding, self)
        self._build_form()

        self.placeholder = QLabel("Select a combatant in the Combatants list or on the map to see its sheet.", self)
        self.placeholder.setWordWrap(True)
        self.placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.placeholder.setEnabled(False)

        self.stack = QStackedWidget(self)
        self.stack.addWidget(self.placeholder)
        self.stack.addWidget(scroll)

        self.message_label = RefusalLabel(self)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.stack, 1)
        layout.addWidget(self.message_label)

        controller.selectionChanged.connect(self._on_selection)
        controller.eventsApplied.connect(self._on_events)
        controller.encounterReplaced.connect(self._on_replaced)
        self._on_selection(controller.selected or "")

    # -- building ----------------------------------------------------------------------------

    def _build_form(self) -> None:
        """The sheet of the encounter's ruleset: the shared fields, and the rows and lists its SheetSpec names."""
        ruleset = self.controller.engine.ruleset
        self.ruleset_name = ruleset.name
        self.spec: SheetSpec = ruleset.views.sheet()
        self.tips = {**TIPS, **self.spec.tips}
        self.bindings = {}
        self.mapper.unbind_all()
        self.item_models, self.item_tables = {}, {}
        self._marked = None
        self.title = QLabel()
        self.title.setObjectName("title")
        self.title.setTextFormat(Qt.TextFormat.RichText)
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.summary.setToolTip("Worked out from the fields below")
        form = QWidget()
        column = QVBoxLayout(form)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self._build_portrait())
        column.addWidget(self._build_tools())
        column.addWidget(self._build_hand())
        column.addWidget(self._build_identity())
        column.addWidget(self._build_numbers())
        column.addWidget(self._build_status())
        lists = {item_list.key for item_list in self.spec.lists}
        for item_list in self.spec.lists:
            column.addWidget(self._build_list(item_list))
            for box in self.spec.boxes:
                if box.after == item_list.key:
                    column.addWidget(self._build_box(box))
        for box in self.spec.boxes:
            if box.after not in lists:
                column.addWidget(self._build_box(box))
        column.addWidget(self._build_notes())
        column.addStretch(1)
        old = self.scroll.takeWidget()
        if old is not None:
            old.deleteLater()
        self.scroll.setWidget(form)
        for binding in self.bindings.values():
            self.mapper.bind(binding, self._unmark)

    def _build_portrait(self) -> QWidget:
        """The title and summary beside the combatant's picture, with Picture… and Remove."""
        area = QWidget()
        line = QHBoxLayout(area)
        line.setContentsMargins(0, 0, 0, 0)
        line.setSpacing(8)
        self._portrait_shown: tuple[object, ...] | None = None
        self.portrait_label = QLabel()
        self.portrait_label.setFixedSize(PORTRAIT_SHOWN_PX, PORTRAIT_SHOWN_PX)
        self.portrait_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.portrait_label.setFrameShape(QFrame.Shape.StyledPanel)
        self.portrait_label.setWordWrap(True)
        self.picture_button = QPushButton("Picture…")
        self.picture_button.setToolTip(
            "Choose a picture for this combatant's token (PNG, JPEG...): its centred square is kept "
            "in the encounter file, at most 256 pixels. You can also drop a picture file on the sheet"
        )
        self.picture_button.clicked.connect(self.choose_portrait)
        self.remove_picture_button = QPushButton("Remove")
        self.remove_picture_button.clicked.connect(self.remove_portrait)
        buttons = QVBoxLayout()
        buttons.setSpacing(4)
        buttons.addWidget(self.picture_button)
        buttons.addWidget(self.remove_picture_button)
        buttons.addStretch(1)
        words = QVBoxLayout()
        words.setSpacing(2)
        words.addWidget(self.title)
        words.addWidget(self.summary)
        words.addStretch(1)
        line.addWidget(self.portrait_label, 0, Qt.AlignmentFlag.AlignTop)
        line.addLayout(words, 1)
        line.addLayout(buttons)
        return area

    def _refresh_portrait(self, c: Any) -> None:
        data = c.portrait
        shown = (c.id, c.name, c.side, data)
        if shown == self._portrait_shown:
            return
        self._portrait_shown = shown
        pixmap = portrait_pixmap(data, PORTRAIT_SHOWN_PX - 6, c.side) if data else QPixmap()
        if pixmap.isNull():
            self.portrait_label.setPixmap(QPixmap())
            self.portrait_label.setText("no picture" if not data else "unreadable picture")
            self.portrait_label.setToolTip("Picture…, or drop a picture file here, to give this token a face")
        else:
            self.portrait_label.setPixmap(pixmap)
            self.portrait_label.setToolTip(f"{c.name}'s picture, drawn inside the token on the map")
        self.remove_picture_button.setEnabled(data is not None)
        self.remove_picture_button.setToolTip(
            "Take the picture away: the token shows its colour and label only"
            if data is not None
            else "There is no picture to remove"
        )

    def _build_tools(self) -> QWidget:
        """The row of the ruleset's rolls for this combatant on the GM's demand ("Saving throw…"),
        under the summary; its buttons follow the combatant shown (:meth:`_refresh_tools`)."""
        self.tools_bar = QWidget()
        self.tools_layout = QHBoxLayout(self.tools_bar)
        self.tools_layout.setContentsMargins(0, 0, 0, 0)
        self.tools_layout.setSpacing(6)
        self.tool_buttons: list[QPushButton] = []
        self._tools_shown: tuple[object, ...] = ()
        self.tools_bar.hide()
        return self.tools_bar

    def _build_hand(self) -> QWidget:
        """The Damage / Heal button: an amount by hand through the rules (RULES §10)."""
        self.hand_button = QPushButton("Damage / &Heal…")
        self.hand_button.setToolTip(
            "Damage or healing by hand (a trap, a potion): applied by the rules as a weapon's would, "
            "with a reason in the round log (Ctrl+Shift+D)"
        )
        self.hand_button.clicked.connect(lambda _=False: self.open_damage_heal())
        bar = QWidget()
        row = QHBoxLayout(bar)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.hand_button)
        row.addStretch(1)
        # Only once it has a parent: shown without one, a button is a window of its own.
        self.hand_button.setVisible(bool(self.controller.engine.ruleset.health.kinds(False)))
        return bar

    def open_damage_heal(self, cid: str | None = None) -> DamageHealDialog | None:
        """Open the Damage / Heal dialog for ``cid`` (by default the combatant shown)."""
        dialog = open_damage_heal(self.controller, cid or self.combatant_id, self.window())
        self.hand_dialog = dialog
        return dialog

    def _bind(self, name: str, binding: Binding, tip: str | None = None) -> Binding:
        binding.widget.setToolTip(tip or self.tips.get(name, ""))
        self.bindings[name] = binding
        return binding

    def _rows(self, form: QFormLayout, rows: tuple[SheetRow, ...]) -> None:
        """One line per row of the ruleset's numbers: its fields side by side ("now / max")."""
        for row in rows:
            parts: list[QWidget | str] = []
            for i, key in enumerate(row.keys):
                head = row.label.split(" (")[0]
                label = row.label if len(row.keys) == 1 else head if i == 0 else f"Max {head}"
                if i:
                    parts.append("/")
                parts.append(self._bind(key, row_binding(row, key, label), row.tip).widget)
            if row.unit:
                parts.append(row.unit)
            self._row(form, row.label, *parts, tip=row.tip)

    def _form(self, title: str) -> tuple[QGroupBox, QFormLayout]:
        box = QGroupBox(title)
        form = QFormLayout(box)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.ExpandingFieldsGrow)
        form.setLabelAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return box, form

    def _row(
        self, form: QFormLayout, label: str, *widgets: QWidget | str, tip: str = "", stretch: bool = False
    ) -> None:
        line = QHBoxLayout()
        line.setSpacing(6)
        for widget in widgets:
            line.addWidget(QLabel(widget) if isinstance(widget, str) else widget)
        if stretch:
            line.setStretch(0, 1)
        else:
            line.addStretch(1)
        caption = QLabel(label)
        caption.setToolTip(tip)
        # The same label width in every group, so the fields line up down the sheet.
        caption.setMinimumWidth(self.fontMetrics().horizontalAdvance("Durability (now / max)") + 4)
        caption.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        form.addRow(caption, line)

    def _build_identity(self) -> QGroupBox:
        box, form = self._form("Combatant")
        name = self._bind("name", LineBinding("name", "Name", lambda c: c.name, lambda text, c: text.strip()))
        side = self._bind(
            "side",
            ComboBinding("side", "Side", [(s.value, s.value) for s in Side]),
        )
        assert isinstance(side, ComboBinding)
        for i, s in enumerate(Side):
            side.combo.setItemIcon(i, swatch(style.side_color(s)))
        self._row(form, "Name", name.widget, tip=self.tips["name"], stretch=True)
        self._row(form, "Side", side.widget, tip=self.tips["side"])
        self._rows(form, self.spec.identity)
        return box

    def _build_numbers(self) -> QGroupBox:
        box, form = self._form(self.spec.numbers_title)
        self._rows(form, self.spec.numbers)
        move = self._bind("move_ft", int_binding("move_ft", "Move"))
        self._row(form, "Move", move.widget, "ft per turn", tip=self.tips["move_ft"])
        size = self._bind("size", ComboBinding("size", "Size", SIZES))
        self._row(form, "Size", size.widget, tip=self.tips["size"])
        vision = self._bind("vision_deg", int_binding("vision_deg", "Field of vision"))
        self._row(form, "Field of vision", vision.widget, "degrees", tip=self.tips["vision_deg"])
        darkvision = self._bind("darkvision_ft", int_binding("darkvision_ft", "Darkvision"))
        self._row(form, "Darkvision", darkvision.widget, "ft", tip=self.tips["darkvision_ft"])
        return box

    def _build_status(self) -> QGroupBox:
        box = QGroupBox("Traits and status")
        grid = QGridLayout(box)
        trait = Trait.CANNOT_BE_SURPRISED

        def with_trait(checked: bool, c: Any) -> list[str]:
            others = [t.value for t in c.traits if t is not trait]
            return [*others, trait.value] if checked else others

        flags = [
            self._bind(
                "cannot_be_surprised",
                CheckBinding("traits", "Cannot be surprised", lambda c: c.cannot_be_surprised, with_trait),
            ),
            self._bind("concealed", CheckBinding("concealed", "Concealed")),
            self._bind("distracted", CheckBinding("distracted", "Distracted")),
            self._bind("surprised", CheckBinding("surprised", "Surprised")),
        ]
        for i, flag in enumerate(flags):
            grid.addWidget(flag.widget, i // 2, i % 2)
        conditions = self._bind(
            "conditions",
            LineBinding(
                "conditions", "Conditions", lambda c: ", ".join(c.conditions), lambda text, c: parse_conditions(text)
            ),
        )
        assert isinstance(conditions, LineBinding)
        conditions.edit.setPlaceholderText("none, or e.g. prone, poisoned")
        self.conditions_button = QPushButton("Add / end", box)
        self.conditions_button.setToolTip(self.tips["conditions_menu"])
        # Filled as it opens: the conditions and what is left of them as they are now.
        self.conditions_menu = QMenu(self.conditions_button)
        self.conditions_menu.aboutToShow.connect(self.fill_conditions_menu)
        self.conditions_button.setMenu(self.conditions_menu)
        caption = QLabel("Conditions")
        caption.setToolTip(self.tips["conditions"])
        grid.addWidget(caption, 2, 0, 1, 2)
        line = QHBoxLayout()
        line.addWidget(conditions.widget, 1)
        line.addWidget(self.conditions_button)
        grid.addLayout(line, 3, 0, 1, 2)
        # What is left of each condition that ends by itself; the line above keeps the bare words,
        # so typing there never touches a duration of a condition kept.
        self.conditions_left = QLabel(box)
        self.conditions_left.setWordWrap(True)
        self.conditions_left.setToolTip("What is left of each condition that ends by itself (RULES §10)")
        self.conditions_left.hide()
        grid.addWidget(self.conditions_left, 4, 0, 1, 2)
        return box

    def fill_conditions_menu(self) -> QMenu:
        """The conditions button's menu made afresh for the combatant shown (its old entries dropped)."""
        menu = self.conditions_menu
        for old in menu.findChildren(QMenu, options=Qt.FindChildOption.FindDirectChildrenOnly):
            old.deleteLater()  # the last opening's sub-menus, which clear() leaves
        menu.clear()
        if self.combatant_id is not None:
            fill_condition_menu(menu, self.controller, self.combatant_id)
        return menu

    def _refresh_conditions_left(self, c: Any) -> None:
        names = self.controller.encounter.names() if c.durations else {}
        left = [condition_label(c, word, names) for word in c.conditions if duration_of(c, word) is not None]
        text = "\n".join(left)  # one a line: a duration may hold a comma or a semicolon
        if text != self.conditions_left.text():
            self.conditions_left.setText(text)
        self.conditions_left.setVisible(bool(text))

    def _build_list(self, item_list: ItemList) -> QGroupBox:
        """A table of the ruleset's list (weapons, spells...); ``<key>_table``/``_model`` name it for scripts."""
        key, noun = item_list.key, item_list.noun
        box, table, add, remove = item_box(self, key, noun, item_list.columns, item_list.tip)
        model: ItemListModel = table.model()  # type: ignore[assignment]
        self.item_tables[key], self.item_models[key] = table, model
        setattr(self, f"{key}_table", table)
        setattr(self, f"{key}_model", model)
        setattr(self, f"add_{noun}_button", add)
        setattr(self, f"remove_{noun}_button", remove)
        return box

    def _build_box(self, box: ItemBox) -> QGroupBox:
        """The box of an item the stat block may have or not (a shield): a tick, then a row per part;
        its editors are named "<key>.<part>" ("shield.armor")."""
        group, form = self._form(box.title)

        def present(checked: bool, c: Any) -> dict[str, Any] | None:
            if not checked:
                return None
            item = getattr(c, box.key)  # the box's own field of the stat block
            return item.model_dump(mode="json") if item is not None else dict(box.new_item)

        has = CheckBinding(box.key, box.has, lambda c: getattr(c, box.key) is not None, present)
        form.addRow(self._bind(box.key, has, box.tip).widget)
        for part in box.fields:
            self._bind(f"{box.key}.{part.key}", self._part_binding(box, part), part.tip)
        for row in box.rows:
            parts: list[QWidget | str] = []
            for i, key in enumerate(row.keys):
                if i:
                    parts.append("/")
                parts.append(self.bindings[f"{box.key}.{key}"].widget)
            texts = [p.key for p in box.fields if p.key in row.keys and p.kind == "text"]
            self._row(form, row.label, *parts, tip=row.tip, stretch=len(row.keys) == 1 and bool(texts))
        return group

    def _part_binding(self, box: ItemBox, part: ItemColumn) -> Binding:
        """The editor of one part of a box's item: a choice, or a line for a number or words."""
        if part.kind in ("choice", "optional choice"):

            def read(c: Any) -> Any:
                item = getattr(c, box.key)
                return plain(getattr(item, part.key)) if item is not None else None

            def build(data: Any, c: Any) -> Any:
                return item_with(box, c, part.title, part.key, data)

            choices = [(choice, choice) for choice in part.choices]
            return ComboBinding(box.key, part.title, choices, read=read, build=build)
        number = part.kind in ("int", "optional int")
        return ItemPartBinding(box, part.key, part.title, number=number, width=70 if number else None)

    def _build_notes(self) -> QGroupBox:
        box = QGroupBox("Notes")
        layout = QVBoxLayout(box)
        layout.addWidget(self._bind("notes", NotesBinding()).widget)
        return box

    # -- a party character in the encounter's combatant's place ----------------------------------

    def attach_party(self, party: Any) -> None:
        """Show the party character the Party dock picks (the window's WindowParty), edited on a sheet
        of its own made like this one (:mod:`lnl_desktop.ui.docks.sheet_party`)."""
        from lnl_desktop.ui.docks.sheet_party import PartySheetHost

        self.party_host = PartySheetHost(party, self, lambda scratch: type(self)(scratch, self))

    def show_other(self, other: QWidget | None) -> None:
        """``other`` (a party character's sheet) in this one's place, or None: the encounter's again."""
        if other is not None and self.stack.indexOf(other) < 0:
            self.stack.addWidget(other)
        self.other = other
        self.refresh(force=True)

    # -- looking up and showing --------------------------------------------------------------

    def current(self) -> Any:
        """The combatant on the sheet, looked up afresh (undo replaces the objects)."""
        return self.controller.combatant(self.combatant_id) if self.combatant_id else None

    def table_for(self, key: str) -> FittedTable:
        return self.item_tables[key]

    def editor(self, name: str) -> QWidget:
        """The widget that edits ``name`` ("level", "shield.armor", "notes"...)."""
        return self.bindings[name].widget

    def _on_events(self, events: list[Any]) -> None:
        if self.controller.engine.ruleset.name != self.ruleset_name:
            self._build_form()  # converted to another ruleset: its fields now
            self.refresh(force=True)
            return
        self.refresh()

    def _on_replaced(self) -> None:
        if self.controller.engine.ruleset.name != self.ruleset_name:
            self._build_form()
        self._on_selection(self.controller.selected or "")

    def _on_selection(self, cid: str) -> None:
        self.combatant_id = cid or None
        self._clear_message()
        self.refresh(force=True)

    def refresh(self, force: bool = False) -> None:
        """Show the combatant's values; a field the GM is typing in keeps its text unless ``force``."""
        c = self.current()
        if self.other is not None:
            self.stack.setCurrentWidget(self.other)
            return
        self.stack.setCurrentIndex(1 if c is not None else 0)
        for key, model in self.item_models.items():
            model.refresh()
            self.item_tables[key].fit_height()
        if c is None:
            return
        side = style.side_color(c.side).name()
        self.title.setText(f'<span style="color:{side}">■</span> {_escape(c.name)}')
        self.summary.setText(self.controller.engine.ruleset.views.summary(c))
        self._refresh_portrait(c)
        self._refresh_tools(c)
        self.mapper.show_row(self.combatants.row_of(c.id), force)
        self._refresh_conditions_left(c)
        for box in self.spec.boxes:
            has = getattr(c, box.key, None) is not None  # the box's own field (a shield)
            for name, binding in self.bindings.items():
                if name.startswith(f"{box.key}."):
                    binding.widget.setEnabled(has)

    def _refresh_tools(self, c: Any) -> None:
        """One button per roll the ruleset offers for ``c`` (none: no row); rebuilt only when they change."""
        specs = combatant_tools(self.controller, c.id)
        shown = (c.id, tuple((s.title, s.text) for s in specs))
        if shown == self._tools_shown:
            return
        self._tools_shown = shown
        while self.tools_layout.count():
            child = self.tools_layout.takeAt(0)
            widget = child.widget() if child is not None else None
            if widget is not None:
                widget.deleteLater()
        self.tool_buttons = []
        for spec in specs:
            button = QPushButton(tool_label(spec, c.id).replace("&", "&&"), self.tools_bar)
            button.setToolTip(f"{spec.title}: {spec.text}")
            button.clicked.connect(lambda _=False, s=spec, cid=c.id: self.open_tool(s, cid))
            self.tools_layout.addWidget(button)
            self.tool_buttons.append(button)
        self.tools_layout.addStretch(1)
        self.tools_bar.setVisible(bool(specs))

    def open_tool(self, spec: PromptSpec, cid: str | None = None) -> ToolDialog:
        """Open a roll on demand for the combatant shown (a saving throw) in its dialog, one at a time."""
        if self.tool_dialog is not None:
            self.tool_dialog.close()
        dialog = ToolDialog(self.controller, spec, self.window(), who=cid or self.combatant_id or "")
        dialog.finished.connect(lambda _=0, d=dialog: self._tool_closed(d))
        self.tool_dialog = dialog
        dialog.ask()
        return dialog

    def _tool_closed(self, dialog: ToolDialog) -> None:
        if self.tool_dialog is dialog:
            self.tool_dialog = None
        dialog.deleteLater()

    # -- committing --------------------------------------------------------------------------

    def _commit_binding(self, binding: Binding) -> bool:
        c = self.current()
        if c is None:
            return False
        try:
            value = binding.value(c)
        except BadInput as error:
            self.refuse(str(error), binding.widget)
            binding.show(c)
            return False
        ok = self.commit(binding.key, value, binding.widget)
        c = self.current()
        if c is not None:
            binding.show(c)  # the model's value, whether the edit went through or not
        return ok

    def commit(self, key: str, value: Any, widget: QWidget | None = None) -> bool:
        """Send ``{key: value}`` as one edit; on refusal show why, mark ``widget``, change nothing."""
        c = self.current()
        if c is None:
            return False
        if c.model_dump(mode="json").get(key) == value:
            return True  # nothing to change: no empty step on the undo stack
        # A typed HP, SP or IP is damage or healing, decided by the core once (RULES §10).
        events = self.controller.do(health_edit(self.controller.engine.ruleset, c, key, value))
        if events is None:
            label = next((b.label for b in self.bindings.values() if b.key == key), humanize(key))
            self.refuse(self.controller.refusal or f"{label}: the change was refused", widget)
            self.refresh(force=True)
            return False
        self._clear_message()
        return True

    def refuse(self, message: str, widget: QWidget | None = None) -> None:
        """Show why an edit did not happen, right on the sheet, and mark the field."""
        self.message_label.refuse(message)
        self._unmark(self._marked)
        if widget is not None:
            widget.setProperty("invalid", True)
            _repolish(widget)
            self._marked = widget
        self.editRefused.emit(message)

    def _unmark(self, widget: QWidget | None) -> None:
        if widget is not None and widget.property("invalid"):
            widget.setProperty("invalid", False)
            _repolish(widget)
        if widget is self._marked:
            self._marked = None

    def _clear_message(self) -> None:
        self.message_label.clear_refusal()
        self._unmark(self._marked)

    @property
    def message(self) -> str:
        """The refusal shown under the form ("" when none)."""
        return self.message_label.shown_text

    # -- the picture -------------------------------------------------------------------------

    def choose_portrait(self) -> bool:
        """Ask for a picture file, then make it the combatant's portrait (one undo step)."""
        c = self.current()
        if c is None:
            return False
        start = self.folders.start() if self.folders is not None else ""
        name, _ = QFileDialog.getOpenFileName(self, f"Picture for {c.name}", start, PICTURE_FILTER)
        if not name:
            return False
        if self.folders is not None:
            self.folders.remember(Path(name))
        return self.set_portrait_from_file(name)

    def set_portrait_from_file(self, path: str | Path) -> bool:
        """The picture at ``path`` as the combatant's portrait: one SetPortrait, undoable and logged.
        A file that is no readable picture is refused with the reason, and nothing changes."""
        c = self.current()
        if c is None:
            return False
        try:
            data = portrait_from_file(path)
        except PictureRefused as refused:
            self.refuse(str(refused), self.portrait_label)
            return False
        return self._set_portrait(c, data)

    def remove_portrait(self) -> bool:
        """Take the combatant's picture away (one SetPortrait; Undo brings it back)."""
        c = self.current()
        if c is None or c.portrait is None:
            return False
        return self._set_portrait(c, None)

    def _set_portrait(self, c: Any, data: str | None) -> bool:
        if c.portrait == data:
            self._clear_message()
            return True  # the same picture: no empty step on the undo stack
        if self.controller.do(act.SetPortrait(c.id, data)) is None:
            self.refuse(self.controller.refusal or "The picture was refused", self.portrait_label)
            return False
        self._clear_message()
        return True

    @staticmethod
    def _dropped_file(event: QDragEnterEvent | QDragMoveEvent | QDropEvent) -> str | None:
        """The one local file a drag carries, or None."""
        data = event.mimeData()
        if not data.hasUrls():
            return None
        files = [url.toLocalFile() for url in data.urls() if url.isLocalFile()]
        return files[0] if len(files) == 1 else None

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if self.current() is not None and self._dropped_file(event) is not None:
            event.acceptProposedAction()
        else:
            event.ignore()

    def dragMoveEvent(self, event: QDragMoveEvent) -> None:
        if self.current() is not None and self._dropped_file(event) is not None:
            event.acceptProposedAction()
        else:
            event.ignore()

    def dropEvent(self, event: QDropEvent) -> None:
        path = self._dropped_file(event)
        if self.current() is None or path is None:
            event.ignore()
            return
        event.acceptProposedAction()
        self.set_portrait_from_file(path)

    # -- list edits --------------------------------------------------------------------------

    def add_condition(self, word: str) -> bool:
        c = self.current()
        if c is None or word in c.conditions:
            return False
        return self.commit("conditions", [*c.conditions, word], self.editor("conditions"))

    def add_item(self, key: str, noun: str) -> bool:
        """Add a weapon or a spell with a free name and a d6, then select it."""
        c = self.current()
        if c is None:
            return False
        model: ItemListModel = self.table_for(key).model()  # type: ignore[assignment]
        items = model.dumped()
        names = {item["name"] for item in items}
        name, n = f"New {noun}", 2
        while name in names:
            name, n = f"New {noun} {n}", n + 1
        new = next((dict(i.new_item) for i in self.spec.lists if i.key == key), {})
        ok = self.commit(key, [*items, {"name": name, **new}], self.table_for(key))
        if ok:
            table = self.table_for(key)
            table.selectRow(model.rowCount() - 1)
        return ok

    def remove_item(self, key: str, row: int | None = None) -> bool:
        """Remove the selected (or the given) weapon or spell."""
        table = self.table_for(key)
        if row is None:
            rows = table.selectionModel().selectedRows()
            if not rows:
                return False
            row = rows[0].row()
        model: ItemListModel = table.model()  # type: ignore[assignment]
        items = model.dumped()
        if not 0 <= row < len(items):
            return False
        del items[row]
        return self.commit(key, items, table)


def _repolish(widget: QWidget) -> None:
    widget.style().unpolish(widget)
    widget.style().polish(widget)
    widget.update()


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
