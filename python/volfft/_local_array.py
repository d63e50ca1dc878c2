"""This rank's block of a distributed array, indexed by global axes.

The library keeps each side of a transform in a memory order of its own (the forward output of a
pencil plan is typically ``(1, 2, 0)``: global axis 1 slowest). Python hands the user a view of
that memory whose axes are the global axes, so that ``u_hat[i, j, k]`` means the same thing on 1
rank and on 4, in every layout; the memory order stays one attribute away for those who want it.
"""
from __future__ import annotations

from typing import Any, Optional, Tuple

import numpy as np

Box = Tuple[Tuple[int, ...], Tuple[int, ...]]


def inverse_order(order: Tuple[int, ...]) -> Tuple[int, ...]:
    """The permutation that takes an array in ``order`` back to global axis order."""
    return tuple(int(a) for a in np.argsort(order))


def _memory_order_of(array: np.ndarray, hint: Tuple[int, ...]) -> Optional[Tuple[int, ...]]:
    """The axis order in which ``array``'s memory is C-contiguous: ``hint`` where it is (axes of
    extent 1 make several orders fit), else the order of its strides; None when none fits."""
    plain = array.view(np.ndarray)  # views of it make no LocalArray (no __array_finalize__ here)
    if len(hint) == plain.ndim and plain.transpose(hint).flags.c_contiguous:
        return hint
    by_stride = tuple(int(a) for a in sorted(range(plain.ndim), key=lambda a: -plain.strides[a]))
    return by_stride if plain.transpose(by_stride).flags.c_contiguous else None


class LocalArray(np.ndarray):
    """This rank's block of a distributed array: a numpy array indexed by global axes.

    ``a[i, j, k]`` is the global element ``(offset[0] + i, offset[1] + j, offset[2] + k)``. The
    array is a view of memory laid out in :attr:`memory_order` (no copy), so it is C-contiguous
    only when that order is ``(0, 1, 2)``; :attr:`memory` is the contiguous view in memory
    order. :meth:`volfft.Plan.input_array`, :meth:`~volfft.Plan.output_array`,
    :meth:`~volfft.Plan.forward`, :meth:`~volfft.Plan.backward` and :func:`volfft.scatter`
    return these; the transforms and :func:`volfft.gather` take them back.

    Arithmetic and copies keep the attributes when the result has the block's shape
    (``u_hat * k2``, ``u_hat.copy()``), with the memory order the result's memory has (a C-order
    copy is in order ``(0, 1, 2)``). Any other shape (a slice, a reduction), and a view that
    indexes the same memory another way (``u_hat[::-1]``, ``u_hat.T``), drop them (they are then
    None), since the offset would no longer be true.

    Attributes
    ----------
    global_shape : tuple of int
        Shape of the whole distributed array.
    offset : tuple of int
        Global index of this block's first element, per axis.
    memory_order : tuple of int
        Global axes from slowest to fastest in memory.
    """

    _global_shape: Optional[Tuple[int, ...]]
    _offset: Optional[Tuple[int, ...]]
    _memory_order: Optional[Tuple[int, ...]]

    @classmethod
    def over(cls, memory: np.ndarray, global_shape: Tuple[int, ...], box: Box,
             order: Tuple[int, ...]) -> "LocalArray":
        """The global-axes view of ``memory``, a C-contiguous array in memory ``order``."""
        view = memory.transpose(inverse_order(order)).view(cls)
        view._global_shape = tuple(int(n) for n in global_shape)
        view._offset = tuple(int(v) for v in box[0])
        view._memory_order = tuple(int(a) for a in order)
        return view

    def __array_finalize__(self, obj: Any) -> None:
        same = obj is not None and getattr(obj, "shape", None) == self.shape
        # A view whose strides differ from its source's (a transpose of a cubic block, a
        # reversal) indexes the same memory another way: the offset would lie. New memory of
        # the same shape (arithmetic, copies) is indexed as the source.
        # (numpy makes a ufunc's result as a view of new memory: a view of the source is told by
        # sharing the source's memory, a bounds check.)
        if same and self.strides != obj.strides and np.may_share_memory(self, obj):
            same = False
        self._global_shape = getattr(obj, "_global_shape", None) if same else None
        self._offset = getattr(obj, "_offset", None) if same else None
        order = getattr(obj, "_memory_order", None) if same else None
        self._memory_order = order if order is None else _memory_order_of(self, order)

    @property
    def global_shape(self) -> Optional[Tuple[int, ...]]:
        """Shape of the whole distributed array."""
        return self._global_shape

    @property
    def offset(self) -> Optional[Tuple[int, ...]]:
        """Global index of this block's first element, per axis."""
        return self._offset

    @property
    def memory_order(self) -> Optional[Tuple[int, ...]]:
        """Global axes from slowest to fastest in memory."""
        return self._memory_order

    def local_slice(self) -> Tuple[slice, ...]:
        """The global index slices of this block: ``global_array[a.local_slice()]`` is ``a``."""
        if self._offset is None:
            raise ValueError("local_slice: this array is no longer a whole block of a plan")
        return tuple(slice(lo, lo + n) for lo, n in zip(self._offset, self.shape))

    @property
    def memory(self) -> np.ndarray:
        """The same elements as a plain C-contiguous numpy array in memory order (a view, no
        copy)."""
        if self._memory_order is None:
            raise ValueError("memory: this array is no longer a whole block of a plan, or its memory is in no "
                             "axis order (a strided view)")
        return np.asarray(self).transpose(self._memory_order)

    def __array_wrap__(self, obj, *args, **kwargs):
        # Reductions (u.sum(), np.max(u)) give numpy scalars, as for plain arrays, not 0-d
        # LocalArrays.
        result = super().__array_wrap__(obj, *args, **kwargs)
        return result[()] if result.ndim == 0 else result

    def __reduce__(self):
        # Pickled (mpi4py's lowercase send/gather) as a plain array: the plan's attributes
        # describe one rank's block and mean nothing elsewhere.
        return np.asarray(self).__reduce__()
