"""What every part of the emulated cluster shares: names, errors, running commands, the state
file, and the parsing of rates, delays and cluster names.

Module attributes that tests or callers may change (``STATE_DIR``, ``VERBOSE``) are read
through this module (``common.STATE_DIR``) everywhere, so that one assignment here reaches all
parts.
"""
from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Sequence

from .topology import Topology

STATE_DIR = Path(os.environ.get("VCLUSTER_STATE_DIR", "/run/vcluster"))
NETNS_ETC = Path("/etc/netns")
PREFIX = "vc-"
REPO_ROOT = Path(__file__).resolve().parents[2]
BUILD_DIR = Path(os.environ.get("VCLUSTER_BUILD_DIR", REPO_ROOT / "build" / "cluster"))
NAME_RE = re.compile(r"[a-z0-9]{1,6}")
RATE_RE = re.compile(r"([0-9]+(?:\.[0-9]+)?)(bit|kbit|mbit|gbit)", re.IGNORECASE)
TIME_RE = re.compile(r"([0-9]+(?:\.[0-9]+)?)(us|ms|s)", re.IGNORECASE)
# How the command line is spelt in messages that tell the user what to run.
COMMAND = "python3 -m tools.vcluster"

VERBOSE = False


class ClusterError(RuntimeError):
    """A cluster operation failed (the message says which command and why)."""


# ----------------------------------------------------------------------------- small helpers


def run(cmd: Sequence[str], check: bool = True, capture: bool = True, input_text: str | None = None
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


def namespaces_unusable() -> str | None:
    """Why clusters cannot be made here (for skipping live tests), or None when they can: root,
    iproute2, and a network namespace really created and removed."""
    if os.geteuid() != 0:
        return "needs root for network namespaces"
    if shutil.which("ip") is None or shutil.which("tc") is None:
        return "needs iproute2"
    probe = f"vc-probe{os.getpid() % 100000}"
    if subprocess.run(["ip", "netns", "add", probe], capture_output=True).returncode != 0:
        return "cannot create network namespaces here"
    subprocess.run(["ip", "netns", "del", probe], capture_output=True)
    return None


def netns_list() -> list[str]:
    """Names of all network namespaces known to iproute2."""
    out = run(["ip", "netns", "list"], check=False).stdout
    return [line.split()[0] for line in out.splitlines() if line.strip()]


def root_links() -> list[str]:
    """Names of all links in the root namespace."""
    out = run(["ip", "-o", "link", "show"], check=False).stdout
    names = []
    for line in out.splitlines():
        parts = line.split(":", 2)
        if len(parts) >= 2:
            names.append(parts[1].strip().split("@")[0])
    return names



# ----------------------------------------------------------------------------- state file


def state_path(name: str) -> Path:
    """``STATE_DIR/NAME.json``: where ``create`` records a cluster."""
    return STATE_DIR / f"{name}.json"


def write_state(name: str, state: dict) -> None:
    """Write a cluster's state atomically (a reader never sees half a file)."""
    STATE_DIR.mkdir(parents=True, exist_ok=True)
    tmp = state_path(name).with_suffix(".tmp")
    tmp.write_text(json.dumps(state, indent=1))
    tmp.replace(state_path(name))


def load_state(name: str) -> dict:
    """The state recorded by ``create`` for cluster ``name``.

    Raises
    ------
    ClusterError
        If the cluster does not exist or was not completely created.
    """
    path = state_path(check_name(name))
    if not path.exists():
        raise ClusterError(f"cluster {name!r} does not exist (no {path}); create it first")
    state = json.loads(path.read_text())
    if state.get("status") != "ready":
        raise ClusterError(f"cluster {name!r} is {state.get('status')!r}, not ready; destroy and recreate it")
    return state


def topology_of(state: dict) -> Topology:
    """The :class:`Topology` stored in a state dict."""
    return Topology(state["kind"], tuple(state["dims"]), tuple(state["wrap"]))
