"""Argument checks shared by the mapping language.

Every check raises an exception whose message names the operation, the argument and what was
expected, so that a wrong call in a mapping script is understood without reading our code
(docs/rubik-semantics.md section 10: volfft refuses where Rubik silently misbehaves).
"""
from __future__ import annotations

import numbers
from collections.abc import Sequence

import numpy as np


def is_integer(value: object) -> bool:
    """True for Python and numpy integers (bools excluded: ``True`` as an extent is a slip)."""
    return isinstance(value, (numbers.Integral, np.integer)) and not isinstance(value, (bool, np.bool_))


def integer(op: str, name: str, value: object) -> int:
    """Return ``value`` as an int, or raise TypeError naming ``op`` and ``name``."""
    if not is_integer(value):
        raise TypeError(f"{op}: {name} must be an integer, got {value!r} ({type(value).__name__})")
    return int(value)  # type: ignore[arg-type]


def integer_list(op: str, name: str, values: object) -> list[int]:
    """Return a list of ints from a list/tuple/1-D array, or raise TypeError naming the argument."""
    if isinstance(values, np.ndarray):
        if values.ndim != 1:
            raise TypeError(f"{op}: {name} must be a 1-D list of integers, got an array of shape "
                            f"{values.shape}")
        values = values.tolist()
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
        raise TypeError(f"{op}: {name} must be a list or tuple of integers, got {values!r}")
    return [integer(op, f"{name}[{i}]", v) for i, v in enumerate(values)]


def dimension(op: str, name: str, value: object, ndim: int) -> int:
    """Check a dimension index against a box of ``ndim`` dimensions.

    Rubik accepts negative indices but mis-targets them in 3-D and more (B14), so volfft refuses
    them as well as indices past the last dimension.
    """
    d = integer(op, name, value)
    if not 0 <= d < ndim:
        raise IndexError(f"{op}: {name} must be a dimension index in 0..{ndim - 1} for this "
                         f"{ndim}-D box, got {d}")
    return d


def grid_pair(op: str, grid: object) -> tuple[int, int]:
    """Check a process grid ``(p0, p1)`` of two positive integers."""
    values = integer_list(op, "grid", grid)
    if len(values) != 2 or min(values) <= 0:
        raise ValueError(f"{op}: grid must be two positive integers (p0, p1), got {values}")
    return values[0], values[1]
