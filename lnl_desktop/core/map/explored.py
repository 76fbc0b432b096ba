"""The fog of war's explored cells: what the Party has seen so far, as a mask the cells are read from.

A file holds the explored cells as a list, read into a frozenset. Exploring (a Party move) makes an
:class:`ExploredCells`: an immutable set of cells over a read-only ``(height, width)`` mask. A move
ORs the Party's view into a copy of the mask (a few microseconds, however many cells were explored),
where a frozenset of tens of thousands of tuples had to be copied and adjusted (milliseconds of the
move's frame); the tuples are made only when the cells are listed (the file's save). The undo step
of a move keeps the cells it added as flat indices (:func:`growth`), not as a second set.

The fog's views and the engine read any explored cells as a mask (:func:`explored_mask`): an
:class:`ExploredCells` is its own, a frozenset's is built once and kept.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Iterator
from collections.abc import Set as AbstractSet
from typing import TYPE_CHECKING, Any

from lnl_desktop.core.map.grid import Cell
from lnl_desktop.core.map.visibility import mask_cells
from lnl_desktop.lazy import lazy_module

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    from lnl_desktop.core.map.grid import BoolArray
else:
    np = lazy_module("numpy")  # imported at first use: the first window needs none of it


class ExploredCells(AbstractSet[Cell]):
    """An immutable set of cells over a read-only ``(height, width)`` mask indexed ``[y, x]``.

    It equals (and hashes as) the frozenset of the same cells; ``|`` and ``-`` with cells on its map
    give another one over a new mask (cells off it: a plain frozenset), ``&`` a frozenset. Its cells as
    tuples are made when first listed and kept."""

    __slots__ = ("_cells", "_count", "mask")

    def __init__(self, mask: BoolArray) -> None:
        mask.flags.writeable = False
        self.mask = mask
        self._cells: frozenset[Cell] | None = None
        self._count = -1

    @classmethod
    def of(cls, cells: Iterable[Cell], width: int, height: int) -> ExploredCells:
        """The cells (all on the ``width`` x ``height`` map) over a new mask."""
        mask = np.zeros((height, width), dtype=np.bool_)
        _mark_cells(mask, frozenset(cells), True)
        return cls(mask)

    @property
    def cells(self) -> frozenset[Cell]:
        """The cells as a frozenset of ``(x, y)`` (made at the first ask)."""
        if self._cells is None:
            self._cells = mask_cells(self.mask)
        return self._cells

    def __contains__(self, cell: object) -> bool:
        try:
            x, y = cell  # type: ignore[misc]
            x, y = operator.index(x), operator.index(y)
        except (TypeError, ValueError):
            return False
        h, w = self.mask.shape
        return 0 <= x < w and 0 <= y < h and bool(self.mask[y, x])

    def __iter__(self) -> Iterator[Cell]:
        return iter(self.cells)

    def __len__(self) -> int:
        if self._count < 0:
            self._count = int(np.count_nonzero(self.mask))
        return self._count

    def __eq__(self, other: object) -> bool:
        if other is self:
            return True
        if isinstance(other, ExploredCells) and other.mask.shape == self.mask.shape:
            return bool(np.array_equal(self.mask, other.mask))
        if isinstance(other, AbstractSet):
            return len(self) == len(other) and all(map(self.__contains__, other))
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.cells)  # that of the frozenset it equals

    def __or__(self, other: object) -> AbstractSet[Cell]:
        if not isinstance(other, AbstractSet):
            return NotImplemented
        if isinstance(other, ExploredCells) and other.mask.shape == self.mask.shape:
            return ExploredCells(self.mask | other.mask)
        if not all(map(self._on_map, other)):
            return self.cells | frozenset(other)
        out = self.mask.copy()
        _mark_cells(out, frozenset(other), True)
        return ExploredCells(out)

    __ror__ = __or__

    def __sub__(self, other: object) -> ExploredCells:
        if not isinstance(other, AbstractSet):
            return NotImplemented
        if isinstance(other, ExploredCells) and other.mask.shape == self.mask.shape:
            return ExploredCells(self.mask & ~other.mask)
        out = self.mask.copy()
        _mark_cells(out, frozenset(other), False)  # cells off the map: none of them is here
        return ExploredCells(out)

    def __rsub__(self, other: object) -> frozenset[Cell]:
        if not isinstance(other, AbstractSet):
            return NotImplemented
        return frozenset(c for c in other if c not in self)

    def __and__(self, other: object) -> frozenset[Cell]:
        if not isinstance(other, AbstractSet):
            return NotImplemented
        return frozenset(c for c in other if c in self)

    __rand__ = __and__

    @classmethod
    def _from_iterable(cls, it: Iterable[Any]) -> frozenset[Any]:
        return frozenset(it)  # what the set mixins' other operations make

    def _on_map(self, cell: Any) -> bool:
        h, w = self.mask.shape
        try:
            return 0 <= cell[0] < w and 0 <= cell[1] < h
        except (TypeError, IndexError):
            return False

    def __reduce__(self) -> tuple[Any, ...]:
        return (ExploredCells, (np.array(self.mask),))

    def __repr__(self) -> str:
        h, w = self.mask.shape
        return f"ExploredCells({len(self)} cells of a {w} x {h} map)"


# Frozensets' masks met lately, (set, mask), latest first: the sets are held, so comparing by
# identity is safe (no other set can take a held one's id).
_explored: list[tuple[AbstractSet[Cell], BoolArray]] = []
_EXPLORED_KEEP = 4

# The latest growth :func:`explore` made, (explored, grown, the added cells' flat indices), for :func:`growth`.
_grew: tuple[AbstractSet[Cell], ExploredCells, NDArray[np.intp]] | None = None


def explored_mask(explored: AbstractSet[Cell], width: int, height: int) -> BoolArray:
    """The fog of war's ``explored`` cells (on the map) as a read-only ``(height, width)`` mask: an
    :class:`ExploredCells`' own, a frozenset's built at the first ask and kept for the latest few."""
    if isinstance(explored, ExploredCells) and explored.mask.shape == (height, width):
        return explored.mask
    for kept, mask in _explored:
        if kept is explored and mask.shape == (height, width):
            return mask
    out = np.zeros((height, width), dtype=np.bool_)
    _mark_cells(out, explored, True)
    out.flags.writeable = False
    _explored[:] = [(explored, out), *[k for k in _explored if k[0] is not explored][: _EXPLORED_KEEP - 1]]
    return out


def _mark_cells(mask: BoolArray, cells: AbstractSet[Cell], value: bool) -> None:
    """Set the cells of ``cells`` that lie on the map to ``value``."""
    if not cells:
        return
    h, w = mask.shape
    if isinstance(cells, ExploredCells):
        cells = cells.cells
    try:
        coords = np.fromiter((v for c in cells for v in c), dtype=np.intp, count=2 * len(cells)).reshape(-1, 2)
    except (OverflowError, ValueError, TypeError):  # a cell past any array's index, or not a pair: not on the map
        on = [c for c in cells if isinstance(c, tuple) and len(c) == 2 and 0 <= c[0] < w and 0 <= c[1] < h]
        coords = np.array(on, dtype=np.intp).reshape(-1, 2)
    coords = coords[(coords[:, 0] >= 0) & (coords[:, 0] < w) & (coords[:, 1] >= 0) & (coords[:, 1] < h)]
    mask[coords[:, 1], coords[:, 0]] = value


def explore(explored: AbstractSet[Cell], seen: BoolArray) -> AbstractSet[Cell]:
    """``explored`` with the cells of the mask ``seen`` added: the same set when none is new, else an
    :class:`ExploredCells` over the old mask OR ``seen`` (no cell turned into a tuple)."""
    global _grew
    h, w = seen.shape
    known = explored_mask(explored, w, h)
    new = seen & ~known
    if not new.any():
        return explored
    grown = ExploredCells(known | seen)
    _grew = (explored, grown, np.flatnonzero(new))
    return grown


def growth(before: AbstractSet[Cell], after: AbstractSet[Cell]) -> NDArray[np.intp] | None:
    """The flat indices (``y * width + x``) of the cells :func:`explore` added to ``before`` to make
    ``after`` when it made that very set (the undo step then needs no comparison), else None."""
    grew = _grew
    if grew is not None and grew[0] is before and grew[1] is after:
        return grew[2]
    return None


def prepare(explored: AbstractSet[Cell], width: int, height: int) -> None:
    """At an idle moment: the mask of ``explored`` (a file's frozenset of tens of thousands of cells),
    so the first Party move of a table does not build it."""
    explored_mask(explored, width, height)


def changes(before: ExploredCells, after: ExploredCells) -> tuple[NDArray[np.intp], NDArray[np.intp]] | None:
    """(the flat indices of the cells ``after`` adds to ``before``, of those it drops) for two sets on
    maps of one size; None when they hold the same cells."""
    added = growth(before, after)
    if added is not None:
        return added, np.zeros(0, dtype=np.intp)
    if np.array_equal(before.mask, after.mask):
        return None
    return np.flatnonzero(after.mask & ~before.mask), np.flatnonzero(before.mask & ~after.mask)


def undo_changes(cells: ExploredCells, added: NDArray[np.intp], removed: NDArray[np.intp]) -> ExploredCells:
    """``cells`` with the cells at flat indices ``added`` taken away and those at ``removed`` put back."""
    mask = cells.mask.copy()
    mask.flat[added] = False
    mask.flat[removed] = True
    return ExploredCells(mask)
