"""Hosts and links of the emulated cluster: network namespaces, veth pairs, a bridge for a
switch, static routes for a torus or mesh, tc shaping; creating and destroying a cluster.

Everything created is named with the prefix ``vc-NAME-``, so :func:`destroy` finds it without
the state file and after a crash.
"""
from __future__ import annotations

import os
import re
import shutil
import signal
import sys
import time

from . import common
from . import topology as topo_mod
from .common import (COMMAND, NAME_RE, NETNS_ETC, PREFIX, ClusterError, check_name, host_ns,
                     netns_list, parse_delay, parse_rate, require_root, root_links, run,
                     state_path, write_state)
from .topology import Topology

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
    run(["ip", "netns", "add", ns])
    try:
        run(["ip", "-n", ns, "link", "add", "ca", "type", "veth", "peer", "name", "cb"])
        for kind, args in QDISC_TRIALS.items():
            ok = _try_qdisc(ns, args)
            if not ok and kind == "netem" and shutil.which("modprobe"):
                run(["modprobe", "sch_netem"], check=False)
                ok = _try_qdisc(ns, args)
            result[kind] = ok
    finally:
        run(["ip", "netns", "del", ns], check=False)
    return result


def _try_qdisc(ns: str, args: list[str]) -> bool:
    run(["tc", "-n", ns, "qdisc", "del", "dev", "ca", "root"], check=False)
    return run(["tc", "-n", ns, "qdisc", "add", "dev", "ca", "root", *args], check=False).returncode == 0


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
        run(ip + ["link", "set", "dev", dev, "gso_max_segs", "1"])
    if qdisc == "htb":
        run(tc + ["qdisc", "replace", "dev", dev, "root", "handle", "1:", "htb", "default", "1"])
        run(tc + ["class", "replace", "dev", dev, "parent", "1:", "classid", "1:1", "htb", "rate", rate,
                   "ceil", rate, "burst", str(burst), "cburst", str(burst), "quantum", "60000"])
        parent = "1:1"
    elif qdisc == "tbf":
        run(tc + ["qdisc", "replace", "dev", dev, "root", "handle", "1:", "tbf", "rate", rate,
                   "burst", str(burst), "latency", "100ms"])
        parent = "1:1"
    else:
        raise ValueError(f"--qdisc: expected htb or tbf, got {qdisc!r}")
    if delay_s > 0 and netem_ok:
        run(tc + ["qdisc", "replace", "dev", dev, "parent", parent, "handle", "10:", "netem",
                   "delay", f"{int(round(delay_s * 1e6))}us", "limit", "10000"])


# ----------------------------------------------------------------------------- create / destroy


class Interrupted(BaseException):
    """Raised from SIGTERM/SIGHUP so that ``create`` cleans up as it does on Ctrl-C."""


def raise_interrupt(signum, _frame):
    raise Interrupted(f"signal {signum}")


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
    if state_path(name).exists() or existing:
        raise ClusterError(f"cluster {name!r} exists (or left-overs do); run: {COMMAND} destroy {name}")
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
    write_state(name, state)
    old = {s: signal.signal(s, raise_interrupt) for s in (signal.SIGTERM, signal.SIGHUP)}
    try:
        _create_hosts(name, topo, hosts)
        if topo.is_switch:
            _create_switch(name, topo, hosts, rate_bits, delay_s, qdisc, netem_ok, segment, bucket)
        else:
            _create_links(topo, hosts, rate_bits, delay_s, qdisc, netem_ok, segment, bucket)
        state["status"] = "ready"
        write_state(name, state)
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
        run(["ip", "netns", "add", ns])
        run(["ip", "-n", ns, "link", "set", "lo", "up"])
        # "ip netns exec" bind-mounts /etc/netns/NS/hosts over /etc/hosts: each host resolves
        # the others' names (MPICH's proxies need this) without touching the real /etc/hosts.
        etc = NETNS_ETC / ns
        etc.mkdir(parents=True, exist_ok=True)
        (etc / "hosts").write_text(hosts_file)
        sysctl = {"net/ipv4/ip_forward": "0" if topo.is_switch else "1",
                  "net/ipv4/conf/all/rp_filter": "0", "net/ipv4/conf/default/rp_filter": "0",
                  "net/ipv4/conf/all/send_redirects": "0", "net/ipv4/conf/default/send_redirects": "0"}
        script = "; ".join(f"echo {v} > /proc/sys/{k}" for k, v in sysctl.items())
        run(["ip", "netns", "exec", ns, "sh", "-c", script])


def _create_switch(name: str, topo: Topology, hosts: list[str], rate_bits: int, delay_s: float,
                   qdisc: str, netem_ok: bool, segment: bool, bucket: int) -> None:
    bridge = f"{PREFIX}{name}-br"
    run(["ip", "link", "add", bridge, "type", "bridge"])
    run(["ip", "link", "set", bridge, "up"])
    for h, ns in enumerate(hosts):
        port = f"{PREFIX}{name}-p{h}"
        run(["ip", "link", "add", port, "type", "veth", "peer", "name", "eth0", "netns", ns])
        run(["ip", "link", "set", port, "master", bridge])
        run(["ip", "link", "set", port, "up"])
        run(["ip", "-n", ns, "addr", "add", f"{topo_mod.host_address(h)}/16", "dev", "eth0"])
        run(["ip", "-n", ns, "link", "set", "eth0", "up"])
        # Host -> switch on the host's side, switch -> host on the bridge port: a full-duplex
        # port of the given rate, as on a switched ethernet.
        shape_link(ns, "eth0", rate_bits, delay_s, qdisc, netem_ok, segment, bucket)
        shape_link(None, port, rate_bits, delay_s, qdisc, netem_ok, segment, bucket)


def _create_links(topo: Topology, hosts: list[str], rate_bits: int, delay_s: float, qdisc: str,
                  netem_ok: bool, segment: bool, bucket: int) -> None:
    for h, ns in enumerate(hosts):
        # The host's own address sits on a veth whose peer stays in the same namespace: this
        # kernel has no dummy interfaces, and MPI ignores addresses on lo.
        run(["ip", "-n", ns, "link", "add", "host0", "type", "veth", "peer", "name", "host0p"])
        run(["ip", "-n", ns, "addr", "add", f"{topo_mod.host_address(h)}/32", "dev", "host0"])
        run(["ip", "-n", ns, "link", "set", "host0p", "up"])
        run(["ip", "-n", ns, "link", "set", "host0", "up"])
    for link in topo_mod.links(topo):
        ns_a, ns_b = hosts[link.a], hosts[link.b]
        addr_a, addr_b = topo_mod.link_addresses(link)
        run(["ip", "link", "add", "name", link.iface_a, "netns", ns_a, "type", "veth",
              "peer", "name", link.iface_b, "netns", ns_b])
        for ns, dev, addr in ((ns_a, link.iface_a, addr_a), (ns_b, link.iface_b, addr_b)):
            run(["ip", "-n", ns, "addr", "add", f"{addr}/30", "dev", dev])
            run(["ip", "-n", ns, "link", "set", dev, "up"])
            shape_link(ns, dev, rate_bits, delay_s, qdisc, netem_ok, segment, bucket)
    for h, ns in enumerate(hosts):
        src = topo_mod.host_address(h)
        batch = "".join(f"route add {dst}/32 via {via} dev {dev} src {src}\n"
                        for dst, via, dev in topo_mod.routes(topo, h))
        run(["ip", "-n", ns, "-batch", "-"], input_text=batch)


def kill_namespace_processes(namespaces: list[str]) -> None:
    """Stop processes still running inside the cluster's namespaces (they keep it alive)."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        pids = []
        for ns in namespaces:
            out = run(["ip", "netns", "pids", ns], check=False).stdout
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
    kill_namespace_processes(namespaces)
    # Deleting a namespace deletes its interfaces, their veth peers and their qdiscs.
    for ns in namespaces:
        run(["ip", "netns", "del", ns], check=False)
        removed.append(f"netns {ns}")
    # Ports first (deleting a veth end removes its peer and qdiscs), then the bridge.
    for link in sorted(root_links(), key=lambda n: n.endswith("-br")):
        if link.startswith(prefix):
            run(["ip", "link", "del", link], check=False)
            removed.append(f"link {link}")
    if NETNS_ETC.is_dir():
        for etc in NETNS_ETC.glob(f"{prefix}*"):
            shutil.rmtree(etc, ignore_errors=True)
            removed.append(f"dir {etc}")
    for path in (common.STATE_DIR / name, state_path(name)):
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
    if common.STATE_DIR.is_dir():
        names.update(p.stem for p in common.STATE_DIR.glob("*.json") if NAME_RE.fullmatch(p.stem))
    return sorted(names)


def leftovers() -> list[str]:
    """Everything with the ``vc-`` prefix that still exists (empty after a clean destroy)."""
    found = [f"netns {n}" for n in netns_list() if n.startswith(PREFIX)]
    found += [f"link {n}" for n in root_links() if n.startswith(PREFIX)]
    if NETNS_ETC.is_dir():
        found += [f"dir {p}" for p in NETNS_ETC.glob(f"{PREFIX}*")]
    if common.STATE_DIR.is_dir():
        found += [f"file {p}" for p in common.STATE_DIR.iterdir()]
    return found


# ----------------------------------------------------------------------------- MPI
