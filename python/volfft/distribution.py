"""Where each rank's part of a distributed array lies: boxes, the named distributions codes
already hold (slabs, pencils, bricks, FFTW-MPI's blocks), and :class:`LocalBox`, one rank's box
with the memory around it (order, ghost layers).

A box is ``(lo, hi)``: two tuples of ``ndim`` ints, the half-open global index range
``lo[a] <= i[a] < hi[a]`` on each axis. The functions here are pure (they need the compiled
extension but no MPI) and give every rank's box, index = rank, the same on every rank.
"""
from __future__ import annotations

import operator
from typing import Any, List, Optional, Sequence, Tuple

from volfft._native import native

Box = Tuple[Tuple[int, ...], Tuple[int, ...]]

__all__ = ["LocalBox", "slabs", "pencils", "bricks", "fftw_blocks"]


def _ints(values: Any, name: str) -> Tuple[int, ...]:
    try:
        if isinstance(values, (str, bytes)) or any(isinstance(v, bool) for v in values):
            raise TypeError
        return tuple(operator.index(v) for v in values)
    except TypeError:
        raise TypeError(f"{name}: expected a sequence of ints, got {values!r}") from None


def _int(value: Any, name: str) -> int:
    if isinstance(value, bool):
        raise TypeError(f"{name}: expected an int, got {value!r}")
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{name}: expected an int, got {value!r}") from None


def _distribution(name: str, shape: Sequence[int], nprocs: int, axis: int = 0, block: int = 0) -> List[Box]:
    sizes = _ints(shape, "shape")
    d = len(sizes)
    boxes = native().distribution(name, list(sizes), _int(nprocs, "nprocs"), _int(axis, "axis"),
                                  _int(block, "block"))
    return [(tuple(int(v) for v in lo[:d]), tuple(int(v) for v in hi[:d])) for lo, hi in boxes]


def slabs(shape: Sequence[int], nprocs: int, axis: int = 0) -> List[Box]:
    """Slabs: ``axis`` split over ``nprocs`` ranks (the first ``n % nprocs`` parts one larger),
    the other axes whole. Returns every rank's box (index = rank); raises VolfftError naming
    the argument for a bad shape, ``nprocs < 1`` or an axis out of range."""
    return _distribution("slabs", shape, nprocs, axis)


def pencils(shape: Sequence[int], nprocs: int, axis: int) -> List[Box]:
    """Pencils along ``axis`` (whole there), the other two axes split over the ``p_a x p_b``
    grid with the smallest local perimeter (ties: the squarer grid); rank ``i * p_b + j``.
    A 2-D array's pencils are slabs of its other axis."""
    return _distribution("pencils", shape, nprocs, axis)


def bricks(shape: Sequence[int], nprocs: int) -> List[Box]:
    """Bricks: every axis split, over the ``p0 x p1 x p2`` grid whose local boxes have the
    smallest surface (heFFTe's choice); rank ``(i * p1 + j) * p2 + k``."""
    return _distribution("bricks", shape, nprocs)


def fftw_blocks(shape: Sequence[int], nprocs: int, axis: int = 0, block: int = 0) -> List[Box]:
    """FFTW-MPI's distribution: ``axis`` in blocks of ``block`` points (0: ``ceil(n / nprocs)``),
    rank ``r`` holding ``[r * block, min(n, (r + 1) * block))``; the last ranks may be empty."""
    return _distribution("fftw_blocks", shape, nprocs, axis, block)


class LocalBox:
    """One rank's part of a distributed array: its box, the memory order of its local array,
    and the local array's extent when larger than the box (ghost layers, padding).

    Parameters
    ----------
    box : (lo, hi)
        The elements this rank owns, global indices, half-open; may be empty. The boxes of all
        ranks must cover the global array exactly once.
    order : sequence of int, optional
        Axes of the local array from slowest to fastest in memory (default C order).
    ghosts : int or sequence of int, optional
        Layers around the box on each axis (a halo): the local array is the box widened by
        ``ghosts[a]`` on both sides of axis ``a``, and may reach outside the global array. Only
        the box is read or written.
    storage : (lo, hi), optional
        The local array's extent in global indices, instead of ``ghosts`` (it must contain the
        box): e.g. FFTW's padded r2c rows.
    """

    def __init__(self, box: Any, order: Optional[Sequence[int]] = None, ghosts: Any = None,
                 storage: Any = None) -> None:
        self.box = self._box(box, "box")
        d = len(self.box[0])
        self.order = None if order is None else _ints(order, "order")
        if ghosts is not None and storage is not None:
            raise TypeError("LocalBox: give ghosts or storage, not both")
        if ghosts is not None:
            widths = (_int(ghosts, "ghosts"),) * d if not hasattr(ghosts, "__len__") else _ints(ghosts, "ghosts")
            if len(widths) != d or min(widths, default=0) < 0:
                raise native().VolfftError(f"ghosts: expected an int >= 0 or {d} of them, got {ghosts!r}")
            storage = (tuple(lo - g for lo, g in zip(self.box[0], widths)),
                       tuple(hi + g for hi, g in zip(self.box[1], widths)))
        self.storage = self.box if storage is None else self._box(storage, "storage")
        if len(self.storage[0]) != d:
            raise native().VolfftError(f"storage: expected {d} axes like box, got {storage!r}")

    @staticmethod
    def _box(value: Any, name: str) -> Box:
        try:
            lo, hi = value
        except (TypeError, ValueError):
            raise TypeError(f"{name}: expected (lo, hi), two sequences of ints, got {value!r}") from None
        lo, hi = _ints(lo, f"{name} lo"), _ints(hi, f"{name} hi")
        if len(lo) != len(hi) or len(lo) < 2:
            raise native().VolfftError(f"{name}: expected lo and hi of the same length, 2 or more entries each, "
                                       f"got {value!r}")
        return lo, hi

    @classmethod
    def of(cls, value: Any, name: str) -> "LocalBox":
        """``value`` as a LocalBox: a LocalBox, or a box ``(lo, hi)``."""
        return value if isinstance(value, LocalBox) else cls(cls._box(value, name))

    @property
    def ndim(self) -> int:
        return len(self.box[0])

    def owned_slice(self) -> Tuple[slice, ...]:
        """Local index slices of the box inside the local array: ``a[spec.owned_slice()]`` is
        the owned part of a local array ``a`` (indexed by global axes, as volfft's arrays)."""
        return tuple(slice(lo - s, hi - s) for lo, hi, s in zip(self.box[0], self.box[1], self.storage[0]))

    def native(self) -> tuple:
        """The tuple the compiled extension takes (3 axes; a 2-D array's third is [0, 1)).

        Raises VolfftError for a bound outside 64 bits or an order entry outside a C int: the
        extension cannot convert those, and its TypeError came on the one rank that gave them
        while the others were already in the collective call (a hang). Callers check under
        agree_on_errors."""
        for name, given, values, bits in (("box", self.box, self.box[0] + self.box[1], 63),
                                          ("storage", self.storage, self.storage[0] + self.storage[1], 63),
                                          ("order", self.order, tuple(self.order or ()), 31)):
            for v in values:
                if not -(1 << bits) <= v < (1 << bits):
                    raise native().VolfftError(
                        f"{name}: {v} does not fit in {bits + 1} bits (a box's bounds are 64-bit "
                        f"integers, an order's entries axes); got {name} {given}")
        pad = 3 - self.ndim
        lo, hi = list(self.box[0]) + [0] * pad, list(self.box[1]) + [1] * pad
        slo, shi = list(self.storage[0]) + [0] * pad, list(self.storage[1]) + [1] * pad
        return (lo, hi, list(self.order or ()), slo, shi)

    @classmethod
    def from_native(cls, value: tuple, ndim: int, trailing: Tuple[int, ...] = ()) -> "LocalBox":
        """The extension's tuple (3 axes) as a box of ``ndim`` axes; a plan of more than 3 axes
        holds its ``trailing`` axes (3 ..) whole."""
        lo, hi, order, slo, shi = value
        k = min(ndim, 3)
        whole = ((0,) * len(trailing), tuple(trailing))
        storage = (tuple(slo[:k]) + whole[0], tuple(shi[:k]) + whole[1])
        if not any(slo) and not any(shi):  # all zero: the box itself
            storage = None
        return cls((tuple(lo[:k]) + whole[0], tuple(hi[:k]) + whole[1]), tuple(order) or None, storage=storage)

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, LocalBox) and self.box == other.box and self.storage == other.storage
                and tuple(self.order or range(self.ndim)) == tuple(other.order or range(other.ndim)))

    def __repr__(self) -> str:
        extra = "" if self.order is None else f", order={self.order}"
        extra += "" if self.storage == self.box else f", storage={self.storage}"
        return f"volfft.LocalBox({self.box}{extra})"
