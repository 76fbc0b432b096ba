"""Combatants' pictures: read from a file into what the encounter keeps, and drawn from it.

A portrait is kept inside the encounter file as base64 PNG, square, at most
:data:`PORTRAIT_PX` on a side (``CombatantBase.portrait``). :func:`portrait_from_file` makes one
from any picture Qt can read (cropped to its centred square, scaled down), refusing with a
:class:`PictureRefused` (a :class:`~lnl_desktop.core.errors.RulesError`) what is not a picture,
cannot be read or is too large a file. :func:`portrait_pixmap` draws a kept portrait at a size
in the token's shape (a disc for the Party, a rounded square for Opponents), cached, so the
maps, the sheet and the Combatants list decode each picture once per size.
"""

from __future__ import annotations

import base64
import binascii
from functools import lru_cache
from pathlib import Path

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QRect, QRectF, QSize, Qt
from PySide6.QtGui import QImage, QImageReader, QPainter, QPainterPath, QPixmap

from lnl_desktop.core.encounter.model import MAX_PORTRAIT_CHARS, Side
from lnl_desktop.core.errors import RulesError

PORTRAIT_PX = 256  # the largest side kept in the file
MAX_FILE_BYTES = 20 * 1024 * 1024  # a picture file larger than this is refused before it is read
_SMALLER = (256, 192, 128, 96)  # tried in turn until the PNG fits MAX_PORTRAIT_CHARS


class PictureRefused(RulesError):
    """A file that cannot be a portrait; the message says why, and nothing was changed."""


def portrait_from_file(path: str | Path) -> str:
    """The portrait kept for the picture at ``path``: its centred square, at most
    :data:`PORTRAIT_PX` pixels on a side, as base64 PNG. Raises :class:`PictureRefused`."""
    path = Path(path)
    name = path.name or str(path)
    if not path.is_file():
        raise PictureRefused(f"{name}: no such picture file")
    size = path.stat().st_size
    if size > MAX_FILE_BYTES:
        raise PictureRefused(
            f"{name} is {size / 1024 / 1024:.0f} MB: a picture of at most {MAX_FILE_BYTES // 1024 // 1024} MB, please"
        )
    if size == 0:
        raise PictureRefused(f"{name} is empty: not a picture")
    reader = QImageReader(str(path))
    reader.setAutoTransform(True)  # a phone's photo the right way up
    if not reader.canRead():
        raise PictureRefused(f"{name} is not a picture this program can read (PNG, JPEG, GIF, BMP, WebP...)")
    full = reader.size()
    if full.isValid() and full.width() > 0 and full.height() > 0:
        # Decode only the centred square, already scaled down (JPEG does this cheaply).
        side = min(full.width(), full.height())
        reader.setClipRect(QRect((full.width() - side) // 2, (full.height() - side) // 2, side, side))
        target = min(side, PORTRAIT_PX)
        reader.setScaledSize(QSize(target, target))
    image = reader.read()
    if image.isNull():
        raise PictureRefused(f"{name} could not be read as a picture: {reader.errorString()}")
    return portrait_from_image(image, name)


def portrait_from_image(image: QImage, name: str = "The picture") -> str:
    """The portrait kept for ``image``: its centred square, scaled down, as base64 PNG."""
    if image.isNull() or image.width() < 1 or image.height() < 1:
        raise PictureRefused(f"{name} is not a picture")
    side = min(image.width(), image.height())
    if image.width() != image.height():
        image = image.copy((image.width() - side) // 2, (image.height() - side) // 2, side, side)
    image = image.convertToFormat(QImage.Format.Format_ARGB32)
    for limit in _SMALLER:
        target = min(side, limit)
        scaled = (
            image
            if target == image.width()
            else image.scaled(
                target, target, Qt.AspectRatioMode.IgnoreAspectRatio, Qt.TransformationMode.SmoothTransformation
            )
        )
        text = _png_base64(scaled)
        if len(text) <= MAX_PORTRAIT_CHARS:
            return text
    raise PictureRefused(f"{name} does not fit in a portrait")  # pragma: no cover - 96 px PNG is < 40 kB


def _png_base64(image: QImage) -> str:
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    if not image.save(buffer, "PNG"):
        raise PictureRefused("the picture could not be turned into PNG")
    buffer.close()
    return base64.b64encode(bytes(data.data())).decode("ascii")


@lru_cache(maxsize=32)
def portrait_image(data: str) -> QImage:
    """A kept portrait decoded (a null image when the text is not one)."""
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return QImage()
    image = QImage()
    image.loadFromData(raw)
    return image


def shape_path(side: Side | None, size: float) -> QPainterPath:
    """The token's shape filling a ``size`` square: a disc for the Party, a rounded square for
    Opponents (the same proportions as the token's body), a plain square for none."""
    path = QPainterPath()
    if side is Side.PARTY:
        path.addEllipse(QRectF(0, 0, size, size))
    elif side is Side.OPPONENTS:
        corner = size * 0.12 / 0.74
        path.addRoundedRect(QRectF(0, 0, size, size), corner, corner)
    else:
        path.addRect(QRectF(0, 0, size, size))
    return path


@lru_cache(maxsize=160)
def portrait_pixmap(data: str, size: int, side: Side | None = None) -> QPixmap:
    """The portrait ``data`` at ``size`` x ``size`` pixels in the token's shape for ``side`` (a disc
    for the Party, a rounded square for Opponents, square for None), transparent outside it.
    A null pixmap when ``data`` is not a picture."""
    image = portrait_image(data)
    if image.isNull() or size < 1:
        return QPixmap()
    out = QPixmap(size, size)
    out.fill(Qt.GlobalColor.transparent)
    painter = QPainter(out)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform, True)
    painter.setClipPath(shape_path(side, size))
    painter.drawImage(QRectF(0, 0, size, size), image, QRectF(image.rect()))
    painter.end()
    return out


def pixmap_bucket(on_screen: float) -> int:
    """The cached size to draw a portrait shown ``on_screen`` pixels wide: few sizes, never blurry."""
    for size in (24, 48, 96, 160, PORTRAIT_PX):
        if on_screen <= size:
            return size
    return PORTRAIT_PX
