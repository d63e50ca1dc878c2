"""docs/examples/taylor_green.py: the Taylor-Green vortex at Re = 1600 against the 512^3 DNS of
van Rees et al. (2011), under mpirun as a user runs it and in-process (one rank; mpi4py's
COMM_WORLD is then a singleton). 32^3 to t = 1: a few seconds per run."""
from __future__ import annotations

import re

import numpy as np
import pytest

from example_runs import MPIRUN, load_example, run_example  # tests/python/example_runs.py
from volfft._native import native

try:
    native()
except ImportError as error:
    pytest.skip(f"volfft extension not built ({error})", allow_module_level=True)

RUN = ["--n", "32", "--t-end", "1", "--check"]


@pytest.fixture
def tgv():
    """The example as a module, loaded afresh per test."""
    return load_example("taylor_green.py", "taylor_green_example")


@pytest.fixture(scope="module")
def one_rank_run():
    """The 32^3 run to t = 1 in this process: (module, result)."""
    from mpi4py import MPI

    module = load_example("taylor_green.py", "taylor_green_example_reference")
    return module, module.simulate(MPI.COMM_WORLD, n=32, t_end=1.0)


@pytest.mark.skipif(MPIRUN is None, reason="mpirun is not on PATH")
@pytest.mark.parametrize("nprocs", [1, 2])
def test_taylor_green_example_under_mpirun(nprocs, one_rank_run):
    result = run_example("taylor_green.py", nprocs, RUN)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"ranks={nprocs}" in result.stdout and "(ok)" in result.stdout, result.stdout
    worst = float(re.search(r"max relative difference ([0-9.e+-]+)", result.stdout).group(1))
    assert worst < 1e-8, result.stdout  # measured 1.1e-11: the reference's printed digits
    # The ranks change only the order of sums: E(t = 1) as in one process (printed to 1e-10).
    energy = float(re.search(r" E=([0-9.]+)", result.stdout).group(1))
    assert abs(energy - one_rank_run[1]["E"][-1]) < 1e-10, (energy, one_rank_run[1]["E"][-1])


def test_initial_energy_and_enstrophy_are_exact(tgv):
    from mpi4py import MPI

    with tgv.TaylorGreen(MPI.COMM_WORLD, n=32) as flow:
        # <u^2> = <v^2> = 1/8; |k|^2 = 3 for every mode. Only kz = +-1 modes: without the
        # half-spectrum's weight 2 the energy would be half.
        assert abs(flow.energy() - 0.125) < 1e-12
        assert abs(flow.enstrophy() - 0.375) < 1e-12


def test_spectral_energy_is_the_grid_average(tgv):
    # After some steps many modes are occupied (kz = 0 and kz > 0): Parseval's weights against
    # the average of |u|^2 / 2 over the padded grid, which holds |u|^2 exactly.
    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    with tgv.TaylorGreen(comm, n=16) as flow:
        for _ in range(20):
            flow.step(0.05)
        total = 0.0
        for i in range(3):
            u = flow.plan.backward(flow.u_hat[i])
            total += float(np.sum(u * u))
        grid_energy = 0.5 * comm.allreduce(total) / np.prod(flow.plan.shape)
        assert abs(flow.energy() - grid_energy) < 1e-14
        assert flow.energy() < 0.125


def test_check_passes_and_a_wrong_viscosity_fails(tgv, one_rank_run, capsys):
    module, result = one_rank_run
    reference = module.load_reference()
    worst, _ = module.compare_energy(result, reference)
    assert worst < module.default_tolerance(32, 1.0)
    # Ten times the viscosity: the decay is ten times faster, 3.4e-2 off the reference at t = 1.
    assert tgv.main(RUN + ["--nu-factor", "10"]) == 1
    assert "FAILED" in capsys.readouterr().out
    # Even 1% more viscosity is seen at 32^3, t = 1 (3.9e-5 off).
    assert tgv.main(RUN + ["--nu-factor", "1.01"]) == 1
