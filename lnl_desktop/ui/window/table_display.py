"""The player view on a table display: the grid at real size for miniatures, calibrated per screen,
and the players' picture turned to them.

The calibration (pixels per millimetre) is kept per screen, by its name and resolution, in the
window's QSettings; its first guess is Qt's physical DPI of that screen. At real size the player
view's zoom is the cell's size in mm times the pixels per mm over CELL_PX; it no longer fits the map
nor follows the GM, and a frame on the GM's map (ui.map.players_frame) shows and moves what it shows.
The turn (0, 90, 180, 270 degrees) is kept in QSettings too. None of this is an encounter change:
view settings, like a zoom, with no undo step (each change said in the status bar).
"""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QObject, QPointF, QSettings
from PySide6.QtGui import QAction, QActionGroup, QGuiApplication, QScreen
from PySide6.QtWidgets import QMenu, QStatusBar, QWidget

from lnl_desktop.ui.map.players_frame import PlayersFrame
from lnl_desktop.ui.plumbing import style

if TYPE_CHECKING:
    from lnl_desktop.ui.dialogs.table_display import TableDisplayDialog
    from lnl_desktop.ui.map.view import MapView
    from lnl_desktop.ui.window.player_view import PlayerView

CELL_MM_KEY = "table_display/cell_mm"
REAL_SIZE_KEY = "table_display/real_size"
ROTATION_KEY = "player_view/rotation"
CALIBRATION_GROUP = "table_display/px_per_mm"
ROTATIONS = (0, 90, 180, 270)
DEFAULT_CELL_MM = 25.4  # one inch: the miniatures' usual base
FALLBACK_DPI = 96.0  # a screen that reports no physical size
PX_PER_MM_RANGE = (0.5, 60.0)  # 13 to 1500 dots per inch: anything else is a mis-measure


def screen_key(screen: QScreen) -> str:
    """The calibration's QSettings key for ``screen``: its name and resolution (a new monitor on
    the same plug, or the same one at another resolution, is calibrated afresh)."""
    size = screen.geometry().size()
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", screen.name() or "screen").strip("_") or "screen"
    return f"{CALIBRATION_GROUP}/{name}_{size.width()}x{size.height()}"


def screen_words(screen: QScreen) -> str:
    size = screen.geometry().size()
    return f"{screen.name() or 'unnamed screen'}, {size.width()} × {size.height()}"


def first_guess(screen: QScreen) -> float:
    """Pixels per mm as the screen reports itself (often near, rarely exact)."""
    dpi = screen.physicalDotsPerInch()
    if not math.isfinite(dpi) or dpi <= 0:
        dpi = FALLBACK_DPI
    return dpi / 25.4


def saved_px_per_mm(settings: QSettings, screen: QScreen) -> float:
    """The calibration kept for ``screen``, or the first guess."""
    try:
        value = float(str(settings.value(screen_key(screen), "")))
    except ValueError:
        return first_guess(screen)
    low, high = PX_PER_MM_RANGE
    return value if math.isfinite(value) and low <= value <= high else first_guess(screen)


def corrected_px_per_mm(old: float, stated_mm: float, measured_mm: float) -> float:
    """The calibration after the bar drawn ``stated_mm`` long measured ``measured_mm``; ValueError
    (why) for a measure no screen gives: the calibration then stays as it was."""
    if measured_mm <= 0 or stated_mm <= 0:
        raise ValueError("A length must be more than 0")
    ratio = stated_mm / measured_mm
    if not 0.2 <= ratio <= 5:
        raise ValueError(
            f"A bar drawn {stated_mm:g} mm long cannot measure {measured_mm:g} mm: measure it again"
            " (between a fifth and five times the stated length)"
        )
    new = old * ratio
    low, high = PX_PER_MM_RANGE
    if not low <= new <= high:
        raise ValueError(f"That makes {new:.3g} pixels per mm, which no screen has: measure it again")
    return new


def real_scale(cell_mm: float, px_per_mm: float) -> float:
    """The player view's zoom at which one cell (CELL_PX scene units) is ``cell_mm`` on the screen."""
    return cell_mm * px_per_mm / style.CELL_PX


def bar_mm_for(px_per_mm: float, room_px: int) -> float:
    """The longest round bar that fits ``room_px`` with a margin: 100 mm, else 50, 20 or 10."""
    for mm in (100.0, 50.0, 20.0):
        if mm * px_per_mm <= 0.8 * room_px:
            return mm
    return 10.0


class TableWindow(Protocol):
    """What the table display needs of the main window."""

    settings: QSettings
    player_view: PlayerView | None
    map_view: MapView
    follow_gm_action: QAction

    def ensure_player_view(self) -> PlayerView: ...
    def show_player_view(self, on: bool = True) -> None: ...
    def statusBar(self) -> QStatusBar: ...


class TableDisplay(QObject):
    """Real size, its calibration and the turn of the players' view: the menu's actions and what
    they do to the player view and the GM's map."""

    def __init__(self, window: TableWindow, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.window = window
        self.settings = window.settings
        self.attached: PlayerView | None = None
        self.dialog: TableDisplayDialog | None = None
        self.bar_mm = 100.0
        self.frame = PlayersFrame()
        self.frame.hide()
        self.frame.dragged.connect(self._frame_dragged)
        window.map_view.map_scene.addItem(self.frame)
        window.map_view.players_frame = self.frame
        self.dialog_action = QAction("&Table display…", self)
        self.dialog_action.setStatusTip("A grid cell's real size on the players' screen, and that screen's calibration")
        self.dialog_action.triggered.connect(self.open_dialog)
        self.real_size_action = QAction("&Real size (miniatures on the screen)", self)
        self.real_size_action.setCheckable(True)
        self.real_size_action.setStatusTip(
            "Each cell at its real size on the players' screen; a frame on your map shows and moves what they see"
        )
        self.real_size_action.setChecked(str(self.settings.value(REAL_SIZE_KEY, "false")).lower() == "true")
        self.real_size_action.toggled.connect(self.set_real_size)
        window.follow_gm_action.toggled.connect(self._follow_toggled)
        self.rotation_group = QActionGroup(self)
        saved = self.rotation()
        for degrees in ROTATIONS:
            action = QAction(f"{degrees}°", self)
            action.setCheckable(True)
            action.setChecked(degrees == saved)
            action.setData(degrees)
            action.setStatusTip(f"Turn the players' whole picture by {degrees}° (a screen lying between the players)")
            action.triggered.connect(lambda _=False, d=degrees: self.set_rotation(d))
            self.rotation_group.addAction(action)

    # -- settings --------------------------------------------------------------------------------

    def cell_mm(self) -> float:
        try:
            value = float(str(self.settings.value(CELL_MM_KEY, DEFAULT_CELL_MM)))
        except ValueError:
            return DEFAULT_CELL_MM
        return value if math.isfinite(value) and 5 <= value <= 100 else DEFAULT_CELL_MM

    def rotation(self) -> int:
        try:
            value = int(str(self.settings.value(ROTATION_KEY, 0)))
        except ValueError:
            return 0
        return value if value in ROTATIONS else 0

    def screen(self) -> QScreen | None:
        view = self.attached
        screen = view.screen() if view is not None else None
        return screen or QGuiApplication.primaryScreen()

    def px_per_mm(self) -> float:
        screen = self.screen()
        return saved_px_per_mm(self.settings, screen) if screen is not None else FALLBACK_DPI / 25.4

    def rotation_menu(self, parent: QWidget) -> QMenu:
        menu = QMenu("T&urn the players' view", parent)
        menu.addActions(self.rotation_group.actions())
        return menu

    # -- the player view ---------------------------------------------------------------------------

    def attach_current(self, *_: object) -> None:
        """Take on the window's player view if it is new (opened by any of its menu entries)."""
        if self.window.player_view is not None:
            self.attach(self.window.player_view)

    def attach(self, view: PlayerView) -> None:
        if view is self.attached:
            self._update_frame()
            return
        self.attached = view
        view.set_rotation(self.rotation())
        view.view.shownChanged.connect(self._update_frame)
        view.screenMoved.connect(self._screen_moved)
        view.closed.connect(self._update_frame)
        self._apply_real_size()

    def _view(self) -> PlayerView:
        self.window.show_player_view(True)
        view = self.window.ensure_player_view()
        self.attach(view)
        return view

    def set_rotation(self, degrees: int) -> None:
        self.settings.setValue(ROTATION_KEY, degrees)
        for action in self.rotation_group.actions():
            action.setChecked(action.data() == degrees)
        if self.attached is not None:
            self.attached.set_rotation(degrees)
        self.window.statusBar().showMessage(f"The players' view is turned by {degrees}°", 5000)

    def set_real_size(self, on: bool) -> None:
        self.settings.setValue(REAL_SIZE_KEY, bool(on))
        if self.real_size_action.isChecked() != on:
            self.real_size_action.setChecked(on)
            return  # the action's toggled signal comes back here
        if on and self.window.follow_gm_action.isChecked():
            self.window.follow_gm_action.setChecked(False)  # real size never follows the GM's zoom
        view = self._view() if on else self.attached
        if view is None:
            return
        self._apply_real_size()
        if on:
            self.window.statusBar().showMessage(
                f"Real size: a cell is {self.cell_mm():g} mm on the players' screen; Follow the GM's view is off"
                " (drag the frame on your map to move what they see)",
                10000,
            )
        else:
            self.window.statusBar().showMessage("Real size off: the player view fits the map again", 5000)

    def _follow_toggled(self, on: bool) -> None:
        if on and self.real_size_action.isChecked():
            self.real_size_action.setChecked(False)
            self.window.statusBar().showMessage("Following the GM's view: real size is off", 8000)

    def _apply_real_size(self) -> None:
        view = self.attached
        if view is None:
            return
        if self.real_size_action.isChecked():
            map_view = view.view
            if map_view.real_origin is None:
                scale = real_scale(self.cell_mm(), self.px_per_mm())
                gm = self.window.map_view
                centre = gm.mapToScene(gm.viewport().rect().center())
                size = map_view.shown_size(scale)
                origin = QPointF(centre.x() - size.width() / 2, centre.y() - size.height() / 2)
                map_view.set_real_size(scale, origin)
            else:
                map_view.set_real_size(real_scale(self.cell_mm(), self.px_per_mm()))
        elif view.view.real_scale is not None:
            view.view.set_real_size(None)
        if self.dialog is not None:
            self._show_bar()
        self._update_frame()

    def _update_frame(self, *_: object) -> None:
        view = self.attached
        shown = view is not None and view.isVisible() and view.view.real_scale is not None
        if shown and view is not None:
            self.frame.set_area(view.view.shown_rect(), view.rotation)
        self.frame.setVisible(shown)

    def _frame_dragged(self, origin: QPointF) -> None:
        view = self.attached
        if view is None or view.view.real_scale is None:
            return
        view.view.real_origin = origin
        view.view.place_real()

    def _screen_moved(self) -> None:
        self._apply_real_size()  # another screen: its own calibration

    # -- the dialog ----------------------------------------------------------------------------------

    def open_dialog(self) -> TableDisplayDialog:
        """The Table display dialog, over the window without blocking it (the GM measures the bar)."""
        from lnl_desktop.ui.dialogs.table_display import TableDisplayDialog  # loaded at first use

        view = self._view()
        if self.dialog is None:
            parent = view.parentWidget()
            dialog = TableDisplayDialog(self.cell_mm(), parent)
            dialog.calibrate.connect(self.calibrate)
            dialog.accepted.connect(lambda: self.set_cell_mm(dialog.cell_mm))
            dialog.finished.connect(self._dialog_closed)
            self.dialog = dialog
        self._show_bar()
        self.dialog.show()
        self.dialog.raise_()
        return self.dialog

    def _show_bar(self) -> None:
        view = self.attached
        if view is None or self.dialog is None:
            return
        px = self.px_per_mm()
        viewport = view.view.viewport().size()
        room = viewport.height() if view.rotation in (90, 270) else viewport.width()
        self.bar_mm = bar_mm_for(px, room)
        view.view.set_calibration_bar((self.bar_mm, px))
        screen = self.screen()
        words = screen_words(screen) if screen is not None else "no screen"
        where = "calibrated" if screen is not None and self.settings.contains(screen_key(screen)) else "first guess"
        self.dialog.set_screen(f"{words} — {px:.3f} pixels per mm ({where})", self.bar_mm)

    def calibrate(self, measured_mm: float) -> None:
        """The bar measured ``measured_mm``: correct this screen's pixels per mm, or say why not."""
        screen = self.screen()
        if screen is None:
            return
        old = self.px_per_mm()
        try:
            new = corrected_px_per_mm(old, self.bar_mm, measured_mm)
        except ValueError as error:
            if self.dialog is not None:
                self.dialog.say_problem(f"{error}. The calibration is unchanged.")
            return
        self.settings.setValue(screen_key(screen), new)
        self.settings.sync()
        text = f"Calibrated {screen_words(screen)}: {new:.3f} pixels per mm (was {old:.3f})"
        if self.dialog is not None:
            self.dialog.say_result(text + ". Measure the new bar to check it.")
        self.window.statusBar().showMessage(text, 10000)
        self._apply_real_size()

    def set_cell_mm(self, mm: float) -> None:
        self.settings.setValue(CELL_MM_KEY, mm)
        self._apply_real_size()
        self.window.statusBar().showMessage(f"A grid cell is {mm:g} mm on the players' screen at real size", 8000)

    def _dialog_closed(self, _result: int = 0) -> None:
        if self.attached is not None:
            self.attached.view.set_calibration_bar(None)
        if self.dialog is not None:
            self.dialog.deleteLater()
        self.dialog = None
