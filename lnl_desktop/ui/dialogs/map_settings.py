"""Small dialogs of the main window: map settings and the background image."""

from __future__ import annotations

import base64
from pathlib import Path, PureWindowsPath
from typing import Any

from PySide6.QtGui import QImage
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from lnl_desktop.core.encounter.map_model import Background, MapGrid
from lnl_desktop.core.files import pictures, storage
from lnl_desktop.core.map.grid import DiagonalRule
from lnl_desktop.ui.plumbing.folders import Folders

# The picture's share of an encounter file (half, as for an imported map's), in bytes: it is kept
# as base64, 4 characters for 3 bytes.
MAX_KEPT_PICTURE_BYTES = storage.MAX_FILE_BYTES // 2 * 3 // 4

DIAGONAL_NAMES = {
    DiagonalRule.ALTERNATING: "5-10-5 (alternating)",
    DiagonalRule.FIVE: "every diagonal 5 ft",
    DiagonalRule.EUCLIDEAN: "true distance (euclidean)",
}


class MapSettingsDialog(QDialog):
    """Map size in cells, feet per cell and the diagonal rule."""

    def __init__(self, grid: MapGrid, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Map settings")
        self.width_box = QSpinBox(minimum=1, maximum=1000, value=grid.width, suffix=" cells")
        self.height_box = QSpinBox(minimum=1, maximum=1000, value=grid.height, suffix=" cells")
        self.feet_box = QSpinBox(minimum=1, maximum=100, value=grid.feet_per_cell, suffix=" ft")
        self.diagonal_box = QComboBox()
        for rule, name in DIAGONAL_NAMES.items():
            self.diagonal_box.addItem(name, rule)
        self.diagonal_box.setCurrentIndex(list(DIAGONAL_NAMES).index(grid.diagonal))
        self.width_box.setToolTip("Shrinking the map drops walls and terrain that fall off it")
        self.diagonal_box.setToolTip("How diagonal steps and distances are counted")
        form = QFormLayout()
        form.addRow("Width", self.width_box)
        form.addRow("Height", self.height_box)
        form.addRow("One cell is", self.feet_box)
        form.addRow("Diagonals", self.diagonal_box)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(buttons)
        self._grid = grid

    def changes(self) -> dict[str, Any]:
        """Only the settings that differ from the map's."""
        wanted: dict[str, Any] = {
            "width": self.width_box.value(),
            "height": self.height_box.value(),
            "feet_per_cell": self.feet_box.value(),
            "diagonal": self.diagonal_box.currentData(),
        }
        return {k: v for k, v in wanted.items() if getattr(self._grid, k) != v}


class BackgroundDialog(QDialog):
    """Pick a PNG or JPEG and line it up with the grid: pixels per cell and offset.

    The picture is kept inside the encounter file (as an imported map's is), so the file carries
    it wherever it goes and never names a file outside its folder. A picture the encounter already
    keeps stays as it is while only its lining up changes; one an older file names by path is read
    only from beside that file (:func:`lnl_desktop.core.files.pictures.read_picture_beside`)."""

    def __init__(
        self,
        background: Background | None,
        base_dir: Path | None,
        parent: QWidget | None = None,
        folders: Folders | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Background image")
        self._base_dir = base_dir
        self._folders = folders
        self._old = background
        self._picture: tuple[str, str] | None = None  # (name, base64) once accepted
        self.path_edit = QLineEdit(background.image if background else "")
        self.path_edit.setPlaceholderText("PNG or JPEG file")
        self.path_edit.setToolTip("The picture is kept inside the encounter file")
        browse = QPushButton("Browse…")
        browse.clicked.connect(self._browse)
        row = QHBoxLayout()
        row.addWidget(self.path_edit, 1)
        row.addWidget(browse)
        self.cell_box = QDoubleSpinBox(minimum=2, maximum=2000, decimals=1, suffix=" px")
        self.cell_box.setValue(background.cell_px if background else 64)
        self.cell_box.setToolTip("How many pixels of the image make one grid cell")
        self.x_box = QDoubleSpinBox(minimum=-100000, maximum=100000, decimals=1, suffix=" px")
        self.y_box = QDoubleSpinBox(minimum=-100000, maximum=100000, decimals=1, suffix=" px")
        self.x_box.setValue(background.offset_x if background else 0)
        self.y_box.setValue(background.offset_y if background else 0)
        self.x_box.setToolTip("Image pixels left of the grid's first column")
        self.y_box.setToolTip("Image pixels above the grid's first row")
        self.opacity_box = QDoubleSpinBox(minimum=0.05, maximum=1.0, singleStep=0.05, decimals=2)
        self.opacity_box.setValue(background.opacity if background else 1.0)
        self.info = QLabel()
        self.info.setWordWrap(True)
        form = QFormLayout()
        form.addRow("Image", row)
        form.addRow("Pixels per cell", self.cell_box)
        form.addRow("Offset x", self.x_box)
        form.addRow("Offset y", self.y_box)
        form.addRow("Opacity", self.opacity_box)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self._accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.info)
        layout.addWidget(buttons)

    def _browse(self) -> None:
        start = str(self._base_dir) if self._base_dir else self._folders.start() if self._folders else ""
        name, _ = QFileDialog.getOpenFileName(self, "Background image", start, "Images (*.png *.jpg *.jpeg)")
        if name and self._folders is not None:
            self._folders.remember(Path(name))
        if name:
            self.path_edit.setText(str(Path(name)))

    def _read(self, text: str) -> tuple[str, str]:
        """The picture ``text`` names, as (name, base64), or PictureError saying why not."""
        old = self._old
        if old is not None and text == old.image:
            if old.data is not None:  # kept in the file already: only its lining up changes
                return old.image, old.data
            # Named by an encounter file: read only from beside it, as the map does.
            raw = pictures.read_picture_beside(text, self._base_dir)
            return PureWindowsPath(text).name, self._whole(raw, repr(text))  # either separator
        if pictures.has_control(text):  # resolve() below would raise on a NUL
            raise pictures.PictureError(repr(text[:80]), pictures.CONTROL)
        path = Path(text).expanduser()
        if not path.is_absolute():
            if self._base_dir is None:
                raise pictures.PictureError(text, "not a full path (choose the picture with Browse…)")
            path = self._base_dir / path
        # The GM's own choice: a link to a picture is that picture.
        raw = pictures.read_picture_file(path.resolve(), path.name, MAX_KEPT_PICTURE_BYTES)
        return path.name, self._whole(raw, path.name)

    @staticmethod
    def _whole(raw: bytes, name: str) -> str:
        if len(raw) > MAX_KEPT_PICTURE_BYTES:
            raise pictures.PictureError(
                name,
                f"{len(raw) / 2**20:,.0f} MB; an encounter keeps a picture of at most "
                f"{MAX_KEPT_PICTURE_BYTES // 2**20} MB (save it as a JPEG or smaller)",
            )
        pictures.check_picture(raw, name)
        if QImage.fromData(raw).isNull():  # decoded in full: what the map will show
            raise pictures.PictureError(name, "not a readable PNG or JPEG")
        return base64.b64encode(raw).decode("ascii")

    def _accept(self) -> None:
        text = self.path_edit.text().strip()
        if not text:
            self.info.setText("Choose an image file.")
            return
        try:
            self._picture = self._read(text)
        except pictures.PictureError as error:
            self.info.setText(f"Cannot use {error.name}: it is {error.reason}.")
            return
        self.accept()

    def background(self) -> dict[str, Any]:
        """The map's new background, its picture kept inside the encounter (after OK)."""
        if self._picture is None:
            raise RuntimeError("background() is read after the dialog was accepted")
        name, data = self._picture
        return {
            "image": name,
            "cell_px": self.cell_box.value(),
            "offset_x": self.x_box.value(),
            "offset_y": self.y_box.value(),
            "opacity": self.opacity_box.value(),
            "data": data,
        }
