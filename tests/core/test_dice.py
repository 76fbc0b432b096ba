"""Dice sources: seeded, scripted, typed in; exploding rolls record base dice and explosions."""

import pytest

from lnl_desktop.core.dice.rolls import (
    DiceExhausted,
    PhysicalDice,
    RandomDice,
    RecordingDice,
    ScriptedDice,
    roll_exploding,
)
from lnl_desktop.core.errors import RulesError


def test_the_hill_giants_club_roll_explodes_breadth_first() -> None:
    faces = roll_exploding(ScriptedDice([6, 5, 3, 6, 2, 6, 5, 1, 6, 2]), 6, 6, "club")
    assert [f.face for f in faces] == [6, 5, 3, 6, 2, 6, 5, 1, 6, 2]
    assert [f.explosion for f in faces] == [False] * 6 + [True] * 4
    assert sum(f.face for f in faces) == 42


def test_a_die_without_its_maximum_does_not_explode() -> None:
    faces = roll_exploding(ScriptedDice([3, 4]), 2, 6, "sword")
    assert [f.face for f in faces] == [3, 4]


def test_seeded_dice_repeat_and_stay_on_the_die() -> None:
    a, b = RandomDice(7), RandomDice(7)
    rolls_a = [a.roll(6, "x") for _ in range(200)]
    assert rolls_a == [b.roll(6, "x") for _ in range(200)]
    assert set(rolls_a) == {1, 2, 3, 4, 5, 6}


def test_scripted_dice_refuse_a_face_not_on_the_die() -> None:
    with pytest.raises(RulesError, match="7 is not a face of a d6"):
        ScriptedDice([7]).roll(6, "damage")


def test_scripted_dice_say_when_an_explosion_still_needs_a_face() -> None:
    with pytest.raises(DiceExhausted, match="explosion"):
        roll_exploding(ScriptedDice([4]), 1, 4, "dagger")


def test_physical_dice_ask_again_after_a_bad_face_and_can_be_cancelled() -> None:
    answers = iter([9, 0, 5])
    asked: list[tuple[int, str]] = []

    def ask(sides: int, purpose: str) -> int | None:
        asked.append((sides, purpose))
        return next(answers)

    assert PhysicalDice(ask).roll(6, "initiative") == 5
    assert len(asked) == 3
    with pytest.raises(DiceExhausted, match="cancelled"):
        PhysicalDice(lambda s, p: None).roll(6, "initiative")


def test_recording_dice_keep_every_face_for_a_replay() -> None:
    recorder = RecordingDice(RandomDice(3))
    faces = roll_exploding(recorder, 5, 4, "x")
    assert recorder.faces == [f.face for f in faces]


def test_exploding_dice_stop_at_the_most_a_roll_may_roll() -> None:
    from lnl_desktop.core.dice.rolls import TooManyDice

    faces = roll_exploding(ScriptedDice([6, 6, 6, 1]), 1, 6, "bolt", most=4)
    assert [f.face for f in faces] == [6, 6, 6, 1]
    with pytest.raises(TooManyDice, match="went past 3 dice"):
        roll_exploding(ScriptedDice([6, 6, 6, 1]), 1, 6, "bolt", most=3)
    with pytest.raises(TooManyDice, match="at most 2 may be rolled"):
        roll_exploding(ScriptedDice([1, 1, 1]), 3, 6, "bolt", most=2)
    assert isinstance(TooManyDice("x"), RulesError)
