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

/// Whether MPI_Finalize has run. Destructors free no MPI object then (no MPI call may run after
/// it; the process ends soon and takes them), and everything else they own as always: a plan or
/// a reshape that outlives MPI_Finalize (one in main's scope, a Python object collected at exit)
/// neither aborts the job nor leaks its memory.
bool finalized();

/// MPI_Startall / MPI_Waitall over a vector of (persistent) requests; nothing when empty.
void start_all(std::vector<MPI_Request>& requests);
void wait_all(std::vector<MPI_Request>& requests);
/// MPI_Testall: whether all have completed (true when empty).
bool test_all(std::vector<MPI_Request>& requests);

/// The send buffer to give an all-to-all: `send`, unless it is `receive` and this rank sends
/// nothing (every count 0), when a distinct address of volfft's own. MPI forbids aliased
/// buffers, and Open MPI's non-blocking all-to-all takes sendbuf == recvbuf for MPI_IN_PLACE:
/// another schedule, after which the group's next all-to-all never matches (a hang). volfft's
/// send and receive areas never overlap, but empty ones share an address, and a pipelined
/// chunk past a rank's last send has its send pointer at the end of the send area, where the
/// receive area starts.
const void* unaliased_send(const void* send, const void* receive, const std::vector<int>& send_counts);

/// The MPI library's name and version, e.g. "Open MPI v4.1.4" (for reports and wisdom keys).
std::string library_name();

}  // namespace volfft::mpi
