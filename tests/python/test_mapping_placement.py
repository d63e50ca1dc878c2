"""FFT placements ([Jagode2008] section 7.1): default maps, rows on blocks, CO and VN variants, the
Placement accessors and their realisation by a map file or by a rank order."""
import itertools

import numpy as np
import pytest

from volfft.mapping import (Machine, Placement, box, default_placement, rows_on_blocks)

TORUS8 = Machine.torus((8, 8, 8))


def nodes_of(placement, ranks):
    coords = placement.coords()
    return {tuple(coords[r, :-1]) for r in ranks}


def is_aligned_block(nodes, shape):
    """True when ``nodes`` is exactly one aligned sub-box of ``shape`` (corner a multiple)."""
    corner = tuple(min(c[d] for c in nodes) for d in range(len(shape)))
    if any(c % s for c, s in zip(corner, shape)):
        return False
    want = {tuple(c + o for c, o in zip(corner, off))
            for off in itertools.product(*[range(s) for s in shape])}
    return nodes == want


def assert_is_permutation_of_slots(placement):
    coords = placement.coords()
    slots = {tuple(c) for c in coords.tolist()}
    assert len(slots) == placement.size
    assert sorted(placement.rank_order().tolist()) == list(range(placement.size))


# ----------------------------------------------------------------------------- defaults (Table 1)
def test_default_64x8_rows_are_lines_and_columns_planes():
    p = default_placement(TORUS8, (64, 8))
    assert_is_permutation_of_slots(p)
    for i, row in enumerate(p.rows()):
        nodes = nodes_of(p, row)     # line along the last dimension at (x, y) = divmod(i, 8)
        assert nodes == {(i // 8, i % 8, z) for z in range(8)}
    for j, col in enumerate(p.columns()):
        assert nodes_of(p, col) == {(x, y, j) for x in range(8) for y in range(8)}


def test_default_8x64_rows_are_planes_and_columns_lines():
    p = default_placement(TORUS8, (8, 64))
    for i, row in enumerate(p.rows()):
        assert nodes_of(p, row) == {(i, y, z) for y in range(8) for z in range(8)}
    for j, col in enumerate(p.columns()):
        assert nodes_of(p, col) == {(x, j // 8, j % 8) for x in range(8)}


def test_default_on_a_partly_used_machine_takes_the_first_slots():
    p = default_placement(Machine.mesh((4, 4), 2), (3, 4))
    assert p.coords().tolist() == [[r // 2 // 4, r // 2 % 4, r % 2] for r in range(12)]


def test_default_vn_puts_consecutive_ranks_on_one_node_first():
    p = default_placement(Machine.torus((2, 2, 2), 2), (4, 4))
    assert p.coords()[:3].tolist() == [[0, 0, 0, 0], [0, 0, 0, 1], [0, 0, 1, 0]]


# ----------------------------------------------------------------------------- rows on blocks (Fig. 4)
def test_fig4a_8cube_each_row_on_one_2x2x2_block_and_columns_spread():
    p = rows_on_blocks(TORUS8, (64, 8), (2, 2, 2))
    assert_is_permutation_of_slots(p)
    corners = set()
    for row in p.rows():
        nodes = nodes_of(p, row)
        assert is_aligned_block(nodes, (2, 2, 2))
        corners.add(min(nodes))
    assert len(corners) == 64                    # the 8-cube displaced 64 times fills the torus
    for j, col in enumerate(p.columns()):
        nodes = nodes_of(p, col)                 # member j of every block: a stride-2 lattice
        offset = (j // 4, (j // 2) % 2, j % 2)   # j-th cell of a 2x2x2 block, row-major
        assert nodes == {(2 * a + offset[0], 2 * b + offset[1], 2 * c + offset[2])
                         for a, b, c in itertools.product(range(4), repeat=3)}


def test_fig4b_64cube_each_row_on_one_4x4x4_block():
    p = rows_on_blocks(TORUS8, (8, 64), (4, 4, 4))
    assert_is_permutation_of_slots(p)
    blocks = [nodes_of(p, row) for row in p.rows()]
    assert all(is_aligned_block(b, (4, 4, 4)) for b in blocks)
    assert len({min(b) for b in blocks}) == 8    # displaced 8 times
    for col in p.columns():
        nodes = nodes_of(p, col)
        assert len(nodes) == 8
        assert len({tuple(c // 4 for c in n) for n in nodes}) == 8   # one member per block


def test_rows_on_blocks_in_other_shapes_and_meshes():
    p = rows_on_blocks(Machine.mesh((4, 8)), (8, 4), (1, 4))
    for row in p.rows():
        assert is_aligned_block(nodes_of(p, row), (1, 4))
    q = rows_on_blocks(TORUS8, (8, 64), (2, 4, 8))
    for row in q.rows():
        assert is_aligned_block(nodes_of(q, row), (2, 4, 8))


def test_vn_row_of_16_uses_both_cores_of_an_8_cube():
    m = Machine.torus((8, 8, 8), 2)
    p = rows_on_blocks(m, (64, 16), (2, 2, 2))
    assert_is_permutation_of_slots(p)
    coords = p.coords()
    for row in p.rows():
        assert is_aligned_block(nodes_of(p, row), (2, 2, 2))
        assert sorted(coords[row, -1].tolist()) == [0] * 8 + [1] * 8


def test_vn_two_rows_of_8_share_an_8_cube_on_different_cores():
    m = Machine.torus((8, 8, 8), 2)
    p = rows_on_blocks(m, (128, 8), (2, 2, 2))
    coords = p.coords()
    rows = p.rows()
    for b in range(64):
        first, second = rows[2 * b], rows[2 * b + 1]
        assert nodes_of(p, first) == nodes_of(p, second)
        assert is_aligned_block(nodes_of(p, first), (2, 2, 2))
        assert set(coords[first, -1].tolist()) == {0}
        assert set(coords[second, -1].tolist()) == {1}


def test_row_block_with_explicit_cores_per_row():
    m = Machine.torus((4, 4), 4)
    p = rows_on_blocks(m, (8, 8), (2, 2, 2))     # 4 nodes x 2 cores per row
    coords = p.coords()
    for i, row in enumerate(p.rows()):
        assert is_aligned_block(nodes_of(p, row), (2, 2))
        assert set(coords[row, -1].tolist()) == ({0, 1} if i % 2 == 0 else {2, 3})


@pytest.mark.parametrize("grid, block, message", [
    ((32, 8), (2, 2, 2), r"grid 32x8 has 256 tasks but the machine .* has 512 slots"),
    ((64, 8), (3, 2, 2), r"row_block\[0\] = 3 must be a positive divisor of the machine extent 8"),
    ((32, 16), (2, 2, 2), r"a row of p1 = 16 tasks on 8 nodes needs 2 cores per node"),
    ((128, 4), (2, 2, 2), r"a row of p1 = 4 tasks does not fit a block of 8 nodes"),
    ((64, 8), (2, 2), r"row_block must have 3 node extents"),
])
def test_rows_on_blocks_errors(grid, block, message):
    with pytest.raises(ValueError, match=message):
        rows_on_blocks(TORUS8, grid, block)


def test_default_placement_error_when_grid_exceeds_machine():
    with pytest.raises(ValueError, match=r"grid 64x16 needs 1024 slots"):
        default_placement(TORUS8, (64, 16))


# ----------------------------------------------------------------------------- accessors
def test_accessors_are_consistent_and_copies():
    p = rows_on_blocks(Machine.mesh((4, 4), 2), (4, 8), (2, 2))
    order = p.rank_order()
    assert order.tolist() == list(range(32))     # realised by a map file: rank g takes g
    assert np.array_equal(p.coords(), p.grid_coords())
    order[0] = 99
    assert p.rank_order()[0] == 0
    assert p.rows()[1] == list(range(8, 16))
    assert p.columns()[2] == [2, 10, 18, 26]
    assert p.groups("rows") == p.rows()
    with pytest.raises(ValueError, match="which must be 'rows' or 'columns'"):
        p.groups("planes")


def test_for_launch_realises_the_layout_by_reordering_under_the_default_launch():
    m = Machine.torus((4, 4), 1)
    p = rows_on_blocks(m, (4, 4), (2, 2))
    q = p.for_launch()
    assert q.same_layout(p)
    # default launch: world rank r on slot r, i.e. node (r // 4, r % 4)
    assert q.coords().tolist() == [[r // 4, r % 4, 0] for r in range(16)]
    # grid row 0 is block (0..1, 0..1): nodes 0, 1, 4, 5 in row-major order
    assert q.rows()[0] == [0, 1, 4, 5]
    assert q.rows()[3] == [10, 11, 14, 15]
    back = Placement.from_rank_order(m, (4, 4), q.rank_order())
    assert back.same_layout(p)


def test_for_launch_with_explicit_launch_coords_and_missing_slot():
    m = Machine.mesh((2, 2))
    p = default_placement(m, (2, 2))
    launch = [[1, 1, 0], [1, 0, 0], [0, 1, 0], [0, 0, 0]]
    q = p.for_launch(launch)
    assert q.rank_order().tolist() == [3, 2, 1, 0]
    with pytest.raises(ValueError, match="leaves slot"):
        default_placement(Machine.mesh((2, 3)), (2, 2)).for_launch(
            [[1, 2, 0], [1, 0, 0], [0, 1, 0], [0, 0, 0]])


def test_from_tree_matches_rubiks_map_file_byte_for_byte():
    m = Machine.torus((8, 8, 8), 4)
    app = box([16, 8, 16])
    app.tile([16, 8, 1])
    torus = m.box()
    torus.tile([8, 8, 2, 1])
    torus.map(app)
    torus.tilt(2, 0, 1)
    torus.tilt(2, 1, 1)
    p = Placement.from_tree(m, (128, 16), torus, "pF3D tiltXY")
    assert p.map_file("rubik") == torus.map_file_text()


def test_placement_constructor_errors():
    m = Machine.mesh((2, 2))
    with pytest.raises(ValueError, match=r"grid_coords must have shape \(4, 3\)"):
        Placement(m, (2, 2), np.zeros((4, 2)))
    with pytest.raises(ValueError, match="two grid positions on the same slot"):
        Placement(m, (2, 2), [[0, 0, 0], [0, 0, 0], [1, 0, 0], [1, 1, 0]])
    with pytest.raises(ValueError, match="outside the machine"):
        Placement(m, (2, 2), [[0, 0, 0], [0, 2, 0], [1, 0, 0], [1, 1, 0]])
    with pytest.raises(ValueError, match="order must be a permutation"):
        Placement(m, (2, 2), m.slot_coords(np.arange(4)), [0, 0, 1, 2])
    with pytest.raises(ValueError, match=r"grid must be two positive integers"):
        default_placement(m, (4,))
    with pytest.raises(ValueError, match=r"the tree's shape \(4,\) must be the machine's"):
        Placement.from_tree(m, (2, 2), box([4]))
    with pytest.raises(ValueError, match=r"Machine\(\): dims\[1\] must be a positive node count"):
        Machine.torus((2, 0))
    with pytest.raises(ValueError, match=r"tasks_per_node must be a positive integer"):
        Machine.mesh((2, 2), 0)
