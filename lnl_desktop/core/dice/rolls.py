"""Dice sources and exploding rolls.

Every roll in the program takes a dice source, never a global: the seeded random generator,
scripted faces (tests, replays, redo) and faces a GM types in from physical dice all go through
the same code, and every die records its face and whether it was a base die or an explosion.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Literal, Protocol

from lnl_desktop.core.errors import RulesError

DieName = Literal["d4", "d6", "d8", "d10"]
"""The damage dice of the rules (weapons and spells)."""

DAMAGE_DICE: tuple[str, ...] = ("d4", "d6", "d8", "d10")


def sides_of(die: str) -> int:
    """Number of faces of a die written like ``d6``."""
    return int(die[1:])


class DiceExhausted(RulesError):
    """A scripted or typed-in source ran out of faces before the roll was complete."""


class TooManyDice(RulesError):
    """Exploding dice that went on past the most a roll may roll."""


class DiceSource(Protocol):
    """Anything that can produce one die face."""

    def roll(self, sides: int, purpose: str) -> int:
        """Return a face in ``1..sides``. ``purpose`` says what the die is for (shown to a GM)."""
        ...


class RandomDice:
    """The app's own dice: a seedable pseudo-random generator."""

    def __init__(self, seed: int | None = None) -> None:
        self._random = random.Random(seed)

    def roll(self, sides: int, purpose: str) -> int:
        # random() * sides is uniform to 53 bits and several times faster than randint().
        return int(self._random.random() * sides) + 1


class ScriptedDice:
    """Faces given in advance, used in order: tests, replays, redo, and faces typed in at once."""

    def __init__(self, faces: Iterable[int]) -> None:
        self._faces = list(faces)
        self._next = 0

    @property
    def remaining(self) -> list[int]:
        return self._faces[self._next :]

    def roll(self, sides: int, purpose: str) -> int:
        if self._next >= len(self._faces):
            raise DiceExhausted(
                f"{purpose}: a d{sides} is still to roll but no face was given "
                f"({len(self._faces)} given; explosions need one more die each)"
            )
        face = self._faces[self._next]
        if not 1 <= face <= sides:
            raise RulesError(f"{purpose}: {face} is not a face of a d{sides} (1 to {sides})")
        self._next += 1
        return face


class PhysicalDice:
    """Faces a GM reads off physical dice, asked for one at a time through a callback.

    The callback gets the die's sides and what it is for, and returns the face, or ``None``
    when the GM cancels (which refuses the whole action). Out-of-range faces are asked again.
    """

    def __init__(self, ask: Callable[[int, str], int | None]) -> None:
        self._ask = ask

    def roll(self, sides: int, purpose: str) -> int:
        while True:
            face = self._ask(sides, purpose)
            if face is None:
                raise DiceExhausted(f"{purpose}: the roll was cancelled")
            if 1 <= face <= sides:
                return face


class RecordingDice:
    """Wraps a source and keeps every face it gave, so an action can be replayed exactly."""

    def __init__(self, inner: DiceSource) -> None:
        self.inner = inner
        self.faces: list[int] = []

    def roll(self, sides: int, purpose: str) -> int:
        face = self.inner.roll(sides, purpose)
        self.faces.append(face)
        return face


@dataclass(frozen=True, slots=True)
class DieFace:
    """One die as rolled: its type, its face, and whether it is an explosion of another die.

    A plain slotted dataclass rather than a pydantic model: an attack makes many of these on
    the hot path (budget 50 microseconds); pydantic still validates them inside events.
    """

    sides: int
    face: int
    explosion: bool = False

    @property
    def exploded(self) -> bool:
        """A die showing its maximum adds another die (it 'explodes')."""
        return self.face == self.sides

    def __str__(self) -> str:
        return f"{self.face}{'!' if self.exploded else ''}"


def roll_exploding(source: DiceSource, count: int, sides: int, purpose: str, most: int | None = None) -> list[DieFace]:
    """Roll ``count`` base dice, then one more die for every maximum face, without limit unless
    ``most`` says how many dice in all may be rolled (:class:`TooManyDice` when one more is earned).

    Base dice come first, then explosions in the order they were earned (as a table rolls
    them: the Hill Giant's 6, 5, 3, 6, 2, 6 then 5, 1, 6 then 2).
    """
    if most is not None and count > most:
        raise TooManyDice(f"{purpose}: {count} dice asked for, at most {most} may be rolled")
    faces = [DieFace(sides, source.roll(sides, purpose)) for _ in range(count)]
    pending = sum(1 for f in faces if f.face == sides)
    while pending:
        if most is not None and len(faces) + pending > most:
            raise TooManyDice(f"{purpose}: the explosions went past {most} dice")
        again = f"{purpose} (explosion)"
        fresh = [DieFace(sides, source.roll(sides, again), True) for _ in range(pending)]
        faces.extend(fresh)
        pending = sum(1 for f in fresh if f.face == sides)
    return faces


def roll_plain(source: DiceSource, sides: int, purpose: str) -> DieFace:
    """One die that does not explode (initiative, checks, exertion)."""
    return DieFace(sides, source.roll(sides, purpose))
