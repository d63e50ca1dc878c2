#!/usr/bin/env bash
# Builds everything once, in build/: the C++ library, the tests, volfft-bench and the Python
# extension, and installs the Python package into the project environment (.venv, made by
# scripts/install-deps.sh). pip drives the one CMake tree (scikit-build-core with
# build-dir=build), so there is no second build for the wheel; re-runs are incremental.
#
# Environment: VOLFFT_VENV (default .venv), VOLFFT_BUILD_DIR (default build), VOLFFT_CMAKE_DEFINES
# (more NAME=VALUE CMake definitions, space-separated: scripts/test-mpich.sh builds against MPICH
# this way), VOLFFT_BUILD_TARGETS (space-separated CMake targets to build instead of all; the
# installed ones, volfft _volfft volfft-bench, must be among them), JOBS (default: all cores),
# VOLFFT_CI_OPTIMIZE (under CI=true: 0 keeps the Release flags; see below).
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${VOLFFT_VENV:-.venv}
BUILD_DIR=${VOLFFT_BUILD_DIR:-build}
# The project's CI (CI=true, a shared 2-core VM whose speed varies severalfold between runs):
# everything at -O1 (ducc0's sources at -Og), and ducc0 for the compiler's default instruction
# set. The tests check results, which neither changes; the build's time is what decides whether
# the CI's run ends in its limit. On the loaded VM of 2026-11-27 ducc0's two sources took 38% of the build's compile
# time at -O3 for the default instruction set (53 of 133 CPU-minutes with -march=native, which
# compiles its kernels for every SIMD width up to AVX-512), the library's own sources 30%, and
# ducc0's float source took 445 s of CPU at -O1. Every other build keeps the Release flags and
# cmake/ducc0.cmake's native default, which make volfft and ducc0 fast. A VOLFFT_DUCC0_ARCH in
# VOLFFT_CMAKE_DEFINES wins, as does a VOLFFT_DUCC0_OPTIMIZE; VOLFFT_CI_OPTIMIZE=0 keeps the
# Release flags under CI=true.
cmake_defines=${VOLFFT_CMAKE_DEFINES:-}
defines=()
if [ "${CI:-}" = true ]; then
  if [[ " $cmake_defines" != *" VOLFFT_DUCC0_ARCH="* ]]; then
    cmake_defines="VOLFFT_DUCC0_ARCH= $cmake_defines"
    echo "build: CI=true: ducc0 for the compiler's default instruction set"
  fi
  if [ "${VOLFFT_CI_OPTIMIZE:-1}" != 0 ]; then
    # ducc0's two sources at -Og (cmake/ducc0.cmake says what that saves), unless named.
    if [[ " $cmake_defines" != *" VOLFFT_DUCC0_OPTIMIZE="* ]]; then
      cmake_defines="VOLFFT_DUCC0_OPTIMIZE=-Og $cmake_defines"
    fi
    # One word each: the flags' value holds a space.
    defines+=("-Ccmake.define.CMAKE_CXX_FLAGS_RELEASE=-O1 -DNDEBUG"
              "-Ccmake.define.CMAKE_C_FLAGS_RELEASE=-O1 -DNDEBUG")
    echo "build: CI=true: everything at -O1, ducc0 at -Og (VOLFFT_CI_OPTIMIZE=0 keeps the Release flags)"
  fi
fi
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
