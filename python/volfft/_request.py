"""A split-phase call under way: a transform (Plan.forward_start, backward_start) or a
redistribution (Reshape.execute_start, reverse_start)."""
from __future__ import annotations

from typing import Any, Tuple

import numpy as np


class Request:
    """A call begun with a ``*_start`` method: :meth:`test` lets MPI progress, :meth:`wait`
    finishes it and returns its output array. Until then the arrays belong to volfft.

    A request dropped without :meth:`wait` is finished when it is collected (in CPython: where
    the last reference goes, the same place in the program on every rank), as the C++
    ``volfft::Request`` is: the arrays it holds stay alive until then, and the plan or reshape
    takes calls again afterwards.
    """

    def __init__(self, native: Any, keep: Tuple[np.ndarray, np.ndarray], out: np.ndarray) -> None:
        self._native = native
        self._keep = keep  # the arrays must outlive the call
        self._out = out

    def test(self) -> bool:
        """Let MPI progress on the first exchange; True once it has completed. Local (any rank,
        any number of times); :meth:`wait` may still communicate after True (a pencil plan's
        second exchange, a reshape to the user's arrays), so every rank calls it."""
        return True if self._native is None else bool(self._native.test())

    def wait(self) -> np.ndarray:
        """Finish the call (collective) and return its output array."""
        if self._native is not None:
            self._native.wait()
            self._native = None
            self._keep = None
        return self._out

    def __del__(self) -> None:
        if getattr(self, "_native", None) is None:
            return
        try:
            from mpi4py import MPI

            if MPI.Is_finalized():
                return  # too late for MPI; the library's own objects skip their calls then too
            self.wait()
        except Exception:  # noqa: BLE001 - a finaliser must not raise
            pass
