#!/usr/bin/env bash
# mpirun that works for root and for more ranks than cores, with Open MPI or MPICH.
#
# Open MPI: --oversubscribe (more ranks than cores is normal on a workstation), consent to run as
# root, and --bind-to none unless the command line says how to map or bind: Open MPI binds each
# rank to one core when it starts at most 2, which leaves a rank's extra threads (--threads,
# threads=) sharing that core. And orte_allowed_exit_without_sync: Open MPI 4.x's launcher can
# report a rank that returned 0 after MPI_Finalize as "exiting improperly" (PID 0) when, under
# load, it sees the exit before the finalize notice (open-mpi/ompi issues 7833, 9389); a rank
# that exits non-zero or is killed still fails the job.
if mpirun --version 2>&1 | grep -qi "open mpi"; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  export OMPI_MCA_orte_allowed_exit_without_sync=${OMPI_MCA_orte_allowed_exit_without_sync:-1}
  binding=(--bind-to none)
  for arg in "$@"; do
    case "$arg" in
      --bind-to|--map-by|--rankfile|-rf|--cpu-set|--cpu-list) binding=() ;;
    esac
  done
  exec mpirun --oversubscribe "${binding[@]}" "$@"
fi
exec mpirun "$@"
