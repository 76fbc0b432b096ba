"""Dice notation as GMs type it: ``2d6+3``, ``d20``, ``4d6kh3``, ``2d20kl1``, ``d100``, ``3d6!``.

An expression is terms joined by ``+`` and ``-`` (dice or whole numbers), then an optional label
(``1d20+5 stealth``). A die term is ``[count]d<sides>`` (``d%`` is a d100) with, in any order,
``!`` (a die showing its top face adds another, as the rules' exploding dice do) and ``kh<n>`` /
``kl<n>`` (``k<n>``: keep the highest n). The parser is a plain left-to-right scan (no regular
expression that could backtrack), the length is checked before anything else, then that every
character is plain printable ASCII (a Kelvin sign is not a k, a figure space not a space, an
Arabic-Indic 6 not a 6), and a mistake is refused with its place: ``at 3: a die needs its sides (2d)``.

One roll is bounded so that it rolls, logs and is described well within 100 ms: at most
:data:`MOST_DICE_IN_ROLL` dice asked for, at most :data:`MOST_ROLLED` dice rolled with their
explosions (past that the roll is refused, never cut short), and the faces of at most
:data:`MOST_FACES_SHOWN` dice written out: a bigger term is said as its sum and its dice.

Rolling takes a dice source like every roll of the program, so typed faces work: each face comes
from :meth:`DiceSource.roll`, exploding dice from :func:`roll_exploding`.
"""

from __future__ import annotations

from dataclasses import dataclass

from lnl_desktop.core.dice.rolls import DiceSource, TooManyDice, roll_exploding, roll_plain
from lnl_desktop.core.errors import RulesError

MOST_CHARACTERS = 200
MOST_DICE = 100  # in one term
MOST_SIDES = 1000
MOST_TERMS = 20
MOST_NUMBER = 1_000_000  # a constant term
MOST_DICE_IN_ROLL = 1000  # asked for by the whole expression, explosions aside
MOST_ROLLED = 4000  # rolled in one roll, explosions included (1,000 d2! roll about 2,000)
MOST_FACES_SHOWN = 100  # faces written out (and kept in the log) in one roll; a bigger term is summed up


class NotationError(RulesError):
    """An expression that cannot be rolled; ``position`` is the place of the mistake, counted from 1."""

    def __init__(self, position: int, words: str) -> None:
        super().__init__(f"at {position}: {words}")
        self.position = position
        self.words = words

    @property
    def index(self) -> int:
        """The place of the mistake counted from 0 (a text cursor's)."""
        return self.position - 1


@dataclass(frozen=True, slots=True)
class Term:
    """One term: ``count`` dice of ``sides`` (``sides`` 0 for a whole number, ``constant``),
    added or taken away (``sign``); ``keep`` the dice kept ("h" or "l" and how many)."""

    sign: int
    text: str
    count: int = 0
    sides: int = 0
    constant: int = 0
    explode: bool = False
    keep: tuple[str, int] | None = None

    @property
    def dice(self) -> bool:
        return self.sides > 0

    def bounds(self) -> tuple[int | None, int | None]:
        """The least and the most this term adds to the total (None: no bound, exploding dice)."""
        if not self.dice:
            return self.sign * self.constant, self.sign * self.constant
        kept = self.keep[1] if self.keep else self.count
        low, high = kept, None if self.explode else kept * self.sides
        if self.sign > 0:
            return low, high
        return (None if high is None else -high), -low


@dataclass(frozen=True, slots=True)
class DiceExpression:
    """A parsed expression: its terms, its label, and its text written the one way (``1d20+5``)."""

    terms: tuple[Term, ...]
    label: str = ""

    @property
    def text(self) -> str:
        first, *rest = self.terms
        head = ("-" if first.sign < 0 else "") + first.text
        return head + "".join(("+" if t.sign > 0 else "-") + t.text for t in rest)

    @property
    def minimum(self) -> int | None:
        """The least total (None when an exploding die is taken away: no least)."""
        lows = [t.bounds()[0] for t in self.terms]
        return None if None in lows else sum(low for low in lows if low is not None)

    @property
    def maximum(self) -> int | None:
        """The greatest total (None when an exploding die is added: no greatest)."""
        highs = [t.bounds()[1] for t in self.terms]
        return None if None in highs else sum(high for high in highs if high is not None)

    def __str__(self) -> str:
        return f"{self.text} ({self.label})" if self.label else self.text


@dataclass(frozen=True, slots=True)
class RolledDie:
    """One die as rolled: its face, whether it counts (``kept``), whether an explosion earned it."""

    sides: int
    face: int
    kept: bool = True
    explosion: bool = False

    @property
    def exploded(self) -> bool:
        """It shows its top face on an exploding die: it earned another."""
        return self.face == self.sides

    def __str__(self) -> str:
        return str(self.face)


@dataclass(frozen=True, slots=True)
class RolledTerm:
    term: Term
    dice: tuple[RolledDie, ...]
    total: int  # signed: what it adds to the expression's total

    @property
    def sum(self) -> int:
        """What its kept dice show (or its number), before its sign."""
        return self.term.sign * self.total

    def words(self, faces: bool = True) -> str:
        """'4 + 6', '6! + 3 + 2 (1 dropped)', '3' for a constant (no sign); without ``faces``
        its sum and its dice: '317 on 213 dice', '18 on 60 dice (57 dropped)'."""
        if not self.term.dice:
            return str(self.term.constant)
        if not faces:
            dropped = sum(1 for d in self.dice if not d.kept)
            said = f"{self.sum} on {len(self.dice)} dice" + (f" ({dropped} dropped)" if dropped else "")
            return f"({said})" if self.term.sign < 0 else said
        kept = [f"{d.face}!" if self.term.explode and d.exploded else str(d.face) for d in self.dice if d.kept]
        said = " + ".join(kept)
        dropped = [str(d.face) for d in self.dice if not d.kept]
        if self.term.sign < 0 and len(kept) > 1:
            said = f"({said})"
        if dropped:
            said += f" ({' '.join(dropped)} dropped)"
        return said


@dataclass(frozen=True, slots=True)
class DiceRoll:
    """An expression rolled: every die (kept and dropped), each term's total, the total and its bounds."""

    expression: DiceExpression
    terms: tuple[RolledTerm, ...]

    @property
    def total(self) -> int:
        return sum(t.total for t in self.terms)

    @property
    def minimum(self) -> int | None:
        return self.expression.minimum

    @property
    def maximum(self) -> int | None:
        return self.expression.maximum

    def shown(self) -> tuple[bool, ...]:
        """Whether each term's faces are written out: in order, while the roll's faces written
        stay within :data:`MOST_FACES_SHOWN`; a term that would pass it is said as its sum."""
        budget = MOST_FACES_SHOWN
        shown: list[bool] = []
        for t in self.terms:
            fits = len(t.dice) <= budget
            budget -= len(t.dice) if fits else 0
            shown.append(fits)
        return tuple(shown)

    def words(self) -> str:
        """'4 + 6 + 3 = 13'; a lone die or number is its total alone ('14'); a big term its sum
        and its dice ('17 + 317 on 213 dice = 334')."""
        first, *rest = zip(self.terms, self.shown(), strict=True)
        said = ("-" if first[0].term.sign < 0 else "") + first[0].words(first[1])
        for t, faces in rest:
            said += (" + " if t.term.sign > 0 else " - ") + t.words(faces)
        return said if said == str(self.total) else f"{said} = {self.total}"


class _Scanner:
    """Reads an expression left to right; every refusal names the place it stopped."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.at = 0

    def peek(self) -> str:
        return self.text[self.at] if self.at < len(self.text) else ""

    def refuse(self, words: str, at: int | None = None) -> NotationError:
        return NotationError((self.at if at is None else at) + 1, words)

    def skip_spaces(self) -> None:
        while self.peek() == " ":
            self.at += 1

    def number(self) -> int | None:
        start = self.at
        while self.peek() in "0123456789" and self.peek():
            self.at += 1
            if self.at - start > 7:
                raise self.refuse(f"a number is at most {MOST_NUMBER}", start)
        return int(self.text[start : self.at]) if self.at > start else None


def parse(text: str) -> DiceExpression:
    """The expression ``text`` is, or a :class:`NotationError` naming where it goes wrong."""
    if len(text) > MOST_CHARACTERS:
        raise NotationError(MOST_CHARACTERS + 1, f"an expression is at most {MOST_CHARACTERS} characters")
    for at, c in enumerate(text):
        if not " " <= c <= "~":
            words = f"character {c!r} (U+{ord(c):04X}) is not allowed in dice notation"
            raise NotationError(at + 1, f"{words}: type plain ASCII letters, digits and spaces")
    s = _Scanner(text)
    s.skip_spaces()
    if not s.peek():
        raise s.refuse("type dice to roll, such as 2d6+3 or d20")
    terms: list[Term] = []
    starts: list[int] = []
    sign = 1
    if s.peek() in "+-":
        sign = -1 if s.peek() == "-" else 1
        s.at += 1
        s.skip_spaces()
    while True:
        if len(terms) == MOST_TERMS:
            raise s.refuse(f"at most {MOST_TERMS} terms")
        starts.append(s.at)
        terms.append(_term(s, sign))
        s.skip_spaces()
        c = s.peek()
        if c in "+-" and c:
            sign = -1 if c == "-" else 1
            s.at += 1
            s.skip_spaces()
            continue
        expression = DiceExpression(tuple(terms), _label(s) if c else "")
        _check_dice(expression, starts)
        return expression


def _check_dice(expression: DiceExpression, starts: list[int]) -> None:
    """At most :data:`MOST_DICE_IN_ROLL` dice in all, refused at the term that goes past it."""
    asked = sum(t.count for t in expression.terms)
    if asked <= MOST_DICE_IN_ROLL:
        return
    running = 0
    for term, start in zip(expression.terms, starts, strict=True):
        running += term.count
        if running > MOST_DICE_IN_ROLL:
            words = f"at most {MOST_DICE_IN_ROLL:,} dice in one roll (this asks for {asked:,})"
            raise NotationError(start + 1, words)


def _term(s: _Scanner, sign: int) -> Term:
    start = s.at
    count = s.number()
    if s.peek().lower() != "d":
        if count is None:
            what = s.peek()
            raise s.refuse(f"a die (such as d6) or a number is needed, not {what!r}" if what else "a term is missing")
        if count > MOST_NUMBER:
            raise s.refuse(f"a number is at most {MOST_NUMBER}", start)
        return Term(sign, str(count), constant=count)
    if count is not None and count < 1:
        raise s.refuse("roll at least one die", start)
    if count is not None and count > MOST_DICE:
        raise s.refuse(f"at most {MOST_DICE} dice in a term", start)
    s.at += 1  # the d
    sides_at = s.at
    if s.peek() == "%":
        s.at += 1
        sides: int | None = 100
    else:
        sides = s.number()
    if sides is None:
        raise s.refuse(f"a die needs its sides ({s.text[start : s.at]}6, say)")
    if sides < 1:
        raise s.refuse("a die has at least 1 side", sides_at)
    if sides > MOST_SIDES:
        raise s.refuse(f"a die has at most {MOST_SIDES} sides", sides_at)
    n = 1 if count is None else count
    explode = False
    keep: tuple[str, int] | None = None
    while True:
        c = s.peek().lower()
        if c == "!":
            if explode:
                raise s.refuse("the die already explodes (one !)")
            if sides == 1:
                raise s.refuse("a d1 cannot explode: it would never stop")
            explode = True
            s.at += 1
        elif c == "k":
            if keep is not None:
                raise s.refuse("one keep (kh or kl) a term")
            keep_at = s.at
            s.at += 1
            how = s.peek().lower()
            if how in ("h", "l") and how:
                s.at += 1
            else:
                how = "h"
            kept = s.number()
            if kept is None:
                raise s.refuse(f"say how many dice to keep (k{how}1, say)")
            if not 1 <= kept <= n:
                raise s.refuse(f"keep 1 to {n} of the {n} dice", keep_at)
            keep = (how, kept)
        else:
            break
    written = f"{'' if count is None else count}d{sides}"
    written += "!" if explode else ""
    written += f"k{keep[0]}{keep[1]}" if keep else ""
    return Term(sign, written, count=n, sides=sides, explode=explode, keep=keep)


def _label(s: _Scanner) -> str:
    """What follows the terms after a space: a word that is not itself dice (``stealth``)."""
    start = s.at
    if start == 0 or s.text[start - 1] != " ":
        raise s.refuse(f"{s.peek()!r} does not belong here: join terms with + or -, a label after a space")
    if s.peek() == "#":
        s.at += 1
        s.skip_spaces()
    label = s.text[s.at :].strip()
    if not label or not label[0].isalpha() or (label[0] in "dD" and label[1:2].isdigit()):
        raise s.refuse("join terms with + or -; a label begins with a letter (1d20+5 stealth)", start)
    return label


def roll(expression: DiceExpression | str, dice: DiceSource) -> DiceRoll:
    """Roll ``expression`` with ``dice``: each term's dice in order, an exploding term's extra dice
    right after its own (as :func:`roll_exploding` rolls them)."""
    e = parse(expression) if isinstance(expression, str) else expression
    rolled: list[RolledTerm] = []
    count = 0  # dice rolled so far
    for term in e.terms:
        if not term.dice:
            rolled.append(RolledTerm(term, (), term.sign * term.constant))
            continue
        purpose = f"d{term.sides} of {e}"
        if term.explode:
            try:
                faces = roll_exploding(dice, term.count, term.sides, purpose, most=MOST_ROLLED - count)
            except TooManyDice as error:
                raise TooManyDice(
                    f"{e}: at most {MOST_ROLLED:,} dice rolled in one roll, explosions included, and the "
                    "explosions went past it; roll fewer exploding dice"
                ) from error
        else:
            faces = [roll_plain(dice, term.sides, purpose) for _ in range(term.count)]
        count += len(faces)
        kept = set(range(len(faces)))
        if term.keep is not None:
            how, n = term.keep
            # Ties: the die rolled first is kept first.
            order = sorted(range(len(faces)), key=lambda i: (-faces[i].face if how == "h" else faces[i].face, i))
            kept = set(order[:n])
        out = tuple(RolledDie(f.sides, f.face, i in kept, f.explosion) for i, f in enumerate(faces))
        rolled.append(RolledTerm(term, out, term.sign * sum(d.face for d in out if d.kept)))
    return DiceRoll(e, tuple(rolled))
