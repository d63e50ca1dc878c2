#!/usr/bin/env bash
# Run the MPI part of the Python tests (tests/python/mpi) at 1, 2, 3 and 4 ranks, each under a
# timeout, with Open MPI or MPICH. Exit status: 0 when every run passed.
#
#   tests/python/run_mpi_tests.sh [--np "1 2 3 4"] [--timeout SECONDS] [-- PYTEST ARGS...]
#
# The randomized differential test (test_random_differential.py) takes --seed, --cases and
# --case (tests/python/mpi/conftest.py); a longer run, and the replay of one case:
#
#   tests/python/run_mpi_tests.sh --np 4 -- -k random --seed 7 --cases 500
#   tests/python/run_mpi_tests.sh --np 4 -- -k random --seed 7 --case 123
#
# The volfft package must be importable: installed (pip install .), or a source checkout with
# VOLFFT_EXTENSION_DIR naming the folder of a CMake-built _volfft*.so (the suite's conftest
# finds build*/python/bindings by itself). Environment: PYTHON (default python3), MPIRUN
# (default mpirun).
set -u

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
python="${PYTHON:-python3}"
mpirun="${MPIRUN:-mpirun}"
nps="1 2 3 4"
limit=600
while [ $# -gt 0 ]; do
  case "$1" in
    --np) nps="$2"; shift 2 ;;
    --timeout) limit="$2"; shift 2 ;;
    --) shift; break ;;
    *) echo "run_mpi_tests.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done

launcher=("$mpirun")
if "$mpirun" --version 2>/dev/null | grep -q "Open MPI"; then
  # More ranks than cores is normal on a workstation; root needs Open MPI's consent.
  launcher+=(--oversubscribe)
  # Open MPI 4.x's runtime race that reports a rank exiting 0 after MPI_Finalize as "exiting
  # improperly" (scripts/mpirun.sh says more); a failing rank still fails the run.
  export OMPI_MCA_orte_allowed_exit_without_sync=1
  if [ "$(id -u)" = 0 ]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  fi
fi

# A source checkout: the package from python/, unless it is installed.
if ! "$python" -c "import volfft" 2>/dev/null; then
  export PYTHONPATH="$root/python${PYTHONPATH:+:$PYTHONPATH}"
fi
export VOLFFT_MPI_TESTS=1

status=0
for np in $nps; do
  echo "=== tests/python/mpi at np=$np (timeout ${limit}s)"
  # -p no:cacheprovider: the ranks would race on .pytest_cache. -rs prints skip reasons.
  timeout --kill-after=10 "$limit" "${launcher[@]}" -n "$np" \
    "$python" -m mpi4py -m pytest "$here/mpi" -x -q -rs -p no:cacheprovider "$@"
  rc=$?
  if [ $rc -ne 0 ]; then
    [ $rc -eq 124 ] && echo "tests/python/mpi at np=$np: timed out after ${limit}s" >&2
    echo "tests/python/mpi at np=$np: FAILED (status $rc)" >&2
    status=1
  fi
done
exit $status
