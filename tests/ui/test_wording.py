"""Words at the table: the order of typed faces told with an example that really fits the
roll, one arrow ("→") in every text the GM reads, and a result formula that wraps between its terms
and never inside one.

The demo encounter: Tombril (Shortsword, 5d6 exploding, +2 magic) at (8, 6), the Hill Giant (2 x 2)
at (15, 6). The Old-School d20 demo (goblin-ambush-osr.lnl) rolls a d20 of initiative per side, or
per combatant.
"""

from __future__ import annotations

import io
import re
import tokenize
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QFontMetricsF, QTextDocument
from PySide6.QtTest import QTest
from pytestqt.qtbot import QtBot

import lnl_desktop
from lnl_desktop.core.dice.rolls import ScriptedDice, roll_exploding, roll_plain
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.model import Phase
from lnl_desktop.core.engine.engine import Engine
from lnl_desktop.core.engine.words import describe_change
from lnl_desktop.core.files import storage
from lnl_desktop.core.rules.lnl.model import Attack, SurpriseSituation
from lnl_desktop.paths import demo_encounter_path, resource
from lnl_desktop.ui.dialogs.faces import check_faces, faces_hint, parse_faces
from lnl_desktop.ui.docks.action_result import NBSP, formula_html
from lnl_desktop.ui.docks.actions import ActionPanel
from lnl_desktop.ui.docks.turns import TurnsPanel
from lnl_desktop.ui.plumbing.controller import TableController

LEFT = Qt.MouseButton.LeftButton
SEPARATORS = "+-−=→"


@dataclass
class Table:
    controller: TableController
    turns: TurnsPanel
    panel: ActionPanel


def make_table(qtbot: QtBot, path: Path) -> Table:
    controller = TableController(storage.load(path))
    turns = TurnsPanel(controller)
    panel = ActionPanel(controller)
    for widget, size in ((turns, (380, 520)), (panel, (420, 900))):
        qtbot.addWidget(widget)
        widget.resize(*size)
        widget.show()
    return Table(controller, turns, panel)


@pytest.fixture
def table(qtbot: QtBot) -> Iterator[Table]:
    yield make_table(qtbot, demo_encounter_path())


def tombril_next_to_the_giant(table: Table) -> None:
    dialog = table.turns.start_combat()
    dialog.set_situation(SurpriseSituation.NOBODY)
    QTest.keyClicks(dialog.face_edit, "5")
    QTest.mouseClick(dialog.start_button, LEFT)
    assert table.turns.begin_turn("tombril"), table.turns.message
    assert table.controller.do(act.Move("tombril", to=(14, 6))) is not None
    table.panel.set_target("hill-giant")
    assert table.panel.roll_button.isEnabled(), table.panel.roll_button.toolTip()


# -- a. the order of typed faces, with an example ----------------------------------------------------


def test_the_faces_dialog_tells_the_order_of_exploding_dice_with_an_example_that_fits(table: Table) -> None:
    tombril_next_to_the_giant(table)
    dialog = table.panel.type_faces()
    assert dialog is not None, table.panel.message
    hint = dialog.hint_label.text()
    assert "breadth" not in hint.lower()
    assert hint.startswith(
        "Type at least 5 dice, in this order: the 5 base d6, then an extra d6 for each 6 among them, then an"
        " extra d6 for each 6 among those, and so on until no 6 comes up."
    )
    assert hint.endswith(
        " For example, if the 5 base d6 of Tombril's Shortsword damage show 6 4 2 6 1, the two 6s earn two"
        " extra d6, say 1 and 6, and that 6 earns one more, say 4: type 6 4 2 6 1 1 6 4."
    )
    # The example is a roll the dialog takes as it is: typed in, it fits, and it is what is applied.
    example = re.search(r"type ([\d ]+)\.$", hint)
    assert example is not None
    QTest.keyClicks(dialog.edit, example.group(1))
    assert dialog.ok_button.isEnabled(), dialog.reason
    assert "8 faces fit the roll" in dialog.status_label.text()
    QTest.mouseClick(dialog.ok_button, LEFT)
    result = table.panel.last_result
    assert result is not None
    assert [(f.face, f.explosion) for f in result.faces] == [
        (6, False),
        (4, False),
        (2, False),
        (6, False),
        (1, False),
        (1, True),
        (6, True),
        (4, True),
    ]


def test_dice_that_do_not_explode_are_not_said_to(qtbot: QtBot) -> None:
    def plain(dice):  # type: ignore[no-untyped-def]
        return [roll_plain(dice, 8, "Mace damage d8") for _ in range(2)]

    assert faces_hint(plain) == "Type 2 dice, in this order: the 2 base d8."


@pytest.mark.parametrize(("count", "sides"), [(1, 6), (2, 4), (3, 8), (6, 6), (2, 2)])
def test_every_explosion_example_fits_its_roll(count: int, sides: int) -> None:
    def exploding(dice):  # type: ignore[no-untyped-def]
        return roll_exploding(dice, count, sides, "Ogre's Club damage")

    hint = faces_hint(exploding)
    assert f"For example, if the {count if count > 1 else ''}" in hint and "Ogre's Club damage" in hint
    example = re.search(r"type ([\d ]+)\.$", hint)
    assert example is not None, hint
    assert check_faces(parse_faces(example.group(1)), exploding) is None


def test_an_example_among_other_dice_says_they_go_in_their_place() -> None:
    def check_then_damage(dice):  # type: ignore[no-untyped-def]
        roll_plain(dice, 20, "Cedryk's AWA check")
        return roll_exploding(dice, 2, 4, "Cedryk's Dagger damage")

    hint = faces_hint(check_then_damage)
    assert hint.startswith(
        "Type at least 3 dice, in this order: the d20 AWA check, then the 2 base d4, then an extra d4"
    )
    assert hint.endswith(
        "For example, if the 2 base d4 of Cedryk's Dagger damage show 4 2, the 4 earns one extra d4, say 4,"
        " and that 4 earns one more, say 2: these dice are typed 4 2 4 2, in their place."
    )
    assert check_faces([12, 4, 2, 4, 2], check_then_damage) is None  # the d20, then the example's dice


def test_the_initiative_box_gives_an_example_and_says_what_a_tie_asks(qtbot: QtBot) -> None:
    table = make_table(qtbot, resource("encounters", "goblin-ambush-osr.lnl"))
    turns, controller = table.turns, table.controller
    dialog = turns.start_combat()
    QTest.mouseClick(dialog.start_button, LEFT)  # the app rolls
    assert controller.encounter.combat.phase is Phase.FIGHTING
    while controller.engine.waiting():
        assert turns.begin_turn(controller.engine.waiting()[0].id), turns.message
        assert turns.end_turn()
    assert turns.set_setting("initiative", "individual")
    tip = turns.initiative_edit.toolTip()
    assert "1. the initiative d20 for Tombril (INIT +1)\n2. the initiative d20 for Cedryk (INIT +2)" in tip
    assert "\nFor example, 14 7 11 3 17 9 5 20 2 reads 14 for Tombril, 7 for Cedryk, 11 for Janine, and so on." in tip
    assert tip.endswith(
        "\nIf a tie makes the rules roll again, type those dice after these: the button says which die is missing."
    )
    # The example fits as it is; a tie (Goblins 1 and 2, both INIT +0, on 9) asks for more, by name.
    QTest.keyClicks(turns.initiative_edit, "14 7 11 3 17 9 5 20 2")
    assert turns.next_round_button.isEnabled(), turns.next_round_button.toolTip()
    turns.initiative_edit.clear()
    QTest.keyClicks(turns.initiative_edit, "14 7 11 3 17 9 9 20 2")
    assert not turns.next_round_button.isEnabled()
    assert "tie-break d20 for Goblin 1" in turns.next_round_button.toolTip()


# -- b. one arrow -------------------------------------------------------------------------------------


def _strings_with_ascii_arrows(path: Path) -> list[str]:
    """String literals holding "->" that the program may show: docstrings and field descriptions
    (the file schema's) are not shown."""
    found: list[str] = []
    tokens = list(tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline))
    significant = [t for t in tokens if t.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT)]
    for i, token in enumerate(significant):
        pieces = [token.string] if token.type == tokenize.STRING else []
        if getattr(tokenize, "FSTRING_MIDDLE", None) == token.type:
            pieces = [token.string]
        if not any("->" in piece for piece in pieces):
            continue
        before = [t.string for t in significant[max(0, i - 2) : i]]
        if token.string.startswith(('"""', "'''")) or before == ["description", "="]:
            continue
        found.append(f"{path.name}:{token.start[0]}: {token.string[:80]}")
    return found


def test_no_text_the_program_shows_uses_an_ascii_arrow() -> None:
    package = Path(lnl_desktop.__file__).parent
    sources = sorted(package.rglob("*.py"))
    assert len(sources) > 50
    assert [hit for path in sources for hit in _strings_with_ascii_arrows(path)] == []


def test_the_log_and_the_sheet_changes_use_the_arrow(table: Table) -> None:
    engine = Engine(storage.load(demo_encounter_path()))
    engine.apply(act.StartCombat(face=5))
    engine.apply(act.BeginTurn("tombril"))
    engine.apply(act.Move("tombril", to=(14, 6)))
    events = engine.apply(Attack("tombril", "hill-giant", "Shortsword"), ScriptedDice([5, 3, 4, 3, 2]))
    assert "= 31 damage → 31 to SP. Hill Giant: 37 SP, 30 IP" in events[0].text
    assert describe_change("level", 9, 10) == "level 9 → 10"
    assert describe_change("weapons", [{"name": "Mace", "die": "d6"}], [{"name": "Mace", "die": "d8"}]) == (
        "weapons: Mace die d6 → d8"
    )
    # The Action dock's result says where the damage went with the same arrow.
    tombril_next_to_the_giant(table)
    QTest.mouseClick(table.panel.roll_button, LEFT)
    assert "->" not in table.panel.result_text() and "→" in table.panel.result_text()


# -- c. formulas wrap between terms ------------------------------------------------------------------


def test_formula_html_holds_each_term_together() -> None:
    html = formula_html("d20 (14) + 3 DEX - 2 = 15 → 7 to SP & more")
    assert html == (f"d20{NBSP}(14){NBSP}+ 3{NBSP}DEX{NBSP}- 2{NBSP}= 15{NBSP}→ 7{NBSP}to{NBSP}SP{NBSP}&amp;{NBSP}more")


def _lines(html: str, font: QFont, width: float) -> list[str]:
    """The lines a label's text engine (QTextDocument) breaks ``html`` into at ``width`` pixels."""
    document = QTextDocument()
    document.setDefaultFont(font)
    document.setDocumentMargin(0)
    document.setHtml(html)
    document.setTextWidth(width)
    document.size()  # lays the text out
    lines: list[str] = []
    block = document.begin()
    while block.isValid():
        layout = block.layout()
        for i in range(layout.lineCount()):
            line = layout.lineAt(i)
            lines.append(block.text()[line.textStart() : line.textStart() + line.textLength()])
        block = block.next()
    return lines


def test_the_result_formula_wraps_only_between_terms(table: Table) -> None:
    tombril_next_to_the_giant(table)
    dialog = table.panel.type_faces()
    assert dialog is not None
    QTest.keyClicks(dialog.edit, "5 3 4 3 2")
    QTest.mouseClick(dialog.ok_button, LEFT)
    label = table.panel.result_label
    formula = next(part for part in re.findall(r"<b>(.*?)</b>", label.text()) if "STR" in part)
    words = formula.replace(NBSP, " ")
    assert words == "dice 5 + 3 + 4 + 3 + 2 = 17 + 5 x 2 magic + 8 STR - 3 DEX - 1 AP = 31"
    # In the text: an ordinary (breakable) space only right after a separator, never inside a term.
    assert re.findall(rf"[^{re.escape(SEPARATORS)}] ", formula) == []
    assert NBSP in formula and f"5{NBSP}x{NBSP}2{NBSP}magic" in formula and f"8{NBSP}STR" in formula

    # Laid out narrower than the formula but wider than its widest term, it breaks after separators only.
    font = QFont(label.font())
    font.setBold(True)
    metrics = QFontMetricsF(font)
    terms = re.split(r" [+\-−=→] ", words)
    widest = max(metrics.horizontalAdvance(f"{term} + ") for term in terms)
    width = widest + 4
    assert width < metrics.horizontalAdvance(words) / 3
    lines = _lines(f"<b>{formula}</b>", font, width)
    assert len(lines) >= 3
    assert "".join(lines).replace(NBSP, " ") == words
    for line in lines[:-1]:
        assert line.endswith(" ") and line.rstrip(" ")[-1] in SEPARATORS, lines
    # The same text as plain words (no held spaces) breaks inside terms: the test can tell.
    plain_lines = _lines(f"<b>{words}</b>", font, width)
    assert any(line.rstrip(" ")[-1] not in SEPARATORS for line in plain_lines[:-1])
