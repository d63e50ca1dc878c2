"""The fluidfft plugin (plugins/fluidfft-volfft) under fluidfft's own test classes, np 1-4.

Each rank count runs plugins/fluidfft-volfft/tests/run_fluidfft_tests.py under mpirun:
fluidfft's complete_test_class_3d/complete_test_class_2d for the methods fft3d.mpi_with_volfft
and fft2d.mpi_with_volfft, and the plugin's checks of the spectra against numpy. Skipped when
fluidfft or the plugin is not installed (scripts/install-deps.sh installs both).
"""
from __future__ import annotations

import importlib.util
import os
import shutil
import sys

import pytest

from example_runs import clean_environment  # tests/python/example_runs.py
from volfft import _launch
from volfft._native import native

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DRIVER = os.path.join(ROOT, "plugins", "fluidfft-volfft", "tests", "run_fluidfft_tests.py")
METHODS = {"fft3d.mpi_with_volfft", "fft2d.mpi_with_volfft"}

try:
    native()
except ImportError as error:
    pytest.skip(f"volfft extension not built ({error})", allow_module_level=True)
if importlib.util.find_spec("fluidfft") is None:
    pytest.skip("fluidfft is not installed (pip install fluidfft; scripts/install-deps.sh does)",
                allow_module_level=True)


def _plugin_methods():
    # From the installed entry points, without importing fluidfft (and MPI) here.
    from importlib.metadata import entry_points

    try:
        found = entry_points(group="fluidfft.plugins")
    except TypeError:  # Python < 3.10
        found = entry_points().get("fluidfft.plugins", [])
    return {entry.name for entry in found}


if not METHODS <= _plugin_methods():
    pytest.skip("the fluidfft-volfft plugin is not installed (pip install ./plugins/fluidfft-volfft; "
                "scripts/install-deps.sh does)", allow_module_level=True)

MPIRUN = shutil.which("mpirun")


def plugin_environment(flavour):
    # Plan options from the caller's environment would change what is tested.
    env = clean_environment(flavour)
    env.pop("FLUIDFFT_VOLFFT_OPTIONS", None)
    return env


@pytest.mark.skipif(MPIRUN is None, reason="mpirun is not on PATH")
@pytest.mark.parametrize("nprocs", [1, 2, 3, 4])
def test_fluidfft_test_classes_under_mpirun(nprocs):
    flavour = _launch.mpi_flavour(MPIRUN)
    if flavour == _launch.MPICH:
        # MPICH's ranks poll without yielding the core: more ranks than cores crawl
        # (scripts/test-mpich.sh runs its MPI tests up to the cores for the same reason).
        limit = int(os.environ.get("VOLFFT_MPICH_MAX_NP", os.cpu_count() or 1))
        if nprocs > limit:
            pytest.skip(f"MPICH with {nprocs} ranks on {limit} cores (VOLFFT_MPICH_MAX_NP)")
    command = _launch.launch_command(nprocs, [sys.executable, "-m", "mpi4py", DRIVER], MPIRUN,
                                     flavour)
    result = _launch.run_job(command, timeout=150, env=plugin_environment(flavour), cwd=ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"at np={nprocs}: OK" in result.stdout, result.stdout + result.stderr
    # fluidfft's 3-D test function returns (passes) when the operators cannot be built.
    assert "ValueError while instantiating" not in result.stdout, result.stdout
