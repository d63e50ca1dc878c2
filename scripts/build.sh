#!/usr/bin/env bash
# Builds the C++ library, tests and volfft-bench into build/, and installs the Python package
# (which builds the same CMake tree once more through scikit-build-core).
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=${JOBS:-$(nproc)}
PYTHON=${PYTHON:-python3}
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DVOLFFT_PYTHON_EXECUTABLE="$(command -v "$PYTHON")" >/dev/null
cmake --build build -j "$JOBS"
if [ -f pyproject.toml ]; then
  # Debian's own python3 refuses system-wide pip installs (PEP 668: an EXTERNALLY-MANAGED
  # marker); a pyenv/venv python does not. Asked once, so that a real build error is shown
  # instead of being hidden by a retry.
  extra=()
  if "$PYTHON" -c 'import sys, sysconfig, os; sys.exit(0 if os.path.exists(os.path.join(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED")) and sys.prefix == sys.base_prefix else 1)'; then
    extra=(--break-system-packages)
  fi
  echo "build: the Python package (its own CMake build in build-wheel/, incremental after the first; about 2 minutes on 2 cores the first time)"
  start=$SECONDS
  set +e
  "$PYTHON" -m pip install --no-build-isolation --progress-bar off "${extra[@]}" . 2>&1 |
    grep -v -e "^Requirement already satisfied" -e "Running pip as the 'root' user"
  status=${PIPESTATUS[0]}
  set -e
  if [ "$status" -ne 0 ]; then
    echo "build: pip install of the Python package failed (status $status; its output is above)" >&2
    exit "$status"
  fi
  echo "build: Python package installed in $((SECONDS - start)) s"
fi
