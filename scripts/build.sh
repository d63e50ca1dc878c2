#!/usr/bin/env bash
# Builds everything once, in build/: the C++ library, the tests, volfft-bench and the Python
# extension, and installs the Python package into the project environment (.venv, made by
# scripts/install-deps.sh). pip drives the one CMake tree (scikit-build-core with
# build-dir=build), so there is no second build for the wheel; re-runs are incremental.
#
# Environment: VOLFFT_VENV (default .venv), VOLFFT_BUILD_DIR (default build), VOLFFT_CMAKE_DEFINES
# (more NAME=VALUE CMake definitions, space-separated: scripts/test-mpich.sh builds against MPICH
# this way), VOLFFT_BUILD_TARGETS (space-separated CMake targets to build instead of all; the
# installed ones, volfft _volfft volfft-bench, must be among them), JOBS (default: all cores).
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${VOLFFT_VENV:-.venv}
BUILD_DIR=${VOLFFT_BUILD_DIR:-build}
# The project's CI (CI=true, a shared 2-core VM): ducc0's two sources for the compiler's default
# instruction set and at -O1. ducc0 compiles its kernels once for every SIMD width up to the
# target's, and with -march=native on AVX-512 its sources took about 40% of the build's CPU time
# (53 of 133 minutes on the loaded VM of 2026-11-27); for the default set at -O3 still 38%, and
# its float source alone at -O1 took 445 s of CPU. The tests check results, which neither
# changes; every other build keeps cmake/ducc0.cmake's defaults (native, the build type's -O3),
# which are what make ducc0 fast. VOLFFT_DUCC0_ARCH or VOLFFT_DUCC0_OPTIMIZE in
# VOLFFT_CMAKE_DEFINES wins.
cmake_defines=${VOLFFT_CMAKE_DEFINES:-}
if [ "${CI:-}" = true ]; then
  if [[ " $cmake_defines" != *" VOLFFT_DUCC0_ARCH="* ]]; then
    cmake_defines="VOLFFT_DUCC0_ARCH= $cmake_defines"
  fi
  if [[ " $cmake_defines" != *" VOLFFT_DUCC0_OPTIMIZE="* ]]; then
    cmake_defines="VOLFFT_DUCC0_OPTIMIZE=-O1 $cmake_defines"
  fi
  echo "build: CI=true: ducc0 compiled for speed of building, not of running ($cmake_defines)"
fi
defines=()
for define in $cmake_defines; do defines+=("-Ccmake.define.$define"); done
if [ -n "${VOLFFT_BUILD_TARGETS:-}" ]; then
  defines+=("-Cbuild.targets=$(echo $VOLFFT_BUILD_TARGETS | tr ' ' ';')")  # unquoted: words
fi
case $VENV in /*) ;; *) VENV="$PWD/$VENV" ;; esac  # absolute: CMake and the tests keep it
PYTHON="$VENV/bin/python"
if [ ! -x "$PYTHON" ]; then
  echo "build: no Python environment at $VENV; run scripts/install-deps.sh first" >&2
  exit 1
fi
export CMAKE_BUILD_PARALLEL_LEVEL=${JOBS:-$(nproc)}

echo "build: C++ library, tests, volfft-bench and the Python extension in $BUILD_DIR/ (one CMake tree;" \
     "the first build takes a few minutes on 2 cores), then the package into $VENV"
start=$SECONDS
# -v shows CMake's configure and ninja's progress as they happen; errors come with their output.
set +e
"$PYTHON" -m pip install -v --no-build-isolation --progress-bar off \
    -Cbuild-dir="$BUILD_DIR" \
    -Ccmake.define.VOLFFT_TESTS=ON \
    -Ccmake.define.BUILD_SHARED_LIBS=ON \
    -Ccmake.define.VOLFFT_PYTHON_EXECUTABLE="$PYTHON" \
    "${defines[@]}" . 2>&1 |
  grep --line-buffered -v -e "^Requirement already satisfied" -e "Running pip as the 'root' user" \
       -e "^  *Using cached" -e "^Using pip " -e "^Non-user install"
status=${PIPESTATUS[0]}
set -e
if [ "$status" -ne 0 ]; then
  echo "build: failed (status $status; the build's output is above)" >&2
  exit "$status"
fi
echo "build: done in $((SECONDS - start)) s; Python package installed in $VENV" \
     "(source $VENV/bin/activate to use it)"
