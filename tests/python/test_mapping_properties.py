"""Properties over many random operation sequences (fixed seeds, so failures reproduce):
every operation is a permutation, div/mod membership formulas, map preserves leaf order."""
import numpy as np
import pytest

from volfft.mapping import box, div, mod


def random_shape(rng, max_dims=4, max_extent=6):
    ndim = int(rng.integers(1, max_dims + 1))
    return [int(n) for n in rng.integers(1, max_extent + 1, size=ndim)]


def random_node(rng, tree):
    nodes = [tree]
    frontier = [tree]
    while frontier:
        node = frontier.pop()
        kids = list(node)
        nodes.extend(kids)
        frontier.extend(kids)
    return nodes[int(rng.integers(len(nodes)))]


def apply_random_op(rng, node):
    nd = node.ndim
    kind = rng.choice(["div", "mod", "tile", "cut", "tilt", "zigzag", "shear", "zorder",
                       "transpose"])
    k = int(rng.integers(1, nd + 1))
    divisors = [int(v) for v in rng.integers(1, 4, size=k)]
    if kind == "div":
        node.div(divisors)
    elif kind == "mod":
        node.mod(divisors)
    elif kind == "tile":
        node.tile(divisors)
    elif kind == "cut":
        node.cut(divisors, [div if rng.random() < 0.5 else mod for _ in range(k)])
    elif kind == "transpose":
        node.transpose([int(v) for v in rng.permutation(nd)])
    elif kind == "zorder":
        node.zorder()
    elif nd >= 2:
        a, d = (int(v) for v in rng.choice(nd, size=2, replace=False))
        if kind == "tilt":
            node.tilt(a, d, int(rng.integers(-5, 6)))
        elif kind == "shear":
            node.shear(a, d, int(rng.integers(-5, 6)))
        else:
            node.zigzag(a, d, int(rng.integers(-2, 3)), int(rng.integers(1, 4)))
    return kind


@pytest.mark.parametrize("seed", range(30))
def test_every_operation_sequence_keeps_a_permutation(seed):
    rng = np.random.default_rng(1000 + seed)
    tree = box(random_shape(rng))
    n = tree.size
    for _ in range(12):
        node = random_node(rng, tree)
        before = node.box.copy()
        kind = apply_random_op(rng, node)
        assert np.array_equal(np.sort(tree.box.reshape(-1)), np.arange(n)), kind
        # the operated node holds the same ranks as before (cuts and permutations only move
        # ranks within the node they are called on)
        assert np.array_equal(np.sort(node.box.reshape(-1)), np.sort(before.reshape(-1))), kind
        # leaves partition the cells: every rank in exactly one leaf
        in_leaves = np.concatenate([leaf.box.reshape(-1) for leaf in tree.leaves()])
        assert np.array_equal(np.sort(in_leaves), np.arange(n)), kind
    # the map file lists every rank's cell: line r's coordinates hold rank r
    lines = tree.map_file_text().splitlines()
    assert len(lines) == n
    for r, line in enumerate(lines):
        assert tree.box[tuple(int(v) for v in line.split())] == r


@pytest.mark.parametrize("seed", range(30))
def test_div_and_mod_membership_formulas(seed):
    rng = np.random.default_rng(2000 + seed)
    shape = random_shape(rng, max_extent=9)
    divisors = [int(v) for v in rng.integers(1, 11, size=len(shape))]
    slicing = ["div" if rng.random() < 0.5 else "mod" for _ in shape]
    tree = box(shape)
    tree.cut(divisors, [div if s == "div" else mod for s in slicing])
    for child in tree:
        for r in child.box.reshape(-1).tolist():
            x = np.unravel_index(r, shape)   # a fresh box: rank r sits at row-major position r
            for i, (xi, n, d, s) in enumerate(zip(x, shape, divisors, slicing)):
                if s == "div":
                    want = min(xi // (n // d), d - 1) if n // d else d - 1
                else:
                    want = xi % d
                assert child.index[i] == want, (shape, divisors, slicing, r)
    assert sum(c.size for c in tree) == tree.size


@pytest.mark.parametrize("seed", range(25))
def test_map_preserves_leaf_order(seed):
    rng = np.random.default_rng(3000 + seed)
    leaves, size = int(rng.integers(1, 7)), int(rng.integers(1, 9))
    src = box([leaves, size])
    src.tile([1, size])
    for _ in range(3):
        if size > 1 or leaves > 1:
            a, d = (0, 1) if rng.random() < 0.5 else (1, 0)
            src.tilt(a, d, int(rng.integers(-3, 4)))
    # a target with different shapes but the same leaf sizes: leaves x (factors of size)
    factors = [q for q in range(1, size + 1) if size % q == 0]
    f = factors[int(rng.integers(len(factors)))]
    dims = [leaves, f, size // f]
    order = [int(v) for v in rng.permutation(3)]
    dst = box([dims[i] for i in order])
    slicers = [div, div, div]
    divisors = [1, 1, 1]
    divisors[order.index(0)] = leaves
    slicers[order.index(0)] = div if rng.random() < 0.5 else mod
    dst.cut(divisors, slicers)
    dst.zorder()                         # permuting the target first must not matter
    dst.map(src)
    flat_src = [r for leaf in src.leaves() for r in leaf.box.reshape(-1).tolist()]
    flat_dst = [r for leaf in dst.leaves() for r in leaf.box.reshape(-1).tolist()]
    assert flat_dst == flat_src
    lines = dst.map_file_text().splitlines()
    for r, line in enumerate(lines):
        assert dst.box[tuple(int(v) for v in line.split())] == r


def test_copy_reproduces_random_trees():
    rng = np.random.default_rng(4)
    for _ in range(20):
        tree = box(random_shape(rng))
        for _ in range(6):
            apply_random_op(rng, random_node(rng, tree))
        dup = tree.copy()
        assert np.array_equal(dup.box, tree.box)
        assert [l.box.tolist() for l in dup.leaves()] == [l.box.tolist() for l in tree.leaves()]
        assert dup.map_file_text() == tree.map_file_text()
        assert dup.elements.tolist() == tree.elements.tolist()
