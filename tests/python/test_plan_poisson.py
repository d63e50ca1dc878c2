"""docs/examples/poisson.py as a user runs it: `mpirun -n 2 python docs/examples/poisson.py`."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from volfft import _launch
from volfft._native import native

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLE = os.path.join(ROOT, "docs", "examples", "poisson.py")

try:
    native()
except ImportError as error:
    pytest.skip(f"volfft extension not built ({error})", allow_module_level=True)
MPIRUN = shutil.which("mpirun")


def clean_environment(flavour):
    # Variables an MPI singleton may have set in this process would confuse a new mpirun.
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("OMPI_", "PMIX_", "PMI_", "HYDRA_", "MPI_LOCAL"))}
    return _launch.launch_environment(flavour, env)


@pytest.mark.skipif(MPIRUN is None, reason="mpirun is not on PATH")
@pytest.mark.parametrize("nprocs,extra", [(2, []), (3, ["--n", "30", "27", "20"])])
def test_poisson_example_under_mpirun(nprocs, extra):
    flavour = _launch.mpi_flavour(MPIRUN)
    command = _launch.launch_command(nprocs, [sys.executable, EXAMPLE] + extra, MPIRUN, flavour)
    result = subprocess.run(command, capture_output=True, text=True, timeout=180,
                            env=clean_environment(flavour), cwd=ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"ranks={nprocs}" in result.stdout and "(ok)" in result.stdout, result.stdout
