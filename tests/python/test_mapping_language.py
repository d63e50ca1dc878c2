"""Partition trees: box, div, tile, mod, cut, children, leaves, copy.

Expected values are derived by hand from [Bhatele2012] (Figs. 4, 5, 6) and docs/rubik-semantics.md,
using the row-major rule r = sum_i x_i * prod_{j>i} N_j, never from volfft's own output.
"""
import numpy as np

from volfft.mapping import box, div, mod


def ranks_444(r0, r1, r2):
    """Ranks of box([4,4,4]) at the index sets r0 x r1 x r2, row-major (last fastest)."""
    return [16 * a + 4 * b + c for a in r0 for b in r1 for c in r2]


def leaf_ranks(tree):
    return [leaf.box.reshape(-1).tolist() for leaf in tree.leaves()]


# ----------------------------------------------------------------------------- box
def test_box_rank_positions_are_row_major():
    b = box([4, 4, 4])
    assert b.box[0, 0, 1] == 1
    assert b.box[0, 1, 0] == 4
    assert b.box[1, 0, 0] == 16
    assert b.shape == (4, 4, 4) and b.size == 64 and b.is_leaf and b.depth() == 1


def test_box_any_dimension_count_and_zero_extent():
    b = box([2, 1, 3, 1, 2])
    assert b.box[1, 0, 2, 0, 1] == 1 * 6 + 2 * 2 + 1
    empty = box([3, 0])
    assert empty.size == 0 and empty.leaves() == [empty]


# ----------------------------------------------------------------------------- Fig. 4
def test_fig4_hierarchical_div():
    domain = box([4, 4, 4])
    domain.div([1, 1, 2])
    assert domain.children.shape == (1, 1, 2)
    for child in domain:
        child.div([2, 1, 2])
    assert domain.depth() == 3
    expected = []
    for half in range(2):            # outer div along dimension 2: x2 in [2*half, 2*half + 2)
        for c0 in range(2):          # inner div: x0 in [2*c0, 2*c0 + 2)
            for c2 in range(2):      # inner div along the child's dimension 2 (extent 2)
                expected.append(ranks_444(range(2 * c0, 2 * c0 + 2), range(4), [2 * half + c2]))
    assert leaf_ranks(domain) == expected
    assert all(leaf.shape == (2, 4, 1) for leaf in domain.leaves())


# ----------------------------------------------------------------------------- Fig. 5
def fig5a_expected():
    # div([2,1,4]): child (c0, 0, c2) holds x0 in [2 c0, 2 c0 + 2), all x1, x2 = c2.
    return [ranks_444(range(2 * c0, 2 * c0 + 2), range(4), [c2])
            for c0 in range(2) for c2 in range(4)]


def test_fig5a_div():
    app = box([4, 4, 4])
    app.div([2, 1, 4])
    assert app.children.shape == (2, 1, 4)
    assert leaf_ranks(app) == fig5a_expected()


def test_fig5b_tile_gives_the_same_boxes_as_fig5a():
    app = box([4, 4, 4])
    app.tile([2, 4, 1])
    assert app.children.shape == (2, 1, 4)
    assert leaf_ranks(app) == fig5a_expected()


def test_fig5c_mod():
    app = box([4, 4, 4])
    app.mod([2, 2, 2])
    expected = [ranks_444([c0, c0 + 2], [c1, c1 + 2], [c2, c2 + 2])
                for c0 in range(2) for c1 in range(2) for c2 in range(2)]
    assert leaf_ranks(app) == expected


def test_fig5d_cut_div_div_mod():
    app = box([4, 4, 4])
    app.cut([2, 2, 2], [div, div, mod])
    expected = [ranks_444(range(2 * c0, 2 * c0 + 2), range(2 * c1, 2 * c1 + 2), [c2, c2 + 2])
                for c0 in range(2) for c1 in range(2) for c2 in range(2)]
    assert leaf_ranks(app) == expected


# ----------------------------------------------------------------------------- Fig. 6
def test_fig6_planes_mapped_into_cubes():
    app = box([9, 3, 8])
    app.tile([9, 3, 1])          # 8 planes x2 = k of 27 tasks
    network = box([6, 6, 6])
    network.tile([3, 3, 3])      # 8 cubes of 27 processors
    assert [leaf.size for leaf in app.leaves()] == [27] * 8
    assert [leaf.size for leaf in network.leaves()] == [27] * 8
    network.map(app)
    for k, (t0, t1, t2) in enumerate(np.ndindex(2, 2, 2)):
        cube = network.box[3 * t0:3 * t0 + 3, 3 * t1:3 * t1 + 3, 3 * t2:3 * t2 + 3]
        # j-th cell of cube k gets the j-th rank of plane k: (x0, x1) = divmod(j, 3).
        expected = [24 * (j // 3) + 8 * (j % 3) + k for j in range(27)]
        assert cube.reshape(-1).tolist() == expected


# ----------------------------------------------------------------------------- section 3 details
def test_div_last_chunk_absorbs_remainder_and_large_divisor_gives_empty_chunks():
    b = box([5])
    b.div([2])
    assert leaf_ranks(b) == [[0, 1], [2, 3, 4]]
    c = box([3])
    c.div([5])
    assert leaf_ranks(c) == [[], [], [], [], [0, 1, 2]]


def test_mod_lower_classes_get_the_extra_element_and_high_classes_are_empty():
    b = box([5])
    b.mod([2])
    assert leaf_ranks(b) == [[0, 2, 4], [1, 3]]
    c = box([2])
    c.mod([3])
    assert leaf_ranks(c) == [[0], [1], []]


def test_tile_non_dividing_and_larger_than_extent():
    b = box([7])
    b.tile([3])                       # divisor floor(7/3) = 2, last tile larger
    assert leaf_ranks(b) == [[0, 1, 2], [3, 4, 5, 6]]
    c = box([4, 4])
    c.tile([5, 2])                    # divisor 0 along dimension 0: no children at all
    assert c.is_leaf and c.children.size == 0 and c.leaves() == [c]


def test_tile_pads_with_ones_and_leaves_the_callers_list_alone():
    b = box([4, 4, 4])
    tiles = [2]
    b.tile(tiles)
    assert tiles == [2]
    assert b.children.shape == (2, 4, 4)
    assert leaf_ranks(b)[:2] == [[0, 16], [1, 17]]


def test_cut_with_fewer_divisors_than_dimensions_keeps_the_rest_whole():
    b = box([4, 4])
    b.cut([2], [mod])
    assert b.children.shape == (2,)
    assert leaf_ranks(b) == [list(range(0, 4)) + list(range(8, 12)),
                             list(range(4, 8)) + list(range(12, 16))]


def test_cut_accepts_any_slicer_callable_and_extra_slicers():
    def reversed_halves(array, dim, chunk, nchunks):
        n = array.shape[dim]
        return slice(n // 2, n) if chunk == 0 else slice(0, n // 2)

    b = box([4, 2])
    b.cut([2], [reversed_halves, mod, div])
    assert leaf_ranks(b) == [[4, 5, 6, 7], [0, 1, 2, 3]]


def test_recutting_discards_previous_children():
    b = box([4, 4])
    b.div([2, 2])
    b[0, 0].div([2, 1])
    assert b.depth() == 3
    b.mod([4])
    assert b.children.shape == (4,) and b.depth() == 2


def test_children_iteration_subscripts_and_node_attributes():
    b = box([4, 4, 4])
    b.div([2, 1, 2])
    kids = list(b)
    assert len(kids) == 4
    assert [k.index for k in kids] == [(0, 0, 0), (0, 0, 1), (1, 0, 0), (1, 0, 1)]
    assert b[1, 0, 1] is b.children[1, 0, 1] is kids[3]
    assert kids[3].flat_index == 3 and kids[3].level == 1 and kids[3].parent is b
    assert kids[3].root is b and kids[3].ancestors() == [b]
    assert list(kids[0]) == []           # iterating a leaf yields no children


def test_leaves_are_depth_first_not_breadth_first():
    b = box([4])
    b.div([2])
    b[0].div([2])
    # depth-first: [0], [1] (inside child 0) before [2, 3]; breadth-first would put [2, 3] first
    assert leaf_ranks(b) == [[0], [1], [2, 3]]


def test_children_are_views_into_the_root():
    b = box([4, 4])
    b.div([2, 2])
    b[1, 1].box[0, 0] = 99
    assert b.box[2, 2] == 99


# ----------------------------------------------------------------------------- copy
def test_copy_has_same_contents_and_structure_but_own_storage():
    b = box([4, 4, 4])
    b.div([1, 1, 2])
    for c in b:
        c.div([2, 1, 2])
    b[0, 0, 1].tilt(0, 1, 1)
    dup = b.copy()
    assert np.array_equal(dup.box, b.box)
    assert leaf_ranks(dup) == leaf_ranks(b)
    assert dup.depth() == 3
    assert dup.map_file_text() == b.map_file_text()
    dup.box[0, 0, 0] = -1
    assert b.box[0, 0, 0] == 0


def test_copy_of_subtree_is_a_root_with_the_subtrees_elements_in_root_order():
    b = box([4, 4])
    b.div([2, 1])
    b[1, 0].div([1, 2])
    sub = b[1, 0].copy()
    assert sub.is_root and sub.shape == (2, 4)
    assert sub.elements.tolist() == list(range(8, 16))
    assert leaf_ranks(sub) == [[8, 9, 12, 13], [10, 11, 14, 15]]


def test_pickle_round_trip_keeps_cells_cuts_and_write_through():
    import pickle

    b = box([4, 4, 4])
    b.cut([2, 1, 2], [div, div, mod])
    b[1, 0, 0].div([1, 2])
    b.tilt(0, 2, 1)
    back = pickle.loads(pickle.dumps(b))
    assert np.array_equal(back.box, b.box)
    assert leaf_ranks(back) == leaf_ranks(b)
    assert back.map_file_text() == b.map_file_text()
    back[1, 0, 0].box[...] = -1          # children of the restored tree are views again
    assert (back.box[2:, :, 0::2] == -1).all()
