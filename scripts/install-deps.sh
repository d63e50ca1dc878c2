#!/usr/bin/env bash
# Installs what volfft needs on a fresh Debian/Ubuntu machine: compilers, CMake, Open MPI, FFTW
# (serial, threads, MPI), and the Python packages for the bindings and tests. Idempotent: only
# missing packages are fetched.
set -euo pipefail

APT_PACKAGES=(build-essential cmake ninja-build pkg-config git
              libopenmpi-dev openmpi-bin libfftw3-dev libfftw3-mpi-dev iproute2)
PIP_PACKAGES=(numpy mpi4py "nanobind>=2" "scikit-build-core>=0.10" matplotlib pytest)

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

PYTHON=${PYTHON:-python3}
need_pip=0
"$PYTHON" -c "import numpy, mpi4py, nanobind, scikit_build_core, matplotlib, pytest" 2>/dev/null || need_pip=1
if [ $need_pip = 1 ]; then
  echo "install-deps: pip install ${PIP_PACKAGES[*]}"
  # Debian's own python3 refuses system-wide pip installs (PEP 668); a pyenv/venv python does not.
  "$PYTHON" -m pip install -q "${PIP_PACKAGES[@]}" 2>/dev/null ||
    "$PYTHON" -m pip install -q --break-system-packages "${PIP_PACKAGES[@]}"
fi
