# Optional ducc0 FFT backend (Options::backend = ducc0 or auto). ducc0's FFT headers and the
# three small sources they need are vendored in third_party/ducc0 (see its README: taken from
# the ducc0 0.42.0 sdist on PyPI, every file dual-licensed BSD-3-Clause OR GPL-2.0-or-later).
# Without them, or with -DVOLFFT_DUCC0=OFF, volfft builds with FFTW alone.
# Included from the top-level CMakeLists.txt after the volfft target exists.
option(VOLFFT_DUCC0 "Build the ducc0 FFT backend from third_party/ducc0" ON)
set(VOLFFT_DUCC0_DIR "${CMAKE_CURRENT_SOURCE_DIR}/third_party/ducc0/src" CACHE PATH
    "Directory holding ducc0/fft/fft.h (the ducc0 sdist's src/)")
# ducc0 vectorises across transforms with the SIMD width the compiler targets. With the
# compiler's default (SSE2 on x86-64) it is 2-3x slower than FFTW; with -march=native on an
# AVX-512 machine it is faster (docs/performance.md). So the ducc0 sources alone default to
# the build machine's instruction set: set e.g. x86-64-v3 for binaries that run elsewhere, or
# an empty value for the compiler default.
include(CheckCXXCompilerFlag)
check_cxx_compiler_flag(-march=native VOLFFT_CXX_HAS_MARCH_NATIVE)
if(VOLFFT_CXX_HAS_MARCH_NATIVE)
  set(_ducc0_arch_default native)
else()
  set(_ducc0_arch_default "")
endif()
set(VOLFFT_DUCC0_ARCH "${_ducc0_arch_default}" CACHE STRING
    "-march value for the ducc0 sources only (empty: the compiler default)")

# An optimisation flag for the ducc0 sources alone, after the build type's (empty: the build
# type's). Under CI=true scripts/build.sh passes -Og: ducc0's double-precision source took 383
# CPU-s at -O1 and 117 at -Og (2-core VM, 2026-11-28; the two sources were 572 of the CI build's
# 3800 job-seconds at -O1), for results that do not change; the ducc0 tests then ran slower (test_threads np 1: 75 -> 104 CPU-s).
set(VOLFFT_DUCC0_OPTIMIZE "" CACHE STRING
    "Optimisation flag for the ducc0 sources only, e.g. -Og (empty: the build type's)")

set(VOLFFT_HAVE_DUCC0 OFF)
if(VOLFFT_DUCC0 AND EXISTS "${VOLFFT_DUCC0_DIR}/ducc0/fft/fftnd_impl.h")
  set(VOLFFT_HAVE_DUCC0 ON)
  set(_ducc0_sources
      ${CMAKE_CURRENT_SOURCE_DIR}/src/backend/ducc_batch.cpp
      ${CMAKE_CURRENT_SOURCE_DIR}/src/backend/ducc_batch_float.cpp
      # Compiled with the same -march: which instruction sets it uses, checked against the CPU
      # before ducc0 runs (src/backend/ducc_target.hpp).
      ${CMAKE_CURRENT_SOURCE_DIR}/src/backend/ducc_target.cpp
      ${VOLFFT_DUCC0_DIR}/ducc0/infra/threading.cc
      ${VOLFFT_DUCC0_DIR}/ducc0/infra/mav.cc
      ${VOLFFT_DUCC0_DIR}/ducc0/infra/string_utils.cc)
  target_sources(volfft PRIVATE ${_ducc0_sources})
  target_include_directories(volfft SYSTEM PRIVATE ${VOLFFT_DUCC0_DIR})
  target_compile_definitions(volfft PRIVATE VOLFFT_HAVE_DUCC0)
  # Third-party code: no -Wall -Wextra noise from it.
  set_source_files_properties(${VOLFFT_DUCC0_DIR}/ducc0/infra/threading.cc
                              ${VOLFFT_DUCC0_DIR}/ducc0/infra/mav.cc
                              ${VOLFFT_DUCC0_DIR}/ducc0/infra/string_utils.cc
                              PROPERTIES COMPILE_OPTIONS "-w")
  if(VOLFFT_DUCC0_ARCH)
    set_property(SOURCE ${_ducc0_sources} APPEND PROPERTY COMPILE_OPTIONS "-march=${VOLFFT_DUCC0_ARCH}")
  endif()
  if(VOLFFT_DUCC0_OPTIMIZE)
    if(NOT VOLFFT_DUCC0_OPTIMIZE MATCHES "^-O([0-3sgz]|fast)?$")
      message(FATAL_ERROR "VOLFFT_DUCC0_OPTIMIZE must be one -O flag (-O0 ... -O3, -Os, -Og, -Ofast) "
                          "or empty; got '${VOLFFT_DUCC0_OPTIMIZE}'")
    endif()
    set_property(SOURCE ${_ducc0_sources} APPEND PROPERTY COMPILE_OPTIONS "${VOLFFT_DUCC0_OPTIMIZE}")
  endif()
  message(STATUS "volfft: ducc0 backend from ${VOLFFT_DUCC0_DIR}")
else()
  message(STATUS "volfft: no ducc0 backend (FFTW only)")
endif()
