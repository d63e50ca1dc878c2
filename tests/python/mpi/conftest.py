"""The MPI suite: collected only when launched by mpirun (tests/python/run_mpi_tests.sh).

Every test here is collective: all ranks run the same tests in the same order, agree on each
verdict (computed on rank 0 and broadcast), and so fail together instead of leaving ranks
waiting in a collective. A plain ``pytest tests/python`` skips this folder and says so.
"""
from __future__ import annotations

import os

import pytest

_LAUNCHED = any(v in os.environ for v in (
    "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MPI_LOCALNRANKS", "VOLFFT_MPI_TESTS"))

if not _LAUNCHED:
    collect_ignore_glob = ["test_*.py"]


@pytest.fixture(scope="session")
def comm():
    """MPI.COMM_WORLD, skipping (with the reason) when the extension is not built."""
    from volfft._native import native

    try:
        native()
    except ImportError as error:  # pragma: no cover - depends on the build
        pytest.skip(f"volfft extension not available: {error}")
    from mpi4py import MPI

    return MPI.COMM_WORLD


# test_random_differential.py: which random cases run. The default seed and count are what CI
# runs (about 10 s at np 4 on two cores); a longer run takes another seed and more cases, and a
# failure names the --seed/--case pair that replays it alone.
RANDOM_DEFAULT_SEED = 17
RANDOM_DEFAULT_CASES = 400


def pytest_addoption(parser):
    group = parser.getgroup("volfft random differential test")
    group.addoption("--seed", type=int, default=RANDOM_DEFAULT_SEED,
                    help=f"seed of the random cases (default {RANDOM_DEFAULT_SEED})")
    group.addoption("--cases", type=int, default=RANDOM_DEFAULT_CASES,
                    help=f"number of random cases (default {RANDOM_DEFAULT_CASES})")
    group.addoption("--case", type=int, default=None,
                    help="run only this case of --seed (to replay a failure; needs the same np)")
