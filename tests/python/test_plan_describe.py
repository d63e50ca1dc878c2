"""volfft.describe (the plan description the performance model reads), without a communicator.

Checked two ways: against the model's independent stand-in written from the documented
decomposition (tests/python/test_model_describe_fixture.py), and by conservation laws that any
correct description obeys.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from volfft._native import native

try:
    native()
except ImportError as error:
    pytest.skip(f"volfft extension not built ({error})", allow_module_level=True)

import volfft  # noqa: E402

fixture = pytest.importorskip(
    "test_model_describe_fixture",
    reason="the model's stand-in description (tests/python/test_model_describe_fixture.py)")

CASES = [((8, 8, 8), (2, 2)), ((10, 7, 9), (3, 2)), ((7, 9, 11), (4, 1)), ((5, 1, 3), (2, 2)),
         ((3, 4, 2), (1, 4)), ((9, 6), (3, 1)), ((5, 4), (6, 1)), ((16, 16, 16), (4, 4))]


def sorted_messages(messages):
    m = np.asarray(messages, dtype=np.int64).reshape(-1, 3)
    return m[np.lexsort((m[:, 1], m[:, 0]))]


@pytest.mark.parametrize("kind", ["c2c", "r2c"])
@pytest.mark.parametrize("shape,grid", CASES, ids=str)
def test_matches_the_models_stand_in(shape, grid, kind):
    mine = volfft.describe(shape, grid=grid, kind=kind)
    theirs = fixture.describe(shape, grid=grid, kind=kind)
    assert mine["shape"] == tuple(shape) and mine["grid"] == tuple(grid)
    assert mine["element_bytes"] == theirs["element_bytes"] == 16
    # The library omits exchanges inside groups of one rank; the stand-in lists them empty.
    theirs_nonempty = [e for e in theirs["exchanges"] if len(e["messages"])]
    mine_nonempty = [e for e in mine["exchanges"] if len(e["messages"])]
    assert len(mine_nonempty) == len(theirs_nonempty)
    for a, b in zip(mine_nonempty, theirs_nonempty):
        assert np.array_equal(sorted_messages(a["messages"]), sorted_messages(b["messages"]))
    assert len(mine["stages"]) == len(theirs["stages"])
    for a, b in zip(mine["stages"], theirs["stages"]):
        assert (a["axis"], a["length"], a["kind"]) == (b["axis"], b["length"], b["kind"])
        assert np.array_equal(a["count_per_rank"], b["count_per_rank"]), (a, b)


@pytest.mark.parametrize("kind", ["c2c", "r2c"])
@pytest.mark.parametrize("shape,grid", CASES, ids=str)
def test_conservation(shape, grid, kind):
    d = volfft.describe(shape, grid=grid, kind=kind, dtype=np.complex64)
    nranks = grid[0] * grid[1]
    complex_shape = list(shape)
    if kind == "r2c":
        complex_shape[-1] = shape[-1] // 2 + 1
    total = math.prod(complex_shape)
    assert d["element_bytes"] == 8
    for stage in d["stages"]:
        out_length = stage["length"] // 2 + 1 if stage["kind"] == "r2c" else stage["length"]
        # every stage transforms every complex point exactly once
        assert int(stage["count_per_rank"].sum()) * out_length == total, stage
        assert stage["count_per_rank"].shape == (nranks,)
    for exchange, held in zip(d["exchanges"], d["pack_bytes_per_rank"]):
        m = exchange["messages"]
        assert m.dtype == np.int64 and m.shape[1] == 3
        assert np.all(m[:, 0] != m[:, 1]) and np.all(m[:, 2] > 0)
        sent = np.bincount(m[:, 0], weights=m[:, 2], minlength=nranks)
        assert np.all(sent <= held) and int(held.sum()) == total * 8
    for boxes, full in ((d["input_boxes"], shape), (d["output_boxes"], complex_shape)):
        extents = boxes[:, 1, :] - boxes[:, 0, :]
        assert boxes.shape == (nranks, 2, len(shape))
        assert int(np.prod(extents, axis=1).sum()) == math.prod(full)
    assert sorted(d["input_order"]) == sorted(d["output_order"]) == list(range(len(shape)))


def test_auto_grid_needs_nprocs_and_reports_its_choice():
    d = volfft.describe((64, 64, 64), nprocs=4)
    assert d["grid"][0] * d["grid"][1] == 4
    assert volfft.describe((64, 64, 64), grid=d["grid"])["grid"] == d["grid"]


def test_placement_does_not_change_the_virtual_pattern():
    # Messages are between virtual ranks; a placement only maps them onto world ranks.
    plain = volfft.describe((8, 8, 8), grid=(2, 2))
    placed = volfft.describe((8, 8, 8), grid=(2, 2), placement=[3, 2, 1, 0])
    for a, b in zip(plain["exchanges"], placed["exchanges"]):
        assert np.array_equal(a["messages"], b["messages"])


def test_a_placement_that_is_not_a_permutation_is_named():
    with pytest.raises(volfft.VolfftError, match=r"placement: expected a permutation of 0\.\.3, got \[0, 0, 1, 2\]"):
        volfft.describe((8, 8, 8), grid=(2, 2), placement=[0, 0, 1, 2])
    with pytest.raises(volfft.VolfftError, match=r"placement: expected 4 entries \(one per rank\), got 3"):
        volfft.describe((8, 8, 8), grid=(2, 2), placement=[0, 1, 2])


def test_a_mapping_placement_brings_its_grid():
    # A volfft.mapping.Placement places the positions of its own grid: an automatic grid becomes
    # it, another grid is refused (it would silently run the order on the wrong grid).
    from volfft.mapping import Machine, rows_on_blocks

    placement = rows_on_blocks(Machine.torus((2, 2)), (2, 2), (2, 1)).for_launch()
    assert volfft.describe((8, 8, 8), nprocs=4, placement=placement)["grid"] == (2, 2)
    assert volfft.describe((8, 8, 8), grid=(2, 2), placement=placement)["grid"] == (2, 2)
    with pytest.raises(ValueError, match=r"placement: it places the positions of a 2x2 grid, but "
                                         r"the plan's grid is 4x1"):
        volfft.describe((8, 8, 8), grid=(4, 1), placement=placement)
    # A plain order has no grid of its own.
    assert volfft.describe((8, 8, 8), nprocs=4, placement=[3, 2, 1, 0])["grid"] == (4, 1)


def test_large_description_is_fast_enough():
    # The model ranks placements for grids like 64x64; the description must not be the bottleneck.
    d = volfft.describe((256, 256, 256), grid=(16, 16))
    assert sum(len(e["messages"]) for e in d["exchanges"]) == 2 * 256 * 15
