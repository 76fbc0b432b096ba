"""The app starts on the demo encounter, offscreen, and renders: what CI and the bundle rely on."""

import os
import subprocess
import sys

from lnl_desktop.ui.dialogs.about import about_text


def test_smoke_test_flag_starts_renders_and_exits_zero() -> None:
    env = dict(os.environ, LNL_REPORT_MODULES="1")
    result = subprocess.run(
        [sys.executable, "-m", "lnl_desktop", "--smoke-test"], capture_output=True, text=True, timeout=120, env=env
    )
    assert result.returncode == 0, result.stderr
    assert "smoke test: ok" in result.stdout
    assert "7 combatants" in result.stdout
    # The charts library stays off the start path (start-up budget).
    assert "pyqtgraph: no" in result.stdout


def test_a_file_that_is_not_an_encounter_is_refused_with_its_reason(tmp_path) -> None:
    bad = tmp_path / "bad.lnl"
    bad.write_text("not json")
    result = subprocess.run(
        [sys.executable, "-m", "lnl_desktop", "--smoke-test", str(bad)], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 2
    assert "not valid JSON" in result.stderr


def test_about_credits_the_rules() -> None:
    text = about_text()
    assert "Bob O'Brien" in text and "CC BY 4.0" in text and "Knave 2.0" in text and "Ben Milton" in text
