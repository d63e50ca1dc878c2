"""docs/examples/poisson.py as a user runs it: `mpirun -n 2 python docs/examples/poisson.py`."""
from __future__ import annotations

import pytest

from example_runs import MPIRUN, run_example  # tests/python/example_runs.py
from volfft._native import native

try:
    native()
except ImportError as error:
    pytest.skip(f"volfft extension not built ({error})", allow_module_level=True)


@pytest.mark.skipif(MPIRUN is None, reason="mpirun is not on PATH")
@pytest.mark.parametrize("nprocs,extra", [(2, []), (3, ["--n", "30", "27", "20"])])
def test_poisson_example_under_mpirun(nprocs, extra):
    result = run_example("poisson.py", nprocs, extra)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"ranks={nprocs}" in result.stdout and "(ok)" in result.stdout, result.stdout
