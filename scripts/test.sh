#!/usr/bin/env bash
# Runs the whole test suite: the C++ unit and MPI tests at np 1-4 (and quick sets at np 5 and 7),
# the Python tests serial and under MPI, the examples and the install tests, built against Open
# MPI; then what depends on the MPI library again, built against MPICH (scripts/test-mpich.sh,
# docs/mpich.md). Installs and builds what it needs first. Arguments go to the Open MPI ctest
# run; VOLFFT_SKIP_MPICH=1 leaves the MPICH run out (it then says so).
#
# The MPICH run (a second build and its tests: under 5 minutes in all on the 2-core VM of
# 2026-11-24, docs/mpich.md; its reduced build alone took 50 minutes at one job beside another
# build on the loaded VM of 2026-11-27) starts only when everything before it ended within
# VOLFFT_MPICH_START_BY minutes of the start (default 45), so that the whole run stays inside a
# 90-minute CI limit on a slow machine; otherwise it says so, and how to run it.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
status=0
# -j twice the cores: each MPI test reserves its rank count (ctest's PROCESSORS), so tests of
# up to twice the cores' ranks run at once. Most of a small test's time is MPI's start-up and
# shut-down, waiting rather than computing (test_transforms --quick at np 1: 1.0 s of CPU in
# 13.8 s on a loaded VM), and those waits overlap; the emulated-cluster tests run alone.
(cd build && ctest --output-on-failure --timeout 900 -j "$((2 * $(nproc)))" "$@") || status=$?
elapsed_min=$((SECONDS / 60))
start_by=${VOLFFT_MPICH_START_BY:-45}
if [ "${VOLFFT_SKIP_MPICH:-0}" = 1 ]; then
  echo "test: the MPICH run was left out (VOLFFT_SKIP_MPICH=1)"
elif [ "$elapsed_min" -ge "$start_by" ]; then
  echo "test: the MPICH run was left out: the Open MPI part took $elapsed_min min on this" \
       "machine, not under VOLFFT_MPICH_START_BY=$start_by; scripts/test-mpich.sh runs it alone"
else
  scripts/test-mpich.sh || status=$?
fi
echo "test: $( [ $status = 0 ] && echo passed || echo "FAILED (status $status)" ) in $((SECONDS / 60)) min"
exit $status
