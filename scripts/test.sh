#!/usr/bin/env bash
# Runs the whole test suite (C++ unit and MPI tests at np 1-4, Python tests serial and under MPI,
# examples, install test), after installing and building what it needs.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
cd build
ctest --output-on-failure --timeout 900 -j 1 "$@"
