"""The plan description in the form volfft.model reads (docs/model.md).

The C++ core already describes a plan in the user's axes and grid (a 2-D array has axes 0 and
1 and the slab grid P x 1); this module splits it into one stage per transformed axis and
counts each rank's FFTs. The per-rank element counts between exchanges are derived from the
messages themselves (what a rank keeps = what it held - what it sent + what it received), so
nothing about the decomposition is recomputed here.
"""
from __future__ import annotations

from typing import Any, Dict, List

import numpy as np

# The exchange that must precede the first FFT along an axis (DESIGN.md's pipeline: in 3-D the
# row exchange completes axis 1 and the column exchange axis 0; a 2-D plan's one exchange, down
# the column of its P x 1 grid, completes axis 0).
_EXCHANGE_COMPLETING_AXIS = {3: {1: "row", 0: "column"}, 2: {0: "column"}}


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
        ``shape`` (user axes), ``kind``, ``precision``, ``element_bytes`` (one element: complex, real for r2r),
        ``grid`` (user grid), ``engine``, ``layout``, ``exchanges`` ([{"name", "messages"}],
        messages int64 (M, 3): source, destination, bytes, virtual ranks ``g = i * p1 + j``),
        ``stages`` ([{"axis", "length", "count_per_rank", "kind"}], one per transformed axis in
        forward order; ``count_per_rank`` int64 (P,) 1-D transforms of ``length`` points, every
        field of a batch; ``kind`` "c2c", "r2c" or the r2r kind),
        ``fields`` (what every element carries: the batch's fields; a plan of more than 3 axes
        is described as the plan of its first three, whose fields are the trailing axes' values
        times the batch), ``pack_bytes_per_rank`` (one int64 (P,) array per exchange: bytes each
        rank holds when it starts, every field), ``input_boxes``/``output_boxes`` (int64 (P, 2, ndim), user axes) and
        ``input_order``/``output_order`` (user axes, slowest to fastest), and ``reshapes``
        ([{"name", "messages"}] as ``exchanges``: a plan on user arrays' "reshape_in" before the
        first stage and "reshape_out" after the last; empty otherwise).
    """
    ndim = int(raw["ndim"])
    last = ndim - 1
    shape = [int(n) for n in raw["shape"]]
    kind = raw["kind"]
    element_bytes = int(raw["element_bytes"])
    # A batched plan's messages carry every field: the elements a rank holds are per field.
    fields = int(raw.get("fields", 1))
    # (P, 2, 3) boxes; a 2-D plan's third axis is the unused [0, 1).
    input_boxes = np.asarray(raw["input_boxes"], dtype=np.int64).reshape(-1, 2, 3)[:, :, :ndim]
    output_boxes = np.asarray(raw["output_boxes"], dtype=np.int64).reshape(-1, 2, 3)[:, :, :ndim]
    nranks = input_boxes.shape[0]
    last_complex = shape[last] // 2 + 1 if kind == "r2c" else shape[last]

    # Elements each rank holds after its first stage: the input box, for r2c with the last axis
    # (whole in an r2c input) at its complex length. (A c2c or r2r plan whose untransformed axes
    # were put first may split the last axis: its extent counts.)
    extents = np.maximum(input_boxes[:, 1, :] - input_boxes[:, 0, :], 0)
    last_extent = np.where(extents[:, last] > 0, last_complex, 0) if kind == "r2c" else extents[:, last]
    held = np.prod(extents[:, :last], axis=1) * last_extent

    exchanges = [{"name": str(e["name"]),
                  "messages": np.asarray(e["messages"], dtype=np.int64).reshape(-1, 3)}
                 for e in raw["exchanges"]]
    pending = {e["name"]: e for e in exchanges}
    pack_bytes: List[np.ndarray] = []
    stages: List[Dict[str, Any]] = []
    completing = _EXCHANGE_COMPLETING_AXIS[ndim]
    for stage in raw["stages"]:
        kinds = list(stage.get("kinds", [])) or ["dft"] * len(stage["axes"])
        for axis, axis_kind in zip(stage["axes"], kinds):
            # Every exchange that completes this axis or one before it in the forward order (a
            # higher axis): an axis of kind "none" has no stage, but its exchange still happens.
            for done_axis in sorted((a for a in completing if a >= axis), reverse=True):
                exchange = pending.pop(completing[done_axis], None)
                if exchange is not None:
                    pack_bytes.append(held * element_bytes * fields)
                    held = held + _net_received(exchange["messages"], nranks) // (element_bytes * fields)
            length = shape[axis]
            real = bool(stage["real"]) and axis == last
            # A real stage reads n reals and writes n/2+1 complexes per line; lines = held/(n/2+1).
            per_line = last_complex if axis == last else length
            stages.append({
                "axis": axis,
                "length": length,
                "count_per_rank": (held // per_line if per_line else np.zeros_like(held)) * fields,
                "kind": "r2c" if real else ("c2c" if axis_kind == "dft" else axis_kind),
            })
    # Exchanges after the last transformed axis (the axes after it all "none").
    for done_axis in sorted(completing, reverse=True):
        exchange = pending.pop(completing[done_axis], None)
        if exchange is not None:
            pack_bytes.append(held * element_bytes * fields)
            held = held + _net_received(exchange["messages"], nranks) // (element_bytes * fields)
    if pending:
        raise RuntimeError(  # a core change this module does not know about: fail loudly
            f"volfft: cannot place exchanges {sorted(pending)} in the plan's stages")
    # A padded plan's stages truncate their axes, so its output boxes are smaller than what the
    # last exchange delivers (the stage counts above are those of the full lines it transforms).
    if not raw.get("padded", False) and not np.array_equal(held, _sizes(output_boxes)):
        raise RuntimeError("volfft: plan description is inconsistent: the elements after the "
                           "last exchange do not match the output boxes")

    return {
        "shape": tuple(shape),
        "kind": kind,
        "precision": raw["precision"],
        "element_bytes": element_bytes,
        "fields": fields,
        "grid": tuple(int(p) for p in raw["grid"]),
        "engine": raw["engine"],
        "layout": raw["layout"],
        "exchanges": exchanges,
        "stages": stages,
        "pack_bytes_per_rank": pack_bytes,
        "input_boxes": input_boxes,
        "output_boxes": output_boxes,
        "input_order": [int(a) for a in raw["input_order"]],
        "output_order": [int(a) for a in raw["output_order"]],
        "reshapes": [{"name": str(e["name"]),
                      "messages": np.asarray(e["messages"], dtype=np.int64).reshape(-1, 3)}
                     for e in raw.get("reshapes", [])],
    }
