"""What the program imports before its first window: only what that window shows.

Every module on the start path costs start-up time (the start within 2x a bare PySide6
window). The app, started as the GM starts it (``python -m lnl_desktop``, offscreen, with the demo
encounter), reports the modules it had imported when its window was shown; a module new to that
list must be added here on purpose, and the panels, dialogs, rulesets and libraries that wait for
first use must stay off it.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QApplication, QComboBox
from waiting import run_until

from lnl_desktop.core.files import storage
from lnl_desktop.paths import demo_encounter_path
from lnl_desktop.ui.window.dock_toggle import in_front
from lnl_desktop.ui.window.main_window import MainWindow
from lnl_desktop.ui.window.recovery import RecoveryStore

# Every lnl_desktop module the first window may import: the rules core the engine needs, the L&L
# ruleset of the demo, the map, and the two docks in front (Turns, Action) with what they use.
START_PATH = {
    "lnl_desktop",
    "lnl_desktop.core",
    "lnl_desktop.core.dice",
    "lnl_desktop.core.encounter",
    "lnl_desktop.core.engine",
    "lnl_desktop.core.files",
    "lnl_desktop.core.map",
    "lnl_desktop.core.rules.registry",
    "lnl_desktop.core.encounter.actions",
    "lnl_desktop.core.rules.bestiary",
    "lnl_desktop.core.dice.rolls",
    "lnl_desktop.core.dice.notation",  # the engine's dice roller action
    "lnl_desktop.core.engine.engine",
    "lnl_desktop.core.engine.dice_rolls",
    "lnl_desktop.core.engine.plan",
    "lnl_desktop.core.engine.edits",
    "lnl_desktop.core.engine.party",  # the party roster's links and notes: in the engine's dispatch table
    "lnl_desktop.core.engine.conditions",  # conditions given and their durations counted: in the dispatch table
    "lnl_desktop.core.encounter.durations",  # a condition's duration in words
    "lnl_desktop.core.engine.drawings",
    "lnl_desktop.core.engine.areas",  # area templates and effects: in the engine's dispatch table
    "lnl_desktop.core.rules.fight",  # the seam's fight odds types (Ruleset's hooks name them)
    "lnl_desktop.core.engine.history",
    "lnl_desktop.core.engine.movement",
    "lnl_desktop.core.engine.occupancy",  # who covers each cell, kept by the engine per change
    "lnl_desktop.core.engine.rounds",  # the round's handlers, split from the engine
    "lnl_desktop.core.engine.words",
    "lnl_desktop.core.errors",
    "lnl_desktop.core.encounter.events",
    "lnl_desktop.core.map.grid",
    "lnl_desktop.core.map.movement",
    "lnl_desktop.core.map.terrain",
    "lnl_desktop.core.files.journal",
    "lnl_desktop.core.encounter.model",
    "lnl_desktop.core.encounter.log_book",  # the round log's storage (the encounter's log field)
    "lnl_desktop.core.encounter.map_model",  # the map, its walls, doors and tokens
    "lnl_desktop.core.encounter.conditions",
    "lnl_desktop.core.encounter.drawings",
    "lnl_desktop.core.encounter.areas",  # Encounter.templates
    "lnl_desktop.core.map.areas",  # which cells a template strikes (the map scene draws placed ones)
    "lnl_desktop.core.rules.lnl.model",
    "lnl_desktop.core.rules.lnl.outcome",  # the demo ruleset's outcomes (the surprise table's reading)
    "lnl_desktop.core.files.pictures",  # the demo's map picture, checked whole before it is shown
    "lnl_desktop.core.rules",
    "lnl_desktop.core.rules.base",
    "lnl_desktop.core.rules.common",
    "lnl_desktop.core.rules.lnl",
    "lnl_desktop.core.rules.specs",  # the seam's plain descriptions
    "lnl_desktop.core.rules.shared",  # the capability pieces rulesets compose
    "lnl_desktop.core.rules.lnl.actions",  # the demo's ruleset, composed of its capabilities
    "lnl_desktop.core.rules.lnl.areas",  # the demo's ruleset: its area effects (RULES §14)
    "lnl_desktop.core.rules.lnl.attacks",
    "lnl_desktop.core.rules.lnl.blows",  # the fight odds' blows (numpy lazily)
    "lnl_desktop.core.rules.lnl.by_hand",
    "lnl_desktop.core.rules.lnl.conditions",
    "lnl_desktop.core.rules.lnl.movement",
    "lnl_desktop.core.rules.lnl.play",
    "lnl_desktop.core.rules.lnl.rest",  # its rest between fights (RULES §16)
    "lnl_desktop.core.rules.lnl.rounds",
    "lnl_desktop.core.rules.lnl.rules",
    "lnl_desktop.core.rules.lnl.sim",  # its fight odds capability (numpy and the forecast lazily)
    "lnl_desktop.core.rules.lnl.views",
    "lnl_desktop.core.map.sight",
    "lnl_desktop.core.map.visibility",  # what a creature sees (light and the fog read it)
    "lnl_desktop.core.map.sight_index",  # what sight keeps per map
    "lnl_desktop.core.map.light",
    "lnl_desktop.core.encounter.light",
    "lnl_desktop.core.engine.lights",
    "lnl_desktop.ui.map.light",
    "lnl_desktop.core.map.explored",
    "lnl_desktop.core.engine.party_view",
    "lnl_desktop.core.files.storage",
    "lnl_desktop.core.files.compiled",  # the demo read from its compiled form
    "lnl_desktop.core.files.long_lists",  # storage's check of long lists, split from it
    "lnl_desktop.core.encounter.validation",
    "lnl_desktop.core.encounter.words",  # names and labels shown with their control characters escaped
    "lnl_desktop.lazy",
    "lnl_desktop.class_code",  # the dataclasses' methods from their kept code
    "lnl_desktop.paths",
    "lnl_desktop.ui",
    "lnl_desktop.ui.dialogs",
    "lnl_desktop.ui.plumbing",
    "lnl_desktop.ui.window",
    "lnl_desktop.ui.window.app",
    "lnl_desktop.ui.dialogs.combat",
    "lnl_desktop.ui.plumbing.commands",
    "lnl_desktop.ui.plumbing.controller",
    "lnl_desktop.ui.docks",
    "lnl_desktop.ui.docks.action_checklist",
    "lnl_desktop.ui.docks.action_choices",
    "lnl_desktop.ui.docks.action_inputs",
    "lnl_desktop.ui.docks.action_result",
    "lnl_desktop.ui.docks.action_taking",
    "lnl_desktop.ui.docks.actions",
    "lnl_desktop.ui.docks.prompt_card",
    "lnl_desktop.ui.docks.prompts",
    "lnl_desktop.ui.docks.declare",
    "lnl_desktop.ui.docks.round_dice",
    "lnl_desktop.ui.docks.round_state",
    "lnl_desktop.ui.docks.turns",
    "lnl_desktop.ui.docks.turns_list",
    "lnl_desktop.ui.docks.turns_rows",
    "lnl_desktop.ui.models",
    "lnl_desktop.ui.models.turns",
    "lnl_desktop.ui.window.dock_toggle",
    "lnl_desktop.ui.window.document",
    "lnl_desktop.ui.dialogs.faces",
    "lnl_desktop.ui.plumbing.focus",
    "lnl_desktop.ui.plumbing.folders",
    "lnl_desktop.ui.window.layout",
    "lnl_desktop.ui.window.main_window",
    "lnl_desktop.ui.window.status_bar",  # the main window's status bar, its message wrapped
    "lnl_desktop.ui.window.session",  # the session's menu entries, enabled or saying why not
    "lnl_desktop.ui.plumbing.party",  # the window's party: the roster reopened with the window
    "lnl_desktop.core.session",
    "lnl_desktop.core.session.roster",
    "lnl_desktop.ui.map",
    "lnl_desktop.ui.map.drag",
    "lnl_desktop.ui.map.drawings",
    "lnl_desktop.ui.map.templates",  # placed area templates in the scene
    "lnl_desktop.ui.map.template_gestures",  # the Template tool, started from the view
    "lnl_desktop.ui.dialogs.area",  # the Action dock's Area effect… button
    "lnl_desktop.ui.plumbing.fight_odds",  # the fight odds' worker (its simulator is imported on the worker)
    "lnl_desktop.ui.plumbing.collector",  # the cycle collector on the GUI thread only
    "lnl_desktop.ui.map.draw_menu",
    "lnl_desktop.ui.map.failsafe",  # the players' paints catch their own errors
    "lnl_desktop.ui.map.fog",
    "lnl_desktop.ui.map.geometry",
    "lnl_desktop.ui.map.gestures",
    "lnl_desktop.ui.map.token_gestures",
    "lnl_desktop.ui.map.edit_gestures",
    "lnl_desktop.ui.map.drawing_gestures",
    "lnl_desktop.ui.map.labels",
    "lnl_desktop.ui.map.markers",
    "lnl_desktop.ui.map.overlays",
    "lnl_desktop.ui.map.ruler",  # the Measure tool's gesture, started from the view
    "lnl_desktop.ui.map.rules_overlays",
    "lnl_desktop.ui.map.scene",
    "lnl_desktop.ui.map.tokens",
    "lnl_desktop.ui.map.token_look",
    "lnl_desktop.ui.map.view",
    "lnl_desktop.ui.map.players_frame",  # the view's frame of the players' screen at real size
    "lnl_desktop.ui.map.view_keys",
    "lnl_desktop.ui.map.drops",
    "lnl_desktop.ui.map.walls",
    "lnl_desktop.ui.map.wall_tiles",
    "lnl_desktop.ui.window.menus",
    "lnl_desktop.ui.window.table_display",  # the Player view options' real size and turn entries
    "lnl_desktop.ui.plumbing.mime",
    "lnl_desktop.ui.plumbing.portraits",
    "lnl_desktop.ui.window.recovery",
    "lnl_desktop.ui.dialogs.setting_editors",
    "lnl_desktop.ui.plumbing.style",
    "lnl_desktop.ui.plumbing.theme",
    "lnl_desktop.ui.plumbing.toast",
    "lnl_desktop.ui.plumbing.widgets",
    "lnl_desktop.ui.plumbing.wheel",  # the wheel scrolls, never edits (an application event filter)
}
# Built or imported on first use, never for the first window.
LATER = {
    "lnl_desktop.core.rules.classic",
    "lnl_desktop.core.rules.osr",
    "lnl_desktop.core.rules.d10",
    "lnl_desktop.core.files.uvtt",
    "lnl_desktop.core.rules.lnl.odds",
    "lnl_desktop.core.sim",
    "lnl_desktop.core.sim.run",
    "lnl_desktop.ui.docks.odds",
    "lnl_desktop.ui.docks.combatants",
    "lnl_desktop.ui.docks.sheet",
    "lnl_desktop.ui.docks.sheet_fields",
    "lnl_desktop.ui.docks.sheet_items",
    "lnl_desktop.ui.docks.log",
    "lnl_desktop.ui.docks.dice",
    "lnl_desktop.ui.docks.forecast",
    "lnl_desktop.ui.docks.bestiary",
    "lnl_desktop.ui.docks.party",
    "lnl_desktop.ui.docks.session",
    "lnl_desktop.ui.dialogs.import_map",
    "lnl_desktop.ui.window.player_view",
    "lnl_desktop.ui.dialogs.table_display",
    "lnl_desktop.ui.dialogs.about",
    "lnl_desktop.ui.dialogs.map_settings",
    "lnl_desktop.ui.dialogs.rulesets",
}


@pytest.fixture(scope="module")
def report() -> dict[str, str]:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", LNL_REPORT_MODULES="1")
    result = subprocess.run(
        [sys.executable, "-m", "lnl_desktop", "--smoke-test"], capture_output=True, text=True, env=env, timeout=120
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return dict(line.split(": ", 1) for line in result.stdout.splitlines() if ": " in line)


def program_output(code: str, env: dict[str, str] | None = None) -> str:
    """What ``python -c code`` printed, offscreen, in a process of its own (asserting it ended well)."""
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen") if env is None else env
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def test_the_first_window_imports_only_the_start_path(report: dict[str, str]) -> None:
    imported = set(report["modules"].split())
    new = imported - START_PATH
    assert new == set(), "new on the start path: add it to START_PATH only if the first window needs it"
    assert imported & LATER == set()
    # What the first window shows does need these: the list is a real list, not an empty one.
    assert {"lnl_desktop.ui.map.view", "lnl_desktop.ui.docks.turns", "lnl_desktop.core.rules.lnl"} <= imported


def test_the_dataclasses_methods_come_from_their_kept_code(report: dict[str, str]) -> None:
    kept, compiled = (int(part.split()[0]) for part in report["class code"].split(", "))
    # A start from source: the rules core's and the window's classes, each method compiled once at most
    # (the first start on a fresh checkout, or a changed class), and from the file after.
    assert kept + compiled > 500


def test_numpy_and_pyqtgraph_wait_for_first_use(report: dict[str, str]) -> None:
    assert report["numpy"] == "no"  # the map's reach, paths and sight load it on the first hover or drag
    assert report["pyqtgraph"] == "no"  # the Forecast tab loads it when first shown


def test_a_lazy_numpy_is_the_real_one_at_first_use() -> None:
    code = (
        "import sys\n"
        "from lnl_desktop.core.map.terrain import Terrain\n"
        "from lnl_desktop.lazy import loaded\n"
        "assert not loaded('numpy')\n"
        "terrain = Terrain.from_rows(['....', '.#..', '....'])\n"
        "assert terrain.wall_grid.sum() == 1\n"
        "import numpy\n"
        "assert loaded('numpy') and numpy.zeros(2).shape == (2,)\n"
        "print('ok')\n"
    )
    assert "ok" in program_output(code)


def test_numpy_is_loaded_once_the_window_is_up(tmp_path) -> None:
    """After the first paint the app loads numpy at an idle moment, so the GM's first drag or hover on
    the map does not wait for it."""
    code = (
        "import sys\n"
        "from PySide6.QtCore import QTimer\n"
        "from PySide6.QtWidgets import QApplication\n"
        "from lnl_desktop.lazy import loaded\n"
        "from lnl_desktop.ui.window import app as lnl_app\n"
        "qt = QApplication(sys.argv[:1])\n"
        "def look():\n"
        "    print('numpy:', 'yes' if loaded('numpy') else 'no', flush=True)\n"
        "    qt.closeAllWindows()\n"
        "    qt.quit()\n"
        "QTimer.singleShot(lnl_app.WARM_UP_MS + 1500, look)\n"
        "sys.exit(lnl_app.run([]))\n"
    )
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", HOME=str(tmp_path), XDG_CONFIG_HOME=str(tmp_path / "config"))
    env["XDG_DATA_HOME"] = str(tmp_path / "data")
    assert "numpy: yes" in program_output(code, env)


def test_the_first_odds_worker_imports_nothing_the_idle_moment_loaded() -> None:
    """The warm-up at the first idle moment loads what the odds' worker needs (the simulator, numpy's
    random generators), so the first worker does not import them while the GM drags."""
    code = (
        "import queue, sys\n"
        "from lnl_desktop.core.files.compiled import load_own\n"
        "from lnl_desktop.paths import demo_encounter_path\n"
        "from lnl_desktop.ui.plumbing import fight_odds\n"
        "encounter = load_own(demo_encounter_path())\n"
        "fight_odds.load_simulator()\n"
        "before = set(sys.modules)\n"
        "results = queue.SimpleQueue()\n"
        "fight_odds.play(fight_odds.OddsJob(fight_odds.snapshot(encounter), 1, (100,), ()), results)\n"
        "print('first:', results.get()[0])\n"
        "new = sorted(m for m in set(sys.modules) - before if m.startswith(('numpy', 'lnl_desktop.core.sim')))\n"
        "print('imported by the worker:', new)\n"
    )
    printed = program_output(code)
    assert "first: done" in printed
    assert "imported by the worker: []" in printed, printed


def test_pyside_reads_no_module_of_the_program_at_start() -> None:
    """PySide6 would read the source of each module imported after it (a tenth of a second of the start,
    for its __feature__ options, which the program never selects): the app's start skips that."""
    code = (
        "import inspect, sys\n"
        "read = []\n"
        "real = inspect.getsource\n"
        "def counted(thing):\n"
        "    read.append(getattr(thing, '__name__', ''))\n"
        "    return real(thing)\n"
        "inspect.getsource = counted\n"
        "from lnl_desktop.ui.window import app\n"
        "code = app.run(['--smoke-test'])\n"
        "ours = [name for name in read if name.startswith('lnl_desktop')]\n"
        "print('read:', len(ours), ours[:5])\n"
        "sys.exit(code)\n"
    )
    printed = program_output(code)
    assert "read: 0 []" in printed, printed


# The docks whose tabs are behind Turns and Action at start: built only when the GM first shows one.
HIDDEN_AT_START = ["Combatants", "Sheet", "Round log", "Dice", "Forecast", "Bestiary", "Party", "History", "Odds"]


def test_a_dock_behind_another_is_built_when_first_shown(laptop_window) -> None:
    window = laptop_window()
    QApplication.processEvents()
    for title in HIDDEN_AT_START:
        assert not in_front(window.docks[title]), title
        assert window.docks[title].widget() is None, f"the {title} dock was built before it was shown"
    # Its View menu entry (and so its shortcut) brings it to the front, built then.
    window.docks["Bestiary"].toggleViewAction().trigger()
    QApplication.processEvents()
    bestiary = window.docks["Bestiary"]
    assert in_front(bestiary) and bestiary.widget() is not None
    assert type(bestiary.widget()).__name__ == "BestiaryPanel"
    assert window.docks["Odds"].widget() is None  # the others still wait
    window.docks["History"].toggleViewAction().trigger()
    QApplication.processEvents()
    assert in_front(window.docks["History"]) and window.docks["History"].widget() is not None


def test_a_layout_restored_with_a_hidden_dock_in_front_builds_it(qtbot, tmp_path) -> None:
    """The last run left the Dice dock in front: the next run's window shows it, built, as it was."""
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    recovery = RecoveryStore(tmp_path / "recovery")
    first = MainWindow(storage.load(demo_encounter_path()), settings=settings, recovery=recovery)
    qtbot.addWidget(first)
    with qtbot.waitExposed(first):
        first.show()
    first.docks["Dice"].toggleViewAction().trigger()
    QApplication.processEvents()
    assert in_front(first.docks["Dice"])
    first._save_layout()
    first.hide()

    again = MainWindow(storage.load(demo_encounter_path()), settings=settings, recovery=recovery)
    qtbot.addWidget(again)
    with qtbot.waitExposed(again):
        again.show()
    QApplication.processEvents()
    dice = again.docks["Dice"]
    assert in_front(dice) and dice.widget() is not None and type(dice.widget()).__name__ == "DicePanel"
    assert again.docks["Odds"].widget() is None  # still behind: still not built


def test_the_application_wide_filters_come_just_after_the_first_paint(qtbot, tmp_path) -> None:
    """Before its first paint the window has no application-wide filter (each event of Qt's own objects
    would cross into Python); right after it, the focus keeper and the wheel guard are there, and the
    Action dock's combo boxes, made before the guard, take the wheel only once clicked."""
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    window = MainWindow(storage.load(demo_encounter_path()), settings=settings, recovery=RecoveryStore(tmp_path))
    qtbot.addWidget(window)
    QApplication.processEvents()
    assert window.focus_keeper is None  # not painted yet: nothing watches the application
    window.show()
    run_until(lambda: window.focus_keeper is not None, what="the focus keeper after the first paint")
    combos = window.action_panel.findChildren(QComboBox)
    assert combos
    assert all(combo.focusPolicy() == Qt.FocusPolicy.StrongFocus for combo in combos)


def test_a_picture_decoded_ahead_is_the_one_the_map_shows(qtbot, tmp_path) -> None:
    """The demo's picture, decoded on a worker while the window is built, is decoded once and shown."""
    from lnl_desktop.ui.map import scene

    encounter = storage.load(demo_encounter_path())
    assert encounter.map.background is not None and encounter.map.background.data is not None
    scene.decode_picture.cache_clear()
    scene.decode_ahead(encounter.map.background.data)
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    window = MainWindow(encounter, settings=settings, recovery=RecoveryStore(tmp_path))
    qtbot.addWidget(window)
    assert window.map_view.map_scene.has_background_picture
    assert scene.decode_picture.cache_info().misses == 1  # once, on the worker; the scene took it from there
    assert not scene._AHEAD  # taken: nothing left waiting
