// MPI utilities every MPI-using layer shares: error checks, element datatypes, the clock.
#pragma once

#include <mpi.h>

#include <complex>

namespace volfft::mpi {

/// Throws volfft::MpiError naming the MPI call when `code` is not MPI_SUCCESS.
void check(int code, const char* call);

template <class T>
MPI_Datatype type_of();
template <>
inline MPI_Datatype type_of<std::complex<double>>() { return MPI_C_DOUBLE_COMPLEX; }
template <>
inline MPI_Datatype type_of<std::complex<float>>() { return MPI_C_FLOAT_COMPLEX; }

inline double now() { return MPI_Wtime(); }

}  // namespace volfft::mpi
