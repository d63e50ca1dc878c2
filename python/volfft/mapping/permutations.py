"""Rank permutations of one box: tilt, zigzag, shear, zorder, transpose.

Each function takes the box's contents (an n-D array, indexed by the box's *local* coordinates)
and returns a new array of the same shape holding the same values in new cells. They are pure
array functions; :class:`volfft.mapping.Partition` writes their result back through its view so
that permuting a child permutes that region of the root (docs/rubik-semantics.md section 4).
Argument checking is the caller's job.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def _open_grid(shape: tuple[int, ...]) -> list[np.ndarray]:
    # One broadcastable index vector per dimension: cheap even for large boxes.
    return list(np.ix_(*[np.arange(n) for n in shape]))


def _shift_slabs(cells: np.ndarray, axis: int, direction: int, shift: np.ndarray) -> np.ndarray:
    """new[x] = old[x with x_axis replaced by (x_axis - shift[x_direction]) mod N_axis]."""
    if cells.size == 0:
        return cells.copy()
    extent = cells.shape[axis]
    index = _open_grid(cells.shape)
    # shift is reduced modulo the extent first, so huge slopes cannot overflow int64.
    along = np.asarray(shift, dtype=np.int64) % extent
    index[axis] = (index[axis] - along.reshape(index[direction].shape)) % extent
    return cells[tuple(index)]


def tilt(cells: np.ndarray, axis: int, direction: int, slope: int) -> np.ndarray:
    """Rotate each slab ``x_direction = i`` cyclically along ``axis`` by ``i * slope``.

    ``new[x] = old[x with x_axis -> (x_axis - slope * x_direction) mod N_axis]``: the rank at
    ``x`` moves to ``x_axis + slope * x_direction``.
    """
    n_dir = cells.shape[direction]
    # Python ints: exact for any slope before the modulo.
    shift = np.array([(i * slope) % max(cells.shape[axis], 1) for i in range(n_dir)],
                     dtype=np.int64)
    return _shift_slabs(cells, axis, direction, shift)


def zigzag_shift(i: int, depth: int, stride: int) -> int:
    """Shift of slab ``i`` in a zigzag: Rubik's flattened triangle wave, with exact floors.

    ``base = floor(i / (2 stride)) * 2 stride + stride`` and
    ``shift = depth - floor(|i - base| * depth / stride)``; e.g. depth 2, stride 3 gives
    0,1,2,2,2,1,0,1,2,... for i = 0,1,2,...
    """
    base = (i // (2 * stride)) * 2 * stride + stride
    return depth - (abs(i - base) * depth) // stride


def zigzag(cells: np.ndarray, axis: int, direction: int, depth: int, stride: int) -> np.ndarray:
    """Like :func:`tilt`, but slab ``i`` moves by ``zigzag_shift(i, depth, stride)``."""
    shift = np.array([zigzag_shift(i, depth, stride) % max(cells.shape[axis], 1)
                      for i in range(cells.shape[direction])], dtype=np.int64)
    return _shift_slabs(cells, axis, direction, shift)


def shear(cells: np.ndarray, axis: int, direction: int, slope: int) -> np.ndarray:
    """Slabs taken along ``axis``, rotated along ``direction``: ``tilt(direction, axis, slope)``."""
    return tilt(cells, direction, axis, slope)


def morton_order(shape: Sequence[int]) -> np.ndarray:
    """Row-major flat indices of the points of ``shape``, sorted by Morton (Z-curve) code.

    Bit ``b`` of coordinate ``k`` has weight ``b * n + k`` (dimension 0 is the least
    significant, Rubik's convention). The codes are compared bit plane by bit plane with
    ``lexsort``, so there is no word-size limit and the result is a permutation for any box
    (Rubik truncates bits in high dimensions, bug B8).
    """
    shape = tuple(int(n) for n in shape)
    size = int(np.prod(shape, dtype=np.int64))
    if size == 0:
        return np.zeros(0, dtype=np.int64)
    points = np.indices(shape).reshape(len(shape), -1)
    bits = max(max(shape) - 1, 1).bit_length()
    keys = [(points[k] >> b) & 1 for b in range(bits) for k in range(len(shape))]
    return np.lexsort(keys)  # lexsort's last key is the primary one: the highest bit plane


def zorder(cells: np.ndarray) -> np.ndarray:
    """The j-th rank in row-major order goes to the j-th point of the Z-curve."""
    if cells.size == 0:
        return cells.copy()
    out = np.empty(cells.size, dtype=cells.dtype)
    out[morton_order(cells.shape)] = cells.reshape(-1)
    return out.reshape(cells.shape)


def transpose(cells: np.ndarray, axes: Sequence[int] | None) -> np.ndarray:
    """numpy-transpose the box, then pour it back, row-major, into the original shape."""
    return np.transpose(cells, axes).reshape(-1).reshape(cells.shape).copy()
