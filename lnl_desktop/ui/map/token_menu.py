"""The map's right-click menus with the Select tool: a token's, and the floor's.

A token's menu holds what a GM does to one creature without opening its sheet: its conditions with
how long they last, hiding it from the players or showing it again, Damage / Heal by hand, a light
to carry (or drop, or pick up from where it stands) and taking the token off the map. The floor's
menu (a right-click where no token, drawing or template is) opens or closes the door there, places
a light on the cell, marks or clears a party start cell there and fits the map. Every entry acts
through the map view's ``do`` (one undo step, a line in the round log); an entry that cannot act now
is shown disabled, its tooltip saying why.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMenu, QWidget

from lnl_desktop.core.encounter.actions import Action, CarryLight, PlaceLight, RemoveToken, SetDoor, SetHidden
from lnl_desktop.core.encounter.events import Event
from lnl_desktop.core.encounter.light import LIGHT_RADII, MAX_LIGHTS, LightKind
from lnl_desktop.core.encounter.map_model import Door
from lnl_desktop.core.map.grid import Cell, footprint
from lnl_desktop.ui.map.start_cells import start_cell_entry
from lnl_desktop.ui.plumbing.condition_menu import fill_condition_menu
from lnl_desktop.ui.plumbing.controller import TableController

if TYPE_CHECKING:
    from lnl_desktop.ui.dialogs.damage_heal import DamageHealDialog

CARRIED_KINDS = (LightKind.TORCH, LightKind.LANTERN, LightKind.CANDLE)


class MenuHost(Protocol):
    """What the menus need of the map view."""

    controller: TableController
    hand_dialog: QWidget | None

    def do(self, action: Action) -> list[Event] | None: ...
    def window(self) -> QWidget: ...
    def fit_map(self) -> None: ...


def hand_refusal(controller: TableController, cid: str | None) -> str:
    """Why Damage / Heal cannot open for ``cid`` now ("" when it can)."""
    if cid is None or controller.combatant(cid) is None:
        return "Damage / Heal: select a combatant first (click its token or its row)"
    if not controller.engine.ruleset.health.kinds(False):
        return f"Damage / Heal: {controller.engine.ruleset.title} has no damage or healing by hand"
    return ""


def open_hand(controller: TableController, cid: str | None, parent: QWidget | None) -> DamageHealDialog | None:
    """The Damage / Heal dialog for ``cid``, or None with the reason said (status bar and the plate
    over the map) when it cannot open."""
    from lnl_desktop.ui.dialogs.damage_heal import open_damage_heal

    why = hand_refusal(controller, cid)
    if why:
        controller.message.emit(why)
        controller.refused.emit(why)
        return None
    return open_damage_heal(controller, cid, parent)


def _entry(menu: QMenu, text: str, slot: object, tip: str, why_not: str = "") -> QAction:
    """An entry that does ``slot``; disabled, with ``why_not`` as its tooltip, when it cannot."""
    action = menu.addAction(text)
    action.setEnabled(not why_not)
    action.setToolTip(why_not or tip)
    action.setStatusTip(why_not or tip)
    if not why_not:
        action.triggered.connect(slot)
    return action


def _light_entries(
    menu: QMenu, words: str, place: Callable[[str], object], tip: Callable[[str, int, int], str], why: str
) -> None:
    """One entry a light a token carries or a cell holds (torch, lantern, candle), its radii in the tooltip."""
    for kind in CARRIED_KINDS:
        bright, dim = LIGHT_RADII[kind]
        _entry(
            menu,
            words.format(kind=kind.value),
            lambda _=False, k=kind.value: place(k),
            tip(kind.value, bright, dim),
            why,
        )


def _fill_conditions(menu: QMenu, controller: TableController, cid: str) -> None:
    """The token's conditions with their durations (add, remove), as the Sheet's conditions button has them."""
    conditions = menu.addMenu("&Conditions")
    fill_condition_menu(conditions, controller, cid)


def token_menu(host: MenuHost, cid: str) -> QMenu:
    """The commands on ``cid``'s token (a right-click with the Select tool)."""
    controller = host.controller
    encounter = controller.encounter
    c = controller.combatant(cid)
    token = encounter.tokens.get(cid)
    name = c.name if c is not None else cid
    menu = QMenu(host.window())
    menu.setToolTipsVisible(True)  # a disabled entry says why
    menu.addSection(name.replace("&", "&&"))
    if c is not None:
        _fill_conditions(menu, controller, cid)

    hidden = token is not None and token.hidden
    _entry(
        menu,
        "&Show to the players" if hidden else "&Hide from the players",
        lambda: host.do(SetHidden(cid, not hidden)),
        f"The player view {'shows' if hidden else 'no longer shows'} {name} (Ctrl+H; undoable)",
        "" if token is not None else f"{name} is not on the map",
    )

    def open_damage_heal() -> None:
        host.hand_dialog = open_hand(controller, cid, host.window())

    hand = _entry(
        menu,
        f"Damage / Heal {name}…",
        open_damage_heal,
        "Damage or healing by hand (a trap, a potion), with a reason: one undo step",
        hand_refusal(controller, cid),
    )
    hand.setShortcut(QKeySequence("Ctrl+Shift+D"))

    menu.addSeparator()
    full = f"the map holds at most {MAX_LIGHTS:,} light sources" if len(encounter.lights) >= MAX_LIGHTS else ""
    _light_entries(
        menu,
        "Carry a {kind}",
        lambda kind: host.do(PlaceLight(kind, carrier=cid)),
        lambda kind, bright, dim: f"{name} carries a {kind}: {bright} ft bright light, {dim} ft dim beyond (undoable)",
        full,
    )
    carried = [x for x in encounter.lights if x.carrier == cid]
    for light in carried:
        _entry(
            menu,
            f"Drop the {light.name}" if len(carried) > 1 else "Drop the light",
            lambda _=False, lid=light.id: host.do(CarryLight(lid, None)),
            f"Leave the {light.name} on the cell where {name} stands (undoable)",
            "" if token is not None else f"{name} is not on the map: place the token first",
        )
    if not carried:
        _entry(menu, "Drop the light", lambda: None, "", f"{name} carries no light")
    if token is not None and c is not None:
        cells = set(footprint(token.cell, c.size))
        for light in encounter.lights:
            if light.carrier is None and light.cell is not None and tuple(light.cell) in cells:
                _entry(
                    menu,
                    f"Pick up the {light.kind.value}",
                    lambda _=False, lid=light.id: host.do(CarryLight(lid, cid)),
                    f"{name} takes the {light.name} lying here; it moves with the token (undoable)",
                )

    menu.addSeparator()
    remove = _entry(
        menu,
        "&Remove from the map",
        lambda: host.do(RemoveToken(cid)),
        f"Take {name}'s token off the map; {name} stays in the encounter (undoable)",
        "" if token is not None else f"{name} is not on the map",
    )
    remove.setShortcut(QKeySequence(QKeySequence.StandardKey.Delete))
    return menu


def floor_menu(host: MenuHost, cell: Cell | None, door: Door | None) -> QMenu:
    """The commands on the floor at ``cell`` (a right-click with the Select tool where no token,
    drawing or template is): the door there, a light placed on the cell, the party start cell, the map fitted."""
    controller = host.controller
    encounter = controller.encounter
    menu = QMenu(host.window())
    menu.setToolTipsVisible(True)
    if door is not None:
        _entry(
            menu,
            "&Close the door" if door.open else "&Open the door",
            lambda: host.do(SetDoor(door.a, door.b, not door.open)),
            "The door between the two cells (undoable; a left click does the same)",
        )
        menu.addSeparator()
    on_map = cell is not None and 0 <= cell[0] < encounter.map.width and 0 <= cell[1] < encounter.map.height
    why = "" if on_map else "Right-click on the map to place a light there"
    if on_map and len(encounter.lights) >= MAX_LIGHTS:
        why = f"The map holds at most {MAX_LIGHTS:,} light sources"
    _light_entries(
        menu,
        "Place a {kind} here",
        lambda kind: host.do(PlaceLight(kind, cell=cell)),
        lambda kind, bright, dim: f"A {kind} on this cell: {bright} ft bright light, {dim} ft dim beyond (undoable)",
        why,
    )
    menu.addSeparator()
    start_cell_entry(menu, encounter.map, cell, host.do)
    menu.addSeparator()
    _entry(menu, "&Fit map to window", host.fit_map, "Show the whole map (Ctrl+F)")
    return menu
