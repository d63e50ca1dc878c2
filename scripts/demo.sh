#!/usr/bin/env bash
# Sets everything up and runs the main demo: a verified distributed 3-D FFT on 4 local ranks,
# with its phase timings, beside FFTW's own MPI transform.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
# The default grid (by rule) is slabs here, like FFTW-MPI's: the comparison is like with like.
scripts/mpirun.sh -n 4 build/benchmarks/volfft-bench c2c double 128 128 128 --compare fftw-mpi
