"""The GM's own dice rolls (the dice roller): an expression in the notation rolled with the
engine's dice, or with faces the GM typed in, and written in the round log as one event."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from lnl_desktop.core.dice import notation
from lnl_desktop.core.dice.notation import DiceRoll, parse, roll
from lnl_desktop.core.dice.rolls import DiceSource, ScriptedDice
from lnl_desktop.core.encounter.actions import RollDice
from lnl_desktop.core.encounter.events import DiceRolled, Event, RolledDie, RolledTerm, Undone
from lnl_desktop.core.errors import RulesError

if TYPE_CHECKING:
    from lnl_desktop.core.rules.base import Table


def roll_words(result: DiceRoll, secret: bool) -> str:
    """'GM rolls 2d6+3 (stealth): 4 + 6 + 3 = 13'; a secret roll says so."""
    return f"GM rolls {result.expression}{' in secret' if secret else ''}: {result.words()}"


def dice_rolled(result: DiceRoll, secret: bool, round_: int) -> DiceRolled:
    """The log's event of a roll: every die, kept or dropped, each term's total, the bounds; a
    term too big to write out (``DiceRoll.shown``) keeps its total and its counts, not its faces."""
    expression = result.expression
    return DiceRolled(
        round=round_,
        text=roll_words(result, secret),
        expression=expression.text,
        label=expression.label,
        secret=secret,
        terms=[_rolled_term(t, shown) for t, shown in zip(result.terms, result.shown(), strict=True)],
        total=result.total,
        minimum=result.minimum,
        maximum=result.maximum,
    )


def _rolled_term(term: notation.RolledTerm, shown: bool) -> RolledTerm:
    if shown:
        dice = [RolledDie(sides=d.sides, face=d.face, kept=d.kept, explosion=d.explosion) for d in term.dice]
        return RolledTerm(text=term.term.text, sign=term.term.sign, dice=dice, total=term.total)
    return RolledTerm(
        text=term.term.text,
        sign=term.term.sign,
        total=term.total,
        rolled=len(term.dice),
        explosions=sum(1 for d in term.dice if d.explosion),
        dropped=sum(1 for d in term.dice if not d.kept),
    )


def roll_dice(engine: Table, action: RollDice, dice: DiceSource) -> list[Event]:
    """Roll the expression; typed faces must make the roll exactly (too few, one off the die or
    some left over are refused, and nothing changes)."""
    expression = parse(action.expression)
    if action.faces is None:
        result = roll(expression, dice)
    else:
        typed = ScriptedDice(action.faces)
        result = roll(expression, typed)
        if typed.remaining:
            rest = " ".join(map(str, typed.remaining))
            raise RulesError(f"{expression}: {len(typed.remaining)} face(s) left over ({rest})")
    return [dice_rolled(result, action.secret, engine.encounter.combat.round)]


def last_shared_roll(log: Sequence[Event]) -> DiceRolled | None:
    """The roll the players may see now: the latest roll not made in secret, while nothing but
    secret rolls and undos came after it (so a secret roll, or its undo, changes nothing they see)."""
    for event in reversed(log):
        if isinstance(event, Undone) or (isinstance(event, DiceRolled) and event.secret):
            continue
        return event if isinstance(event, DiceRolled) else None
    return None


def shared_roll_words(event: DiceRolled) -> str:
    """'Roll 2d6+3 (stealth): 4 + 6 + 3 = 13', for the players' banner."""
    return event.text.replace("GM rolls ", "Roll ", 1)
