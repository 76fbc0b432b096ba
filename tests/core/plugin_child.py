"""The installed Duel ruleset at work in a fresh process: ``python plugin_child.py play|broken``.

Run by ``test_plugin_ruleset.py`` with PYTHONPATH set to where pip installed the example package
(and, for ``broken``, a folder of bad entry points too), so the registry finds rulesets through
``importlib.metadata`` as the app would. Prints one JSON object of what it saw; the parent test
says what it should be.
"""

from __future__ import annotations

import copy
import json
import sys
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

from lnl_desktop.core.dice.rolls import ScriptedDice
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.model import Side
from lnl_desktop.core.engine.engine import Engine
from lnl_desktop.core.errors import IllegalAction
from lnl_desktop.core.files import storage
from lnl_desktop.core.files.export import to_csv
from lnl_desktop.core.files.journal import action_from_json, action_to_json
from lnl_desktop.core.rules.bestiary import check_creatures
from lnl_desktop.core.rules.lnl.model import Combatant, Encounter
from lnl_desktop.core.rules.registry import ENTRY_POINT_GROUP, all_rulesets, get_ruleset, plugin_problems


def differences(before: Any, after: Any, path: str = "") -> list[str]:
    """Where two dumped values differ, as paths."""
    if isinstance(before, dict) and isinstance(after, dict):
        keys = sorted(set(before) | set(after))
        return [d for k in keys for d in differences(before.get(k), after.get(k), f"{path}.{k}")]
    if isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        return [
            d for i, (b, a) in enumerate(zip(before, after, strict=True)) for d in differences(b, a, f"{path}[{i}]")
        ]
    return [] if before == after and type(before) is type(after) else [path or "."]


def exact_differences(before: Encounter, after: Encounter) -> list[str]:
    """Every difference of value, and of the fields pydantic counts as set, between two encounters."""
    found = differences(before.model_dump(mode="json"), after.model_dump(mode="json"))
    for old, new in zip(before.combatants, after.combatants, strict=False):
        if old.model_fields_set != new.model_fields_set:
            found.append(f"combatants.{old.id}: fields set {sorted(old.model_fields_set)}")
    if type(before) is not type(after):
        found.append(f"type {type(before).__name__} -> {type(after).__name__}")
    return found


def refusal(engine: Engine, action: Any, faces: list[int]) -> list[str]:
    try:
        engine.apply(action, ScriptedDice(faces))
    except IllegalAction as error:
        return list(error.reasons)
    return []


def play() -> dict[str, Any]:
    import lnl_duel  # installed by pip; the registry has already imported it through the entry point

    seen: dict[str, Any] = {}
    rulesets = all_rulesets()
    seen["rulesets"] = list(rulesets)
    seen["problems"] = plugin_problems()
    seen["entry_points"] = sorted(point.name for point in entry_points(group=ENTRY_POINT_GROUP))
    seen["module_folder"] = str(Path(lnl_duel.__file__).parents[1])  # the folder that holds the package
    duel = get_ruleset("duel")
    seen["same_object"] = duel is lnl_duel.DUEL and rulesets["duel"] is duel
    seen["title"] = duel.title

    encounter = duel.new_encounter(
        name="Duel on the bridge",
        combatants=[
            {"id": "ann", "name": "Ann", "side": "Party", "hp_max": 10, "damage_die": 8, "defense": 1},
            {"id": "ogre", "name": "Ogre", "side": "Opponents", "hp_max": 10, "damage_die": 6, "defense": 2},
        ],
        tokens={"ann": {"cell": [3, 3]}, "ogre": {"cell": [4, 3], "facing": 270}},
    )
    seen["types"] = [type(encounter).__name__, *(type(c).__name__ for c in encounter.combatants)]
    engine = Engine(encounter)
    seen["engine_ruleset"] = engine.ruleset.name

    # Round 1: the d6 reads 5, the Party acts first.
    opening = engine.apply(act.StartCombat("roll"), ScriptedDice([5]))
    seen["opening"] = [opening[0].kind, opening[0].text]
    seen["acting"] = engine.acting_side().value
    seen["waiting"] = [c.id for c in engine.waiting()]
    seen["wrong_side"] = refusal(engine, act.BeginTurn("ogre"), [])
    engine.begin_turn("ann")
    engine.move("ann", (3, 4))

    before = copy.deepcopy(engine.encounter)
    events = engine.apply(lnl_duel.Strike("ann", "ogre"), ScriptedDice([7]))  # 7 - defense 2 = 5
    seen["strike"] = [(e.kind, e.text, getattr(e, "detail", None)) for e in events]
    seen["hp_after_strike"] = engine.combatant("ogre").hp
    seen["turn_action"] = engine.encounter.combat.turn.action
    seen["second_strike"] = refusal(engine, lnl_duel.Strike("ann", "ogre"), [3])
    after = copy.deepcopy(engine.encounter)

    engine.undo()
    undone = copy.deepcopy(engine.encounter)
    seen["undo_log_tail"] = engine.encounter.log[-1].kind
    undone.log = undone.log[:-1]  # the undo line itself is part of the story
    seen["undo_differences"] = exact_differences(before, undone)
    engine.redo()  # the very same face again
    redone = copy.deepcopy(engine.encounter)
    redone.log = [e for e in redone.log if e.kind != "undone"]
    seen["redo_differences"] = exact_differences(after, redone)

    engine.end_turn()
    engine.begin_turn("ogre")
    engine.apply(lnl_duel.Strike("ogre", "ann"), ScriptedDice([1]))  # 1 - 1 = 0, raised to the minimum 1
    seen["hp_ann"] = engine.combatant("ann").hp
    engine.end_turn()
    seen["round_over"] = engine.round_over

    # Round 2: the d6 reads 2, the Opponents act first; then Ann's 6 drops the Ogre (6 - 2 = 4 of 5 left).
    engine.apply(act.NextRound(), ScriptedDice([2]))
    seen["round_2_acting"] = engine.acting_side().value
    engine.begin_turn("ogre")
    engine.apply(act.OtherAction("ogre", "roars"))
    engine.end_turn()
    engine.begin_turn("ann")
    events = engine.apply(lnl_duel.Strike("ann", "ogre"), ScriptedDice([8]))
    seen["killing_blow"] = [(e.kind, e.text) for e in events]
    seen["overkill"] = events[-1].overkill if events[-1].kind == "down" else None
    seen["ogre_down"] = engine.combatant("ogre").down
    engine.end_turn()

    # Round 3: the d6 gives the Opponents the lead, but the Ogre is down: Ann acts, and may not strike it.
    engine.apply(act.NextRound(), ScriptedDice([1]))
    seen["ogre_may_act"] = engine.may_act(engine.combatant("ogre"))
    seen["round_3_waiting"] = [c.id for c in engine.waiting()]
    engine.begin_turn("ann")
    seen["strike_the_fallen"] = refusal(engine, lnl_duel.Strike("ann", "ogre"), [8])

    text = storage.dumps(engine.encounter)
    loaded = storage.loads(text, "duel.lnl")
    seen["file_ruleset"] = json.loads(text)["encounter"]["ruleset"]
    seen["file_version"] = json.loads(text)["version"]
    seen["round_trip_equal"] = loaded == engine.encounter
    seen["round_trip_text_equal"] = storage.dumps(loaded) == text
    seen["loaded_types"] = [type(loaded).__name__, *(type(c).__name__ for c in loaded.combatants)]
    again = Engine(loaded)  # the loaded copy plays on: Ann's turn is still under way in it
    seen["loaded_plays_on"] = [e.kind for e in again.apply(act.OtherAction("ann", "salutes")) + again.end_turn()]
    seen["csv_rows"] = len(to_csv(engine.encounter).splitlines())

    strike = lnl_duel.Strike("ann", "ogre")
    seen["journal_line"] = action_to_json(strike)
    seen["journal_round_trip"] = action_from_json(action_to_json(strike)) == strike

    # Views: what the Qt layer would read.
    ann = engine.combatant("ann")
    seen["sheet_keys"] = [row.keys for row in duel.views.sheet().numbers]
    seen["columns"] = [(col.title, col.value(ann)) for col in duel.views.columns()]
    seen["gauges"] = [(g.label, g.now, g.most, g.tint) for g in duel.tokens.gauges(ann)]
    kinds = duel.actions.kinds()
    seen["action_kinds"] = [(k.key, k.uses, k.targeted, k.rolls) for k in kinds]
    # As the Action dock calls build: a targeted action gets the means and the GM's toggles too.
    strike = kinds[0].build("ann", "ogre", None, ignore_dex=False, override=False)
    seen["built"] = [repr(strike), repr(kinds[1].build("ann", "shouts"))]
    seen["notes"] = duel.actions.notes(engine.encounter, kinds[0], ann, None, engine.combatant("ogre"))
    procedure = duel.rounds.start_procedure()
    seen["start"] = [[s.key for s in procedure.situations], procedure.reading("roll", 2), procedure.reading("roll", 6)]
    seen["bestiary"] = [c["name"] for c in duel.bestiary()]
    seen["bestiary_problems"] = check_creatures(duel, duel.bestiary())[1]
    seen["forecast"] = duel.attacks.forecast(ann, engine.combatant("ogre"), None, None, engine.encounter.options)
    odds = duel.attacks.forecast(engine.combatant("ogre"), ann, None, None, engine.encounter.options)
    seen["forecast_on_ann"] = [
        odds.where,
        odds.formula,
        round(odds.mean, 3),
        [(t.label, t.from_amount, t.chance, t.down) for t in odds.thresholds],
    ]

    # Fight odds: the fast simulator (numpy, many fights at once) agrees with the engine-played reference.
    from lnl_desktop.core.sim.agreement import disagreements
    from lnl_desktop.core.sim.reference import reference_odds
    from lnl_desktop.core.sim.run import fight_odds

    melee = duel.new_encounter(
        name="Two on the Ogre",
        combatants=[
            {"id": "ann", "name": "Ann", "side": "Party", "hp_max": 12, "damage_die": 8, "defense": 1},
            {"id": "bob", "name": "Bob", "side": "Party", "hp_max": 8, "damage_die": 6},
            {"id": "ogre", "name": "Ogre", "side": "Opponents", "hp_max": 20, "damage_die": 10, "defense": 2},
        ],
        tokens={"ann": {"cell": [2, 2]}, "bob": {"cell": [2, 4]}, "ogre": {"cell": [8, 3]}},
    )
    fast, slow = fight_odds(melee, 4000, seed=1), reference_odds(melee, 200, seed=1)
    seen["odds"] = [fast.fights, slow.fights, 0.1 < fast.party_wins < 0.9, disagreements(fast, slow)]
    seen["odds_health"] = sorted({k for c in fast.combatants for k in c.health_left})

    # An L&L encounter converted to Duel before combat keeps what maps; undo gives the L&L one back.
    lnl = Encounter(
        combatants=[Combatant(id="tom", name="Tom", side=Side.PARTY, level=3, stamina_max=12, injury_max=6)],
        tokens={"tom": {"cell": (1, 1)}},
    )
    convert = Engine(lnl)
    events = convert.apply(act.ConvertRuleset("duel"))
    seen["converted"] = [convert.ruleset.name, type(convert.encounter.combatants[0]).__name__]
    seen["converted_hp"] = convert.encounter.combatants[0].hp
    seen["convert_notes"] = events[0].notes
    convert.undo()
    seen["unconverted"] = [convert.ruleset.name, convert.encounter.ruleset, type(convert.encounter).__name__]
    return seen


def broken() -> dict[str, Any]:
    from lnl_desktop.core.rules.registry import BUILT_IN

    seen: dict[str, Any] = {}
    seen["problems"] = plugin_problems()
    seen["rulesets"] = list(all_rulesets())
    seen["built_in_titles"] = [get_ruleset(name).title for name in BUILT_IN]
    encounter = get_ruleset("lnl").new_encounter(
        combatants=[{"name": "Tom", "side": "Party", "level": 1, "stamina_max": 5, "injury_max": 3}]
    )
    seen["lnl_still_saves"] = storage.loads(storage.dumps(encounter)) == encounter
    try:
        get_ruleset("broken")
    except Exception as error:  # what it raises is what the test looks at
        seen["asking_for_broken"] = [type(error).__name__, str(error)]
    return seen


def window() -> dict[str, Any]:
    """The installed ruleset in the real main window (offscreen), through its docks only: no line of
    the program names it, so what shows is what its descriptions say."""
    import os
    import tempfile

    os.environ["QT_QPA_PLATFORM"] = "offscreen"
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication, QLabel

    from lnl_desktop.ui.window.main_window import MainWindow
    from lnl_desktop.ui.window.recovery import RecoveryStore

    app = QApplication.instance() or QApplication([])
    scratch = Path(tempfile.mkdtemp(prefix="lnl-duel-"))
    settings = QSettings(str(scratch / "settings.ini"), QSettings.Format.IniFormat)
    duel = get_ruleset("duel")
    encounter = duel.new_encounter(name="Duel on the bridge")
    main = MainWindow(encounter, None, settings=settings, recovery=RecoveryStore(scratch / "recovery"))
    main.show()
    app.processEvents()
    seen: dict[str, Any] = {"title": main.windowTitle()}
    main.demo_menu.aboutToShow.emit()  # as when the GM opens File ▸ Open demo
    seen["demo_menu"] = [a.text() for a in main.demo_menu.actions()]
    bestiary = main.bestiary.model
    seen["bestiary"] = [bestiary.creature(r)["name"] for r in range(bestiary.rowCount())]
    ann = main.combatants_panel.add_combatant()  # the ruleset's new combatant, placed by hand below
    seen["added"] = type(main.controller.encounter.combatant(ann)).__name__ if ann else None
    ogre = main.controller.add_combatant(bestiary.creature(0) | {"side": "Opponents"}, cell=(4, 3))
    main.controller.do(act.PlaceToken(str(ann), (3, 3)))
    main.controller.select(ann)
    app.processEvents()
    seen["columns"] = list(main.combatants_panel.model.COLUMNS)
    seen["sheet"] = [label.text() for label in main.sheet.scroll.widget().findChildren(QLabel) if label.text()]
    main.controller.do(act.StartCombat("roll"), ScriptedDice([5]))
    main.controller.do(act.BeginTurn(str(ann)))
    panel = main.action_panel
    seen["kinds"] = [panel.kind_combo.itemText(i) for i in range(panel.kind_combo.count())]
    panel.set_kind("strike")
    panel.set_target(ogre)
    seen["checks"] = [(row.label, row.status) for row in panel.rows]
    seen["button"] = panel.roll_button.text()
    before = main.controller.encounter.combatant(str(ogre)).hp
    events = panel.apply_faces([6])
    seen["strike"] = [e.text for e in events or []]
    seen["hp"] = [before, main.controller.encounter.combatant(str(ogre)).hp]
    seen["turns_headers"] = [
        main.turns_panel.tree.headerItem().text(i) for i in range(main.turns_panel.tree.columnCount())
    ]
    main.undo_action.trigger()
    seen["hp_after_undo"] = main.controller.encounter.combatant(str(ogre)).hp
    main.controller.undo_stack.setClean()
    main.close()
    return seen


if __name__ == "__main__":
    mode = sys.argv[1]
    print(json.dumps({"play": play, "broken": broken, "window": window}[mode](), default=str))
