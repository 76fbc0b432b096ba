"""Small dialogs of the main window: map settings and the background image."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtGui import QImageReader
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

from lnl_desktop.core.grid import DiagonalRule
from lnl_desktop.core.model import Background, MapGrid
from lnl_desktop.ui.folders import Folders

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
    """Pick a PNG or JPEG and line it up with the grid: pixels per cell and offset."""

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
        self.path_edit = QLineEdit(background.image if background else "")
        self.path_edit.setPlaceholderText("PNG or JPEG file")
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
            self.path_edit.setText(self._relative(Path(name)))

    def _relative(self, path: Path) -> str:
        if self._base_dir is not None:
            try:
                return str(path.resolve().relative_to(self._base_dir.resolve()))
            except ValueError:
                pass
        return str(path)

    def resolved(self) -> Path:
        path = Path(self.path_edit.text().strip())
        if not path.is_absolute() and self._base_dir is not None:
            path = self._base_dir / path
        return path

    def _accept(self) -> None:
        if not self.path_edit.text().strip():
            self.info.setText("Choose an image file.")
            return
        reader = QImageReader(str(self.resolved()))
        if not reader.canRead():
            self.info.setText(f"Cannot read {self.resolved().name}: {reader.errorString()}")
            return
        self.accept()

    def background(self) -> dict[str, Any]:
        return {
            "image": self.path_edit.text().strip(),
            "cell_px": self.cell_box.value(),
            "offset_x": self.x_box.value(),
            "offset_y": self.y_box.value(),
            "opacity": self.opacity_box.value(),
        }
