"""fluidfft 2-D MPI FFT class over volfft: method ``fft2d.mpi_with_volfft``.

Layout
------
Real space: fluidfft's arrays of shape ``(n0, n1)`` = ``(y, x)`` are volfft's r2c input as it
is: rows of y split over the ranks (volfft's 2-D grid is always ``(P, 1)``), x whole, C order.

Spectral space: volfft's forward output has y whole and the halved x axis (``n1 // 2 + 1``)
split over the ranks, in memory order ``(1, 0)`` (``layout="transposed"``): ``kx`` slowest.
That is fluidfft's "transposed" 2-D layout (``get_is_transposed() == True``, the one of its
``mpi_with_fftwmpi2d``): spectral arrays of shape ``(nkx_loc, ny)``, rank ``r`` holding the
``r``-th block of kx. So a fluidfft spectral array is volfft's output memory itself: no copy
either way. On one rank volfft's output is C order: ``(ny, nkx)``, not transposed.

fluidfft's 2-D operators implement the distributed spectral layout only transposed, so the
layout option cannot be changed here (``layout=natural`` is refused), and the grid is always
slabs (a ``grid`` option is ignored).

Normalisation: as in 3-D, fft scaled by 1/N, ifft unscaled (plan ``scale_forward=True,
scale_backward=False``).
"""
from __future__ import annotations

import numpy as np
from mpi4py import MPI

from fluidfft_volfft._common import VolfftFFTBase, k_adim_seq, plan_options


class FFT2DMPIWithVolfft(VolfftFFTBase):
    """Distributed 2-D real FFT with volfft, over ``MPI.COMM_WORLD``.

    Parameters
    ----------
    n0, n1 : int
        Global sizes in real space: y, x (x is the r2c axis).
    """

    def __init__(self, n0=2, n1=2):
        import volfft

        comm = MPI.COMM_WORLD
        options = plan_options(self.plan_options)
        options.pop("grid", None)  # 2-D plans take slabs only
        layout = options.pop("layout", "transposed")
        if layout != "transposed":
            raise ValueError("fluidfft-volfft 2-D: only layout='transposed' (fluidfft's 2-D "
                             f"operators know no other distributed spectral layout), got {layout!r}")
        plan = volfft.Plan(comm, (n0, n1), dtype=np.float64, kind="r2c", layout="transposed",
                           grid=(comm.size, 1), scale_forward=True, scale_backward=False,
                           **options)
        self._use_plan(plan)

    def get_is_transposed(self) -> bool:
        """True when spectral arrays are (kx, ky): volfft's transposed output (several ranks)."""
        return self._order == (1, 0)

    def get_dimX_K(self):
        return self._order

    def get_k_adim_loc(self):
        """Integer wavenumbers of this rank's spectral array, one array per spectral axis."""
        result = []
        for axis, real_axis in enumerate(self._order):
            seq = k_adim_seq(self._shapeX_seq[real_axis], is_r2c_axis=real_axis == 1)
            start = self._first_K[axis]
            result.append(seq[start:start + self._shapeK_loc[axis]])
        return tuple(result)

    def gather_Xspace(self, ff_loc, root=None):
        """As fluidfft's 2-D classes: every rank gets the global array unless ``root`` is given."""
        return super().gather_Xspace(ff_loc, root)

    def get_x_adim_loc(self):
        """Integer coordinates (y, x) of this rank's real-space points."""
        return tuple(np.arange(start, start + n) for start, n in zip(self._first_X, self._shapeX_loc))


FFTclass = FFT2DMPIWithVolfft
