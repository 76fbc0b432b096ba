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
        rolls = ruleset.prompts.quick_rolls()
        assert rolls
        for _label, expression in rolls:
            parse(expression)
    assert all_rulesets()["osr"].prompts.quick_rolls()[1] == ("Advantage", "2d20kh1")
    assert ("Initiative d6", "d6") in all_rulesets()["classic"].prompts.quick_rolls()


# -- only plain ASCII is read ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "position", "code"),
    [
        ("2d6\u212a1", 4, "U+212A"),  # the Kelvin sign, which lower() and casefold() make a k
        ("2d6\u2007+3", 4, "U+2007"),  # figure space
        ("d20\u3000stealth", 4, "U+3000"),  # ideographic space
        ("\u00b2d6", 1, "U+00B2"),  # superscript two: isdigit() says yes, int() says no
        ("2d\u0666", 3, "U+0666"),  # Arabic-Indic six: isdigit() and int() both say yes
        ("d20+\u0663", 5, "U+0663"),
        ("\uff12d6", 1, "U+FF12"),  # fullwidth two
        ("1d\U0001d7dc", 3, "U+1D7DC"),  # mathematical double-struck four
        ("d20\u00a0stealth", 4, "U+00A0"),  # no-break space
        ("d20\tstealth", 4, "U+0009"),  # a tab: a control character, not a space
        ("d20 \x1b[31mred", 5, "U+001B"),  # a terminal escape in the label
        ("d20 \u202eevil", 5, "U+202E"),  # a right-to-left override in the label
        ("d20 prüfen", 7, "U+00FC"),
    ],
)
def test_anything_but_plain_ascii_is_refused_at_its_place(text: str, position: int, code: str) -> None:
    error = refused(text)
    assert error.position == position
    assert code in str(error)
    assert "not allowed in dice notation" in str(error)
    assert str(error).startswith(f"at {position}: ")


@settings(max_examples=300)
@given(
    st.text(alphabet="0123456789dkhl!+- ", max_size=12),
    st.characters(min_codepoint=0x80),
    st.text(alphabet="0123456789dkhl!+- ", max_size=12),
)
def test_a_non_ascii_character_anywhere_is_refused_there(before: str, odd: str, after: str) -> None:
    error = refused(before + odd + after)  # read before anything else: no other mistake comes first
    assert error.position == len(before) + 1
    assert f"U+{ord(odd):04X}" in str(error)


# -- limits: what one roll may ask for, and what the log keeps of it ---------------------------------


class TopFaces:
    """Dice that always show their top face: an exploding die that never stops."""

    def roll(self, sides: int, purpose: str) -> int:
        return sides


def test_a_roll_of_more_dice_than_the_limit_is_refused_with_the_limit_named() -> None:
    from lnl_desktop.core.dice.notation import MOST_DICE_IN_ROLL

    assert MOST_DICE_IN_ROLL == 1000
    parse("+".join(["100d6"] * 10))  # exactly the limit
    error = refused("+".join(["100d2!"] * 11))
    assert "at most 1,000 dice in one roll (this asks for 1,100)" in str(error)
    assert error.position == 71  # the term that goes past it
    assert "at most 1,000 dice in one roll (this asks for 2,000)" in str(refused("+".join(["100d2!"] * 20)))
    # The engine refuses it too, and nothing is logged.
    engine = Engine()
    length = len(engine.encounter.log)
    with pytest.raises(RulesError, match="at most 1,000 dice"):
        engine.apply(act.RollDice("+".join(["100d2!"] * 20)))
    assert len(engine.encounter.log) == length


def test_explosions_stop_at_the_limit_of_dice_rolled_with_the_limit_named() -> None:
    from lnl_desktop.core.dice.notation import MOST_ROLLED

    with pytest.raises(RulesError, match=f"at most {MOST_ROLLED:,} dice rolled in one roll"):
        roll("d6!", TopFaces())
    with pytest.raises(RulesError, match=f"at most {MOST_ROLLED:,} dice rolled in one roll"):
        roll("+".join(["100d2!"] * 10), TopFaces())
    engine = Engine()
    length = len(engine.encounter.log)
    with pytest.raises(RulesError, match="explosions"):
        engine.apply(act.RollDice("10d2!"), TopFaces())
    assert len(engine.encounter.log) == length
    # Just under the limit is rolled: every die explodes until the last.
    faces = [2] * (MOST_ROLLED - 1) + [1]
    result = roll("d2!", ScriptedDice(faces))
    assert result.total == 2 * (MOST_ROLLED - 1) + 1


def worst_faces(base: int) -> list[int]:
    """Faces for ``base`` d2! that roll as many dice as one roll may: explosions up to the limit."""
    from lnl_desktop.core.dice.notation import MOST_ROLLED

    return [2] * (MOST_ROLLED - base) + [1] * base


def test_the_biggest_roll_is_logged_compactly() -> None:
    from lnl_desktop.core.dice.notation import MOST_FACES_SHOWN, MOST_ROLLED

    worst = "+".join(["100d2!"] * 10) + " a label of some length"
    engine = Engine()
    (event,) = engine.apply(act.RollDice(worst), ScriptedDice(worst_faces(1000)))
    assert isinstance(event, DiceRolled)
    assert sum(t.rolled or len(t.dice) for t in event.terms) == MOST_ROLLED
    assert event.total == 2 * (MOST_ROLLED - 1000) + 1000
    assert sum(t.total for t in event.terms) == event.total
    assert sum(len(t.dice) for t in event.terms) <= MOST_FACES_SHOWN
    assert len(event.model_dump_json()) < 8_000
    assert len(event.text) < 1_000
    assert "on " in event.text and " dice" in event.text
    # A term too big to list says its sum and its dice; the explosions counted.
    big = event.terms[0]
    assert big.dice == [] and big.rolled > 100 and big.explosions == big.rolled - 100
    assert big.total == big.rolled + (big.rolled - 100)
    assert f"{big.total} on {big.rolled} dice" in event.text
    assert f"{big.total} on {big.rolled} dice" in event.table_cells()[0]


def test_a_small_term_of_a_big_roll_keeps_its_faces() -> None:
    engine = Engine()
    faces = [17] + [3] * 100 + [4, 1]
    (event,) = engine.apply(act.RollDice("d20+100d6-2d4kh1"), ScriptedDice(faces))
    assert isinstance(event, DiceRolled)
    d20, hundred, d4 = event.terms
    assert [d.face for d in d20.dice] == [17]
    assert hundred.dice == [] and hundred.rolled == 100 and hundred.total == 300
    assert [(d.face, d.kept) for d in d4.dice] == [(4, True), (1, False)]
    assert event.text == "GM rolls d20+100d6-2d4kh1: 17 + 300 on 100 dice - 4 (1 dropped) = 313"
    # A big keep term says how many it dropped.
    (event,) = engine.apply(act.RollDice("50d6+60d6kh3"), ScriptedDice([2] * 50 + [6] * 3 + [1] * 57))
    assert isinstance(event, DiceRolled)
    assert event.text.endswith(" + 18 on 60 dice (57 dropped) = 118")  # 50 faces written; 60 more would pass 100
    assert len(event.terms[0].dice) == 50 and event.terms[1].dropped == 57


def test_a_compact_roll_is_saved_and_read_back_and_an_old_full_roll_still_reads(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from lnl_desktop.core.files import storage

    engine = Engine()
    engine.apply(act.RollDice("+".join(["100d2!"] * 10)), ScriptedDice(worst_faces(1000)))
    path = tmp_path / "big.lnl"
    storage.save(engine.encounter, path)
    assert path.stat().st_size < 200_000
    again = storage.load(path)
    assert again.log[-1] == engine.encounter.log[-1]
    # A file written before rolls were kept compactly: every face listed, no counts.
    old = DiceRolled.model_validate(
        {
            "kind": "dice",
            "text": "GM rolls 3d6!: 6! + 2 + 3 + 4 = 15",
            "expression": "3d6!",
            "terms": [
                {
                    "text": "3d6!",
                    "dice": [
                        {"sides": 6, "face": 6},
                        {"sides": 6, "face": 2},
                        {"sides": 6, "face": 3},
                        {"sides": 6, "face": 4, "explosion": True},
                    ],
                    "total": 15,
                }
            ],
            "total": 15,
            "minimum": 3,
        }
    )
    assert old.terms[0].rolled == 0 and len(old.terms[0].dice) == 4
    assert old.table_cells()[0] == "6 2 3 4"
