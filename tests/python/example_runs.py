"""The examples of docs/examples as a user runs them (under mpirun) and as tests call them
(loaded in-process): what tests/python/test_plan_poisson.py and the other example tests share."""
from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from types import ModuleType
from typing import Sequence

from volfft import _launch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MPIRUN = shutil.which("mpirun")


def example_path(name: str) -> str:
    """docs/examples/<name>."""
    return os.path.join(ROOT, "docs", "examples", name)


def clean_environment(flavour: str) -> dict:
    # Variables an MPI singleton may have set in this process would confuse a new mpirun.
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("OMPI_", "PMIX_", "PMI_", "HYDRA_", "MPI_LOCAL"))}
    return _launch.launch_environment(flavour, env)


def run_example(name: str, nprocs: int, args: Sequence[str] = (), timeout: float = 180) -> subprocess.CompletedProcess:
    """`mpirun -n nprocs python docs/examples/<name> args...` from the repository root."""
    flavour = _launch.mpi_flavour(MPIRUN)
    command = _launch.launch_command(nprocs, [sys.executable, example_path(name), *args], MPIRUN, flavour)
    return _launch.run_job(command, timeout=timeout, env=clean_environment(flavour), cwd=ROOT)


def load_example(name: str, module_name: str) -> ModuleType:
    """docs/examples/<name> as a fresh module (a test may patch it)."""
    spec = importlib.util.spec_from_file_location(module_name, example_path(name))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
