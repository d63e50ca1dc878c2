"""[Jagode2008] Table 1 from first principles, and the simulator where the bisection model's
symmetry assumptions hold; invariance under relabelling equivalent torus dimensions."""
from __future__ import annotations

import numpy as np
import pytest
from test_model_describe_fixture import describe

from volfft.model import (bisection_time, blue_gene_l, check_description, eq16_time,
                          exchange_traffic, m_numbers, resolve_placement, simulate, total_bytes)
from volfft.model.placements import fft_placement

from benchmarks.model.paper_data import TABLE1
from benchmarks.model.validate import table1


def test_table1_all_24_values_exact():
    rows = table1(describe, shape=(64, 64, 64))
    assert len(rows) == 8
    for row in rows:
        assert row.computed == pytest.approx(TABLE1[row.mapping][row.group], abs=1e-9), row


def placed_exchanges(machine, grid, row_block, shape=(64, 64, 64)):
    desc = check_description(describe(shape, grid=grid))
    placed = resolve_placement(fft_placement(machine, grid, row_block), machine,
                               grid[0] * grid[1])
    return desc, [exchange_traffic(ex["messages"], placed) for ex in desc["exchanges"]]


@pytest.mark.parametrize("grid,row_block", [((64, 8), (2, 2, 2)), ((64, 8), None),
                                            ((8, 64), (4, 4, 4)), ((8, 64), None),
                                            ((32, 16), (2, 2, 4))])
def test_simulator_agrees_with_bisection_on_symmetric_placements(grid, row_block):
    # Rows on displaced blocks and their complementary columns have [Jagode2008]'s translation
    # symmetry: the crossing traffic spreads evenly, so the most loaded link carries exactly the
    # bisection share (dimension-order routing, adaptive or not).
    machine = blue_gene_l()
    _, traffics = placed_exchanges(machine, grid, row_block)
    for traffic in traffics:
        expected = bisection_time(machine, traffic).time
        assert expected > 0
        for routing in ("dimension-ordered", "adaptive"):
            assert simulate(machine, traffic, routing).time == pytest.approx(expected, rel=1e-9)


def test_eq16_from_m_numbers():
    machine = blue_gene_l()
    desc, traffics = placed_exchanges(machine, (64, 8), (2, 2, 2))
    result = bisection_time(machine, traffics[0])
    m = m_numbers(result, machine, total_bytes(desc)).max()
    assert m == pytest.approx(2.0)
    assert result.time == pytest.approx(eq16_time(m, total_bytes(desc), 512,
                                                  machine.effective_link_bandwidth))


def test_all_paths_finds_the_64_cube_hot_spot():
    # Uniform choice among all minimal paths concentrates traffic in a 4x4x4 cube's middle
    # links: more than the bisection share; a 2x2x2 cube has no interior, so no change.
    machine = blue_gene_l()
    _, cube64 = placed_exchanges(machine, (8, 64), (4, 4, 4))
    _, cube8 = placed_exchanges(machine, (64, 8), (2, 2, 2))
    assert simulate(machine, cube64[0], "all-paths").time > 1.2 * bisection_time(
        machine, cube64[0]).time
    assert simulate(machine, cube8[0], "all-paths").time == pytest.approx(
        bisection_time(machine, cube8[0]).time, rel=1e-9)


def relabelled(machine, coords, perm):
    dims = tuple(machine.dims[k] for k in perm)
    return machine.with_changes(dims=dims), coords[:, list(perm)]


@pytest.mark.parametrize("perm", [(1, 0, 2), (2, 0, 1), (0, 2, 1)])
def test_prediction_invariant_under_relabelling_torus_dimensions(perm):
    machine = blue_gene_l((8, 4, 4))
    desc = check_description(describe((32, 32, 32), grid=(16, 8)))
    coords = np.asarray(fft_placement(machine, (16, 8), (2, 2, 2)).coords())[:, :3]
    other, other_coords = relabelled(machine, coords, perm)
    for ex in desc["exchanges"]:
        a = exchange_traffic(ex["messages"], resolve_placement(coords, machine, 128))
        b = exchange_traffic(ex["messages"], resolve_placement(other_coords, other, 128))
        assert bisection_time(other, b).time == pytest.approx(bisection_time(machine, a).time)
        for routing in ("adaptive", "all-paths"):
            assert simulate(other, b, routing).time == pytest.approx(
                simulate(machine, a, routing).time, rel=1e-9)
        # Loads move with the labels: per-dimension maxima are permuted, not changed.
        la = simulate(machine, a, "adaptive").loads.max(axis=(0, 1, 2, 4))
        lb = simulate(other, b, "adaptive").loads.max(axis=(0, 1, 2, 4))
        assert lb == pytest.approx(la[list(perm)])
