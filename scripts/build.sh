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
  "$PYTHON" -m pip install -q --no-build-isolation . 2>/dev/null ||
    "$PYTHON" -m pip install -q --no-build-isolation --break-system-packages .
fi
