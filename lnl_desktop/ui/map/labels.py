"""Short token labels, unique over the whole encounter: 'To', 'HG', 'HO', 'HOG', 'G1', 'G2'.

A token is a dozen pixels wide on a laptop's map, so its label must be two or three letters, and no
two tokens may share one, whatever the case ('HA' and 'Ha' read the same across a table). Labels are
therefore worked out for every name at once (:func:`token_labels`), not one name at a time:

* A name's *kind* is the name without a trailing number: 'Goblin 3' and 'Goblin' are both goblins.
  A kind with several members, or with a numbered one, is numbered: each member shows the kind's
  letters and its number ('G1', 'G2', 'G3'), the unnumbered one of the core's 'Goblin', 'Goblin 2'
  taking the lowest free number ('G1').
* A kind's letters are its words' initials ('Hill Giant' -> 'HG', 'Half-orc Archer' -> 'HOA', a
  hyphen parts words too), or the first two letters of a one-word name ('Tombril' -> 'To'; one
  letter when numbered: 'G1'). An epithet after 'the' or 'of' is left out: 'Cedryk the Sneaky' -> 'Ce'.
* Kinds whose letters (with their numbers) would clash take more letters of their words, shortest
  first and the first word first, until they differ: 'Hill Giant' and 'Half Giant' -> 'HiG', 'HaG'.

A label is shown as :func:`visible` writes it: a letter that draws nothing (a Hangul filler) is
shown as its escape rather than as an empty token.

Pure Python: no Qt.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator, Sequence
from functools import lru_cache

from lnl_desktop.core.encounter.words import visible

_SMALL_WORDS = frozenset({"the", "of", "a", "an", "de", "von", "van", "and"})
_EPITHET = frozenset({"the", "of"})  # 'Cedryk the Sneaky': the name is the part before
_MAX_CANDIDATES = 80


def split_name(name: str) -> tuple[str, int | None]:
    """The kind and the number of a name: 'Goblin 3' -> ('Goblin', 3), 'Guard7' -> ('Guard', 7),
    'Hill Giant' -> ('Hill Giant', None)."""
    text = " ".join(name.split())
    if m := re.fullmatch(r"(.*\S)\s+#?(\d+)", text):
        return m.group(1), int(m.group(2))
    if (m := re.fullmatch(r"(.*[^\d\s])(\d+)", text)) and not re.search(r"\d", m.group(1)):
        return m.group(1), int(m.group(2))
    return text, None


def _parts(kind: str) -> list[str]:
    """The words a kind's letters come from: hyphens part words, small words and an epithet are left out."""
    words = [w for w in re.split(r"[\s\-_/]+", kind) if w]
    for i, word in enumerate(words):
        if i > 0 and word.lower() in _EPITHET:
            words = words[:i]
            break
    kept = [w for w in words if w.lower() not in _SMALL_WORDS] or words
    parts = ["".join(ch for ch in w if ch.isalnum()) for w in kept]
    return [p for p in parts if p] or ["?"]


def _prefix_lengths(lengths: list[int]) -> Iterator[tuple[int, ...]]:
    """How many letters to take of each word: by total, then extending the earlier words first."""

    def split(total: int, bounds: list[int]) -> Iterator[tuple[int, ...]]:
        if len(bounds) == 1:
            if 1 <= total <= bounds[0]:
                yield (total,)
            return
        rest = len(bounds) - 1
        for first in range(min(bounds[0], total - rest), 0, -1):
            for tail in split(total - first, bounds[1:]):
                yield (first, *tail)

    for total in range(len(lengths), sum(lengths) + 1):
        yield from split(total, lengths)


@lru_cache(maxsize=4096)
def _candidates(kind: str, numbered: bool) -> list[str]:
    """A kind's letters, best first: initials, then more letters of its words (shortest first),
    with a capital where each word begins: 'HG', 'HiG', 'HGi', ..., 'To', 'Tom', ..."""
    parts = _parts(kind)
    if len(parts) == 1:
        word = parts[0]
        start = 1 if numbered else min(2, len(word))
        vectors: list[tuple[int, ...]] = [(n,) for n in range(start, len(word) + 1)]
    else:
        vectors = list(itertools.islice(_prefix_lengths([len(p) for p in parts]), _MAX_CANDIDATES))
    out: list[str] = []
    seen: set[str] = set()
    for vector in vectors:
        letters = "".join(p[0].upper() + p[1:n].lower() for p, n in zip(parts, vector, strict=True))
        if letters.casefold() not in seen:
            seen.add(letters.casefold())
            out.append(letters)
    return out


def token_labels(names: Sequence[str]) -> list[str]:
    """A short label per name, in the same order, no two alike (ignoring case)."""
    return list(_token_labels(tuple(names)))


@lru_cache(maxsize=16)  # the map asks after every action, mostly with the same names
def _token_labels(names: tuple[str, ...]) -> tuple[str, ...]:
    kinds: dict[str, list[int]] = {}  # kind -> indexes of its members
    named = [_named(name) for name in names]
    split = [(kind, number) for kind, number, _ in named]
    for i, (_, _, key) in enumerate(named):
        kinds.setdefault(key, []).append(i)
    numbers: dict[int, int | None] = {}
    for members in kinds.values():
        numbered = len(members) > 1 or any(split[i][1] is not None for i in members)
        if not numbered:
            numbers[members[0]] = None
            continue
        used: set[int] = set()
        for i in members:  # the names' own numbers first, each once
            n = split[i][1]
            if n is not None and n not in used:
                numbers[i] = n
                used.add(n)
        free = (n for n in itertools.count(1) if n not in used)
        for i in members:  # then the lowest free numbers for the rest
            if i not in numbers:
                numbers[i] = next(free)
    keys = list(kinds)
    candidates = {
        key: _candidates(split[kinds[key][0]][0], any(numbers[i] is not None for i in kinds[key])) for key in keys
    }
    level = dict.fromkeys(keys, 0)

    def labels_of(key: str) -> list[tuple[int, str]]:
        letters = candidates[key][level[key]]
        return [(i, letters if numbers[i] is None else f"{letters}{numbers[i]}") for i in kinds[key]]

    # Kinds whose labels clash take their next candidate together, until nothing clashes or no
    # clashing kind has a candidate left.
    while True:
        owners: dict[str, set[str]] = {}
        for key in keys:
            for _, label in labels_of(key):
                owners.setdefault(label.casefold(), set()).add(key)
        clashing = {key for found in owners.values() if len(found) > 1 for key in found}
        movable = [key for key in clashing if level[key] + 1 < len(candidates[key])]
        if not movable:
            break
        for key in movable:
            level[key] += 1
    out = [""] * len(names)
    for key in keys:
        for i, label in labels_of(key):
            out[i] = label
    # Whatever still clashes (names alike but for punctuation) is told apart by a count.
    taken = {label.casefold() for label in out}
    seen: set[str] = set()
    for i, label in enumerate(out):
        if label.casefold() in seen:
            n = 2
            while f"{label}-{n}".casefold() in taken:
                n += 1
            out[i] = f"{label}-{n}"
            taken.add(out[i].casefold())
        seen.add(out[i].casefold())
    return tuple(visible(label) for label in out)


@lru_cache(maxsize=8192)  # a map of hundreds shows the same names again after each change of who is seen
def _named(name: str) -> tuple[str, int | None, str]:
    """A name's kind, its number and the kind's key: 'Hill-Giant' and 'hill giant' are one kind
    (what gives the letters, case aside)."""
    kind, number = split_name(name)
    return kind, number, " ".join(_parts(kind)).casefold()


def assign_labels(names: dict[str, str]) -> dict[str, str]:
    """:func:`token_labels` by combatant id: ``{id: name}`` -> ``{id: label}``."""
    return dict(zip(names, token_labels(list(names.values())), strict=True))
