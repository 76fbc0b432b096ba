"""The players' page in a real headless Chromium on the loopback address, looked at as a person
would: its map matches the player view window's picture of the same scene; a GM move changes the
browser's picture (how soon, against the 250 ms budget: benchmarks/bench_share.py); a wrong join
code shows no map; a hidden token's scene looks exactly like the scene without it. Chromium is
driven through its DevTools pipe (no network port of its own); /usr/bin/chromium is Debian's (CI
installs it; .ci/run).
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import test_share_server as server_tests
from players import open_player_view
from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QImage
from pytestqt.qtbot import QtBot
from qt_pictures import render
from test_share_server import dark_hall, pixels, shared
from waiting import run_until

from lnl_desktop.core.encounter import actions as act
from lnl_desktop.ui.window.main_window import MainWindow

# The window fixtures of the server's tests, shared.
make_window = server_tests.make_window
discard_at_teardown = server_tests.discard_at_teardown
CHROMIUM = Path("/usr/bin/chromium")
pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(), reason="no /usr/bin/chromium (CI installs Debian's chromium; `apt-get install chromium`)"
)
WIDTH, HEIGHT = 900, 600


class Browser:
    """One headless Chromium, one tab, talked to over --remote-debugging-pipe (fd 3 in, fd 4 out)."""

    def __init__(self, profile: Path) -> None:
        to_chrome_r, self._to_chrome = os.pipe()
        self._from_chrome, from_chrome_w = os.pipe()

        def pipes() -> None:  # in the child: the pipe's two ends on fds 3 and 4
            os.dup2(to_chrome_r, 3)
            os.dup2(from_chrome_w, 4)

        self.process = subprocess.Popen(
            [
                str(CHROMIUM),
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
                "--hide-scrollbars",
                f"--user-data-dir={profile}",
                f"--window-size={WIDTH},{HEIGHT}",
                "--force-device-scale-factor=1",
                "--remote-debugging-pipe",
                "about:blank",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            close_fds=False,  # fds 3 and 4 stay open (Python opens everything else close-on-exec)
            preexec_fn=pipes,  # only dup2 in the child, before exec
        )
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self._answers: dict[int, dict[str, Any]] = {}
        self._next = 0
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        self.call("Page.enable", session=True)
        self.call(
            "Emulation.setDeviceMetricsOverride",
            {"width": WIDTH, "height": HEIGHT, "deviceScaleFactor": 1, "mobile": False},
            session=True,
        )

    def _read(self) -> None:
        buffer = b""
        while True:
            chunk = os.read(self._from_chrome, 1 << 16)
            if not chunk:
                return
            buffer += chunk
            while b"\0" in buffer:
                message, buffer = buffer.split(b"\0", 1)
                data = json.loads(message)
                if "id" in data:
                    self._answers[data["id"]] = data

    def call(self, method: str, params: dict[str, Any] | None = None, session: bool = False) -> dict[str, Any]:
        """A DevTools command; the GUI thread's event loop runs meanwhile (the program serves the page)."""
        self._next += 1
        number = self._next
        message: dict[str, Any] = {"id": number, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = self.session
        os.write(self._to_chrome, json.dumps(message).encode() + b"\0")
        run_until(lambda: number in self._answers, 30, f"Chromium's answer to {method}")
        answer = self._answers.pop(number)
        assert "error" not in answer, answer
        return dict(answer["result"])

    def open(self, url: str) -> None:
        self.call("Page.navigate", {"url": url}, session=True)

    def evaluate(self, expression: str) -> Any:
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True}, session=True)
        return result["result"].get("value")

    def wait_for(self, expression: str, timeout_s: float = 10) -> float:
        """Until ``expression`` is true in the page; how long it took, in seconds."""
        start = time.monotonic()
        while not self.evaluate(expression):
            assert time.monotonic() - start < timeout_s, f"the page never had {expression}"
        return time.monotonic() - start

    def screenshot(self) -> QImage:
        data = self.call("Page.captureScreenshot", {"format": "png"}, session=True)["data"]
        image = QImage.fromData(base64.b64decode(data), "PNG")
        assert not image.isNull()
        return image

    def close(self) -> None:
        try:
            os.write(self._to_chrome, json.dumps({"id": 0, "method": "Browser.close"}).encode() + b"\0")
            self.process.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            self.process.kill()
            self.process.wait()
        os.close(self._to_chrome)


@pytest.fixture
def browser() -> Iterator[Browser]:
    with tempfile.TemporaryDirectory(prefix="lnl-chromium-") as profile:
        chrome = Browser(Path(profile))
        try:
            yield chrome
        finally:
            chrome.close()


SHOWN = (
    "(() => { const i = document.getElementById('map');"
    " return i.style.visibility === 'visible' && i.complete && i.naturalWidth > 16; })()"
)
AREA = (
    "(() => { const r = document.getElementById('area').getBoundingClientRect();"
    " return [r.x, r.y, r.width, r.height]; })()"
)


def map_area(browser: Browser) -> QImage:
    """The page's map area in Chromium's screenshot (the banner above it left out)."""
    x, y, w, h = (round(v) for v in browser.evaluate(AREA))
    return browser.screenshot().copy(x, y, w, h)


def page_of(window: MainWindow) -> str:
    sharing = shared(window)
    assert sharing.server is not None
    return sharing.server.url


def test_chromium_shows_the_player_views_picture_and_follows_a_gm_move(
    qtbot: QtBot, make_window: Callable[..., MainWindow], browser: Browser
) -> None:
    window = make_window()
    player = open_player_view(qtbot, window)
    browser.open(page_of(window))
    browser.wait_for(SHOWN)
    seen = map_area(browser)
    # The player window at the same size as the page's map area: the same picture.
    player.resize(seen.width(), seen.height() + player.banner.height())
    run_until(lambda: player.view.viewport().size() == seen.size(), 5, "the player view's size")
    projector = render(player.view).scaled(seen.size(), Qt.AspectRatioMode.IgnoreAspectRatio)
    difference = np.abs(pixels(seen) - pixels(projector)).mean()
    assert difference < 4, f"the browser's map differs from the player view's by {difference:.1f} a pixel"
    assert pixels(seen).std() > 10  # a map, not a black page
    banner = browser.evaluate("document.getElementById('banner').textContent")
    assert banner == player.banner.text()
    # A GM move: the browser's picture changes by itself (no reload).
    src = browser.evaluate("document.getElementById('map').src")
    assert window.controller.do(act.Move("tombril", to=(10, 6), forced=True))
    browser.wait_for(f"document.getElementById('map').src !== {json.dumps(src)} && {SHOWN}", 5)
    assert np.abs(pixels(map_area(browser)) - pixels(seen)).max() > 100


def test_a_wrong_join_code_shows_no_map(make_window: Callable[..., MainWindow], browser: Browser) -> None:
    url = page_of(make_window())
    code = url.rsplit("=", 1)[1]
    browser.open(url.replace(code, f"{(int(code) + 1) % 1_000_000:06d}"))
    browser.wait_for("getComputedStyle(document.getElementById('ask')).display === 'flex'")
    assert not browser.evaluate(SHOWN)
    assert browser.evaluate("document.getElementById('banner').textContent") == ""
    shot = pixels(map_area(browser))
    assert (shot.max(axis=2) < 40).mean() > 0.8  # black but for the code box
    assert "code" in browser.evaluate("document.getElementById('why').textContent")


def test_a_hidden_tokens_scene_looks_exactly_like_the_scene_without_it(
    make_window: Callable[..., MainWindow], browser: Browser
) -> None:
    plain_window, secret_window = make_window(dark_hall(False)), make_window(dark_hall(True))
    for window in (plain_window, secret_window):
        assert window.controller.do(act.PlaceLight("torch", carrier="ana"))
    assert secret_window.controller.do(act.SetHidden("archer"))
    assert secret_window.controller.do(act.PlaceLight("lantern", carrier="archer"))
    pictures = []
    for window in (plain_window, secret_window):
        browser.open(page_of(window))
        browser.wait_for(SHOWN)
        pictures.append(pixels(map_area(browser)))
    assert pictures[0].shape == pictures[1].shape
    assert np.abs(pictures[0] - pictures[1]).max() <= 2
    # Revealed, the archer shows in the browser: the comparison can fail.
    assert secret_window.controller.do(act.SetHidden("archer", hidden=False))
    browser.wait_for(f"document.getElementById('map').src.indexOf('&v=') > 0 && {SHOWN}")
    run_until(lambda: np.abs(pixels(map_area(browser)) - pictures[0]).max() > 100, 5, "the archer in the browser")


def test_screenshot_sizes_are_what_the_page_asked(make_window: Callable[..., MainWindow], browser: Browser) -> None:
    browser.open(page_of(make_window()))
    browser.wait_for(SHOWN)
    _x, _y, w, h = (round(v) for v in browser.evaluate(AREA))
    natural = browser.evaluate(
        "[document.getElementById('map').naturalWidth, document.getElementById('map').naturalHeight]"
    )
    assert QSize(*natural) == QSize(w, h)  # rendered at the browser's size, in device pixels
