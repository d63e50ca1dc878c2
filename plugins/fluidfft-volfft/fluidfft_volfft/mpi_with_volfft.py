"""fluidfft 3-D MPI FFT class over volfft: method ``fft3d.mpi_with_volfft``.

Layout
------
Real space: fluidfft's arrays of shape ``(n0, n1, n2)`` = ``(z, y, x)`` are volfft's r2c input
as it is: volfft's input is "z-pencils" (global axis 2, x, whole on every rank) in C order.
On a slab grid ``(P, 1)`` each rank holds planes ``z``; on a pencil grid ``(p0, p1)`` a block
of ``(z, y)``. (The x axis is always whole, as fluidfft's ``BaseFFTMPI.gather_Xspace`` also
assumes.)

Spectral space: volfft's forward output is "x-pencils" (global axis 0, z, whole) with x
halved (``n2 // 2 + 1``, numpy's rfftn). Its memory order, with volfft's default
``layout="transposed"``, is ``(1, 2, 0)``: ``ky`` slowest, then ``kx``, then ``kz``. fluidfft
describes a spectral layout by ``get_dimX_K()`` (spectral axis ``i`` is real axis
``dimX_K[i]``) and expects C-contiguous arrays, so this class reports ``dimX_K = (1, 2, 0)``
and a fluidfft spectral array of shape ``(nky_loc, nkx_loc, nkz)`` is volfft's output memory
itself: neither direction copies or reorders anything in Python. (fluidfft's
``mpi_with_fftwmpi3d`` uses ``(1, 0, 2)``; its operators also take ``(0, 1, 2)``, ``(2, 1, 0)``
and ``(1, 2, 0)``.)

One rank (volfft's output is then C order) gives ``dimX_K = (0, 1, 2)``. A pencil grid with
``p0 == 1`` (volfft picks it when ``n0`` or ``n1`` is smaller than the rank count) gives memory
order ``(0, 2, 1)``, which fluidfft's operators do not know: there the class asks volfft for
``layout="natural"`` (C order, ``dimX_K = (0, 1, 2)``), at the cost of one reordering pass
inside volfft.

Normalisation: fluidfft's fft is ``(1/N) sum f exp(-i k.x)`` and its ifft the unscaled sum;
the plan is made with ``scale_forward=True, scale_backward=False``, which volfft folds into its
first exchange.

Options: ``FLUIDFFT_VOLFFT_OPTIONS="grid=2x2,engine=alltoallv,threads=2"`` (or a subclass's
``plan_options``) passes volfft options (grid, engine, effort, threads, ...; default
``effort=measure``).
"""
from __future__ import annotations

import numpy as np
from mpi4py import MPI

from fluidfft.fft3d.base import BaseFFTMPI

from fluidfft_volfft._common import VolfftFFTBase, plan_options

# The spectral axis orders fluidfft's OperatorsPseudoSpectral3D implements.
FLUIDFFT_ORDERS_3D = ((0, 1, 2), (1, 0, 2), (2, 1, 0), (1, 2, 0))


def _make_plan(comm, shape, options):
    import volfft

    options = dict(options)
    layout = options.pop("layout", "transposed")
    plan = volfft.Plan(comm, shape, dtype=np.float64, kind="r2c", layout=layout,
                       scale_forward=True, scale_backward=False, **options)
    # fluidfft's 3-D operators decide on each rank whether the transform is distributed (this
    # rank's real-space block against the whole array), so a rank that holds the whole array
    # runs their spectra without the others, which then wait (n1 = 1 takes the grid 1 x P).
    # Where the grid is volfft's choice and slabs leave no rank holding everything (n0 >= 2: some
    # ranks may then hold nothing, which the operators handle), take slabs.
    holds_all = comm.allreduce(int(tuple(plan.input_shape) == tuple(shape)), op=MPI.MAX)
    if comm.size > 1 and holds_all and "grid" not in options and shape[0] >= 2:
        plan.close()
        return _make_plan(comm, shape, {**options, "layout": layout, "grid": (comm.size, 1)})
    # The order follows from the grid, the same on every rank; agreed anyway, since closing
    # and planning again are collective.
    understood = comm.allreduce(int(tuple(plan.output_order) in FLUIDFFT_ORDERS_3D), op=MPI.MIN)
    if understood or layout == "natural":
        return plan
    plan.close()
    return volfft.Plan(comm, shape, dtype=np.float64, kind="r2c", layout="natural",
                       scale_forward=True, scale_backward=False, **options)


class FFT3DMPIWithVolfft(VolfftFFTBase, BaseFFTMPI):
    """Distributed 3-D real FFT with volfft, over ``MPI.COMM_WORLD``.

    Parameters
    ----------
    n0, n1, n2 : int
        Global sizes in real space: z, y, x (x is the r2c axis).
    """

    def __init__(self, n0=2, n1=2, n2=4):
        comm = MPI.COMM_WORLD
        self._use_plan(_make_plan(comm, (n0, n1, n2), plan_options(self.plan_options)))
        BaseFFTMPI.__init__(self, n0, n1, n2)
        # BaseFFTMPI takes the rank and size from fluiddyn.util.mpi, which only knows about
        # MPI when launched by a known mpirun; the plan's communicator is the truth.
        self.nb_proc, self.rank, self.comm = comm.size, comm.rank, comm
        # BaseFFTMPI also sets _is_mpi_lib per rank (this rank's block differs from the whole
        # array); where one rank holds it all (n1 == 1 on a 1 x P grid), that rank alone skipped
        # gather_Xspace's collective and the others hung. _use_plan's value is the same on
        # every rank: put it back.
        self._is_mpi_lib = comm.size > 1

    def get_dimX_K(self):
        """Real-space axis of each spectral axis: volfft's output memory order."""
        return self._order

    def get_dim_first_fft(self):
        """The r2c axis (x), real-space axis 2."""
        return 2


FFTclass = FFT3DMPIWithVolfft
