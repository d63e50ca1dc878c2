#!/usr/bin/env bash
# mpirun that works for root and for more ranks than cores, with Open MPI or MPICH.
#
# Open MPI: --oversubscribe (more ranks than cores is normal on a workstation), consent to run as
# root, and --bind-to none unless the command line says how to map or bind: Open MPI binds each
# rank to one core when it starts at most 2, which leaves a rank's extra threads (--threads,
# threads=) sharing that core.
if mpirun --version 2>&1 | grep -qi "open mpi"; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  binding=(--bind-to none)
  for arg in "$@"; do
    case "$arg" in
      --bind-to|--map-by|--rankfile|-rf|--cpu-set|--cpu-list) binding=() ;;
    esac
  done
  exec mpirun --oversubscribe "${binding[@]}" "$@"
fi
exec mpirun "$@"
