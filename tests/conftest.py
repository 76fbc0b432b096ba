"""Shared test set-up: Qt runs offscreen, so the suite needs no display; a hung test never takes the
run's whole time; the slow tests are marked ``slow`` from one list here (SLOW).

A test that runs past ``timeout`` (pytest-timeout, pyproject.toml) fails with the stacks of every
thread and the run goes on. A deadlock the interpreter cannot break into (the GUI thread waiting on
a Qt lock while it holds the interpreter lock) is caught by faulthandler's watchdog, a C thread
that needs no interpreter lock: it prints every thread's stack and ends the run a little later.
"""

from __future__ import annotations

import faulthandler
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

WATCHDOG_MARGIN_S = 30  # after pytest-timeout's own limit: the stacks and the end of the run


def _stderr(config: pytest.Config) -> int:
    """The terminal's stderr: pytest captures file descriptor 2 while a test runs, and its faulthandler
    plugin keeps a copy of the real one."""
    try:
        from _pytest.faulthandler import fault_handler_stderr_fd_key

        return config.stash[fault_handler_stderr_fd_key]
    except (ImportError, KeyError):
        return sys.__stderr__.fileno()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """Armed for the whole of each test: its set-up, its call and its teardown (where widgets close)."""
    marker = item.get_closest_marker("timeout")
    limit = float(marker.args[0]) if marker and marker.args else float(item.config.getini("timeout") or 60)
    faulthandler.dump_traceback_later(limit + WATCHDOG_MARGIN_S, exit=True, file=_stderr(item.config))
    try:
        yield
    finally:
        faulthandler.cancel_dump_traceback_later()


# -- the slow tests ----------------------------------------------------------------------------------

# What `python3 dev.py quick` leaves out (`-m "not slow"`); `python3 dev.py test` and CI run it all the
# same. Chosen by measurement (`pytest --durations=120`, serial, on this 2-core machine while shared and
# loaded: about twice an idle machine's times): a file under tests/, its slow tests ("*": all of them,
# else each test with every parameter of it), why they take long and the seconds measured.
EVERY_TEST = "*"
SLOW: dict[str, dict[str, str]] = {
    # Thousands of fights played through the real engine beside the fast simulator.
    "core/test_fight_odds_osr.py": {EVERY_TEST: "the fast odds against the engine, fight by fight (290 s)"},
    "core/test_fight_odds_d10.py": {EVERY_TEST: "the fast odds against the engine, fight by fight (130 s)"},
    "core/test_fight_odds_durations.py": {EVERY_TEST: "a stun's durations against the engine, fight by fight (95 s)"},
    "core/test_fight_odds_lnl.py": {EVERY_TEST: "the fast odds against the engine, fight by fight"},
    "core/test_fight_whatif.py": {EVERY_TEST: "each plan's odds against the engine, fight by fight (63 s)"},
    "core/test_log_book.py": {
        "test_a_thousand_round_fights_log_is_every_event_as_made_and_the_same_file": "1,000 rounds played (9 s)",
    },
    "core/test_osr_invulnerability.py": {
        "test_the_fight_odds_never_see_plain_weapons_harm_the_wight_and_pick_the_silver_dagger": "fights (5 s)",
    },
    # Big inputs on purpose.
    "core/test_fuzz_files.py": {EVERY_TEST: "thousands of damaged files read one by one (113 s)"},
    "core/test_uvtt_scale.py": {EVERY_TEST: "maps of 100,000 segments and more read against the reference (74 s)"},
    # Other processes started, killed or installed into.
    "ui/test_recovery_start.py": {EVERY_TEST: "the program started in a child process, once a test (63 s)"},
    "ui/test_recovery.py": {EVERY_TEST: "children started and killed, windows waiting for the recovery copy (45 s)"},
    "test_installable.py": {
        "test_the_wheel_installed_outside_the_checkout_runs_the_demo_and_the_self_check_offline": (
            "the wheel built, installed in a new venv and run (31 s)"
        ),
    },
    "core/test_plugin_ruleset.py": {EVERY_TEST: "pip installs the example ruleset; tests play in a child (21 s)"},
    "core/test_saving.py": {
        "test_a_kill_during_saves_leaves_a_whole_file_and_the_next_save_cleans_up": "children killed (15 s)",
    },
    "core/test_fight_framework.py": {
        "test_the_command_line_refuses_a_negative_seed_and_hostile_numbers_in_its_own_words": "a child a case (5 s)",
        "test_many_fights_of_forty_combatants_take_the_memory_of_one_batch": "many fights of forty (5 s)",
    },
    # Hypothesis: many random games played and replayed.
    "core/test_ruleset_properties.py": {"test_random_encounters_save_load_and_undo_exactly": "random games (35 s)"},
    "core/test_journal_chain.py": {
        "test_random_play_across_automatic_copies_comes_back_with_its_whole_undo_history": "random games (10 s)",
    },
    "core/test_journal.py": {"test_random_play_with_undo_redo_and_snapshots_replays_exactly": "random games (9 s)"},
    "core/test_properties.py": {"test_undo_after_random_actions_restores_the_state_exactly": "random games (7 s)"},
    # Whole windows played through many steps.
    "ui/test_side_column.py": {
        "test_every_line_of_a_12_combatant_turn_order_is_in_view_in_every_phase": "each phase at three sizes (18 s)",
    },
    "ui/test_fight_to_the_end.py": {"test_a_whole_fight_runs_to_the_end_from_the_docks": "whole fights (12 s)"},
    "ui/test_action_results.py": {"test_the_next_rounds_initiative_names_the_d10s": "rounds played (7 s)"},
    "ui/test_fight_odds_view.py": {EVERY_TEST: "10,000 fights worked out on a worker; each test waits (11 s)"},
    "ui/test_start_path.py": {
        "test_numpy_is_loaded_once_the_window_is_up": "a child waits out the warm-up; late under load (3 s)",
    },
    "ui/test_views_follow_actions.py": {
        "test_the_turns_dock_kept_up_change_by_change_shows_what_a_fresh_one_shows": "a fresh dock each change (8 s)",
    },
    "ui/test_workers_and_collector.py": {
        "test_windows_and_dialogs_come_and_go_while_the_odds_are_worked_out": "windows opened while odds run (11 s)",
    },
}

TESTS = Path(__file__).resolve().parent


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Marks the tests SLOW names ``slow``; a file or test it names that is gone stops the run, so the list
    keeps up with renames."""
    gone = [name for name in SLOW if not (TESTS / name).is_file()]
    gone += [
        f"{name}::{test}"
        for name, tests in SLOW.items()
        if name not in gone
        for test in tests
        if test != EVERY_TEST and f"def {test}(" not in (TESTS / name).read_text(encoding="utf-8")
    ]
    if gone:
        raise pytest.UsageError(f"tests/conftest.py's SLOW names tests that are gone: {', '.join(gone)}")
    for item in items:
        slow = SLOW.get(item.path.relative_to(TESTS).as_posix()) if item.path.is_relative_to(TESTS) else None
        if not slow:
            continue
        reason = slow.get(EVERY_TEST) or slow.get(getattr(item, "originalname", item.name))
        if reason:
            item.add_marker(pytest.mark.slow(reason=reason))
