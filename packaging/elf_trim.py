"""Linux only: make the bundle's ELF binaries smaller without changing what they do.

Two things, both used by packaging/lnl-desktop.spec:

**Debug information.** Some Pythons (pyenv's among them) install libpython and the standard
library's extension modules with their debug information: 23 MB instead of 6 MB for libpython.
``strip_debug_info`` strips the binaries that carry ``.debug_*`` sections (``strip --strip-unneeded``)
and leaves every other file alone: a full ``strip`` (PyInstaller's ``strip=True``)
breaks libraries that auditwheel patched, such as numpy's bundled OpenBLAS.

**ICU's data.** PySide6's Linux wheels ship ICU 73, and QtCore links to it; its data library
(``libicudata.so.73``, 32 MB) is a fifth of the bundle. QtCore calls ICU for collation
(``ucol_*``: QCollator, file dialogs' sorting), legacy text codecs (``ucnv_*``), time zone names
(``ucal_*``) and locale case mapping (data built into libicuuc). It never calls ICU's break
iterators, transliterators, spelled-out numbers, or its display names of units, currencies,
languages and regions (Qt has its own CLDR tables). Those trees are removed here; collation,
codecs, zones, the locales' own data and normalisation stay.

The data is ICU's "common data" package (the ``icudtNNl_dat`` symbol of the library): a
header, a sorted table of item names and offsets, then the items, each 16-byte aligned. This
module reads it straight from the ELF file, writes a package without the removed items, and
builds a new library exporting the same symbol with the C compiler (``cc``, via an assembler
``.incbin``). ``check_icu_data`` then loads the new library in place of the original under the build
venv's PySide6 and exercises every ICU path Qt uses; if anything fails (or there is no ``cc``),
the spec keeps the original library.
"""

from __future__ import annotations

import os
import re
import shutil
import struct
import subprocess
import sys
from pathlib import Path

# Item trees Qt never reads, and single root items likewise unused: character names (unames),
# StringPrep profiles (IDNA2003, .spp) and spoof-checking data (.cfu).
REMOVED_TREES = ("brkitr", "curr", "lang", "rbnf", "region", "translit", "unit")
REMOVED_SUFFIXES = (".spp", ".cfu")
REMOVED_NAMES = ("unames.icu",)

_SYMBOL = re.compile(rb"^icudt\d+_dat$")


def section_names(path: Path) -> list[str]:
    """The section names of an ELF64 little-endian file (empty for anything else)."""
    with path.open("rb") as handle:
        head = handle.read(64)
        if len(head) < 64 or head[:4] != b"\x7fELF" or head[4] != 2 or head[5] != 1:
            return []
        (shoff,) = struct.unpack_from("<Q", head, 0x28)
        shentsize, shnum, shstrndx = struct.unpack_from("<HHH", head, 0x3A)
        handle.seek(shoff)
        table = handle.read(shentsize * shnum)
        if shstrndx >= shnum or len(table) < shentsize * shnum:
            return []
        _, _, _, _, names_at, names_size, *_ = struct.unpack_from("<IIQQQQIIQQ", table, shstrndx * shentsize)
        handle.seek(names_at)
        names = handle.read(names_size)
    result = []
    for index in range(shnum):
        (name_at,) = struct.unpack_from("<I", table, index * shentsize)
        result.append(names[name_at : names.index(b"\0", name_at)].decode("ascii", "replace"))
    return result


def strip_debug_info(binaries: list, workdir: Path) -> tuple[list, int]:
    """PyInstaller binary entries, those with debug sections replaced by stripped copies; bytes saved.

    Only files that carry ``.debug_*`` sections are touched; they are stripped of everything
    a shared library does not need to be loaded and linked against (``--strip-unneeded``, what
    Linux distributions do to their own libraries).
    """
    strip = shutil.which("strip")
    if not strip:
        return binaries, 0
    result, saved = [], 0
    for dest, src, typecode in binaries:
        source = Path(src)
        debug = typecode in ("BINARY", "EXTENSION") and source.is_file()
        if debug and any(name.startswith(".debug") for name in section_names(source)):
            target = workdir / "stripped" / dest
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
            if subprocess.run([strip, "--strip-unneeded", str(target)], capture_output=True).returncode == 0:
                saved += source.stat().st_size - target.stat().st_size
                src = str(target)
        result.append((dest, src, typecode))
    return result, saved


def find_data_symbol(library: bytes) -> tuple[str, int, int]:
    """(symbol name, file offset, size) of the ``icudtNN_dat`` object in an ELF64 library."""
    if library[:4] != b"\x7fELF" or library[4] != 2 or library[5] != 1:
        raise ValueError("not a little-endian ELF64 file")
    (shoff,) = struct.unpack_from("<Q", library, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", library, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", library, shoff + i * shentsize) for i in range(shnum)]
    for _, kind, _, _, offset, size, link, _, _, entsize in sections:
        if kind != 11:  # SHT_DYNSYM
            continue
        strtab = sections[link]
        for index in range(size // entsize):
            name_at, _, _, shndx, value, length = struct.unpack_from("<IBBHQQ", library, offset + index * entsize)
            start = strtab[4] + name_at
            name = library[start : library.index(b"\0", start)]
            if _SYMBOL.match(name) and shndx < len(sections):
                home = sections[shndx]
                return name.decode(), home[4] + value - home[3], length
    raise ValueError("no icudtNN_dat symbol")


def read_package(blob: bytes) -> tuple[bytes, list[tuple[str, bytes]]]:
    """The header and the (name, data) items of an ICU common data package."""
    header_size, magic1, magic2 = struct.unpack_from("<HBB", blob, 0)
    if (magic1, magic2) != (0xDA, 0x27) or blob[12:16] != b"CmnD":
        raise ValueError("not an ICU common data package")
    (count,) = struct.unpack_from("<I", blob, header_size)
    entries = [struct.unpack_from("<II", blob, header_size + 4 + 8 * i) for i in range(count)]
    ends = [data for _, data in entries[1:]] + [len(blob) - header_size]
    items = []
    for (name_at, data_at), end in zip(entries, ends, strict=True):
        start = header_size + name_at
        name = blob[start : blob.index(b"\0", start)].decode("ascii")
        items.append((name, blob[header_size + data_at : header_size + end]))
    return blob[:header_size], items


def write_package(header: bytes, items: list[tuple[str, bytes]]) -> bytes:
    """An ICU common data package: header, count, (name, data) offsets, names, 16-aligned items."""
    items = sorted(items)  # ICU finds items by binary search on the names
    names = b"".join(name.encode("ascii") + b"\0" for name, _ in items)
    table = 4 + 8 * len(items)
    name_offsets, at = [], table
    for name, _ in items:
        name_offsets.append(at)
        at += len(name) + 1
    at = -(-at // 16) * 16
    data_offsets, chunks, size = [], [], 0
    for _, data in items:
        data_offsets.append(at + size)
        padded = data + b"\xaa" * (-len(data) % 16)  # ICU pads with 0xAA
        chunks.append(padded)
        size += len(padded)
    body = b"".join(chunks)
    toc = struct.pack("<I", len(items)) + b"".join(
        struct.pack("<II", n, d) for n, d in zip(name_offsets, data_offsets, strict=True)
    )
    layout = toc + names
    layout += b"\xaa" * (data_offsets[0] - len(layout) if data_offsets else 0)
    return header + layout + body


def removed(name: str) -> bool:
    parts = name.split("/")  # "icudt73l/brkitr/char.brk"
    if len(parts) > 2 and parts[1] in REMOVED_TREES:
        return True
    return parts[-1] in REMOVED_NAMES or parts[-1].endswith(REMOVED_SUFFIXES)


def trimmed_icu_data(original: Path, workdir: Path) -> Path | None:
    """A copy of ``original`` (libicudata.so.NN) without the unused data, or None if it cannot be made."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    if not compiler:
        print("elf_trim: no C compiler (cc): the ICU data library is bundled whole")
        return None
    library = original.read_bytes()
    try:
        symbol, offset, size = find_data_symbol(library)
        header, items = read_package(library[offset : offset + size])
    except ValueError as error:  # a layout this module does not know: leave the library as it is
        print(f"elf_trim: {original.name}: {error}: the ICU data library is bundled whole")
        return None
    kept = [(name, data) for name, data in items if not removed(name)]
    workdir.mkdir(parents=True, exist_ok=True)
    data_file = workdir / "icudata-trimmed.dat"
    data_file.write_bytes(write_package(header, kept))
    source = workdir / "icudata-trimmed.S"
    source.write_text(
        "\n".join(
            [
                '.section .rodata, "a"',
                f".globl {symbol}",
                f".type {symbol}, @object",
                ".balign 16",
                f"{symbol}:",
                f'.incbin "{data_file.name}"',
                f".size {symbol}, . - {symbol}",
                '.section .note.GNU-stack, "", @progbits',
                "",
            ]
        ),
        encoding="ascii",
    )
    target = workdir / original.name
    command = [compiler, "-shared", "-nostdlib", f"-Wl,-soname,{original.name}", "-o", str(target), source.name]
    result = subprocess.run(command, cwd=workdir, capture_output=True, text=True)
    if result.returncode != 0:
        print(f"elf_trim: building the trimmed library failed, bundling ICU's data whole:\n{result.stderr}")
        return None
    return target


def check_icu_data(trimmed: Path, python: str = sys.executable) -> bool:
    """Whether every ICU path QtCore takes works with ``trimmed`` loaded in place of the original.

    Runs bundle_self_check.py's ICU check under ``python`` (the build venv's, with PySide6) with the
    trimmed library preloaded: it has the original's soname, so the dynamic linker uses it.
    """
    env = dict(os.environ, LD_PRELOAD=str(trimmed), QT_QPA_PLATFORM="offscreen")
    check = Path(__file__).resolve().parent / "bundle_self_check.py"
    result = subprocess.run([python, str(check), "icu"], capture_output=True, text=True, env=env)
    if result.returncode != 0 or "self check: all ok" not in result.stdout:
        print(f"elf_trim: the trimmed ICU data failed Qt's ICU checks, bundling it whole:\n{result.stdout[-2000:]}")
        return False
    return True
