"""tilt, zigzag, shear, zorder, transpose: the worked examples of docs/rubik-semantics.md, [Bhatele2012]'s
Figs. 8 and 9, and each formula checked cell by cell with plain Python loops."""
import itertools

import numpy as np
import pytest

from volfft.mapping import box

Z, Y, X = 0, 1, 2  # [Bhatele2012]'s names for a box([Z, Y, X]); X varies fastest


def morton(coords, ndim):
    """Morton code with bit b of coordinate k at position b*ndim + k (dimension 0 lowest)."""
    code = 0
    for k, x in enumerate(coords):
        for b in range(8):
            code |= ((x >> b) & 1) << (b * ndim + k)
    return code


# ----------------------------------------------------------------------------- worked examples
def test_tilt_4x4_worked_example():
    b = box([4, 4])
    b.tilt(0, 1, 1)
    assert b.box.tolist() == [[0, 13, 10, 7], [4, 1, 14, 11], [8, 5, 2, 15], [12, 9, 6, 3]]


def test_zigzag_4x4_worked_example():
    b = box([4, 4])
    b.zigzag(0, 1, 1, 1)
    assert b.box.tolist() == [[0, 13, 2, 15], [4, 1, 6, 3], [8, 5, 10, 7], [12, 9, 14, 11]]


def test_shear_3x3_docstring_example():
    b = box([3, 3])
    b.shear(1, 0, 2)
    assert b.box.tolist() == [[0, 4, 8], [3, 7, 2], [6, 1, 5]]


def test_zorder_4x4_worked_example():
    b = box([4, 4])
    b.zorder()
    assert b.box.tolist() == [[0, 2, 8, 10], [1, 3, 9, 11], [4, 6, 12, 14], [5, 7, 13, 15]]


def test_zigzag_depth2_stride3_is_a_flattened_triangle():
    shifts = [0, 1, 2, 2, 2, 1, 0, 1, 2, 2, 2, 1]   # docs/rubik-semantics.md section 4
    b = box([8, 12])
    b.zigzag(0, 1, 2, 3)
    old = np.arange(96).reshape(8, 12)
    for i, s in enumerate(shifts):
        assert b.box[:, i].tolist() == [old[(x - s) % 8, i] for x in range(8)]


def test_tilt_slope_zero_negative_and_wrapping():
    ident = box([4, 4])
    ident.tilt(0, 1, 0)
    assert ident.box.tolist() == np.arange(16).reshape(4, 4).tolist()
    wrapped, once = box([4, 4]), box([4, 4])
    wrapped.tilt(0, 1, 5)
    once.tilt(0, 1, 1)
    assert np.array_equal(wrapped.box, once.box)
    neg = box([4, 4])
    neg.tilt(0, 1, -1)
    # new[x0, 1] = old[(x0 + 1) mod 4, 1]: column 1 (ranks 1, 5, 9, 13) moves toward lower x0
    assert neg.box[:, 1].tolist() == [5, 9, 13, 1]


def test_zigzag_depth_zero_is_identity_and_negative_depth_shifts_the_other_way():
    b = box([4, 4])
    b.zigzag(0, 1, 0, 1)
    assert b.box.tolist() == np.arange(16).reshape(4, 4).tolist()
    n = box([4, 4])
    n.zigzag(0, 1, -1, 1)
    old = np.arange(16).reshape(4, 4)
    for x0, x1 in itertools.product(range(4), range(4)):
        shift = -(x1 % 2)
        assert n.box[x0, x1] == old[(x0 - shift) % 4, x1]


def test_transpose_means_transpose_then_pour_back_row_major():
    b = box([2, 3])
    b.transpose()
    # numpy transpose of [[0,1,2],[3,4,5]] is [[0,3],[1,4],[2,5]]; poured into 2x3 row-major:
    assert b.box.tolist() == [[0, 3, 1], [4, 2, 5]]
    c = box([2, 2, 2])
    c.transpose([0, 2, 1])
    assert c.box.reshape(-1).tolist() == [0, 2, 1, 3, 4, 6, 5, 7]


def test_map_file_of_tilted_2x2():
    b = box([2, 2])
    b.tilt(0, 1, 1)
    assert b.map_file_text() == "0 0\n1 1\n1 0\n0 1\n"


# ----------------------------------------------------------------------------- Fig. 8
def test_fig8_two_successive_tilts():
    net = box([4, 4, 4])
    net.tilt(Z, X, 1)
    once = net.box.copy()
    net.tilt(X, Y, 1)
    for z, y, x in itertools.product(range(4), repeat=3):
        assert once[z, y, x] == 16 * ((z - x) % 4) + 4 * y + x
        xs = (x - y) % 4
        assert net.box[z, y, x] == 16 * ((z - xs) % 4) + 4 * y + xs


# ----------------------------------------------------------------------------- Fig. 9
def fig9_expected():
    expected = np.zeros((12, 4, 4), dtype=int)
    for z, y, x in itertools.product(range(4), repeat=3):
        # child 0: tilt(Z,X,1) then tilt(X,Y,1)
        xs = (x - y) % 4
        expected[z, y, x] = 16 * ((z - xs) % 4) + 4 * y + xs
        # child 1: zorder, rank 64 + j goes to the point with Morton code j
        expected[4 + z, y, x] = 64 + morton((z, y, x), 3)
        # child 2: zigzag(Z,X,1,1) then zigzag(X,Y,1,1): odd slabs shift by 1
        xz = (x - (y % 2)) % 4
        expected[8 + z, y, x] = 128 + 16 * ((z - (xz % 2)) % 4) + 4 * y + xz
    return expected


def test_fig9_hierarchical_permutations_as_rubik_runs_them():
    net = box([12, 4, 4])
    net.div([3, 1, 1])
    net.children[0, 0, 0].tilt(Z, X, 1)
    net.children[0, 0, 0].tilt(X, Y, 1)
    net.children[1, 0, 0].zorder()
    net.children[2, 0, 0].zigzag(Z, X, 1, 1)
    net.children[2, 0, 0].zigzag(X, Y, 1, 1)
    assert net.box.tolist() == fig9_expected().tolist()


def test_fig9_as_printed_in_the_paper_subscripts_and_three_argument_zigzag():
    net = box([12, 4, 4])
    net.div([3, 1, 1])
    net[0, 0, 0].tilt(Z, X, 1)
    net[0, 0, 0].tilt(X, Y, 1)
    net[1, 0, 0].zorder()
    net[2, 0, 0].zigzag(Z, X, 1)
    net[2, 0, 0].zigzag(X, Y, 1)
    assert net.box.tolist() == fig9_expected().tolist()


# ----------------------------------------------------------------------------- hierarchy
def test_permuting_a_child_touches_only_its_region():
    b = box([4, 4])
    b.div([2, 1])
    b[1, 0].tilt(0, 1, 1)
    assert b.box[:2].tolist() == [[0, 1, 2, 3], [4, 5, 6, 7]]
    assert b.box[2:].tolist() == [[8, 13, 10, 15], [12, 9, 14, 11]]


def test_permuting_a_parent_moves_ranks_across_children():
    b = box([2, 2])
    b.div([2, 1])
    b.tilt(0, 1, 1)
    assert b[0, 0].box.tolist() == [[0, 3]]
    assert b[1, 0].box.tolist() == [[2, 1]]


def test_permutation_on_a_mod_child_uses_its_local_coordinates():
    b = box([4, 4])
    b.mod([2, 1])               # child 0 = rows 0 and 2, child 1 = rows 1 and 3
    b[0, 0].tilt(0, 1, 1)       # local 2x4: column c rotated by c along local rows
    old = np.arange(16).reshape(4, 4)
    for lr, c in itertools.product(range(2), range(4)):
        src = (lr - c) % 2
        assert b.box[2 * lr, c] == old[2 * src, c]
    assert b.box[1].tolist() == [4, 5, 6, 7] and b.box[3].tolist() == [12, 13, 14, 15]


# ----------------------------------------------------------------------------- formulas
@pytest.mark.parametrize("seed", range(40))
def test_tilt_zigzag_shear_formulas_on_random_boxes(seed):
    rng = np.random.default_rng(seed)
    ndim = int(rng.integers(2, 5))
    shape = [int(n) for n in rng.integers(1, 6, size=ndim)]
    a, d = (int(v) for v in rng.choice(ndim, size=2, replace=False))
    slope = int(rng.integers(-7, 8))
    depth = int(rng.integers(-3, 4))
    stride = int(rng.integers(1, 5))
    old = np.arange(int(np.prod(shape))).reshape(shape)

    def rolled(shift_of):
        out = np.empty_like(old)
        for x in itertools.product(*[range(n) for n in shape]):
            src = list(x)
            src[a] = (x[a] - shift_of(x[d])) % shape[a]
            out[x] = old[tuple(src)]
        return out

    t = box(shape)
    t.tilt(a, d, slope)
    assert np.array_equal(t.box, rolled(lambda i: slope * i))

    def zz(i):
        base = (i // (2 * stride)) * 2 * stride + stride
        return depth - (abs(i - base) * depth) // stride

    z = box(shape)
    z.zigzag(a, d, depth, stride)
    assert np.array_equal(z.box, rolled(zz))

    s = box(shape)
    s.shear(d, a, slope)         # shear(axis, direction, s) == tilt(direction, axis, s)
    assert np.array_equal(s.box, t.box)


@pytest.mark.parametrize("shape", [[3, 5], [2, 3, 4], [5, 1, 3, 2], [6], [7, 7]])
def test_zorder_places_rowmajor_ranks_along_the_sorted_morton_curve(shape):
    b = box(shape)
    b.zorder()
    points = sorted(itertools.product(*[range(n) for n in shape]),
                    key=lambda p: morton(p, len(shape)))
    for j, p in enumerate(points):
        assert b.box[p] == j
