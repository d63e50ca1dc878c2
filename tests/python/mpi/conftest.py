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
