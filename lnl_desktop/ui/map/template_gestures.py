"""The template gestures of the map (RULES §14): the Template tool lays one from its origin, the
Select tool moves a placed one by its body and resizes and turns it by its handle; and a
template's right-click menu. What a template looks like is :mod:`.templates`."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QKeyEvent, QKeySequence, QMouseEvent
from PySide6.QtWidgets import QApplication, QInputDialog, QMenu, QWidget

from lnl_desktop.core.encounter.actions import Action, EditTemplate, PlaceTemplate, RemoveTemplate
from lnl_desktop.core.encounter.areas import Template, area_words
from lnl_desktop.core.map.areas import AreaShape, Struck, cover_counts, drag_size, snap_origin, struck_by
from lnl_desktop.core.map.grid import Cell, direction_deg
from lnl_desktop.ui.dialogs.area import no_area_effects
from lnl_desktop.ui.map.gestures import Gesture, MapSurface
from lnl_desktop.ui.map.templates import PREVIEW_Z, StruckRings, TemplateItem, TemplateLayer, TemplateStyle, to_cells

if TYPE_CHECKING:
    from lnl_desktop.core.encounter.events import Event
    from lnl_desktop.ui.map.scene import MapScene
    from lnl_desktop.ui.plumbing.controller import TableController


class TemplateSurface(MapSurface, Protocol):
    """What the template gestures need of the map view, beyond any gesture's."""

    template_style: TemplateStyle

    def open_area_effect(self, template_id: str, caster: str = "", means: str = "") -> object: ...
    def pick_within(self) -> float: ...


class _Preview:
    """A template being laid, moved or resized: its item and rings, worked out afresh each move."""

    def __init__(self, view: TemplateSurface) -> None:
        self.view = view
        self.item = TemplateItem(player=False, z=PREVIEW_Z)
        self.rings = StruckRings()
        self.struck: list[Struck] = []

    def show(self) -> None:
        scene = self.view.map_scene
        scene.addItem(self.item)
        scene.addItem(self.rings)

    def update(self, template: Template) -> None:
        encounter = self.view.controller.encounter
        cover = cover_counts(self.view.controller.engine.ruleset.areas)  # only where cover changes anything
        t = template
        strike_, struck = struck_by(encounter, t.shape, t.origin, t.size_ft, t.direction, cover_counts=cover)
        self.struck = struck
        self.item.set_template(template, strike_)
        self.rings.set_rings(encounter, struck)
        names = encounter.names()
        who = ", ".join(names.get(s.combatant, s.combatant) + (" (cover)" if s.cover else "") for s in struck)
        words = area_words(template.shape, template.size_ft)
        self.view.say(f"{words[0].upper()}{words[1:]}: {who or 'nobody inside'}")

    def hide(self) -> None:
        for item in (self.item, self.rings):
            if item.scene() is not None:
                item.scene().removeItem(item)


def _draft(shape: AreaShape, origin: tuple[float, float], size: int, direction: float, label: str = "") -> Template:
    # model_construct: a preview on every mouse move needs no validation (the engine checks the real one).
    return Template.model_construct(
        id="preview",
        shape=shape,
        size_ft=size,
        origin=origin,
        direction=direction % 360,
        label=label,
        colour="#e8702a",
        shown=True,
    )


def _clamp(view: MapSurface, point: tuple[float, float]) -> tuple[float, float]:
    grid = view.controller.encounter.map
    return (min(max(point[0], 0.0), float(grid.width)), min(max(point[1], 0.0), float(grid.height)))


def _aim(origin: tuple[float, float], point: tuple[float, float], fine: bool) -> float:
    """The direction from the origin to the cursor, in whole degrees (15° steps with Shift held)."""
    deg = direction_deg(origin, point)
    step = 15.0 if fine else 1.0
    return float(round(deg / step) * step % 360)


class LayTemplate(Gesture):
    """The Template tool: the press is the origin (snapped as §14 says), the drag sets the size and
    the direction; the release lays it (one PlaceTemplate) and, when anyone is struck, opens the
    Area effect dialog on it. Shift turns in 15° steps; Escape cancels."""

    keeps_hover = True

    def __init__(self, view: TemplateSurface, pos: QPointF) -> None:
        super().__init__(view)
        self.tview = view
        self.style = view.template_style
        self.origin = snap_origin(self.style.shape, _clamp(view, to_cells(view.scene_pos(pos))))
        self.size = self.style.fixed_size or self.style.last_size
        self.direction = self.style.last_direction
        self.pressed_at = pos
        self.dragged = False
        self.preview = _Preview(view)

    def _template(self) -> Template:
        return _draft(self.style.shape, self.origin, self.size, self.direction, self.style.label)

    def start(self) -> None:
        self.preview.show()
        self.preview.update(self._template())

    def steers(self, key: int) -> bool:
        return key == Qt.Key.Key_Escape

    def move(self, event: QMouseEvent, cell: Cell) -> None:
        pos = event.position()
        if not self.dragged and (pos - self.pressed_at).manhattanLength() < QApplication.startDragDistance():
            return
        self.dragged = True
        point = _clamp(self.view, to_cells(self.view.scene_pos(pos)))
        rule = self.view.controller.encounter.map.diagonal
        if point != self.origin:
            fine = bool(event.modifiers() & Qt.KeyboardModifier.ShiftModifier)
            self.direction = _aim(self.origin, point, fine)
            if self.style.fixed_size is None:
                self.size = drag_size(self.style.shape, self.origin, point, rule)
        self.preview.update(self._template())

    def release(self, event: QMouseEvent, cell: Cell) -> None:
        if event.button() != Qt.MouseButton.LeftButton:
            return
        self.move(event, cell)
        view = self.tview
        t = self._template()
        struck = bool(self.preview.struck)
        self.cancel()
        style = self.style
        style.last_size = t.size_ft if style.fixed_size is None else style.last_size
        style.last_direction = t.direction
        caster, means = style.caster, style.means
        # A caster's own area is laid once: the tool goes back to the GM's own templates.
        style.caster = style.means = style.label = ""
        style.fixed_size = None
        events = view.do(PlaceTemplate(t.shape.value, t.origin, t.size_ft, t.direction, t.label))
        ruleset = view.controller.engine.ruleset
        if events and struck and ruleset.areas is None:
            view.say(no_area_effects(ruleset.title))  # laid all the same: a template is the map's too
        elif events and struck:
            view.open_area_effect(view.controller.encounter.templates[-1].id, caster, means)

    def cancel(self) -> None:
        self.end()
        self.preview.hide()
        self.view.say("")

    def key_press(self, event: QKeyEvent) -> bool:
        if event.key() == Qt.Key.Key_Escape:
            self.cancel()
            return True
        return False


class ShapeTemplate(Gesture):
    """A placed template pressed with the Select tool: on its body a drag moves it (the origin
    snapped again), on its handle a drag resizes and turns it; the release is one EditTemplate."""

    keeps_hover = True

    def __init__(self, view: TemplateSurface, template: Template, pos: QPointF, resize: bool) -> None:
        super().__init__(view)
        self.tview = view
        self.template = template
        self.resize = resize
        self.pressed_at = pos
        self.start_point = to_cells(view.scene_pos(pos))
        self.active = False
        self.preview = _Preview(view)
        self.draft = template

    def start(self) -> None:
        self.view.controller.select(None)
        layer: TemplateLayer = self.view.map_scene.templates
        layer.select(self.template.id, self.view.controller.encounter)
        what = "drag to resize and turn it" if self.resize else "drag to move it; its handle resizes it"
        self.view.say(f"{self.template.words}: {what}, Delete removes it, right-click for its menu")

    def grabbing(self) -> bool:
        return self.active

    def steers(self, key: int) -> bool:
        return key == Qt.Key.Key_Escape

    def move(self, event: QMouseEvent, cell: Cell) -> None:
        pos = event.position()
        if not self.active and (pos - self.pressed_at).manhattanLength() < QApplication.startDragDistance():
            return
        if not self.active:
            self.active = True
            self.preview.show()
            item = self.view.map_scene.templates.items.get(self.template.id)
            if item is not None:
                item.setVisible(False)
        t = self.template
        point = _clamp(self.view, to_cells(self.view.scene_pos(pos)))
        if self.resize:
            direction, size = t.direction, t.size_ft
            if point != t.origin:
                direction = _aim(t.origin, point, bool(event.modifiers() & Qt.KeyboardModifier.ShiftModifier))
                size = drag_size(t.shape, t.origin, point, self.view.controller.encounter.map.diagonal)
            self.draft = _draft(t.shape, t.origin, size, direction, t.label)
        else:
            dx, dy = point[0] - self.start_point[0], point[1] - self.start_point[1]
            origin = snap_origin(t.shape, _clamp(self.view, (t.origin[0] + dx, t.origin[1] + dy)))
            self.draft = _draft(t.shape, origin, t.size_ft, t.direction, t.label)
        self.preview.update(self.draft)
        self.view.update_cursor()

    def release(self, event: QMouseEvent, cell: Cell) -> None:
        if event.button() != Qt.MouseButton.LeftButton:
            return
        active = self.active
        if active:
            self.move(event, cell)
        draft, t = self.draft, self.template
        self.cancel()
        if not active:
            return
        if self.resize and (draft.size_ft, draft.direction) != (t.size_ft, t.direction):
            size = draft.size_ft if draft.size_ft != t.size_ft else None
            direction = draft.direction if draft.direction != t.direction else None
            self.view.do(EditTemplate(t.id, size_ft=size, direction=direction))
        elif not self.resize and draft.origin != t.origin:
            self.view.do(EditTemplate(t.id, origin=draft.origin))

    def cancel(self) -> None:
        self.end()
        self.preview.hide()
        item = self.view.map_scene.templates.items.get(self.template.id)
        if item is not None:
            item.setVisible(True)
        self.view.update_cursor()

    def key_press(self, event: QKeyEvent) -> bool:
        if event.key() == Qt.Key.Key_Escape:
            self.cancel()
            return True
        return False


def template_menu(
    parent: QWidget,
    template: Template,
    do: Callable[[Action], list[Event] | None],
    apply: Callable[[], object],
    rename: Callable[[], object],
    refusal: str = "",
) -> QMenu:
    """The commands on a template (a right-click): apply its effect, shown to the players or not,
    name it, remove it. Each change is one undo step. ``refusal``: why no effect applies (a ruleset
    without area effects), the entry disabled with it."""
    menu = QMenu(parent)
    menu.setToolTipsVisible(True)
    apply_entry = menu.addAction("&Apply area effect…", apply)
    apply_entry.setToolTip(refusal or "Resolve an effect on everyone it strikes, through the rules (RULES §14)")
    apply_entry.setEnabled(not refusal)
    menu.addSeparator()
    shown = menu.addAction("&Shown to the players")
    shown.setCheckable(True)
    shown.setChecked(template.shown)
    shown.setToolTip("The player view draws it too (under its fog); else only the GM sees it (dashed)")
    shown.toggled.connect(lambda on: do(EditTemplate(template.id, shown=on)))
    menu.addAction("&Name…", rename)
    menu.addSeparator()
    remove = menu.addAction("&Remove template", lambda: do(RemoveTemplate(template.id)))
    remove.setShortcut(QKeySequence.StandardKey.Delete)
    return menu


SHAPE_TIPS = {
    AreaShape.CIRCLE: ("&Circle", "A radius from a cell's corner or centre: drag out the radius"),
    AreaShape.CONE: ("C&one", "90° wide from a cell's edge: drag out its length and aim it"),
    AreaShape.LINE: ("&Line", "5 ft wide: drag out its length and aim it"),
    AreaShape.SQUARE: ("&Square", "From a corner: drag out its side"),
}


def template_shapes_menu(parent: QWidget, lay: Callable[[AreaShape], object], style: TemplateStyle) -> QMenu:
    """Map ▸ Area template (and the toolbar's Area button): the shape the Template tool lays;
    picking one takes up the tool."""
    from PySide6.QtGui import QActionGroup

    menu = QMenu("&Area template", parent)
    menu.setToolTipsVisible(True)
    group = QActionGroup(parent)
    group.setExclusive(True)
    for shape, (text, tip) in SHAPE_TIPS.items():
        action = menu.addAction(text, lambda s=shape: lay(s))
        action.setToolTip(tip)
        action.setStatusTip(tip)
        action.setCheckable(True)
        action.setChecked(shape is style.shape)
        group.addAction(action)
    return menu


class TemplateCommands:
    """The map view's commands on templates (a mixin of :class:`~lnl_desktop.ui.map.view.MapView`):
    which one a press is on, selecting it, its menu and name, the Template tool for a caster's own
    area, and the Area effect dialog."""

    # What the mixin uses of the view it is part of.
    controller: TableController
    map_scene: MapScene
    template_style: TemplateStyle
    area_dialog: QWidget | None
    context_menu: QMenu | None

    def pick_within(self) -> float:
        return self._pick_within()

    def template_at(self, pos: QPointF | QPoint) -> Template | None:
        """The template a press at the viewport point ``pos`` is on (inside its shape)."""
        point = self.mapToScene(pos.toPoint() if isinstance(pos, QPointF) else pos)
        return self.map_scene.templates.template_at(point)

    def template_handle_at(self, pos: QPointF | QPoint) -> Template | None:
        """The selected template when ``pos`` is on its resize handle."""
        point = self.mapToScene(pos.toPoint() if isinstance(pos, QPointF) else pos)
        return self.map_scene.templates.handle_at(point, 2 * self._pick_within())

    def select_template(self, tid: str | None) -> None:
        if tid is not None:
            self.controller.select(None)
            self.map_scene.drawings.select(None)
        self.map_scene.templates.select(tid, self.controller.encounter)

    def template_context_menu(self, template: Template, where: QPoint) -> QMenu:
        self.select_template(template.id)
        ruleset = self.controller.engine.ruleset
        refusal = no_area_effects(ruleset.title) if ruleset.areas is None else ""
        self.context_menu = template_menu(
            self,
            template,
            self.do,
            lambda: self.open_area_effect(template.id),
            lambda: self.rename_template(template.id),
            refusal,
        )
        self.context_menu.popup(where)
        return self.context_menu

    def rename_template(self, tid: str) -> list[Event] | None:
        template = next((t for t in self.controller.encounter.templates if t.id == tid), None)
        if template is None:
            return None
        words, ok = QInputDialog.getText(
            self, "Name the template", "Name (at most 60 characters):", text=template.label
        )
        if not ok or words == template.label:
            return None
        return self.do(EditTemplate(tid, label=words))

    def lay_template(
        self, shape: AreaShape, size_ft: int | None = None, label: str = "", caster: str = "", means: str = ""
    ) -> None:
        """Take the Template tool for ``shape`` (a caster's means: its own size, name and caster)."""
        style = self.template_style
        style.shape, style.fixed_size, style.label, style.caster, style.means = shape, size_ft, label, caster, means
        self.set_tool("template")
        what = f"{label}: " if label else ""
        self.say(f"{what}press where the {shape.value} starts and drag to aim it")

    def open_area_effect(self, tid: str, caster: str = "", means: str = "") -> QWidget | None:
        """The Area effect dialog on a placed template: the effect, its targets and their odds, the roll."""
        from lnl_desktop.ui.dialogs.area import AreaEffectDialog

        template = next((t for t in self.controller.encounter.templates if t.id == tid), None)
        if template is None:
            return None
        self.select_template(tid)
        if self.area_dialog is not None:
            self.area_dialog.close()
        dialog = AreaEffectDialog(self.controller, template, self.window(), caster=caster, means=means)
        self.area_dialog = dialog
        dialog.open()
        # Beside the map, not over the template: at the window's right, where the docks are.
        frame = self.window().frameGeometry()
        dialog.move(max(frame.left(), frame.right() - dialog.width() - 16), frame.top() + 90)
        return dialog
