"""docs/rubik-semantics.md section 10: where volfft.mapping differs from Rubik on purpose, and every
error rule with its message (each message names the argument and what was expected)."""
import numpy as np
import pytest

from volfft.mapping import box, div, mod


# ----------------------------------------------------------------------------- deliberate differences
def test_subscripts_select_children():
    b = box([4, 4, 4])
    b.div([2, 1, 1])
    assert b[1, 0, 0] is b.children[1, 0, 0]


def test_subscript_errors_name_the_problem():
    b = box([4, 4])
    with pytest.raises(IndexError, match="no children; cut it first"):
        b[0, 0]
    b.div([2, 2])
    with pytest.raises(IndexError, match=r"out of range .* shape \(2, 2\)"):
        b[2, 0]
    with pytest.raises(IndexError, match="one index per dimension"):
        b[0]


def test_zigzag_depth_and_stride_default_to_one():
    a, b = box([4, 4]), box([4, 4])
    a.zigzag(0, 1)
    b.zigzag(0, 1, 1, 1)
    assert np.array_equal(a.box, b.box)


def test_compatible_returns_false_instead_of_crashing():
    a = box([4])
    a.div([2])
    assert a.compatible(box([4])) is False


def test_map_checks_per_leaf_sizes_and_names_the_first_mismatching_pair():
    src = box([6])
    src.cut([2], [div])           # leaves of 3 and 3
    dst = box([6])
    dst.cut([2], [mod])           # mod classes of 3 and 3: compatible
    dst.map(src)
    bad = box([2, 3])
    bad.div([1, 2])               # leaves of 2 (column 0) and 4 (columns 1, 2): same count, total
    with pytest.raises(ValueError, match=r"leaf 0 \(depth-first\) of the source has 3 cells but "
                                         r"leaf 0 of the target has 2"):
        bad.map(src)


def test_map_keeps_rubiks_count_and_size_messages():
    src = box([4])
    src.div([2])
    with pytest.raises(ValueError, match=r"Attempted to map 2-leaf partition onto 1-leaf "
                                         r"partition\."):
        box([4]).map(src)
    with pytest.raises(ValueError, match=r"Attempted to map size 4 partition onto size 6 "
                                         r"partition\."):
        t = box([6])
        t.div([2])
        t.map(src)


def test_zorder_is_a_permutation_where_rubik_truncates_bits():
    # 8-D with an extent of 300 > 2^floor(64/8): Rubik's encoder masks bits and loses ranks.
    b = box([300, 1, 1, 1, 1, 1, 1, 2])
    b.zorder()
    assert np.array_equal(np.sort(b.box.reshape(-1)), np.arange(600))
    # Morton order here: bits of x0 above bit 0, then x7, then bit 0 of x0 (weights 8b, 7, 0),
    # so the rank at (x0, x7) is 4*(x0 // 2) + 2*x7 + x0 % 2.
    for x0 in range(300):
        for x7 in range(2):
            assert b.box[x0, 0, 0, 0, 0, 0, 0, x7] == 4 * (x0 // 2) + 2 * x7 + x0 % 2


def test_zorder_on_empty_boxes_is_a_no_op():
    for shape in ([0], [0, 3], [2, 0, 2]):
        b = box(shape)
        b.zorder()
        assert b.size == 0


def test_transpose_is_defined_and_checks_axes():
    b = box([2, 3])
    b.transpose([1, 0])
    assert b.box.tolist() == [[0, 3, 1], [4, 2, 5]]
    with pytest.raises(ValueError, match=r"transpose\(\): axes must be a permutation of 0..1"):
        b.transpose([0, 0])


@pytest.mark.parametrize("op", ["div", "mod"])
@pytest.mark.parametrize("bad", [0, -2])
def test_zero_or_negative_divisors_raise(op, bad):
    b = box([4, 4])
    with pytest.raises(ValueError, match=rf"{op}\(\): divisors\[1\] must be a positive integer, "
                                         rf"got {bad}"):
        getattr(b, op)([2, bad])
    assert b.is_leaf


@pytest.mark.parametrize("bad", [0, -1])
def test_cut_zero_or_negative_divisor_raises(bad):
    with pytest.raises(ValueError, match=rf"cut\(\): divisors\[0\] must be a positive integer, "
                                         rf"got {bad}"):
        box([4]).cut([bad], div)


@pytest.mark.parametrize("bad", [0, -3])
def test_zero_or_negative_tile_extents_raise(bad):
    with pytest.raises(ValueError, match=rf"tile\(\): tile_dims\[0\] must be a positive tile "
                                         rf"extent, got {bad}"):
        box([4, 4]).tile([bad, 2])


def test_non_dividing_and_too_large_divisors_keep_rubiks_result():
    b = box([5])
    b.div([7])
    assert [leaf.size for leaf in b.leaves()] == [0] * 6 + [5]
    t = box([3, 3])
    t.tile([4, 1])
    assert t.is_leaf


@pytest.mark.parametrize("method, args, name", [
    ("tilt", (-1, 1, 1), "axis"), ("tilt", (0, 3, 1), "direction"),
    ("zigzag", (0, -1, 1, 1), "direction"), ("zigzag", (5, 1, 1, 1), "axis"),
    ("shear", (0, -2, 1), "direction"), ("shear", (3, 0, 1), "axis"),
])
def test_negative_or_out_of_range_dimension_indices_raise(method, args, name):
    b = box([3, 3, 3])
    with pytest.raises(IndexError, match=rf"{method}\(\): {name} must be a dimension index in "
                                         rf"0..2 for this 3-D box"):
        getattr(b, method)(*args)


def test_too_many_divisors_tiles_or_too_few_slicers_raise_index_errors():
    b = box([4, 4])
    with pytest.raises(IndexError, match=r"div\(\): divisors has 3 entries but the box has only "
                                         r"2 dimensions"):
        b.div([1, 1, 1])
    with pytest.raises(IndexError, match=r"mod\(\): divisors has 3 entries"):
        b.mod([1, 1, 1])
    with pytest.raises(IndexError, match=r"tile\(\): tile_dims has 3 entries"):
        b.tile([1, 1, 1])
    with pytest.raises(IndexError, match=r"cut\(\): slicers has 1 entries but divisors has 2"):
        b.cut([2, 2], [div])


def test_slicers_must_be_callables():
    with pytest.raises(TypeError, match=r"cut\(\): slicers must be a slicer"):
        box([4]).cut([2], "div")
    with pytest.raises(TypeError, match=r"cut\(\): slicers\[1\] must be a callable slicer"):
        box([4, 4]).cut([2, 2], [div, "mod"])


def test_tile_does_not_modify_the_callers_list():
    tiles = [2]
    box([4, 4, 4]).tile(tiles)
    assert tiles == [2]
    dims = (2,)
    box([4, 4]).tile(dims)
    assert dims == (2,)


def test_write_map_file_on_a_child_writes_global_coordinates():
    b = box([4, 4])
    b.div([2, 1])
    text = b[1, 0].map_file_text()
    assert text == "".join(f"{x} {y}\n" for x in (2, 3) for y in range(4))
    m = box([4, 4])
    m.mod([1, 2])
    assert m[0, 1].map_file_text().splitlines()[:3] == ["0 1", "0 3", "1 1"]


def test_map_from_or_onto_a_child_raises_instead_of_leaving_stale_lists():
    src = box([4])
    src.div([2])
    dst = box([8])
    dst.div([2])
    with pytest.raises(ValueError, match=r"map\(\): the source must be a root node; use "
                                         r"source.copy\(\)"):
        box([2]).map(src[1])
    with pytest.raises(ValueError, match=r"map\(\): the target must be a root node"):
        dst[0].map(src)
    # the documented way round: copy the subtree into a root of its own
    piece = box([2])
    piece.map(src[1].copy())
    assert piece.box.tolist() == [2, 3] and piece.map_file_text() == "0\n1\n"


# ----------------------------------------------------------------------------- argument types
def test_box_argument_errors():
    with pytest.raises(TypeError, match=r"box\(\): dims must list at least one extent"):
        box([])
    with pytest.raises(ValueError, match=r"box\(\): dims\[1\] is -2; negative dimensions are not "
                                         r"allowed"):
        box([3, -2])
    with pytest.raises(TypeError, match=r"box\(\): dims\[0\] must be an integer, got 2.5"):
        box([2.5])
    with pytest.raises(TypeError, match=r"box\(\): dims must be a list or tuple"):
        box("44")


def test_tilt_and_zigzag_argument_errors():
    b = box([4, 4])
    with pytest.raises(ValueError, match=r"tilt\(\): axis cannot be the same as the tilt "
                                         r"dimension"):
        b.tilt(1, 1, 1)
    with pytest.raises(ValueError, match=r"zigzag\(\): axis cannot be the zigzag dimension"):
        b.zigzag(0, 0, 1, 1)
    with pytest.raises(ValueError, match=r"shear\(\): axis cannot be same as shear direction"):
        b.shear(1, 1, 1)
    with pytest.raises(TypeError, match=r"tilt\(\): slope must be an integer, got 0.5"):
        b.tilt(0, 1, 0.5)
    with pytest.raises(ValueError, match=r"zigzag\(\): stride must be a positive integer, got 0"):
        b.zigzag(0, 1, 1, 0)
    with pytest.raises(TypeError, match=r"zigzag\(\): depth must be an integer"):
        b.zigzag(0, 1, 1.5, 1)
    with pytest.raises(TypeError, match=r"map\(\): source must be a Partition"):
        b.map([1, 2])
    assert b.box.tolist() == np.arange(16).reshape(4, 4).tolist()  # nothing was half-applied
