#!/usr/bin/env python3
"""vcluster: an emulated cluster on one Linux machine, for multi-host MPI runs.

Each host is a network namespace; hosts are joined either by one bridge (``switch``) or by veth
pairs between torus/mesh neighbours with static dimension-order routes; every link is shaped with
tc. MPI jobs reach the hosts through ``ip netns exec`` instead of ssh.

Commands (run as root)::

    vcluster.py caps                              # which qdiscs this kernel offers
    vcluster.py create NAME --topology switch --hosts 4 --rate 100mbit --delay 50us
    vcluster.py create NAME --topology torus2d 4x4 --rate 100mbit
    vcluster.py show NAME | list
    vcluster.py probe NAME [--src 0 --dst 3]      # latency and bandwidth of the path
    vcluster.py build a2a_bench.c [--mpi openmpi|mpich]
    vcluster.py mpirun NAME [-k 1] [--mpi openmpi|mpich] [--hosts 0,1,2] -- PROG ARGS...
    vcluster.py exec NAME HOST -- CMD ARGS...
    vcluster.py destroy NAME | --all              # idempotent; also removes leftovers
    vcluster.py mpich-setup                       # MPICH into /opt/mpich, beside Open MPI

Everything created is named with the prefix ``vc-NAME-`` (namespaces ``vc-NAME-hI``; in the
root namespace only the switch's bridge ``vc-NAME-br`` and its ports ``vc-NAME-pI``), plus
``/etc/netns/vc-NAME-hI/`` (the hosts file each namespace sees) and ``/run/vcluster/NAME*``.
``destroy`` finds things by these prefixes, so it works without the state file and after a
crash.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Sequence

sys.path.insert(0, str(Path(__file__).resolve().parent))
import topology as topo_mod  # noqa: E402  (sibling module; this directory is not a package)
from topology import HOST_NET, Topology  # noqa: E402

STATE_DIR = Path(os.environ.get("VCLUSTER_STATE_DIR", "/run/vcluster"))
NETNS_ETC = Path("/etc/netns")
PREFIX = "vc-"
REPO_ROOT = Path(__file__).resolve().parents[2]
BUILD_DIR = Path(os.environ.get("VCLUSTER_BUILD_DIR", REPO_ROOT / "build" / "cluster"))
MPICH_PREFIX = Path(os.environ.get("VCLUSTER_MPICH_PREFIX", "/opt/mpich/usr"))
MPICH_PACKAGES = ("mpich", "libmpich12", "libmpich-dev", "libslurm38")
PROBE_PORT = 5999
NAME_RE = re.compile(r"[a-z0-9]{1,6}")
RATE_RE = re.compile(r"([0-9]+(?:\.[0-9]+)?)(bit|kbit|mbit|gbit)", re.IGNORECASE)
TIME_RE = re.compile(r"([0-9]+(?:\.[0-9]+)?)(us|ms|s)", re.IGNORECASE)

VERBOSE = False


class ClusterError(RuntimeError):
    """A cluster operation failed (the message says which command and why)."""


# ----------------------------------------------------------------------------- small helpers


def _run(cmd: Sequence[str], check: bool = True, capture: bool = True, input_text: str | None = None
         ) -> subprocess.CompletedProcess:
    """Run one command; raise :class:`ClusterError` with its stderr when ``check`` and it fails."""
    if VERBOSE:
        print("+", shlex.join(cmd), file=sys.stderr)
    proc = subprocess.run(list(cmd), capture_output=capture, text=True, input=input_text)
    if check and proc.returncode != 0:
        raise ClusterError(f"command failed ({proc.returncode}): {shlex.join(cmd)}\n{(proc.stderr or '').strip()}")
    return proc


def parse_rate(rate: str) -> int:
    """Bits per second from a tc rate such as ``100mbit`` or ``1gbit``.

    Raises
    ------
    ValueError
        If ``rate`` is not a number followed by bit/kbit/mbit/gbit.
    """
    m = RATE_RE.fullmatch(rate.strip())
    if not m:
        raise ValueError(f"--rate: expected a number and bit|kbit|mbit|gbit (e.g. 100mbit), got {rate!r}")
    scale = {"bit": 1, "kbit": 1e3, "mbit": 1e6, "gbit": 1e9}[m.group(2).lower()]
    bits = int(float(m.group(1)) * scale)
    if bits < 8000:
        raise ValueError(f"--rate: at least 8kbit is needed for MPI to start, got {rate!r}")
    return bits


def parse_delay(delay: str) -> float:
    """Seconds from a tc time such as ``50us``, ``1ms`` or ``0``.

    Raises
    ------
    ValueError
        If ``delay`` is not 0 or a number followed by us/ms/s.
    """
    if delay.strip() in ("0", ""):
        return 0.0
    m = TIME_RE.fullmatch(delay.strip())
    if not m:
        raise ValueError(f"--delay: expected a number and us|ms|s (e.g. 50us) or 0, got {delay!r}")
    return float(m.group(1)) * {"us": 1e-6, "ms": 1e-3, "s": 1.0}[m.group(2).lower()]


def check_name(name: str) -> str:
    """Validate a cluster name (1-6 of a-z0-9, so interface names stay within 15 characters)."""
    if not NAME_RE.fullmatch(name):
        raise ValueError(f"cluster name: expected 1-6 characters from a-z0-9, got {name!r}")
    return name


def host_ns(name: str, host: int) -> str:
    """Namespace (and MPI host) name of ``host`` in cluster ``name``."""
    return f"{PREFIX}{name}-h{host}"


def require_root() -> None:
    """Fail early with a clear message when namespaces cannot be made."""
    if os.geteuid() != 0:
        raise ClusterError("vcluster needs root (network namespaces, veth, tc)")
    if shutil.which("ip") is None or shutil.which("tc") is None:
        raise ClusterError("vcluster needs iproute2 (the ip and tc commands)")


def netns_list() -> list[str]:
    """Names of all network namespaces known to iproute2."""
    out = _run(["ip", "netns", "list"], check=False).stdout
    return [line.split()[0] for line in out.splitlines() if line.strip()]


def root_links() -> list[str]:
    """Names of all links in the root namespace."""
    out = _run(["ip", "-o", "link", "show"], check=False).stdout
    names = []
    for line in out.splitlines():
        parts = line.split(":", 2)
        if len(parts) >= 2:
            names.append(parts[1].strip().split("@")[0])
    return names


def _state_path(name: str) -> Path:
    return STATE_DIR / f"{name}.json"


def _write_state(name: str, state: dict) -> None:
    STATE_DIR.mkdir(parents=True, exist_ok=True)
    tmp = _state_path(name).with_suffix(".tmp")
    tmp.write_text(json.dumps(state, indent=1))
    tmp.replace(_state_path(name))


def load_state(name: str) -> dict:
    """The state recorded by ``create`` for cluster ``name``.

    Raises
    ------
    ClusterError
        If the cluster does not exist or was not completely created.
    """
    path = _state_path(check_name(name))
    if not path.exists():
        raise ClusterError(f"cluster {name!r} does not exist (no {path}); create it first")
    state = json.loads(path.read_text())
    if state.get("status") != "ready":
        raise ClusterError(f"cluster {name!r} is {state.get('status')!r}, not ready; destroy and recreate it")
    return state


def topology_of(state: dict) -> Topology:
    """The :class:`Topology` stored in a state dict."""
    return Topology(state["kind"], tuple(state["dims"]), tuple(state["wrap"]))


# ----------------------------------------------------------------------------- capabilities

QDISC_TRIALS = {
    "pfifo": ["pfifo", "limit", "1000"],
    "tbf": ["tbf", "rate", "100mbit", "burst", "32kb", "latency", "50ms"],
    "htb": ["htb", "default", "1"],
    "netem": ["netem", "delay", "50us"],
    "fq": ["fq"],
    "fq_codel": ["fq_codel"],
    "sfq": ["sfq"],
    "prio": ["prio"],
    "cake": ["cake"],
    "hfsc": ["hfsc", "default", "1"],
}


def probe_qdiscs() -> dict[str, bool]:
    """Which qdisc kinds the running kernel accepts, tried on a veth in a scratch namespace.

    When ``netem`` is missing this also tries ``modprobe sch_netem`` once (where modprobe
    exists), because netem is often a module.
    """
    require_root()
    ns = f"{PREFIX}caps-{os.getpid() % 100000}"
    result: dict[str, bool] = {}
    _run(["ip", "netns", "add", ns])
    try:
        _run(["ip", "-n", ns, "link", "add", "ca", "type", "veth", "peer", "name", "cb"])
        for kind, args in QDISC_TRIALS.items():
            ok = _try_qdisc(ns, args)
            if not ok and kind == "netem" and shutil.which("modprobe"):
                _run(["modprobe", "sch_netem"], check=False)
                ok = _try_qdisc(ns, args)
            result[kind] = ok
    finally:
        _run(["ip", "netns", "del", ns], check=False)
    return result


def _try_qdisc(ns: str, args: list[str]) -> bool:
    _run(["tc", "-n", ns, "qdisc", "del", "dev", "ca", "root"], check=False)
    return _run(["tc", "-n", ns, "qdisc", "add", "dev", "ca", "root", *args], check=False).returncode == 0


# ----------------------------------------------------------------------------- shaping


def burst_bytes(rate_bits: int, burst: str, segment: bool) -> int:
    """Token-bucket size: ``burst`` of traffic at the link rate (``auto``: 1 ms).

    A real cable has no burst; the bucket exists because the shaper's timer and the
    scheduler are late now and then (on a loaded 2-core machine by milliseconds), and a
    bucket of that size lets the link catch up instead of losing the time. It is at least
    two frames, and one 64 KiB GSO packet when packets are not segmented.

    Raises
    ------
    ValueError
        If ``burst`` is not ``auto`` or a time such as ``2ms``.
    """
    seconds = 1e-3 if burst == "auto" else parse_delay(burst)
    if burst != "auto" and seconds <= 0:
        raise ValueError(f"--burst: expected auto or a positive time such as 2ms, got {burst!r}")
    size = max(2 * 1514, int(rate_bits / 8 * seconds))
    return size if segment else max(size, 64 * 1024 + 1600)


def shape_link(ns: str | None, dev: str, rate_bits: int, delay_s: float, qdisc: str, netem_ok: bool,
               segment: bool = True, burst: int = 2 * 1514) -> None:
    """Limit egress of ``dev`` (in namespace ``ns``, or the root namespace) to the link rate.

    htb (default) or tbf sets the rate; netem below it adds the delay when the kernel has it.
    With ``segment`` the device sends wire-size packets (``gso_max_segs 1``), as a NIC puts
    them on a cable; without it TCP hands veth 64 KiB GSO packets, which pass the shaper as
    bursts of that size (cheaper in CPU: meant for fast links).
    """
    tc = ["tc"] + (["-n", ns] if ns else [])
    ip = ["ip"] + (["-n", ns] if ns else [])
    rate = f"{rate_bits}bit"
    if segment:
        _run(ip + ["link", "set", "dev", dev, "gso_max_segs", "1"])
    if qdisc == "htb":
        _run(tc + ["qdisc", "replace", "dev", dev, "root", "handle", "1:", "htb", "default", "1"])
        _run(tc + ["class", "replace", "dev", dev, "parent", "1:", "classid", "1:1", "htb", "rate", rate,
                   "ceil", rate, "burst", str(burst), "cburst", str(burst), "quantum", "60000"])
        parent = "1:1"
    elif qdisc == "tbf":
        _run(tc + ["qdisc", "replace", "dev", dev, "root", "handle", "1:", "tbf", "rate", rate,
                   "burst", str(burst), "latency", "100ms"])
        parent = "1:1"
    else:
        raise ValueError(f"--qdisc: expected htb or tbf, got {qdisc!r}")
    if delay_s > 0 and netem_ok:
        _run(tc + ["qdisc", "replace", "dev", dev, "parent", parent, "handle", "10:", "netem",
                   "delay", f"{int(round(delay_s * 1e6))}us", "limit", "10000"])


# ----------------------------------------------------------------------------- create / destroy


class _Interrupted(BaseException):
    """Raised from SIGTERM/SIGHUP so that ``create`` cleans up as it does on Ctrl-C."""


def _raise_interrupt(signum, _frame):
    raise _Interrupted(f"signal {signum}")


def create(name: str, topo: Topology, rate: str, delay: str, qdisc: str = "htb", gso: str = "auto",
           burst: str = "auto") -> dict:
    """Create cluster ``name``; on any failure or interrupt remove what was made, then re-raise.

    ``gso`` is "on", "off" or "auto" (off below 500 Mbit/s, where per-packet CPU cost is low
    and 64 KiB bursts would distort small messages); ``burst`` see :func:`burst_bytes`.

    Returns
    -------
    dict
        The state written to ``/run/vcluster/NAME.json``.
    """
    require_root()
    check_name(name)
    rate_bits, delay_s = parse_rate(rate), parse_delay(delay)
    if qdisc not in ("htb", "tbf"):
        raise ValueError(f"--qdisc: expected htb or tbf, got {qdisc!r}")
    if gso not in ("on", "off", "auto"):
        raise ValueError(f"--gso: expected on, off or auto, got {gso!r}")
    segment = gso == "off" or (gso == "auto" and rate_bits < 500_000_000)
    bucket = burst_bytes(rate_bits, burst, segment)
    existing = [ns for ns in netns_list() if ns.startswith(f"{PREFIX}{name}-")]
    if _state_path(name).exists() or existing:
        raise ClusterError(f"cluster {name!r} exists (or left-overs do); run: vcluster.py destroy {name}")
    caps = probe_qdiscs()
    if not caps.get(qdisc):
        raise ClusterError(f"qdisc {qdisc} is not available in this kernel; try --qdisc "
                           + ("tbf" if qdisc == "htb" else "htb"))
    netem_ok = bool(caps.get("netem"))
    warnings = []
    if delay_s > 0 and not netem_ok:
        warnings.append(f"netem qdisc not available (kernel without CONFIG_NET_SCH_NETEM, no module): "
                        f"delay {delay} NOT applied; links have only veth/forwarding latency")
    hosts = [host_ns(name, h) for h in range(topo.n_hosts)]
    state = {
        "name": name, "status": "creating", "kind": topo.kind, "dims": list(topo.dims),
        "wrap": list(topo.wrap), "topology": topo.describe(), "rate": rate, "rate_bits": rate_bits,
        "delay": delay, "delay_applied": delay_s > 0 and netem_ok, "qdisc": qdisc, "gso": not segment, "burst_bytes": bucket,
        "hosts": hosts,
        "addresses": [topo_mod.host_address(h) for h in range(topo.n_hosts)],
        "mpi_iface": "eth0" if topo.is_switch else "host0", "warnings": warnings,
        "created": time.strftime("%Y-%m-%dT%H:%M:%S"),
    }
    # The state file exists before the first object does, so an interrupted create is visible.
    _write_state(name, state)
    old = {s: signal.signal(s, _raise_interrupt) for s in (signal.SIGTERM, signal.SIGHUP)}
    try:
        _create_hosts(name, topo, hosts)
        if topo.is_switch:
            _create_switch(name, topo, hosts, rate_bits, delay_s, qdisc, netem_ok, segment, bucket)
        else:
            _create_links(topo, hosts, rate_bits, delay_s, qdisc, netem_ok, segment, bucket)
        state["status"] = "ready"
        _write_state(name, state)
    except BaseException:
        destroy(name)
        raise
    finally:
        for s, handler in old.items():
            signal.signal(s, handler)
    for w in warnings:
        print(f"vcluster: warning: {w}", file=sys.stderr)
    return state


def _create_hosts(name: str, topo: Topology, hosts: list[str]) -> None:
    hosts_file = "127.0.0.1 localhost\n" + "".join(
        f"{topo_mod.host_address(h)} {ns}\n" for h, ns in enumerate(hosts))
    for ns in hosts:
        _run(["ip", "netns", "add", ns])
        _run(["ip", "-n", ns, "link", "set", "lo", "up"])
        # "ip netns exec" bind-mounts /etc/netns/NS/hosts over /etc/hosts: each host resolves
        # the others' names (MPICH's proxies need this) without touching the real /etc/hosts.
        etc = NETNS_ETC / ns
        etc.mkdir(parents=True, exist_ok=True)
        (etc / "hosts").write_text(hosts_file)
        sysctl = {"net/ipv4/ip_forward": "0" if topo.is_switch else "1",
                  "net/ipv4/conf/all/rp_filter": "0", "net/ipv4/conf/default/rp_filter": "0",
                  "net/ipv4/conf/all/send_redirects": "0", "net/ipv4/conf/default/send_redirects": "0"}
        script = "; ".join(f"echo {v} > /proc/sys/{k}" for k, v in sysctl.items())
        _run(["ip", "netns", "exec", ns, "sh", "-c", script])


def _create_switch(name: str, topo: Topology, hosts: list[str], rate_bits: int, delay_s: float,
                   qdisc: str, netem_ok: bool, segment: bool, bucket: int) -> None:
    bridge = f"{PREFIX}{name}-br"
    _run(["ip", "link", "add", bridge, "type", "bridge"])
    _run(["ip", "link", "set", bridge, "up"])
    for h, ns in enumerate(hosts):
        port = f"{PREFIX}{name}-p{h}"
        _run(["ip", "link", "add", port, "type", "veth", "peer", "name", "eth0", "netns", ns])
        _run(["ip", "link", "set", port, "master", bridge])
        _run(["ip", "link", "set", port, "up"])
        _run(["ip", "-n", ns, "addr", "add", f"{topo_mod.host_address(h)}/16", "dev", "eth0"])
        _run(["ip", "-n", ns, "link", "set", "eth0", "up"])
        # Host -> switch on the host's side, switch -> host on the bridge port: a full-duplex
        # port of the given rate, as on a switched ethernet.
        shape_link(ns, "eth0", rate_bits, delay_s, qdisc, netem_ok, segment, bucket)
        shape_link(None, port, rate_bits, delay_s, qdisc, netem_ok, segment, bucket)


def _create_links(topo: Topology, hosts: list[str], rate_bits: int, delay_s: float, qdisc: str,
                  netem_ok: bool, segment: bool, bucket: int) -> None:
    for h, ns in enumerate(hosts):
        # The host's own address sits on a veth whose peer stays in the same namespace: this
        # kernel has no dummy interfaces, and MPI ignores addresses on lo.
        _run(["ip", "-n", ns, "link", "add", "host0", "type", "veth", "peer", "name", "host0p"])
        _run(["ip", "-n", ns, "addr", "add", f"{topo_mod.host_address(h)}/32", "dev", "host0"])
        _run(["ip", "-n", ns, "link", "set", "host0p", "up"])
        _run(["ip", "-n", ns, "link", "set", "host0", "up"])
    for link in topo_mod.links(topo):
        ns_a, ns_b = hosts[link.a], hosts[link.b]
        addr_a, addr_b = topo_mod.link_addresses(link)
        _run(["ip", "link", "add", "name", link.iface_a, "netns", ns_a, "type", "veth",
              "peer", "name", link.iface_b, "netns", ns_b])
        for ns, dev, addr in ((ns_a, link.iface_a, addr_a), (ns_b, link.iface_b, addr_b)):
            _run(["ip", "-n", ns, "addr", "add", f"{addr}/30", "dev", dev])
            _run(["ip", "-n", ns, "link", "set", dev, "up"])
            shape_link(ns, dev, rate_bits, delay_s, qdisc, netem_ok, segment, bucket)
    for h, ns in enumerate(hosts):
        src = topo_mod.host_address(h)
        batch = "".join(f"route add {dst}/32 via {via} dev {dev} src {src}\n"
                        for dst, via, dev in topo_mod.routes(topo, h))
        _run(["ip", "-n", ns, "-batch", "-"], input_text=batch)


def _kill_namespace_processes(namespaces: list[str]) -> None:
    """Stop processes still running inside the cluster's namespaces (they keep it alive)."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        pids = []
        for ns in namespaces:
            out = _run(["ip", "netns", "pids", ns], check=False).stdout
            pids += [int(p) for p in out.split() if p.isdigit()]
        if not pids:
            return
        for pid in pids:
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass
        time.sleep(0.5)


def destroy(name: str) -> list[str]:
    """Remove every namespace, link, qdisc and file of cluster ``name``. Idempotent.

    Returns
    -------
    list of str
        What was removed (empty when nothing was left).
    """
    require_root()
    check_name(name)
    prefix = f"{PREFIX}{name}-"
    removed: list[str] = []
    namespaces = [ns for ns in netns_list() if ns.startswith(prefix)]
    _kill_namespace_processes(namespaces)
    # Deleting a namespace deletes its interfaces, their veth peers and their qdiscs.
    for ns in namespaces:
        _run(["ip", "netns", "del", ns], check=False)
        removed.append(f"netns {ns}")
    # Ports first (deleting a veth end removes its peer and qdiscs), then the bridge.
    for link in sorted(root_links(), key=lambda n: n.endswith("-br")):
        if link.startswith(prefix):
            _run(["ip", "link", "del", link], check=False)
            removed.append(f"link {link}")
    if NETNS_ETC.is_dir():
        for etc in NETNS_ETC.glob(f"{prefix}*"):
            shutil.rmtree(etc, ignore_errors=True)
            removed.append(f"dir {etc}")
    for path in (STATE_DIR / name, _state_path(name)):
        if path.is_dir():
            shutil.rmtree(path, ignore_errors=True)
            removed.append(f"dir {path}")
        elif path.exists():
            path.unlink()
            removed.append(f"file {path}")
    return removed


def all_cluster_names() -> list[str]:
    """Names of clusters that exist or left something behind (found by the ``vc-`` prefix)."""
    names = set()
    pat = re.compile(re.escape(PREFIX) + r"([a-z0-9]{1,6})-")
    for thing in netns_list() + root_links() + ([p.name for p in NETNS_ETC.iterdir()] if NETNS_ETC.is_dir() else []):
        m = pat.match(thing)
        if m:
            names.add(m.group(1))
    if STATE_DIR.is_dir():
        names.update(p.stem for p in STATE_DIR.glob("*.json") if NAME_RE.fullmatch(p.stem))
    return sorted(names)


def leftovers() -> list[str]:
    """Everything with the ``vc-`` prefix that still exists (empty after a clean destroy)."""
    found = [f"netns {n}" for n in netns_list() if n.startswith(PREFIX)]
    found += [f"link {n}" for n in root_links() if n.startswith(PREFIX)]
    if NETNS_ETC.is_dir():
        found += [f"dir {p}" for p in NETNS_ETC.glob(f"{PREFIX}*")]
    if STATE_DIR.is_dir():
        found += [f"file {p}" for p in STATE_DIR.iterdir()]
    return found


# ----------------------------------------------------------------------------- MPI


def mpi_env(mpi: str, state: dict, k: int, shm: bool) -> dict[str, str]:
    """Environment for the launcher and (inherited through the agent) every rank."""
    env = dict(os.environ)
    if os.geteuid() == 0:
        env["OMPI_ALLOW_RUN_AS_ROOT"] = "1"
        env["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] = "1"
    if mpi == "mpich":
        lib = str(MPICH_PREFIX / "lib" / "x86_64-linux-gnu")
        env["LD_LIBRARY_PATH"] = lib + (":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
        env["PATH"] = str(MPICH_PREFIX / "bin") + ":" + env.get("PATH", "")
        # MPICH here is ch4:ucx. UCX takes every namespace for the same machine, so its
        # shared-memory transports would carry traffic between hosts: TCP only.
        env["UCX_TLS"] = "tcp,self"
        env["UCX_NET_DEVICES"] = state["mpi_iface"]
        # UCX 1.13's default TCP rendezvous leaves ranks spinning in MPI_Finalize after large
        # messages among 3 or more ranks (also without namespaces); the active-message scheme
        # does not. A value set by the user wins.
        env.setdefault("UCX_RNDV_SCHEME", "am")
    return env


def write_launch_files(state: dict, order: list[int], k: int, mpi: str) -> tuple[Path, Path]:
    """Hosts file (in rank order) and the ssh stand-in agent script; returns their paths."""
    run_dir = STATE_DIR / state["name"]
    run_dir.mkdir(parents=True, exist_ok=True)
    hosts = [state["hosts"][h] for h in order]
    hostfile = run_dir / f"hosts.{mpi}"
    if mpi == "openmpi":
        hostfile.write_text("".join(f"{h} slots={k}\n" for h in hosts))
    else:
        hostfile.write_text("".join(f"{h}:{k}\n" for h in hosts))
    agent = run_dir / "agent.sh"
    # Called like ssh: "agent [-options] HOST COMMAND...". It enters HOST's network namespace
    # and a fresh UTS namespace named HOST (so MPI sees one hostname per host and does not take
    # all hosts for one node), then runs COMMAND through sh as sshd would.
    agent.write_text(
        "#!/bin/sh\n"
        "# ssh stand-in for MPI launchers, written by vcluster.py\n"
        'while [ $# -gt 0 ]; do case "$1" in -*) shift;; *) break;; esac; done\n'
        'host="$1"; shift\n'
        'exec ip netns exec "$host" unshare --uts -- sh -c \'hostname "$0" && exec sh -c "$*"\' "$host" "$@"\n')
    agent.chmod(0o755)
    return hostfile, agent


def mpirun_command(state: dict, program: list[str], k: int = 1, mpi: str = "openmpi",
                   order: list[int] | None = None, shm: bool = False, extra: list[str] | None = None,
                   real_finalize: bool = False) -> tuple[list[str], dict[str, str]]:
    """Command line (entering the first host's namespace) and environment of an MPI job.

    Parameters
    ----------
    state : dict
        From :func:`load_state`.
    program : list of str
        Executable and its arguments.
    k : int
        Ranks per host.
    mpi : {"openmpi", "mpich"}
    order : list of int, optional
        Host indices in rank order (rank r runs on host ``order[r // k]``); default all hosts.
    shm : bool
        Let ranks of the same host use shared memory (default: TCP between every pair).
    extra : list of str, optional
        More launcher options, placed before the program.
    real_finalize : bool
        MPICH only: do not preload ``mpich_finalize_shim`` (see that file for the hang it
        avoids).
    """
    if not program:
        raise ValueError("program: expected an executable after --")
    if k < 1:
        raise ValueError(f"-k: expected >= 1 ranks per host, got {k}")
    n = len(state["hosts"])
    order = list(range(n)) if order is None else list(order)
    if not order or any(not 0 <= h < n for h in order) or len(set(order)) != len(order):
        raise ValueError(f"--hosts: expected distinct host indices in 0..{n - 1}, got {order}")
    if shm and mpi == "mpich":
        raise ValueError("--shm: not available with MPICH here (UCX shared memory would connect "
                         "ranks of different hosts, bypassing the links); use Open MPI")
    hostfile, agent = write_launch_files(state, order, k, mpi)
    total = k * len(order)
    if mpi == "openmpi":
        btl = "tcp,vader,self" if shm and k > 1 else "tcp,self"
        launcher = ["mpirun", "--hostfile", str(hostfile), "-np", str(total), "--map-by", "slot",
                    # Every "node" is this machine: without this each host's daemon would pin
                    # its first rank to core 0.
                    "--bind-to", "none",
                    "--mca", "plm_rsh_agent", str(agent), "--mca", "plm_rsh_no_tree_spawn", "1",
                    "--mca", "pml", "ob1", "--mca", "btl", btl, "--mca", "osc", "^ucx",
                    # All hosts share this machine's few cores, but each daemon sees a whole
                    # machine and lets its ranks spin; spinning ranks starve the others for a
                    # scheduler tick (4 ms measured for a 1 KiB all-to-all of 4 ranks on 2 cores).
                    "--mca", "mpi_yield_when_idle", "1",
                    "--mca", "btl_tcp_if_include", HOST_NET, "--mca", "oob_tcp_if_include", HOST_NET]
    elif mpi == "mpich":
        hydra = MPICH_PREFIX / "bin" / "mpiexec.hydra"
        if not hydra.exists():
            raise ClusterError(f"MPICH not found at {MPICH_PREFIX} (no {hydra}); run: vcluster.py mpich-setup")
        launcher = [str(hydra), "-f", str(hostfile), "-n", str(total), "-launcher", "ssh",
                    "-launcher-exec", str(agent)]
        if not real_finalize:
            # Preloaded into the ranks only (-genv), not into the launcher or this script.
            shim = build(Path(__file__).resolve().parent / "mpich_finalize_shim.c", "mpich", shared=True)
            launcher += ["-genv", "LD_PRELOAD", str(shim)]
    else:
        raise ValueError(f"--mpi: expected openmpi or mpich, got {mpi!r}")
    head = state["hosts"][order[0]]
    # The launcher runs on the first host (its namespace and hostname), so its control
    # connections use the cluster network like the daemons' do.
    cmd = ["ip", "netns", "exec", head, "unshare", "--uts", "--", "sh", "-c",
           'hostname "$0" && exec "$@"', head] + launcher + list(extra or []) + list(program)
    return cmd, mpi_env(mpi, state, k, shm)


def run_job(cmd: list[str], env: dict[str, str], timeout: float | None, namespaces: list[str],
            output=None) -> int:
    """Run an MPI launcher; on timeout stop it and every process left in ``namespaces``.

    ``output``: a file to receive the job's stdout and stderr (default: this process's).
    Returns the launcher's exit status, or 124 after a timeout (like coreutils ``timeout``).
    """
    if VERBOSE:
        print("+", shlex.join(cmd), file=sys.stderr)
    proc = subprocess.Popen(cmd, env=env, start_new_session=True, stdout=output,
                            stderr=subprocess.STDOUT if output is not None else None)
    try:
        return proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        print(f"vcluster: job exceeded {timeout:g} s; stopping it", file=sys.stderr)
        _stop_group(proc)
        _kill_namespace_processes(namespaces)
        return 124
    except BaseException:
        _stop_group(proc)
        _kill_namespace_processes(namespaces)
        raise


def _stop_group(proc: subprocess.Popen) -> None:
    for sig, wait in ((signal.SIGTERM, 5), (signal.SIGKILL, 5)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


def build(source: Path, mpi: str = "openmpi", out_dir: Path | None = None, shared: bool = False) -> Path:
    """Compile an MPI C program for ``mpi`` into the (git-ignored) build directory.

    Rebuilds only when the source is newer than the output. With ``shared`` the output is a
    preloadable library ``libNAME.so`` instead of an executable.
    """
    source = Path(source).resolve()
    if not source.exists():
        raise ValueError(f"source: no such file {source}")
    out_dir = Path(out_dir or BUILD_DIR / mpi)
    out_dir.mkdir(parents=True, exist_ok=True)
    exe = out_dir / (f"lib{source.stem}.so" if shared else source.stem)
    if exe.exists() and exe.stat().st_mtime >= source.stat().st_mtime:
        return exe
    kind = ["-shared", "-fPIC"] if shared else []
    if mpi == "openmpi":
        cmd = ["mpicc", *kind, "-O2", "-std=gnu99", "-Wall", "-o", str(exe), str(source), "-lm"]
    elif mpi == "mpich":
        inc = MPICH_PREFIX / "include" / "x86_64-linux-gnu" / "mpich"
        lib = MPICH_PREFIX / "lib" / "x86_64-linux-gnu"
        if not (inc / "mpi.h").exists():
            raise ClusterError(f"MPICH headers not found in {inc}; run: vcluster.py mpich-setup")
        # The packaged mpicc.mpich hard-codes /usr; compile directly against the side prefix.
        cmd = ["cc", *kind, "-O2", "-std=gnu99", "-Wall", f"-I{inc}", "-o", str(exe), str(source),
               f"-L{lib}", f"-Wl,-rpath,{lib}", "-lmpich", "-lm"]
    else:
        raise ValueError(f"--mpi: expected openmpi or mpich, got {mpi!r}")
    _run(cmd)
    return exe


def mpich_setup(prefix_root: Path = Path("/opt/mpich")) -> None:
    """Unpack Debian's MPICH into ``prefix_root`` without installing it.

    ``apt-get install mpich`` would register mpirun/mpicc alternatives and a second mpi.h
    beside Open MPI's; unpacking with ``dpkg -x`` keeps Open MPI the only system MPI.
    """
    require_root()
    missing = [p for p in ("libhwloc15", "libucx0", "libgfortran5")
               if _run(["dpkg", "-s", p], check=False).returncode != 0]
    if missing:
        raise ClusterError(f"MPICH needs these installed first: apt-get install {' '.join(missing)}")
    with tempfile.TemporaryDirectory() as tmp:
        os.chmod(tmp, 0o755)  # apt's sandbox user must be able to write the .deb files
        if subprocess.run(["apt-get", "download", *MPICH_PACKAGES], cwd=tmp).returncode != 0:
            raise ClusterError(f"apt-get download {' '.join(MPICH_PACKAGES)} failed (run apt-get update?)")
        for deb in sorted(Path(tmp).glob("*.deb")):
            _run(["dpkg", "-x", str(deb), str(prefix_root)])
    print(f"MPICH unpacked into {prefix_root}; mpiexec: {prefix_root}/usr/bin/mpiexec.hydra")


# ----------------------------------------------------------------------------- probe

_PROBE_SERVER = r"""
import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], int(sys.argv[2]))); s.listen(1); s.settimeout(60)
print("ready", flush=True)
c, _ = s.accept(); c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
while True:
    head = c.recv(1)
    if not head or head == b"q": break
    if head == b"p": c.sendall(b"p"); continue
    # b"b": 8-byte length, then that many bytes; answer one byte when all arrived.
    n = int.from_bytes(c.recv(8, socket.MSG_WAITALL), "little"); got = 0
    while got < n:
        chunk = c.recv(min(1 << 20, n - got))
        if not chunk: sys.exit(1)
        got += len(chunk)
    c.sendall(b"k")
"""


def _probe_client(addr: str, port: int, pings: int, sizes: list[int], reps: int) -> dict:
    s = socket.create_connection((addr, port), timeout=60)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    rtts = []
    for _ in range(pings):
        t = time.perf_counter()
        s.sendall(b"p")
        s.recv(1)
        rtts.append(time.perf_counter() - t)
    rtts = rtts[5:] or rtts  # skip connection warm-up
    transfers = {}
    for size in sizes:
        payload = b"\0" * size
        times = []
        for _ in range(reps):
            t = time.perf_counter()
            s.sendall(b"b" + size.to_bytes(8, "little"))
            s.sendall(payload)
            s.recv(1)
            times.append(time.perf_counter() - t)
        med = statistics.median(times)
        transfers[str(size)] = {"median_s": med, "mbit_per_s": size * 8 / med / 1e6}
    s.sendall(b"q")
    s.close()
    return {"rtt_us": {"median": statistics.median(rtts) * 1e6, "min": min(rtts) * 1e6},
            "transfers": transfers}


def probe(name: str, src: int, dst: int, pings: int = 200, sizes: list[int] | None = None, reps: int = 5) -> dict:
    """TCP round-trip time and transfer rate from host ``src`` to host ``dst``.

    The server runs in ``dst``'s namespace and the client in ``src``'s (Python, no ping or
    iperf needed). Transfers include TCP slow start, as an MPI message would.
    """
    state = load_state(name)
    topo = topology_of(state)
    n = topo.n_hosts
    if not (0 <= src < n and 0 <= dst < n) or src == dst:
        raise ValueError(f"--src/--dst: expected two different hosts in 0..{n - 1}, got {src} and {dst}")
    sizes = sizes or [1 << 20]
    addr = topo_mod.host_address(dst)
    server = subprocess.Popen(["ip", "netns", "exec", state["hosts"][dst], sys.executable, "-c",
                               _PROBE_SERVER, addr, str(PROBE_PORT)], stdout=subprocess.PIPE, text=True)
    try:
        if server.stdout.readline().strip() != "ready":
            raise ClusterError("probe server did not start")
        args = json.dumps([addr, PROBE_PORT, pings, sizes, reps])
        out = _run(["ip", "netns", "exec", state["hosts"][src], sys.executable, str(Path(__file__).resolve()),
                    "_probe-client", args]).stdout
        result = json.loads(out)
    finally:
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
    result.update({"src": src, "dst": dst, "rate": state["rate"], "delay": state["delay"],
                   "delay_applied": state["delay_applied"], "qdisc": state["qdisc"],
                   "path": [src] if topo.is_switch else topo_mod.path(topo, src, dst)})
    if topo.is_switch:
        result["path"] = [src, "switch", dst]
    return result


# ----------------------------------------------------------------------------- CLI


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
    global VERBOSE
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["_probe-client"]:
        addr, port, pings, sizes, reps = json.loads(argv[1])
        print(json.dumps(_probe_client(addr, port, pings, sizes, reps)))
        return 0
    argv, program = _split_program(argv)
    ap = argparse.ArgumentParser(prog="vcluster.py", description=__doc__.split("\n\n")[0],
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
    VERBOSE = args.verbose
    try:
        return _dispatch(args, program)
    except (ValueError, ClusterError) as exc:
        print(f"vcluster: error: {exc}", file=sys.stderr)
        return 2
    except (KeyboardInterrupt, _Interrupted):
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
            path = _state_path(name)
            status = json.loads(path.read_text()) if path.exists() else {"status": "leftovers only"}
            print(f"{name:8s} {status.get('status'):15s} {status.get('topology', '')} {status.get('rate', '')}")
        return 0
    if args.cmd == "show":
        state = load_state(args.name)
        print(json.dumps(state, indent=1))
        if not topology_of(state).is_switch:
            print(_run(["ip", "-n", state["hosts"][0], "route"]).stdout)
        print(_run(["tc", "-n", state["hosts"][0], "qdisc", "show"]).stdout)
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
            signal.signal(sig, _raise_interrupt)
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


if __name__ == "__main__":
    sys.exit(main())
