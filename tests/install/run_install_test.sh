#!/usr/bin/env bash
# Install the built library into a fresh temporary prefix, then build the README's examples
# against that prefix alone and run them on 2 ranks. Needs no network.
#
# Usage: run_install_test.sh cmake|cmake-c|pkg-config BUILD_DIR SOURCE_DIR LIBDIR GENERATOR MPICC MPICXX \
#                            MPIEXEC [MPIEXEC ARGS...]
#   cmake       a consumer project with find_package(volfft) and volfft::volfft
#   cmake-c     the same from a C-only project (LANGUAGES C), building the C example
#   pkg-config  mpicc/mpicxx with `pkg-config --cflags --libs volfft` (and an FFTW-MPI program with
#               volfft_fftw3_mpi's flags)
set -euo pipefail

mode=$1 build=$2 source=$3 libdir=$4 generator=$5 mpicc=$6 mpicxx=$7
shift 7
mpiexec=("$@")

work=$(mktemp -d "${TMPDIR:-/tmp}/volfft-install-XXXXXX")
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix

step() { echo "--- $*"; }

step "cmake --install $build --prefix $prefix"
cmake --install "$build" --prefix "$prefix" > "$work/install.log"
test -f "$prefix/include/volfft/plan.hpp" && test -f "$prefix/include/volfft/volfft.h"
# The Python package's files (extension, its own libvolfft and volfft-bench) belong to the wheel's
# component install only, not to a plain install of the same tree.
if [ -e "$prefix/volfft" ]; then
  echo "a plain install put the Python component's files in $prefix/volfft:"; ls -R "$prefix/volfft"; exit 1
fi

# The installed volfft-bench starts from the new prefix (its run path is relative to itself).
if [ -x "$prefix/bin/volfft-bench" ]; then
  step "$prefix/bin/volfft-bench --help"
  env -u LD_LIBRARY_PATH "$prefix/bin/volfft-bench" --help > "$work/bench-help.log" 2>&1 || true
  grep -q "^usage: volfft-bench" "$work/bench-help.log" ||
    { cat "$work/bench-help.log"; echo "the installed volfft-bench does not start"; exit 1; }
fi

examples=$source/examples
case $mode in
  cmake)
    step "configure and build a find_package(volfft) consumer"
    cmake -S "$source/tests/install/consumer" -B "$work/consumer" -G "$generator" \
          -DCMAKE_PREFIX_PATH="$prefix" -DVOLFFT_EXAMPLES_DIR="$examples" \
          -DVOLFFT_FFTW_MPI_PROGRAM="$source/tests/fftw_mpi/test_fftw_mpi.c" > "$work/configure.log" 2>&1 ||
      { cat "$work/configure.log"; exit 1; }
    cmake --build "$work/consumer" > "$work/build.log" || { cat "$work/build.log"; exit 1; }
    programs=("$work/consumer/consumer_cpp" "$work/consumer/consumer_c")
    # volfft::volfft_fftw3_mpi (docs/fftw-mpi.md), where the package has it.
    if [ -x "$work/consumer/consumer_fftw_mpi" ]; then programs+=("$work/consumer/consumer_fftw_mpi"); fi
    ;;
  cmake-c)
    step "configure and build a C-only find_package(volfft) consumer"
    cmake -S "$source/tests/install/consumer_c" -B "$work/consumer" -G "$generator" \
          -DCMAKE_PREFIX_PATH="$prefix" -DVOLFFT_EXAMPLES_DIR="$examples" > "$work/configure.log" 2>&1 ||
      { cat "$work/configure.log"; exit 1; }
    cmake --build "$work/consumer" > "$work/build.log" || { cat "$work/build.log"; exit 1; }
    programs=("$work/consumer/consumer_c_only")
    ;;
  pkg-config)
    export PKG_CONFIG_PATH=$prefix/$libdir/pkgconfig
    flags=$(pkg-config --cflags --libs volfft)
    step "pkg-config --cflags --libs volfft: $flags"
    # The flags must point into the new prefix, not wherever the build was configured to go.
    want=$(realpath -m "$prefix/$libdir")
    found=no
    for f in $flags; do
      if [[ $f == -L* ]] && [[ $(realpath -m "${f#-L}") == "$want" ]]; then found=yes; fi
    done
    if [[ $found == no ]]; then
      echo "pkg-config gives '$flags': no -L for $want (is volfft.pc's prefix relocatable?)"
      exit 1
    fi
    "$mpicxx" -std=c++17 -o "$work/pc_cpp" "$examples/cpp_example.cpp" $flags
    "$mpicc" -o "$work/pc_c" "$examples/c_example.c" $flags -lm
    programs=("$work/pc_cpp" "$work/pc_c")
    # An FFTW-MPI program relinked on volfft_fftw3_mpi, as docs/fftw-mpi.md shows it.
    if [ -f "$PKG_CONFIG_PATH/volfft_fftw3_mpi.pc" ]; then
      fftw_flags=$(pkg-config --cflags --libs volfft_fftw3_mpi)
      step "pkg-config --cflags --libs volfft_fftw3_mpi: $fftw_flags"
      "$mpicc" -I"$source/tests" -o "$work/pc_fftw_mpi" "$source/tests/fftw_mpi/test_fftw_mpi.c" $fftw_flags -lm
      programs+=("$work/pc_fftw_mpi")
    fi
    # The flags carry a run path into the prefix: the programs start without LD_LIBRARY_PATH.
    unset LD_LIBRARY_PATH
    ;;
  *)
    echo "unknown mode '$mode' (expected cmake, cmake-c or pkg-config)"; exit 2 ;;
esac

# The programs must use the installed library, not the build tree's.
for p in "${programs[@]}"; do
  lib=$(LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-} ldd "$p" | awk '/libvolfft/ {print $3}')
  step "$(basename "$p") loads $lib"
  case $lib in
    "$prefix"/*) ;;
    *) echo "$(basename "$p") does not load libvolfft from $prefix"; exit 1 ;;
  esac
done

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for p in "${programs[@]}"; do
  step "${mpiexec[*]} $(basename "$p")"
  # The timeout catches a hang; MPI's start-up alone took up to 11 s on a loaded 2-core VM, and
  # ctest may run another test beside this one.
  timeout 240 "${mpiexec[@]}" "$p"
done
echo "install test ($mode) passed"
