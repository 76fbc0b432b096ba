"""The map and the docks follow an action by updating what it touched, and end up as if built afresh.

After a sequence of moves, hits, renames, hides and shows, tokens placed and taken off, combatants
added and removed, turns, selections, undos and redos, and fog of war (what the Party sees coming
and going as its token moves and turns), the GM's and the players' scenes kept up one
change at a time show exactly what scenes built from scratch show: the same tokens, looks (labels
included) and occupied cells. An action on one token builds one look and repaints one token per
scene; the Turns dock builds one row again for a hit and none for a move outside a turn; the
Combatants table repaints one row; an undo takes rows off the Round log instead of resetting it.
Counted calls, no clocks.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from pytestqt.qtbot import QtBot

from lnl_desktop.core import Combatant, Encounter, MapGrid, Side, Token, Weapon
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.ui.docks.log import RoundLog
from lnl_desktop.ui.docks.turns import TurnsPanel
from lnl_desktop.ui.map import scene as scene_module
from lnl_desktop.ui.map.scene import MapScene
from lnl_desktop.ui.map.tokens import TokenItem
from lnl_desktop.ui.models.combatants import CombatantsModel
from lnl_desktop.ui.plumbing.controller import TableController

GOBLINS = 40
GHOST = {"name": "Ghost", "side": "Opponents", "level": 1, "stamina_max": 5, "injury_max": 3}


def crowd() -> Encounter:
    """Ana and Orc face to face, and a crowd of goblins (some of one kind, so their labels are numbered)."""
    combatants = [
        Combatant(
            name="Ana", side=Side.PARTY, level=3, stamina_max=20, injury_max=9, weapons=[Weapon(name="Sword", die="d8")]
        ),
        Combatant(
            name="Orc",
            side=Side.OPPONENTS,
            level=2,
            stamina_max=10,
            injury_max=6,
            weapons=[Weapon(name="Axe", die="d6")],
        ),
    ]
    tokens = {"ana": Token(cell=(5, 5), facing=90), "orc": Token(cell=(6, 5), facing=270)}
    for n in range(GOBLINS):
        cid = f"g{n}"
        combatants.append(
            Combatant(id=cid, name=f"Goblin {n + 1}", side=Side.OPPONENTS, level=1, stamina_max=4, injury_max=3)
        )
        tokens[cid] = Token(cell=(2 * (n % 15), 10 + 2 * (n // 15)))
    return Encounter(map=MapGrid(width=40, height=40), combatants=combatants, tokens=tokens)


@pytest.fixture
def controller(qtbot: QtBot) -> TableController:
    return TableController(crowd())


def shown(scene: MapScene) -> dict[str, Any]:
    """What a scene shows of the tokens: each look and where it stands, and the occupied cells."""
    return {
        "looks": {cid: item.look for cid, item in scene.tokens.items()},
        "positions": {cid: (item.pos().x(), item.pos().y()) for cid, item in scene.tokens.items()},
        "occupant": dict(scene.occupant),
    }


def assert_like_fresh(controller: TableController, scenes: list[MapScene]) -> None:
    for scene in scenes:
        fresh = MapScene(controller, player=scene.player)
        assert shown(scene) == shown(fresh), "player" if scene.player else "GM"
        fresh.deleteLater()


def steps(controller: TableController) -> Iterator[str]:
    """A session's worth of changes, one at a time (named, for the failure message)."""

    def do(action: act.Action) -> None:
        assert controller.do(action) is not None, controller.refusal

    do(act.Move("g3", (30, 30), forced=True))
    yield "move"
    do(act.EditCombatant("g4", {"stamina": 1}))
    yield "hit"
    do(act.EditCombatant("g5", {"name": "Hobgoblin"}))
    yield "rename (labels)"
    do(act.EditCombatant("g6", {"name": "Goblin"}))
    yield "rename into the numbered kind"
    do(act.SetHidden("g7", True))
    yield "hide"
    controller.select("g7")
    yield "select the hidden one"
    do(act.SetHidden("g7", False))
    yield "show"
    do(act.RemoveToken("g8"))
    yield "take a token off"
    do(act.PlaceToken("g8", (33, 33), 90))
    yield "place it again"
    do(act.AddCombatant(dict(GHOST), (35, 2)))
    yield "add on the map"
    do(act.AddCombatant(dict(GHOST), (36, 2)))
    yield "add a second of a kind (the first renamed)"
    do(act.RemoveCombatant("g9"))
    yield "remove"
    controller.undo_stack.undo()
    yield "undo the remove"
    controller.undo_stack.undo()
    yield "undo the second ghost"
    controller.undo_stack.redo()
    yield "redo it"
    controller.select("orc")
    yield "select"
    do(act.StartCombat("nobody ambushes", 4))
    yield "start combat"
    who = controller.engine.waiting()[0].id
    do(act.BeginTurn(who))
    yield "begin a turn (the ring)"
    do(act.EditCombatant(who, {"name": "Zed"}))
    yield "rename the one whose turn it is (the other rows name it)"
    do(act.EditCombatant("g12", {"stamina": 0, "injury": 0}))
    yield "a goblin goes down"
    do(act.EndTurn())
    yield "end it"
    controller.undo_stack.undo()
    yield "undo the end of the turn"
    for _ in range(4):
        controller.undo_stack.undo()
    yield "undo four"
    for _ in range(3):
        controller.undo_stack.redo()
    yield "redo three"
    controller.select(None)
    yield "select nobody"
    do(act.SetFog(True))
    yield "fog of war on: the players see what the Party sees"
    do(act.Move("ana", (21, 13), forced=True))
    yield "the Party's token moves: goblins come into its sight and others leave it"
    do(act.Face("ana", 0))
    yield "it turns away"


def test_scenes_kept_up_change_by_change_show_what_fresh_scenes_show(controller: TableController) -> None:
    scenes = [MapScene(controller), MapScene(controller, player=True)]
    for name in steps(controller):
        for scene in scenes:
            fresh = MapScene(controller, player=scene.player)
            assert shown(scene) == shown(fresh), f"{name}: {'player' if scene.player else 'GM'}"
            fresh.deleteLater()


def rows_shown(panel: TurnsPanel) -> list[tuple[object, ...]]:
    """Every row of the Turns list as shown: its texts, tooltips, fonts and colours, column by column."""
    tree = panel.tree
    rows = []
    items = [tree.topLevelItem(i) for i in range(tree.topLevelItemCount())]
    while items:
        item = items.pop(0)
        rows.append(
            tuple(
                (
                    item.text(c),
                    item.toolTip(c),
                    item.font(c).key(),
                    item.foreground(c).color().name(),
                    item.background(c).color().name(),
                    item.background(c).style(),
                )
                for c in range(tree.columnCount())
            )
        )
        items[:0] = [item.child(j) for j in range(item.childCount())]
    return rows


def test_the_turns_dock_kept_up_change_by_change_shows_what_a_fresh_one_shows(
    qtbot: QtBot, controller: TableController
) -> None:
    panel = TurnsPanel(controller)
    qtbot.addWidget(panel)
    for name in steps(controller):
        fresh = TurnsPanel(controller)
        qtbot.addWidget(fresh)
        assert rows_shown(panel) == rows_shown(fresh), name
        fresh.deleteLater()


class Counted:
    """Counts the calls of a method while the test runs."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, owner: Any, name: str) -> None:
        self.calls = 0
        original = getattr(owner, name)

        def counting(*args: Any, **kwargs: Any) -> Any:
            self.calls += 1
            return original(*args, **kwargs)

        monkeypatch.setattr(owner, name, counting)


def test_an_action_on_one_token_builds_and_repaints_that_token_only(
    controller: TableController, monkeypatch: pytest.MonkeyPatch
) -> None:
    scenes = [MapScene(controller), MapScene(controller, player=True)]
    set_look = Counted(monkeypatch, TokenItem, "set_look")
    looks = Counted(monkeypatch, scene_module.TokenLook, "of")
    controller.do(act.Move("g3", (30, 30), forced=True))
    assert (set_look.calls, looks.calls) == (2, 2)  # one token, in each scene
    controller.do(act.EditCombatant("g4", {"stamina": 1}))
    assert (set_look.calls, looks.calls) == (4, 4)
    controller.undo_stack.undo()
    assert (set_look.calls, looks.calls) == (6, 6)
    controller.select("g10")  # the GM's scene only: the selection marks
    assert set_look.calls == 7
    controller.select("g11")  # off one, onto the other
    assert set_look.calls == 9
    assert_like_fresh(controller, scenes)


def test_a_rename_works_the_labels_out_again_and_relabels_only_what_changed(
    controller: TableController, monkeypatch: pytest.MonkeyPatch
) -> None:
    scene = MapScene(controller)
    labels = Counted(monkeypatch, scene_module, "assign_labels")
    looks = Counted(monkeypatch, scene_module.TokenLook, "of")
    controller.do(act.Move("g3", (30, 30), forced=True))
    assert labels.calls == 0  # no name changed
    controller.do(act.EditCombatant("orc", {"name": "Ogre"}))
    assert labels.calls == 1
    assert looks.calls == 2  # the move, then the renamed one: no other label changed
    assert scene.tokens["orc"].look.label == "Og"
    assert_like_fresh(controller, [scene])


def test_the_turns_dock_builds_again_only_the_rows_that_changed(
    qtbot: QtBot, controller: TableController, monkeypatch: pytest.MonkeyPatch
) -> None:
    panel = TurnsPanel(controller)
    qtbot.addWidget(panel)
    controller.do(act.StartCombat("nobody ambushes", 4))
    rows = Counted(monkeypatch, TurnsPanel, "_add_row")
    contents = Counted(monkeypatch, TurnsPanel, "_row_content")
    controller.do(act.Move("g3", (30, 30), forced=True))
    assert (rows.calls, contents.calls) == (0, 0)  # a forced move changes no row
    controller.do(act.EditCombatant("g4", {"stamina": 1}))
    assert (rows.calls, contents.calls) == (1, 1)  # the other rows read nothing that changed
    item = panel.item_for("g4")
    assert item is not None and item.text(2) == "1/4"
    controller.select("g4")
    controller.do(act.EditCombatant("g4", {"stamina": 2}))
    assert rows.calls == 2
    assert panel.selected_id() == "g4"  # the row built again is still the selected one
    # The state and whether a turn may begin, as the dock says them, for a combatant it looks up by id.
    assert panel.state_of("ana") == "waiting" and panel.state_of("nobody") == ""
    assert panel.may_begin("nobody") == (False, "nobody is picked")


def test_the_combatants_table_repaints_the_row_of_the_one_hit(
    controller: TableController, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = CombatantsModel(controller)
    painted: list[tuple[int, int]] = []
    model.dataChanged.connect(lambda first, last, *_: painted.append((first.row(), last.row())))
    keys = Counted(monkeypatch, CombatantsModel, "_row_key")
    controller.do(act.EditCombatant("g4", {"stamina": 1}))
    assert painted == [(6, 6)]
    assert keys.calls == 1
    assert model.data(model.index(6, model.COLUMNS.index("SP"))) == "1 / 4"
    assert model.row_of("g4") == 6
    controller.do(act.AddCombatant(dict(GHOST)))
    assert model.rowCount() == GOBLINS + 3 and model.row_of("ghost") == GOBLINS + 2


def test_an_undo_takes_its_rows_off_the_round_log_without_a_reset(qtbot: QtBot, controller: TableController) -> None:
    log = RoundLog(controller)
    qtbot.addWidget(log)
    resets: list[int] = []
    removed: list[tuple[int, int]] = []
    log.model.modelReset.connect(lambda: resets.append(1))
    log.model.rowsRemoved.connect(lambda _parent, first, last: removed.append((first, last)))
    controller.do(act.StartCombat("nobody ambushes", 4))
    controller.do(act.EditCombatant("g4", {"stamina": 1}))
    rows = log.model.rowCount()
    controller.undo_stack.undo()
    assert not resets
    assert removed == [(rows - 1, rows - 1)]  # the edit's line went; the undo's line came
    assert log.model.rowCount() == rows
    assert log.model.log_event(rows - 1).kind == "undone"
    assert log.combatant_filter.findData("g4") >= 0
    controller.undo_stack.undo()  # the start of the combat
    assert not resets
    # The filters offer what a Round log reading the whole log offers.
    fresh = RoundLog(controller)
    qtbot.addWidget(fresh)
    for combo, again in ((log.round_filter, fresh.round_filter), (log.combatant_filter, fresh.combatant_filter)):
        assert [(combo.itemText(i), combo.itemData(i)) for i in range(combo.count())] == [
            (again.itemText(i), again.itemData(i)) for i in range(again.count())
        ]
