"""``python3 -m tools.vcluster``: the emulated cluster from the shell (see the package's
docstring for the commands)."""
from __future__ import annotations

import argparse
import json
import shlex
import signal
import subprocess
import sys
from pathlib import Path

from . import common
from . import topology as topo_mod
from .common import (COMMAND, PREFIX, ClusterError, check_name, load_state, require_root, run,
                     state_path, topology_of)
from .launcher import build, mpirun_command, run_job
from .mpich import mpich_setup
from .network import (Interrupted, all_cluster_names, create, destroy, leftovers, probe_qdiscs,
                      raise_interrupt)
from .probe import probe



def _parse_host_list(text: str | None) -> list[int] | None:
    if text is None:
        return None
    try:
        return [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise ValueError(f"--hosts: expected comma-separated host indices like 0,1,4,5, got {text!r}") from None


def _split_program(argv: list[str]) -> tuple[list[str], list[str]]:
    if "--" in argv:
        i = argv.index("--")
        return argv[:i], argv[i + 1:]
    return argv, []


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point; returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    argv, program = _split_program(argv)
    ap = argparse.ArgumentParser(prog=COMMAND, description=sys.modules[__package__].__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-v", "--verbose", action="store_true", help="print every command run")
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("caps", help="which qdisc kinds this kernel accepts")
    c = sub.add_parser("create", help="create a cluster")
    c.add_argument("name")
    c.add_argument("--topology", nargs="+", default=["switch"], metavar="KIND [SHAPE]",
                   help="switch | ring | line | torus2d AxB | mesh2d AxB | torus3d AxBxC | mesh3d AxBxC")
    c.add_argument("--hosts", type=int, help="number of hosts (switch, ring, line)")
    c.add_argument("--rate", default="100mbit", help="link rate per direction (tc units), default 100mbit")
    c.add_argument("--delay", default="0", help="added one-way delay per link (needs netem), e.g. 50us")
    c.add_argument("--qdisc", default="htb", choices=("htb", "tbf"), help="rate limiter (default htb)")
    c.add_argument("--gso", default="auto", choices=("auto", "on", "off"),
                   help="64 KiB offload packets on the links (auto: off below 500mbit)")
    c.add_argument("--burst", default="auto", help="token bucket as a time at the link rate (auto: 1ms)")
    d = sub.add_parser("destroy", help="remove a cluster (idempotent)")
    d.add_argument("name", nargs="?")
    d.add_argument("--all", action="store_true", help="every vcluster cluster and leftover")
    sub.add_parser("list", help="clusters and leftovers")
    s = sub.add_parser("show", help="a cluster's state, addresses and routes")
    s.add_argument("name")
    p = sub.add_parser("probe", help="latency and bandwidth between two hosts")
    p.add_argument("name")
    p.add_argument("--src", type=int, default=0)
    p.add_argument("--dst", type=int, default=None, help="default: the last host")
    p.add_argument("--bytes", default="1048576", help="comma-separated transfer sizes")
    p.add_argument("--reps", type=int, default=5)
    b = sub.add_parser("build", help="compile an MPI C program into build/cluster/MPI/")
    b.add_argument("source")
    b.add_argument("--mpi", default="openmpi", choices=("openmpi", "mpich"))
    m = sub.add_parser("mpirun", help="run an MPI program across the hosts: mpirun NAME [opts] -- PROG ARGS")
    m.add_argument("name")
    m.add_argument("-k", type=int, default=1, help="ranks per host")
    m.add_argument("--mpi", default="openmpi", choices=("openmpi", "mpich"))
    m.add_argument("--hosts", help="host indices in rank order, e.g. 0,1,4,5 (default: all)")
    m.add_argument("--shm", action="store_true", help="ranks on the same host may use shared memory")
    m.add_argument("--timeout", type=float, default=600.0, help="seconds (default 600)")
    m.add_argument("--launcher-arg", action="append", default=[], help="extra launcher option (repeatable)")
    m.add_argument("--dry-run", action="store_true", help="print the command, run nothing")
    m.add_argument("--mpich-real-finalize", action="store_true",
                   help="MPICH: call the real MPI_Finalize (hangs in about half the jobs here)")
    e = sub.add_parser("exec", help="run a command in one host: exec NAME HOST -- CMD")
    e.add_argument("name")
    e.add_argument("host", type=int)
    sub.add_parser("mpich-setup", help="unpack MPICH into /opt/mpich beside Open MPI")
    args = ap.parse_args(argv)
    common.VERBOSE = args.verbose
    try:
        return _dispatch(args, program)
    except (ValueError, ClusterError) as exc:
        print(f"vcluster: error: {exc}", file=sys.stderr)
        return 2
    except (KeyboardInterrupt, Interrupted):
        print("vcluster: interrupted", file=sys.stderr)
        return 130


def _dispatch(args: argparse.Namespace, program: list[str]) -> int:
    if args.cmd == "caps":
        for kind, ok in probe_qdiscs().items():
            print(f"{kind:10s} {'yes' if ok else 'no'}")
        return 0
    if args.cmd == "create":
        kind, shape = args.topology[0], (args.topology[1] if len(args.topology) > 1 else None)
        if len(args.topology) > 2:
            raise ValueError(f"--topology: expected KIND [SHAPE], got {' '.join(args.topology)!r}")
        topo = topo_mod.parse_topology(kind, shape, args.hosts)
        state = create(args.name, topo, args.rate, args.delay, args.qdisc, args.gso, args.burst)
        print(f"created {state['name']}: {state['topology']}, {len(state['hosts'])} hosts "
              f"({state['hosts'][0]} .. {state['hosts'][-1]}), rate {state['rate']}, "
              f"delay {state['delay']}{'' if state['delay_applied'] or state['delay'] == '0' else ' (NOT applied)'}")
        return 0
    if args.cmd == "destroy":
        if args.all == (args.name is not None):
            raise ValueError("destroy: give a cluster NAME or --all (not both)")
        names = all_cluster_names() if args.all else [check_name(args.name)]
        for name in names:
            for item in destroy(name):
                print(f"removed {item}")
        left = leftovers() if args.all else [x for x in leftovers() if f"{PREFIX}{args.name}-" in x]
        if left:
            print("vcluster: still present: " + ", ".join(left), file=sys.stderr)
            return 1
        return 0
    if args.cmd == "list":
        for name in all_cluster_names():
            path = state_path(name)
            status = json.loads(path.read_text()) if path.exists() else {"status": "leftovers only"}
            print(f"{name:8s} {status.get('status'):15s} {status.get('topology', '')} {status.get('rate', '')}")
        return 0
    if args.cmd == "show":
        state = load_state(args.name)
        print(json.dumps(state, indent=1))
        if not topology_of(state).is_switch:
            print(run(["ip", "-n", state["hosts"][0], "route"]).stdout)
        print(run(["tc", "-n", state["hosts"][0], "qdisc", "show"]).stdout)
        return 0
    if args.cmd == "probe":
        state = load_state(args.name)
        dst = len(state["hosts"]) - 1 if args.dst is None else args.dst
        sizes = [int(x) for x in args.bytes.split(",")]
        print(json.dumps(probe(args.name, args.src, dst, sizes=sizes, reps=args.reps), indent=1))
        return 0
    if args.cmd == "build":
        print(build(Path(args.source), args.mpi))
        return 0
    if args.cmd == "mpirun":
        require_root()
        # SIGTERM/SIGHUP stop the job like Ctrl-C: run_job then ends the MPI processes in the
        # namespaces instead of leaving them behind.
        for sig in (signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, raise_interrupt)
        state = load_state(args.name)
        cmd, env = mpirun_command(state, program, args.k, args.mpi, _parse_host_list(args.hosts),
                                  args.shm, args.launcher_arg, args.mpich_real_finalize)
        if args.dry_run:
            print(shlex.join(cmd))
            return 0
        return run_job(cmd, env, args.timeout, state["hosts"])
    if args.cmd == "exec":
        require_root()
        state = load_state(args.name)
        if not program:
            raise ValueError("exec: expected a command after --")
        if not 0 <= args.host < len(state["hosts"]):
            raise ValueError(f"host: expected 0..{len(state['hosts']) - 1}, got {args.host}")
        return subprocess.call(["ip", "netns", "exec", state["hosts"][args.host]] + program)
    if args.cmd == "mpich-setup":
        mpich_setup()
        return 0
    raise AssertionError(args.cmd)
