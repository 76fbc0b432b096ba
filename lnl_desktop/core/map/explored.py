"""The fog of war's explored cells as a mask kept beside their set: what the Party has seen so far.

The encounter keeps the explored cells as a set (what the file holds); the fog's views and the
engine's exploring read them as a ``(height, width)`` mask. The masks of the latest few sets are
kept, so the state now and those undo returns to cost nothing.

The first move of a table whose explored cells do not hold what the Party sees (fog just switched
on in the file, a map opened) would turn tens of thousands of cells into tuples: :func:`prepare`
does that at an idle moment, and the move then adds or drops only the cells its step changed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from lnl_desktop.core.map.grid import Cell
from lnl_desktop.core.map.visibility import mask_cells
from lnl_desktop.lazy import lazy_module

if TYPE_CHECKING:
    from lnl_desktop.core.map.grid import BoolArray

np = lazy_module("numpy")  # imported at first use: the first window needs none of it


# (explored set, its mask), latest first. The sets are held, so comparing by identity is safe
# (no other set can take a held one's id); a few are kept: the state now and those undo returns to.
_explored: list[tuple[frozenset[Cell], BoolArray]] = []
_EXPLORED_KEEP = 6

# The latest growth :func:`explore` made, (explored, grown, the cells added), for :func:`growth`.
_grew: tuple[frozenset[Cell], frozenset[Cell], frozenset[Cell]] | None = None


class _Prepared(NamedTuple):
    """What exploring the Party's view would make, worked out at an idle moment (:func:`prepare`). A
    move that sees just what was prepared takes ``grown`` and ``adds`` as they are; any other copies
    them into sets, adjusts those by the cells its step changed and freezes them again: copies of a
    set into a set keep its table (a fraction of a millisecond for ~60k cells), where a frozenset
    minus a few cells is rebuilt entry by entry (several). Used once."""

    explored: frozenset[Cell]  # the set it was made from
    seen: BoolArray  # the Party's view then
    grown: frozenset[Cell]  # explored with that view's cells
    adds: frozenset[Cell]  # the cells that view adds (grown itself when explored is empty)


# What exploring the Party's view would make, worked out at an idle moment, or None.
_prepared: _Prepared | None = None
# The prepared sets a move used up, freed at the next preparation (an idle moment), not in the middle
# of the move: freeing sets of tens of thousands of cells costs about as much as copying them.
_spent: _Prepared | None = None


def _remember(explored: frozenset[Cell], mask: BoolArray) -> BoolArray:
    mask.flags.writeable = False
    others = [kept for kept in _explored if kept[0] is not explored]
    _explored[:] = [(explored, mask), *others[: _EXPLORED_KEEP - 1]]
    return mask


def explored_mask(explored: frozenset[Cell], width: int, height: int) -> BoolArray:
    """The fog of war's ``explored`` cells (on the map) as a read-only ``(height, width)`` mask,
    kept beside the set: the set :func:`explore` made or one met before costs nothing, one undo
    put back costs its difference from the latest (set arithmetic in C), any other is built."""
    for kept, mask in _explored:
        if kept is explored and mask.shape == (height, width):
            if _explored[0][0] is not explored:
                _remember(explored, mask)
            return mask
    base = next(((kept, mask) for kept, mask in _explored if mask.shape == (height, width)), None)
    if base is not None:
        added, removed = explored - base[0], base[0] - explored
        if len(added) + len(removed) <= len(explored) // 4 + 64:
            out = base[1].copy()
            _mark_cells(out, added, True)
            _mark_cells(out, removed, False)
            return _remember(explored, out)
    out = np.zeros((height, width), dtype=np.bool_)
    _mark_cells(out, explored, True)
    return _remember(explored, out)


def _mark_cells(mask: BoolArray, cells: frozenset[Cell], value: bool) -> None:
    """Set the cells of ``cells`` that lie on the map to ``value``."""
    if not cells:
        return
    h, w = mask.shape
    try:
        coords = np.fromiter((v for c in cells for v in c), dtype=np.intp, count=2 * len(cells)).reshape(-1, 2)
    except OverflowError:  # a cell past any array's index: not on the map (an encounter never holds one)
        on = [c for c in cells if 0 <= c[0] < w and 0 <= c[1] < h]
        coords = np.array(on, dtype=np.intp).reshape(-1, 2)
    coords = coords[(coords[:, 0] >= 0) & (coords[:, 0] < w) & (coords[:, 1] >= 0) & (coords[:, 1] < h)]
    mask[coords[:, 1], coords[:, 0]] = value


def explore(explored: frozenset[Cell], seen: BoolArray) -> frozenset[Cell]:
    """``explored`` with the cells of the mask ``seen`` added: the same set when none is new, else
    a new one whose mask (the old one OR ``seen``) :func:`explored_mask` then has. Only the newly
    seen cells are turned into tuples: the work grows with what a move shows, not with the map."""
    h, w = seen.shape
    known = explored_mask(explored, w, h)
    new = seen & ~known
    if not new.any():
        return explored
    global _grew
    taken = _from_prepared(explored, seen, known, new)
    if taken is None:
        added = mask_cells(new)
        grown = explored | added
    else:
        grown, added = taken
    _grew = (explored, grown, added)
    _remember(grown, known | seen)
    return grown


def growth(before: frozenset[Cell], after: frozenset[Cell]) -> frozenset[Cell] | None:
    """The cells :func:`explore` added to ``before`` to make ``after`` when it made that very set
    (the undo step then needs no comparison of two sets of tens of thousands of cells), else None."""
    grew = _grew
    if grew is not None and grew[0] is before and grew[1] is after:
        return grew[2]
    return None


def prepare(explored: frozenset[Cell], seen: BoolArray) -> None:
    """At an idle moment: what :func:`explore` of ``explored`` and a view much like ``seen`` (the
    Party's now) will make, so the next move turns only the cells its step changed into tuples."""
    global _prepared, _spent
    _spent = None
    h, w = seen.shape
    known = explored_mask(explored, w, h)
    new = seen & ~known
    if not new.any():  # nothing to explore: the move's own few cells are cheap
        _prepared = None
        return
    adds = mask_cells(new)
    # A copy even of the cells alone (nothing explored yet): its table laid out in one go, not grown
    # cell by cell, which the sets made from it later copy (a millisecond of the first move, open 300 x 300).
    grown = explored | adds
    _prepared = _Prepared(explored, seen.copy(), grown, adds if explored else grown)


def _from_prepared(
    explored: frozenset[Cell], seen: BoolArray, known: BoolArray, new: BoolArray
) -> tuple[frozenset[Cell], frozenset[Cell]] | None:
    """(``explored`` with the cells of ``new`` added, those cells) from the prepared sets when they
    were made from this very ``explored``: its view's cells this ``seen`` lacks dropped, those it adds
    added. None when nothing fits or the views differ too much for that to pay. The prepared sets
    are used up by a move they fit, whether they paid or not."""
    global _prepared, _spent
    prepared, _prepared = _prepared, None
    if prepared is None or prepared.explored is not explored or prepared.seen.shape != seen.shape:
        _prepared = prepared  # not for this move: it waits for the set it was made from
        return None
    _spent = prepared
    before = prepared.seen
    dropped = before & ~seen & ~known  # prepared, not seen now, not explored before
    added = new & ~before
    changed = int(np.count_nonzero(dropped)) + int(np.count_nonzero(added))
    if changed * 4 > int(np.count_nonzero(new)):
        return None
    if not changed:
        return prepared.grown, prepared.adds
    gone = mask_cells(dropped) if dropped.any() else frozenset()
    more = mask_cells(added) if added.any() else frozenset()
    result = _adjusted(prepared.grown, gone, more)
    # The first exploring of a table: all it holds was added (no second copy for the undo step).
    return result, result if not explored else _adjusted(prepared.adds, gone, more)


def _adjusted(cells: frozenset[Cell], gone: frozenset[Cell], more: frozenset[Cell]) -> frozenset[Cell]:
    """``cells`` without ``gone`` and with ``more``, by copies that keep the set's table."""
    if not gone:
        return cells | more
    out = set(cells)
    out -= gone
    out |= more
    return frozenset(out)
