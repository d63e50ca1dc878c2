#!/usr/bin/env bash
# Runs the whole test suite: the C++ unit and MPI tests at np 1-4 (and quick sets at np 5 and 7),
# the Python tests serial and under MPI, the examples and the install tests, built against Open
# MPI; then what depends on the MPI library again, built against MPICH (scripts/test-mpich.sh,
# docs/mpich.md). Installs and builds what it needs first. Arguments go to one plain Open MPI
# ctest call (e.g. -R transforms); VOLFFT_SKIP_MPICH=1 leaves the MPICH run out (it then says so).
#
# Without arguments the Open MPI tests run through scripts/ctest-tiers.py: a smoke set that always
# runs (tier 0), then every other test of the library's results (tier 1), then forced large-array
# paths, FFTW's harness, the emulated cluster and the install tests (tier 2).
# VOLFFT_TEST_START_BY=M (minutes from this script's start; default 25 under CI=true, none
# otherwise) starts no ctest call of tiers 1-2 after minute M, and names the tests left out. The
# project wants its CI run under 30 minutes, on a shared 2-core VM whose speed varies tenfold
# between runs: on 2026-11-28 the build took 1.5 minutes and the Open MPI tests 6 (everything,
# MPICH included, in about 15); on 2026-11-27 the build alone ended at minute 64. So on a good
# day everything runs, and on a slow one the run ends near minute 30 with the smoke set and what
# fitted, naming the rest.
#
# The MPICH run (a second, reduced build and its tests: under 5 minutes in all on the 2-core VM of
# 2026-11-24, docs/mpich.md; the reduced build alone took 50 minutes at one job beside another
# build on the loaded VM of 2026-11-27) starts only when everything before it ended within
# VOLFFT_MPICH_START_BY minutes of the start (default 15), so that the whole run stays near 30
# minutes on a slower machine; otherwise it says so, and how to run it.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
status=0
# One test at a time (ctest's default, in scripts/ctest-tiers.py too). With -j twice the cores
# (ranks reserved per test) the loaded VM of 2026-11-27 failed four of the first 56 tests:
# test_threads_np1 and test_errors_np3 ran past their timeouts beside other tests, and
# test_node_np1 and reshape_bench_bricks_np2 passed every check but mpiexec then reported a rank
# "exiting improperly" (an Open MPI 4.x race, which tests/CMakeLists.txt now turns off). The
# PROCESSORS each MPI test declares let `ctest -j N` schedule by ranks on a machine with cores to
# spare (not measured).
if [ $# -gt 0 ]; then
  (cd build && ctest --output-on-failure --timeout 900 -j 1 "$@") || status=$?
else
  test_start_by=${VOLFFT_TEST_START_BY:-}
  if [ -z "$test_start_by" ] && [ "${CI:-}" = true ]; then
    test_start_by=25
  fi
  deadline=()
  if [ -n "$test_start_by" ]; then
    deadline=(--start-by $(( $(date +%s) - SECONDS + test_start_by * 60 )))
    echo "test: no ctest call starts after minute $test_start_by of this run (VOLFFT_TEST_START_BY)"
  fi
  .venv/bin/python scripts/ctest-tiers.py build "${deadline[@]}" || status=$?
fi
elapsed_min=$((SECONDS / 60))
start_by=${VOLFFT_MPICH_START_BY:-15}
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
