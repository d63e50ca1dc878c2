#!/usr/bin/env bash
# volfft_fftw3_mpi against FFTW's own libfftw3_mpi on random small problems: one source
# (fftw_mpi_differential.c, FFTW's manual interface only) built twice, run at each process count,
# every rank's local sizes and outputs compared (fftw_mpi_compare.py says what differences are
# known and why).
#
#   tests/fftw_mpi/fftw_mpi_differential.sh BUILD_DIR
#
# Environment: FFTW_DIFF_NP (default "1 2 3 4 5 6 7"), FFTW_DIFF_SEEDS (default "1"),
# FFTW_DIFF_CASES (problems per seed, default 80), FFTW_DIFF_TIMEOUT (seconds per run, 120).
# Exit 0 when nothing differs, 1 otherwise, 77 when mpicc or FFTW's libfftw3_mpi is missing.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
[ $# -eq 1 ] || { echo "usage: $0 BUILD_DIR" >&2; exit 2; }
build="$(cd "$1" && pwd)"
work="$build/fftw-differential"
mkdir -p "$work"
command -v mpicc >/dev/null || { echo "SKIPPED: no mpicc"; exit 77; }
src="$here/fftw_mpi_differential.c"
# FFTW's build allocates with slack (-DSLACK, see the source); volfft's allocates exactly.
mpicc -O1 -DSLACK -o "$work/fftw" "$src" -lfftw3_mpi -lfftw3 -lm 2>"$work/fftw-build.log" ||
  { echo "SKIPPED: cannot link FFTW's libfftw3_mpi ($work/fftw-build.log)"; exit 77; }
mpicc -O1 -o "$work/volfft" "$src" -L"$build" -Wl,-rpath,"$build" -lvolfft_fftw3_mpi -lfftw3 -lm ||
  { echo "cannot build against $build/libvolfft_fftw3_mpi.so"; exit 1; }
status=0
for seed in ${FFTW_DIFF_SEEDS:-1}; do
  for np in ${FFTW_DIFF_NP:-1 2 3 4 5 6 7}; do
    dir="$work/seed${seed}_np${np}"
    rm -rf "$dir" && mkdir -p "$dir/fftw" "$dir/volfft"
    for lib in fftw volfft; do
      timeout "${FFTW_DIFF_TIMEOUT:-120}" "$repo/scripts/mpirun.sh" -np "$np" "$work/$lib" "$seed" \
        "${FFTW_DIFF_CASES:-80}" "$dir/$lib" >"$dir/$lib.log" 2>&1
      rc=$?
      if [ "$lib" = volfft ] && [ $rc -ne 0 ]; then
        echo "FAILED: volfft's run, seed $seed np $np, exit $rc (log $dir/$lib.log)"
        status=1
      fi
    done
    echo -n "seed $seed "
    python3 "$here/fftw_mpi_compare.py" "$dir/fftw" "$dir/volfft" "$np" || status=1
  done
done
exit $status
