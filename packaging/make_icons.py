#!/usr/bin/env python3
"""Draw the application icon with Qt and write it at every size each OS wants.

    .venv/bin/python packaging/make_icons.py     (offscreen; writes resources/icons/)

The emblem: a heraldic shield parted blue and vermillion (the map's Party and Opponents colours),
a cream border, "L&L" on it, inside a green laurel wreath. Each size is painted on its own, not
scaled down from a big one, and small sizes drop the detail that would only blur (the wreath
below 48 px, "&" below 32 px).

Writes ``lnl-desktop-N.png`` for N in 16..1024, ``lnl-desktop.ico`` (Windows: PNG entries 16..256)
and ``lnl-desktop.icns`` (macOS: PNG entries 16..1024); both containers are put together here
from the PNGs, byte by byte, so no platform tool is needed. The files are committed: run this
again only when the design changes.
"""

from __future__ import annotations

import importlib.util
import math
import os
import struct
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QPointF, QRectF, Qt
from PySide6.QtGui import (
    QColor,
    QFont,
    QGuiApplication,
    QImage,
    QPainter,
    QPainterPath,
    QPen,
    QTransform,
)

HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("lnl_bundle_config", HERE / "bundle_config.py")
config = importlib.util.module_from_spec(_spec)  # type: ignore[arg-type]
_spec.loader.exec_module(config)  # type: ignore[union-attr]

BLUE = QColor("#0072B2")  # Party (lnl_desktop/ui/plumbing/style.py)
VERMILLION = QColor("#D55E00")  # Opponents
CREAM = QColor("#FBF3E0")
INK = QColor("#1B2430")
LAUREL = QColor("#2E8B57")
LAUREL_DARK = QColor("#1E6B41")


def round_pen(colour: QColor, width: float) -> QPen:
    return QPen(colour, width, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap, Qt.PenJoinStyle.RoundJoin)


def shield_path() -> QPainterPath:
    """A heater shield in a 100 x 100 box: flat top, sides curving to a point."""
    path = QPainterPath()
    path.moveTo(22, 16)
    path.lineTo(78, 16)
    path.lineTo(78, 46)
    path.cubicTo(78, 68, 64, 80, 50, 90)
    path.cubicTo(36, 80, 22, 68, 22, 46)
    path.closeSubpath()
    return path


def draw_wreath(painter: QPainter) -> None:
    """Two laurel branches around the shield, tied at the bottom, their leaves pointing upwards."""
    centre, radius = QPointF(50, 53), 40.0
    leaf = QPainterPath()
    leaf.moveTo(0, 0)
    leaf.quadTo(4.6, -5.5, 0, -12)
    leaf.quadTo(-4.6, -5.5, 0, 0)
    # Angles on screen (y down): 90 is the bottom. Left branch 112 -> 250, right 68 -> -70.
    for first, step, turn in ((112.0, 17.0, 180.0), (68.0, -17.0, 0.0)):
        stem = QPainterPath()
        for i in range(9):
            phi = first + i * step
            rad = math.radians(phi)
            point = QPointF(centre.x() + radius * math.cos(rad), centre.y() + radius * math.sin(rad))
            if i == 0:
                stem.moveTo(point)
            else:
                stem.lineTo(point)
            for splay, colour in ((-34.0, LAUREL), (34.0, LAUREL_DARK)):
                transform = QTransform()
                transform.translate(point.x(), point.y())
                transform.rotate(phi + turn + splay)
                painter.setPen(Qt.PenStyle.NoPen)
                painter.setBrush(colour)
                painter.drawPath(transform.map(leaf))
        painter.setPen(QPen(LAUREL_DARK, 1.6, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawPath(stem)


def draw_emblem(painter: QPainter, size: int) -> None:
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
    painter.scale(size / 100, size / 100)
    detailed = size >= 48
    if detailed:
        draw_wreath(painter)
    else:
        # No wreath: the shield fills the square.
        painter.translate(50, 53)
        painter.scale(1.38, 1.18)
        painter.translate(-50, -53)
    shield = shield_path()
    # Parted per pale: blue on the left, vermillion on the right.
    painter.setPen(Qt.PenStyle.NoPen)
    painter.save()
    painter.setClipPath(shield)
    painter.fillRect(QRectF(0, 0, 50, 100), BLUE)
    painter.fillRect(QRectF(50, 0, 50, 100), VERMILLION)
    painter.restore()
    border = max(2.2, 130 / size) if size < 48 else 3.2
    painter.setPen(round_pen(CREAM, border * 1.9))
    painter.setBrush(Qt.BrushStyle.NoBrush)
    painter.drawPath(shield)
    painter.setPen(round_pen(INK, border * 0.7))
    painter.drawPath(shield)
    # The letters, cream with a dark edge so they read on both colours.
    text = "L&L" if size >= 32 else "L"
    font = QFont("DejaVu Serif")
    font.setStyleHint(QFont.StyleHint.Serif)
    font.setBold(True)
    font.setPixelSize(100)  # laid out big, then scaled into the shield
    path = QPainterPath()
    path.addText(0, 0, font, text)
    bounds = path.boundingRect()
    width = 44 if len(text) > 1 else 26
    scale = min(width / bounds.width(), 34 / bounds.height())
    transform = QTransform()
    transform.translate(50, 48)
    transform.scale(scale, scale)
    transform.translate(-bounds.center().x(), -bounds.center().y())
    letters = transform.map(path)
    painter.setPen(round_pen(INK, 2.4 if detailed else 3.0))
    painter.setBrush(CREAM)
    painter.drawPath(letters)
    painter.setPen(Qt.PenStyle.NoPen)  # the fill again over the inner half of the outline
    painter.drawPath(letters)


def render(size: int) -> QImage:
    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    draw_emblem(painter, size)
    painter.end()
    return image.convertToFormat(QImage.Format.Format_ARGB32)


def png_bytes(image: QImage) -> bytes:
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    if not image.save(buffer, "PNG"):
        raise SystemExit("Qt could not encode a PNG")
    buffer.close()
    return bytes(data.data())


def ico_bytes(pngs: dict[int, bytes]) -> bytes:
    """An ICO container of PNG images (Windows Vista and later read PNG entries at every size)."""
    sizes = sorted(pngs)
    header = struct.pack("<HHH", 0, 1, len(sizes))
    offset = len(header) + 16 * len(sizes)
    entries, payload = b"", b""
    for size in sizes:
        data = pngs[size]
        side = 0 if size >= 256 else size  # 0 means 256
        entries += struct.pack("<BBBBHHII", side, side, 0, 0, 1, 32, len(data), offset + len(payload))
        payload += data
    return header + entries + payload


def icns_bytes(pngs: dict[int, bytes]) -> bytes:
    """An ICNS container: 'icns', total length, then (type, length, PNG) elements, big-endian."""
    body = b""
    for kind, size in config.ICNS_TYPES:
        data = pngs[size]
        body += kind.encode("ascii") + struct.pack(">I", 8 + len(data)) + data
    return b"icns" + struct.pack(">I", 8 + len(body)) + body


def main() -> int:
    app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])
    del app
    out = config.ICONS
    out.mkdir(parents=True, exist_ok=True)
    pngs = {size: png_bytes(render(size)) for size in config.ICON_SIZES}
    for size, data in pngs.items():
        (out / f"{config.EXE_NAME}-{size}.png").write_bytes(data)
    (out / f"{config.EXE_NAME}.ico").write_bytes(ico_bytes({s: pngs[s] for s in config.ICO_SIZES}))
    (out / f"{config.EXE_NAME}.icns").write_bytes(icns_bytes(pngs))
    print(f"wrote {len(pngs)} PNGs, {config.EXE_NAME}.ico and {config.EXE_NAME}.icns to {out.relative_to(config.ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
