"""Typed faces: the dice a roll asks for, and faces read off physical dice checked against them.

Every roll can come from the app's dice or from the GM's own. The faces the GM types are checked
with a *dry run* of the very rules code that will use them (the action applied to a copy of the
encounter, or ``roll_plain``, on a :class:`FaceProbe`), so too few faces, faces off the die and
faces left over are refused with the reason before anything is applied. The same dry run says
which dice to type, in which order (:func:`faces_hint`), with an example (:func:`faces_example`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QLineEdit, QVBoxLayout, QWidget

from lnl_desktop.core.dice.rolls import roll_plain
from lnl_desktop.core.encounter.model import Encounter
from lnl_desktop.core.errors import RulesError

OK_COLOR = "#1b7a3a"
BAD_COLOR = "#b3261e"


class FacesRefused(RulesError):
    """Typed faces that cannot make this roll; the message says why in the table's words."""


class _OutOfFaces(Exception):
    def __init__(self, sides: int, purpose: str) -> None:
        super().__init__(purpose)
        self.sides = sides
        self.purpose = purpose


@dataclass(frozen=True)
class DieAsked:
    """One die the rules asked for during a dry run: its type, what for, and the face used."""

    sides: int
    purpose: str
    face: int


# A dry run that asks for more dice than this never settles (ties broken again and again).
MOST_DICE = 300


class FaceProbe:
    """A dice source over typed faces that remembers every die the rules ask for.

    With ``fill`` set, it answers faces that never explode once the typed faces run out and keeps
    asking, so a dry run can tell how many more dice are missing and what they are for: 1 first,
    then 2, 3... below the die's top face, so the filled dice never tie (initiative rolls read
    as they usually are, without tie-breaks rolled for ever).
    """

    def __init__(self, faces: list[int], fill: bool = False) -> None:
        self.faces = list(faces)
        self.fill = fill
        self.asked: list[DieAsked] = []
        self._filled = 0

    def roll(self, sides: int, purpose: str) -> int:
        index = len(self.asked)
        if index >= MOST_DICE:
            raise FacesRefused(f"the roll never settles: more than {MOST_DICE} dice asked ({purpose})")
        if index >= len(self.faces):
            if not self.fill:
                raise _OutOfFaces(sides, purpose)
            # 1, 2, 3... below the top face: nothing explodes and no two filled dice tie.
            face = 1 + self._filled % (sides - 1) if sides > 2 else 1
            self._filled += 1
        else:
            face = self.faces[index]
            if not 1 <= face <= sides:
                raise FacesRefused(
                    f"{face} is not a face of a d{sides} (1 to {sides}): face {index + 1} is {_what(purpose, sides)}"
                )
        self.asked.append(DieAsked(sides, purpose, face))
        return face

    @property
    def left_over(self) -> list[int]:
        return self.faces[len(self.asked) :]


DryRun = Callable[[FaceProbe], object]


def _what(purpose: str, sides: int) -> str:
    """'Tombril's Shortsword damage (explosion)' -> 'an extra d6 for an exploding die'."""
    if "(explosion)" in purpose:
        return f"an extra d{sides} for an exploding die"
    if "exertion" in purpose:
        return "the d4 exertion roll"
    if "AWA" in purpose:
        return "the d20 AWA check"
    if "damage" in purpose:
        return f"a base d{sides} of the damage"
    if re.search(rf"\bd{sides}\b", purpose):
        return f"the {purpose}"  # 'initiative d20 for the Party' names its die already
    return f"the d{sides} for {purpose}"


def describe_die(die: DieAsked) -> str:
    """One die of a roll in words: 'the d6 for initiative', 'the initiative d20 for the Party (...)'."""
    return _what(die.purpose, die.sides)


def dice_words(asked: list[DieAsked]) -> str:
    """'d6', '2 d20', '2 d20 + d6': the dice of a roll, by type, in the order first asked."""
    counts: dict[int, int] = {}
    for d in asked:
        counts[d.sides] = counts.get(d.sides, 0) + 1
    return " + ".join(f"d{sides}" if n == 1 else f"{n} d{sides}" for sides, n in counts.items())


def rollers(asked: list[DieAsked]) -> list[str]:
    """Who each die is rolled for, where every purpose says it ('initiative d20 for the Party (...)'
    -> 'Party'); [] when one does not."""
    names: list[str] = []
    for d in asked:
        found = re.search(r"\bfor (?:the )?(.+?)(?: \(|$)", d.purpose)
        if found is None:
            return []
        if found.group(1) not in names:
            names.append(found.group(1))
    return names


def engine_dry_run(encounter: Encounter, *steps: Any) -> DryRun:
    """``steps`` (actions) applied to a copy of the encounter (its log left out) with the dice source
    given; the copy's engine comes back, so the real encounter never changes."""
    from lnl_desktop.core.engine.engine import Engine

    def run(dice: Any) -> object:
        engine = Engine(encounter.copy_without_log(), dice=dice)
        for step in steps:
            engine.apply(step)
        return engine

    return run


def dice_asked(dry_run: DryRun) -> list[DieAsked] | None:
    """Every die a roll asks for (with faces that never explode), or None when it is refused."""
    try:
        return _missing(dry_run, [])
    except RulesError:
        return None


def parse_faces(text: str) -> list[int]:
    """'5 3 4 3 2' or '5, 3, 4' -> [5, 3, 4]; anything that is not a whole number is refused."""
    words = [w for w in re.split(r"[\s,;]+", text.strip()) if w]
    if not words:
        raise FacesRefused("type the faces the dice show, separated by spaces")
    faces: list[int] = []
    for word in words:
        if not re.fullmatch(r"\d+", word):
            raise FacesRefused(f"{word!r} is not a die face (type whole numbers separated by spaces)")
        faces.append(int(word))
    return faces


def _missing(dry_run: DryRun, faces: list[int]) -> list[DieAsked]:
    """The dice still to roll after ``faces``, found by running on with faces that never explode."""
    probe = FaceProbe(faces, fill=True)
    dry_run(probe)
    return probe.asked[len(faces) :]


def _describe_missing(missing: list[DieAsked]) -> str:
    parts: list[str] = []
    explosions = [d for d in missing if "(explosion)" in d.purpose]
    if explosions:
        sides = explosions[0].sides
        n = len(explosions)
        if n == 1:
            parts.append(f"the {sides} explodes: one more d{sides} is needed")
        else:
            parts.append(f"{n} dice show {sides} and explode: {n} more d{sides} are needed")
    base = [d for d in missing if "damage" in d.purpose and "(explosion)" not in d.purpose]
    if base:
        parts.append(f"{len(base)} more base d{base[0].sides} of the damage")
    for d in missing:
        if d not in explosions and d not in base:
            parts.append(_what(d.purpose, d.sides))
    return "; then ".join(parts)


def check_faces(faces: list[int], dry_run: DryRun) -> str | None:
    """Why ``faces`` cannot make the roll ``dry_run`` performs, or None when they fit exactly."""
    probe = FaceProbe(faces)
    try:
        dry_run(probe)
    except _OutOfFaces:
        try:
            missing = _missing(dry_run, faces)
        except RulesError as error:
            return str(error)
        given = f"{len(faces)} face{'s' if len(faces) != 1 else ''} typed"
        return f"Too few faces ({given}): {_describe_missing(missing)}"
    except RulesError as error:
        return str(error)
    rest = probe.left_over
    if rest:
        used = len(probe.asked)
        return (
            f"{len(rest)} face{'s' if len(rest) != 1 else ''} left over ({' '.join(map(str, rest))}): "
            f"this roll takes {used} {'die' if used == 1 else 'dice'} with these faces"
        )
    return None


# A die whose face decides whether more dice follow: a to-hit roll that misses rolls no damage.
_TO_HIT = re.compile(r"\bto hit\b")


def _fullest(dry_run: DryRun) -> list[DieAsked]:
    """The dice a roll asks for when it goes furthest: each to-hit d20 is tried with a high face
    (19, then 20: a natural 20 may trade the damage for a grapple), and a face that makes the
    roll ask for more dice (the damage of a hit) is kept."""
    asked = _missing(dry_run, [])
    for i in range(len(asked)):
        d = asked[i]
        if not _TO_HIT.search(d.purpose):
            continue
        before = [a.face for a in asked[:i]]
        for face in (d.sides - 1, d.sides):
            try:
                tried = _missing(dry_run, [*before, face])
            except RulesError:
                continue
            if len(before) + 1 + len(tried) > len(asked):
                asked = [*asked[:i], DieAsked(d.sides, d.purpose, face), *tried]
                break
    return asked


def faces_hint(dry_run: DryRun) -> str:
    """Which dice to type, in which order, read off a dry run in which nothing explodes and every
    to-hit roll hits (a miss takes fewer dice: the hint says how many); exploding damage dice are
    explained with an example for the roll at hand."""
    asked = _fullest(dry_run)
    on_a_miss = len(_missing(dry_run, []))
    gated = on_a_miss < len(asked)
    last_to_hit = max((n for n, d in enumerate(asked) if _TO_HIT.search(d.purpose)), default=-1)
    steps: list[str] = []
    example = ""
    i = 0
    while i < len(asked):
        d = asked[i]
        if gated and i == last_to_hit + 1:
            steps.append("on a hit")  # joined to what follows: ", then, on a hit, the d8 ..."
        if "damage" in d.purpose:
            j = i
            while j < len(asked) and asked[j].purpose == d.purpose:
                j += 1
            count, top = j - i, d.sides
            explodes = _explodes(dry_run, [a.face for a in asked[:i]], top)
            if gated and not explodes:
                # After a to-hit roll, the damage by its weapon: "the d8 for Longsword damage".
                what = re.sub(rf"\s*\bd{top}$", "", d.purpose)
                steps.append(f"the {count} d{top} for {what}" if count > 1 else f"the d{top} for {what}")
            else:
                steps.append(f"the {count} base d{top}" if count > 1 else f"the base d{top}")
            if explodes:
                steps.append(
                    f"an extra d{top} for each {top} among them, then an extra d{top} for each {top} among "
                    f"those, and so on until no {top} comes up"
                )
                alone = i == 0 and j == len(asked)  # no other die before or after them
                example = example or _explosion_example(count, top, d.purpose, alone)
            i = j
            continue
        steps.append(_what(d.purpose, d.sides))
        i += 1
    total = len(asked)
    lead = ("at least " if example else "") + f"{total} {'die' if total == 1 else 'dice'}"
    if gated:
        lead += f" on a hit ({on_a_miss} on a miss)"
    said = ", then ".join(steps).replace("then on a hit, then ", "then, on a hit, ")
    return f"Type {lead}, in this order: " + said + "." + (f" {example}" if example else "")


def faces_example(dry_run: DryRun) -> str:
    """Faces that make the roll as the hint says it (every to-hit roll a hit, nothing exploding),
    for a dialog's grey example: middling faces where they fit exactly, else the dry run's own."""
    asked = _fullest(dry_run)
    if not asked:
        return ""
    faces = [a.face for a in asked]
    # Middling faces, a little different from one die to the next (initiative dice that tie roll again).
    nicer = [
        face if _TO_HIT.search(a.purpose) else max(1, min(a.sides - 1, a.sides // 2 + 1 - k % 3))
        for k, (face, a) in enumerate(zip(faces, asked, strict=True))
    ]
    for shown in (nicer, faces):
        if check_faces(shown, dry_run) is None:
            return " ".join(map(str, shown))
    return ""


def _explodes(dry_run: DryRun, before: list[int], top: int) -> bool:
    """Whether the damage dice that come after the faces ``before`` explode: a dry run in which the
    first of them shows its top face asks for an extra die."""
    probe = FaceProbe([*before, top], fill=True)
    try:
        dry_run(probe)
    except RulesError:
        return False
    return any("(explosion)" in d.purpose for d in probe.asked)


_COUNTS = {1: "one", 2: "two", 3: "three"}


def _explosion_example(count: int, sides: int, purpose: str, alone: bool = True) -> str:
    """'For example, if the 5 base d6 of Tombril's Shortsword damage show 6 4 2 6 1, the two 6s earn
    two extra d6, say 1 and 6, and that 6 earns one more, say 4: type 6 4 2 6 1 1 6 4.' (When other
    dice come before or after them: '...: these dice are typed 6 4 2 6 1 1 6 4, in their place.')"""
    top = sides
    low = [face for face in (3, 4, 2, 5, 1, 6, 7) if face < top] or [1]
    tops = {0, 3} if count >= 4 else {0, count - 1} if count >= 3 else {0}
    base = [top if k in tops else low[k % len(low)] for k in range(count)]
    exploded = len(tops)
    extras = [low[-1 - k % len(low)] for k in range(exploded - 1)] + [top]  # the last extra explodes again
    last = low[1 % len(low)]
    earned = f"the {top}" if exploded == 1 else f"the {_COUNTS.get(exploded, exploded)} {top}s"
    verb = "earns" if exploded == 1 else "earn"
    said = " and ".join(map(str, extras)) if len(extras) <= 2 else " ".join(map(str, extras))
    extra_words = f"one extra d{top}" if exploded == 1 else f"{_COUNTS.get(exploded, exploded)} extra d{top}"
    whose = f" of {purpose}" if purpose else ""
    dice = f"{count} base d{top}" if count > 1 else f"base d{top}"
    shown = "shows" if count == 1 else "show"
    typed = " ".join(map(str, [*base, *extras, last]))
    return (
        f"For example, if the {dice}{whose} {shown} {' '.join(map(str, base))}, {earned} {verb} {extra_words}, "
        f"say {said}, and that {top} earns one more, say {last}: "
        + (f"type {typed}." if alone else f"these dice are typed {typed}, in their place.")
    )


def check_d6(text: str, purpose: str = "initiative") -> tuple[int | None, str | None]:
    """A typed d6 face, checked by a dry run of ``roll_plain``: (face, None) or (None, reason)."""
    try:
        faces = parse_faces(text)
    except FacesRefused as error:
        return None, str(error)
    reason = check_faces(faces, lambda dice: roll_plain(dice, 6, purpose))
    if reason is not None:
        return None, reason
    return faces[0], None


class FacesDialog(QDialog):
    """One line of faces typed from physical dice, checked by a dry run before it can be applied."""

    def __init__(
        self,
        title: str,
        hint: str,
        check: Callable[[list[int]], str | None],
        parent: QWidget | None = None,
        example: str = "",
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.setMinimumWidth(460)
        self._check = check
        self.hint_label = QLabel(hint, self)
        self.hint_label.setWordWrap(True)
        self.edit = QLineEdit(self)
        self.edit.setPlaceholderText(f"e.g. {example}" if example else "faces separated by spaces")
        self.edit.setToolTip("The faces as the dice show them, separated by spaces")
        self.status_label = QLabel(self)
        self.status_label.setWordWrap(True)
        self.status_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.ok_button = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.ok_button.setText("Apply these faces")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.hint_label)
        layout.addWidget(self.edit)
        layout.addWidget(self.status_label)
        layout.addWidget(self.buttons)
        self.edit.textChanged.connect(self._validate)
        self._faces: list[int] | None = None
        self.reason: str | None = None
        self._validate()

    def faces(self) -> list[int] | None:
        """The faces, once they fit the roll exactly; None otherwise."""
        return self._faces

    def _validate(self) -> None:
        text = self.edit.text()
        try:
            faces = parse_faces(text)
            reason = self._check(faces)
        except FacesRefused as error:
            faces, reason = [], str(error)
        self._faces = None if reason else faces
        self.reason = reason
        if not text.strip():
            self.status_label.setText("")
        elif reason:
            self.status_label.setText(f'<span style="color:{BAD_COLOR}">✘ {_escape(reason)}</span>')
        else:
            fit = f"{len(faces)} face fits" if len(faces) == 1 else f"{len(faces)} faces fit"
            self.status_label.setText(f'<span style="color:{OK_COLOR}">✔ {fit} the roll</span>')
        self.ok_button.setEnabled(self._faces is not None)
        self.ok_button.setToolTip(reason or "Apply the action with these faces")

    def accept(self) -> None:
        self._validate()
        if self._faces is None:
            return  # never applied: the reason is on show
        super().accept()


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
