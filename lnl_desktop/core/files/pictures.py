"""Map pictures, checked without a window: what a picture's bytes say, and where a picture given by
path may come from.

A picture's first bytes say its format (:func:`image_kind`) and its header its size
(:func:`image_size`), before anything is decoded: a few MB can claim a picture that would take
gigabytes to show. :func:`image_damage` says whether the bytes stop before the picture's end (a
file cut short): a JPEG decoder would show the missing part grey without a word.

An encounter names its map picture by path only in older files (a picture picked now is kept in
the file). Such a path is read only from the encounter file's folder and its subfolders
(:func:`picture_beside`): a GM opens encounters from other people, and a file must not make the
program read anything else on the disk. Absolute paths, ``..`` that leaves the folder, links that
point out of it, devices, pipes and folders are refused, and the size is checked before reading.
"""

from __future__ import annotations

import math
import os
import re
import stat
import struct
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Literal

from lnl_desktop.core.encounter.map_model import MAX_PICTURE_PIXELS
from lnl_desktop.core.errors import RulesError

ImageFormat = Literal["png", "jpeg", "webp"]

# A picture file is read up to this much: as much as the largest map file's picture (a 16k x 16k PNG).
MAX_PICTURE_FILE_BYTES = 192 * 2**20
_MB = 2**20
CONFINED = "a picture given by path must be beside the encounter file or in a folder under it"


class PictureError(RulesError):
    """A map picture that cannot be shown; ``reason`` completes "the picture … is …"."""

    def __init__(self, name: str, reason: str) -> None:
        super().__init__(f"{name} is {reason}")
        self.name = name
        self.reason = reason


# -- what the bytes say -----------------------------------------------------------------------


def image_kind(raw: bytes) -> ImageFormat | None:
    """'png', 'jpeg' or 'webp' by the file's first bytes, else None."""
    if raw.startswith(b"\x89PNG\r\n\x1a\n"):
        return "png"
    if raw.startswith(b"\xff\xd8\xff"):
        return "jpeg"
    if raw[:4] == b"RIFF" and raw[8:12] == b"WEBP":
        return "webp"
    return None


def image_size(raw: bytes, kind: ImageFormat) -> tuple[int, int] | None:
    """The picture's width and height from its header, or None if the header does not say."""
    try:
        if kind == "png":
            if raw[12:16] != b"IHDR":
                return None
            w, h = struct.unpack(">II", raw[16:24])
        elif kind == "jpeg":
            frame = _jpeg_frame(raw)
            if frame is None:
                return None
            h, w = struct.unpack(">HH", raw[frame + 5 : frame + 9])
        else:
            found = _webp_size(raw)
            if found is None:
                return None
            w, h = found
    except struct.error:
        return None
    return (w, h) if w > 0 and h > 0 else None


def image_damage(raw: bytes, kind: ImageFormat) -> str | None:
    """Why the bytes cannot be the whole picture (cut short, a damaged PNG chunk), or None.

    Only the structure is looked at, never the pixels: the PNG's chunks up to IEND, the JPEG's
    end-of-image marker after its frame header, the WEBP's length against its RIFF header."""
    if kind == "png":
        return _png_damage(raw)
    if kind == "jpeg":
        frame = _jpeg_frame(raw)
        if frame is None:
            return "the JPEG has no frame header"
        if raw.rfind(b"\xff\xd9", frame) == -1:
            return "the JPEG stops before its end: the file was cut short"
        return None
    # One byte of slack: a writer may leave off the pad byte after an odd-sized last chunk.
    if len(raw) < 8 or 8 + int.from_bytes(raw[4:8], "little") > len(raw) + 1:
        return "the WEBP is shorter than its header says: the file was cut short"
    return None


def check_picture(raw: bytes, name: str, kinds: tuple[ImageFormat, ...] = ("png", "jpeg")) -> ImageFormat:
    """The picture's format, if ``raw`` is a whole picture of one of ``kinds`` the table can show,
    else :class:`PictureError` saying why."""
    kind = image_kind(raw)
    if kind is None or kind not in kinds:
        return _refuse(name, f"not a {' or '.join(k.upper() for k in kinds)} picture")
    size = image_size(raw, kind)
    if size is None:
        return _refuse(name, f"a damaged {kind.upper()} (its header does not say its size)")
    if size[0] * size[1] > MAX_PICTURE_PIXELS:
        return _refuse(
            name,
            f"{size[0]:,} x {size[1]:,} pixels; the most a map picture may have is {MAX_PICTURE_PIXELS:,} pixels",
        )
    damage = image_damage(raw, kind)
    if damage is not None:
        return _refuse(name, f"not a whole picture ({damage})")
    return kind


def _refuse(name: str, reason: str) -> ImageFormat:
    raise PictureError(name, reason)


def _png_damage(raw: bytes) -> str | None:
    cut = "the PNG stops before its last chunk: the file was cut short"
    i = 8
    while i + 8 <= len(raw):
        length, kind = struct.unpack_from(">I4s", raw, i)
        if not kind.isalpha():  # chunk names are four ASCII letters
            return "a chunk of the PNG is damaged"
        i += 12 + length  # length, name, data, CRC
        if i > len(raw):
            return cut
        if kind == b"IEND":
            return None
    return cut


# Start-of-frame markers carry the size; C4 (Huffman tables), C8 and CC (arithmetic) do not.
_SOF = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}


def _jpeg_frame(raw: bytes) -> int | None:
    """Where the JPEG's frame header (its start-of-frame marker) is, or None."""
    i = 2
    while i + 4 <= len(raw):
        if raw[i] != 0xFF:
            return None
        marker = raw[i + 1]
        if marker == 0xFF:  # fill byte
            i += 1
            continue
        if marker in (0x01, *range(0xD0, 0xD8)):  # markers without a length
            i += 2
            continue
        if marker in (0xD9, 0xDA):  # end of image, or the scan began without a frame
            return None
        if marker in _SOF:
            return i if i + 9 <= len(raw) else None
        (length,) = struct.unpack(">H", raw[i + 2 : i + 4])
        i += 2 + length
    return None


def _webp_size(raw: bytes) -> tuple[int, int] | None:
    chunk, data = raw[12:16], raw[20:]
    if chunk == b"VP8 " and data[3:6] == b"\x9d\x01\x2a":
        w, h = struct.unpack("<HH", data[6:10])
        return w & 0x3FFF, h & 0x3FFF
    if chunk == b"VP8L" and data[:1] == b"\x2f":
        bits = int.from_bytes(data[1:5], "little")
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if chunk == b"VP8X":
        return int.from_bytes(data[4:7], "little") + 1, int.from_bytes(data[7:10], "little") + 1
    return None


# -- where a picture given by path may come from -----------------------------------------------------

_SEPARATORS = re.compile(r"[\\/]")
# NUL and the other control characters (C0, DEL, C1): no picture file a GM picks is named with one, and
# the system refuses a path holding NUL outright.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
CONTROL = "a path with a control character in it (such as NUL); a picture's path is plain text"
_NAME_CHARS = 80  # of a path, in a message


def has_control(path: str) -> bool:
    """Whether a path holds a control character (no path to a picture does)."""
    return _CONTROL.search(path) is not None


def _named(image: str) -> str:
    """How a message names the picture path ``image``: quoted, a long one cut short."""
    return repr(image) if len(image) <= _NAME_CHARS else repr(image[:_NAME_CHARS]) + "…"


def picture_beside(image: str, folder: Path | None) -> Path:
    """The file the picture path ``image`` names in ``folder`` (the encounter file's) or a folder
    under it, links followed; :class:`PictureError` when it is elsewhere, not there, or no path at
    all (a control character in it, too long for the system)."""
    name = _named(image)
    if _CONTROL.search(image):
        raise PictureError(name, CONTROL)
    if folder is None:
        raise PictureError(name, "not found: the encounter has not been saved, so it has no folder to look in")
    if PurePosixPath(image).is_absolute() or PureWindowsPath(image).drive or PureWindowsPath(image).root:
        raise PictureError(name, f"an absolute path; {CONFINED}")
    depth = 0
    for part in _SEPARATORS.split(image):  # both separators: a Windows path means the same anywhere
        depth += -1 if part == ".." else 0 if part in ("", ".") else 1
        if depth < 0:
            raise PictureError(name, f"outside the encounter's folder; {CONFINED}")
    try:
        home = Path(folder).resolve()
        path = (home / Path(*[p for p in _SEPARATORS.split(image) if p not in ("", ".")])).resolve()
        if not path.is_relative_to(home):
            raise PictureError(name, f"a link to a file outside the encounter's folder; {CONFINED}")
        if not path.exists():
            raise PictureError(name, "not found beside the encounter file")
    except PictureError:
        raise
    except (OSError, ValueError) as error:  # a name too long for the system, a link loop
        raise PictureError(name, f"unreadable ({getattr(error, 'strerror', None) or error})") from None
    return path


def read_picture_file(path: Path, name: str, limit: int = MAX_PICTURE_FILE_BYTES) -> bytes:
    """The bytes of the picture file ``path`` (``name`` in messages): a regular file of at most
    ``limit`` bytes, or :class:`PictureError`. The size is checked before anything is read, and
    a link swapped in after the path was checked is not followed."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
    if _CONTROL.search(str(path)):
        raise PictureError(name, CONTROL)
    try:
        fd = os.open(path, flags)  # non-blocking: a pipe in the picture's place cannot hang the table
    except ValueError:  # not a path the system takes
        raise PictureError(name, CONTROL) from None
    except FileNotFoundError:
        raise PictureError(name, "not found") from None
    except OSError as error:
        if os.path.islink(path):
            raise PictureError(name, "a link where the picture was checked; it was not followed") from None
        raise PictureError(name, f"unreadable ({error.strerror or error})") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise PictureError(name, "not a picture file (a folder, a device or a pipe)")
        if info.st_size > limit:
            raise PictureError(
                name, f"{math.ceil(info.st_size / _MB):,} MB; a map picture file is read up to {limit / _MB:,.4g} MB"
            )
        chunks, left = [], limit + 1  # a file that grows meanwhile is still cut there
        while left > 0 and (chunk := os.read(fd, min(left, 2**24))):
            chunks.append(chunk)
            left -= len(chunk)
    except OSError as error:
        raise PictureError(name, f"unreadable ({error.strerror or error})") from None
    finally:
        os.close(fd)
    raw = b"".join(chunks)
    if len(raw) > limit:
        raise PictureError(name, f"over {limit / _MB:,.4g} MB; a map picture file is read up to that size")
    return raw


def read_picture_beside(image: str, folder: Path | None) -> bytes:
    """The whole PNG or JPEG the encounter's picture path ``image`` names, read from the
    encounter file's ``folder`` or a folder under it, or :class:`PictureError` saying why not."""
    raw = read_picture_file(picture_beside(image, folder), _named(image))
    check_picture(raw, _named(image))
    return raw
