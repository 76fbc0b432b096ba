"""View ▸ Share with players' devices…: the players' view served to browsers on the table's network.

The GUI side of :mod:`lnl_desktop.ui.plumbing.share_server`. A players' map of its own
(:class:`PlayerMapView`, never on screen) renders the players' scene at each size the browsers
ask for, when the scene changes, at most every :data:`THROTTLE_MS`, and only while some device
watches. It is built in player mode like the projector's, so a frame holds no more than the
player view may show; a blackout or an error gives a black frame. The pixels are copied out as a
plain array; a worker thread encodes the PNG and hands the bytes to the server's plain-data slot,
so neither the server nor the worker ever touches a Qt object.
"""

from __future__ import annotations

import contextlib
import time
import zlib
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Protocol

import numpy as np
from PySide6.QtCore import QObject, Qt, QTimer
from PySide6.QtGui import QImage

from lnl_desktop.ui.plumbing.share_server import BLACK_PNG, SharedPicture, ShareServer, Size
from lnl_desktop.ui.plumbing.theme import outside_color
from lnl_desktop.ui.plumbing.widgets import ElidedLabel
from lnl_desktop.ui.window.player_view import PlayerMapView, banner_text, roll_banner

if TYPE_CHECKING:
    from PySide6.QtGui import QAction
    from PySide6.QtWidgets import QStatusBar

    from lnl_desktop.ui.dialogs.share import ShareDialog
    from lnl_desktop.ui.plumbing.controller import TableController
    from lnl_desktop.ui.plumbing.theme import Presentation

THROTTLE_MS = 100  # frames at most this often: a burst of changes is one frame
TICK_MS = 30  # how often the server's asks (a new size, a device) are looked at while sharing
DEFAULT_PORT = 8765


def encode_png(pixels: np.ndarray) -> bytes:
    """An RGB picture (height x width x 3, uint8) as PNG bytes: plain data in, plain bytes out
    (run on a worker; zlib lets go of the interpreter lock while it compresses)."""
    height, width, _ = pixels.shape
    flat = pixels.reshape(height, width * 3)
    rows = np.empty((height, width * 3 + 1), dtype=np.uint8)
    rows[:, 0] = 2  # PNG's "up" filter: each row as its difference from the one above (a map's flat areas pack small)
    rows[0, 1:] = flat[0]
    rows[1:, 1:] = flat[1:] - flat[:-1]  # uint8 wraps round, as the filter wants
    header = width.to_bytes(4, "big") + height.to_bytes(4, "big") + bytes((8, 2, 0, 0, 0))

    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = zlib.crc32(kind + data) & 0xFFFFFFFF
        return len(data).to_bytes(4, "big") + kind + data + crc.to_bytes(4, "big")

    body = zlib.compress(rows.tobytes(), 3)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", body) + chunk(b"IEND", b"")


def _encode_all(pictures: dict[Size, np.ndarray | None]) -> dict[Size, bytes]:
    frames: dict[Size, bytes] = {}
    for size, pixels in pictures.items():
        try:
            frames[size] = BLACK_PNG if pixels is None else encode_png(pixels)
        except Exception:  # fail closed: black, never a half-made picture
            frames[size] = BLACK_PNG
    return frames


class MainWindow(Protocol):
    """What the sharing reads of the main window (named here, not imported: the window imports this)."""

    controller: TableController
    presentation: Presentation
    blackout_action: QAction
    share_markers_action: QAction

    def statusBar(self) -> QStatusBar: ...

    def findChild(self, kind: type[QObject], name: str = ...) -> QObject | None: ...


class Sharing(QObject):
    """The sharing of one window: started and stopped by the GM, stopped when the window closes."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window if isinstance(window, QObject) else None)
        self.setObjectName("lnl-sharing")
        self.window = window
        self.controller = window.controller
        self.server: ShareServer | None = None
        self.picture: SharedPicture | None = None
        self.view: PlayerMapView | None = None
        self.dialog: ShareDialog | None = None
        self.dirty = True
        self.last_render = 0.0
        self.frames_rendered = 0
        self._options: tuple[object, ...] = ()
        self._encoder = ThreadPoolExecutor(max_workers=1, thread_name_prefix="lnl-share-png")
        self.timer = QTimer(self)
        self.timer.setInterval(TICK_MS)
        self.timer.timeout.connect(self.tick)
        self.label = ElidedLabel("")
        self.label.setObjectName("sharedWith")
        self.label.setContentsMargins(8, 0, 8, 0)
        self.label.hide()
        window.statusBar().addPermanentWidget(self.label)

    # -- start and stop ----------------------------------------------------------------------------

    @property
    def running(self) -> bool:
        return self.server is not None and self.server.running

    def start(self, host: str, port: int) -> str | None:
        """Serve on ``host``:``port``; None, or the words saying why it could not (nothing changed)."""
        if self.server is not None:
            return "Sharing is on already: stop it first"
        if not 0 <= port <= 65535:
            return f"Port {port} is not a port number (0 to 65535)"
        try:
            server = ShareServer(host, port)
        except OSError as error:
            return f"Could not share on {host}:{port}: {error.strerror or error}"
        self.server, self.picture = server, server.picture
        self.view = self._players_map()
        self.controller.eventsApplied.connect(self._changed)
        self.controller.encounterReplaced.connect(self._changed)
        self.window.blackout_action.toggled.connect(self._changed)
        self.dirty = True
        self.timer.start()
        self._show_count()
        self.window.statusBar().showMessage(f"Sharing the players' view at {server.url}", 10000)
        return None

    def stop(self) -> None:
        """Shut the server, close every connection, let go of the players' map."""
        server = self.server
        if server is None:
            return
        self.server = None
        self.timer.stop()
        server.stop()
        for signal, slot in (
            (self.controller.eventsApplied, self._changed),
            (self.controller.encounterReplaced, self._changed),
            (self.window.blackout_action.toggled, self._changed),
        ):
            with contextlib.suppress(RuntimeError, TypeError):  # never connected, or gone
                signal.disconnect(slot)
        if self.view is not None:
            self.view.close()
            self.view.deleteLater()
            self.view = None
        self.label.hide()
        self.window.statusBar().showMessage("Sharing with players' devices stopped", 10000)

    def shutdown(self) -> None:
        """The window closes: stop, and the encoder's thread goes too."""
        self.stop()
        self._encoder.shutdown(wait=False, cancel_futures=True)

    def _players_map(self) -> PlayerMapView:
        view = PlayerMapView(self.controller, None)
        # Laid out and painted like a shown window, never on any screen.
        view.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen, True)
        view.resize(640, 480)
        view.show()
        return view

    # -- keeping up --------------------------------------------------------------------------------

    def _changed(self, *_: object) -> None:
        self.dirty = True
        self.tick()  # at once when the throttle allows: a move reaches the browsers within 250 ms

    def _option_key(self) -> tuple[object, ...]:
        window = self.window
        p = window.presentation
        return (p.scale, p.theme, p.badly_hurt_below, window.share_markers_action.isChecked())

    def _apply_options(self) -> None:
        key = self._option_key()
        if key == self._options or self.view is None:
            return
        self._options = key
        scene = self.view.map_scene
        p = self.window.presentation
        scene.set_ui_scale(p.scale / 100)
        scene.outside_color = outside_color(p.theme)
        scene.badly_hurt_below = p.badly_hurt_below
        scene.set_share_markers(self.window.share_markers_action.isChecked())
        scene.sync()
        scene.invalidate(scene.sceneRect(), scene.SceneLayer.BackgroundLayer)

    def tick(self) -> None:
        """Count the devices; render what changed (throttled) or a size newly asked for."""
        picture = self.picture
        if picture is None or self.server is None:
            return
        self._show_count()
        if self._option_key() != self._options:
            self.dirty = True
        wanted = picture.wanted()
        if not wanted:
            return  # nobody watches: nothing rendered
        since = (time.monotonic() - self.last_render) * 1000
        if self.dirty and since >= THROTTLE_MS:
            self.dirty = False
            self.last_render = time.monotonic()
            self._hand_over(wanted, new_version=True)
        elif missing := picture.missing():
            self._hand_over(missing, new_version=False)

    def _hand_over(self, sizes: list[Size], new_version: bool) -> None:
        pictures = {size: self.render(size) for size in sizes}
        words = self.banner()
        picture = self.picture
        assert picture is not None

        def work() -> None:
            frames = _encode_all(pictures)
            if new_version:
                picture.publish(frames, words)
            else:
                picture.add_frames(frames)

        self._encoder.submit(work)

    def banner(self) -> str:
        """The players' banner: none while blacked out or paused (as the player view's window)."""
        if self.view is None or self.window.blackout_action.isChecked() or self.view.map_scene.failure is not None:
            return ""
        try:
            return banner_text(self.controller) + roll_banner(self.controller)
        except Exception:
            return ""

    def render(self, size: Size) -> np.ndarray | None:
        """The players' scene at ``size`` as RGB pixels; None (a black frame) on a blackout or any error."""
        view = self.view
        if view is None or self.window.blackout_action.isChecked():
            return None
        try:
            self._apply_options()
            width, height = size
            if (view.width(), view.height()) != size:
                view.resize(width, height)
                view.fit_map()
            view.finish_animations()  # the final cells: a browser gets no slide
            image = view.viewport().grab().toImage().convertToFormat(QImage.Format.Format_RGB888)
            if view.map_scene.failure is not None or image.width() != width or image.height() != height:
                return None
            self.frames_rendered += 1
            line = image.bytesPerLine()
            raw = np.frombuffer(image.constBits(), dtype=np.uint8, count=line * height).reshape(height, line)
            return raw[:, : width * 3].reshape(height, width, 3).copy()  # plain data, the image let go
        except Exception:
            return None

    def _show_count(self) -> None:
        picture = self.picture
        if picture is None:
            return
        count = picture.devices()
        self.label.setText(f"Shared with {count} device{'s' if count != 1 else ''}")
        self.label.setToolTip(self.server.url if self.server is not None else "")
        self.label.show()

    # -- the dialog --------------------------------------------------------------------------------

    def show_dialog(self) -> ShareDialog:
        from lnl_desktop.ui.dialogs.share import ShareDialog

        if self.dialog is None:
            self.dialog = ShareDialog(self.start, self.stop, self.address, DEFAULT_PORT, self.window)
        self.dialog.refresh()
        self.dialog.show()
        self.dialog.raise_()
        return self.dialog

    def address(self) -> tuple[str, int, str] | None:
        """Where the players' page is served and its join code, or None while not sharing."""
        server = self.server
        return (server.host, server.port, server.code) if server is not None else None


def sharing_of(window: MainWindow) -> Sharing:
    """The window's sharing, made when first asked for."""
    found = window.findChild(Sharing, "lnl-sharing")
    return found if isinstance(found, Sharing) else Sharing(window)


def open_share_dialog(window: MainWindow) -> ShareDialog:
    """View ▸ Share with players' devices…"""
    return sharing_of(window).show_dialog()


def stop_sharing(window: MainWindow) -> None:
    """The window closes: the server stops and every connection closes."""
    found = window.findChild(Sharing, "lnl-sharing")
    if isinstance(found, Sharing):
        found.shutdown()
