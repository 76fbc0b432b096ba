"""Dialogs of the combat controls: starting a combat, and typing in faces read off physical dice.

Every roll can come from the app's dice or from the GM's own: these dialogs take typed faces and
check them with a *dry run* of the very rules code that will use them (``resolve_attack`` or
``roll_plain`` on a :class:`FaceProbe`), so too few faces, faces off the die and faces left over
are refused with the reason before anything is applied.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from copy import deepcopy
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QSignalBlocker, Qt, SignalInstance
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QRadioButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from lnl_desktop.core.dice.rolls import DiceSource, ScriptedDice, roll_plain
from lnl_desktop.core.encounter.actions import EditOptions, StartCombat
from lnl_desktop.core.encounter.events import CombatStarted
from lnl_desktop.core.encounter.model import Encounter, Side
from lnl_desktop.core.errors import RulesError
from lnl_desktop.core.rules.base import Setting
from lnl_desktop.core.rules.registry import Ruleset, get_ruleset

OK_COLOR = "#1b7a3a"
BAD_COLOR = "#b3261e"

# -- typed faces ---------------------------------------------------------------------------------


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

    state = {k: v for k, v in encounter.__dict__.items() if k != "log"}

    def run(dice: Any) -> object:
        copy = type(encounter).model_construct(**deepcopy(state), log=[])
        engine = Engine(copy, dice=dice)
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


# -- the ruleset's settings (light, initiative by group...) ----------------------------------------


def plain(value: Any) -> Any:
    """An enum's value, anything else as it is (what the options hold, as the editors show it)."""
    return getattr(value, "value", value)


def text_placeholder(setting: Setting) -> str:
    """The grey words of an empty "text" setting: the example its tooltip gives ("..., e.g. the
    ceiling collapses", "... (flanking, high ground…)"), else what to type."""
    found = re.search(r"\b(e\.g\.[^)]*)", setting.tip)
    if found:
        return found.group(1).strip().rstrip(".;,")
    examples = re.search(r"\(([^()]+)\)\s*\.?\s*$", setting.tip)
    if examples:
        return f"e.g. {examples.group(1).strip()}"
    return f"{setting.label.lower()}, in words"


def setting_default(setting: Setting) -> Any:
    """A setting's default as its editor holds it: "" for a "text" setting that gives no words."""
    if setting.kind == "text" and not isinstance(setting.default, str):
        return "" if setting.default is None or setting.default == 0 else str(setting.default)
    return setting.default


def setting_editor(setting: Setting, parent: QWidget | None = None) -> QWidget:
    """A small editor for one of the ruleset's settings: a combo box of its choices, a check box,
    a spin box from ``low`` to ``high``, or a line of words ("text": a timer's event); its tooltip
    is the setting's."""
    editor: QWidget
    if setting.kind == "bool":
        editor = QCheckBox(setting.label, parent)
    elif setting.kind == "int":
        spin = QSpinBox(parent)
        spin.setRange(setting.low, setting.high)
        spin.setKeyboardTracking(False)  # a typed number counts once, on Enter or leaving the box
        editor = spin
    elif setting.kind == "text":
        line = QLineEdit(parent)
        line.setPlaceholderText(text_placeholder(setting))
        line.setClearButtonEnabled(True)
        line.setMinimumWidth(line.fontMetrics().horizontalAdvance("x" * 16))
        editor = line
    else:
        combo = QComboBox(parent)
        for choice in setting.choices:
            combo.addItem(choice, choice)
        combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        editor = combo
    editor.setToolTip(setting.tip)
    editor.setAccessibleName(setting.label)
    editor.setObjectName(f"setting-{setting.key}")
    set_setting_value(editor, setting_default(setting))
    return editor


def setting_value(editor: QWidget) -> Any:
    """What a :func:`setting_editor` holds now (a line of words without its outer spaces)."""
    if isinstance(editor, QCheckBox):
        return editor.isChecked()
    if isinstance(editor, QSpinBox):
        return editor.value()
    if isinstance(editor, QLineEdit):
        return editor.text().strip()
    assert isinstance(editor, QComboBox)
    return editor.currentData()


def set_setting_value(editor: QWidget, value: Any) -> None:
    """Show ``value`` in a :func:`setting_editor` without it telling anyone."""
    value = plain(value)
    with QSignalBlocker(editor):
        if isinstance(editor, QCheckBox):
            editor.setChecked(bool(value))
        elif isinstance(editor, QSpinBox):
            editor.setValue(int(value))
        elif isinstance(editor, QLineEdit):
            words = "" if value is None else str(value)
            if editor.text().strip() != words.strip():  # the GM's own spaces and cursor are kept
                editor.setText(words)
        elif isinstance(editor, QComboBox):
            index = editor.findData(value)
            if index < 0 and value is not None:
                editor.addItem(str(value), value)  # a value the choices do not list: shown as it is
                index = editor.count() - 1
            editor.setCurrentIndex(index)


def setting_changed(editor: QWidget) -> SignalInstance:
    """The signal a GM's change of a :func:`setting_editor` sends (never a programmatic one). A line
    of words tells once it is typed (Enter, or leaving the box), not at every key."""
    if isinstance(editor, QCheckBox):
        return editor.clicked
    if isinstance(editor, QSpinBox):
        return editor.valueChanged
    if isinstance(editor, QLineEdit):
        return editor.editingFinished
    assert isinstance(editor, QComboBox)
    return editor.activated


# -- starting a combat ---------------------------------------------------------------------------


def surprise_row(ruleset: Ruleset, situation: str) -> list[tuple[int, str]]:
    """How the ruleset reads each face of the die in ``situation``: (face, reading) for faces 1 to 6."""
    procedure = ruleset.start_procedure()
    spec = next((s for s in procedure.situations if s.key == str(situation)), None)
    if spec is None or spec.by_hand or not procedure.surprise_die:
        return []
    return [(face, procedure.reading(spec.key, face)) for face in range(1, 7)]


class _DieRow(QWidget):
    """'Roll the d6' or 'I rolled: [ ]' for one die."""

    def __init__(self, what: str, parent: QWidget) -> None:
        super().__init__(parent)
        self.roll_radio = QRadioButton("Roll the d6", self)
        self.roll_radio.setToolTip(f"The app rolls the {what} die")
        self.typed_radio = QRadioButton("I rolled:", self)
        self.typed_radio.setToolTip("Type the face your own d6 shows")
        self.face_edit = QLineEdit(self)
        self.face_edit.setPlaceholderText("1-6")
        self.face_edit.setMaximumWidth(60)
        self.face_edit.setToolTip(f"The face of your {what} d6, 1 to 6")
        self.roll_radio.setChecked(True)
        group = QButtonGroup(self)
        group.addButton(self.roll_radio)
        group.addButton(self.typed_radio)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.roll_radio)
        layout.addSpacing(12)
        layout.addWidget(self.typed_radio)
        layout.addWidget(self.face_edit)
        layout.addStretch(1)
        self.face_edit.textChanged.connect(self._typed)

    def _typed(self, text: str) -> None:
        if text.strip() and not self.typed_radio.isChecked():
            self.typed_radio.setChecked(True)

    def set_face(self, face: int | str | None) -> None:
        if face is None:
            self.roll_radio.setChecked(True)
        else:
            self.typed_radio.setChecked(True)
            self.face_edit.setText(str(face))

    def face(self) -> int | None:
        """The typed face (None: the app rolls, or it does not read as a d6)."""
        return check_d6(self.face_edit.text())[0] if self.typed_radio.isChecked() else None

    def problem(self, purpose: str) -> str | None:
        return check_d6(self.face_edit.text(), purpose)[1] if self.typed_radio.isChecked() else None


class StartCombatDialog(QDialog):
    """The first round, as the encounter's ruleset opens a combat (:meth:`Ruleset.start_procedure`):
    its situations, the die they read (rolled by the app or typed), a second die for round 1's
    initiative where the ruleset reads one, or the outcome set by hand. :meth:`action` is the
    ``StartCombat`` to apply.

    A ruleset that rolls round 1's initiative itself (``rolls_initiative``: d20s per side or per
    combatant) gets a row to roll it or type every face, checked by a dry run of the start on a copy
    of the encounter; :meth:`dice` is then the typed faces as a dice source. Its ``settings``
    (light, initiative by group) are set before the first round: :meth:`option_changes` is the
    ``EditOptions`` to apply before the start."""

    def __init__(self, encounter: Encounter, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.encounter = encounter
        self.ruleset = get_ruleset(encounter.ruleset)
        self.procedure = self.ruleset.start_procedure()
        self.setWindowTitle(f"Start combat — {self.ruleset.title}")

        situation_box = QGroupBox(self.procedure.question, self)
        situation_layout = QVBoxLayout(situation_box)
        self.situation_group = QButtonGroup(self)
        self.situation_buttons: dict[str, QRadioButton] = {}
        for i, situation in enumerate(self.procedure.situations):
            button = QRadioButton(situation.label, situation_box)
            button.setToolTip(situation.tip)
            self.situation_group.addButton(button, i)
            self.situation_buttons[situation.key] = button
            situation_layout.addWidget(button)
        self.situation_buttons[self.procedure.situations[0].key].setChecked(True)

        self.table_label = QLabel(self)
        self.table_label.setTextFormat(Qt.TextFormat.RichText)
        self.table_label.setToolTip(f"How {self.ruleset.title} reads the {self.procedure.die_label} d6")

        self.die_box = QGroupBox(f"The {self.procedure.die_label} d6", self)
        self.die_row = _DieRow(self.procedure.die_label, self.die_box)
        QVBoxLayout(self.die_box).addWidget(self.die_row)
        # The widgets of the first die, by their old names (scripts and tests use them).
        self.roll_radio, self.typed_radio, self.face_edit = (
            self.die_row.roll_radio,
            self.die_row.typed_radio,
            self.die_row.face_edit,
        )

        self.initiative_box = QGroupBox(
            "Round 1's initiative d6, read only with no surprise round (1-3 Opponents first, 4-6 the Party)", self
        )
        self.initiative_row = _DieRow("initiative", self.initiative_box)
        QVBoxLayout(self.initiative_box).addWidget(self.initiative_row)

        # Options set before the first round (Old-School d20: light, initiative by group or individual).
        self.settings_box = QGroupBox("Before the first round", self)
        settings_form = QFormLayout(self.settings_box)
        self.setting_editors: dict[str, QWidget] = {}
        for setting in self.procedure.settings:
            editor = setting_editor(setting, self.settings_box)
            set_setting_value(editor, getattr(encounter.options, setting.key, setting.default))
            self.setting_editors[setting.key] = editor
            if setting.kind == "bool":
                settings_form.addRow(editor)
            else:
                caption = QLabel(setting.label, self.settings_box)
                caption.setToolTip(setting.tip)
                settings_form.addRow(caption, editor)
            setting_changed(editor).connect(lambda *_: self._refresh())
        self.settings_box.setVisible(bool(self.procedure.settings))

        # Round 1's initiative rolled by the ruleset with any dice: rolled by the app, or typed.
        self.roll_box = QGroupBox("Round 1's initiative", self)
        self.roll_initiative_radio = QRadioButton("Roll initiative", self.roll_box)
        self.roll_initiative_radio.setToolTip("The app rolls every initiative die when you start")
        self.type_initiative_radio = QRadioButton("Type the faces:", self.roll_box)
        self.type_initiative_radio.setToolTip("Type the faces your own dice show, in the order below")
        self.initiative_faces_edit = QLineEdit(self.roll_box)
        self.initiative_faces_edit.setToolTip("The faces as the dice show them, separated by spaces")
        self.roll_initiative_radio.setChecked(True)
        roll_group = QButtonGroup(self.roll_box)
        roll_group.addButton(self.roll_initiative_radio)
        roll_group.addButton(self.type_initiative_radio)
        self.initiative_hint = QLabel(self.roll_box)
        self.initiative_hint.setWordWrap(True)
        self.initiative_hint.setToolTip("The dice the ruleset reads to open the combat, in order")
        roll_line = QHBoxLayout()
        roll_line.setContentsMargins(0, 0, 0, 0)
        roll_line.addWidget(self.roll_initiative_radio)
        roll_line.addSpacing(12)
        roll_line.addWidget(self.type_initiative_radio)
        roll_line.addWidget(self.initiative_faces_edit, 1)
        roll_layout = QVBoxLayout(self.roll_box)
        roll_layout.addLayout(roll_line)
        roll_layout.addWidget(self.initiative_hint)
        self.roll_box.setVisible(self.procedure.rolls_initiative)
        self.initiative_faces_edit.textChanged.connect(self._faces_typed)
        self.roll_initiative_radio.toggled.connect(lambda *_: self._refresh())

        self.reverse_box = QGroupBox("The GM sets the outcome", self)
        self.first_combo = QComboBox(self.reverse_box)
        for side in Side:
            self.first_combo.addItem(side.value, side.value)
        self.first_combo.setToolTip("The side that takes its turns first in round 1")
        self.surprised_combo = QComboBox(self.reverse_box)
        self.surprised_combo.addItem("nobody", None)
        for side in Side:
            self.surprised_combo.addItem(side.value, side.value)
        self.surprised_combo.setToolTip("A surprised side takes no turns in round 1")
        reverse_form = QFormLayout(self.reverse_box)
        reverse_form.addRow("Acts first", self.first_combo)
        reverse_form.addRow("Surprised", self.surprised_combo)

        self.outcome_label = QLabel(self)
        self.outcome_label.setWordWrap(True)
        self.outcome_label.setTextFormat(Qt.TextFormat.RichText)

        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel, self)
        self.start_button = QPushButton("Start combat", self)
        self.start_button.setDefault(True)
        self.buttons.addButton(self.start_button, QDialogButtonBox.ButtonRole.AcceptRole)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)

        layout = QVBoxLayout(self)
        layout.addWidget(self.settings_box)
        layout.addWidget(situation_box)
        layout.addWidget(self.table_label)
        layout.addWidget(self.die_box)
        layout.addWidget(self.initiative_box)
        layout.addWidget(self.roll_box)
        layout.addWidget(self.reverse_box)
        layout.addWidget(self.outcome_label)
        layout.addWidget(self.buttons)

        self.situation_group.idToggled.connect(lambda *_: self._refresh())
        for row in (self.die_row, self.initiative_row):
            row.roll_radio.toggled.connect(lambda *_: self._refresh())
            row.face_edit.textChanged.connect(lambda *_: self._refresh())
        self.first_combo.currentIndexChanged.connect(lambda *_: self._refresh())
        self.surprised_combo.currentIndexChanged.connect(lambda *_: self._refresh())
        self._refresh()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        """A face typed anywhere in the dialog (not in a field) is the die's face: a GM who has just
        rolled types it, then Return starts the combat."""
        focus = self.focusWidget()
        typing = isinstance(focus, (QLineEdit, QAbstractSpinBox)) or (
            isinstance(focus, QComboBox) and focus.isEditable()
        )
        if event.text().isdigit() and not typing and self.die_box.isVisible():
            self.face_edit.setFocus(Qt.FocusReason.ShortcutFocusReason)
            self.face_edit.setText(event.text())
            return
        super().keyPressEvent(event)

    # -- the choices -------------------------------------------------------------------------

    def situation(self) -> str:
        for key, button in self.situation_buttons.items():
            if button.isChecked():
                return key
        return self.procedure.situations[0].key

    def _by_hand(self) -> bool:
        situation = self.situation()
        return any(s.key == situation and s.by_hand for s in self.procedure.situations)

    def set_situation(self, situation: str) -> None:
        self.situation_buttons[str(situation)].setChecked(True)

    def set_face(self, face: int | str | None) -> None:
        """Type a face (or None: the app rolls)."""
        self.die_row.set_face(face)

    def set_initiative_face(self, face: int | str | None) -> None:
        """Type round 1's initiative face, where the ruleset reads one after the surprise die."""
        self.initiative_row.set_face(face)

    def set_reverse(self, first: Side, surprised: Side | None) -> None:
        """The outcome by hand (L&L's reverse ambush)."""
        self.set_situation(next(s.key for s in self.procedure.situations if s.by_hand))
        self.first_combo.setCurrentIndex(self.first_combo.findData(first.value))
        self.surprised_combo.setCurrentIndex(self.surprised_combo.findData(surprised.value if surprised else None))

    def first_side(self) -> Side:
        """By hand: the side that acts first."""
        return Side(self.first_combo.currentData())

    def surprised_side(self) -> Side | None:
        """By hand: the surprised side, or None."""
        data = self.surprised_combo.currentData()
        return Side(data) if data else None

    def _needs_initiative(self) -> bool:
        return self.procedure.then_initiative(self.situation(), self.die_row.face() if not self._by_hand() else None)

    def set_setting(self, key: str, value: object) -> None:
        """Set one of the options the ruleset sets before the first round (as the GM picks it)."""
        set_setting_value(self.setting_editors[key], value)
        self._refresh()

    def option_changes(self) -> dict[str, Any]:
        """The settings the GM changed, as the ``EditOptions`` changes to apply before the start ({} if none)."""
        options = self.encounter.options
        changes: dict[str, Any] = {}
        for key, editor in self.setting_editors.items():
            value = setting_value(editor)
            now = plain(getattr(options, key, None))
            if now != value and not (now is None and value == ""):  # no words where there were none
                changes[key] = value
        return changes

    def set_initiative_faces(self, text: str | None) -> None:
        """Type round 1's initiative faces (None: the app rolls them), where the ruleset rolls it."""
        if text is None:
            self.roll_initiative_radio.setChecked(True)
        else:
            self.type_initiative_radio.setChecked(True)
            self.initiative_faces_edit.setText(text)
        self._refresh()

    def _faces_typed(self, text: str) -> None:
        if text.strip() and not self.type_initiative_radio.isChecked():
            self.type_initiative_radio.setChecked(True)
        self._refresh()

    def _typing_faces(self) -> bool:
        return self.procedure.rolls_initiative and self.type_initiative_radio.isChecked()

    def start_dry_run(self) -> DryRun:
        """The start as filled in (the settings first), applied to a copy of the encounter."""
        changes = self.option_changes()
        steps: list[Any] = [EditOptions(changes)] if changes else []
        return engine_dry_run(self.encounter, *steps, self.action())

    def typed_faces(self) -> list[int] | None:
        """Round 1's initiative faces as typed, once a dry run says they fit exactly; None otherwise."""
        if not self._typing_faces():
            return None
        try:
            faces = parse_faces(self.initiative_faces_edit.text())
        except FacesRefused:
            return None
        return faces if check_faces(faces, self.start_dry_run()) is None else None

    def dice(self) -> DiceSource | None:
        """The dice to start with: the typed initiative faces, or None for the app's dice."""
        faces = self.typed_faces()
        return ScriptedDice(faces) if faces is not None else None

    def _faces_problem(self) -> str | None:
        if not self._typing_faces():
            return None
        try:
            faces = parse_faces(self.initiative_faces_edit.text())
        except FacesRefused as error:
            asked = dice_asked(self.start_dry_run())
            if asked and not self.initiative_faces_edit.text().strip():
                example = faces_example(self.start_dry_run())
                return f"Initiative: type the faces of {dice_words(asked)}" + (f", e.g. {example}" if example else "")
            return f"Initiative: {error}"
        reason = check_faces(faces, self.start_dry_run())
        return f"Initiative: {reason}" if reason is not None else None

    def _rules_problem(self) -> str | None:
        """A refusal of the rules themselves, whatever the dice say (Group d10: declare first), from a
        dry run of the start with any faces; None when the start would go through."""
        if not self.procedure.rolls_initiative:
            return None
        try:
            self.start_dry_run()(FaceProbe([], fill=True))
        except FacesRefused:
            return None
        except RulesError as refused:
            return str(refused)
        return None

    def problem(self) -> str | None:
        """Why the dialog cannot start the combat as filled in, or None."""
        rules = self._rules_problem()
        if rules is not None:
            return rules
        if self._by_hand():
            if self.procedure.by_hand_surprise and self.surprised_side() is self.first_side():
                return "The side that acts first cannot be the surprised one"
            return self._faces_problem()
        problem = self.die_row.problem(self.procedure.die_label) if self.procedure.surprise_die else None
        if problem is None and self._needs_initiative():
            problem = self.initiative_row.problem("initiative")
        return problem or self._faces_problem()

    def action(self) -> StartCombat:
        situation = self.situation()
        if self._by_hand():
            if self.procedure.by_hand_surprise:
                return StartCombat(situation, None, self.first_side(), self.surprised_side())
            return StartCombat(situation)
        initiative = self.initiative_row.face() if self._needs_initiative() else None
        face = self.die_row.face() if self.procedure.surprise_die else None
        return StartCombat(situation, face, initiative_face=initiative)

    # -- showing -----------------------------------------------------------------------------

    def _refresh(self) -> None:
        situation = self.situation()
        by_hand = self._by_hand()
        self.die_box.setVisible(not by_hand and bool(surprise_row(self.ruleset, situation)))
        self.reverse_box.setVisible(by_hand and self.procedure.by_hand_surprise)
        self.initiative_box.setVisible(not by_hand and self._needs_initiative())
        typed = self.die_row.face()
        label = next(s.label for s in self.procedure.situations if s.key == situation)
        rows = surprise_row(self.ruleset, situation)
        if by_hand:
            self.table_label.setText(f"<i>{_escape(label)}: no die is read.</i>")
        elif rows:
            body = "".join(
                f'<tr style="{"font-weight:bold; background:#fff3c4" if face == typed else ""}">'
                f'<td align="right">{face}&nbsp;</td><td>{_escape(text)}</td></tr>'
                for face, text in rows
            )
            self.table_label.setText(
                f'<b>The d6 for “{_escape(label)}”:</b><table cellspacing="0" cellpadding="1">{body}</table>'
            )
        else:
            self.table_label.setText(f"<i>{_escape(label)}.</i>")
        if self.procedure.rolls_initiative:
            self._refresh_roll_box()
        problem = self.problem()
        self.start_button.setEnabled(problem is None)
        self.start_button.setToolTip(problem or "Start the combat")
        if problem:
            self.outcome_label.setText(f'<span style="color:{BAD_COLOR}">✘ {_escape(problem)}</span>')
        elif self.procedure.rolls_initiative:
            self.outcome_label.setText(self._rolled_outcome(situation))
        elif by_hand and self.procedure.by_hand_surprise:
            first, surprised = self.first_side(), self.surprised_side()
            words = first.acts_first if surprised is None else f"{surprised.value} surprised: {first.acts_first}"
            self.outcome_label.setText(f"<b>Outcome:</b> {_escape(words)}")
        elif by_hand:
            self.outcome_label.setText(f"<b>Outcome:</b> {_escape(label)}")
        elif typed is not None:
            reading = self.procedure.reading(situation, typed)
            self.outcome_label.setText(f"<b>{typed}:</b> {_escape(reading)}")
        elif rows:
            self.outcome_label.setText(f"The app rolls the {_escape(self.procedure.die_label)} d6 when you start.")
        else:
            self.outcome_label.setText("The app rolls round 1's initiative d6 when you start.")

    def _refresh_roll_box(self) -> None:
        asked = dice_asked(self.start_dry_run())
        typing = self._typing_faces()
        if asked is None:
            self.initiative_hint.setText("")
            self.initiative_faces_edit.setPlaceholderText("faces separated by spaces")
        elif not asked:
            self.initiative_hint.setText("No die is rolled to open this combat.")
            self.initiative_faces_edit.setPlaceholderText("no dice")
        else:
            self.initiative_hint.setText(faces_hint(self.start_dry_run()) if typing else self._dice_said(asked))
            example = faces_example(self.start_dry_run())
            self.initiative_faces_edit.setPlaceholderText(
                f"{dice_words(asked)}, e.g. {example}" if example else dice_words(asked)
            )
        self.roll_initiative_radio.setText(f"Roll {dice_words(asked)}" if asked else "Roll initiative")

    @staticmethod
    def _dice_said(asked: list[DieAsked]) -> str:
        names = rollers(asked)
        who = f" ({', '.join(names)})" if names else ""
        return f"Initiative: {dice_words(asked)}{who}. Ties may take more dice."

    def _rolled_outcome(self, situation: str) -> str:
        """What the start will say: read from the typed faces by a dry run, or how the app rolls."""
        try:
            reading = self.procedure.reading(situation, 0) if not self.procedure.surprise_die else ""
        except RulesError:
            reading = ""
        head = f"<b>{_escape(reading)}.</b> " if reading else ""
        faces = self.typed_faces()
        if faces is None:
            return head + "The app rolls round 1's initiative when you start."
        probe = FaceProbe(faces)
        engine = self.start_dry_run()(probe)
        log = getattr(getattr(engine, "encounter", None), "log", [])
        said = log[-1].text if log else ""
        started = next((e.text for e in log if isinstance(e, CombatStarted)), said)
        return head + _escape(started)

    def accept(self) -> None:
        if self.problem() is not None:
            return
        super().accept()


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
