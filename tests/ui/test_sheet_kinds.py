"""The Combatant sheet builds the editor each of a ruleset's rows asks for (``SheetRow.kind``): a
whole number that may be left empty, one of a few choices, a check box; and a list column of text
the stat block validates (a weapon's damage dice). Every edit is one undoable step; a bad value is
refused with the field named, and the combatant keeps its old value.

The ruleset here is a small stand-in for Old-School d20 (RULES §12), defined in this file: a kind
(PC, NPC or monster), HP, a morale that PCs have none of, a group leader flag, and weapons whose
damage is written as dice ("1d8").
"""

from __future__ import annotations

import re
from typing import Any, Literal

import pytest
from plain_ruleset import compose
from pydantic import BaseModel, ConfigDict, Field, field_validator
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QCheckBox, QComboBox, QLineEdit
from pytestqt.qtbot import QtBot

from lnl_desktop.core.encounter.model import CombatantBase
from lnl_desktop.core.errors import RulesError
from lnl_desktop.core.rules.registry import Ruleset, get_ruleset, register
from lnl_desktop.core.rules.specs import ItemColumn, ItemList, SheetRow, SheetSpec
from lnl_desktop.ui.docks.sheet import CombatantSheet
from lnl_desktop.ui.plumbing.controller import TableController

# -- the stand-in ruleset ----------------------------------------------------------------------------


class Blade(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=60)
    damage: str = Field(default="1d6", max_length=20)

    @field_validator("damage")
    @classmethod
    def _dice(cls, value: str) -> str:
        if not re.fullmatch(r"\s*\d{1,2}d(2|4|6|8|10|12)\s*", value):
            raise ValueError(f"{value!r} is not dice such as 1d8 or 2d6")
        return value.strip()


class KindsStats(CombatantBase):
    kind: Literal["PC", "NPC", "monster"] = "PC"
    hp: int = Field(default=6, ge=0, le=99)
    hp_max: int = Field(default=6, ge=1, le=99)
    morale: int | None = Field(default=None, ge=2, le=12, description="2-12; none for PCs")
    leader: bool = False
    weapons: list[Blade] = Field(default_factory=list)


MORALE_TIP = "2-12: 2d6 above it and it flees; empty for PCs and retainers"


class KindsRuleset(Ruleset):
    name = "test-sheet-kinds"
    title = "Sheet kinds (test)"
    stat_block = KindsStats

    def __init__(self) -> None:
        compose(self, KINDS_SHEET)


KINDS_SHEET = SheetSpec(
    identity=(SheetRow("Kind", ("kind",), "PC, NPC or monster", kind="choice", choices=("PC", "NPC", "monster")),),
    numbers_title="Health and morale",
    numbers=(
        SheetRow("HP (now / max)", ("hp", "hp_max"), "Hit points"),
        SheetRow("Morale", ("morale",), MORALE_TIP, kind="optional int"),
        SheetRow("Group leader", ("leader",), "Rolls its side's group initiative", kind="bool"),
    ),
    lists=(
        ItemList(
            "weapons",
            "weapon",
            (
                ItemColumn("name", "Name", "text", "The weapon's name"),
                ItemColumn("damage", "Damage", "text", "Dice such as 1d4, 1d8 or 2d6"),
            ),
            "The combatant's weapons",
            {"damage": "1d6"},
        ),
    ),
)


def the_ruleset() -> Ruleset:
    try:
        return get_ruleset(KindsRuleset.name)
    except RulesError:
        return register(KindsRuleset())


@pytest.fixture
def controller(qtbot: QtBot) -> TableController:
    encounter = the_ruleset().new_encounter(
        name="A goblin on the sheet",
        combatants=[
            {
                "id": "goblin",
                "name": "Goblin",
                "side": "Opponents",
                "kind": "monster",
                "morale": 7,
                "weapons": [{"name": "Spear", "damage": "1d6"}],
            },
            {"id": "ann", "name": "Ann", "side": "Party"},
        ],
    )
    return TableController(encounter)


@pytest.fixture
def sheet(qtbot: QtBot, controller: TableController) -> CombatantSheet:
    widget = CombatantSheet(controller)
    qtbot.addWidget(widget)
    widget.resize(440, 900)
    widget.show()
    controller.select("goblin")
    return widget


def goblin(controller: TableController) -> Any:
    return controller.encounter.combatant("goblin")


def type_into(qtbot: QtBot, edit: QLineEdit, text: str) -> None:
    """What a GM does: select the field's text, type over it (or clear it), press Enter."""
    edit.setFocus()
    edit.selectAll()
    if text:
        qtbot.keyClicks(edit, text)
    else:
        qtbot.keyClick(edit, Qt.Key.Key_Delete)
    qtbot.keyClick(edit, Qt.Key.Key_Return)


# -- a whole number that may be left empty ---------------------------------------------------------


def test_an_optional_number_cleared_means_none_and_undo_brings_it_back(
    sheet: CombatantSheet, controller: TableController, qtbot: QtBot
) -> None:
    morale = sheet.editor("morale")
    assert isinstance(morale, QLineEdit) and morale.text() == "7"
    assert morale.toolTip() == MORALE_TIP
    steps = controller.undo_stack.count()
    type_into(qtbot, morale, "")
    assert goblin(controller).morale is None
    assert morale.text() == "" and morale.placeholderText() == "none"
    assert controller.undo_stack.count() == steps + 1 and sheet.message == ""

    controller.undo_stack.undo()
    assert goblin(controller).morale == 7 and morale.text() == "7"
    type_into(qtbot, morale, "9")
    assert goblin(controller).morale == 9

    controller.select("ann")  # a PC has no morale: the field is empty
    assert morale.text() == ""


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("brave", "Morale: 'brave' is not a whole number"),
        ("13", "Goblin: Morale cannot be above 12 (got 13)"),
    ],
)
def test_a_bad_optional_number_is_refused_with_the_field_named_and_the_old_value_kept(
    sheet: CombatantSheet, controller: TableController, qtbot: QtBot, text: str, says: str
) -> None:
    before = controller.encounter.model_dump()
    steps = controller.undo_stack.count()
    morale = sheet.editor("morale")
    type_into(qtbot, morale, text)
    assert says in sheet.message
    assert morale.property("invalid") is True
    assert morale.text() == "7"
    assert controller.encounter.model_dump() == before
    assert controller.undo_stack.count() == steps


# -- a choice and a check box ----------------------------------------------------------------------


def test_a_choice_row_is_a_combo_box_of_its_choices(sheet: CombatantSheet, controller: TableController) -> None:
    kind = sheet.editor("kind")
    assert isinstance(kind, QComboBox)
    assert [kind.itemText(i) for i in range(kind.count())] == ["PC", "NPC", "monster"]
    assert kind.currentText() == "monster" and kind.toolTip() == "PC, NPC or monster"
    kind.setCurrentIndex(kind.findData("NPC"))
    kind.activated.emit(kind.currentIndex())
    assert goblin(controller).kind == "NPC"
    assert controller.encounter.log[-1].text == "Goblin: kind monster → NPC"
    controller.undo_stack.undo()
    assert goblin(controller).kind == "monster" and kind.currentText() == "monster"


def test_a_bool_row_is_a_check_box(sheet: CombatantSheet, controller: TableController) -> None:
    leader = sheet.editor("leader")
    assert isinstance(leader, QCheckBox) and not leader.isChecked()
    assert leader.toolTip() == "Rolls its side's group initiative"
    leader.click()
    assert goblin(controller).leader is True
    controller.undo_stack.undo()
    assert goblin(controller).leader is False and not leader.isChecked()


# -- a text column the stat block validates --------------------------------------------------------


def test_a_weapons_damage_dice_are_edited_and_bad_dice_refused_with_the_models_reason(
    sheet: CombatantSheet, controller: TableController
) -> None:
    model = sheet.weapons_model
    damage = model.index(0, 1)
    assert damage.data() == "1d6"
    assert model.setData(damage, "1d8")
    assert goblin(controller).weapons[0].damage == "1d8" and damage.data() == "1d8"

    before = controller.encounter.model_dump()
    steps = controller.undo_stack.count()
    assert not model.setData(damage, "1d7")
    assert "Weapon 1, Damage" in sheet.message and "'1d7' is not dice such as 1d8 or 2d6" in sheet.message
    assert sheet.weapons_table.property("invalid") is True
    assert damage.data() == "1d8"
    assert controller.encounter.model_dump() == before and controller.undo_stack.count() == steps

    assert sheet.add_item("weapons", "weapon")
    assert [w.damage for w in goblin(controller).weapons] == ["1d8", "1d6"]
