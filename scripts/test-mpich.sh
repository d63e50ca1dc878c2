#!/usr/bin/env bash
# Builds volfft against MPICH, beside the Open MPI build, and runs the C++ and Python test suites
# under it (docs/mpich.md). On a fresh Debian machine, with no input:
#
#   1. Debian's MPICH is unpacked into /opt/mpich (python3 -m tools.vcluster mpich-setup), so
#      that Open MPI stays the system MPI (no second mpirun/mpicc/mpi.h);
#   2. the environment .venv-mpich gets mpi4py compiled against MPICH;
#   3. build-mpich/ is built by scripts/build.sh with MPICH's compiler wrappers and launcher
#      (volfft-bench without its FFTW-MPI peer: Debian's FFTW-MPI is built for Open MPI; no
#      ducc0 backend: it calls no MPI, the Open MPI build tests it, and its sources took about
#      40% of a build's CPU time; so this run also tests a build without it);
#   4. ctest runs, under MPICH's mpiexec and each with its timeout, the tests whose MPI calls
#      differ most between MPI libraries, at np 2 ($mpich_tests below: every engine with
#      persistent collectives under their MPI-4 names, shared-memory windows, the error
#      agreement, the C and FFTW-MPI interfaces, the examples), the CMake install test (a
#      consumer finds MPICH), and the Python tests under MPI at np 2 (every transform, kind,
#      layout and engine again, from Python); the build makes only what these need. The rest
#      repeats what the Open MPI run checks: VOLFFT_MPICH_FULL=1 builds the whole tree and runs
#      every test at np 1 up to VOLFFT_MPICH_MAX_NP (default: the cores), and the Python MPI tests
#      at each of those np. The emulated-cluster tests launch Open MPI across network namespaces
#      and never run here.
#
#   scripts/test-mpich.sh [CTEST ARGS...]      e.g. -R python  or  -L mpi -j 1
set -euo pipefail
cd "$(dirname "$0")/.."
MPICH_ROOT=${VOLFFT_MPICH_ROOT:-/opt/mpich}
PREFIX="$MPICH_ROOT/usr"
LIB="$PREFIX/lib/x86_64-linux-gnu"
VENV=.venv-mpich
start=$SECONDS

scripts/install-deps.sh  # compilers, CMake, FFTW, Open MPI's tools (the project's base)

if [ ! -x "$PREFIX/bin/mpiexec.hydra" ]; then
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  # MPICH's own dependencies, then MPICH itself, unpacked.
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    libhwloc15 libucx0 libgfortran5 >/dev/null
  $SUDO env VCLUSTER_MPICH_PREFIX="$PREFIX" python3 -m tools.vcluster mpich-setup
fi

# MPICH's launcher as `mpirun`/`mpiexec`, first on PATH (the Python tests and `volfft bench` call
# `mpirun`) and as CMake's MPIEXEC_EXECUTABLE. Scripts, not links: hydra finds its proxy
# (hydra_pmi_proxy) next to the path it was run as, and needs libslurm from the unpacked tree,
# as the ranks need libmpich (Debian's wrappers put no run path into programs), wherever a test
# has cleared LD_LIBRARY_PATH.
mkdir -p build-mpich/mpich-bin
for name in mpirun mpiexec; do
  printf '#!/bin/sh\nLD_LIBRARY_PATH="%s${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" exec "%s" "$@"\n' \
    "$LIB" "$PREFIX/bin/mpiexec.hydra" > "build-mpich/mpich-bin/$name"
  chmod +x "build-mpich/mpich-bin/$name"
done
export PATH="$PWD/build-mpich/mpich-bin:$PATH"
export LD_LIBRARY_PATH="$LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

if [ ! -x "$VENV/bin/python" ]; then
  echo "test-mpich: creating $VENV"
  python3 -m venv "$VENV"
fi
if ! "$VENV/bin/python" -c "from mpi4py import MPI; assert 'MPICH' in MPI.Get_library_version()" 2>/dev/null; then
  echo "test-mpich: pip install mpi4py into $VENV, compiled against MPICH (about a minute)"
  MPICC="$PREFIX/bin/mpicc.mpich" "$VENV/bin/python" -m pip install -q --no-binary=mpi4py \
    --no-cache-dir --force-reinstall mpi4py
fi
VOLFFT_VENV=$VENV scripts/install-deps.sh  # the other Python packages (mpi4py stays)

# The default run builds what it runs (the library, the Python extension, volfft-bench and the
# programs below); the full run builds the whole tree.
mpich_tests="test_transforms test_engines test_node test_errors test_c_arrays test_fftw_mpi test_pipeline_bound test_buffer_alias test_outlive_finalize c_example cpp_example"
if [ $# -eq 0 ] && [ "${VOLFFT_MPICH_FULL:-0}" != 1 ]; then
  export VOLFFT_BUILD_TARGETS="volfft volfft_fftw3_mpi _volfft volfft-bench volfft-reshape-bench $mpich_tests"
fi
VOLFFT_VENV=$VENV VOLFFT_BUILD_DIR=build-mpich \
VOLFFT_CMAKE_DEFINES="MPI_C_COMPILER=$PREFIX/bin/mpicc.mpich MPI_CXX_COMPILER=$PREFIX/bin/mpicxx.mpich MPIEXEC_EXECUTABLE=$PWD/build-mpich/mpich-bin/mpiexec VOLFFT_BENCH_FFTW_MPI=OFF VOLFFT_DUCC0=OFF" \
  scripts/build.sh

# Everything linked against MPICH, nothing against Open MPI.
for binary in build-mpich/libvolfft.so build-mpich/tests/test_transforms build-mpich/benchmarks/volfft-bench; do
  if ldd "$binary" | grep -q "libmpi\.so"; then
    echo "test-mpich: $binary links Open MPI's libmpi:" >&2
    ldd "$binary" | grep -i mpi >&2
    exit 1
  fi
done
"$VENV/bin/python" -c "from mpi4py import MPI; print('test-mpich:', MPI.Get_library_version().splitlines()[0])"

cd build-mpich
status=0
if [ $# -gt 0 ]; then
  ctest --output-on-failure --timeout 900 "$@" || status=$?
elif [ "${VOLFFT_MPICH_FULL:-0}" = 1 ]; then
  # More ranks than cores: MPICH's ranks (UCX) poll without yielding the core, so a waiting
  # rank takes the CPU from the rank it waits for. test_transforms at np 3 on 2 cores took 175 s
  # (4 s with Open MPI), and MPIR_CVAR_POLLS_BEFORE_YIELD=1 changed nothing. So the full run goes
  # up to the cores here (VOLFFT_MPICH_MAX_NP to change it), and the rest are listed as left out.
  max_np=${VOLFFT_MPICH_MAX_NP:-$(nproc)}
  over=""
  for n in 1 2 3 4 5 6 7; do
    [ "$n" -gt "$max_np" ] && over="$over|_np$n\$"
  done
  left_out=$(ctest -N -R "${over#|}" | grep -c "Test *#" || true)
  [ -n "$over" ] || left_out=0
  echo "test-mpich: every C++ test and example at np <= $max_np (the cores here);" \
       "$left_out entries with more ranks left out, and the emulated-cluster tests"
  # test_threads' forced-path runs (node_chunks, streamed): 2 ranks x 2 threads on the 2 cores
  # (tests/CMakeLists.txt says why).
  ctest --output-on-failure --timeout 900 \
    -E "cluster|multihost|python_mpi|test_threads_(node_chunks|streamed)$over" || status=$?
  echo "test-mpich: Python tests under MPI at np 1..$max_np"
  nps=$(seq -s " " 1 "$max_np")
  PYTHON="$PWD/../$VENV/bin/python" MPIRUN=mpirun \
    ../tests/python/run_mpi_tests.sh --np "$nps" --timeout 600 || status=$?
else
  echo "test-mpich: $mpich_tests at np 2, the CMake install test, and the Python tests under" \
       "MPI at np 2 (VOLFFT_MPICH_FULL=1 for every test of the tree)"
  ctest --output-on-failure --timeout 900 -R "^(${mpich_tests// /|})_np2\$|^install_cmake\$" || status=$?
  PYTHON="$PWD/../$VENV/bin/python" MPIRUN=mpirun \
    ../tests/python/run_mpi_tests.sh --np 2 --timeout 900 || status=$?
fi
echo "test-mpich: done in $((SECONDS - start)) s (status $status)"
exit $status
