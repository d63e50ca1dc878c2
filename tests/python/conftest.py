"""Shared pytest setup for tests/python.

Pure-Python tests (volfft.mapping, volfft.model) need nothing from here. For the tests of the
compiled part this file makes a source checkout usable without installing: it puts
``python/`` on sys.path when volfft is not importable, and when the extension is not installed
it points ``VOLFFT_EXTENSION_DIR`` at the newest ``_volfft*.so`` of a CMake build folder
(``build*/python/bindings``), so that subprocesses (mpirun, the examples) find it too.
Nothing here imports MPI.
"""
from __future__ import annotations

import glob
import importlib.util
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

if importlib.util.find_spec("volfft") is None:
    sys.path.insert(0, os.path.join(ROOT, "python"))
    os.environ["PYTHONPATH"] = os.pathsep.join(
        p for p in (os.path.join(ROOT, "python"), os.environ.get("PYTHONPATH")) if p)

if not os.environ.get("VOLFFT_EXTENSION_DIR") and importlib.util.find_spec("volfft._volfft") is None:
    built = glob.glob(os.path.join(ROOT, "build*", "**", "_volfft*.so"), recursive=True)
    if built:
        os.environ["VOLFFT_EXTENSION_DIR"] = os.path.dirname(max(built, key=os.path.getmtime))


_MPI_LAUNCHED = any(v in os.environ for v in (
    "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MPI_LOCALNRANKS", "VOLFFT_MPI_TESTS"))


def pytest_report_header(config):
    where = os.environ.get("VOLFFT_EXTENSION_DIR") or "installed package (if any)"
    lines = [f"volfft extension: {where}"]
    if not _MPI_LAUNCHED:
        lines.append("tests/python/mpi: not collected outside mpirun; "
                     "run tests/python/run_mpi_tests.sh (np 1-4)")
    return lines


# benchmarks/ (peer_matrix.py, one_node.py) importable by their tests.
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))


@pytest.fixture
def bench_driver():
    """Path of an installed volfft-bench, with mpirun on PATH; the test is skipped otherwise."""
    import shutil

    from volfft import bench_cli

    try:
        driver = bench_cli.find_driver()
    except FileNotFoundError:
        driver = None
    if shutil.which("mpirun") is None or driver is None:
        pytest.skip("needs mpirun and an installed volfft-bench")
    return driver
