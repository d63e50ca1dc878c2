"""Slicers: how ``cut`` splits one dimension of a box into chunks.

A slicer is any callable ``slicer(array, dim, chunk, nchunks) -> slice`` returning the part of
``array`` along ``dim`` that belongs to child ``chunk`` of ``nchunks``. Rubik exports two, ``div``
(contiguous blocks) and ``mod`` (interleaved classes); both are reproduced here exactly,
including their behaviour when ``nchunks`` does not divide the extent.
"""
from __future__ import annotations

import numpy as np


def div(array: np.ndarray, dim: int, chunk: int, nchunks: int) -> slice:
    """Contiguous chunks of ``floor(N / nchunks)`` cells; the last chunk runs to the end.

    Parameters
    ----------
    array : numpy.ndarray
        The box being cut (only its extent along ``dim`` is used).
    dim : int
        Dimension being split.
    chunk : int
        Child index along ``dim``, ``0 <= chunk < nchunks``.
    nchunks : int
        Number of children along ``dim``.

    Returns
    -------
    slice
        ``[chunk*size, chunk*size + size)`` with ``size = N // nchunks``, except that the last
        chunk ends at ``N``: it absorbs the remainder, and when ``nchunks > N`` every chunk but
        the last is empty (Rubik's behaviour, kept on purpose).
    """
    extent = array.shape[dim]
    size = extent // nchunks
    start = chunk * size
    stop = extent if chunk == nchunks - 1 else start + size
    return slice(start, stop)


def mod(array: np.ndarray, dim: int, chunk: int, nchunks: int) -> slice:
    """Interleaved classes: chunk ``c`` holds indices ``c, c + nchunks, c + 2*nchunks, ...``.

    Parameters
    ----------
    array : numpy.ndarray
        The box being cut (only its extent along ``dim`` matters).
    dim : int
        Dimension being split.
    chunk : int
        Residue class, ``0 <= chunk < nchunks``.
    nchunks : int
        Modulus.

    Returns
    -------
    slice
        ``slice(chunk, None, nchunks)``. When ``nchunks`` does not divide the extent the lower
        classes get one more element; classes ``chunk >= N`` are empty.
    """
    del array, dim  # the class does not depend on the extent; the slice clips itself
    return slice(chunk, None, nchunks)
