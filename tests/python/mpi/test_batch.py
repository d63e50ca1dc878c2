"""Batched fields from Python (``batch=k``): arrays with a field axis, first (``batch_layout=
"outer"``) or last (``"inner"``), scattered, transformed and gathered as one array, against
numpy.fft over the spatial axes, at any number of ranks, every grid, uneven sizes, padding (the
3/2 rule), in place; and the plan's description (the performance model's input) stays
consistent for batched, padded and r2r plans.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from mpi4py import MPI

import volfft

SIZE = MPI.COMM_WORLD.size
GRIDS = [(SIZE // p1, p1) for p1 in range(1, SIZE + 1) if SIZE % p1 == 0]


def spatial_axes(ndim, layout):
    return tuple(range(1, ndim + 1)) if layout == "outer" else tuple(range(ndim))


def global_shape(shape, k, layout):
    return (k, *shape) if layout == "outer" else (*shape, k)


@pytest.mark.parametrize("grid", GRIDS, ids=lambda g: f"{g[0]}x{g[1]}")
@pytest.mark.parametrize("layout", ["outer", "inner"])
@pytest.mark.parametrize("kind", ["c2c", "r2c"])
@pytest.mark.parametrize("shape", [(7, 6, 9), (2, 3, 4)], ids=str)
def test_batch_against_numpy(comm, shape, kind, layout, grid):
    k = 3
    dtype = np.float64 if kind == "r2c" else np.complex128
    rng = np.random.default_rng(5)
    glob = None
    if comm.rank == 0:
        glob = rng.standard_normal(global_shape(shape, k, layout))
        if kind == "c2c":
            glob = glob + 1j * rng.standard_normal(glob.shape)
    with volfft.Plan(comm, shape, dtype=dtype, kind=kind, grid=grid, batch=k, batch_layout=layout,
                     effort="estimate") as plan:
        assert plan.batch == k
        a = volfft.scatter(plan, glob)
        assert a.shape == plan.input_shape and len(a.shape) == len(shape) + 1
        b = plan.forward(a)
        spectrum = volfft.gather(plan, b)
        back = volfft.gather(plan, plan.backward(b), forward_output=False)
        plan.describe()  # consistent for a batched plan
    if comm.rank == 0:
        axes = spatial_axes(len(shape), layout)
        want = np.fft.rfftn(glob, axes=axes) if kind == "r2c" else np.fft.fftn(glob, axes=axes)
        tol = 1e-13 * max(1.0, math.log2(math.prod(shape)))
        assert np.abs(spectrum - want).max() <= tol * np.abs(want).max()
        assert np.abs(back - glob).max() <= tol * np.abs(glob).max()


@pytest.mark.parametrize("layout", ["outer", "inner"])
def test_three_padded_velocity_components(comm, layout):
    """What a turbulence code does: three fields, the 3/2 rule, spectra in and out."""
    m = (8, 8, 8)
    with volfft.Plan(comm, m, dtype=np.float64, kind="r2c", padding=1.5, batch=3, batch_layout=layout,
                     effort="estimate") as plan, \
            volfft.Plan(comm, m, dtype=np.float64, kind="r2c", padding=1.5, effort="estimate") as one:
        u = plan.input_array()
        rng = np.random.default_rng(comm.rank)
        u[...] = rng.standard_normal(u.shape)
        u_hat = plan.forward(u)
        plan.describe()  # consistent for a padded plan
        for f in range(3):
            field = u[f] if layout == "outer" else u[..., f]
            single = one.forward(np.ascontiguousarray(field))
            got = u_hat[f] if layout == "outer" else u_hat[..., f]
            assert np.allclose(got, single, rtol=1e-12, atol=1e-12)
            back = plan.backward(u_hat)
            got_back = back[f] if layout == "outer" else back[..., f]
            assert np.allclose(got_back, one.backward(single), rtol=1e-12, atol=1e-12)


def test_batch_in_place(comm):
    glob = np.random.default_rng(2).standard_normal((2, 6, 5, 8)) if comm.rank == 0 else None
    with volfft.Plan(comm, (6, 5, 8), dtype=np.float64, kind="r2c", batch=2, in_place=True,
                     effort="estimate") as plan:
        a = volfft.scatter(plan, glob)
        b = plan.forward(a)
        assert np.shares_memory(a, b) or a.size == 0 or b.size == 0
        spectrum = volfft.gather(plan, b)
        back = volfft.gather(plan, plan.backward(b), forward_output=False)
    if comm.rank == 0:
        assert np.allclose(spectrum, np.fft.rfftn(glob, axes=(1, 2, 3)), atol=1e-12)
        assert np.allclose(back, glob, atol=1e-13)


def test_descriptions_stay_consistent(comm):
    for options in ({"kinds": ("dct2", "none", "r2c")}, {"kinds": ("none", "dft", "r2c")},
                    {"kinds": ("none", "none", "r2c"), "grid": GRIDS[-1]},
                    {"padding": 1.5}, {"batch": 2, "padding": 1.5}):
        with volfft.Plan(comm, (8, 6, 10), dtype=np.float64, kind="r2c", effort="estimate", **options) as plan:
            d = plan.describe()
            assert all(s["count_per_rank"].shape == (comm.size,) for s in d["stages"])
    with volfft.Plan(comm, (8, 6, 10), dtype=np.float64, kind="r2c", kinds=("dct2", "dst1", "r2c"),
                     effort="estimate") as plan:
        assert [s["kind"] for s in plan.describe()["stages"]] == ["r2c", "dst1", "dct2"]


def test_batch_misuse(comm):
    with pytest.raises(volfft.VolfftError, match="batch must be an integer >= 1"):
        volfft.Plan(comm, (8, 8, 8), batch=0)
    with volfft.Plan(comm, (8, 8, 8), batch=2, effort="estimate") as plan:
        one_field = np.zeros(plan.input_shape[1:], np.complex128)
        with pytest.raises(volfft.VolfftError, match="shape"):
            plan.forward(one_field)  # a single field to a batched plan: refused on every rank
