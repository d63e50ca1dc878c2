"""Routing and addressing rules of the emulated cluster (pure: no root, no namespaces).

Expected values are derived from the definitions (torus distance, dimension order), not from
the implementation's output.
"""
from __future__ import annotations

import ipaddress
import itertools
import pytest

from tools.vcluster import topology as T


def ring_distance(a: int, b: int, n: int, wrap: bool) -> int:
    d = abs(a - b)
    return min(d, n - d) if wrap else d


def minimal_hops(topo: T.Topology, s: int, d: int) -> int:
    cs, cd = T.coords(s, topo.dims), T.coords(d, topo.dims)
    return sum(ring_distance(x, y, n, w) for x, y, n, w in zip(cs, cd, topo.dims, topo.wrap))


TOPOLOGIES = [
    T.parse_topology("ring", n_hosts=5),
    T.parse_topology("ring", n_hosts=4),
    T.parse_topology("line", n_hosts=4),
    T.parse_topology("torus2d", "4x4"),
    T.parse_topology("mesh2d", "4x4"),
    T.parse_topology("torus2d", "2x4"),
    T.parse_topology("torus3d", "2x2x2"),
    T.parse_topology("torus3d", "3x2x4"),
    T.parse_topology("mesh3d", "2x3x2"),
]


@pytest.mark.parametrize("topo", TOPOLOGIES, ids=lambda t: t.describe())
def test_paths_are_minimal_neighbour_walks_in_dimension_order(topo):
    linked = {(l.a, l.b) for l in T.links(topo)} | {(l.b, l.a) for l in T.links(topo)}
    for s, d in itertools.permutations(range(topo.n_hosts), 2):
        hops = T.path(topo, s, d)
        assert hops[0] == s and hops[-1] == d
        assert len(hops) - 1 == minimal_hops(topo, s, d), (s, d, hops)
        dims_moved = []
        for a, b in zip(hops, hops[1:]):
            assert (a, b) in linked, f"{a}->{b} is not a link"
            ca, cb = T.coords(a, topo.dims), T.coords(b, topo.dims)
            changed = [k for k in range(len(ca)) if ca[k] != cb[k]]
            assert len(changed) == 1
            dims_moved.append(changed[0])
        # Dimension order: once a dimension is left, it is never moved along again.
        assert dims_moved == sorted(dims_moved), (s, d, hops)


def test_half_ring_ties_go_the_positive_way():
    ring = T.parse_topology("ring", n_hosts=4)
    assert T.path(ring, 0, 2) == [0, 1, 2]
    assert T.path(ring, 2, 0) == [2, 3, 0]
    assert T.path(ring, 3, 1) == [3, 0, 1]


def test_mesh_line_never_uses_a_wrap_link():
    line = T.parse_topology("line", n_hosts=4)
    assert T.path(line, 3, 0) == [3, 2, 1, 0]
    assert len(T.links(line)) == 3


@pytest.mark.parametrize("kind,shape,expected", [
    ("torus2d", "4x4", 2 * 16),          # two links per host
    ("mesh2d", "4x4", 2 * 4 * 3),        # 4 rows and 4 columns of 3 links
    ("torus3d", "2x2x2", 3 * 4),         # extent 2: one link per pair, 4 pairs per dimension
    ("torus2d", "2x4", 4 + 2 * 4),       # 4 single links in dim 0, two rings of 4 in dim 1
    ("torus3d", "3x3x3", 3 * 27),
])
def test_link_counts(kind, shape, expected):
    assert len(T.links(T.parse_topology(kind, shape))) == expected


@pytest.mark.parametrize("topo", TOPOLOGIES, ids=lambda t: t.describe())
def test_routes_cover_every_other_host_through_own_interfaces(topo):
    table = T.neighbour_links(topo)
    for h in range(topo.n_hosts):
        own = {iface for (a, _), (_, iface, _) in table.items() if a == h}
        routes = list(T.routes(topo, h))
        assert sorted(dst for dst, _, _ in routes) == sorted(
            T.host_address(d) for d in range(topo.n_hosts) if d != h)
        assert {iface for _, _, iface in routes} <= own


def test_addresses_are_unique_and_inside_the_private_ranges():
    topo = T.parse_topology("torus3d", "4x4x4")
    hosts = [ipaddress.ip_address(T.host_address(h)) for h in range(topo.n_hosts)]
    assert len(set(hosts)) == len(hosts)
    assert all(a in ipaddress.ip_network(T.HOST_NET) for a in hosts)
    ends = [ipaddress.ip_address(x) for l in T.links(topo) for x in T.link_addresses(l)]
    assert len(set(ends)) == len(ends)
    assert all(a in ipaddress.ip_network(T.LINK_NET) for a in ends)
    # Both ends of a link share one /30.
    for l in T.links(topo):
        a, b = T.link_addresses(l)
        assert ipaddress.ip_interface(f"{a}/30").network == ipaddress.ip_interface(f"{b}/30").network


def test_coords_round_trip_in_c_order():
    dims = (2, 3, 4)
    assert T.coords(1, dims) == (0, 0, 1)       # last dimension fastest
    assert T.coords(4, dims) == (0, 1, 0)
    for h in range(24):
        assert T.host_index(T.coords(h, dims), dims) == h


@pytest.mark.parametrize("args,message", [
    (("hypercube", None, 4), "topology kind"),
    (("torus2d", "4x4x4", None), "expected 2 extents"),
    (("torus3d", "4-4-4", None), "shape like"),
    (("switch", None, None), "--hosts"),
    (("ring", None, 1), "number of hosts"),
    (("torus2d", "4x4", 8), "disagrees"),
    (("switch", None, 1000), "number of hosts"),
])
def test_bad_topologies_name_the_argument(args, message):
    with pytest.raises(ValueError, match=message):
        T.parse_topology(*args)


def test_switch_has_no_links_or_routes():
    sw = T.parse_topology("switch", n_hosts=4)
    assert T.links(sw) == []
    with pytest.raises(ValueError, match="switch"):
        T.next_hop(sw, 0, 1)
