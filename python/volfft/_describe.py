"""The plan description in the form volfft.model reads (docs/model.md).

The C++ core describes a plan in its internal 3-D coordinates (a 2-D array (n0, n1) is
(1, n0, n1)); this module only re-expresses that description in the user's axes, one stage per
transformed axis, and counts each rank's FFTs. The per-rank element counts between exchanges
are derived from the messages themselves (what a rank keeps = what it held - what it sent +
what it received), so nothing about the decomposition is recomputed here.
"""
from __future__ import annotations

from typing import Any, Dict, List

import numpy as np

# The exchange that must precede the first FFT along an internal axis (DESIGN.md's pipeline:
# the row exchange completes axis 1, the column exchange completes axis 0).
_EXCHANGE_COMPLETING_AXIS = {1: "row", 0: "column"}


def _sizes(boxes: np.ndarray) -> np.ndarray:
    """Elements of each (P, 2, 3) box."""
    return np.prod(np.maximum(boxes[:, 1, :] - boxes[:, 0, :], 0), axis=1).astype(np.int64)


def _net_received(messages: np.ndarray, nranks: int) -> np.ndarray:
    """Bytes received minus bytes sent, per virtual rank."""
    received = np.bincount(messages[:, 1], weights=messages[:, 2], minlength=nranks)
    sent = np.bincount(messages[:, 0], weights=messages[:, 2], minlength=nranks)
    return np.rint(received - sent).astype(np.int64)


def model_description(raw: Dict[str, Any]) -> Dict[str, Any]:
    """Convert the binding's raw PlanDescription dict into the model's contract.

    Parameters
    ----------
    raw : dict
        What ``volfft._volfft.describe`` or ``Plan.description`` return.

    Returns
    -------
    dict
        ``shape`` (user axes), ``kind``, ``precision``, ``element_bytes`` (one complex element),
        ``grid`` (user grid), ``engine``, ``layout``, ``exchanges`` ([{"name", "messages"}],
        messages int64 (M, 3): source, destination, bytes, virtual ranks ``g = i * p1 + j``),
        ``stages`` ([{"axis", "length", "count_per_rank", "kind"}], one per transformed axis in
        forward order; ``count_per_rank`` int64 (P,) 1-D transforms of ``length`` points),
        ``pack_bytes_per_rank`` (one int64 (P,) array per exchange: bytes each rank holds when
        it starts), ``input_boxes``/``output_boxes`` (int64 (P, 2, ndim), user axes) and
        ``input_order``/``output_order`` (user axes, slowest to fastest).
    """
    ndim = int(raw["ndim"])
    offset = 3 - ndim  # internal axis a is user axis a - offset
    internal_shape = [int(n) for n in raw["shape"]]
    kind = raw["kind"]
    element_bytes = int(raw["complex_bytes"])
    input_boxes = np.asarray(raw["input_boxes"], dtype=np.int64).reshape(-1, 2, 3)
    output_boxes = np.asarray(raw["output_boxes"], dtype=np.int64).reshape(-1, 2, 3)
    nranks = input_boxes.shape[0]
    last_complex = internal_shape[2] // 2 + 1 if kind == "r2c" else internal_shape[2]

    # Complex elements each rank holds after the first (r2c or c2c) transform of axis 2, which
    # the input has whole: the input box with axis 2 at its complex length.
    extents = np.maximum(input_boxes[:, 1, :] - input_boxes[:, 0, :], 0)
    held = extents[:, 0] * extents[:, 1] * np.where(extents[:, 2] > 0, last_complex, 0)

    exchanges = [{"name": str(e["name"]),
                  "messages": np.asarray(e["messages"], dtype=np.int64).reshape(-1, 3)}
                 for e in raw["exchanges"]]
    pending = {e["name"]: e for e in exchanges}
    pack_bytes: List[np.ndarray] = []
    stages: List[Dict[str, Any]] = []
    for stage in raw["stages"]:
        for axis in stage["axes"]:
            exchange = pending.pop(_EXCHANGE_COMPLETING_AXIS.get(axis, ""), None)
            if exchange is not None:
                pack_bytes.append(held * element_bytes)
                held = held + _net_received(exchange["messages"], nranks) // element_bytes
            length = internal_shape[axis]
            if axis < offset:
                continue  # the length-1 leading axis of a 2-D array: no transform
            real = bool(stage["real"]) and axis == 2
            # A real stage reads n reals and writes n/2+1 complexes per line; lines = held/(n/2+1).
            per_line = last_complex if axis == 2 else length
            stages.append({
                "axis": axis - offset,
                "length": length,
                "count_per_rank": held // per_line if per_line else np.zeros_like(held),
                "kind": "r2c" if real else "c2c",
            })
    if pending:
        raise RuntimeError(  # a core change this module does not know about: fail loudly
            f"volfft: cannot place exchanges {sorted(pending)} in the plan's stages")
    if not np.array_equal(held, _sizes(output_boxes)):
        raise RuntimeError("volfft: plan description is inconsistent: the elements after the "
                           "last exchange do not match the output boxes")

    def user_orders(order: List[int]) -> List[int]:
        return [a - offset for a in order if a >= offset]

    p0, p1 = (int(p) for p in raw["grid"])
    return {
        "shape": tuple(internal_shape[offset:]),
        "kind": kind,
        "precision": raw["precision"],
        "element_bytes": element_bytes,
        # 2-D plans run internally on a 1 x P grid; the user sees the slab grid P x 1. The
        # virtual rank numbers g are the same in both.
        "grid": (p0 * p1, 1) if ndim == 2 else (p0, p1),
        "engine": raw["engine"],
        "layout": raw["layout"],
        "exchanges": exchanges,
        "stages": stages,
        "pack_bytes_per_rank": pack_bytes,
        "input_boxes": input_boxes[:, :, offset:],
        "output_boxes": output_boxes[:, :, offset:],
        "input_order": user_orders(raw["input_order"]),
        "output_order": user_orders(raw["output_order"]),
    }
