"""An action's undo record costs what the action changed, not the size of the encounter.

Structural guards, no clocks: the engine keeps a shadow of the encounter (each container copied one
level deep) from one action to the next and copies again only what an action changed, so an action
on one token among hundreds copies no model of the others and lists the encounter only once. Undo
still puts back the exact state after every kind of change, redo replays it, and ``Engine.touched``
says which combatants and tokens each change touched. A long fight's recovery base does not turn
the whole log into text again each time.
"""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

from lnl_desktop.core import (
    Combatant,
    Encounter,
    Engine,
    MapGrid,
    RandomDice,
    Side,
    Token,
    Weapon,
)
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.engine import engine as engine_module
from lnl_desktop.core.files import storage
from lnl_desktop.core.files.journal import _BaseText
from lnl_desktop.core.rules.lnl import script

PARTY, OPP = Side.PARTY, Side.OPPONENTS


def crowd(size: int = 200) -> Engine:
    """Ana and Orc side by side, and ``size`` more Opponents on a 40 x 40 map."""
    combatants = [
        Combatant(
            name="Ana", side=PARTY, level=3, stamina_max=20, injury_max=9, weapons=[Weapon(name="Sword", die="d8")]
        ),
        Combatant(name="Orc", side=OPP, level=2, stamina_max=10, injury_max=6, weapons=[Weapon(name="Axe", die="d6")]),
    ]
    tokens = {"ana": Token(cell=(5, 5), facing=90), "orc": Token(cell=(6, 5), facing=270)}
    for n in range(size):
        cid = f"g{n}"
        combatants.append(
            Combatant(
                id=cid,
                name=f"Goblin {n + 1}",
                side=OPP,
                level=1,
                stamina_max=4,
                injury_max=3,
                weapons=[Weapon(name="Knife", die="d4")],
                conditions=["prone"] if n % 7 == 0 else [],
            )
        )
        tokens[cid] = Token(cell=(n % 40, 10 + n // 40))
    encounter = Encounter(map=MapGrid(width=40, height=40), combatants=combatants, tokens=tokens)
    return Engine(encounter, RandomDice(3))


def state(engine: Engine) -> dict[str, Any]:
    return engine.encounter.model_dump(exclude={"log"})


def fields_sets(engine: Engine) -> list[object]:
    e = engine.encounter
    return [sorted(c.model_fields_set) for c in e.combatants] + [
        (cid, sorted(t.model_fields_set)) for cid, t in e.tokens.items()
    ]


class CopyCounter:
    """Counts the pydantic models copied (``__copy__``) while it is on."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.copies = 0
        original = BaseModel.__copy__

        def counting(model: BaseModel) -> BaseModel:
            self.copies += 1
            return original(model)

        monkeypatch.setattr(BaseModel, "__copy__", counting)


def test_a_move_among_hundreds_copies_no_model_and_lists_the_encounter_once(monkeypatch: pytest.MonkeyPatch) -> None:
    engine = crowd(300)
    made: list[object] = []
    shadow_class = engine_module._Shadow
    monkeypatch.setattr(engine_module, "_Shadow", lambda e: made.append(e) or shadow_class(e))
    counter = CopyCounter(monkeypatch)
    for n in range(20):
        engine.apply(act.Move("ana", (5, 4) if n % 2 == 0 else (5, 5), forced=True))
    assert counter.copies == 0  # the undo records hold cells and lengths, no copied model
    assert len(made) == 1  # the encounter was listed for the first action only
    shadow = engine._shadow
    assert shadow is not None and len(shadow.entries) <= shadow.limit
    for _ in range(20):
        engine.undo()
    assert engine.encounter.tokens["ana"].cell == (5, 5)


def test_a_hit_on_one_combatant_copies_only_what_changed(monkeypatch: pytest.MonkeyPatch) -> None:
    engine = crowd(100)
    engine.apply(act.StartCombat("nobody ambushes", 4))
    engine.apply(act.BeginTurn(engine.waiting()[0].id))
    counter = CopyCounter(monkeypatch)
    engine.apply(act.EditCombatant("g5", {"stamina": 1}))
    # The edit makes a new Goblin; its undo keeps the old values of the fields that changed only.
    assert counter.copies <= 2
    paths = [path for path, _ in engine._undo[-1].change.leaves]  # type: ignore[union-attr]
    assert {path[:2] for path in paths} == {("combatants", 7)}


def test_undo_and_redo_after_every_kind_of_change_are_exact() -> None:
    engine = crowd(30)
    steps: list[act.Action] = [
        act.Move("g3", (20, 20), forced=True),
        act.EditCombatant("g4", {"stamina": 2, "conditions": ["prone", "blinded"]}),
        act.EditCombatant("g5", {"name": "Hobgoblin"}),
        act.SetHidden("g6", True),
        act.SetHidden("g6", False),
        act.Face("ana", 180),
        act.RemoveToken("g7"),
        act.PlaceToken("g7", (30, 30), 90),
        act.AddCombatant(
            {"name": "Ghost", "side": "Opponents", "level": 1, "stamina_max": 5, "injury_max": 3}, (33, 3)
        ),
        act.AddCombatant({"name": "Ghost", "side": "Opponents", "level": 1, "stamina_max": 5, "injury_max": 3}),
        act.RemoveCombatant("g8"),
        act.StartCombat("nobody ambushes", 4),
    ]
    before: list[tuple[dict[str, Any], list[object]]] = []
    for action in steps:
        before.append((state(engine), fields_sets(engine)))
        engine.apply(action)
    # A turn: a move that spends movement, an attack, the end of the turn.
    for _ in range(3):
        who = engine.waiting()[0].id
        before.append((state(engine), fields_sets(engine)))
        engine.apply(act.BeginTurn(who))
        if who in ("ana", "orc"):
            before.append((state(engine), fields_sets(engine)))
            foe = "orc" if who == "ana" else "ana"
            script.attack(engine, who, foe, "Sword" if who == "ana" else "Axe", faces=[5, 3, 2, 4, 6, 1])
        before.append((state(engine), fields_sets(engine)))
        engine.apply(act.EndTurn())
    after = (state(engine), fields_sets(engine))
    for expected in reversed(before):
        engine.undo()
        assert (state(engine), fields_sets(engine)) == expected
    while engine.can_redo:
        engine.redo()
    assert (state(engine), fields_sets(engine)) == after


def test_what_each_change_touched() -> None:
    engine = crowd(10)
    step = engine.touched.step
    engine.apply(act.Move("g1", (30, 30), forced=True))
    assert (engine.touched.step, engine.touched.tokens, engine.touched.combatants) == (step + 1, {"g1"}, set())
    engine.apply(act.EditCombatant("g2", {"stamina": 1}))
    assert (engine.touched.tokens, engine.touched.combatants) == (set(), {"g2"})
    engine.apply(
        act.AddCombatant({"name": "Ghost", "side": "Opponents", "level": 1, "stamina_max": 5, "injury_max": 3}, (33, 3))
    )
    assert (engine.touched.tokens, engine.touched.combatants) == ({"ghost"}, {"ghost"})
    engine.undo()
    assert (engine.touched.tokens, engine.touched.combatants) == ({"ghost"}, {"ghost"})
    engine.apply(act.RemoveCombatant("g3"))
    assert engine.touched.combatants == {"g3"} and engine.touched.tokens == {"g3"}
    engine.apply(act.StartCombat("nobody ambushes", 4))
    assert "combat" in engine.touched.parts
    engine.replace(crowd(2).encounter)
    assert engine.touched.combatants is None and engine.touched.tokens is None


def test_the_shadow_does_not_grow_over_a_long_session() -> None:
    engine = crowd(20)
    for n in range(300):
        engine.apply(act.EditCombatant("g1", {"stamina": n % 4}))  # a new Goblin each time
    shadow = engine._shadow
    assert shadow is not None and len(shadow.entries) <= shadow.limit


def test_a_new_encounter_or_part_starts_a_new_shadow() -> None:
    engine = crowd(5)
    engine.apply(act.Move("g1", (30, 30), forced=True))
    first = engine._shadow
    engine.encounter.combat = engine.encounter.combat.model_copy()  # not through the engine
    engine.apply(act.Move("g1", (31, 30), forced=True))
    assert engine._shadow is not first
    engine.undo()
    assert engine.encounter.tokens["g1"].cell == (30, 30)


def test_a_recovery_base_is_the_file_text_and_turns_each_event_into_text_once(monkeypatch: pytest.MonkeyPatch) -> None:
    engine = crowd(10)
    base = _BaseText()
    engine.apply(act.StartCombat("nobody ambushes", 4))
    engine.apply(act.BeginTurn(engine.waiting()[0].id))
    assert base(engine.encounter) == storage.dumps(engine.encounter)
    texts: list[str] = []  # the kinds of the events turned into text
    original = BaseModel.model_dump_json

    def counting(model: BaseModel, **options: Any) -> str:
        if type(model).__module__ == "lnl_desktop.core.encounter.events":
            texts.append(getattr(model, "kind", ""))
        return original(model, **options)

    monkeypatch.setattr(BaseModel, "model_dump_json", counting)
    engine.apply(act.EndTurn())
    engine.undo()  # the end of the turn goes from the log, the undo's line comes
    assert base(engine.encounter) == storage.dumps(engine.encounter)
    assert texts == ["undone"]  # the log's other events were text already
