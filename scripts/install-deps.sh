#!/usr/bin/env bash
# Installs what volfft needs on a fresh Debian/Ubuntu machine: compilers, CMake, Open MPI, FFTW
# (serial, threads, MPI), and the project's Python environment (.venv) with the packages for the
# bindings and tests. Idempotent: only missing packages are fetched.
set -euo pipefail

APT_PACKAGES=(build-essential cmake ninja-build pkg-config git
              libopenmpi-dev openmpi-bin libfftw3-dev libfftw3-mpi-dev iproute2
              gfortran)  # gfortran: the Fortran 2003 FFTW-MPI test of volfft_fftw3_mpi
# pytest-timeout: a time limit per Python test (pyproject.toml), so that a hung test fails by name.
PIP_PACKAGES=(numpy mpi4py "nanobind>=2" "scikit-build-core>=0.10" matplotlib pytest pytest-timeout)

SUDO=""
if [ "$(id -u)" != 0 ]; then
  if command -v sudo >/dev/null; then SUDO="sudo"; else
    echo "install-deps: not root and no sudo; install these yourself: ${APT_PACKAGES[*]}" >&2; fi
fi

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ] && { [ -n "$SUDO" ] || [ "$(id -u)" = 0 ]; }; then
  echo "install-deps: apt-get install ${missing[*]}"
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The project environment: a virtual environment (default .venv in the repository), so that
# nothing is installed into the system's or the user's Python. PYTHON names the interpreter it
# is made from (default python3).
cd "$(dirname "$0")/.."
VENV=${VOLFFT_VENV:-.venv}
BASE_PYTHON=${PYTHON:-python3}
# Debian's own python3 ships venv/ensurepip and its C headers (for the extension) separately.
if ! "$BASE_PYTHON" -c "import venv, ensurepip, os, sysconfig; assert os.path.exists(os.path.join(sysconfig.get_paths()['include'], 'Python.h'))" 2>/dev/null; then
  echo "install-deps: apt-get install python3-venv python3-dev (for $BASE_PYTHON)"
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    python3-venv python3-dev >/dev/null
fi
if [ ! -x "$VENV/bin/python" ]; then
  echo "install-deps: creating the project environment $VENV (from $("$BASE_PYTHON" -c 'import sys; print(sys.executable)'))"
  "$BASE_PYTHON" -m venv "$VENV"
fi
if ! "$VENV/bin/python" -c "import numpy, mpi4py, nanobind, scikit_build_core, matplotlib, pytest, pytest_timeout" 2>/dev/null; then
  echo "install-deps: pip install ${PIP_PACKAGES[*]} into $VENV"
  "$VENV/bin/python" -m pip install -q "${PIP_PACKAGES[@]}"
fi
# fluidfft and the volfft plugin for it (plugins/fluidfft-volfft, tested by
# tests/python/test_fluidfft_plugin.py). The plugin is pure Python and imports volfft only when
# fluidfft loads it, so it installs before volfft is built; --no-deps leaves mpi4py as it is
# (.venv-mpich's is built for MPICH). Installed again whenever its sources differ from the copy
# in the environment.
if ! "$VENV/bin/python" -c "import fluidfft" 2>/dev/null; then
  echo "install-deps: pip install fluidfft into $VENV"
  "$VENV/bin/python" -m pip install -q fluidfft
fi
plugin=$("$VENV/bin/python" -c "import os, fluidfft_volfft; print(os.path.dirname(fluidfft_volfft.__file__))" 2>/dev/null || true)
if [ -z "$plugin" ] || ! diff -rq -x __pycache__ plugins/fluidfft-volfft/fluidfft_volfft "$plugin" >/dev/null 2>&1; then
  echo "install-deps: pip install plugins/fluidfft-volfft (the fluidfft plugin) into $VENV"
  "$VENV/bin/python" -m pip install -q --no-deps ./plugins/fluidfft-volfft
fi
