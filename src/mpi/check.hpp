// MPI utilities every MPI-using layer shares: error checks, element datatypes, the clock.
#pragma once

#include <mpi.h>

#include <complex>
#include <string>
#include <vector>

namespace volfft::mpi {

/// Throws volfft::MpiError naming the MPI call when `code` is not MPI_SUCCESS.
void check(int code, const char* call);

/// Throws volfft::Error (on this rank: it is in no collective) when `comm` is MPI_COMM_NULL,
/// which every MPI call on it would turn into an abort of the whole job under MPI's default
/// error handler. `who` names the call ("volfft::Plan", "volfft_reshape_create").
void require_communicator(MPI_Comm comm, const char* who);

template <class T>
MPI_Datatype type_of();
template <>
inline MPI_Datatype type_of<std::complex<double>>() { return MPI_C_DOUBLE_COMPLEX; }
template <>
inline MPI_Datatype type_of<std::complex<float>>() { return MPI_C_FLOAT_COMPLEX; }
template <>
inline MPI_Datatype type_of<double>() { return MPI_DOUBLE; }
template <>
inline MPI_Datatype type_of<float>() { return MPI_FLOAT; }

inline double now() { return MPI_Wtime(); }

/// MPI_Startall / MPI_Waitall over a vector of (persistent) requests; nothing when empty.
void start_all(std::vector<MPI_Request>& requests);
void wait_all(std::vector<MPI_Request>& requests);
/// MPI_Testall: whether all have completed (true when empty).
bool test_all(std::vector<MPI_Request>& requests);

/// The MPI library's name and version, e.g. "Open MPI v4.1.4" (for reports and wisdom keys).
std::string library_name();

}  // namespace volfft::mpi
