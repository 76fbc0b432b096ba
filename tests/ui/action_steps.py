"""Steps of a fight taken through the window as a GM takes them, shared by the UI tests: combat
started in each demo with known dice, an attack set up in the Action dock and rolled with typed faces."""

from __future__ import annotations

from lnl_desktop.core.dice.rolls import ScriptedDice
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.events import Event
from lnl_desktop.core.rules.d10 import Declare
from lnl_desktop.ui.window.main_window import MainWindow


def attack(window: MainWindow, kind: str, weapon: str, target: str, faces: list[int]) -> list[Event]:
    """Set up an attack in the Action dock and roll it with typed faces; the events it made."""
    panel = window.action_panel
    panel.set_kind(kind)
    panel.set_means(weapon)
    panel.set_target(target)
    assert panel.allowed()[0], panel.allowed()[1]
    assert panel.faces_refusal(faces) is None, panel.faces_refusal(faces)
    events = panel.apply_faces(faces)
    assert events, window.controller.refusal
    return events


def start_lnl(window: MainWindow) -> None:
    assert window.controller.do(act.StartCombat("nobody ambushes", 5)) is not None, window.controller.refusal


def start_classic(window: MainWindow) -> None:
    done = window.controller.do(act.StartCombat("no surprise", None, initiative_face=5))
    assert done is not None, window.controller.refusal


def start_osr(window: MainWindow) -> None:
    # Party d20 15 + 1 = 16, Opponents d20 5 + 1 = 6: the Party first.
    done = window.controller.do(act.StartCombat("nobody surprised"), ScriptedDice([15, 5]))
    assert done is not None, window.controller.refusal


def start_d10(window: MainWindow, parry: tuple[str, ...] = ()) -> None:
    """Everyone declares an attack (those in ``parry`` a parry / dodge); the Party ambushes: d20 12
    against 8, then a d10 per group: Party 9, the captain 4, the Opponents 2."""
    controller = window.controller
    for c in controller.encounter.combatants:
        assert controller.do(Declare(c.id, "parry" if c.id in parry else "attack")) is not None
    done = controller.do(act.StartCombat("Party ambushes"), ScriptedDice([12, 8, 9, 4, 2]))
    assert done is not None, controller.refusal


START = {"lnl": start_lnl, "classic": start_classic, "osr": start_osr, "d10": start_d10}
