"""visible(): control, bidi and invisible format characters shown as escapes; everything else as typed."""

from __future__ import annotations

import timeit
import unicodedata

import pytest

from lnl_desktop.core.encounter.words import visible


@pytest.mark.parametrize(
    ("typed", "shown"),
    [
        ("Gob\x1b[31mlin", "Gob\\x1b[31mlin"),  # ESC: a terminal would obey it
        ("a\x00b", "a\\x00b"),
        ("bell\x07", "bell\\x07"),
        ("del\x7f", "del\\x7f"),
        ("csi\x9b2J", "csi\\x9b2J"),  # C1
        ("nel\x85", "nel\\x85"),
        ("two\nlines", "two\\nlines"),
        ("tab\there", "tab\\there"),
        ("cr\rhere", "cr\\rhere"),
    ],
)
def test_control_characters_are_escaped(typed: str, shown: str) -> None:
    assert visible(typed) == shown


@pytest.mark.parametrize("code", [0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069])
def test_bidi_embeddings_overrides_and_isolates_are_escaped(code: int) -> None:
    assert visible(f"Gob{chr(code)}lin") == f"Gob\\u{code:04x}lin"


@pytest.mark.parametrize("code", [0x200E, 0x200F, 0x061C])
def test_bidi_marks_are_escaped(code: int) -> None:
    assert visible(f"Gob{chr(code)}lin") == f"Gob\\u{code:04x}lin"


@pytest.mark.parametrize("code", [0x200B, 0x200C, 0x200D, 0xFEFF, 0x2060, 0x00AD, 0x2028, 0x2029, 0x3164])
def test_invisible_characters_that_disguise_text_are_escaped(code: int) -> None:
    shown = visible(f"Gob{chr(code)}lin")
    assert shown == f"Gob\\{'x' if code < 0x100 else 'u'}{code:0{2 if code < 0x100 else 4}x}lin"


def test_tag_characters_and_lone_surrogates_are_escaped() -> None:
    assert visible("Orc\U000e0041\U000e0042") == "Orc\\U000e0041\\U000e0042"
    assert visible("Orc\ud800") == "Orc\\ud800"


def test_the_example_of_the_issue() -> None:
    assert visible("Gob\u202elin") == "Gob\\u202elin"
    assert visible("\x1b]0;pwned\x07Ogre") == "\\x1b]0;pwned\\x07Ogre"


def test_every_control_and_format_character_of_this_unicode_is_escaped() -> None:
    left = [
        hex(code)
        for code in range(0x110000)
        if unicodedata.category(chr(code)) in ("Cc", "Cf", "Cs", "Zl", "Zp") and "\\" not in visible(f"x{chr(code)}x")
    ]
    assert left == []


@pytest.mark.parametrize(
    "text",
    [
        "Goblin 3",
        "Hill Giant",
        "",
        "Renée Ægir Łucja Ñandú",  # accents
        "Tombril 🗡️ 🐉",  # emoji (with a presentation selector)
        "שלום",  # Hebrew letters
        "مرحبا",  # Arabic letters
        "Ελένη Юрий",
        "東京の鬼",
        "Zoë\u0301",  # a combining accent
        "a\u00a0b\u3000c",  # no-break and ideographic spaces
        "back\\slash",
    ],
)
def test_ordinary_text_is_unchanged(text: str) -> None:
    assert visible(text) == text
    assert visible(text, lines=True) == text


def test_ordinary_text_is_the_same_object() -> None:
    name = "".join(["Hill ", "Giant"])
    assert visible(name) is name
    accented = "".join(["Renée ", "שלום"])
    assert visible(accented) is accented


@pytest.mark.parametrize(
    "text",
    [
        "👨\u200d👩\u200d👧",  # a family
        "👩🏽\u200d🚀",  # a skin tone, then a profession
        "❤️\u200d🔥",
        "🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f",  # Scotland's flag
        "می\u200cخواهم",  # Persian's zero-width non-joiner
        "क्\u200dष",  # Devanagari's joiner
    ],
)
def test_joiners_doing_visible_work_are_kept(text: str) -> None:
    assert visible(text) == text


def test_joiners_between_latin_letters_or_at_the_ends_are_escaped() -> None:
    assert visible("Gob\u200dlin") == "Gob\\u200dlin"
    assert visible("\u200d👨") == "\\u200d👨"
    assert visible("👨\u200d") == "👨\\u200d"
    assert visible("🏴\U000e0067x") == "🏴\\U000e0067x"  # no cancel tag: no flag


def test_lines_keep_newlines_and_tabs_but_escape_the_rest() -> None:
    assert visible("first\n\tsecond", lines=True) == "first\n\tsecond"
    assert visible("a\r\nb\x1b\u202e", lines=True) == "a\\r\nb\\x1b\\u202e"


def test_the_text_is_not_changed() -> None:
    typed = "Gob\u202elin\x1b"
    visible(typed)
    assert typed == "Gob\u202elin\x1b"


def test_plain_names_cost_next_to_nothing() -> None:
    names = [f"Goblin {i}" for i in range(200)]
    spent = min(timeit.repeat(lambda: [visible(n) for n in names], number=20, repeat=5)) / 20
    assert spent < 200e-6  # 200 names: well under a microsecond each
