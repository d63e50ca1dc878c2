"""Zero-padded plans (padding=), split-phase calls and the pipelined engine's options, at any
number of ranks, against numpy on the gathered arrays."""
from __future__ import annotations

import numpy as np
import pytest
from mpi4py import MPI

import volfft
from spectral_box import truncate  # tests/python/mpi/spectral_box.py

SIZE = MPI.COMM_WORLD.size
GRIDS = [(SIZE // p1, p1) for p1 in range(1, SIZE + 1) if SIZE % p1 == 0]


@pytest.mark.parametrize("kind", ["c2c", "r2c"])
@pytest.mark.parametrize("m,padding", [((8, 6, 4), 1.5), ((6, 5, 7), 2), ((5, 4), (1.5, 2)), ((4, 4, 4), 1)])
@pytest.mark.parametrize("engine", ["alltoallv", "pipelined", "node"])
def test_padded_against_numpy(comm, kind, m, padding, engine):
    grid = GRIDS[-1] if len(m) == 3 else (SIZE, 1)
    with volfft.Plan(comm, m, kind=kind, padding=padding, engine=engine, grid=grid, effort="estimate") as plan:
        n = plan.shape
        assert plan.spectral_shape == tuple(m)
        assert n == tuple(int(np.floor(mm * f)) for mm, f in zip(m, np.broadcast_to(padding, len(m))))
        rng = np.random.default_rng(3)
        x = rng.standard_normal(n)
        if kind == "c2c":
            x = x + 1j * rng.standard_normal(n)
        a = volfft.scatter(plan, x if comm.rank == 0 else None)
        spec = volfft.gather(plan, plan.forward(a))
        ok = True
        if comm.rank == 0:
            full = np.fft.rfftn(x) if kind == "r2c" else np.fft.fftn(x)
            want = truncate(full, m, n, kind == "r2c")
            ok = bool(np.allclose(spec, want, atol=1e-10 * np.abs(want).max()))
        assert comm.bcast(ok)
        # forward(backward(u_hat)) == u_hat for any m-box spectrum (c2c: any values; r2c: the
        # spectrum of a real field, its m/2 modes on even axes included).
        if kind == "c2c":
            u_hat = plan.output_array()
            u_hat[...] = rng.standard_normal(u_hat.shape) + 1j * rng.standard_normal(u_hat.shape)
        else:
            u_hat = plan.forward(a)
        again = plan.forward(plan.backward(u_hat))
        assert np.allclose(again, u_hat, atol=1e-12 * max(1.0, float(np.abs(u_hat).max(initial=0))))


@pytest.mark.parametrize("engine", ["alltoallv", "persistent", "pipelined", "p2p"])
def test_split_phase(comm, engine):
    shape = (9, 6, 7)
    with volfft.Plan(comm, shape, engine=engine, effort="estimate") as plan:
        rng = np.random.default_rng(comm.rank)
        a = plan.input_array()
        a[...] = rng.standard_normal(a.shape)
        blocking = plan.forward(a)
        request = plan.forward_start(a)
        busy = float(np.sum(np.sin(np.arange(10000))))  # the application's own work
        request.test()
        out = request.wait()
        assert busy == busy and np.array_equal(out, blocking)
        back = plan.backward_start(out).wait()
        assert np.allclose(back, a, atol=1e-12)


@pytest.mark.parametrize("planes", [1, 2, 3, "auto", 0])
@pytest.mark.parametrize("p2p", [False, True])
def test_pipelined_options(comm, planes, p2p):
    shape = (7, 9, 11)
    glob = np.random.default_rng(5).standard_normal(shape) if comm.rank == 0 else None
    with volfft.Plan(comm, shape, kind="r2c", engine="pipelined", planes=planes, pipeline_p2p=p2p,
                     max_in_flight=2, grid=GRIDS[-1], effort="estimate") as plan:
        a = volfft.scatter(plan, glob)
        spec = volfft.gather(plan, plan.forward(a))
        ok = True
        if comm.rank == 0:
            ok = bool(np.allclose(spec, np.fft.rfftn(glob), atol=1e-10))
        assert comm.bcast(ok)


def test_autotune_report_and_wisdom(comm, tmp_path_factory):
    path = comm.bcast(str(tmp_path_factory.mktemp("wisdom") / "w.json") if comm.rank == 0 else None)
    with volfft.Plan(comm, (8, 8, 8), wisdom_file=path, tune=600) as plan:
        report = plan.tuning_report()
        assert (report == "") == (SIZE == 1)
    with volfft.Plan(comm, (8, 8, 8), tune=0) as plan:
        assert plan.tuning_report() == ""  # the default: chosen by rule, nothing timed
    with volfft.Plan(comm, (8, 8, 8), wisdom_file=path, tune=600) as plan:
        if SIZE > 1:
            assert "from wisdom file" in plan.tuning_report()


def test_bad_array_on_one_rank_fails_everywhere(comm):
    """One rank's wrong array raises on every rank (no rank is left waiting in the exchange)."""
    if SIZE < 2:
        pytest.skip("needs two ranks: one passes a bad array, the others good ones")
    with volfft.Plan(comm, (8, 8, 8), effort="estimate", engine="alltoallv") as plan:
        a = plan.input_array()
        if comm.rank == 0:
            a = np.zeros(3, dtype=a.dtype)  # wrong shape on rank 0 only
        with pytest.raises((TypeError, ValueError), match="rank 0|this rank.s block"):
            plan.forward(a)
        good = plan.input_array()
        good[...] = 1.0
        assert np.allclose(plan.backward(plan.forward(good)), good)  # the plan still works
