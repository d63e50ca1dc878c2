"""docs/examples/poisson_walls.py as a user runs it (`mpirun -n 2 python docs/examples/poisson_walls.py`),
and in-process at one rank (mpi4py's COMM_WORLD is then a singleton): the Neumann and Dirichlet
solves are exact to rounding, and the transform that does not match the walls is not."""
from __future__ import annotations

import re

import pytest

from example_runs import MPIRUN, load_example, run_example  # tests/python/example_runs.py
from volfft._native import native

try:
    native()
except ImportError as error:
    pytest.skip(f"volfft extension not built ({error})", allow_module_level=True)


@pytest.fixture(scope="module")
def example():
    return load_example("poisson_walls.py", "poisson_walls_example")


@pytest.mark.skipif(MPIRUN is None, reason="mpirun is not on PATH")
@pytest.mark.parametrize("nprocs,extra", [
    (1, []),
    (2, ["--walls", "dirichlet"]),
    (3, ["--n", "30", "27", "20"]),
    (3, ["--n", "20", "18", "16", "--grid", "1x3", "--walls", "dirichlet"]),
])
def test_poisson_walls_example_under_mpirun(nprocs, extra):
    result = run_example("poisson_walls.py", nprocs, extra)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"ranks={nprocs}" in result.stdout and "(ok)" in result.stdout, result.stdout
    error = float(re.search(r"max error=(\S+)", result.stdout).group(1))
    assert error < 1e-12, result.stdout  # a finite sum of the basis functions: rounding only


@pytest.mark.skipif(MPIRUN is None, reason="mpirun is not on PATH")
def test_poisson_walls_example_fails_above_its_tolerance():
    result = run_example("poisson_walls.py", 1, ["--n", "8", "6", "7", "--tolerance", "1e-30"])
    assert result.returncode != 0 and "(FAILED)" in result.stdout, result.stdout + result.stderr


@pytest.mark.parametrize("walls", ["neumann", "dirichlet"])
def test_solve_in_process(example, walls):
    from mpi4py import MPI

    error = example.solve(MPI.COMM_WORLD, (16, 12, 10), walls=walls)
    assert error < 1e-10, (walls, error)


@pytest.mark.parametrize("walls,wrong", [("neumann", "dst2"), ("dirichlet", "dct2")])
def test_the_wrong_kind_solves_another_problem(example, walls, wrong):
    """The sines cannot meet du/dx = 0 on the walls, nor the cosines u = 0: O(1) errors."""
    from mpi4py import MPI

    error = example.solve(MPI.COMM_WORLD, (16, 12, 10), walls=walls, x_kind=wrong)
    assert error > 0.1, (walls, wrong, error)
