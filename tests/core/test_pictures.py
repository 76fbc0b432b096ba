"""Map pictures without a window: whole pictures told from cut-short ones, and a picture given by
path read only from the encounter file's folder and the folders under it."""

from __future__ import annotations

import os
import struct
import zlib
from pathlib import Path

import pytest

from lnl_desktop.core.files import pictures
from lnl_desktop.core.files.pictures import (
    PictureError,
    check_picture,
    image_damage,
    picture_beside,
    read_picture_beside,
    read_picture_file,
)


def chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def png(width: int = 6, height: int = 4) -> bytes:
    """A real PNG (8-bit RGB), made without any imaging library."""
    row = b"\x00" + bytes((90, 120, 60)) * width
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(row * height))
        + chunk(b"IEND", b"")
    )


def jpeg(width: int = 16, height: int = 8, *, end: bool = True) -> bytes:
    """A JPEG's structure: SOI, an EXIF-like segment holding a thumbnail's end marker, a frame
    header, a scan, and the end-of-image marker (or not)."""
    app1 = b"\xff\xe1" + struct.pack(">H", 8) + b"Ex\xff\xd9\0\0"  # a thumbnail's EOI, before the frame
    sof = b"\xff\xc0" + struct.pack(">HBHHB", 11, 8, height, width, 1) + b"\x01\x11\x00"
    sos = b"\xff\xda" + struct.pack(">HB", 8, 1) + b"\x01\x00\x00\x3f\x00"
    return b"\xff\xd8" + app1 + sof + sos + b"\x12\x34\xff\x00" * 50 + (b"\xff\xd9" if end else b"")


def webp(width: int = 30, height: int = 20) -> bytes:
    bits = (width - 1) | ((height - 1) << 14)
    data = b"\x2f" + bits.to_bytes(4, "little") + b"\0" * 9
    return b"RIFF" + struct.pack("<I", 4 + 8 + len(data)) + b"WEBP" + b"VP8L" + struct.pack("<I", len(data)) + data


def png_header(width: int, height: int) -> bytes:
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))


# -- whole pictures ---------------------------------------------------------------------------


def test_whole_pictures_have_no_damage() -> None:
    assert image_damage(png(), "png") is None
    assert image_damage(jpeg(), "jpeg") is None
    assert image_damage(webp(), "webp") is None
    assert check_picture(png(), "map.png") == "png"
    assert check_picture(jpeg(), "map.jpg") == "jpeg"


@pytest.mark.parametrize("keep", [0.5, 0.9, -3])
def test_a_png_cut_short_is_not_a_whole_picture(keep: float) -> None:
    raw = png(40, 30)
    cut = raw[: int(len(raw) * keep)] if keep > 0 else raw[: int(keep)]
    assert image_damage(cut, "png") == "the PNG stops before its last chunk: the file was cut short"
    with pytest.raises(PictureError, match=r"map.png is not a whole picture \(the PNG stops before its last chunk"):
        check_picture(cut, "map.png")


def test_a_jpeg_cut_short_or_a_damaged_png_chunk_is_said() -> None:
    raw = jpeg()
    assert image_damage(raw[: len(raw) // 2], "jpeg") == "the JPEG stops before its end: the file was cut short"
    assert image_damage(jpeg(end=False), "jpeg") is not None  # the thumbnail's end marker does not count
    damaged = png()[:33] + b"\0" * 64  # the header, then no chunk
    assert image_damage(damaged, "png") == "a chunk of the PNG is damaged"
    short = webp()
    assert image_damage(short[: len(short) - 5], "webp") is not None


def test_a_wrong_signature_or_a_huge_claim_is_refused_before_decoding() -> None:
    with pytest.raises(PictureError, match="map.png is not a PNG or JPEG picture"):
        check_picture(b"GIF89a" + png()[6:], "map.png")
    with pytest.raises(PictureError, match="not a PNG or JPEG picture"):
        check_picture(webp(), "map.webp")  # the map keeps PNG or JPEG
    with pytest.raises(PictureError, match=r"100,000 x 100,000 pixels; the most a map picture may have is"):
        check_picture(png_header(100_000, 100_000) + chunk(b"IEND", b""), "bomb.png")


# -- a picture given by path ----------------------------------------------------------------------


@pytest.fixture
def encounter_folder(tmp_path: Path) -> Path:
    """tmp/shared/fight/ holds the encounter; tmp/shared/outside-secret.png lies outside it."""
    folder = tmp_path / "shared" / "fight"
    (folder / "maps").mkdir(parents=True)
    (folder / "map.png").write_bytes(png(6, 4))
    (folder / "maps" / "cave.png").write_bytes(png(8, 8))
    (tmp_path / "shared" / "outside-secret.png").write_bytes(png(3, 3))
    return folder


def test_a_picture_beside_the_file_or_in_a_subfolder_is_read(encounter_folder: Path) -> None:
    assert read_picture_beside("map.png", encounter_folder) == png(6, 4)
    assert read_picture_beside("maps/cave.png", encounter_folder) == png(8, 8)
    assert read_picture_beside("maps\\cave.png", encounter_folder) == png(8, 8)  # written on Windows
    assert read_picture_beside("./maps/../map.png", encounter_folder) == png(6, 4)  # .. that stays inside
    os.symlink(encounter_folder / "maps" / "cave.png", encounter_folder / "link.png")
    assert read_picture_beside("link.png", encounter_folder) == png(8, 8)  # a link within the folder


@pytest.mark.parametrize(
    ("image", "said"),
    [
        ("/etc/passwd", "an absolute path"),
        ("/proc/self/environ", "an absolute path"),
        ("/dev/urandom", "an absolute path"),
        ("C:\\Windows\\win.ini", "an absolute path"),
        ("\\\\server\\share\\map.png", "an absolute path"),
        ("../../../../etc/passwd", "outside the encounter's folder"),
        ("../outside-secret.png", "outside the encounter's folder"),
        ("maps/../../outside-secret.png", "outside the encounter's folder"),
        ("..\\outside-secret.png", "outside the encounter's folder"),
    ],
)
def test_a_path_out_of_the_encounters_folder_is_refused(encounter_folder: Path, image: str, said: str) -> None:
    with pytest.raises(PictureError) as refused:
        read_picture_beside(image, encounter_folder)
    assert refused.value.reason.startswith(said)
    assert refused.value.reason.endswith(pictures.CONFINED)
    assert str(refused.value).startswith(repr(image))


def test_an_absolute_path_to_a_real_picture_outside_is_refused(encounter_folder: Path) -> None:
    outside = encounter_folder.parent / "outside-secret.png"
    with pytest.raises(PictureError, match="an absolute path"):
        read_picture_beside(str(outside), encounter_folder)


def test_links_that_point_out_of_the_folder_are_refused(encounter_folder: Path) -> None:
    os.symlink(encounter_folder.parent / "outside-secret.png", encounter_folder / "secret.png")
    os.symlink("/dev/urandom", encounter_folder / "noise.png")
    os.symlink(encounter_folder.parent, encounter_folder / "up")  # a folder link
    for image in ("secret.png", "noise.png", "up/outside-secret.png"):
        with pytest.raises(PictureError, match="a link to a file outside the encounter's folder"):
            read_picture_beside(image, encounter_folder)


def test_pipes_folders_and_missing_files_are_refused_without_reading(encounter_folder: Path) -> None:
    os.mkfifo(encounter_folder / "pipe.png")  # reading it would wait forever
    with pytest.raises(PictureError, match=r"not a picture file \(a folder, a device or a pipe\)"):
        read_picture_beside("pipe.png", encounter_folder)
    with pytest.raises(PictureError, match="not a picture file"):
        read_picture_beside("maps", encounter_folder)
    with pytest.raises(PictureError, match="'gone.png' is not found beside the encounter file"):
        read_picture_beside("gone.png", encounter_folder)
    with pytest.raises(PictureError, match="the encounter has not been saved"):
        read_picture_beside("map.png", None)
    (encounter_folder / "notes.png").write_text("a shopping list", encoding="utf-8")
    with pytest.raises(PictureError, match="'notes.png' is not a PNG or JPEG picture"):
        read_picture_beside("notes.png", encounter_folder)
    (encounter_folder / "torn.png").write_bytes(png(40, 30)[:60])
    with pytest.raises(PictureError, match="'torn.png' is not a whole picture"):
        read_picture_beside("torn.png", encounter_folder)


def test_the_size_is_checked_before_anything_is_read(encounter_folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    huge = encounter_folder / "huge.png"
    with huge.open("wb") as file:
        file.truncate(pictures.MAX_PICTURE_FILE_BYTES + 1)  # sparse: no disk taken
    monkeypatch.setattr(pictures.os, "read", lambda *_: pytest.fail("a file over the limit was read"))
    with pytest.raises(PictureError, match=r"'huge.png' is 193 MB; a map picture file is read up to 192 MB"):
        read_picture_beside("huge.png", encounter_folder)
    with pytest.raises(PictureError, match=r"'map.png' is 1 MB; a map picture file is read up to"):
        read_picture_file(encounter_folder / "map.png", "'map.png'", limit=10)


def test_the_path_found_is_inside_the_folder(encounter_folder: Path) -> None:
    assert picture_beside("maps/cave.png", encounter_folder) == (encounter_folder / "maps" / "cave.png").resolve()


@pytest.mark.parametrize("image", ["inside.png\u0000x", "in\u001bside.png", "inside.png\u0085", "inside\u007f.png"])
def test_a_control_character_in_a_path_is_a_picture_error(encounter_folder: Path, image: str) -> None:
    """A NUL in the path made the system's calls raise ValueError: now the picture error a missing
    picture gives, so the encounter opens without its picture and the GM is told."""
    with pytest.raises(PictureError) as refused:
        read_picture_beside(image, encounter_folder)
    assert refused.value.reason == pictures.CONTROL and refused.value.name == repr(image)
    with pytest.raises(PictureError, match="control character"):
        picture_beside(image, None)
    with pytest.raises(PictureError, match="control character"):
        read_picture_file(encounter_folder / image, "the picture")


@pytest.mark.parametrize("image", ["x" * 5_000 + ".png", "a/" * 3_000 + "b.png"])
def test_a_path_too_long_for_the_system_is_a_picture_error_named_short(encounter_folder: Path, image: str) -> None:
    with pytest.raises(PictureError) as refused:
        read_picture_beside(image, encounter_folder)
    assert refused.value.name.endswith("…") and len(refused.value.name) < 100
    assert "unreadable" in refused.value.reason or "not found" in refused.value.reason
