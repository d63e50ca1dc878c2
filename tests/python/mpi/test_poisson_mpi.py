"""The Poisson example of docs/python.md, solved in-process on every rank count and grid."""
from __future__ import annotations

import importlib.util
import os

import pytest
from mpi4py import MPI

EXAMPLE = os.path.join(os.path.dirname(__file__), "..", "..", "..", "docs", "examples", "poisson.py")
SIZE = MPI.COMM_WORLD.size


def load_example():
    spec = importlib.util.spec_from_file_location("volfft_poisson_example", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


GRIDS = ["auto"] + [(SIZE // p1, p1) for p1 in range(1, SIZE + 1) if SIZE % p1 == 0]


@pytest.mark.parametrize("grid", GRIDS, ids=str)
@pytest.mark.parametrize("shape", [(32, 32, 32), (30, 27, 20)], ids=str)
def test_poisson_error_is_at_rounding_level(comm, shape, grid):
    error = load_example().solve(comm, shape, grid)
    assert error < 1e-10, f"Poisson solution error {error:.3g} on {shape}, grid {grid}"


def test_poisson_main_returns_success(comm, capsys):
    assert load_example().main(["--n", "16", "12", "10"]) == 0
    if comm.rank == 0:
        assert "max error" in capsys.readouterr().out
