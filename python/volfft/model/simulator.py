"""Link-level flow simulator: route every message on minimal paths and add bytes per link.

Each directed link (node ``v``, dimension ``k``, direction +/-) collects the bytes of every
message routed over it. The exchange time is the most loaded link's bytes over the effective
link bandwidth (flows are fluid and all start together: a bandwidth bound that knows where
the traffic really goes, unlike the bisection model which assumes it spreads evenly over a
plane). Routing policies, all minimal:

``"dimension-ordered"``
    one fixed order of dimensions (default 0, 1, ..., d-1), as deterministic torus routers do;
``"adaptive"``
    each message split evenly over the ``d!`` dimension orders. Computed without enumerating
    orders: the hop along dimension ``k`` happens after the dimensions in ``S`` (already at
    the destination's coordinates) with probability ``|S|! (d-1-|S|)! / d!``;
``"all-paths"``
    each message split evenly over *all* its minimal lattice paths (the limit of a fully
    adaptive router choosing uniformly at every hop). Unlike the two above it concentrates
    traffic in the middle of a box: the hot spots [Jagode2008] suspects in the 64-cube.

Half-ring ties (displacement exactly ``n/2`` on an even ring) are split evenly both ways.
Everything is vectorised over messages and hops; the Python loops run over dimensions,
subsets of dimensions, and distinct displacement vectors only.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from .machine import Machine
from .traffic import Traffic, split_ties

ROUTINGS = ("dimension-ordered", "adaptive", "all-paths")
_CHUNK_HOPS = 4_000_000  # hops expanded at once: bounds memory to a few hundred MB


@dataclass(frozen=True)
class SimulationResult:
    """Per-link loads of one exchange.

    Attributes
    ----------
    loads:
        float64 array of shape ``dims + (ndim, 2)``: bytes over the link leaving each node
        along dimension ``k`` in the + (index 0) or - (index 1) direction.
    time:
        ``max(loads) / effective link bandwidth`` (seconds, no latency).
    routing:
        The routing policy used.
    byte_hops:
        Sum over messages of bytes x hops (equals ``loads.sum()``; a conservation check).
    """

    loads: np.ndarray
    time: float
    routing: str
    byte_hops: float

    @property
    def max_load(self) -> float:
        return float(self.loads.max()) if self.loads.size else 0.0

    def direction_loads(self, dim: int) -> np.ndarray:
        """Loads of links along ``dim``, both directions summed, shape ``dims``."""
        return self.loads[..., dim, :].sum(axis=-1)


def _strides(dims: Sequence[int]) -> np.ndarray:
    return np.array([int(np.prod(dims[k + 1:])) for k in range(len(dims))], dtype=np.int64)


def _add_segments(acc: np.ndarray, machine: Machine, base: np.ndarray, start: np.ndarray,
                  steps: np.ndarray, weight: np.ndarray, dim: int) -> None:
    """Add straight runs along ``dim`` to ``acc`` (flat link array).

    ``base`` is the linear node index without the ``dim`` component, ``start`` the coordinate
    along ``dim`` where the run starts, ``steps`` the signed run length.
    """
    keep = (steps != 0) & (weight != 0)
    if not keep.any():
        return
    base, start, steps, weight = base[keep], start[keep], steps[keep], weight[keep]
    n = machine.dims[dim]
    stride = int(np.prod(machine.dims[dim + 1:]))
    ndim = machine.ndim
    length = np.abs(steps)
    sign = np.sign(steps)
    direction = (steps < 0).astype(np.int64)
    ends = np.cumsum(length)
    begin = 0
    while begin < length.size:
        # Take as many runs as fit in one chunk of hops (at least one run).
        stop = int(np.searchsorted(ends, (ends[begin - 1] if begin else 0) + _CHUNK_HOPS,
                                   side="right"))
        stop = max(stop, begin + 1)
        sl = slice(begin, stop)
        lens = length[sl]
        total = int(lens.sum())
        run = np.repeat(np.arange(stop - begin), lens)
        first = np.cumsum(lens) - lens
        offset = np.arange(total, dtype=np.int64) - np.repeat(first, lens)
        coord = start[sl][run] + sign[sl][run] * offset
        if machine.wrap[dim]:
            coord = np.mod(coord, n)
        node = base[sl][run] + coord * stride
        link = (node * ndim + dim) * 2 + direction[sl][run]
        acc += np.bincount(link, weights=weight[sl][run], minlength=acc.size)
        begin = stop


def _order_subsets(ndim: int, dim: int, routing: str,
                   order: Sequence[int]) -> list[tuple[tuple[int, ...], float]]:
    """Sets of dimensions already traversed before ``dim``, with their probabilities."""
    if routing == "dimension-ordered":
        position = list(order).index(dim)
        return [(tuple(order[:position]), 1.0)]
    others = [j for j in range(ndim) if j != dim]
    subsets = []
    for size in range(len(others) + 1):
        prob = math.factorial(size) * math.factorial(ndim - 1 - size) / math.factorial(ndim)
        subsets.extend((combo, prob) for combo in itertools.combinations(others, size))
    return subsets


def _route_by_orders(acc: np.ndarray, machine: Machine, src: np.ndarray, dst: np.ndarray,
                     steps: np.ndarray, weight: np.ndarray, routing: str,
                     order: Sequence[int]) -> None:
    strides = _strides(machine.dims)
    for k in range(machine.ndim):
        for done, prob in _order_subsets(machine.ndim, k, routing, order):
            # Coordinates when the run along k starts: destination's in dimensions already
            # traversed, source's elsewhere.
            coords = src.copy()
            if done:
                coords[:, list(done)] = dst[:, list(done)]
            base = coords @ strides - coords[:, k] * strides[k]
            _add_segments(acc, machine, base, src[:, k], steps[:, k], weight * prob, k)


def _log_multinomial(counts: np.ndarray, log_fact: np.ndarray) -> np.ndarray:
    return log_fact[counts.sum(axis=-1)] - log_fact[counts].sum(axis=-1)


def _route_all_paths(acc: np.ndarray, machine: Machine, src: np.ndarray, steps: np.ndarray,
                     weight: np.ndarray) -> None:
    """Split each message evenly over all its minimal lattice paths (exact path counting).

    Messages with the same signed displacement ``s`` share one stencil: the share of their
    paths using the hop ``u -> u + e_k`` (``0 <= u <= |s|``) is ``N(u) N(|s| - u - e_k) / N(|s|)``
    with ``N`` the multinomial number of lattice paths. The loads are the circular convolution
    of each displacement's source-bytes field with its stencil, summed in Fourier space (one
    FFT per field and stencil, one inverse per link direction at the end). Open dimensions are
    zero-padded to twice their extent so that nothing wraps.
    """
    ndim = machine.ndim
    dims = tuple(machine.dims)
    padded = tuple(n if w else 2 * n for n, w in zip(dims, machine.wrap))
    size = int(np.prod(padded))
    hops = np.abs(steps)
    moving = hops.sum(axis=1) > 0
    src, steps, weight = src[moving], steps[moving], weight[moving]
    if not src.shape[0]:
        return
    log_fact = np.concatenate([[0.0], np.cumsum(np.log(np.arange(1, int(
        np.abs(steps).sum(axis=1).max()) + 2)))])
    src_index = np.ravel_multi_index(tuple(src.T), padded)
    shifts, inverse = np.unique(steps, axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    order = np.argsort(inverse, kind="stable")
    bounds = np.searchsorted(inverse[order], np.arange(shifts.shape[0] + 1))
    spectrum_shape = padded[:-1] + (padded[-1] // 2 + 1,)
    acc_hat = np.zeros((ndim, 2) + spectrum_shape, dtype=np.complex128)
    for g, shift in enumerate(shifts):
        members = order[bounds[g]:bounds[g + 1]]
        field = np.bincount(src_index[members], weights=weight[members], minlength=size)
        field_hat = np.fft.rfftn(field.reshape(padded))
        h = np.abs(shift)
        sign = np.sign(shift)
        cells = np.stack(np.unravel_index(np.arange(int(np.prod(h + 1))), tuple(h + 1)), axis=1)
        log_total = _log_multinomial(h[None, :], log_fact)[0]
        for k in range(ndim):
            if h[k] == 0:
                continue
            u = cells[cells[:, k] < h[k]]
            rest = h[None, :] - u
            rest[:, k] -= 1
            share = np.exp(_log_multinomial(u, log_fact) + _log_multinomial(rest, log_fact)
                           - log_total)
            stencil = np.zeros(padded)
            stencil[tuple(np.mod(sign * u, padded).T)] = share
            acc_hat[k, int(sign[k] < 0)] += field_hat * np.fft.rfftn(stencil)
    loads = acc.reshape(dims + (ndim, 2))
    crop = tuple(slice(0, n) for n in dims)
    for k in range(ndim):
        for d in range(2):
            # FFT round-off leaves tiny negative values where no path goes: clip them.
            loads[..., k, d] += np.clip(np.fft.irfftn(acc_hat[k, d], padded,
                                                      axes=tuple(range(ndim)))[crop], 0.0, None)


def simulate(machine: Machine, traffic: Traffic, routing: str = "adaptive",
             order: Sequence[int] | None = None, ties: str = "split") -> SimulationResult:
    """Route one exchange's messages and return the per-link loads.

    Parameters
    ----------
    machine:
        The network.
    traffic:
        Messages with node coordinates (messages inside a node use no link).
    routing:
        ``"dimension-ordered"``, ``"adaptive"`` or ``"all-paths"`` (see module docstring).
    order:
        Dimension order for ``"dimension-ordered"`` (default 0, 1, ..., d-1).
    ties:
        ``"split"`` (default): half-ring ties go both ways, half the bytes each;
        ``"positive"``: always the + way (a sensitivity check for antipodal traffic).
    """
    if routing not in ROUTINGS:
        raise ValueError(f"routing: expected one of {ROUTINGS}, got {routing!r}")
    order = tuple(range(machine.ndim)) if order is None else tuple(int(k) for k in order)
    if sorted(order) != list(range(machine.ndim)):
        raise ValueError(f"order: expected a permutation of 0..{machine.ndim - 1}, got {order}")
    moving = traffic.between_nodes()
    acc = np.zeros(machine.nodes * machine.ndim * 2)
    byte_hops = 0.0
    if moving.size:
        index, steps, share = split_ties(machine, moving, ties)
        weight = moving.nbytes[index] * share
        byte_hops = float((weight * np.abs(steps).sum(axis=1)).sum())
        src = moving.src_coords[index]
        if routing == "all-paths":
            _route_all_paths(acc, machine, src, steps, weight)
        else:
            dst = src + steps  # unwrapped: only the coordinates of dimensions done are read
            dst = np.where(np.asarray(machine.wrap), np.mod(dst, machine.dims), dst)
            _route_by_orders(acc, machine, src, dst, steps, weight, routing, order)
    loads = acc.reshape(tuple(machine.dims) + (machine.ndim, 2))
    time = float(loads.max()) / machine.effective_link_bandwidth if loads.size else 0.0
    return SimulationResult(loads=loads, time=time, routing=routing, byte_hops=byte_hops)
