"""Area templates (RULES §14) with real mouse and key events on the map's viewport: a cone laid
with a drag, applied through the rules from its dialog with typed faces and undone in one step; a
placed template moved, resized and removed, each one undo step, and saved in the file; the player
view draws the shown templates under its fog and never the GM's rings.

The demo encounters, before combat: a free effect needs no turn.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from lnl_desktop.core.encounter.actions import BeginTurn, PlaceTemplate
from lnl_desktop.core.encounter.events import AreaEffectResolved, TemplatePlaced, TemplateRemoved
from lnl_desktop.core.files import storage
from lnl_desktop.core.map.areas import AreaShape
from lnl_desktop.paths import demo_encounter_path
from lnl_desktop.ui.dialogs.area import AreaEffectDialog
from lnl_desktop.ui.dialogs.faces import dice_asked, engine_dry_run
from lnl_desktop.ui.map import MapView
from lnl_desktop.ui.map.fog import PLAYERS_FOG_Z
from lnl_desktop.ui.plumbing.controller import TableController
from lnl_desktop.ui.plumbing.style import CELL_PX
from lnl_desktop.ui.window.player_view import PlayerView

LEFT = Qt.MouseButton.LeftButton
NONE = Qt.KeyboardModifier.NoModifier
Point = tuple[float, float]
ENCOUNTERS = Path(demo_encounter_path()).parent


@pytest.fixture
def table(qtbot: QtBot) -> tuple[TableController, MapView]:
    controller = TableController(storage.load(demo_encounter_path()))
    view = MapView(controller)
    qtbot.addWidget(view)
    view.resize(1200, 800)
    view.show()
    qtbot.waitExposed(view)
    return controller, view


def at(view: MapView, point: Point) -> QPoint:
    return view.mapFromScene(QPointF(point[0] * CELL_PX, point[1] * CELL_PX))


def move(view: MapView, point: Point) -> None:
    where = QPointF(at(view, point))
    event = QMouseEvent(
        QEvent.Type.MouseMove, where, view.viewport().mapToGlobal(where), Qt.MouseButton.NoButton, LEFT, NONE
    )
    QApplication.sendEvent(view.viewport(), event)


def drag(view: MapView, points: list[Point]) -> None:
    QTest.mousePress(view.viewport(), LEFT, NONE, at(view, points[0]))
    for point in points[1:]:
        move(view, point)
    QTest.mouseRelease(view.viewport(), LEFT, NONE, at(view, points[-1]))


def test_a_cone_laid_with_a_mouse_drag_is_applied_and_undone_in_one_step(
    table: tuple[TableController, MapView],
) -> None:
    controller, view = table
    before = controller.encounter.model_dump(exclude={"log"})
    view.set_tool("template")
    view.template_style.shape = AreaShape.CONE
    # From the east edge of Tombril's cell (8, 6), east towards the Half-orc and the Giant.
    drag(view, [(9.1, 6.6), (11, 6.8), (13, 7.0), (14.6, 7.0)])
    (template,) = controller.encounter.templates
    assert template.shape is AreaShape.CONE and template.origin == (9.0, 6.5)
    assert template.size_ft == 30 and 90 <= template.direction <= 100
    assert isinstance(controller.encounter.log[-1], TemplatePlaced)
    dialog = view.area_dialog
    assert isinstance(dialog, AreaEffectDialog)
    struck = set(dialog.targets())
    assert "half-orc" in struck and "tombril" not in struck  # the caster's own cell is behind the cone
    dialog.dice_edit.setText("2d6")
    dialog.name_edit.setText("Oil flask")
    events = dialog.apply_faces([3, 4])
    assert events is not None
    resolved = next(e for e in events if isinstance(e, AreaEffectResolved))
    assert resolved.total == 7 and {t.combatant for t in resolved.targets} == struck
    assert isinstance(events[-1], TemplateRemoved) and controller.encounter.templates == ()
    half_orc = controller.combatant("half-orc")
    assert half_orc is not None and any(t.combatant == "half-orc" and t.damage > 0 for t in resolved.targets)
    # One undo step takes the whole effect back, the lifted template with it.
    controller.undo_stack.undo()
    assert len(controller.encounter.templates) == 1
    assert not any(isinstance(e, AreaEffectResolved) for e in controller.encounter.log)
    controller.undo_stack.undo()
    assert controller.encounter.model_dump(exclude={"log"}) == before


def test_a_placed_template_moves_resizes_and_goes_each_one_undo_step(
    table: tuple[TableController, MapView], tmp_path: Path
) -> None:
    controller, view = table
    controller.do(PlaceTemplate("circle", (3.0, 3.0), 10, 90.0, "Stinking cloud"))
    (placed,) = controller.encounter.templates
    view.set_tool("select")
    drag(view, [(3.2, 3.2), (4.2, 3.7), (5.2, 4.2)])  # the body: moved two cells right, one down
    (moved,) = controller.encounter.templates
    assert moved.origin == (5.0, 4.0) and moved.size_ft == 10
    assert controller.encounter.log[-1].text == 'GM moves the 10 ft radius circle "Stinking cloud"'
    assert view.map_scene.templates.selected == moved.id
    drag(view, [(7.0, 4.0), (8.0, 4.0), (9.0, 4.0)])  # its handle, at the circle's edge east: 20 ft
    (resized,) = controller.encounter.templates
    assert resized.size_ft == 20 and resized.origin == (5.0, 4.0)
    path = tmp_path / "cloud.lnl"
    storage.save(controller.encounter, path)
    assert storage.load(path).templates == (resized,)
    QTest.keyClick(view.viewport(), Qt.Key.Key_Delete)
    assert controller.encounter.templates == ()
    for expected in (resized, moved, placed):
        controller.undo_stack.undo()
        assert controller.encounter.templates == (expected,)
    view.select_template(placed.id)
    QTest.mouseClick(view.viewport(), LEFT, NONE, at(view, (1.5, 14.5)))  # empty ground
    assert view.map_scene.templates.selected is None


def test_the_player_view_draws_shown_templates_under_its_fog_and_no_rings(qtbot: QtBot) -> None:
    controller = TableController(storage.load(demo_encounter_path()))
    controller.do(PlaceTemplate("circle", (14.0, 8.0), 15, 0.0, "Fireball"))
    controller.do(PlaceTemplate("square", (2.0, 2.0), 10, 135.0, "Trap", shown=False))
    gm = MapView(controller)
    qtbot.addWidget(gm)
    gm.select_template("a1")
    player = PlayerView(controller, gm)
    qtbot.addWidget(player)
    layer = player.view.map_scene.templates
    assert set(layer.items) == {"a1"}  # the GM's trap stays the GM's
    assert layer.rings.scene() is None and gm.map_scene.templates.rings.rings  # rings: the GM's only
    assert layer.items["a1"].zValue() < PLAYERS_FOG_Z  # the fog's black covers what the players do not see


@pytest.mark.parametrize(
    "demo", ["hill-giant.lnl", "hill-giant-classic.lnl", "goblin-ambush-osr.lnl", "bandit-mill-d10.lnl"]
)
def test_each_ruleset_applies_a_free_effect_with_typed_faces_and_undoes_it(qtbot: QtBot, demo: str) -> None:
    controller = TableController(storage.load(ENCOUNTERS / demo))
    view = MapView(controller)
    qtbot.addWidget(view)
    view.resize(1200, 800)
    view.show()
    qtbot.waitExposed(view)
    encounter = controller.encounter
    foe = next(c for c in encounter.combatants if c.side.value == "Opponents" and c.id in encounter.tokens)
    x, y = encounter.tokens[foe.id].cell
    before = encounter.model_dump(exclude={"log", "templates"})
    view.set_tool("template")
    view.template_style.shape = AreaShape.CIRCLE
    drag(view, [(x + 0.5, y + 0.5), (x + 1.5, y + 0.5), (x + 2.5, y + 0.5)])  # a 10 ft circle round the foe
    dialog = view.area_dialog
    assert isinstance(dialog, AreaEffectDialog) and foe.id in dialog.targets()
    dialog.dice_edit.setText("2d6")
    if "dc" in dialog.editors:  # the rulesets that ask a DC
        dialog.editors["dc"].setValue(12)
    asked = dice_asked(engine_dry_run(controller.encounter, dialog.action()))
    assert asked is not None and [d.sides for d in asked[:2]] == [6, 6]  # one damage roll for every target
    events = dialog.apply_faces([min(d.face + 1, d.sides) for d in asked])
    assert events is not None, controller.refusal
    resolved = next(e for e in events if isinstance(e, AreaEffectResolved))
    assert {t.combatant for t in resolved.targets} == set(dialog.targets())
    for target in resolved.targets:
        assert target.name in resolved.text  # every target's numbers in the log's one line
    assert controller.encounter.model_dump(exclude={"log", "templates"}) != before
    controller.undo_stack.undo()  # the effect, and the template it lifted, in one step
    assert controller.encounter.model_dump(exclude={"log", "templates"}) == before
    assert len(controller.encounter.templates) == 1


def test_an_area_is_typed_on_the_sheet_and_a_bad_one_refused_with_the_reason(qtbot: QtBot) -> None:
    from lnl_desktop.ui.docks.sheet import CombatantSheet

    controller = TableController(storage.load(ENCOUNTERS / "bandit-mill-d10.lnl"))
    sheet = CombatantSheet(controller)
    qtbot.addWidget(sheet)
    sheet.resize(440, 900)
    sheet.show()
    c = next(c for c in controller.encounter.combatants if c.weapons)
    controller.select(c.id)
    model = sheet.weapons_model
    index = model.index(0, [col.key for col in model.columns].index("area"))
    assert index.data() == ""
    assert model.setData(index, "20 ft cone")
    weapon = controller.encounter.combatant(c.id).weapons[0]
    assert weapon.area is not None and (weapon.area.shape, weapon.area.size_ft) == (AreaShape.CONE, 20)
    assert index.data() == "20 ft cone"
    before = controller.encounter.model_dump()
    assert not model.setData(index, "12 ft circle")
    assert "multiple of 5" in sheet.message
    assert not model.setData(index, "20 ft blob")
    assert "'blob' is not a shape" in sheet.message
    assert controller.encounter.model_dump() == before
    controller.undo_stack.undo()
    assert controller.encounter.combatant(c.id).weapons[0].area is None


def test_the_action_docks_area_effect_lays_the_casters_spell_and_uses_its_action(laptop_window: Any) -> None:
    window = laptop_window()
    controller = window.controller
    mage = next(dict(c) for c in controller.engine.ruleset.bestiary() if c["name"] == "Fire Mage")
    mage["side"] = "Party"
    cid = controller.add_combatant(mage, cell=(3, 3))
    assert cid is not None
    controller.engine.start_combat(face=5)  # the Party first
    controller.do(BeginTurn(cid))
    button = window.action_panel.area_button
    assert button.isVisible() and "Fireball" in button.toolTip()
    QTest.mouseClick(button, LEFT)
    view = window.map_view
    assert view.tool() == "template" and view.template_style.fixed_size == 20
    # Round the Hill Giant and the Half-orc: the drag only places it (the spell's own size).
    drag(view, [(14.5, 8.5), (15.5, 8.5), (17.5, 8.5)])
    (template,) = controller.encounter.templates
    assert (template.shape, template.size_ft, template.label) == (AreaShape.CIRCLE, 20, "Fireball")
    dialog = view.area_dialog
    assert isinstance(dialog, AreaEffectDialog)
    assert dialog.caster() == cid and dialog.selected_means() is not None
    assert {"hill-giant", "half-orc"} <= set(dialog.targets())
    assert all(dialog.table.item(row, 4).text() not in ("", "—") for row in range(dialog.table.rowCount()))
    events = dialog.roll()
    assert events is not None
    turn = controller.encounter.combat.turn
    assert turn is not None and turn.action is not None  # the spell was the mage's action
    result = window.action_panel.result_text()
    assert "Fireball (a 20 ft radius circle)" in result and "Hill Giant: - 3 DEX - 1 AP" in result
    controller.undo_stack.undo()
    turn = controller.encounter.combat.turn
    assert turn is not None and turn.action is None


def test_a_casters_area_is_laid_once_then_the_tool_lays_the_gms_own_again(
    table: tuple[TableController, MapView],
) -> None:
    controller, view = table
    view.lay_template(AreaShape.CIRCLE, 20, "Fireball", "janine", "Fireball")
    drag(view, [(1.5, 14.5), (2.5, 14.5)])  # nobody inside: laid, no dialog
    (laid,) = controller.encounter.templates
    assert (laid.size_ft, laid.label) == (20, "Fireball") and view.area_dialog is None
    style = view.template_style
    assert (style.fixed_size, style.caster, style.means, style.label) == (None, "", "", "")
    drag(view, [(3.0, 3.0), (3.8, 3.0)])  # into the first cell past the corner: 5 ft
    assert controller.encounter.templates[-1].size_ft == 5 and controller.encounter.templates[-1].label == ""


def test_a_ruleset_without_area_effects_lays_templates_and_says_why_it_applies_none(
    table: tuple[TableController, MapView], monkeypatch: pytest.MonkeyPatch
) -> None:
    controller, view = table
    ruleset = controller.engine.ruleset
    monkeypatch.setattr(ruleset, "areas", None)  # a ruleset that has no area effects at all
    reason = f"{ruleset.title} has no area effects"
    x, y = controller.encounter.tokens["tombril"].cell
    view.set_tool("template")
    view.template_style.shape = AreaShape.CIRCLE
    drag(view, [(x + 0.5, y + 0.5), (x + 1.5, y + 0.5), (x + 2.5, y + 0.5)])  # a 10 ft circle round Tombril
    template = controller.encounter.templates[-1]  # laid all the same: the map's own
    assert view.area_dialog is None
    menu = view.template_context_menu(template, view.mapToGlobal(view.rect().center()))
    apply = menu.actions()[0]
    assert not apply.isEnabled() and apply.toolTip() == reason
    menu.close()
    dialog = AreaEffectDialog(controller, template, view)
    assert "tombril" in dialog.targets()
    assert not dialog.roll_button.isEnabled() and dialog.roll_button.toolTip() == reason
    assert dialog.refusal.text() == reason
    assert dialog.roll() is None and dialog.type_faces() is None


# The Area effect dialog's rows of each ruleset's own fields (from its AreaSpec's settings) and the
# extras a free effect sends with them as they first stand.
OWN_FIELDS = {
    "hill-giant.lnl": (
        [],
        ["DEX applies", "AP applies", "Direct (to IP at once)"],
        {
            "dex_applies": True,
            "ap_applies": True,
            "direct": False,
        },
    ),
    "hill-giant-classic.lnl": ([], ["DEX applies", "AP applies"], {"dex_applies": True, "ap_applies": True}),
    "goblin-ambush-osr.lnl": (["&Save:", "D&C:"], [], {"save": "Dragon Breath", "dc": None}),
    "bandit-mill-d10.lnl": ([], ["Ignores DR (armour does not help)"], {"direct": False}),
}


@pytest.mark.parametrize("demo", list(OWN_FIELDS))
def test_the_dialog_builds_the_rulesets_own_fields_and_a_caster_leaves_the_free_ones(
    qtbot: QtBot, demo: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from PySide6.QtWidgets import QCheckBox, QFormLayout

    from lnl_desktop.core.encounter.areas import Area
    from lnl_desktop.core.rules.specs import AreaMeans

    controller = TableController(storage.load(ENCOUNTERS / demo))
    foe = next(c for c in controller.encounter.combatants if c.side.value == "Opponents")
    assert controller.do(PlaceTemplate("circle", (3.0, 3.0), 10, 0.0, "Trap"))
    template = controller.encounter.templates[-1]
    rows, checks, extras = OWN_FIELDS[demo]
    dialog = AreaEffectDialog(controller, template)
    qtbot.addWidget(dialog)
    form = dialog.layout().itemAt(0).layout()
    assert isinstance(form, QFormLayout)
    labels = [form.itemAt(r, QFormLayout.ItemRole.LabelRole) for r in range(form.rowCount())]
    texts = [item.widget().text() for item in labels if item is not None and item.widget() is not None]
    assert texts[:4] == ["&Caster:", "&Effect:", "&Name:", "&Dice:"] and [t for t in texts[4:] if t] == rows
    boxes = [box for box in dialog.findChildren(QCheckBox) if box is not dialog.lift_check]
    assert [box.text() for box in boxes] == checks and all(box.isEnabled() for box in boxes)
    assert dialog.action().extras == extras
    # A caster's means says what a free effect asks: those fields are off and left out of its extras.
    zap = AreaMeans("Zap", Area(shape=template.shape, size_ft=template.size_ft), "zap", 30)
    monkeypatch.setattr(
        AreaEffectDialog, "matching", lambda self, c: (zap,) if c is not None and c.id == foe.id else ()
    )
    dialog = AreaEffectDialog(controller, template, caster=foe.id, means="Zap")
    qtbot.addWidget(dialog)
    kept = {key for key in extras if key not in dialog.spec.free_only}
    assert dialog.action().extras.keys() == kept
    assert all(dialog.editors[key].isEnabled() == (key in kept) for key in extras)
