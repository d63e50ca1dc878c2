"""TEST FIXTURE: a pure-Python stand-in for ``volfft.describe`` (the C++ core's plan description).

This is NOT part of the library. volfft.model takes the description as input and the lead wires
``volfft.describe`` from the C++ core; until then the model's tests (and offline runs of
``python3 -m benchmarks.model.validate --describe test_model_describe_fixture:describe``) use it,
written from the contract in docs/model.md:

* block distribution: ``q, r = divmod(n, p)``, the first ``r`` parts get ``q + 1``;
* pencil forward: rank (i, j) holds ``[box0(i), box1(j), all n2]``; the row exchange (p1 ranks
  sharing i) makes axis 1 whole and distributes axis 2 over p1; the column exchange (p0 ranks
  sharing j) makes axis 0 whole and distributes axis 1 over p0;
* slab (p1 == 1) and 2-D: one exchange (named "column", as the library names it) that makes
  axis 0 whole and distributes axis 1 over p0;
* message bytes = product of overlapping extents x element_bytes (r2c: n2//2 + 1 complex);
* like the library, exchanges inside groups of one rank are left out.

The tests at the bottom check the fixture's own bookkeeping (conservation of data).
"""
from __future__ import annotations

import numpy as np


def block_sizes(n: int, p: int) -> np.ndarray:
    """Extents of the p blocks of n points (first r blocks get q + 1)."""
    q, r = divmod(n, p)
    return np.array([q + 1 if k < r else q for k in range(p)], dtype=np.int64)


def _pairs(sizes_src: np.ndarray, sizes_dst: np.ndarray, fixed: np.ndarray):
    """Messages src -> dst inside one group, bytes = sizes_src[s] * sizes_dst[d] * fixed."""
    return np.outer(sizes_src * fixed, sizes_dst)


def describe(shape, grid=(1, 1), kind="c2c", element_bytes=16, dtype=None):
    """Plan description dict (see docs/model.md) for a forward transform. TEST FIXTURE ONLY.

    ``dtype`` complex64/float32 means single precision (8-byte complex elements).
    """
    if dtype is not None:
        element_bytes = 8 if np.dtype(dtype) in (np.complex64, np.float32) else 16
    shape = tuple(int(n) for n in shape)
    p0, p1 = (int(p) for p in grid)
    P = p0 * p1
    last = shape[-1] // 2 + 1 if kind == "r2c" else shape[-1]
    exchanges = []
    stages = []
    if len(shape) == 3 and p1 > 1:
        n0, n1, _ = shape
        b0, b1 = block_sizes(n0, p0), block_sizes(n1, p1)
        c2 = block_sizes(last, p1)           # axis 2 over p1 after the row exchange
        c1 = block_sizes(n1, p0)             # axis 1 over p0 after the column exchange
        i, j = np.divmod(np.arange(P), p1)
        # Row exchange: (i, j) -> (i, jj) carries box0(i) x box1(j) x box2_p1(jj).
        g, jj = np.meshgrid(np.arange(P), np.arange(p1), indexing="ij")
        g, jj = g.ravel(), jj.ravel()
        row = np.stack([g, i[g] * p1 + jj, b0[i[g]] * b1[j[g]] * c2[jj] * element_bytes], axis=1)
        # Column exchange: (i, j) -> (ii, j) carries box0(i) x box1_p0(ii) x box2_p1(j).
        g, ii = np.meshgrid(np.arange(P), np.arange(p0), indexing="ij")
        g, ii = g.ravel(), ii.ravel()
        col = np.stack([g, ii * p1 + j[g], b0[i[g]] * c1[ii] * c2[j[g]] * element_bytes], axis=1)
        row = row[(row[:, 0] != row[:, 1]) & (row[:, 2] > 0)]
        col = col[(col[:, 0] != col[:, 1]) & (col[:, 2] > 0)]
        exchanges = [{"name": "row", "messages": row.astype(np.int64)},
                     {"name": "column", "messages": col.astype(np.int64)}]
        stages = [
            {"axis": 2, "length": shape[2], "count_per_rank": b0[i] * b1[j], "kind": kind},
            {"axis": 1, "length": n1, "count_per_rank": b0[i] * c2[j], "kind": "c2c"},
            {"axis": 0, "length": n0, "count_per_rank": c1[i] * c2[j], "kind": "c2c"},
        ]
    else:
        if p1 != 1:
            raise ValueError("fixture: 2-D shapes take a slab grid (p0, 1)")
        n0, n1 = shape[0], shape[1]
        rest = last if len(shape) == 3 else 1
        b0 = block_sizes(n0, p0)
        c1 = block_sizes(n1 if len(shape) == 3 else last, p0)
        g, d = np.meshgrid(np.arange(P), np.arange(P), indexing="ij")
        g, d = g.ravel(), d.ravel()
        msgs = np.stack([g, d, b0[g] * c1[d] * rest * element_bytes], axis=1)
        msgs = msgs[(g != d) & (msgs[:, 2] > 0)]
        exchanges = [{"name": "column", "messages": np.array(msgs, dtype=np.int64).reshape(-1, 3)}]
        if len(shape) == 3:
            stages = [
                {"axis": 2, "length": shape[2], "count_per_rank": b0 * n1, "kind": kind},
                {"axis": 1, "length": n1, "count_per_rank": b0 * last, "kind": "c2c"},
                {"axis": 0, "length": n0, "count_per_rank": c1 * last, "kind": "c2c"},
            ]
        else:
            stages = [
                {"axis": 1, "length": shape[1], "count_per_rank": b0.copy(), "kind": kind},
                {"axis": 0, "length": n0, "count_per_rank": c1.copy(), "kind": "c2c"},
            ]
    # Like the library, leave out exchanges inside groups of one rank (they move nothing).
    exchanges = [ex for ex in exchanges if len(ex["messages"])]
    return {"shape": shape, "kind": kind, "element_bytes": element_bytes, "grid": (p0, p1),
            "exchanges": exchanges, "stages": stages}


# ---- the fixture's own checks -------------------------------------------------------------

def test_fixture_conserves_data_pencil_uneven():
    desc = describe((10, 7, 9), grid=(3, 2), kind="c2c")
    total = 10 * 7 * 9 * 16
    for e, ex in enumerate(desc["exchanges"]):
        before = desc["stages"][e]["count_per_rank"] * desc["stages"][e]["length"] * 16
        after = desc["stages"][e + 1]["count_per_rank"] * desc["stages"][e + 1]["length"] * 16
        assert before.sum() == total and after.sum() == total
        msgs = ex["messages"]
        sent = np.bincount(msgs[:, 0], weights=msgs[:, 2], minlength=6)
        recv = np.bincount(msgs[:, 1], weights=msgs[:, 2], minlength=6)
        # What a rank keeps is the same on both sides of the exchange.
        assert np.array_equal(before - sent, after - recv)


def test_fixture_r2c_halves_last_axis():
    desc = describe((8, 8, 8), grid=(2, 2), kind="r2c")
    sent = int(desc["exchanges"][0]["messages"][:, 2].sum())
    # 5 complex points on axis 2 split 3 + 2 over p1 = 2: rank column j keeps c2[j] of them.
    kept = np.array([3, 2])
    assert sent == sum(2 * 4 * 4 * (5 - kept[j]) * 16 for j in range(2))
