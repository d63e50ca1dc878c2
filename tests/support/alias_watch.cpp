#include "support/alias_watch.hpp"

#include <mpi.h>

namespace {

long aliased = 0;
char elsewhere[64];

const void* unaliased(const void* send, const void* receive) {
  if (send != receive || send == MPI_IN_PLACE) return send;
  ++aliased;
  return elsewhere;
}

}  // namespace

namespace volfft_test {

long aliased_all_to_alls() { return aliased; }
void reset_aliased_all_to_alls() { aliased = 0; }

}  // namespace volfft_test

extern "C" {
int MPI_Ialltoallv(const void* sb, const int sc[], const int sd[], MPI_Datatype st, void* rb, const int rc[],
                   const int rd[], MPI_Datatype rt, MPI_Comm comm, MPI_Request* request) {
  return PMPI_Ialltoallv(unaliased(sb, rb), sc, sd, st, rb, rc, rd, rt, comm, request);
}
int MPI_Alltoallv(const void* sb, const int sc[], const int sd[], MPI_Datatype st, void* rb, const int rc[],
                  const int rd[], MPI_Datatype rt, MPI_Comm comm) {
  return PMPI_Alltoallv(unaliased(sb, rb), sc, sd, st, rb, rc, rd, rt, comm);
}
int MPI_Ialltoallw(const void* sb, const int sc[], const int sd[], const MPI_Datatype st[], void* rb, const int rc[],
                   const int rd[], const MPI_Datatype rt[], MPI_Comm comm, MPI_Request* request) {
  return PMPI_Ialltoallw(unaliased(sb, rb), sc, sd, st, rb, rc, rd, rt, comm, request);
}
int MPI_Alltoallw(const void* sb, const int sc[], const int sd[], const MPI_Datatype st[], void* rb, const int rc[],
                  const int rd[], const MPI_Datatype rt[], MPI_Comm comm) {
  return PMPI_Alltoallw(unaliased(sb, rb), sc, sd, st, rb, rc, rd, rt, comm);
}
int MPI_Alltoall(const void* sb, int sc, MPI_Datatype st, void* rb, int rc, MPI_Datatype rt, MPI_Comm comm) {
  return PMPI_Alltoall(unaliased(sb, rb), sc, st, rb, rc, rt, comm);
}
int MPI_Ialltoall(const void* sb, int sc, MPI_Datatype st, void* rb, int rc, MPI_Datatype rt, MPI_Comm comm,
                  MPI_Request* request) {
  return PMPI_Ialltoall(unaliased(sb, rb), sc, st, rb, rc, rt, comm, request);
}
}
