# Threads inside a rank (Options::threads): FFTW's threads libraries for the FFT batches and,
# when the compiler has it, OpenMP for the pack/unpack copies (src/kernels/copy_box.cpp).
# Included from the top-level CMakeLists.txt after the volfft target exists.
find_library(VOLFFT_FFTW3_THREADS_LIB fftw3_threads HINTS ${FFTW3_LIBRARY_DIRS})
find_library(VOLFFT_FFTW3F_THREADS_LIB fftw3f_threads HINTS ${FFTW3F_LIBRARY_DIRS})
if(NOT VOLFFT_FFTW3_THREADS_LIB OR NOT VOLFFT_FFTW3F_THREADS_LIB)
  message(FATAL_ERROR "volfft needs FFTW's threads libraries fftw3_threads and fftw3f_threads "
                      "(Debian: libfftw3-dev)")
endif()
find_package(Threads REQUIRED)
target_link_libraries(volfft PRIVATE $<BUILD_INTERFACE:${VOLFFT_FFTW3_THREADS_LIB}>
                                     $<BUILD_INTERFACE:${VOLFFT_FFTW3F_THREADS_LIB}>
                                     $<BUILD_INTERFACE:Threads::Threads>)

option(VOLFFT_OPENMP "Thread the pack/unpack copies with OpenMP when available" ON)
if(VOLFFT_OPENMP)
  find_package(OpenMP COMPONENTS CXX)
endif()
if(VOLFFT_OPENMP AND OpenMP_CXX_FOUND)
  target_link_libraries(volfft PRIVATE $<BUILD_INTERFACE:OpenMP::OpenMP_CXX>)
  target_compile_definitions(volfft PRIVATE VOLFFT_HAVE_OPENMP)
  message(STATUS "volfft: pack/unpack threads with OpenMP")
else()
  message(STATUS "volfft: pack/unpack copies single-threaded (no OpenMP)")
endif()
