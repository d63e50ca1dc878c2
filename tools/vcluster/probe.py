"""``probe``: TCP round-trip time and transfer rate between two hosts of a cluster, measured
with :mod:`tools.vcluster.probe_agent` at both ends (no ping or iperf needed)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from . import topology as topo_mod
from .common import ClusterError, load_state, run, topology_of

PROBE_PORT = 5999
AGENT = str(Path(__file__).resolve().with_name("probe_agent.py"))


def probe(name: str, src: int, dst: int, pings: int = 200, sizes: list[int] | None = None, reps: int = 5) -> dict:
    """TCP round-trip time and transfer rate from host ``src`` to host ``dst``.

    The server runs in ``dst``'s namespace and the client in ``src``'s. Transfers include TCP
    slow start, as an MPI message would.
    """
    state = load_state(name)
    topo = topology_of(state)
    n = topo.n_hosts
    if not (0 <= src < n and 0 <= dst < n) or src == dst:
        raise ValueError(f"--src/--dst: expected two different hosts in 0..{n - 1}, got {src} and {dst}")
    sizes = sizes or [1 << 20]
    addr = topo_mod.host_address(dst)
    server = subprocess.Popen(["ip", "netns", "exec", state["hosts"][dst], sys.executable, AGENT,
                               "serve", addr, str(PROBE_PORT)], stdout=subprocess.PIPE, text=True)
    try:
        if server.stdout.readline().strip() != "ready":
            raise ClusterError("probe server did not start")
        args = json.dumps([addr, PROBE_PORT, pings, sizes, reps])
        out = run(["ip", "netns", "exec", state["hosts"][src], sys.executable, AGENT, "client", args]).stdout
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
