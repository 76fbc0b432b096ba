"""Presentation settings: a light or dark high-contrast theme and a UI scale, for projectors and
high-DPI laptops, plus the player view's condition threshold. Kept in QSettings under ``presentation/``.

``Presentation.apply(app)`` sets the application's palette and font; the map's colours around the
board follow through :func:`outside_color`. "system" leaves Qt's own palette alone.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QSettings
from PySide6.QtGui import QColor, QFont, QPalette
from PySide6.QtWidgets import QApplication

THEMES = ("system", "light", "dark")
SCALES = (100, 125, 150, 200)

_base_font: QFont | None = None  # the application's font before any scaling
_base_palette: QPalette | None = None
_scale = 1.0  # the UI scale last applied, as a factor (1.5 for 150 %)


def ui_scale() -> float:
    """The UI scale as a factor: for sizes Qt's application font does not carry (style sheets in
    points, the map's pixel fonts). Widgets hear of a change through ApplicationFontChange."""
    return _scale


@dataclass(frozen=True)
class Presentation:
    theme: str = "system"
    scale: int = 100  # percent
    badly_hurt_below: float = 0.5  # an Opponent below this share of its health bars together reads "badly hurt"

    @classmethod
    def load(cls, settings: QSettings) -> Presentation:
        theme = str(settings.value("presentation/theme", "system"))
        try:
            scale = int(settings.value("presentation/scale", 100))
            badly = float(settings.value("presentation/badly_hurt_below", 0.5))
        except (TypeError, ValueError):
            scale, badly = 100, 0.5
        return cls(
            theme=theme if theme in THEMES else "system",
            scale=scale if scale in SCALES else 100,
            badly_hurt_below=min(1.0, max(0.0, badly)),
        )

    def save(self, settings: QSettings) -> None:
        settings.setValue("presentation/theme", self.theme)
        settings.setValue("presentation/scale", self.scale)
        settings.setValue("presentation/badly_hurt_below", self.badly_hurt_below)

    def apply(self, app: QApplication) -> None:
        global _base_font, _base_palette, _scale
        if _base_font is None:
            _base_font = QFont(app.font())
            _base_palette = QPalette(app.palette())
        _scale = self.scale / 100
        font = QFont(_base_font)
        if font.pointSizeF() > 0:
            font.setPointSizeF(_base_font.pointSizeF() * self.scale / 100)
        else:
            font.setPixelSize(round(_base_font.pixelSize() * self.scale / 100))
        app.setFont(font)
        palette = palette_for(self.theme)
        app.setPalette(palette if palette is not None else QPalette(_base_palette))


def palette_for(theme: str) -> QPalette | None:
    """A high-contrast palette: black on white, or white on black with a yellow highlight."""
    if theme not in ("light", "dark"):
        return None
    dark = theme == "dark"
    window, text = (QColor("#000000"), QColor("#ffffff")) if dark else (QColor("#ffffff"), QColor("#000000"))
    base = QColor("#101010") if dark else QColor("#ffffff")
    alternate = QColor("#1e1e1e") if dark else QColor("#f0f0f0")
    button = QColor("#1a1a1a") if dark else QColor("#f2f2f2")
    highlight = QColor("#F0E442") if dark else QColor("#0050a0")
    highlighted_text = QColor("#000000") if dark else QColor("#ffffff")
    role = QPalette.ColorRole
    palette = QPalette()
    for r, color in (
        (role.Window, window),
        (role.WindowText, text),
        (role.Base, base),
        (role.AlternateBase, alternate),
        (role.Text, text),
        (role.Button, button),
        (role.ButtonText, text),
        (role.ToolTipBase, base),
        (role.ToolTipText, text),
        (role.Highlight, highlight),
        (role.HighlightedText, highlighted_text),
        (role.BrightText, QColor("#ff5050")),
        (role.Link, QColor("#56B4E9") if dark else QColor("#0050a0")),
        (role.PlaceholderText, QColor("#a0a0a0") if dark else QColor("#606060")),
    ):
        palette.setColor(r, color)
    disabled = QColor("#7a7a7a")
    for r in (role.WindowText, role.Text, role.ButtonText):
        palette.setColor(QPalette.ColorGroup.Disabled, r, disabled)
    return palette


def outside_color(theme: str) -> QColor:
    """The colour around the board: black in the dark theme, light grey in the light one."""
    return {"dark": QColor("#000000"), "light": QColor("#d0d0d0")}.get(theme, QColor("#4b525c"))
