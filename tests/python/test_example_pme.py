"""docs/examples/pme.py: the Madelung constant of NaCl by smooth PME, under mpirun as a user runs
it and in-process (one rank; mpi4py's COMM_WORLD is then a singleton)."""
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


@pytest.fixture
def pme():
    """The example as a module, loaded afresh per test (a test may patch it)."""
    return load_example("pme.py", "pme_example")


@pytest.fixture(scope="module")
def one_rank_madelung():
    module = load_example("pme.py", "pme_example_reference")
    from mpi4py import MPI
    return module.madelung_pme(MPI.COMM_WORLD)


@pytest.mark.skipif(MPIRUN is None, reason="mpirun is not on PATH")
@pytest.mark.parametrize("nprocs", [1, 2, 3])
def test_pme_example_under_mpirun(nprocs, one_rank_madelung):
    result = run_example("pme.py", nprocs, ["--n", "32"], timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"ranks={nprocs}" in result.stdout and "(ok)" in result.stdout, result.stdout
    pme = float(re.search(r"PME\s+([0-9.]+)", result.stdout).group(1))
    ewald = float(re.search(r"direct Ewald\s+([0-9.]+)", result.stdout).group(1))
    assert abs(pme - 1.747565) < 1e-6 and abs(pme - ewald) < 1e-6, result.stdout
    # Printed to 12 decimals; the ranks change only the order of sums.
    assert abs(pme - one_rank_madelung) < 1e-11, (pme, one_rank_madelung)


def test_madelung_constant_in_process(pme, one_rank_madelung):
    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    ewald = pme.madelung_ewald(comm)
    assert abs(ewald - 1.74756459463) < 1e-10
    assert abs(one_rank_madelung - 1.74756459463) < 1e-6
    assert abs(one_rank_madelung - ewald) < 1e-6
    # Another box and mesh, the conventional cell alone: the same constant.
    assert abs(pme.madelung_pme(comm, n=24, order=8, cells=1) - 1.74756459463) < 1e-6


def test_bspline_weights_are_a_partition_of_unity(pme):
    u = np.array([0.0, 0.25, 3.5, 7.999])
    for order in (3, 4, 6, 8):
        points, weights = pme.bspline_weights(u, order)
        assert np.allclose(weights.sum(axis=1), 1.0) and np.all(weights >= 0)
        # Weight j belongs to mesh point floor(u) - j, at distance u - point in (0, p).
        assert np.all((u[:, None] - points >= 0) & (u[:, None] - points < order))


def test_wrong_ingredients_miss(pme, monkeypatch):
    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    # A mesh too coarse for the splitting: the tolerance means something.
    assert abs(pme.madelung_pme(comm, n=16, order=4) - 1.74756459463) > 1e-6
    # Without the B-spline moduli |b(m)|^2 the structure factor is damped (4e-4 off).
    monkeypatch.setattr(pme, "bspline_moduli", lambda n, order: np.ones(n))
    assert abs(pme.madelung_pme(comm) - 1.74756459463) > 1e-5
