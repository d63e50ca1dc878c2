#!/usr/bin/env bash
# Runs the whole test suite: the C++ unit and MPI tests at np 1-4 (and quick sets at np 5 and 7),
# the Python tests serial and under MPI, the examples and the install tests, built against Open
# MPI; then the same suite built against MPICH (scripts/test-mpich.sh, docs/mpich.md). Installs
# and builds what it needs first. Arguments go to the Open MPI ctest run; VOLFFT_SKIP_MPICH=1
# leaves the MPICH run out (it then says so).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
status=0
# -j the cores: each MPI test reserves its rank count (ctest's PROCESSORS), so only tests that
# together fit the cores run at once (a 1-rank test spends most of its time in MPI's start-up
# and shut-down, not on a core); the emulated-cluster tests run alone.
(cd build && ctest --output-on-failure --timeout 900 -j "$(nproc)" "$@") || status=$?
if [ "${VOLFFT_SKIP_MPICH:-0}" = 1 ]; then
  echo "test: the MPICH run was left out (VOLFFT_SKIP_MPICH=1)"
else
  scripts/test-mpich.sh || status=$?
fi
echo "test: $( [ $status = 0 ] && echo passed || echo "FAILED (status $status)" )"
exit $status
