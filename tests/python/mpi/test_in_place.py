"""In-place plans from Python (``in_place=True``): forward and backward on one buffer.

The arrays come from the plan (``input_array``/``scatter``); ``forward`` returns the output view
of the same memory and ``backward`` the input view again. Checked against numpy.fft on the
gathered arrays at any number of ranks, uneven and prime sizes (some ranks empty), every grid,
r2c's padded rows, both precisions, split phase; misuse fails on every rank with the message.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from mpi4py import MPI

import volfft
from test_transforms import EPS, random_global, rel_l2  # the global arrays and norms of the MPI tests

SIZE = MPI.COMM_WORLD.size
GRIDS = [(SIZE // p1, p1) for p1 in range(1, SIZE + 1) if SIZE % p1 == 0]

def check_in_place(comm, shape, kind, dtype=np.complex128, split=False, **options):
    options.setdefault("effort", "estimate")
    glob = random_global(shape, kind, dtype, seed=3) if comm.rank == 0 else None
    with volfft.Plan(comm, shape, dtype=dtype, kind=kind, in_place=True, **options) as plan:
        assert plan.in_place
        a = volfft.scatter(plan, glob)
        b = plan.forward_start(a).wait() if split else plan.forward(a, out=a)
        shared = np.shares_memory(a, b) or a.size == 0 or b.size == 0
        spectrum = volfft.gather(plan, b)
        c = plan.backward_start(b).wait() if split else plan.backward(b)
        same_buffer = c.ctypes.data == a.ctypes.data or c.size == 0
        back = volfft.gather(plan, c, forward_output=False)
    verdict = None
    if comm.rank == 0:
        want = np.fft.rfftn(glob.astype(np.float64)) if kind == "r2c" else np.fft.fftn(glob.astype(np.complex128))
        verdict = (rel_l2(spectrum, want), rel_l2(back, glob))
    forward_error, backward_error = comm.bcast(verdict)
    tol = 8 * EPS[np.dtype(dtype)] * max(1.0, math.log2(math.prod(shape)))
    where = f"shape={shape} kind={kind} dtype={np.dtype(dtype)} options={options} np={comm.size}"
    assert forward_error <= tol, f"in-place forward error {forward_error:.3g} > {tol:.3g}: {where}"
    assert backward_error <= tol, f"in-place round trip error {backward_error:.3g} > {tol:.3g}: {where}"
    assert comm.allreduce(int(shared and same_buffer), op=MPI.MIN) == 1, f"not in the same buffer: {where}"


@pytest.mark.parametrize("grid", GRIDS, ids=lambda g: f"{g[0]}x{g[1]}")
@pytest.mark.parametrize("kind", ["c2c", "r2c"])
@pytest.mark.parametrize("shape", [(7, 9, 11), (16, 12, 10), (2, 3, 5)], ids=str)
def test_in_place_3d(comm, shape, kind, grid):
    check_in_place(comm, shape, kind, grid=grid)


@pytest.mark.parametrize("engine", ["alltoallv", "alltoallw", "p2p", "node"])
@pytest.mark.parametrize("layout", ["transposed", "natural"])
@pytest.mark.parametrize("kind", ["c2c", "r2c"])
def test_in_place_engines(comm, kind, layout, engine):
    check_in_place(comm, (9, 8, 7), kind, engine=engine, layout=layout, grid=GRIDS[-1])


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64], ids=["double", "float"])
@pytest.mark.parametrize("kind", ["c2c", "r2c"])
def test_in_place_2d_and_precisions(comm, kind, dtype):
    check_in_place(comm, (13, 9), kind, dtype)
    check_in_place(comm, (6, 10, 8), kind, dtype)


@pytest.mark.parametrize("backend", ["fftw", "ducc0"])
@pytest.mark.parametrize("kind", ["c2c", "r2c"])
def test_minimum_memory(comm, kind, backend):
    """min_memory=True: engine auto becomes alltoallw (one buffer), the transform is unchanged;
    with backend "auto" it is refused on every rank."""
    try:
        volfft.Plan(comm, (4, 4, 4), backend=backend, effort="estimate").close()
    except volfft.VolfftError as error:  # ducc0 is optional at build time (VOLFFT_DUCC0)
        if "is not part of this build" in str(error):
            pytest.skip(str(error))
        raise
    check_in_place(comm, (9, 8, 7), kind, min_memory=True, backend=backend, effort="measure")
    with volfft.Plan(comm, (9, 8, 7), kind=kind, dtype=np.float64 if kind == "r2c" else np.complex128,
                     in_place=True, min_memory=True, backend=backend) as plan:
        assert plan.engine == "alltoallw"
    with pytest.raises(volfft.VolfftError, match="min_memory does not combine with backend 'auto'"):
        volfft.Plan(comm, (9, 8, 7), min_memory=True, backend="auto")


def test_in_place_split_phase(comm):
    check_in_place(comm, (8, 6, 10), "r2c", split=True)
    check_in_place(comm, (8, 6, 10), "c2c", split=True)


def test_in_place_arrays_are_views_of_one_buffer(comm):
    with volfft.Plan(comm, (6, 5, 9), kind="r2c", dtype=np.float64, in_place=True) as plan:
        a = plan.input_array()
        root = a
        while isinstance(root.base, np.ndarray):
            root = root.base
        assert root.nbytes >= plan.in_place_bytes
        # r2c rows of 2 * (9 // 2 + 1) = 10 reals: the view of the first 9.
        if a.size:
            assert a.strides[2] == 8 and a.strides[1] == 10 * 8
        assert plan.in_place_bytes == max(a.shape[0] * a.shape[1] * 10 * 8,
                                          16 * math.prod(plan.output_shape))


def expect_everywhere(comm, error_type, fragment, call):
    with pytest.raises(error_type) as caught:
        call()
    assert fragment in str(caught.value)
    assert comm.allreduce(1) == comm.size  # every rank got here: nobody is left waiting


def test_in_place_misuse_fails_on_every_rank(comm):
    with volfft.Plan(comm, (8, 6, 10), kind="r2c", dtype=np.float64, in_place=True) as plan:
        a = plan.input_array()
        other = plan.output_array()
        expect_everywhere(comm, volfft.VolfftError, "pass out=a", lambda: plan.forward(a, out=other))
        copy = np.array(a)  # rows no longer padded: not an in-place buffer
        expect_everywhere(comm, volfft.VolfftError, "an in-place plan transforms the buffer",
                          lambda: plan.forward(copy))
        # Only rank 0 passes a bad array: still every rank raises.
        bad = copy if comm.rank == 0 else a
        with pytest.raises(volfft.VolfftError):
            plan.forward(bad)
        plan.forward(a)  # the plan still works
    with volfft.Plan(comm, (14, 14, 10), effort="estimate") as plan:  # no rank empty at np <= 7
        a = plan.input_array()
        expect_everywhere(comm, volfft.VolfftError, "in_place=True", lambda: plan.forward(a, out=a))
    with pytest.raises(volfft.VolfftError, match="in_place does not combine with spectral_shape"):
        volfft.Plan(comm, (8, 8, 8), padding=1.5, in_place=True)
