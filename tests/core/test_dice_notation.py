"""The dice roller's notation: parsing, refusals with their place, bounds, rolls with typed faces,
and the engine's RollDice (one undo step, one log line)."""

from __future__ import annotations

import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lnl_desktop.core.dice.notation import (
    MOST_CHARACTERS,
    NotationError,
    parse,
    roll,
)
from lnl_desktop.core.dice.rolls import DiceExhausted, RandomDice, ScriptedDice
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.events import DiceRolled
from lnl_desktop.core.engine.engine import Engine
from lnl_desktop.core.errors import RulesError

# -- valid expressions, built term by term ---------------------------------------------------------


@st.composite
def die_terms(draw: st.DrawFn) -> str:
    count = draw(st.integers(1, 12))
    sides = draw(st.sampled_from([2, 3, 4, 6, 8, 10, 12, 20, 100, 1000]))
    written = f"{'' if count == 1 and draw(st.booleans()) else count}d{sides}"
    explode = draw(st.booleans()) and draw(st.booleans())
    keep = draw(st.none() | st.tuples(st.sampled_from(["kh", "kl", "k", "KH"]), st.integers(1, count)))
    parts = ["!" if explode else "", f"{keep[0]}{keep[1]}" if keep else ""]
    if draw(st.booleans()):
        parts.reverse()
    return written + "".join(parts)


terms = st.one_of(die_terms(), st.integers(0, 500).map(str))


@st.composite
def expressions(draw: st.DrawFn) -> str:
    first = draw(terms)
    text = ("-" if draw(st.booleans()) and draw(st.booleans()) else "") + first
    for term in draw(st.lists(terms, max_size=5)):
        space = draw(st.sampled_from(["", " "]))
        text += f"{space}{draw(st.sampled_from('+-'))}{space}{term}"
    label = draw(st.sampled_from(["", " stealth", " # dex save", " Perception check"]))
    return text + label


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(expressions(), st.integers(0, 2**32))
def test_every_total_lies_between_its_bounds(text: str, seed: int) -> None:
    expression = parse(text)
    result = roll(expression, RandomDice(seed))
    low, high = expression.minimum, expression.maximum
    if low is not None:
        assert result.total >= low
    if high is not None:
        assert result.total <= high
    # An exploding die added has no greatest total; none taken away, a least one.
    explodes = {t.sign for t in expression.terms if t.explode}
    assert (high is None) == (1 in explodes)
    assert (low is None) == (-1 in explodes)
    # Every die shown, kept ones counted, the terms adding up to the total.
    assert sum(t.total for t in result.terms) == result.total
    for t in result.terms:
        assert t.total == t.term.sign * (sum(d.face for d in t.dice if d.kept) + t.term.constant)
        if t.term.keep:
            assert sum(d.kept for d in t.dice) == t.term.keep[1]


@settings(max_examples=200)
@given(expressions())
def test_the_written_form_reads_back_the_same(text: str) -> None:
    expression = parse(text)
    again = parse(expression.text + (f" {expression.label}" if expression.label else ""))
    assert again == expression


@settings(max_examples=200)
@given(expressions())
def test_the_bounds_are_reached(text: str) -> None:
    """All ones make the least total of a sum of dice; all top faces (where nothing explodes) the most."""
    expression = parse(text)
    if any(t.explode for t in expression.terms):
        return
    dice = sum(t.count for t in expression.terms)
    sides = [t.sides for t in expression.terms for _ in range(t.count)]
    if all(t.sign > 0 for t in expression.terms):
        assert roll(expression, ScriptedDice([1] * dice)).total == expression.minimum
        assert roll(expression, ScriptedDice(sides)).total == expression.maximum


# -- invalid expressions: refused with their place --------------------------------------------------


def refused(text: str) -> NotationError:
    with pytest.raises(NotationError) as caught:
        parse(text)
    return caught.value


@pytest.mark.parametrize(
    ("text", "position", "words"),
    [
        ("2d", 3, "a die needs its sides"),
        ("d0", 2, "at least 1 side"),
        ("d1!", 3, "never stop"),
        ("999999d6", 1, "at most 100 dice"),
        ("101d6", 1, "at most 100 dice"),
        ("d1001", 2, "at most 1000 sides"),
        ("2d6+", 5, "a term is missing"),
        ("2d6 3", 5, "join terms with + or -"),
        ("2d6x", 4, "does not belong here"),
        ("4d6kh5", 4, "keep 1 to 4"),
        ("2d6k", 5, "how many dice to keep"),
        ("0d6", 1, "at least one die"),
        ("", 1, "type dice to roll"),
        ("   ", 4, "type dice to roll"),
        ("1d6!!", 5, "already explodes"),
        ("2d6kh1kl1", 7, "one keep"),
        ("d20 d6", 5, "join terms"),
        ("*3", 1, "a die (such as d6) or a number"),
        ("2d6+99999999", 5, "a number is at most"),
    ],
)
def test_bad_expressions_are_refused_at_their_place(text: str, position: int, words: str) -> None:
    error = refused(text)
    assert error.position == position
    assert words in str(error)
    assert str(error).startswith(f"at {position}: ")
    assert isinstance(error, RulesError)


def test_too_many_terms_and_characters() -> None:
    assert "at most 20 terms" in str(refused("+".join(["1"] * 21)))
    parse("+".join(["1"] * 20))
    long = "d6+" * 2000  # 6,000 characters: refused before it is read
    start = time.perf_counter()
    error = refused(long)
    assert time.perf_counter() - start < 0.05
    assert error.position == MOST_CHARACTERS + 1
    assert "at most 200 characters" in str(error)


@settings(max_examples=500)
@given(st.text(alphabet="0123456789dDkhl!+-% #x", max_size=40))
def test_anything_typed_is_read_or_refused_with_a_place(text: str) -> None:
    try:
        expression = parse(text)
    except NotationError as error:
        assert 1 <= error.position <= len(text) + 1
        assert str(error).startswith(f"at {error.position}: ")
        return
    result = roll(expression, RandomDice(7))
    if expression.minimum is not None:
        assert result.total >= expression.minimum
    if expression.maximum is not None:
        assert result.total <= expression.maximum


@settings(max_examples=200)
@given(expressions(), st.sampled_from(["d0", "2d", "d1!", "999999d6", "4d6kh9", "x"]), st.sampled_from("+-"))
def test_a_bad_term_is_refused_where_it_stands(text: str, bad: str, sign: str) -> None:
    label_free = parse(text).text
    error = refused(f"{label_free}{sign}{bad}")
    assert len(label_free) + 2 <= error.position <= len(label_free) + 2 + len(bad)


@settings(max_examples=50)
@given(st.integers(MOST_CHARACTERS + 1, 20_000))
def test_long_text_is_refused_at_once(length: int) -> None:
    assert refused("1" * length).position == MOST_CHARACTERS + 1


# -- worked examples with typed faces ----------------------------------------------------------------


def test_worked_examples() -> None:
    r = roll("2d6+3 stealth", ScriptedDice([4, 6]))
    assert (r.total, r.words(), str(r.expression)) == (13, "4 + 6 + 3 = 13", "2d6+3 (stealth)")
    r = roll("4d6kh3", ScriptedDice([1, 5, 6, 4]))
    assert r.total == 15
    assert [d.kept for d in r.terms[0].dice] == [False, True, True, True]
    assert r.words() == "5 + 6 + 4 (1 dropped) = 15"
    r = roll("2d20kl1", ScriptedDice([17, 3]))
    assert r.total == 3 and [d.kept for d in r.terms[0].dice] == [False, True]
    # Ties: the die rolled first is kept.
    r = roll("2d20kh1", ScriptedDice([12, 12]))
    assert [d.kept for d in r.terms[0].dice] == [True, False]
    r = roll("d100", ScriptedDice([73]))
    assert (r.total, r.words(), r.minimum, r.maximum) == (73, "73", 1, 100)
    # Exploding: each 6 earns another d6 right after the term's own dice (roll_exploding's order).
    r = roll("3d6!", ScriptedDice([6, 2, 6, 3, 6, 1]))
    assert r.total == 24
    assert [d.explosion for d in r.terms[0].dice] == [False, False, False, True, True, True]
    assert r.words() == "6! + 2 + 6! + 3 + 6! + 1 = 24"
    assert (r.minimum, r.maximum) == (3, None)
    r = roll("d20 - 2d4 + 1 # dex save", ScriptedDice([15, 3, 2]))
    assert (r.total, r.words(), r.expression.label) == (11, "15 - (3 + 2) + 1 = 11", "dex save")
    assert (r.minimum, r.maximum) == (-6, 19)
    r = roll("d%", ScriptedDice([100]))
    assert r.total == 100 and r.expression.text == "d100"


def test_typed_faces_off_the_die_or_too_few_are_refused() -> None:
    with pytest.raises(RulesError, match="7 is not a face of a d6"):
        roll("2d6", ScriptedDice([7, 1]))
    with pytest.raises(DiceExhausted):
        roll("3d6!", ScriptedDice([6, 1, 1]))


# -- the engine: RollDice --------------------------------------------------------------------------


def test_a_roll_is_one_logged_undoable_step() -> None:
    engine = Engine()
    before = len(engine.encounter.log)
    events = engine.apply(act.RollDice("2d6+3 stealth"), ScriptedDice([4, 6]))
    (event,) = events
    assert isinstance(event, DiceRolled)
    assert event.text == "GM rolls 2d6+3 (stealth): 4 + 6 + 3 = 13"
    assert (event.total, event.minimum, event.maximum, event.label) == (13, 5, 15, "stealth")
    assert [d.face for d in event.terms[0].dice] == [4, 6]
    assert engine.encounter.log[-1] is event
    engine.undo()
    assert not any(isinstance(e, DiceRolled) for e in engine.encounter.log)
    assert len(engine.encounter.log) == before + 1  # the Undone line
    engine.redo()  # the very same faces
    assert engine.encounter.log[-1].text == event.text


def test_a_secret_roll_says_so_and_typed_faces_must_fit() -> None:
    engine = Engine()
    (event,) = engine.apply(act.RollDice("4d6kh3", secret=True, faces=(1, 5, 6, 4)))
    assert isinstance(event, DiceRolled) and event.secret
    assert event.text == "GM rolls 4d6kh3 in secret: 5 + 6 + 4 (1 dropped) = 15"
    assert [d.kept for d in event.terms[0].dice] == [False, True, True, True]
    length = len(engine.encounter.log)
    for action in (
        act.RollDice("2d6", faces=(1, 2, 3)),
        act.RollDice("2d6", faces=(1,)),
        act.RollDice("2d6", faces=(1, 9)),
        act.RollDice("2d"),
    ):
        with pytest.raises(RulesError):
            engine.apply(action)
    assert len(engine.encounter.log) == length


def test_the_quick_rolls_of_each_ruleset_parse() -> None:
    from lnl_desktop.core.rules.registry import all_rulesets

    for ruleset in all_rulesets().values():
        rolls = ruleset.quick_rolls()
        assert rolls
        for _label, expression in rolls:
            parse(expression)
    assert all_rulesets()["osr"].quick_rolls()[1] == ("Advantage", "2d20kh1")
    assert ("Initiative d6", "d6") in all_rulesets()["classic"].quick_rolls()
