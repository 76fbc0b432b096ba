"""Names and labels as they may be shown: control and invisible format characters made visible.

A name or label is kept as the GM typed it (or as a file had it); only what is *shown* changes.
:func:`visible` writes every character that a terminal, a browser or Qt's text layout would obey
or hide instead of showing as a backslash escape, the way Python writes it: ``\\x1b`` (an ESC),
``\\u202e`` (a right-to-left override), ``\\U000e0041`` (a tag letter), and ``\\n``, ``\\r``, ``\\t``
for the three usual ones. Escaped are:

* control characters: C0 (``\\x00``-``\\x1f``), DEL (``\\x7f``), C1 (``\\x80``-``\\x9f``);
* the bidirectional controls (U+061C, U+200E, U+200F, U+202A-U+202E, U+2066-U+2069) and every
  other format character (Unicode's category Cf: the soft hyphen, zero-width space and joiners,
  word joiner and invisible operators, the byte order mark, tag characters...);
* the line and paragraph separators U+2028 and U+2029, lone surrogates, and the Hangul fillers
  (letters that draw nothing).

Letters of every script, accents, emoji and spaces are shown as they are. Two joiners keep their
work where they have one that shows: a zero-width joiner between two emoji (a family, a profession,
a flag) and a zero-width (non-)joiner between two letters of a script that shapes by them (Arabic,
Persian, the Indic scripts: anything past U+058F); tags inside an emoji flag's tag sequence too.
Text with nothing to escape is returned as the same object: printable ASCII after ``str.isascii``
and ``str.isprintable``, anything else after one scan by a precompiled pattern (both at C speed).

Pure Python: no Qt.
"""

from __future__ import annotations

import re
import unicodedata

_CONTROLS = "\x00-\x1f\x7f-\x9f"
# Unicode's format characters (Cf), Unicode 15.1, plus the separators, fillers and surrogates.
_FORMAT = (
    "\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b-\u200f\u202a-\u202e"
    "\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd\U00013430-\U0001343f"
    "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f"
)
_OTHER = "\u2028\u2029\u115f\u1160\u3164\uffa0\ud800-\udfff"
# A flag's tag sequence (England, Scotland, Wales): black flag, tag letters, cancel tag.
_FLAG = "\U0001f3f4[\U000e0020-\U000e007e]+\U000e007f"

_ONE_LINE = re.compile(f"{_FLAG}|[{_CONTROLS}{_FORMAT}{_OTHER}]")
_LINES = re.compile(f"{_FLAG}|[\x00-\x08\x0b-\x1f\x7f-\x9f{_FORMAT}{_OTHER}]")  # \n and \t kept

_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
_ZWNJ, _ZWJ = "\u200c", "\u200d"
_EMOJI_END = frozenset({"\ufe0f", "\u20e3"})  # an emoji's presentation selector, a keycap


def _escape(ch: str) -> str:
    named = _NAMED.get(ch)
    if named is not None:
        return named
    code = ord(ch)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def _is_emoji(ch: str, before: bool) -> bool:
    """Whether ``ch`` is an emoji a joiner may join (``before``: the one it follows)."""
    category = unicodedata.category(ch)
    if category == "So":
        return True
    # what may end the emoji before a joiner: a skin tone (Sk, U+1F3FB-U+1F3FF) or a selector
    return before and (ch in _EMOJI_END or 0x1F3FB <= ord(ch) <= 0x1F3FF)


def _is_shaping_letter(ch: str) -> bool:
    """A letter or mark of a script past Armenian, where joiners shape the letters."""
    return ord(ch) > 0x58F and unicodedata.category(ch)[0] in "LM"


def _joins(text: str, at: int) -> bool:
    """Whether the joiner at ``at`` has work that shows: between two emoji (a zero-width joiner) or
    two letters of a shaping script (either joiner)."""
    if at == 0 or at + 1 >= len(text):
        return False
    before, after = text[at - 1], text[at + 1]
    if text[at] == _ZWJ and _is_emoji(before, True) and _is_emoji(after, False):
        return True
    return _is_shaping_letter(before) and _is_shaping_letter(after)


def _replace(match: re.Match[str]) -> str:
    found = match.group()
    if len(found) > 1:  # a flag's tag sequence
        return found
    if found in (_ZWJ, _ZWNJ) and _joins(match.string, match.start()):
        return found
    return _escape(found)


def visible(text: str, lines: bool = False) -> str:
    """``text`` as it may be shown: every control and invisible format character written as a
    backslash escape (``"Gob\\u202elin"``), everything else as it is. ``lines`` keeps newlines and
    tabs, for a widget of several lines (a note, a drawing's label); a name or a one-line label
    never passes it. Ordinary text comes back as the same object."""
    if text.isascii() and text.isprintable():
        return text
    return (_LINES if lines else _ONE_LINE).sub(_replace, text)
