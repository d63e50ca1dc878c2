# Threads inside a rank (Options::threads): FFTW's threads libraries for the FFT batches and,
# when the compiler has it, OpenMP for the pack/unpack copies (src/kernels/copy_box.cpp) and for
# FFT batches split over threads (src/backend/fftw_batch.cpp). With OpenMP, FFTW's own threads
# are OpenMP's too (fftw3_omp): one pool of threads for everything a rank runs. FFTW's pthreads
# library beside OpenMP made two pools, and OpenMP's threads, spinning a while after each
# parallel region as OpenMP runtimes do, took the cores FFTW's threads needed next (measured: a
# one-rank r2c 128^3 forward at 2 threads ran 9.4-9.8 ms after OpenMP regions, 4.4-4.6 without).
# Included from the top-level CMakeLists.txt after the volfft target exists.
option(VOLFFT_OPENMP "Thread copies and split FFT batches with OpenMP when available" ON)
if(VOLFFT_OPENMP)
  find_package(OpenMP COMPONENTS CXX)
endif()
if(VOLFFT_OPENMP AND OpenMP_CXX_FOUND)
  set(_volfft_fftw_threads fftw3_omp)
  set(_volfft_fftwf_threads fftw3f_omp)
else()
  set(_volfft_fftw_threads fftw3_threads)
  set(_volfft_fftwf_threads fftw3f_threads)
endif()
# Cached under the library's own name, so that a build folder configured when the choice was
# another library (or before fftw3_omp was used) finds the right one; the two names the rest of
# the build reads are plain variables.
find_library(VOLFFT_LIB_${_volfft_fftw_threads} ${_volfft_fftw_threads} HINTS ${FFTW3_LIBRARY_DIRS})
find_library(VOLFFT_LIB_${_volfft_fftwf_threads} ${_volfft_fftwf_threads} HINTS ${FFTW3F_LIBRARY_DIRS})
set(VOLFFT_FFTW3_THREADS_LIB ${VOLFFT_LIB_${_volfft_fftw_threads}})
set(VOLFFT_FFTW3F_THREADS_LIB ${VOLFFT_LIB_${_volfft_fftwf_threads}})
if(NOT VOLFFT_FFTW3_THREADS_LIB OR NOT VOLFFT_FFTW3F_THREADS_LIB)
  message(FATAL_ERROR "volfft needs FFTW's threads libraries ${_volfft_fftw_threads} and ${_volfft_fftwf_threads} "
                      "(Debian: libfftw3-dev)")
endif()
find_package(Threads REQUIRED)
target_link_libraries(volfft PRIVATE $<BUILD_INTERFACE:${VOLFFT_FFTW3_THREADS_LIB}>
                                     $<BUILD_INTERFACE:${VOLFFT_FFTW3F_THREADS_LIB}>
                                     $<BUILD_INTERFACE:Threads::Threads>)
if(VOLFFT_OPENMP AND OpenMP_CXX_FOUND)
  target_link_libraries(volfft PRIVATE $<BUILD_INTERFACE:OpenMP::OpenMP_CXX>)
  target_compile_definitions(volfft PRIVATE VOLFFT_HAVE_OPENMP)
  message(STATUS "volfft: threads with OpenMP (copies, split batches, FFTW's fftw3_omp)")
else()
  message(STATUS "volfft: FFTW's pthreads for FFT batches; copies single-threaded (no OpenMP)")
endif()
