"""View ▸ Player view options ▸ Table display…: a cell's physical size on the players' screen and
the screen's calibration by a ruler. The dialog asks and checks; the window's
:mod:`~lnl_desktop.ui.window.table_display` keeps the numbers and draws the bar."""

from __future__ import annotations

import math

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

MM_PER = {"in": 25.4, "mm": 1.0}  # the units a length may be typed in
CELL_MM_RANGE = (5.0, 100.0)  # a cell from 5 mm to 10 cm: anything else is a typing slip
MEASURED_MM_RANGE = (1.0, 2000.0)


def parse_length_mm(text: str, unit: str, what: str, low: float, high: float) -> float:
    """``text`` in ``unit`` ("in" or "mm") as millimetres, or ValueError saying why it is refused."""
    words = text.strip().replace(",", ".")
    if not words:
        raise ValueError(f"Type the {what}")
    try:
        value = float(words)
    except ValueError:
        raise ValueError(f"The {what} must be a number, not {text.strip()!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"The {what} must be more than 0")
    mm = value * MM_PER[unit]
    if not low <= mm <= high:
        inches = f"{low / 25.4:.2g} to {high / 25.4:.3g} in"
        raise ValueError(f"The {what} must be between {low:g} mm and {high:g} mm ({inches})")
    return mm


def length_words(mm: float, unit: str) -> str:
    """A length as typed in ``unit``: "1" (in) or "25" (mm)."""
    return f"{mm / MM_PER[unit]:.4g}"


class TableDisplayDialog(QDialog):
    """The cell's size, the players' screen, and its calibration: the bar on that screen is
    measured with a ruler and what it measures typed in."""

    calibrate = Signal(float)  # the bar measured (mm): the window corrects the calibration

    def __init__(self, cell_mm: float, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Table display")
        self.cell_mm = cell_mm
        self.cell_edit = QLineEdit()
        self.cell_unit = QComboBox()
        self.cell_unit.addItems(["in", "mm"])
        inches = abs(cell_mm - 25.4 * round(cell_mm / 25.4)) < 0.01
        self.cell_unit.setCurrentText("in" if inches else "mm")
        self.cell_edit.setText(length_words(cell_mm, self.cell_unit.currentText()))
        cell_row = QHBoxLayout()
        cell_row.addWidget(self.cell_edit, 1)
        cell_row.addWidget(self.cell_unit)
        self.screen_label = QLabel()
        self.screen_label.setWordWrap(True)
        self.bar_label = QLabel()
        self.bar_label.setWordWrap(True)
        self.measured_edit = QLineEdit()
        self.measured_edit.setPlaceholderText("e.g. 98")
        self.measured_unit = QComboBox()
        self.measured_unit.addItems(["mm", "in"])
        self.correct_button = QPushButton("&Correct the calibration")
        self.correct_button.clicked.connect(self._calibrate)
        measured_row = QHBoxLayout()
        measured_row.addWidget(self.measured_edit, 1)
        measured_row.addWidget(self.measured_unit)
        measured_row.addWidget(self.correct_button)
        self.problem = QLabel()
        self.problem.setWordWrap(True)
        self.problem.setStyleSheet("color: #b00020; font-weight: bold")
        self.problem.hide()
        self.result = QLabel()
        self.result.setWordWrap(True)
        form = QFormLayout()
        form.addRow("Each grid cell:", cell_row)
        form.addRow("Players' screen:", self.screen_label)
        form.addRow("", self.bar_label)
        form.addRow("The bar measures:", measured_row)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.problem)
        layout.addWidget(self.result)
        layout.addWidget(buttons)
        self.measured_edit.returnPressed.connect(self._calibrate)

    def set_screen(self, words: str, bar_mm: float) -> None:
        """The screen the player view is on, and the bar it shows now."""
        self.screen_label.setText(words)
        self.bar_label.setText(
            f"The player view shows a bar that should measure {bar_mm:g} mm ({bar_mm / 25.4:.3g} in). "
            "Lay a ruler on it and type what it measures:"
        )

    def say_problem(self, text: str) -> None:
        self.problem.setText(text)
        self.problem.setVisible(bool(text))

    def say_result(self, text: str) -> None:
        self.result.setText(text)

    def _calibrate(self) -> None:
        try:
            measured = parse_length_mm(
                self.measured_edit.text(), self.measured_unit.currentText(), "length measured", *MEASURED_MM_RANGE
            )
        except ValueError as error:
            self.say_problem(f"{error}: the calibration is unchanged")
            return
        self.say_problem("")
        self.calibrate.emit(measured)

    def accept(self) -> None:
        """The cell size as typed, or the reason it is refused (the dialog stays, nothing changes)."""
        try:
            self.cell_mm = parse_length_mm(
                self.cell_edit.text(), self.cell_unit.currentText(), "cell size", *CELL_MM_RANGE
            )
        except ValueError as error:
            self.say_problem(f"{error}: the cell size is unchanged")
            return
        self.say_problem("")
        super().accept()
