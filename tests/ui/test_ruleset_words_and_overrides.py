"""A ruleset's words where the GM reads them: a line of words as a setting (a GM's reason, a timer's
event), a GM override labelled in the ruleset's own words, and an action with many inputs of its own
that still leaves Roll on screen at 1366 x 768.

A small ruleset made for these tests (L&L with a Strike that has seven inputs, a timer tool and an
omen option) stands in for any ruleset that describes such things; L&L's sneak attack override is
checked to be as it was, and the end of the file tries the real Group d10 when it is there.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import pytest
from pydantic import Field
from PySide6.QtCore import QPoint, QRect, QSettings, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QCheckBox, QComboBox, QLineEdit, QMessageBox, QWidget
from pytestqt.qtbot import QtBot

from lnl_desktop.core import get_ruleset
from lnl_desktop.core.dice.rolls import DiceSource, ScriptedDice, roll_plain
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.events import Event, Override, RulesEvent
from lnl_desktop.core.encounter.model import Encounter
from lnl_desktop.core.engine.plan import FAIL, OK, OVERRIDDEN
from lnl_desktop.core.files import storage
from lnl_desktop.core.rules import registry as rules
from lnl_desktop.core.rules.base import Handler
from lnl_desktop.core.rules.common import Check
from lnl_desktop.core.rules.lnl import LnLRuleset
from lnl_desktop.core.rules.lnl.actions import SNEAK_OVERRIDE, SNEAK_OVERRIDE_TIP, LnlActions
from lnl_desktop.core.rules.lnl.attacks import LnlAttacks
from lnl_desktop.core.rules.lnl.model import Attack, RulesOptions
from lnl_desktop.core.rules.lnl.rounds import LnlRounds
from lnl_desktop.core.rules.lnl.views import LnlPrompts
from lnl_desktop.core.rules.registry import register
from lnl_desktop.core.rules.specs import ActionSpec, PromptChoice, PromptSpec, Setting, StartProcedure
from lnl_desktop.paths import demo_encounter_path, resource
from lnl_desktop.ui.dialogs.combat import StartCombatDialog
from lnl_desktop.ui.dialogs.setting_editors import setting_editor, setting_value
from lnl_desktop.ui.docks.actions import ActionPanel
from lnl_desktop.ui.docks.prompts import ToolCard, ToolDialog
from lnl_desktop.ui.docks.turns import TurnsPanel
from lnl_desktop.ui.plumbing.controller import TableController
from lnl_desktop.ui.window.main_window import MainWindow
from lnl_desktop.ui.window.recovery import RecoveryStore

NAME = "override-text-test"
OATH = "GM override: strike against the oath"


@dataclass(frozen=True)
class Strike:
    attacker: str
    target: str
    weapon: str
    override: bool = False
    gm_edge: str = "none"
    gm_reason: str = ""
    called_shot: bool = False
    cover: bool = False
    extreme_range: bool = False
    subdual: bool = False
    on_20: str = "double damage"


@dataclass(frozen=True)
class SetTimer:
    sides: int
    event: str


EDGE = Setting(
    "gm_edge",
    "GM edge",
    "Advantage, cinematic advantage or disadvantage, with a reason",
    "choice",
    "none",
    choices=("none", "advantage", "cinematic advantage", "disadvantage"),
)
REASON = Setting("gm_reason", "Why", "The reason for the GM's edge, for the log (e.g. high ground)", "text", "")
CALLED = Setting("called_shot", "Called shot", "Aiming at a spot: disadvantage", "bool", False)
COVER = Setting("cover", "Cover", "The target is under cover: disadvantage", "bool", False)
EXTREME = Setting("extreme_range", "Extreme range", "A shot at extreme range: disadvantage", "bool", False)
SUBDUAL = Setting("subdual", "Subdual", "Not to kill: disadvantage", "bool", False)
ON_20 = Setting(
    "on_20",
    "On a 20",
    "What a natural 20 does: double damage, or instead disarm, knock prone or grapple",
    "choice",
    "double damage",
    choices=("double damage", "disarm", "knock prone", "grapple"),
)
EXTRAS = (EDGE, REASON, CALLED, COVER, EXTREME, SUBDUAL, ON_20)
# A line of words whose Setting gives no default: the editor starts empty, not "0".
OMEN = Setting("omen", "Omen", "What the sky foretells this round, e.g. a red moon", "text")
EVENT = Setting("event", "Event", "What happens when the timer runs out, e.g. the ceiling collapses", "text", "")
DIE = Setting(
    "sides", "Die", "The timer's die: its face is the rounds left", "choice", "d6", choices=("d4", "d6", "d8")
)


def strike_checks(ruleset: OathRuleset, c: Any, target: Any, extras: Mapping[str, Any]) -> list[Check]:
    """The strike's own checks: an oath the GM override lets through, a reason it never does."""
    override = bool(extras.get("override", False))
    sworn = target.id in ruleset.sworn
    spare = f"{c.name} swore to spare {target.name}"
    edge, reason = str(extras.get("gm_edge", "none")), str(extras.get("gm_reason", ""))
    return [
        Check(
            "Not sworn to spare it",
            not sworn or override,
            f"{spare} (GM override)" if override else f"{spare}; striking needs a GM override",
        ),
        Check("A reason for the GM's edge", edge == "none" or bool(reason), "say why in the Why box"),
    ]


def strike(engine: Any, a: Strike, dice: DiceSource) -> list[Event]:
    attacker, target = engine.combatant(a.attacker), engine.combatant(a.target)
    title = f"{attacker.name} strikes {target.name}"
    extras = {f.name: getattr(a, f.name) for f in dataclasses.fields(a)}
    engine.require(
        title,
        [*engine.turn_checks(attacker, needs_action=True), *strike_checks(engine.ruleset, attacker, target, extras)],
    )
    face = roll_plain(dice, 20, f"{attacker.name}'s strike").face
    engine.use_action(attacker, "strike", f"on {target.name}")
    round_ = engine.encounter.combat.round
    events: list[Event] = []
    if a.override and target.id in engine.ruleset.sworn:
        events.append(Override(round=round_, text=f"GM override: {attacker.name} strikes against the oath"))
    edge = f" with {a.gm_edge} ({a.gm_reason})" if a.gm_edge != "none" else ""
    events.append(
        RulesEvent(
            round=round_,
            text=f"{title} with {a.weapon}{edge}: d20 {face}; on a 20: {a.on_20}",
            actors=(attacker.id, target.id),
            ruleset=NAME,
            name="strike",
        )
    )
    return events


def set_timer(engine: Any, a: SetTimer, dice: DiceSource) -> list[Event]:
    face = roll_plain(dice, a.sides, "the timer die").face
    text = f"Timer: d{a.sides} shows {face}: in {face} rounds, {a.event}"
    return [RulesEvent(round=engine.encounter.combat.round, text=text, actors=(), ruleset=NAME, name="timer")]


def build_strike(
    c: str, target: str, means: str, *, ignore_dex: bool = False, override: bool = False, **extras: Any
) -> Strike:
    return Strike(c, target, means, override, **extras)


def build_timer(values: Mapping[str, Any]) -> SetTimer:
    event = str(values.get("event", ""))
    if not event:
        raise ValueError("Say what happens when the timer runs out")
    return SetTimer(int(str(values.get("sides", "d6")).lstrip("d")), event)


class OmenOptions(RulesOptions):
    omen: str = Field(default="", description="what the sky foretells")


class OathActions(LnlActions):
    """L&L's actions with a Strike of seven inputs whose oath the GM may override."""

    handlers: ClassVar[Mapping[type, Handler]] = {**LnlActions.handlers, Strike: strike, SetTimer: set_timer}

    def __init__(self, ruleset: OathRuleset) -> None:
        super().__init__(ruleset.edition)
        self.ruleset = ruleset

    def kinds(self) -> tuple[ActionSpec, ...]:
        spec = ActionSpec(
            "strike",
            "Strike",
            "d20 against the foe, with the GM's edge",
            "weapon",
            build_strike,
            targeted=True,
            mode="strike",
            button="Roll the strike",
            rolls=True,
            extras=EXTRAS,
            gm_override=True,
            override_label=OATH,
        )
        return (spec, *super().kinds())

    def checks(
        self,
        encounter: Encounter,
        spec: ActionSpec,
        c: Any,
        means: str | None,
        text: str,
        target: Any = None,
        extras: Mapping[str, Any] | None = None,
    ) -> list[Any]:
        if spec.key == "strike" and target is not None:
            return strike_checks(self.ruleset, c, target, extras or {})
        return super().checks(encounter, spec, c, means, text, target)

    def notes(
        self,
        encounter: Encounter,
        spec: ActionSpec,
        c: Any,
        means: str | None,
        target: Any,
        extras: Mapping[str, Any] | None = None,
    ) -> list[tuple[str, str]]:
        if spec.key == "strike":
            return [("Strike", "d20, a 20 always hits")]
        return super().notes(encounter, spec, c, means, target)


class OathAttacks(LnlAttacks):
    def forecast(self, attacker: Any, target: Any, means: Any, mode: Any, options: Any, **more: Any) -> Any:
        if mode == "strike":
            return None  # no chart for the test's strike
        return super().forecast(attacker, target, means, mode, options, **more)


class OathRounds(LnlRounds):
    def start_procedure(self) -> StartProcedure:
        return dataclasses.replace(super().start_procedure(), settings=(OMEN,))

    def settings(self) -> tuple[Setting, ...]:
        return (OMEN,)


class OathPrompts(LnlPrompts):
    def tools(self, engine: Any) -> tuple[PromptSpec, ...]:
        choice = PromptChoice("Roll the timer", "The die's face is the rounds left", build_timer, rolls=True)
        return (PromptSpec("Timer die", "Set a die and an event", (DIE, EVENT), (choice,)),)


class OathRuleset(LnLRuleset):
    """L&L with a Strike of seven inputs whose oath the GM may override, a timer tool and an omen."""

    name = NAME
    title = "Oaths (test)"
    options_model = OmenOptions

    def __init__(self) -> None:
        super().__init__()
        self.sworn: set[str] = set()
        self.actions = OathActions(self)
        self.attacks = OathAttacks(self.edition)
        self.rounds = OathRounds(self.title)
        self.prompts = OathPrompts()


class DeafActions(OathActions):
    """The same Strike, with checks that take no inputs: they never hear of the override."""

    hooks_with_extras = frozenset({"action_notes"})

    def checks(  # type: ignore[override]
        self, encounter: Encounter, spec: ActionSpec, c: Any, means: str | None, text: str, target: Any = None
    ) -> list[Any]:
        if spec.key == "strike" and target is not None:
            return strike_checks(self.ruleset, c, target, {})[:1]
        return LnlActions.checks(self, encounter, spec, c, means, text, target)


class DeafRuleset(OathRuleset):
    """The same Strike, with checks that take no inputs: they never hear of the override."""

    name = NAME + "-deaf"

    def __init__(self) -> None:
        super().__init__()
        self.actions = DeafActions(self)


@pytest.fixture
def oaths(monkeypatch: pytest.MonkeyPatch) -> OathRuleset:
    """The test ruleset, registered for this test only: the menus of other tests never list it."""
    monkeypatch.setattr(rules, "_loaded", dict(rules._loaded))
    ruleset = register(OathRuleset())
    assert isinstance(ruleset, OathRuleset) and get_ruleset(NAME) is ruleset
    return ruleset


def demo_under(ruleset: OathRuleset) -> Encounter:
    data = storage.load(demo_encounter_path()).model_dump(mode="json", exclude={"log", "combat", "ruleset", "options"})
    return ruleset.new_encounter(**data)


def begin(controller: TableController, who: str = "tombril") -> None:
    assert controller.do(act.StartCombat(face=5)) is not None, controller.refusal
    assert controller.do(act.BeginTurn(who)) is not None, controller.refusal


def panel_for(qtbot: QtBot, controller: TableController) -> ActionPanel:
    panel = ActionPanel(controller)
    qtbot.addWidget(panel)
    panel.resize(420, 900)
    panel.show()
    qtbot.waitExposed(panel)
    return panel


@pytest.fixture
def table(qtbot: QtBot, oaths: OathRuleset) -> tuple[TableController, ActionPanel]:
    """The demo encounter under the test ruleset, Tombril's turn begun, his Strike at the Hill Giant."""
    controller = TableController(demo_under(oaths))
    panel = panel_for(qtbot, controller)
    begin(controller)
    panel.set_kind("strike")
    panel.set_target("hill-giant")
    return controller, panel


def status(panel: ActionPanel, label: str) -> str:
    return next(r.status for r in panel.rows if r.label == label)


def log_texts(controller: TableController) -> list[str]:
    return [e.text for e in controller.encounter.log]


# -- a line of words -------------------------------------------------------------------------------


def test_a_line_of_words_as_an_action_input_reaches_the_action_and_the_log(
    table: tuple[TableController, ActionPanel],
) -> None:
    controller, panel = table
    why = panel.extra_editors["gm_reason"]
    assert isinstance(why, QLineEdit) and why.text() == ""
    assert why.toolTip() == REASON.tip and why.placeholderText() == "e.g. high ground"
    panel.set_extra("gm_edge", "advantage")
    assert status(panel, "A reason for the GM's edge") == FAIL and not panel.roll_button.isEnabled()
    # Typed as the GM types it, spaces and all: the action has the words alone.
    why.setFocus()
    QTest.keyClicks(why, "  flanked by two  ")
    assert why.text() == "  flanked by two  "  # the dock never rewrites what is being typed
    assert panel.extras()["gm_reason"] == "flanked by two"
    assert status(panel, "A reason for the GM's edge") == OK and panel.roll_button.isEnabled()
    action = panel.action()
    assert isinstance(action, Strike) and (action.gm_edge, action.gm_reason) == ("advantage", "flanked by two")
    assert controller.plan is not None and dict(controller.plan.extras)["gm_reason"] == "flanked by two"
    assert panel.apply_faces([12]) is not None, panel.message
    assert log_texts(controller)[-1] == (
        "Tombril strikes Hill Giant with Shortsword with advantage (flanked by two): d20 12; on a 20: double damage"
    )


def test_a_line_of_words_in_a_tool_reaches_the_roll(qtbot: QtBot, oaths: OathRuleset) -> None:
    controller = TableController(demo_under(oaths))
    begin(controller)
    dialog = ToolDialog(controller, oaths.prompts.tools(controller.engine)[0])
    qtbot.addWidget(dialog)
    dialog.ask()
    card = dialog.card
    assert card is not None
    event = card.editors["event"]
    assert isinstance(event, QLineEdit)
    assert event.toolTip() == EVENT.tip and event.placeholderText() == "e.g. the ceiling collapses"
    # No words: refused on the card, nothing rolled.
    before = len(controller.encounter.log)
    card.choice_buttons[0].click()
    assert "Say what happens when the timer runs out" in card.refusal and len(controller.encounter.log) == before
    event.setFocus()
    QTest.keyClicks(event, " the ceiling collapses ")
    assert card.values()["event"] == "the ceiling collapses"
    assert card.apply_faces(0, [3]) is not None, card.refusal
    assert log_texts(controller)[-1] == "Timer: d6 shows 3: in 3 rounds, the ceiling collapses"
    assert "the ceiling collapses" in dialog.result


def test_words_typed_on_a_card_are_kept_when_it_is_built_again(qtbot: QtBot, oaths: OathRuleset) -> None:
    controller = TableController(demo_under(oaths))
    values: dict[str, Any] = {}
    spec = oaths.prompts.tools(controller.engine)[0]
    card = ToolCard(controller, spec, values)
    qtbot.addWidget(card)
    event = card.editors["event"]
    assert isinstance(event, QLineEdit)
    QTest.keyClicks(event, "the bridge falls")
    again = ToolCard(controller, spec, values)  # as a card is built again after any event
    qtbot.addWidget(again)
    words = again.editors["event"]
    assert isinstance(words, QLineEdit) and words.text() == "the bridge falls"
    assert again.values()["event"] == "the bridge falls"


def test_a_line_of_words_before_the_first_round_and_between_rounds(qtbot: QtBot, oaths: OathRuleset) -> None:
    controller = TableController(demo_under(oaths))
    dialog = StartCombatDialog(controller.encounter)
    qtbot.addWidget(dialog)
    omen = dialog.setting_editors["omen"]
    assert isinstance(omen, QLineEdit) and omen.text() == ""  # no default given: empty, not "0"
    assert omen.toolTip() == OMEN.tip and omen.placeholderText() == "e.g. a red moon"
    assert dialog.option_changes() == {}
    QTest.keyClicks(omen, "a red moon ")
    assert dialog.option_changes() == {"omen": "a red moon"}

    turns = TurnsPanel(controller)
    qtbot.addWidget(turns)
    turns.show()
    editor = turns.setting_editors["omen"]
    assert isinstance(editor, QLineEdit) and editor.toolTip() == OMEN.tip
    steps = controller.undo_stack.count()
    editor.setFocus()
    QTest.keyClicks(editor, "crows circling")
    assert controller.undo_stack.count() == steps  # not a step at every key
    QTest.keyClick(editor, Qt.Key.Key_Return)
    assert controller.encounter.options.omen == "crows circling"  # type: ignore[attr-defined]
    assert controller.undo_stack.count() == steps + 1


def test_the_shared_editor_of_a_line_of_words() -> None:
    editor = setting_editor(EVENT)
    assert isinstance(editor, QLineEdit) and editor.accessibleName() == "Event"
    editor.setText("  a wall gives way ")
    assert setting_value(editor) == "a wall gives way"


# -- the GM override in the ruleset's words --------------------------------------------------------


def test_the_override_in_the_rulesets_words_appears_when_a_check_blocks(
    table: tuple[TableController, ActionPanel], oaths: OathRuleset
) -> None:
    controller, panel = table
    box = panel.override_check
    assert not box.isVisible()  # nothing blocks: nothing to override
    oaths.sworn.add("hill-giant")
    panel.refresh()
    assert status(panel, "Not sworn to spare it") == FAIL
    assert not panel.roll_button.isEnabled() and "swore to spare Hill Giant" in panel.roll_button.toolTip()
    assert box.isVisible() and box.text() == OATH and not box.isChecked()
    assert "Strike" in box.toolTip() or "strike" in box.toolTip()
    assert panel.checklist_box.title() == "Not allowed: 1 check fails"

    box.click()
    row = next(r for r in panel.rows if r.label == "Not sworn to spare it")
    assert row.status == OVERRIDDEN and row.reason == "Tombril swore to spare Hill Giant (GM override)"
    assert panel.roll_button.isEnabled() and panel.faces_button.isEnabled()
    assert panel.checklist_box.title() == "Allowed (GM override)"
    action = panel.action()
    assert isinstance(action, Strike) and action.override
    panel.roll_button.click()
    texts = log_texts(controller)
    assert "GM override: Tombril strikes against the oath" in texts[-2]
    assert texts[-1].startswith("Tombril strikes Hill Giant with Shortsword: d20 ")


def test_the_override_lets_through_only_what_the_ruleset_says(
    table: tuple[TableController, ActionPanel], oaths: OathRuleset
) -> None:
    _, panel = table
    oaths.sworn.add("hill-giant")
    panel.set_extra("gm_edge", "disadvantage")  # and no reason: the override never covers that
    panel.override_check.click()
    assert status(panel, "Not sworn to spare it") == OVERRIDDEN
    assert status(panel, "A reason for the GM's edge") == FAIL
    assert not panel.roll_button.isEnabled()
    assert panel.roll_button.toolTip() == "Not allowed: A reason for the GM's edge: say why in the Why box"
    panel.set_extra("gm_reason", "in the dark")
    assert panel.roll_button.isEnabled()


def test_a_check_the_override_cannot_change_offers_no_override(table: tuple[TableController, ActionPanel]) -> None:
    _, panel = table
    panel.set_extra("gm_edge", "advantage")
    assert status(panel, "A reason for the GM's edge") == FAIL
    assert not panel.override_check.isVisible()  # it would let nothing through
    action = panel.action()
    assert isinstance(action, Strike) and not action.override


def test_checks_that_never_hear_of_the_override_are_all_the_gms_to_let_through(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(rules, "_loaded", dict(rules._loaded))
    deaf = register(DeafRuleset())
    assert isinstance(deaf, DeafRuleset)
    deaf.sworn.add("hill-giant")
    controller = TableController(demo_under(deaf))
    panel = panel_for(qtbot, controller)
    begin(controller)
    panel.set_kind("strike")
    panel.set_target("hill-giant")
    assert status(panel, "Not sworn to spare it") == FAIL and panel.override_check.isVisible()
    panel.override_check.click()
    assert status(panel, "Not sworn to spare it") == OVERRIDDEN and panel.roll_button.isEnabled()
    action = panel.action()
    assert isinstance(action, Strike) and action.override
    assert panel.roll() is not None, panel.message


def test_the_sneak_attack_override_is_as_it_was(qtbot: QtBot) -> None:
    """L&L: Cedryk in plain sight of the Half-orc; the override box in its old words lets the sneak attack through."""
    controller = TableController(storage.load(demo_encounter_path()))
    panel = panel_for(qtbot, controller)
    assert controller.do(act.EditCombatant("cedryk", {"concealed": False})) is not None
    assert controller.do(act.Move("cedryk", (12, 10), forced=True)) is not None
    begin(controller, "cedryk")
    panel.set_kind("sneak")
    panel.set_target("half-orc")
    box = panel.override_check
    assert box.isVisible() and box.text() == SNEAK_OVERRIDE == "GM override: allow the sneak attack anyway"
    assert box.toolTip() == SNEAK_OVERRIDE_TIP
    assert any(r.status == "head" and r.label.startswith("Sneak attack (") for r in panel.rows)
    assert status(panel, "Concealed, or the target distracted") == FAIL
    assert not panel.roll_button.isEnabled()
    action = panel.action()
    assert isinstance(action, Attack) and not action.override
    box.click()
    assert status(panel, "Concealed, or the target distracted") == OVERRIDDEN
    assert panel.roll_button.isEnabled()
    action = panel.action()
    assert isinstance(action, Attack) and action.override
    # An attack has no override, however the box was left.
    panel.set_kind("attack")
    assert not box.isVisible()
    action = panel.action()
    assert isinstance(action, Attack) and not action.override


# -- many inputs at 1366 x 768 ------------------------------------------------------------------------


@pytest.fixture
def make_window(qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Discard)

    def make(encounter: Encounter) -> MainWindow:
        window = MainWindow(
            encounter,
            None,
            settings=QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat),
            recovery=RecoveryStore(tmp_path / "r"),
        )
        qtbot.addWidget(window)
        window.resize(1366, 768)
        window.show()
        qtbot.waitExposed(window)
        return window

    yield make


def whole_on_screen(widget: QWidget, window: QWidget) -> bool:
    """Every pixel of ``widget`` is shown (not cut by a scroll area or a dock) inside ``window``."""
    if not widget.isVisible() or widget.visibleRegion().boundingRect() != widget.rect():
        return False
    top_left = widget.mapTo(window, QPoint(0, 0))
    return window.rect().contains(QRect(top_left, widget.size()))


def assert_inputs_fit(window: MainWindow, keys: list[str]) -> None:
    panel = window.action_panel
    assert list(panel.extra_editors) == keys
    assert window.height() <= 768 + 20  # the offscreen platform's frame aside
    for key, editor in panel.extra_editors.items():
        assert editor.isVisibleTo(panel), key
        assert editor.toolTip(), key
        if not isinstance(editor, QCheckBox):  # its caption carries the tooltip too
            captions = [w for w in panel.extras_box.findChildren(QWidget) if getattr(w, "buddy", None)]
            assert any(w.buddy() is editor and w.toolTip() == editor.toolTip() for w in captions), key
    # Two to a line: seven inputs take four lines.
    middles = sorted(editor.mapTo(panel, editor.rect().center()).y() for editor in panel.extra_editors.values())
    lines = [y for i, y in enumerate(middles) if i == 0 or y - middles[i - 1] > 4]
    assert len(lines) <= 4, middles
    for button in (panel.roll_button, panel.faces_button):
        assert whole_on_screen(button, window), (button.text(), button.mapTo(window, QPoint(0, 0)), window.size())


def test_seven_inputs_leave_roll_on_screen_at_1366_by_768(make_window: Any, oaths: OathRuleset) -> None:
    window = make_window(demo_under(oaths))
    begin(window.controller)
    panel = window.action_panel
    panel.set_kind("strike")
    panel.set_target("hill-giant")
    window.docks["Action"].raise_()
    QTest.qWait(50)
    assert_inputs_fit(window, [s.key for s in EXTRAS])
    edge = panel.extra_editors["gm_edge"]
    assert isinstance(edge, QComboBox) and edge.itemData(2, Qt.ItemDataRole.ToolTipRole) == "cinematic advantage"
    panel.set_extra("gm_edge", "cinematic advantage")
    panel.set_extra("gm_reason", "the bell tolls")
    panel.roll_button.click()
    assert "with cinematic advantage (the bell tolls)" in log_texts(window.controller)[-1]


# -- the real Group d10 ------------------------------------------------------------------------------


def group_d10() -> Any:
    """Group d10 as the program registers it: a build without it fails here rather than skipping."""
    return get_ruleset("d10")


def test_group_d10_attack_in_the_dock(make_window: Any) -> None:
    d10 = group_d10()
    from lnl_desktop.core.rules.d10 import Declare

    encounter = storage.load(resource("encounters", "bandit-mill-d10.lnl"))
    window = make_window(encounter)
    controller = window.controller
    for c in controller.encounter.combatants:
        declared = "parry" if c.id == "tombril" else "attack"
        assert controller.do(Declare(c.id, declared)) is not None, controller.refusal
    assert controller.do(act.StartCombat("no surprise"), ScriptedDice([10, 2, 1, 3, 4, 5, 6, 7, 8])) is not None, (
        controller.refusal
    )
    assert controller.do(act.BeginTurn("tombril")) is not None, controller.refusal
    panel = window.action_panel
    panel.set_kind("attack")
    window.docks["Action"].raise_()
    QTest.qWait(50)
    spec = next(s for s in d10.actions.kinds() if s.key == "attack")
    assert_inputs_fit(window, [s.key for s in spec.extras])
    # Tombril declared a parry: attacking needs the override, in the ruleset's words.
    assert status(panel, "As declared") == FAIL
    box = panel.override_check
    assert box.isVisible() and box.text() == spec.override_label
    assert not any(r.status == "head" for r in panel.rows)  # no sneak attack points in Group d10
    box.click()
    assert status(panel, "As declared") == OVERRIDDEN
    why = panel.extra_editors["gm_reason"]
    assert isinstance(why, QLineEdit)
    panel.set_extra("gm_edge", "advantage")
    why.setFocus()
    QTest.keyClicks(why, "high ground")
    action = panel.action()
    assert action is not None and action.override and action.gm_reason == "high ground"  # type: ignore[attr-defined]


def test_group_d10_timer_die_takes_its_event_in_words(qtbot: QtBot) -> None:
    d10 = group_d10()
    controller = TableController(storage.load(resource("encounters", "bandit-mill-d10.lnl")))
    timer = next(spec for spec in d10.prompts.tools(controller.engine) if spec.title == "Timer die")
    dialog = ToolDialog(controller, timer)
    qtbot.addWidget(dialog)
    dialog.ask()
    card = dialog.card
    assert card is not None
    event = card.editors["event"]
    assert isinstance(event, QLineEdit) and event.placeholderText() == "e.g. the ceiling collapses"
    event.setFocus()
    QTest.keyClicks(event, "the ceiling collapses")
    assert card.apply_faces(0, [4]) is not None, card.refusal
    assert log_texts(controller)[-1].startswith("Timer d6 4: the ceiling collapses in 4")
