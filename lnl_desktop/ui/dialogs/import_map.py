"""File ▸ Import map…: a Universal VTT map (.dd2vtt, .uvtt, .df2vtt) becomes the encounter's map.

:func:`import_map_file` reads the file (:mod:`lnl_desktop.core.files.uvtt` says what it holds), readies
its picture for the map and applies the whole new map — size, walls, doors, picture, and the file's
lights as light sources in place of those placed on the old map — as one ``EditMap``, so one Undo
gives the old map back. A file that cannot be used, or a map the encounter
refuses (tokens that would be off it), is said in a message box and changes nothing.

The picture is kept inside the encounter as PNG or JPEG. It is always decoded in full first, so
a picture cut short or damaged is refused before anything changes (a JPEG decoder would show the
missing part grey). It is scaled and encoded again only when it has to be: WEBP (converted), over
:data:`MAX_SIDE_PX` a side or :data:`MAX_PIXELS` (scaled down, the cell size and offsets with
it), or too big to keep as it is (:data:`KEEP_ORIGINAL_CHARS`). That work runs in a worker thread
under a progress dialog (shown at once for scaling, after a moment for only decoding), so the
window keeps painting, and Cancel leaves the encounter untouched. Reading and checking the file
runs in a worker too; its dialog shows only if it takes a while, with a bar that moves as the
reading goes (a cave map has a hundred thousand walls), and its Cancel stops the reading at its
next step. The worker also makes the walls' JSON and, for a map with many walls, the new map itself,
checked (``EditMap.ahead``), so the window's thread only puts it in place and checks the tokens.
"""

from __future__ import annotations

import base64
import math
import os
import stat
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from PySide6.QtCore import QBuffer, QByteArray, QCoreApplication, QEventLoop, QIODevice, QSize, Qt, QTimer
from PySide6.QtGui import QColor, QImage, QImageReader, QPainter
from PySide6.QtWidgets import QFileDialog, QMessageBox, QProgressDialog, QWidget

from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.errors import RulesError
from lnl_desktop.core.files import storage, uvtt
from lnl_desktop.core.files.uvtt import ImportedMap, MapFileError
from lnl_desktop.lazy import lazy_module
from lnl_desktop.ui.plumbing.controller import TableController
from lnl_desktop.ui.plumbing.folders import Folders

np = lazy_module("numpy")  # imported at first use: the first window needs none of it

IMPORT_FILTER = "Universal VTT maps (*.dd2vtt *.uvtt *.df2vtt);;All files (*)"
TITLE = "Import map"
MAX_SIDE_PX = 4096  # a bigger picture is scaled down to this on its longer side...
MAX_PIXELS = 4096 * 4096  # ...and to this many pixels
KEEP_ORIGINAL_CHARS = 8 * 2**20  # a PNG or JPEG up to this much base64 is kept byte for byte
MAX_PICTURE_CHARS = storage.MAX_FILE_BYTES // 2  # the picture's share of an encounter file
MIN_CELL_PX = 2.0  # scaling never makes a cell smaller than this
JPEG_QUALITIES = (90, 80, 65)
PROGRESS_STEPS = 100
SAY_APPLYING_LINES = 20_000  # from this many walls and doors, the map is made in a worker and the dialog says so
SHOW_AFTER_S = 0.4  # reading the file: the progress dialog shows if it takes longer than this
READ_SHARE = 0.1  # of the progress bar while reading a file: reading its bytes; the rest, what they say

PictureFormat = Literal["png", "jpeg"]


def is_map_file(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` names a Universal VTT map (by its suffix): for drops on the window."""
    return uvtt.is_map_name(Path(path).name)


@dataclass(frozen=True)
class Picture:
    """The map's picture as the encounter keeps it."""

    data: str  # base64
    image_format: PictureFormat
    scale: float  # its size over the file's picture's: the cell size and offsets are multiplied by it
    size: tuple[int, int]
    words: str = ""  # what was done to it, for the summary ("" when kept as it was)


# -- the picture (runs in a worker thread: QImage and QImageReader are not GUI objects) ----------


def fit_scale(width: int, height: int, cell_px: float) -> float:
    """How much a picture is scaled for the map: 1, or less to fit MAX_SIDE_PX and MAX_PIXELS,
    but never so much that a cell becomes smaller than MIN_CELL_PX pixels."""
    scale = min(1.0, MAX_SIDE_PX / max(width, height), math.sqrt(MAX_PIXELS / (width * height)))
    return max(scale, min(1.0, MIN_CELL_PX / cell_px))


def needs_work(imported: ImportedMap) -> bool:
    """Whether the picture must be decoded (converted, scaled or made smaller) before the map keeps it."""
    if imported.image_base64 is None or imported.image_size is None:
        return False
    return (
        imported.image_format not in ("png", "jpeg")
        or fit_scale(*imported.image_size, imported.cell_px) < 1
        or len(imported.image_base64) > KEEP_ORIGINAL_CHARS
    )


def prepare_picture(
    imported: ImportedMap,
    stage: Callable[[str], None] = lambda _text: None,
    cancelled: Callable[[], bool] = lambda: False,
) -> Picture | None:
    """The picture the map keeps: the file's own when it can be, else decoded, scaled down if
    huge and encoded as JPEG (PNG when it has transparent parts). The file's own is decoded in
    full too, to be sure it is a whole picture. None when the file has no picture or
    ``cancelled()`` became true; :class:`MapFileError` if it cannot be decoded."""
    if imported.image_base64 is None or imported.image_size is None or imported.image_format is None:
        return None
    if not needs_work(imported):
        width, height = imported.image_size
        stage(f"Checking the picture ({width} x {height} px)…")
        image = _decode(imported, None)
        if image.size().toTuple() != imported.image_size:
            raise MapFileError(
                f"{imported.name}: the picture could not be decoded (its header says {width} x {height} px, "
                f"its data {image.width()} x {image.height()} px)"
            )
        if cancelled():
            return None
        fmt: PictureFormat = "png" if imported.image_format == "png" else "jpeg"
        return Picture(imported.image_base64, fmt, 1.0, imported.image_size)
    name, kind = imported.name, imported.image_format
    if kind.encode() not in {bytes(f.data()) for f in QImageReader.supportedImageFormats()}:
        raise MapFileError(
            f"{name}: the picture is {kind.upper()}, and this installation cannot read {kind.upper()} "
            "(Qt has no image plug-in for it); export the map with a PNG or JPEG picture"
        )
    width, height = imported.image_size
    scale = fit_scale(width, height, imported.cell_px)
    target = QSize(max(1, round(width * scale)), max(1, round(height * scale)))
    resize = f" and scaling it to {target.width()} x {target.height()} px" if scale < 1 else ""
    stage(f"Decoding the picture ({width} x {height} px){resize}…")
    image = _decode(imported, target if scale < 1 else None)
    if cancelled():
        return None
    if image.size() != target:
        stage(f"Scaling the picture to {target.width()} x {target.height()} px…")
        image = image.scaled(target, Qt.AspectRatioMode.IgnoreAspectRatio, Qt.TransformationMode.SmoothTransformation)
        if cancelled():
            return None
    stage("Encoding the picture…")
    data, fmt, quality = _encode(image, name)
    if cancelled():
        return None
    # The longer side gives the scale with the smaller rounding error.
    actual = target.width() / width if width >= height else target.height() / height
    words = []
    if kind == "webp":
        words.append(f"picture converted from WEBP to {'PNG' if fmt == 'png' else f'JPEG (quality {quality})'}")
    elif fmt != kind:
        words.append(f"picture kept as JPEG (quality {quality}) to keep the encounter small")
    if actual < 1:
        words.append(f"picture scaled from {width} x {height} to {target.width()} x {target.height()} px")
    return Picture(data, fmt, actual, (target.width(), target.height()), "; ".join(words))


def _decode(imported: ImportedMap, scaled: QSize | None) -> QImage:
    raw = imported.image_bytes or b""
    width, height = imported.image_size or (1, 1)
    # Qt refuses to decode beyond its allocation limit (256 MB: 8192 x 8192): raised for this
    # picture, which the core has already checked against uvtt.MAX_PICTURE_PIXELS.
    needed = math.ceil(width * height * 4 / 2**20) + 1
    limit = QImageReader.allocationLimit()
    raised = 0 < limit < needed
    if raised:
        QImageReader.setAllocationLimit(needed)
    try:
        array = QByteArray(raw)
        buffer = QBuffer(array)
        buffer.open(QIODevice.OpenModeFlag.ReadOnly)
        reader = QImageReader(buffer, (imported.image_format or "").encode())
        if scaled is not None:
            # Scaled inside the reader: JPEG decodes straight to the smaller size, and the others
            # are scaled smoothly in the same C++ call, which lets the window's thread run.
            reader.setScaledSize(scaled)
        image = reader.read()
        error = reader.errorString()
        buffer.close()
    finally:
        if raised:
            QImageReader.setAllocationLimit(limit)
    if image.isNull():
        raise MapFileError(f"{imported.name}: the picture could not be decoded ({error})")
    return image


def _transparent(image: QImage) -> bool:
    if not image.hasAlphaChannel():
        return False
    argb = image.convertToFormat(QImage.Format.Format_ARGB32)
    rows = np.frombuffer(argb.constBits(), dtype=np.uint32).reshape(argb.height(), argb.bytesPerLine() // 4)
    return bool((rows[:, : argb.width()] >> 24 != 255).any())


def _saved(image: QImage, fmt: str, quality: int = -1) -> str:
    array = QByteArray()
    buffer = QBuffer(array)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    ok = image.save(buffer, fmt, quality)
    buffer.close()
    if not ok:
        raise MapFileError(f"the picture could not be encoded as {fmt}")
    return base64.b64encode(bytes(array.data())).decode("ascii")


def _encode(image: QImage, name: str) -> tuple[str, PictureFormat, int]:
    if _transparent(image):
        data = _saved(image, "PNG")
        if len(data) <= MAX_PICTURE_CHARS:
            return data, "png", 100
        flat = QImage(image.size(), QImage.Format.Format_RGB32)
        flat.fill(QColor("white"))
        painter = QPainter(flat)
        painter.drawImage(0, 0, image)
        painter.end()
        image = flat
    for quality in JPEG_QUALITIES:
        data = _saved(image, "JPEG", quality)
        if len(data) <= MAX_PICTURE_CHARS:
            return data, "jpeg", quality
    raise MapFileError(
        f"{name}: the picture stays over {MAX_PICTURE_CHARS // 2**20} MB even as a JPEG; "
        "an encounter file keeps at most that much picture"
    )


# -- reading the file -------------------------------------------------------------------------


def read_map_file(
    path: Path,
    progress: Callable[[float], None] = lambda _done: None,
    cancelled: Callable[[], bool] = lambda: False,
) -> ImportedMap:
    """Read and check a map file (no more than uvtt.MAX_FILE_BYTES of it), or raise MapFileError.

    ``progress(done)`` hears how far it is (0 to 1); once ``cancelled()`` is true it stops at its
    next step with :class:`uvtt.ImportCancelled`. Also makes the walls' and doors' JSON the undo
    step keeps (:attr:`ImportedMap.lines_json`), so that the window's thread has only to apply them.
    """
    name = path.name
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)  # non-blocking: a FIFO in the file's place cannot hang the read
    except FileNotFoundError:
        raise MapFileError(f"{name}: no such file") from None
    except OSError as error:
        raise MapFileError(f"{name} could not be read: {error.strerror or error}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise MapFileError(f"{name} is not a regular file, not a map")
        if info.st_size > uvtt.MAX_FILE_BYTES:
            raise MapFileError(
                f"{name} is {math.ceil(info.st_size / 2**20)} MB; map files are read up to "
                f"{uvtt.MAX_FILE_BYTES // 2**20} MB"
            )
        chunks, left = [], uvtt.MAX_FILE_BYTES + 1  # a file that grew meanwhile is still cut there
        while left > 0 and (chunk := os.read(fd, min(left, 2**24))):
            chunks.append(chunk)
            left -= len(chunk)
            if cancelled():
                raise uvtt.ImportCancelled(name)
            progress(READ_SHARE * min(1.0, (uvtt.MAX_FILE_BYTES + 1 - left) / max(1, info.st_size)))
    except OSError as error:
        raise MapFileError(f"{name} could not be read: {error.strerror or error}") from None
    finally:
        os.close(fd)
    data = b"".join(chunks)
    imported = uvtt.read_uvtt(
        data, name, progress=lambda done: progress(READ_SHARE + (1 - READ_SHARE) * done), cancelled=cancelled
    )
    imported.lines_json  # noqa: B018 - made now, on this thread
    return imported


# -- running work off the window's thread -------------------------------------------------------


class _Worker(threading.Thread):
    """Runs ``work(worker)`` in a thread; the window polls ``finished``, ``stage`` and the outcome."""

    def __init__(self, work: Callable[[_Worker], Any]) -> None:
        super().__init__(name="import-map", daemon=True)
        self.work = work
        self.stage = ""
        self.progress: float | None = None  # 0 to 1 when the work can tell; None: the bar just runs
        self.result: Any = None
        self.error: BaseException | None = None
        self.cancel = threading.Event()
        self.finished = threading.Event()

    def run(self) -> None:
        try:
            self.result = self.work(self)
        except BaseException as error:  # handed to the window's thread, which says it
            self.error = error
        finally:
            self.finished.set()


def _run(dialog: QProgressDialog, work: Callable[[_Worker], Any], *, show_now: bool) -> _Worker | None:
    """Run ``work`` in a thread while the window's events go on; None if the GM cancelled."""
    worker = _Worker(work)
    loop = QEventLoop()
    timer = QTimer()
    timer.setInterval(30)
    started = time.monotonic()

    def poll() -> None:
        if dialog.wasCanceled():  # also when cancelled other than by its button (which quits at once)
            loop.quit()
            return
        if worker.stage and dialog.labelText() != worker.stage:
            dialog.setLabelText(worker.stage)
        if worker.progress is not None:
            if dialog.maximum() != PROGRESS_STEPS:
                dialog.setRange(0, PROGRESS_STEPS)
            value = round(worker.progress * PROGRESS_STEPS)
            if value > dialog.value():
                dialog.setValue(value)
        if worker.finished.is_set():
            loop.quit()
        elif not dialog.isVisible() and time.monotonic() - started >= SHOW_AFTER_S:
            dialog.show()

    timer.timeout.connect(poll)
    dialog.canceled.connect(loop.quit)
    dialog.setRange(0, 0)  # a running bar until the work says how far it is
    if show_now:
        dialog.show()
    # numpy is a lazy module (lnl_desktop.lazy) and the worker uses it: load it here, on this thread,
    # as Python 3.11's LazyLoader must not be entered by two threads at once.
    np.uint32  # noqa: B018
    worker.start()
    timer.start()
    if not worker.finished.is_set():
        loop.exec()
    timer.stop()
    dialog.canceled.disconnect(loop.quit)
    dialog.hide()  # a message box or the next step's label follows
    if dialog.wasCanceled():
        worker.cancel.set()  # the thread stops at its next step; what it made is dropped
        return None
    return worker


# -- the window's side ----------------------------------------------------------------------------

_busy = False  # one import at a time: a drop during an import is refused


def import_map_file(parent: QWidget, controller: TableController, path: Path) -> bool:
    """Import the Universal VTT map ``path`` as the encounter's map, as one undoable step.

    Says in a message box why a file cannot be used or the encounter refuses the map, and then
    changes nothing; a cancelled import changes nothing either. True if the map was replaced.
    """
    global _busy
    path = Path(path)
    if _busy:
        controller.message.emit(f"Not imported: {path.name} (another map is being imported)")
        return False
    _busy = True
    dialog = QProgressDialog(f"Reading {path.name}…", "Cancel", 0, 0, parent)
    dialog.setWindowTitle(TITLE)
    dialog.setWindowModality(Qt.WindowModality.WindowModal)
    dialog.setMinimumDuration(2**30)  # shown by _run, not by the dialog's own timer
    dialog.setAutoClose(False)
    dialog.setAutoReset(False)
    try:
        return _import(parent, controller, path, dialog)
    finally:
        dialog.reset()  # stops the dialog's own show timer
        dialog.close()
        dialog.deleteLater()
        _busy = False


def _read(path: Path) -> Callable[[_Worker], ImportedMap]:
    def work(worker: _Worker) -> ImportedMap:
        def progress(done: float) -> None:
            worker.progress = done

        return read_map_file(path, progress, worker.cancel.is_set)

    return work


def _import(parent: QWidget, controller: TableController, path: Path, dialog: QProgressDialog) -> bool:
    reading = _run(dialog, _read(path), show_now=False)
    if reading is None:
        return _cancelled(controller, path)
    if reading.error is not None:
        return _refuse(parent, reading.error, path)
    imported: ImportedMap = reading.result

    picture: Picture | None = None
    if imported.image_base64 is not None:
        # Decoded in full even when kept as it is: a picture cut short is refused here, before
        # anything changes. The dialog shows at once only for the long work of scaling.
        work_to_do = needs_work(imported)
        dialog.setLabelText("Preparing the picture…" if work_to_do else "Checking the picture…")

        def work(worker: _Worker) -> Picture | None:
            def stage(text: str) -> None:
                worker.stage = text

            return prepare_picture(imported, stage, worker.cancel.is_set)

        preparing = _run(dialog, work, show_now=work_to_do)
        if preparing is None:
            return _cancelled(controller, path)
        if preparing.error is not None:
            return _refuse(parent, preparing.error, path)
        picture = preparing.result

    try:
        background = None if picture is None else imported.background(picture.data, picture.image_format, picture.scale)
    except RulesError as error:
        return _refuse(parent, error, path)
    changes = imported.changes(background, controller.encounter.map.feet_per_cell)
    lines = len(imported.segments) + len(imported.doors)
    action = act.EditMap(changes)
    if lines >= SAY_APPLYING_LINES:
        # The new map is made and checked in a worker (EditMap.ahead): the window's thread then only
        # puts it in place. The map it is made from is read here, on the window's thread.
        base = controller.encounter.map
        dialog.setLabelText(f"Checking {lines:,} walls and doors…")
        making = _run(dialog, lambda _worker: act.EditMap.ahead(changes, base), show_now=False)
        if making is None:
            return _cancelled(controller, path)
        if making.error is not None:
            return _refuse(parent, making.error, path)
        action = making.result
        dialog.setLabelText(f"Putting {lines:,} walls and doors on the map…")
        dialog.setCancelButton(None)  # past the point of cancelling: the map is about to change
        dialog.setRange(0, 0)
        dialog.show()
        QCoreApplication.processEvents(QEventLoop.ProcessEventsFlag.ExcludeUserInputEvents)
    if controller.do(action) is None:
        reason = controller.refusal or "the encounter refused the new map"
        hint = "\n\nMove those tokens or take them off the map, then import again." if "tokens." in reason else ""
        QMessageBox.warning(parent, TITLE, f"{path.name} was not imported: {reason}{hint}\n\nThe map is unchanged.")
        return False
    summary = imported.summary
    if picture is not None and picture.words:
        summary += f"; {picture.words}"
    controller.message.emit(summary)
    return True


def _cancelled(controller: TableController, path: Path) -> bool:
    controller.message.emit(f"Import of {path.name} cancelled: the map is unchanged")
    return False


def _refuse(parent: QWidget, error: BaseException, path: Path) -> bool:
    if not isinstance(error, (RulesError, OSError, MemoryError)):
        raise error  # a bug, not a bad file: let the crash handler see it
    if isinstance(error, MemoryError):
        text = f"{path.name}: there is not enough memory to read its picture"
    elif isinstance(error, OSError):
        text = f"{path.name} could not be read: {error.strerror or error}"
    else:
        text = str(error)
    QMessageBox.warning(parent, TITLE, f"{text}\n\nThe map is unchanged.")
    return False


def import_map_dialog(parent: QWidget, controller: TableController, folders: Folders) -> bool:
    """File ▸ Import map…: ask for a map file (starting in the last folder used), then import it."""
    name, _ = QFileDialog.getOpenFileName(parent, TITLE, folders.start(), IMPORT_FILTER)
    if not name:
        return False
    folders.remember(Path(name))
    return import_map_file(parent, controller, Path(name))
