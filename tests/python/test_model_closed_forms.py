"""All-to-all on a p-ring, a p x p torus plane and a p^3 torus volume: the simulator, the bisection
model and the [Eleftheriou2005] bound against [Eleftheriou2005]'s closed form T = V * N_hops / (N_links * BW * f).

Each node sends ``s`` bytes to every other node. [Eleftheriou2005] counts ``V_received = p^d * s`` (its
``N_hops`` averages over all p^d destinations, the node itself included), N_hops = p/4, p/2,
3p/4 and N_links = 2, 4, 6 for a line, plane, volume.
"""
from __future__ import annotations

import numpy as np
import pytest

from volfft.model import (ArrayPlacement, Machine, alltoall_bound, bisection_time,
                          closed_form_time, exchange_traffic, resolve_placement, simulate)

BANDWIDTH = 1.0e9
S = 4096.0  # bytes per ordered pair


def all_to_all(dims, wrap=True, nodes_shape=None):
    """Machine of ``dims`` and an all-to-all among the nodes of the box ``nodes_shape``."""
    machine = Machine(name="t", dims=dims, wrap=(wrap,) * len(dims), link_bandwidth=BANDWIDTH)
    box = nodes_shape or dims
    coords = np.stack(np.unravel_index(np.arange(int(np.prod(box))), box), axis=1)
    n = coords.shape[0]
    src, dst = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    keep = src != dst
    msgs = np.stack([src[keep], dst[keep], np.full(keep.sum(), int(S))], axis=1)
    placed = resolve_placement(ArrayPlacement(coords.astype(np.int64)), machine, n)
    return machine, exchange_traffic(msgs, placed), n


CASES = [("line", (8,)), ("line", (6,)), ("plane", (4, 4)), ("plane", (6, 6)),
         ("volume", (4, 4, 4))]


@pytest.mark.parametrize("kind,dims", CASES, ids=str)
def test_simulator_matches_eleftheriou2005_closed_form(kind, dims):
    machine, traffic, n = all_to_all(dims)
    expected = closed_form_time(kind, dims[0], n * S, BANDWIDTH)
    for routing in ("dimension-ordered", "adaptive", "all-paths"):
        result = simulate(machine, traffic, routing)
        assert result.time == pytest.approx(expected, rel=1e-9), routing
        # Symmetry: every directed link carries the same bytes.
        assert result.loads.min() == pytest.approx(result.loads.max(), rel=1e-9), routing


@pytest.mark.parametrize("kind,dims", CASES, ids=str)
def test_bisection_and_bound_match_closed_form(kind, dims):
    machine, traffic, n = all_to_all(dims)
    expected = closed_form_time(kind, dims[0], n * S, BANDWIDTH)
    assert bisection_time(machine, traffic).time == pytest.approx(expected, rel=1e-9)
    assert alltoall_bound(machine, traffic, n).time == pytest.approx(expected, rel=1e-9)


def test_closed_form_values():
    # [Eleftheriou2005]: the dimensionality cancels: p/4 over 2, p/2 over 4, 3p/4 over 6.
    for kind in ("line", "plane", "volume"):
        assert closed_form_time(kind, 8, 1000.0, 1.0) == pytest.approx(1000.0)
    assert closed_form_time("line", 8, 1000.0, 1.0, utilization=0.8) == pytest.approx(1250.0)
    with pytest.raises(ValueError, match="kind"):
        closed_form_time("cube", 8, 1.0, 1.0)


def test_mesh_line_is_twice_the_ring():
    # [Eleftheriou2005]'s remark: mesh bandwidth is half the torus's. Centre link of an open line of p:
    # (p/2)^2 pairs each way.
    p = 8
    machine, traffic, _ = all_to_all((p,), wrap=False)
    result = simulate(machine, traffic, "dimension-ordered")
    assert result.max_load == pytest.approx((p // 2) ** 2 * S)
    assert bisection_time(machine, traffic).time == pytest.approx(result.time)
    ring, ring_traffic, _ = all_to_all((p,), wrap=True)
    assert result.time == pytest.approx(2 * simulate(ring, ring_traffic).time)


def test_conservation_of_byte_hops():
    machine, traffic, _ = all_to_all((4, 6, 5), nodes_shape=(3, 4, 5))
    for routing in ("dimension-ordered", "adaptive", "all-paths"):
        result = simulate(machine, traffic, routing)
        assert result.loads.sum() == pytest.approx(result.byte_hops, rel=1e-9)
