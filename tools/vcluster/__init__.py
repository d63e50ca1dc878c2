"""vcluster: an emulated cluster on one Linux machine, for multi-host MPI runs.

Each host is a network namespace; hosts are joined either by one bridge (``switch``) or by veth
pairs between torus/mesh neighbours with static dimension-order routes; every link is shaped with
tc. MPI jobs reach the hosts through ``ip netns exec`` instead of ssh.

Commands (run as root, from the repository root)::

    python3 -m tools.vcluster caps                 # which qdiscs this kernel offers
    python3 -m tools.vcluster create NAME --topology switch --hosts 4 --rate 100mbit --delay 50us
    python3 -m tools.vcluster create NAME --topology torus2d 4x4 --rate 100mbit
    python3 -m tools.vcluster show NAME | list
    python3 -m tools.vcluster probe NAME [--src 0 --dst 3]   # latency and bandwidth of the path
    python3 -m tools.vcluster build PROG.c [--mpi openmpi|mpich]
    python3 -m tools.vcluster mpirun NAME [-k 1] [--mpi openmpi|mpich] [--hosts 0,1,2] -- PROG ARGS...
    python3 -m tools.vcluster exec NAME HOST -- CMD ARGS...
    python3 -m tools.vcluster destroy NAME | --all  # idempotent; also removes leftovers
    python3 -m tools.vcluster mpich-setup           # MPICH into /opt/mpich, beside Open MPI

Everything created is named with the prefix ``vc-NAME-`` (namespaces ``vc-NAME-hI``; in the
root namespace only the switch's bridge ``vc-NAME-br`` and its ports ``vc-NAME-pI``), plus
``/etc/netns/vc-NAME-hI/`` (the hosts file each namespace sees) and ``/run/vcluster/NAME*``.
``destroy`` finds things by these prefixes, so it works without the state file and after a
crash.

Modules: :mod:`.topology` (coordinates, links, addresses, routes; pure), :mod:`.common`
(names, state file, parsing), :mod:`.network` (namespaces, links, shaping, create/destroy),
:mod:`.launcher` (MPI jobs across the hosts, compiling MPI programs), :mod:`.mpich` (MPICH
beside Open MPI), :mod:`.probe` (latency and rate between two hosts), :mod:`.cli`.
"""
from __future__ import annotations

from .common import (ClusterError, check_name, host_ns, load_state, namespaces_unusable, parse_delay,
                     parse_rate, require_root, topology_of)
from .launcher import build, mpi_env, mpirun_command, run_job, write_launch_files
from .mpich import mpich_setup
from .network import (all_cluster_names, burst_bytes, create, destroy, leftovers, probe_qdiscs,
                      shape_link)
from .probe import probe
from .topology import Topology, parse_topology

__all__ = ["ClusterError", "Topology", "all_cluster_names", "build", "burst_bytes", "check_name",
           "create", "destroy", "host_ns", "leftovers", "load_state", "mpi_env", "mpich_setup",
           "mpirun_command", "namespaces_unusable", "parse_delay", "parse_rate", "parse_topology", "probe",
           "probe_qdiscs", "require_root", "run_job", "shape_link", "topology_of",
           "write_launch_files"]
