"""Topologies of an emulated cluster: host coordinates, links, addresses, dimension-order routes.

Pure Python (no root, no iproute2), so that the routing rules can be unit-tested anywhere.
:mod:`tools.vcluster` turns what this module computes into namespaces, veth pairs and routes.

Conventions
-----------
* Hosts are numbered 0..N-1. On a torus or mesh of extents ``(A, B, ...)`` host ``i`` has the
  C-order coordinates of ``i`` (the last dimension varies fastest), like ``numpy.unravel_index``.
* Host addresses come from 10.77.0.0/16 and link (point-to-point) addresses from 10.78.0.0/16.
  Both ranges exist only inside the cluster's namespaces; nothing is routed to the outside.
* Routes follow dimension order: a packet first corrects its coordinate in dimension 0, then 1,
  and so on, going the short way round a ring (the + direction when both ways are equally long),
  the way Blue Gene's deterministic routing does. Every host computes the next hop from
  (itself, destination) only, so the per-host static routes compose into these paths.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterator

HOST_NET = "10.77.0.0/16"
LINK_NET = "10.78.0.0/16"
MAX_HOSTS = 256
# A /30 per link inside 10.78.0.0/16 leaves room for 16384 links.
MAX_LINKS = 16384

TOPOLOGY_KINDS = ("switch", "ring", "line", "torus2d", "mesh2d", "torus3d", "mesh3d")


@dataclass(frozen=True)
class Topology:
    """Shape of an emulated cluster.

    Attributes
    ----------
    kind : str
        One of :data:`TOPOLOGY_KINDS`.
    dims : tuple of int
        Extent per dimension (``(N,)`` for switch, ring and line).
    wrap : tuple of bool
        Whether each dimension has its wrap-around link (torus) or not (mesh).
    """

    kind: str
    dims: tuple[int, ...]
    wrap: tuple[bool, ...]

    @property
    def n_hosts(self) -> int:
        """Number of hosts."""
        n = 1
        for d in self.dims:
            n *= d
        return n

    @property
    def is_switch(self) -> bool:
        """True when all hosts hang off one bridge (no point-to-point links, no forwarding)."""
        return self.kind == "switch"

    def describe(self) -> str:
        """Short text such as ``torus2d 4x4`` or ``switch 8``."""
        if self.kind in ("switch", "ring", "line"):
            return f"{self.kind} {self.dims[0]}"
        return f"{self.kind} {'x'.join(str(d) for d in self.dims)}"


@dataclass(frozen=True)
class Link:
    """A point-to-point link between host ``a`` and its + neighbour ``b`` in dimension ``dim``.

    ``index`` numbers the links 0..L-1 and chooses the link's /30 subnet.
    """

    index: int
    a: int
    b: int
    dim: int

    @property
    def iface_a(self) -> str:
        """Interface name on host ``a`` (towards + in ``dim``)."""
        return f"l{self.dim}p"

    @property
    def iface_b(self) -> str:
        """Interface name on host ``b`` (towards - in ``dim``)."""
        return f"l{self.dim}m"


def parse_topology(kind: str, shape: str | None = None, n_hosts: int | None = None) -> Topology:
    """Build a :class:`Topology` from command-line words.

    Parameters
    ----------
    kind : str
        ``switch``, ``ring``, ``line`` (need ``n_hosts``), or ``torus2d``/``mesh2d`` (shape
        ``AxB``), ``torus3d``/``mesh3d`` (shape ``AxBxC``).
    shape : str, optional
        Extents joined by ``x``, for the torus and mesh kinds.
    n_hosts : int, optional
        Number of hosts; required for switch/ring/line, and if given for a torus it must equal
        the product of the extents.

    Returns
    -------
    Topology

    Raises
    ------
    ValueError
        On an unknown kind, a malformed shape, or inconsistent sizes.
    """
    if kind not in TOPOLOGY_KINDS:
        raise ValueError(f"topology kind: expected one of {', '.join(TOPOLOGY_KINDS)}, got {kind!r}")
    if kind in ("switch", "ring", "line"):
        if shape is not None:
            # "ring 8" is accepted as a spelling of "--hosts 8".
            if not re.fullmatch(r"[0-9]+", shape):
                raise ValueError(f"topology {kind}: expected a host count after it, got {shape!r}")
            count = int(shape)
            if n_hosts is not None and n_hosts != count:
                raise ValueError(f"--hosts: {n_hosts} disagrees with '{kind} {shape}'")
            n_hosts = count
        if n_hosts is None:
            raise ValueError(f"--hosts: required for topology {kind}")
        _check_host_count(n_hosts, minimum=2 if kind != "switch" else 1)
        return Topology(kind, (n_hosts,), (kind == "ring",))
    want = 2 if kind.endswith("2d") else 3
    if shape is None or not re.fullmatch(r"[0-9]+(x[0-9]+)*", shape):
        raise ValueError(f"topology {kind}: expected a shape like {'x'.join(['4'] * want)}, got {shape!r}")
    dims = tuple(int(s) for s in shape.split("x"))
    if len(dims) != want:
        raise ValueError(f"topology {kind}: expected {want} extents, got {len(dims)} in {shape!r}")
    if any(d < 1 for d in dims):
        raise ValueError(f"topology {kind}: extents must be >= 1, got {shape!r}")
    topo = Topology(kind, dims, tuple(kind.startswith("torus") for _ in dims))
    _check_host_count(topo.n_hosts, minimum=2)
    if n_hosts is not None and n_hosts != topo.n_hosts:
        raise ValueError(f"--hosts: {n_hosts} disagrees with {kind} {shape} ({topo.n_hosts} hosts)")
    return topo


def _check_host_count(n: int, minimum: int) -> None:
    if not minimum <= n <= MAX_HOSTS:
        raise ValueError(f"number of hosts: expected {minimum}..{MAX_HOSTS}, got {n}")


def coords(host: int, dims: tuple[int, ...]) -> tuple[int, ...]:
    """C-order coordinates of ``host`` on a grid of extents ``dims``."""
    if not 0 <= host < _product(dims):
        raise ValueError(f"host: expected 0..{_product(dims) - 1}, got {host}")
    out = []
    for d in reversed(dims):
        out.append(host % d)
        host //= d
    return tuple(reversed(out))


def host_index(c: tuple[int, ...], dims: tuple[int, ...]) -> int:
    """Inverse of :func:`coords`."""
    if len(c) != len(dims) or any(not 0 <= x < d for x, d in zip(c, dims)):
        raise ValueError(f"coordinates: expected {len(dims)} values inside {dims}, got {c}")
    i = 0
    for x, d in zip(c, dims):
        i = i * d + x
    return i


def _product(dims: tuple[int, ...]) -> int:
    n = 1
    for d in dims:
        n *= d
    return n


def links(topo: Topology) -> list[Link]:
    """Every point-to-point link of a ring, line, torus or mesh (none for a switch).

    A dimension of extent 2 gets one link between its two hosts even when it wraps (the + and
    - neighbour are the same host; a second cable would double that pair's bandwidth, which a
    real 2-long torus dimension does not have either on the Blue Gene machines of [Jagode2008] and [Bhatele2012]).
    """
    if topo.is_switch:
        return []
    out: list[Link] = []
    for host in range(topo.n_hosts):
        c = coords(host, topo.dims)
        for dim, (extent, wraps) in enumerate(zip(topo.dims, topo.wrap)):
            if extent < 2:
                continue
            nxt = c[dim] + 1
            if nxt == extent:
                # The wrap-around link; for extent 2 it would duplicate the 0-1 link.
                if not wraps or extent == 2:
                    continue
                nxt = 0
            other = host_index(c[:dim] + (nxt,) + c[dim + 1:], topo.dims)
            out.append(Link(len(out), host, other, dim))
    if len(out) > MAX_LINKS:
        raise ValueError(f"topology {topo.describe()}: {len(out)} links, at most {MAX_LINKS} supported")
    return out


def host_address(host: int) -> str:
    """IPv4 address of ``host`` inside 10.77.0.0/16 (host 0 is 10.77.0.1)."""
    if not 0 <= host < MAX_HOSTS:
        raise ValueError(f"host: expected 0..{MAX_HOSTS - 1}, got {host}")
    n = host + 1
    return f"10.77.{n // 256}.{n % 256}"


def link_addresses(link: Link) -> tuple[str, str]:
    """Addresses of the ``a`` and ``b`` ends of ``link`` (a /30 inside 10.78.0.0/16)."""
    base = link.index * 4
    third, fourth = divmod(base, 256)
    return f"10.78.{third}.{fourth + 1}", f"10.78.{third}.{fourth + 2}"


def next_hop(topo: Topology, src: int, dst: int) -> int:
    """The neighbour of ``src`` that a packet for ``dst`` goes to under dimension-order routing.

    Raises
    ------
    ValueError
        If ``src == dst`` or the topology is a switch.
    """
    if topo.is_switch:
        raise ValueError("next_hop: a switch has no routes between hosts")
    if src == dst:
        raise ValueError(f"next_hop: src and dst are the same host ({src})")
    cs, cd = coords(src, topo.dims), coords(dst, topo.dims)
    for dim, (extent, wraps) in enumerate(zip(topo.dims, topo.wrap)):
        if cs[dim] == cd[dim]:
            continue
        if wraps:
            forward = (cd[dim] - cs[dim]) % extent
            step = 1 if forward <= extent - forward else -1
        else:
            step = 1 if cd[dim] > cs[dim] else -1
        nxt = (cs[dim] + step) % extent
        return host_index(cs[:dim] + (nxt,) + cs[dim + 1:], topo.dims)
    raise AssertionError("unreachable: coordinates differ but no dimension differs")


def path(topo: Topology, src: int, dst: int) -> list[int]:
    """Hosts visited from ``src`` to ``dst`` (both included) under dimension-order routing."""
    hops = [src]
    while hops[-1] != dst:
        hops.append(next_hop(topo, hops[-1], dst))
        if len(hops) > topo.n_hosts:
            raise AssertionError(f"routing loop from {src} to {dst}: {hops}")
    return hops


def neighbour_links(topo: Topology) -> dict[tuple[int, int], tuple[Link, str, str]]:
    """For every ordered neighbour pair (h, n): the link, h's interface and n's address on it."""
    table: dict[tuple[int, int], tuple[Link, str, str]] = {}
    for link in links(topo):
        addr_a, addr_b = link_addresses(link)
        table[(link.a, link.b)] = (link, link.iface_a, addr_b)
        table[(link.b, link.a)] = (link, link.iface_b, addr_a)
    return table


def routes(topo: Topology, host: int) -> Iterator[tuple[str, str, str]]:
    """Static routes of ``host``: (destination host address, next-hop address, interface)."""
    table = neighbour_links(topo)
    for dst in range(topo.n_hosts):
        if dst == host:
            continue
        hop = next_hop(topo, host, dst)
        _, iface, via = table[(host, hop)]
        yield host_address(dst), via, iface
