#!/usr/bin/env bash
# mpirun that works for root and for more ranks than cores, with Open MPI or MPICH.
if mpirun --version 2>&1 | grep -qi "open mpi"; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  exec mpirun --oversubscribe "$@"
fi
exec mpirun "$@"
