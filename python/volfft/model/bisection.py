"""[Jagode2008]'s bisection model (section 4, eqs. 4-16), generalised to any placement.

For every network direction ``k`` and every cut plane orthogonal to it (between layers ``c``
and ``c+1``; a ring has ``n_k`` such planes, wrap-around included, an open line ``n_k - 1``),
add the bytes whose *minimal* route along ``k`` must cross that plane, separately for each
crossing direction (half-ring ties are split evenly between the two ways round). Dividing by
the links that cross the plane in that direction gives a time; the largest over planes and
directions is ``t_k``, and the exchange cannot be faster than ``max_k t_k`` (eq. 15).

The links that cross a plane are those whose other coordinates a dimension-ordered minimal
route of this exchange can occupy: the product, over the other dimensions, of the number of
distinct coordinates the exchange's endpoints use. For placements that fill the machine
([Jagode2008]) this is the plane's area ``A_k``; for a lone group of nodes ([Bhatele2012] Fig. 1) it is the
group's own cross-section.

On placements with [Jagode2008]'s translation symmetries this reproduces eqs. (7), (12), (13)
exactly: ``t_k = m_k D_T / (4 P B_l)`` with ``m_k = n_k / g_t``, ``n_k / f_k`` or 0. The
``m_k`` are recovered from the computed times by :func:`m_numbers`, never typed in.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .machine import Machine
from .traffic import Traffic, minimal_steps, tie_mask


@dataclass(frozen=True)
class BisectionResult:
    """Per-direction bisection times of one exchange.

    Attributes
    ----------
    time:
        ``max_k t_k`` in seconds (network part only, no latency).
    time_per_dim:
        ``t_k`` for each network dimension.
    plane_bytes:
        Per dimension, float array (planes, 2): bytes crossing each plane in the + and -
        direction.
    links_per_plane:
        Per dimension, the number of links crossing one plane in one direction.
    """

    time: float
    time_per_dim: np.ndarray
    plane_bytes: list
    links_per_plane: np.ndarray


def _interval_sums(n: int, start: np.ndarray, length: np.ndarray, weight: np.ndarray,
                   wrap: bool) -> np.ndarray:
    """Sum of ``weight`` over the plane intervals ``[start, start+length)`` (mod n if wrap)."""
    end = start + length
    if wrap:
        over = end > n
        idx = np.concatenate([start, np.where(over, n, end), np.zeros(over.sum(), np.int64),
                              end[over] - n])
        val = np.concatenate([weight, -weight, weight[over], -weight[over]])
    else:
        idx = np.concatenate([start, end])
        val = np.concatenate([weight, -weight])
    diff = np.bincount(idx, weights=val, minlength=n + 1)
    return np.cumsum(diff)[:n]


def bisection_time(machine: Machine, traffic: Traffic) -> BisectionResult:
    """Bisection-bandwidth lower bound of one exchange's network time ([Jagode2008] eq. 15).

    Parameters
    ----------
    machine:
        Network (dims, wrap) and effective link bandwidth.
    traffic:
        The exchange's messages with node coordinates (messages inside a node are ignored).
    """
    moving = traffic.between_nodes()
    bandwidth = machine.effective_link_bandwidth
    ndim = machine.ndim
    times = np.zeros(ndim)
    plane_bytes: list = []
    links = np.zeros(ndim, dtype=np.int64)
    if moving.size:
        endpoints = np.concatenate([moving.src_coords, moving.dst_coords])
        span = np.array([np.unique(endpoints[:, j]).size for j in range(ndim)], dtype=np.int64)
    else:
        span = np.ones(ndim, dtype=np.int64)
    for k in range(ndim):
        n = machine.dims[k]
        wrap = machine.wrap[k]
        links[k] = int(np.prod(np.delete(span, k)))
        src = moving.src_coords[:, k]
        steps = minimal_steps(machine, src, moving.dst_coords[:, k], k)
        weight = moving.nbytes.copy()
        tie = tie_mask(machine, steps, k)
        weight[tie] *= 0.5
        # Ties go both ways: append the mirrored half as extra (start, step) pairs.
        src = np.concatenate([src, src[tie]])
        steps = np.concatenate([steps, -steps[tie]])
        weight = np.concatenate([weight, weight[tie]])
        loads = np.zeros((n, 2))
        plus = steps > 0
        minus = steps < 0
        # Plane c lies between layers c and c+1; a + route from s of length L crosses
        # planes s..s+L-1, a - route from s crosses planes s-L..s-1.
        loads[:, 0] = _interval_sums(n, src[plus], steps[plus], weight[plus], wrap)
        start = src[minus] + steps[minus]
        if wrap:
            start = np.mod(start, n)
        loads[:, 1] = _interval_sums(n, start, -steps[minus], weight[minus], wrap)
        if not wrap:
            loads = loads[: max(n - 1, 0)]
        plane_bytes.append(loads)
        if loads.size:
            times[k] = loads.max() / (links[k] * bandwidth)
    return BisectionResult(time=float(times.max()) if ndim else 0.0, time_per_dim=times,
                           plane_bytes=plane_bytes, links_per_plane=links)


def m_numbers(result: BisectionResult, machine: Machine, total_bytes: float) -> np.ndarray:
    """[Jagode2008]'s effective image lengths ``m_k`` (eq. 16) recovered from computed times.

    ``t_k = m_k D_T / (4 P B_l)`` with ``P`` the number of nodes and ``D_T`` the bytes of the
    whole array, so ``m_k = 4 P B_l t_k / D_T``.
    """
    if total_bytes <= 0:
        raise ValueError(f"total_bytes: expected > 0, got {total_bytes}")
    return result.time_per_dim * 4.0 * machine.nodes * machine.effective_link_bandwidth / total_bytes


def eq16_time(m: float, total_bytes: float, nodes: int, link_bandwidth: float) -> float:
    """[Jagode2008] eq. (16): ``t = m D_T / (4 P B_l)``."""
    return m * total_bytes / (4.0 * nodes * link_bandwidth)
