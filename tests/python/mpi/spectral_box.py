"""The spectral box of a padded plan (``padding=``, Options::spectral_shape) for references built
with numpy: where the m kept modes lie in the n-grid's spectrum, truncation and zero padding.

Along a full (not r2c) axis with an even m < n, the kept index m/2 (numpy's -m/2) stands for
both -m/2 and +m/2 of the n-grid: truncation adds the two, padding puts half of the value on
each (volfft's convention, include/volfft/options.hpp).
"""
from __future__ import annotations

import numpy as np


def kept_indices(n: int, m: int, half: bool) -> np.ndarray:
    """Where the m kept modes lie in a length-n spectrum (numpy's order; half: the r2c axis,
    0..m//2)."""
    if half:
        return np.arange(m // 2 + 1)
    k = np.arange(m)
    return np.where(k < (m + 1) // 2, k, n - m + k)


def splits_nyquist(n: int, m: int, half: bool) -> bool:
    return not half and m % 2 == 0 and m < n


def _at(ndim: int, axis: int, index) -> tuple:
    where = [slice(None)] * ndim
    where[axis] = index
    return tuple(where)


def truncate(full: np.ndarray, m, n, r2c: bool) -> np.ndarray:
    """The m-box of the n-grid spectrum ``full`` (``numpy.fft.fftn``/``rfftn`` of the real grid)."""
    out = full
    for axis in range(full.ndim):
        half = r2c and axis == full.ndim - 1
        part = np.take(out, kept_indices(n[axis], m[axis], half), axis=axis)
        if splits_nyquist(n[axis], m[axis], half):
            part[_at(out.ndim, axis, m[axis] // 2)] += out[_at(out.ndim, axis, m[axis] // 2)]
        out = part
    return out


def pad(small: np.ndarray, m, n, r2c: bool) -> np.ndarray:
    """The n-grid spectrum (r2c: its half) of the m-box ``small``, zero padded."""
    out = small
    for axis in range(small.ndim):
        half = r2c and axis == small.ndim - 1
        shape = list(out.shape)
        shape[axis] = n[axis] // 2 + 1 if half else n[axis]
        big = np.zeros(shape, dtype=out.dtype)
        big[_at(out.ndim, axis, kept_indices(n[axis], m[axis], half))] = out
        if splits_nyquist(n[axis], m[axis], half):
            negative = _at(out.ndim, axis, n[axis] - m[axis] // 2)
            big[negative] *= 0.5
            big[_at(out.ndim, axis, m[axis] // 2)] = big[negative]
        out = big
    return out
