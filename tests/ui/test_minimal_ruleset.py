"""A minimal ruleset through the real window: Duel (tests/example_ruleset), with one health number (HP),
a Strike, damage by hand, an area effect and a fight simulator, and no SP, no IP, no parry, no sneak attack.

The GM opens an encounter of it, reads the Sheet and the Fight odds, throws a fire pot with the Template
tool, plays the fight to its end from the Turns and Action docks, reads the Forecast, and exports the
log. Nothing of the shared core or the Qt layer may reach for an L&L field on the way: the Duel's stat
block has none, so a dock that did would raise, and the words a GM reads are the Duel's own.
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QDialogButtonBox, QFileDialog, QLabel
from waiting import run_until

from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.events import AreaEffectResolved
from lnl_desktop.core.encounter.model import Side
from lnl_desktop.core.map.areas import AreaShape
from lnl_desktop.core.rules import registry
from lnl_desktop.ui.dialogs.area import AreaEffectDialog
from lnl_desktop.ui.dialogs.damage_heal import DamageHealDialog
from lnl_desktop.ui.plumbing.style import CELL_PX
from lnl_desktop.ui.window.main_window import MainWindow

EXAMPLE = Path(__file__).resolve().parents[1] / "example_ruleset"
LEFT = Qt.MouseButton.LeftButton
NONE = Qt.KeyboardModifier.NoModifier
LNL_WORDS = ("SP", "IP", "Stamina", "Injury", "parry", "Parry", "sneak", "Sneak")


@pytest.fixture
def duel(monkeypatch: pytest.MonkeyPatch) -> Any:
    """The example ruleset registered by hand for this test only (the plug-in test installs it with pip)."""
    monkeypatch.syspath_prepend(str(EXAMPLE))
    monkeypatch.setattr(registry, "_loaded", dict(registry._loaded))
    import lnl_duel

    if "duel" not in registry._loaded:
        registry.register(lnl_duel.DUEL)
    yield lnl_duel
    for name in [m for m in sys.modules if m == "lnl_duel" or m.startswith("lnl_duel.")]:
        del sys.modules[name]


def encounter_of(duel: Any) -> Any:
    """Ann of the Party beside an Ogre; a Goblin two cells past it (a fire pot's mark)."""
    return duel.DUEL.new_encounter(
        name="Duel on the bridge",
        combatants=[
            {"id": "ann", "name": "Ann", "side": "Party", "hp_max": 10, "damage_die": 8, "defense": 1},
            {"id": "ogre", "name": "Ogre", "side": "Opponents", "hp_max": 12, "damage_die": 6, "defense": 2},
            {"id": "goblin", "name": "Goblin", "side": "Opponents", "hp_max": 4, "damage_die": 4, "defense": 0},
        ],
        tokens={"ann": {"cell": [1, 3]}, "ogre": {"cell": [2, 3], "facing": 270}, "goblin": {"cell": [5, 3]}},
    )


def at(window: MainWindow, point: tuple[float, float]) -> QPoint:
    return window.map_view.mapFromScene(QPointF(point[0] * CELL_PX, point[1] * CELL_PX))


def drag(window: MainWindow, points: list[tuple[float, float]]) -> None:
    viewport = window.map_view.viewport()
    QTest.mousePress(viewport, LEFT, NONE, at(window, points[0]))
    for point in points[1:]:
        where = QPointF(at(window, point))
        QApplication.sendEvent(
            viewport,
            QMouseEvent(QEvent.Type.MouseMove, where, viewport.mapToGlobal(where), Qt.MouseButton.NoButton, LEFT, NONE),
        )
    QTest.mouseRelease(viewport, LEFT, NONE, at(window, points[-1]))


def strike(window: MainWindow, who: str, target: str, face: int) -> list[str]:
    """``who``'s turn from the Turns dock: a Strike on ``target`` from the Action dock with a typed face."""
    assert window.turns_panel.begin_turn(who)
    panel = window.action_panel
    panel.set_kind("strike")
    panel.set_target(target)
    assert panel.allowed()[0], panel.allowed()[1]
    events = panel.apply_faces([face])
    assert events, window.controller.refusal
    texts = [e.text for e in events]
    assert window.turns_panel.end_turn()
    return texts


def test_a_minimal_ruleset_plays_a_fight_an_area_the_odds_and_an_export_through_the_window(
    duel: Any, laptop_window: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    window = laptop_window(encounter_of(duel))
    controller = window.controller
    assert controller.engine.ruleset is duel.DUEL

    # The Sheet and the Combatants table show the Duel's numbers, and no L&L word.
    controller.select("ogre")
    QApplication.processEvents()
    sheet = [label.text() for label in window.sheet.scroll.widget().findChildren(QLabel) if label.text()]
    assert {"HP (now / max)", "Damage die", "Defense"} <= set(sheet)
    assert not any(word in sheet for word in ("SP (now / max)", "IP (now / max)", "Level", "Armor points"))
    assert list(window.combatants_panel.model.COLUMNS) == ["Name", "Side", "HP", "Die", "Def", "Move", "Status"]

    # The Fight odds dock: worked out by the Duel's simulator, each one's HP left in its table.
    window.docks["Odds"].show()
    window.docks["Odds"].raise_()
    odds_panel = window._panel("Odds")
    run_until(lambda: odds_panel.odds is not None and odds_panel.odds.fights == 10_000, what="the fight odds")
    odds = odds_panel.odds
    assert 0.0 < odds.party_wins < 1.0  # true odds: neither side is sure of it
    assert odds_panel.headline.text().startswith(f"Party wins {odds.party_wins:.0%} ±")
    assert [odds_panel.table.item(r, 0).text() for r in range(3)] == ["Ann", "Ogre", "Goblin"]
    assert all(set(c.health_left) == {"HP"} for c in odds.combatants)
    assert "closes on the nearest standing foe" in odds_panel.toolTip()

    # A fire pot: a 10 ft circle laid with the Template tool on the Goblin and the Ogre, one 2d6 roll.
    window.map_view.set_tool("template")
    window.map_view.template_style.shape = AreaShape.CIRCLE
    drag(window, [(4.5, 3.5), (5.0, 3.5), (5.5, 3.5)])
    dialog = window.map_view.area_dialog
    assert isinstance(dialog, AreaEffectDialog)
    assert set(dialog.targets()) == {"ogre", "goblin"}, controller.encounter.templates
    dialog.dice_edit.setText("2d6")
    dialog.name_edit.setText("Fire pot")
    events = dialog.apply_faces([3, 4])
    assert events is not None, controller.refusal
    resolved = next(e for e in events if isinstance(e, AreaEffectResolved))
    assert resolved.total == 7
    assert {t.combatant: (t.damage, t.result) for t in resolved.targets} == {
        "ogre": (5, "HP 12 → 7"),  # 7 less its defense 2
        "goblin": (4, "HP 4 → 0, down"),  # 7 less its defense 0, all of its 4 HP
    }
    assert [e.text for e in events if e.kind == "down"] == ["Goblin is down"]
    assert controller.combatant("ogre").hp == 7 and controller.combatant("goblin").down

    # The fight, turn by turn from the docks, with typed faces, until one side is out.
    assert controller.do(act.StartCombat("roll", face=5)) is not None, controller.refusal  # d6 5: the Party
    assert controller.engine.acting_side() is Side.PARTY
    assert strike(window, "ann", "ogre", 8)[0] == "Ann strikes Ogre: d8 8 - defense 2 = 6; Ogre has 1/12 HP"

    # The Forecast dock reads the Duel's forecast: the Ogre's d6 on Ann, to HP, and its chance of 0 HP.
    window.docks["Forecast"].show()
    window.docks["Forecast"].raise_()
    forecast = window.forecast_panel
    assert window.turns_panel.begin_turn("ogre")
    window.action_panel.set_kind("strike")
    window.action_panel.set_target("ann")
    QApplication.processEvents()
    assert forecast.forecast is not None, forecast.hint_text
    assert forecast.forecast.where == "to HP" and forecast.forecast.thresholds[0].label == "0 HP"
    assert "1d6 - 1 defense" in forecast.formula_label.text()
    shown = forecast.summary_label.text()
    assert not any(word in shown.split() for word in LNL_WORDS)
    events = window.action_panel.apply_faces([4])
    assert events[0].text == "Ogre strikes Ann: d6 4 - defense 1 = 3; Ann has 7/10 HP"
    assert window.turns_panel.end_turn()

    assert controller.do(act.NextRound(face=2)) is not None, controller.refusal  # d6 2: the Opponents
    assert strike(window, "ogre", "ann", 1)[0] == "Ogre strikes Ann: d6 1 - defense 1 = 1; Ann has 6/10 HP"
    last = strike(window, "ann", "ogre", 3)
    assert last[0] == "Ann strikes Ogre: d8 3 - defense 2 = 1; Ogre has 0/12 HP" and "Ogre is down" in last
    assert all(c.down for c in controller.encounter.side(Side.OPPONENTS))
    assert not controller.engine.waiting()

    # After the fight the GM heals Ann by hand from the Sheet's Damage / Heal button: HP, the Duel's one number.
    controller.select("ann")
    QTest.mouseClick(window.sheet.hand_button, LEFT)
    dialog = window.sheet.hand_dialog
    assert isinstance(dialog, DamageHealDialog) and dialog.isVisible()
    dialog.heal_button.setChecked(True)
    QTest.keyClicks(dialog.amount, "3")
    QTest.mouseClick(dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Ok), LEFT)
    assert controller.combatant("ann").hp == 9
    assert controller.encounter.log[-1].text == "By hand: Ann heals 3 HP → 9/10 HP"

    # The log exported as CSV: the Duel's own column titles, none of L&L's.
    target = tmp_path / "duel.csv"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(target), "CSV spreadsheet (*.csv)"))
    window.round_log.export_button.click()
    rows = list(csv.reader(target.read_text(encoding="utf-8").splitlines()))
    assert rows[0] == ["round", "kind", "combatants", "text", "dice", "damage"]  # none of "to SP", "target IP"
    fire_pot = next(row for row in rows[1:] if row[1] == "area effect")
    assert fire_pot[3].startswith("Fire pot") and fire_pot[4:6] == ["3 4", "7"]
    assert any(row[3] == "Ogre is down" for row in rows[1:])


@pytest.fixture
def bare_duel(duel: Any) -> Any:
    """Duel without area effects and without a fight simulator: its ``areas`` and ``fights`` are None."""
    from bare_duel import bare_duel_encounter

    return bare_duel_encounter(duel)


def test_a_ruleset_without_areas_or_fights_says_so_where_a_gm_would_look(bare_duel: Any, laptop_window: Any) -> None:
    """A capability a ruleset lacks is None: the Odds dock and the Action dock say the ruleset has none."""
    window = laptop_window(bare_duel)
    controller = window.controller
    window.docks["Odds"].show()
    window.docks["Odds"].raise_()
    odds_panel = window._panel("Odds")
    QApplication.processEvents()
    assert odds_panel.odds is None
    assert not odds_panel.pin_button.isEnabled()
    assert odds_panel.pin_button.toolTip() == "Bare duel has no fight simulator"

    assert controller.do(act.StartCombat("roll", face=5)) is not None, controller.refusal
    assert window.turns_panel.begin_turn("ann")
    QApplication.processEvents()
    button = window.action_panel.area_button
    assert not button.isEnabled() and button.toolTip() == "Bare duel has no area effects"


def test_a_ruleset_without_areas_still_lays_templates_on_the_map(bare_duel: Any, laptop_window: Any) -> None:
    """A template is a mark on the map, the engine's: laid with no rules to resolve and no dialog."""
    window = laptop_window(bare_duel)
    window.map_view.set_tool("template")
    window.map_view.template_style.shape = AreaShape.CIRCLE
    drag(window, [(4.5, 3.5), (5.0, 3.5), (5.5, 3.5)])
    (template,) = window.controller.encounter.templates
    assert template.shape is AreaShape.CIRCLE and window.map_view.area_dialog is None
    assert window.drag_label.text() == "Bare duel has no area effects"  # the status bar says why no dialog
