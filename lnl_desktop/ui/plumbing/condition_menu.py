"""A combatant's conditions as a menu (RULES §10 "How long a condition lasts"): the Sheet's
conditions button and the token's menu both fill theirs here.

Each condition it has shows what is left of it ("stunned · 1 round left") with *Remove* and
*Change duration*; *Add condition* offers the encounter's ruleset's conditions, each with its
durations. Every choice is ONE ``SetCondition`` through the controller: one undo step, one line in
the round log; a refusal is said by the controller (the status bar) and changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QInputDialog, QMenu, QWidget

from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.durations import condition_label, duration_of, duration_words
from lnl_desktop.core.encounter.model import ConditionDuration, DurationKind
from lnl_desktop.ui.plumbing.controller import TableController

QUICK_ROUNDS = (1, 2, 3)  # the counts offered at once; any other through "N rounds…"
MOST_ROUNDS = 1000  # as ConditionDuration allows
_ORDINALS = {2: "second", 3: "third"}

MOST_DC = 100
FIRST_DC = 12  # where the DC's box starts: a middling save

# Asks for a whole number (parent, title, label, lowest, highest, start) -> it, or None when cancelled.
AskNumber = Callable[[QWidget | None, str, str, int, int, int], int | None]


def ask_number(parent: QWidget | None, title: str, label: str, lowest: int, highest: int, start: int) -> int | None:
    """A whole number from the GM; the spin box keeps it within ``lowest``..``highest``."""
    value, ok = QInputDialog.getInt(parent, title, label, start, lowest, highest, 1)
    return value if ok else None


def _over(menu: QMenu) -> QWidget | None:
    """The window a dialog asked from a menu opens over (a menu closes as its entry is picked)."""
    widget = menu.parentWidget()
    while isinstance(widget, QMenu):
        widget = widget.parentWidget()
    return widget.window() if widget is not None else None


def fill_condition_menu(
    menu: QMenu, controller: TableController, combatant_id: str, ask: AskNumber | None = None
) -> None:
    """Add to ``menu`` the conditions ``combatant_id`` has (each: what is left, Remove, Change
    duration) and *Add condition* with the ruleset's conditions and their durations.

    ``ask`` asks for a number (N rounds, a DC); by default an input dialog over the menu's window.
    Nothing is added for a combatant that is gone."""
    c = controller.combatant(combatant_id)
    if c is None:
        return
    menu.setToolTipsVisible(True)
    ask = ask or ask_number
    names = controller.encounter.names()
    ruleset = controller.engine.ruleset

    for condition in c.conditions:
        label = condition_label(c, condition, names)
        sub = menu.addMenu(label.replace("&", "&&"))
        sub.setToolTipsVisible(True)
        kept = duration_of(c, condition)
        how_long = duration_words(kept, names) if kept is not None else "until removed"
        sub.menuAction().setToolTip(f"{c.name} is {condition}: {how_long}")
        remove = sub.addAction("&Remove")
        remove.setToolTip(f"{c.name} is no longer {condition} (one step, Undo brings it back)")
        remove.triggered.connect(
            lambda _=False, word=condition: controller.do(act.SetCondition(combatant_id, word, on=False))
        )
        change = sub.addMenu("Change &duration")
        change.setToolTipsVisible(True)
        change.menuAction().setToolTip(f"How long {c.name} stays {condition} from now")
        _fill_durations(change, controller, combatant_id, condition, names, ask)

    if c.conditions:
        menu.addSeparator()
    add = menu.addMenu("&Add condition")
    add.setToolTipsVisible(True)
    add.menuAction().setToolTip(f"Give {c.name} a condition, and say how long it lasts")
    for condition in ruleset.conditions.menu():
        sub = add.addMenu(condition.replace("&", "&&"))
        sub.setToolTipsVisible(True)
        tip = ruleset.conditions.tip(condition) or condition
        if c.has_condition(condition):
            sub.menuAction().setEnabled(False)
            tip = f"{c.name} is {condition} already: change its duration above"
        sub.menuAction().setToolTip(tip)
        _fill_durations(sub, controller, combatant_id, condition, names, ask)


def _fill_durations(
    menu: QMenu,
    controller: TableController,
    cid: str,
    condition: str,
    names: dict[str, str],
    ask: AskNumber,
) -> None:
    """The durations a condition may be given, each one ``SetCondition``."""
    who = names.get(cid, cid)

    def give(duration: ConditionDuration | None) -> None:
        controller.do(act.SetCondition(cid, condition, on=True, duration=duration))

    def entry(text: str, tip: str, duration: ConditionDuration | None) -> None:
        action = menu.addAction(text)
        action.setToolTip(tip)
        action.triggered.connect(lambda _=False: give(duration))

    entry("Until &removed", f"{who} stays {condition} until you take it away", None)
    for n in QUICK_ROUNDS:
        ends = "its next turn" if n == 1 else f"its {_ORDINALS[n]} turn from now"
        entry(
            f"&{n} round" if n == 1 else f"&{n} rounds",
            f"Counted at the end of {who}'s turns: ends at the end of {ends}",
            ConditionDuration(kind=DurationKind.ROUNDS, rounds=n),
        )

    def some_rounds() -> None:
        n = ask(_over(menu), f"{condition.capitalize()}: how many rounds", "Rounds (1 to 1000):", 1, MOST_ROUNDS, 1)
        if n is not None:
            give(ConditionDuration(kind=DurationKind.ROUNDS, rounds=n))

    many = menu.addAction("&N rounds…")
    many.setToolTip(f"Type how many rounds: counted at the end of {who}'s turns")
    many.triggered.connect(lambda _=False: some_rounds())
    entry(
        "Until the &end of its next turn",
        f"Ends when {who}'s next turn ends",
        ConditionDuration(kind=DurationKind.END_OF_NEXT_TURN),
    )

    start = menu.addMenu("Until the &start of a creature's turn")
    start.setToolTipsVisible(True)
    start.menuAction().setToolTip("Ends when the creature you pick begins its next turn (a spell's caster)")
    for other, name in names.items():
        words = f"{name}'s next turn" + (" (its own)" if other == cid else "")
        action = start.addAction(words.replace("&", "&&"))
        action.setToolTip(f"{who} stays {condition} until {name} begins its next turn")
        action.triggered.connect(
            lambda _=False, o=other: give(ConditionDuration(kind=DurationKind.START_OF_TURN_OF, creature=o))
        )

    _fill_saves(menu, controller, who, condition, give, ask)


def _fill_saves(
    menu: QMenu,
    controller: TableController,
    who: str,
    condition: str,
    give: Callable[[ConditionDuration], None],
    ask: AskNumber,
) -> None:
    """A save at the end of each turn: the saves the ruleset names (an Old-School d20 category, a
    Group d10 skill, an L&L ability), and the DC asked for where the ruleset rolls against one."""
    spec = controller.engine.ruleset.conditions.duration_save()
    saves = menu.addMenu("A save at the end of each &turn")
    saves.setToolTipsVisible(True)
    saves.menuAction().setToolTip(f"{who} rolls {spec.words}")

    def with_dc(save: str | None) -> None:
        dc: int | None = None
        if spec.needs_dc:
            named = f" ({save})" if save else ""
            dc = ask(
                _over(menu),
                f"{condition.capitalize()}: the save's DC{named}",
                "DC (1 to 100):",
                1,
                MOST_DC,
                FIRST_DC,
            )
            if dc is None:
                return  # cancelled: nothing given
        give(ConditionDuration(kind=DurationKind.SAVE, save=save, dc=dc))

    dots = "…" if spec.needs_dc else ""
    if not spec.needs_save:
        plain = saves.addAction(f"A d20 against a DC{dots}")
        plain.setToolTip(f"{who} rolls a d20 at the end of each of its turns: the DC or more ends it")
        plain.triggered.connect(lambda _=False: with_dc(None))
        if spec.saves:
            saves.addSeparator()
    for value, words in spec.saves:
        action = saves.addAction(f"{value}{dots}".replace("&", "&&"))
        action.setToolTip(words)
        action.triggered.connect(lambda _=False, v=value: with_dc(v))
