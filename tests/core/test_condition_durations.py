"""Conditions that end by themselves (RULES §10 "How long a condition lasts"), in every ruleset: N
rounds counted at the end of the creature's turns, the end of its next turn, the start of a named
creature's next turn, a save at the end of each of its turns; each ending a log line in the same
undo step as the turn's end; kept in the file; refused in words when wrong."""

from __future__ import annotations

from typing import Any

import pytest

from lnl_desktop.core import Engine, IllegalAction, ScriptedDice
from lnl_desktop.core.dice.rolls import PhysicalDice, RandomDice
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.durations import condition_label, duration_words
from lnl_desktop.core.encounter.events import ConditionChanged
from lnl_desktop.core.encounter.model import ConditionDuration, DurationKind
from lnl_desktop.core.files.storage import EncounterFileError, dumps, loads
from lnl_desktop.core.rules.lnl import script
from lnl_desktop.core.rules.registry import get_ruleset

RULESETS = ("lnl", "classic", "osr", "d10")

ROUND = ConditionDuration(kind=DurationKind.ROUNDS, rounds=1)
NEXT_TURN = ConditionDuration(kind=DurationKind.END_OF_NEXT_TURN)


def stat_block(ruleset: str, name: str, side: str) -> dict[str, Any]:
    """Tombril (Party) or the Ogre (Opponents) in each ruleset's numbers: STR +2 (L&L family), a
    Paralysis save of +2 (Old-School d20), feats of strength +2 (Group d10)."""
    base = {"name": name, "side": side}
    if ruleset in ("lnl", "classic"):
        return base | {"level": 1, "str_bonus": 2, "stamina_max": 6, "injury_max": 6}
    if ruleset == "osr":
        return base | {"kind": "PC", "hp_max": 14, "save_paralysis": 2}
    return base | {"hp_max": 14, "defense": 12, "strength": 2}


def table(ruleset: str) -> Engine:
    rules = get_ruleset(ruleset)
    encounter = rules.new_encounter(
        name="t",
        combatants=[stat_block(ruleset, "Tombril", "Party"), stat_block(ruleset, "Ogre", "Opponents")],
        tokens={"tombril": {"cell": (1, 1)}, "ogre": {"cell": (6, 6)}},
    )
    engine = Engine(encounter, dice=RandomDice(7))
    _declare(engine)
    situation = rules.rounds.start_procedure().situations[0].key
    engine.apply(act.StartCombat(situation=str(situation)))
    return engine


def _declare(engine: Engine) -> None:
    # Group d10 declares every action before the round's initiative.
    if engine.ruleset.name == "d10" and (engine.round_over or engine.encounter.combat.round == 0):
        declare = script.action_class(engine, "Declare")
        for c in engine.encounter.combatants:
            engine.apply(declare(c.id, "attack"))


def turn_of(engine: Engine, cid: str) -> None:
    """Play on (ending turns, starting rounds) until ``cid``'s turn is under way."""
    for _ in range(20):
        turn = engine.encounter.combat.turn
        if turn is not None and turn.combatant == cid:
            return
        if turn is not None:
            engine.apply(act.EndTurn())
            continue
        waiting = [c.id for c in engine.waiting()]
        if cid in waiting:
            engine.apply(act.BeginTurn(cid))
        elif waiting:
            engine.apply(act.BeginTurn(waiting[0]))
        else:
            _declare(engine)
            engine.apply(act.NextRound())
    raise AssertionError(f"{cid}'s turn never came")


def tombril(engine: Engine) -> Any:
    return engine.combatant("tombril")


def texts(events: list[Any]) -> list[str]:
    return [e.text for e in events]


# -- N rounds, counted at the end of its turns -------------------------------------------------------


@pytest.mark.parametrize("ruleset", RULESETS)
def test_a_one_round_stun_ends_at_the_end_of_its_next_turn_not_the_ogres(ruleset: str) -> None:
    engine = table(ruleset)
    turn_of(engine, "ogre")
    given = engine.apply(act.SetCondition("tombril", "Stunned", duration=ROUND))
    assert texts(given) == ["Tombril is stunned (1 round)"]
    assert condition_label(tombril(engine), "stunned") == "stunned · 1 round left"

    ended_ogre = engine.apply(act.EndTurn())  # the turn it was given in is the Ogre's: no count
    assert tombril(engine).conditions == ["stunned"]
    assert not [e for e in ended_ogre if isinstance(e, ConditionChanged)]

    turn_of(engine, "tombril")
    assert "stunned" in engine.turn_checks(tombril(engine), needs_action=True)[1].reason  # only End turn
    events = engine.apply(act.EndTurn())
    assert "Tombril is no longer stunned (1 round)" in texts(events)
    assert tombril(engine).conditions == [] and tombril(engine).durations == {}
    assert "Tombril is no longer stunned (1 round)" in [e.text for e in engine.encounter.log]


@pytest.mark.parametrize("ruleset", RULESETS)
def test_a_stun_given_during_its_own_turn_counts_from_its_next_turn(ruleset: str) -> None:
    engine = table(ruleset)
    turn_of(engine, "tombril")
    engine.apply(act.SetCondition("tombril", "stunned", duration=ROUND))
    engine.apply(act.EndTurn())
    assert tombril(engine).conditions == ["stunned"]  # not the turn it was given in
    assert condition_label(tombril(engine), "stunned") == "stunned · 1 round left"
    turn_of(engine, "tombril")  # its next turn, the Ogre's between
    assert "Tombril is no longer stunned (1 round)" in texts(engine.apply(act.EndTurn()))
    assert tombril(engine).conditions == []


@pytest.mark.parametrize("ruleset", RULESETS)
def test_three_rounds_count_down_one_a_turn(ruleset: str) -> None:
    engine = table(ruleset)
    turn_of(engine, "ogre")
    three = ConditionDuration(kind=DurationKind.ROUNDS, rounds=3)
    engine.apply(act.SetCondition("tombril", "blinded", duration=three))
    lefts = []
    for _ in range(3):
        turn_of(engine, "tombril")
        events = engine.apply(act.EndTurn())
        lefts.append([e.text for e in events if isinstance(e, ConditionChanged)])
    assert lefts == [
        ["Tombril: blinded, 2 rounds left"],
        ["Tombril: blinded, 1 round left"],
        ["Tombril is no longer blinded (3 rounds)"],
    ]
    assert tombril(engine).conditions == []


# Group d10 starts no round before everyone declares for it, so none of its turns is passed over.
@pytest.mark.parametrize("ruleset", ("lnl", "classic", "osr"))
def test_a_turn_the_gm_passes_over_still_counts(ruleset: str) -> None:
    engine = table(ruleset)
    turn_of(engine, "ogre")
    engine.apply(act.SetCondition("tombril", "stunned", duration=ROUND))
    engine.apply(act.EndTurn())
    if "tombril" in engine.encounter.combat.acted:
        _declare(engine)
        assert not [e for e in engine.apply(act.NextRound()) if isinstance(e, ConditionChanged)]
    # Tombril has not acted this round: the GM ends the round without its turn.
    _declare(engine)
    events = engine.apply(act.NextRound())
    assert "Tombril is no longer stunned (1 round) (its turn passed)" in texts(events)
    assert tombril(engine).conditions == []


# -- until the end of its next turn ----------------------------------------------------------------


@pytest.mark.parametrize("ruleset", RULESETS)
def test_until_the_end_of_its_next_turn_given_during_anothers_turn(ruleset: str) -> None:
    engine = table(ruleset)
    turn_of(engine, "ogre")
    engine.apply(act.SetCondition("tombril", "prone", duration=NEXT_TURN))
    assert condition_label(tombril(engine), "prone") == "prone · until the end of its next turn"
    engine.apply(act.EndTurn())
    turn_of(engine, "tombril")
    assert tombril(engine).conditions == ["prone"]
    assert "Tombril is no longer prone (until the end of its next turn)" in texts(engine.apply(act.EndTurn()))


@pytest.mark.parametrize("ruleset", RULESETS)
def test_until_the_end_of_its_next_turn_given_during_its_own_turn(ruleset: str) -> None:
    engine = table(ruleset)
    turn_of(engine, "tombril")
    engine.apply(act.SetCondition("tombril", "prone", duration=NEXT_TURN))
    engine.apply(act.EndTurn())
    assert tombril(engine).conditions == ["prone"]  # this turn is not its next one
    turn_of(engine, "tombril")
    assert tombril(engine).conditions == ["prone"]
    assert "Tombril is no longer prone (until the end of its next turn)" in texts(engine.apply(act.EndTurn()))
    assert tombril(engine).conditions == []


# -- until the start of a named creature's next turn -------------------------------------------------


@pytest.mark.parametrize("ruleset", RULESETS)
def test_until_the_start_of_the_casters_next_turn(ruleset: str) -> None:
    engine = table(ruleset)
    turn_of(engine, "ogre")
    charm = ConditionDuration(kind=DurationKind.START_OF_TURN_OF, creature="ogre")
    assert texts(engine.apply(act.SetCondition("tombril", "charmed", duration=charm))) == [
        "Tombril is charmed (until the start of Ogre's next turn)"
    ]
    names = {c.id: c.name for c in engine.encounter.combatants}
    assert condition_label(tombril(engine), "charmed", names) == "charmed · until the start of Ogre's next turn"
    engine.apply(act.EndTurn())
    turn_of(engine, "tombril")
    engine.apply(act.EndTurn())
    assert tombril(engine).conditions == ["charmed"]  # Tombril's own turns do not end it
    events: list[Any] = []
    while engine.encounter.combat.turn is None or engine.encounter.combat.turn.combatant != "ogre":
        before = len(engine.encounter.log)
        turn_of(engine, "ogre")
        events = engine.encounter.log[before:]
    began = [e.text for e in events]
    assert "Tombril is no longer charmed (until the start of Ogre's next turn)" in began
    assert began.index("Ogre's turn") < began.index(
        "Tombril is no longer charmed (until the start of Ogre's next turn)"
    )
    assert tombril(engine).conditions == []


@pytest.mark.parametrize("ruleset", RULESETS)
def test_a_condition_tied_to_a_creature_that_left_ends_at_the_next_turn(ruleset: str) -> None:
    engine = table(ruleset)
    engine.apply(act.AddCombatant(data=stat_block(ruleset, "Mirela", "Opponents")))
    turn_of(engine, "ogre")
    charm = ConditionDuration(kind=DurationKind.START_OF_TURN_OF, creature="mirela")
    engine.apply(act.SetCondition("tombril", "charmed", duration=charm))
    engine.apply(act.RemoveCombatant("mirela"))
    engine.apply(act.EndTurn())
    before = len(engine.encounter.log)
    turn_of(engine, "tombril")
    said = [e.text for e in engine.encounter.log[before:]]
    assert any(t.startswith("Tombril is no longer charmed") and "left the fight" in t for t in said)
    assert tombril(engine).conditions == []


# -- a save at the end of each of its turns --------------------------------------------------------

# Each ruleset's save against paralysis that Tombril (STR +2 / Paralysis +2 / no skill) makes on
# ``saves`` and misses on ``fails``, with its words in the log.
SAVES = {
    "lnl": (ConditionDuration(kind=DurationKind.SAVE, save="STR"), 12, 13, "d20 12 under STR 12", "(d20 under STR)"),
    "classic": (
        ConditionDuration(kind=DurationKind.SAVE, save="WIS"),
        10,
        11,
        "d20 10 under WIS 10",
        "(d20 under WIS)",
    ),
    "osr": (
        ConditionDuration(kind=DurationKind.SAVE, save="Paralysis or Petrification", dc=14),
        12,
        11,
        "d20 12 +2 = 14 vs DC 14",
        "(paralysis or petrification, DC 14)",
    ),
    "d10": (ConditionDuration(kind=DurationKind.SAVE, dc=12), 12, 11, "d20 12 vs DC 12", "(DC 12)"),
}


@pytest.mark.parametrize("ruleset", RULESETS)
def test_a_save_each_turn_fails_then_succeeds_on_the_faces_typed(ruleset: str) -> None:
    engine = table(ruleset)
    save, saves, fails, words, label = SAVES[ruleset]
    turn_of(engine, "ogre")
    engine.apply(act.SetCondition("tombril", "paralyzed", duration=save))
    assert condition_label(tombril(engine), "paralyzed") == f"paralyzed · save each turn {label}"
    engine.apply(act.EndTurn())
    turn_of(engine, "tombril")
    kept = engine.apply(act.EndTurn(), ScriptedDice([fails]))
    said = [e for e in kept if isinstance(e, ConditionChanged)]
    assert [(e.change, e.face) for e in said] == [("kept", fails)]
    assert said[0].text.startswith("Tombril stays paralyzed (fails the save: d20")
    assert tombril(engine).conditions == ["paralyzed"]
    turn_of(engine, "tombril")
    asked: list[str] = []
    typed = PhysicalDice(lambda sides, purpose: asked.append(purpose) or saves)
    ended = engine.apply(act.EndTurn(), typed)
    assert f"Tombril is no longer paralyzed (saves: {words})" in texts(ended)
    assert asked == [f"Tombril's save against paralyzed ({label[1:-1]})"]
    assert tombril(engine).conditions == []


def test_group_d10_adds_the_skill_named() -> None:
    engine = table("d10")
    turn_of(engine, "ogre")
    save = ConditionDuration(kind=DurationKind.SAVE, save="strength", dc=12)
    engine.apply(act.SetCondition("tombril", "restrained", duration=save))
    turn_of(engine, "tombril")
    events = engine.apply(act.EndTurn(), ScriptedDice([10]))  # 10 + 2 feats of strength = 12
    assert "Tombril is no longer restrained (saves: d20 10 +2 feats of strength = 12 vs DC 12)" in texts(events)


@pytest.mark.parametrize(
    ("ruleset", "save", "dc", "why"),
    [
        ("lnl", None, 12, "say which save ends it (STR, DEX, AWA)"),
        ("lnl", "Wands", None, "Laurels & Loot has no save 'Wands' (one of STR, DEX, AWA)"),
        ("osr", "Spells", None, "give the save's DC"),
        ("osr", "STR", 12, "has no save 'STR'"),
        ("d10", None, None, None),  # the model itself asks for a save or a DC
    ],
)
def test_a_save_the_ruleset_cannot_roll_is_refused_in_words(ruleset: str, save: Any, dc: Any, why: Any) -> None:
    engine = table(ruleset)
    if why is None:
        with pytest.raises(ValueError, match="say which save ends it"):
            ConditionDuration(kind=DurationKind.SAVE, save=save, dc=dc)
        return
    duration = ConditionDuration(kind=DurationKind.SAVE, save=save, dc=dc)
    with pytest.raises(IllegalAction, match=why.replace("(", r"\(").replace(")", r"\)")):
        engine.apply(act.SetCondition("tombril", "paralyzed", duration=duration))
    assert tombril(engine).conditions == []


# -- undo, the file, the sheet's line ------------------------------------------------------------


@pytest.mark.parametrize("ruleset", RULESETS)
def test_one_undo_puts_back_the_turn_and_the_condition_with_its_duration(ruleset: str) -> None:
    engine = table(ruleset)
    save, _, fails, _, _ = SAVES[ruleset]
    turn_of(engine, "ogre")
    engine.apply(act.SetCondition("tombril", "stunned", duration=ROUND))
    engine.apply(act.SetCondition("tombril", "paralyzed", duration=save))
    engine.apply(act.EndTurn())
    turn_of(engine, "tombril")
    before = tombril(engine).model_dump()
    engine.apply(act.EndTurn(), ScriptedDice([fails]))
    assert tombril(engine).conditions == ["paralyzed"]
    engine.undo()
    assert tombril(engine).model_dump() == before
    assert engine.encounter.combat.turn is not None and engine.encounter.combat.turn.combatant == "tombril"
    assert condition_label(tombril(engine), "stunned") == "stunned · 1 round left"
    engine.redo()  # the very same faces
    assert tombril(engine).conditions == ["paralyzed"]


@pytest.mark.parametrize("ruleset", RULESETS)
def test_the_gm_gives_changes_and_removes_a_condition_each_undoable(ruleset: str) -> None:
    engine = table(ruleset)
    engine.apply(act.SetCondition("tombril", "stunned"))
    assert condition_label(tombril(engine), "stunned") == "stunned"  # until removed
    with pytest.raises(IllegalAction, match="Tombril is already stunned"):
        engine.apply(act.SetCondition("tombril", "STUNNED"))
    changed = engine.apply(act.SetCondition("tombril", "stunned", duration=ConditionDuration(kind="rounds", rounds=2)))
    assert texts(changed) == ["Tombril is stunned (2 rounds), was until removed"]
    removed = engine.apply(act.SetCondition("tombril", "Stunned", on=False))
    assert texts(removed) == ["Tombril is no longer stunned"]
    assert tombril(engine).conditions == [] and tombril(engine).durations == {}
    engine.undo()
    assert tombril(engine).durations["stunned"].rounds == 2
    engine.undo()
    assert tombril(engine).conditions == ["stunned"] and tombril(engine).durations == {}


def test_a_condition_for_nobody_or_without_a_name_is_refused_in_words() -> None:
    engine = table("lnl")
    with pytest.raises(IllegalAction, match="there is no combatant 'nobody'"):
        engine.apply(act.SetCondition("nobody", "stunned"))
    with pytest.raises(IllegalAction, match="name the condition"):
        engine.apply(act.SetCondition("tombril", "   "))
    with pytest.raises(IllegalAction, match="Tombril is not prone"):
        engine.apply(act.SetCondition("tombril", "prone", on=False))
    gone = ConditionDuration(kind=DurationKind.START_OF_TURN_OF, creature="nobody")
    with pytest.raises(IllegalAction, match="no combatant 'nobody'"):
        engine.apply(act.SetCondition("tombril", "charmed", duration=gone))
    assert tombril(engine).conditions == []


@pytest.mark.parametrize("ruleset", RULESETS)
def test_durations_are_kept_in_the_file(ruleset: str) -> None:
    engine = table(ruleset)
    turn_of(engine, "tombril")
    three = ConditionDuration(kind=DurationKind.ROUNDS, rounds=3)
    engine.apply(act.SetCondition("tombril", "stunned", duration=three))
    engine.apply(act.SetCondition("tombril", "paralyzed", duration=SAVES[ruleset][0]))
    again = loads(dumps(engine.encounter))
    assert again.combatant("tombril").durations == tombril(engine).durations
    assert again.combatant("tombril").durations["stunned"].given_in_its_turn  # counts from its next turn
    assert condition_label(again.combatant("tombril"), "stunned") == "stunned · 3 rounds left"


def test_a_bad_duration_in_a_file_is_refused_in_words() -> None:
    engine = table("lnl")
    engine.apply(act.SetCondition("tombril", "stunned", duration=ROUND))
    text = dumps(engine.encounter).replace('"rounds":1', '"rounds":0').replace('"rounds": 1', '"rounds": 0')
    with pytest.raises(EncounterFileError, match=r"rounds: Rounds cannot be below 1 \(got 0\)"):
        loads(text)
    no_count = dumps(engine.encounter).replace('"rounds":1,', "").replace('"rounds": 1,', "")
    with pytest.raises(EncounterFileError, match="a duration in rounds needs how many rounds"):
        loads(no_count)


def test_an_old_file_without_durations_still_loads() -> None:
    engine = table("osr")
    engine.apply(act.SetCondition("tombril", "prone"))
    text = dumps(engine.encounter)
    assert '"durations"' not in text or '"durations":{}' in text.replace(" ", "")
    assert loads(text).combatant("tombril").conditions == ["prone"]


@pytest.mark.parametrize("ruleset", RULESETS)
def test_taking_a_condition_off_the_sheets_line_drops_its_duration(ruleset: str) -> None:
    engine = table(ruleset)
    engine.apply(act.SetCondition("tombril", "stunned", duration=ROUND))
    engine.apply(act.SetCondition("tombril", "prone", duration=NEXT_TURN))
    engine.apply(act.EditCombatant("tombril", {"conditions": ["prone"]}))
    assert list(tombril(engine).durations) == ["prone"]
    engine.apply(act.EditCombatant("tombril", {"conditions": ["prone", "stunned"]}))
    assert condition_label(tombril(engine), "stunned") == "stunned"  # given again: until removed


def test_the_words_of_each_duration() -> None:
    names = {"mirela": "Mirela"}
    assert duration_words(ConditionDuration(kind="rounds", rounds=3)) == "3 rounds"
    assert duration_words(NEXT_TURN) == "until the end of its next turn"
    assert (
        duration_words(ConditionDuration(kind="start of turn of", creature="mirela"), names)
        == "until the start of Mirela's next turn"
    )
    assert duration_words(ConditionDuration(kind="save", dc=12)) == "save each turn (DC 12)"
