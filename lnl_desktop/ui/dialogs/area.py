"""The Area effect dialog (RULES §14): on a template laid on the map, the GM picks the effect — a
caster's spell, breath or bomb with an area, or a free effect typed in (dice, and the ruleset's own
fields its AreaSpec describes: a save and DC, DEX and AP) — sees every creature it strikes with the
ruleset's forecast (save chance, damage after its defences, the chance it drops), may untick a
target or tick cover, and rolls once for all: with the app's dice or faces typed from the table's
own (a dry run checks them first). One AreaEffect: one undo step and one log entry with every
target's numbers.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QSignalBlocker, Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMenu,
    QPushButton,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from lnl_desktop.core.dice.rolls import DiceSource, ScriptedDice
from lnl_desktop.core.encounter.actions import AreaEffect
from lnl_desktop.core.encounter.areas import Template
from lnl_desktop.core.encounter.events import Event
from lnl_desktop.core.errors import RulesError
from lnl_desktop.core.map.areas import cover_counts, struck_by
from lnl_desktop.core.rules.specs import AreaMeans, AreaSpec
from lnl_desktop.ui.dialogs.faces import FacesDialog, check_faces, engine_dry_run, faces_example, faces_hint
from lnl_desktop.ui.dialogs.setting_editors import setting_editor, setting_shown, setting_value
from lnl_desktop.ui.plumbing.controller import TableController
from lnl_desktop.ui.plumbing.widgets import RefusalLabel

FREE = ""  # the caster combo's data for a free effect
MNEMONICS = "CENDLRF"  # the dialog's own: Caster, Effect, Name, Dice, Lift, Roll, Faces
COL_TARGET, COL_SIDE, COL_COVER, COL_SAVE, COL_DAMAGE, COL_DROP = range(6)


def with_mnemonic(label: str, taken: set[str]) -> str:
    """``label`` with an Alt key: its first letter no other field takes, else its second (Qt cycles
    through the fields sharing one: "D&C" beside "&Dice")."""
    letters = [i for i, ch in enumerate(label) if ch.isalnum()]
    free = next((i for i in letters if label[i].upper() not in taken), None)
    at = free if free is not None else (letters[1:2] or letters[:1] or [None])[0]
    if at is None:
        return label
    taken.add(label[at].upper())
    return f"{label[:at]}&{label[at:]}"


def no_area_effects(title: str) -> str:
    """Why an area effect is refused in a ruleset without them (the Template tool and the dialog)."""
    return f"{title} has no area effects"


class AreaEffectDialog(QDialog):
    """Resolve an effect on everyone a template strikes, through the encounter's ruleset."""

    def __init__(
        self,
        controller: TableController,
        template: Template,
        parent: QWidget | None = None,
        caster: str = "",
        means: str = "",
    ) -> None:
        super().__init__(parent)
        self.controller = controller
        self.template = template
        self.ruleset = controller.engine.ruleset
        self.areas = self.ruleset.areas  # None for a ruleset without area effects: the dialog says so
        self.lacking = "" if self.areas is not None else no_area_effects(self.ruleset.title)
        self.spec = self.areas.spec() if self.areas is not None else AreaSpec()
        self.setWindowTitle(f"Area effect — {template.words}")
        self.setMinimumWidth(540)
        encounter = controller.encounter
        t, cover = template, cover_counts(self.areas)
        _, self.struck = struck_by(encounter, t.shape, t.origin, t.size_ft, t.direction, cover_counts=cover)

        self.caster_combo = QComboBox(self)
        self.caster_combo.setToolTip(
            "Who lays the effect: it uses their action (listed: those with a spell, breath or bomb of this very "
            "area). A free effect (a trap) uses nobody's"
        )
        self.caster_combo.addItem("Nobody: a free effect", FREE)
        active = encounter.combat.turn.combatant if encounter.combat.turn is not None else None
        for c in encounter.combatants:
            if self.matching(c):
                self.caster_combo.addItem(c.name, c.id)
        wanted = caster or (active if active and self.matching(controller.combatant(active)) else FREE)
        index = self.caster_combo.findData(wanted)
        self.caster_combo.setCurrentIndex(max(index, 0))
        self.means_combo = QComboBox(self)
        self.means_combo.setToolTip("The caster's spell, breath or bomb with an area")
        self._wanted_means = means

        self.name_edit = QLineEdit(template.label or "", self)
        self.name_edit.setPlaceholderText("Falling rocks, fire trap…")
        self.name_edit.setMaxLength(60)
        self.dice_edit = QLineEdit(self.spec.default_dice, self)
        self.dice_edit.setToolTip("The damage, rolled once for every target: 2d6, 3d6+2, 8d6")
        # The ruleset's own fields, an editor each (AreaEffect.extras of the same keys).
        self.editors: dict[str, QWidget] = {
            s.key: setting_editor(s, self, self.spec.choice_words, self.spec.unset_words.get(s.key, ""))
            for s in self.spec.settings
        }

        form = QFormLayout()
        form.addRow("&Caster:", self.caster_combo)
        form.addRow("&Effect:", self.means_combo)
        form.addRow("&Name:", self.name_edit)
        form.addRow("&Dice:", self.dice_edit)
        # What only a free effect asks: a caster's means says it itself.
        self.free_fields: list[QWidget] = [self.dice_edit]
        self.free_fields += [self.editors[key] for key in self.spec.free_only if key in self.editors]
        taken = set(MNEMONICS)
        checks = QWidget(self)
        row = QHBoxLayout(checks)
        row.setContentsMargins(0, 0, 0, 0)
        for s in self.spec.settings:
            if s.kind == "bool":  # the check boxes side by side on one row
                row.addWidget(self.editors[s.key])
            else:
                form.addRow(f"{with_mnemonic(s.label, taken)}:", self.editors[s.key])
        row.addStretch(1)
        if row.count() > 1:
            form.addRow("", checks)
        else:
            checks.hide()

        self.table = QTableWidget(0, 6, self)
        self.table.setHorizontalHeaderLabels(["Target", "Side", "Cover", "Save", "Damage", "Drops"])
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setSelectionMode(QTableWidget.SelectionMode.NoSelection)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(COL_TARGET, QHeaderView.ResizeMode.Stretch)
        for col in (COL_SIDE, COL_COVER, COL_SAVE, COL_DAMAGE, COL_DROP):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        self.table.setColumnHidden(COL_COVER, not self.spec.cover)
        self.table.setToolTip("Untick a target the effect spares; tick cover where it counts (half damage)")
        self._fill_targets()
        rows = max(1, min(len(self.struck), 8))  # the table as tall as its targets, up to eight
        height = (
            self.table.horizontalHeader().sizeHint().height() + rows * self.table.verticalHeader().defaultSectionSize()
        )
        self.table.setMinimumHeight(height + 4)
        self.table.setMaximumHeight(height + 4 if len(self.struck) <= 8 else 16777215)

        self.notes_label = QLabel("\n".join(self.spec.notes), self)
        self.notes_label.setWordWrap(True)
        self.notes_label.setObjectName("note")
        self.lift_check = QCheckBox("&Lift the template after (an instant effect)", self)
        self.lift_check.setChecked(True)
        self.lift_check.setToolTip("Off: the template stays on the map (a lingering cloud, a fire)")
        self.refusal = RefusalLabel(self)

        self.roll_button = QPushButton("&Roll", self)
        self.roll_button.setDefault(True)
        self.roll_button.setToolTip("Roll the damage once (and each target's save) with the app's dice")
        self.faces_button = QPushButton("Type &faces…", self)
        self.faces_button.setToolTip("Type the faces of the table's own dice (checked before anything is applied)")
        self.cancel_button = QPushButton("Close", self)
        self.cancel_button.setToolTip("Apply nothing (the template stays on the map)")
        self.roll_button.clicked.connect(lambda: self.roll())
        self.faces_button.clicked.connect(lambda: self.type_faces())
        self.cancel_button.clicked.connect(self.reject)
        buttons = QHBoxLayout()
        buttons.addWidget(self.roll_button, 1)
        buttons.addWidget(self.faces_button, 1)
        buttons.addWidget(self.cancel_button)

        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.table, 1)
        if self.spec.notes:
            layout.addWidget(self.notes_label)
        layout.addWidget(self.lift_check)
        layout.addWidget(self.refusal)
        layout.addLayout(buttons)

        self.faces_dialog: FacesDialog | None = None
        self.caster_combo.currentIndexChanged.connect(self._caster_changed)
        self.means_combo.currentIndexChanged.connect(self._refresh)
        for edit in (self.name_edit, self.dice_edit):
            edit.textChanged.connect(self._refresh)
        for editor in self.editors.values():
            if isinstance(editor, QSpinBox):
                editor.setKeyboardTracking(True)  # the forecast follows every digit typed
            setting_shown(editor).connect(self._refresh)
        self.table.itemChanged.connect(self._refresh)
        self._caster_changed()

    # -- the targets ----------------------------------------------------------------------------

    def _fill_targets(self) -> None:
        encounter = self.controller.encounter
        names = {c.id: c for c in encounter.combatants}
        self.table.setRowCount(len(self.struck))
        for row, s in enumerate(self.struck):
            c = names[s.combatant]
            item = QTableWidgetItem(c.name)
            item.setData(Qt.ItemDataRole.UserRole, s.combatant)
            item.setFlags(Qt.ItemFlag.ItemIsUserCheckable | Qt.ItemFlag.ItemIsEnabled)
            down = c.down
            item.setCheckState(Qt.CheckState.Unchecked if down else Qt.CheckState.Checked)
            if down:
                item.setToolTip("Already down: unticked (tick it to strike it all the same)")
            self.table.setItem(row, COL_TARGET, item)
            self.table.setItem(row, COL_SIDE, QTableWidgetItem(c.side.value))
            cover = QTableWidgetItem("")
            cover.setFlags(Qt.ItemFlag.ItemIsUserCheckable | Qt.ItemFlag.ItemIsEnabled)
            cover.setCheckState(Qt.CheckState.Checked if s.cover else Qt.CheckState.Unchecked)
            cover.setToolTip("Under cover: the origin sees only part of it (half damage)")
            self.table.setItem(row, COL_COVER, cover)
            for col in (COL_SAVE, COL_DAMAGE, COL_DROP):
                self.table.setItem(row, col, QTableWidgetItem(""))

    def targets(self) -> tuple[str, ...]:
        return tuple(
            self.table.item(row, COL_TARGET).data(Qt.ItemDataRole.UserRole)
            for row in range(self.table.rowCount())
            if self.table.item(row, COL_TARGET).checkState() == Qt.CheckState.Checked
        )

    def covered(self) -> tuple[str, ...]:
        if not self.spec.cover:
            return ()
        ticked = set(self.targets())
        out = []
        for row in range(self.table.rowCount()):
            cid = self.table.item(row, COL_TARGET).data(Qt.ItemDataRole.UserRole)
            if cid in ticked and self.table.item(row, COL_COVER).checkState() == Qt.CheckState.Checked:
                out.append(cid)
        return tuple(out)

    def set_target(self, cid: str, on: bool) -> None:
        for row in range(self.table.rowCount()):
            item = self.table.item(row, COL_TARGET)
            if item.data(Qt.ItemDataRole.UserRole) == cid:
                item.setCheckState(Qt.CheckState.Checked if on else Qt.CheckState.Unchecked)

    def set_cover(self, cid: str, on: bool) -> None:
        for row in range(self.table.rowCount()):
            if self.table.item(row, COL_TARGET).data(Qt.ItemDataRole.UserRole) == cid:
                self.table.item(row, COL_COVER).setCheckState(Qt.CheckState.Checked if on else Qt.CheckState.Unchecked)

    # -- the effect -----------------------------------------------------------------------------

    def matching(self, c: object | None) -> tuple[AreaMeans, ...]:
        """The combatant's spells, breaths and bombs whose own area this template is (a spell strikes
        its own shape and size: the Action dock's Area effect… lays it)."""
        t = self.template
        means = self.areas.means(c) if self.areas is not None and c is not None else ()
        return tuple(m for m in means if (m.area.shape, m.area.size_ft) == (t.shape, t.size_ft))

    def caster(self) -> str:
        return str(self.caster_combo.currentData() or "")

    def _caster_changed(self) -> None:
        caster = self.caster()
        with QSignalBlocker(self.means_combo):
            self.means_combo.clear()
            if caster:
                c = self.controller.combatant(caster)
                for means in self.matching(c):
                    self.means_combo.addItem(f"{means.name} — {means.area.words}", means.name)
                    self.means_combo.setItemData(self.means_combo.count() - 1, means.words, Qt.ItemDataRole.ToolTipRole)
                found = self.means_combo.findData(self._wanted_means)
                self.means_combo.setCurrentIndex(max(found, 0))
            else:
                self.means_combo.addItem("A free effect (typed below)", "")
        free = not caster
        for widget in self.free_fields:
            widget.setEnabled(free)
        self.name_edit.setEnabled(free)
        self._refresh()

    def selected_means(self) -> AreaMeans | None:
        caster = self.controller.combatant(self.caster()) if self.caster() else None
        name = self.means_combo.currentData()
        if caster is None or not name:
            return None
        return next((m for m in self.matching(caster) if m.name == name), None)

    def action(self) -> AreaEffect:
        t = self.template
        caster = self.caster()
        means = self.selected_means()
        return AreaEffect(
            shape=t.shape.value,
            origin=t.origin,
            size_ft=t.size_ft,
            direction=t.direction,
            targets=self.targets(),
            caster=caster,
            means=means.name if means is not None else "",
            name="" if caster else self.name_edit.text().strip(),
            dice="" if caster else self.dice_edit.text().strip(),
            cover=self.covered(),
            template=t.id,
            lift=self.lift_check.isChecked(),
            # The ruleset's own fields, read with AreaEffect.extra; a caster's means says its free-only ones.
            extras={
                key: setting_value(editor)
                for key, editor in self.editors.items()
                if not (caster and key in self.spec.free_only)
            },
        )

    def _refresh(self, *_: object) -> None:
        """The forecast per target for the effect as it is set now."""
        action = self.action()
        with QSignalBlocker(self.table):
            try:
                areas = self.areas
                odds = areas.forecast(self.controller.encounter, action) if areas and action.targets else {}
                problem = self.lacking
            except RulesError as refused:
                odds, problem = {}, str(refused)
            for row in range(self.table.rowCount()):
                cid = self.table.item(row, COL_TARGET).data(Qt.ItemDataRole.UserRole)
                o = odds.get(cid)
                save = o.save if o is not None else ""
                damage = o.damage if o is not None else "—"
                drop = f"{o.drop:.0%}" if o is not None and o.drop is not None else "—"
                for col, text in ((COL_SAVE, save), (COL_DAMAGE, damage), (COL_DROP, drop)):
                    item = self.table.item(row, col)
                    item.setText(text)
                    item.setToolTip(o.words if o is not None else "")
        self.table.setColumnHidden(COL_SAVE, not self.spec.saves)
        self.refusal.setText(problem)
        can = bool(action.targets) and not self.lacking
        self.roll_button.setEnabled(can)
        self.faces_button.setEnabled(can)
        if self.lacking:  # disabled, and says why
            self.roll_button.setToolTip(self.lacking)
            self.faces_button.setToolTip(self.lacking)

    # -- rolling --------------------------------------------------------------------------------

    def roll(self) -> list[Event] | None:
        """Resolve the effect with the app's dice; the dialog closes when it is applied."""
        return self._apply(None)

    def _apply(self, dice: DiceSource | None) -> list[Event] | None:
        if self.lacking:
            self.refusal.setText(self.lacking)
            return None
        events = self.controller.do(self.action(), dice)
        if events is None:
            self.refusal.setText(self.controller.refusal or "refused")
            return None
        self.accept()
        return events

    def type_faces(self) -> FacesDialog | None:
        """The faces of the table's own dice: the damage once, then what each target rolls."""
        if self.lacking:
            self.refusal.setText(self.lacking)
            return None
        dry_run = engine_dry_run(self.controller.encounter, self.action())
        try:
            hint = faces_hint(dry_run)
            example = faces_example(dry_run)
        except RulesError as refused:
            self.refusal.setText(str(refused))
            return None
        dialog = FacesDialog(
            f"{self.template.words} — type the faces", hint, lambda faces: check_faces(faces, dry_run), self, example
        )
        dialog.accepted.connect(lambda: self.apply_faces(dialog.faces() or []))
        dialog.finished.connect(dialog.deleteLater)
        self.faces_dialog = dialog
        dialog.open()
        return dialog

    def apply_faces(self, faces: list[int]) -> list[Event] | None:
        reason = check_faces(faces, engine_dry_run(self.controller.encounter, self.action()))
        if reason is not None:
            self.refusal.setText(f"Faces refused: {reason}")
            return None
        return self._apply(ScriptedDice(faces))


class AreaEffectButton(QPushButton):
    """The Action dock's *Area effect…*: for an active combatant with a spell, breath or bomb that
    strikes an area, takes up the Template tool with that area (its shape and size, the caster and
    the means set); releasing the template on the map opens :class:`AreaEffectDialog` on it."""

    lay = Signal(object, str)  # (AreaMeans, the caster's id)

    def __init__(self, controller: TableController, parent: QWidget | None = None) -> None:
        super().__init__("Area effect…", parent)
        self.controller = controller
        self.caster = ""
        self.menu_shown: QMenu | None = None
        self.clicked.connect(self._clicked)

    def _means(self, c: object | None) -> tuple[AreaMeans, ...]:
        areas = self.controller.engine.ruleset.areas
        return areas.means(c) if areas is not None and c is not None else ()

    def show_for(self, c: Any) -> None:
        means = self._means(c)
        self.caster = c.id if means else ""
        self.setVisible(bool(means))
        if means:
            names = ", ".join(f"{m.name} ({m.area.words.removeprefix('a ')})" for m in means)
            self.setToolTip(f"Lay the area of {names} on the map, then resolve it on everyone it strikes")

    def _clicked(self) -> None:
        means = self._means(self.controller.combatant(self.caster) if self.caster else None)
        if len(means) == 1:
            self.lay.emit(means[0], self.caster)
        elif means:
            menu = QMenu(self)
            for m in means:
                menu.addAction(f"{m.name} — {m.area.words}", lambda m=m: self.lay.emit(m, self.caster))
            self.menu_shown = menu
            menu.popup(self.mapToGlobal(self.rect().bottomLeft()))
