"""Argument errors of the newer Plan options, at one rank (no mpirun needed)."""
from __future__ import annotations

import pytest

volfft = pytest.importorskip("volfft")
MPI = pytest.importorskip("mpi4py.MPI")


def _native_or_skip():
    from volfft._native import native

    try:
        native()
    except ImportError as error:  # pragma: no cover - depends on the build
        pytest.skip(f"volfft extension not available: {error}")


@pytest.mark.parametrize("kwargs,error,message", [
    ({"padding": 0.5}, ValueError, r"padding: expected factors >= 1"),
    ({"padding": (1.5, 2)}, ValueError, r"padding: expected a number or 3 numbers"),
    ({"padding": "x"}, TypeError, r"padding: expected numbers >= 1"),
    ({"planes": -2}, ValueError, r"planes must be an integer >= -1; got -2"),
    ({"planes": 1.5}, TypeError, r"planes: expected an int, got 1.5"),
    ({"threads": 0}, ValueError, r"threads must be an integer between 1 and 1024; got 0"),
    ({"threads": True}, TypeError, r"threads: expected an int, got True"),
    ({"backend": "mkl"}, ValueError, r"backend must be one of"),
    ({"max_in_flight": 0}, ValueError, r"max_in_flight must be an integer >= 1; got 0"),
    ({"ranks_per_node": 2 ** 70}, ValueError, r"ranks_per_node is out of range"),
    # Gaps found by probing: each names its argument instead of passing or failing elsewhere.
    ({"padding": float("nan")}, ValueError, r"padding: expected finite factors >= 1, got nan"),
    ({"padding": float("inf")}, ValueError, r"padding: expected finite factors >= 1, got inf"),
    ({"padding": "2"}, TypeError, r"padding: expected numbers >= 1, got '2'"),
    ({"padding": (True, 2, 2)}, TypeError, r"padding: expected numbers >= 1"),
    ({"threads": 10 ** 6}, ValueError, r"threads must be an integer between 1 and 1024; got 1000000"),
    ({"wisdom_file": "/"}, ValueError, r"wisdom_file '/' is a directory"),
    ({"wisdom_file": "/nonexistent-volfft-folder/w.json"}, ValueError,
     r"wisdom_file '/nonexistent-volfft-folder/w.json' lies in a folder that does not exist"),
])
def test_option_errors(kwargs, error, message):
    _native_or_skip()
    with pytest.raises(error, match=message):
        volfft.Plan(MPI.COMM_WORLD, (8, 8, 8), effort="estimate", **kwargs)


@pytest.mark.parametrize("shape,error,message", [
    ((2 ** 63, 8, 8), ValueError, r"shape: shape\[0\] = 9223372036854775808 is too large"),
    ((8, -2 ** 64, 8), ValueError, r"shape: shape\[1\] = -18446744073709551616 is too large"),
    ((2 ** 32, 2 ** 32, 2 ** 32), ValueError, r"has too many elements"),
    ((True, 8, 8), TypeError, r"shape: expected a sequence of at least 2 ints"),
    ("888", TypeError, r"shape: expected a sequence of at least 2 ints"),
])
def test_shape_errors(shape, error, message):
    _native_or_skip()
    with pytest.raises(error, match=message):
        volfft.Plan(MPI.COMM_WORLD, shape, effort="estimate")


def test_mpi_errors_have_their_own_type():
    _native_or_skip()
    # A failed MPI call is not a bad argument: MpiError is a RuntimeError, VolfftError a ValueError.
    assert issubclass(volfft.MpiError, RuntimeError)
    assert not issubclass(volfft.MpiError, ValueError)
    assert issubclass(volfft.VolfftError, ValueError)


def test_padding_shapes_one_rank():
    _native_or_skip()
    import numpy as np

    with volfft.Plan(MPI.COMM_WORLD, (8, 6, 4), padding=1.5, kind="r2c", effort="estimate") as plan:
        assert plan.shape == (12, 9, 6)
        assert plan.spectral_shape == (8, 6, 4)
        assert plan.output_global_shape == (8, 6, 3)
        x = np.random.default_rng(0).standard_normal(plan.shape)
        spec = plan.forward(x)
        full = np.fft.rfftn(x)
        # The kept m/2 (numpy's -m/2) of an even m < n holds the n-grid's -m/2 and +m/2 added.
        rows = full[np.r_[0:4, 8:12]]
        rows[4] += full[4]
        want = rows[:, np.r_[0:3, 6:9]]
        want[:, 3] += rows[:, 3]
        want = want[:, :, :3]
        assert np.allclose(spec, want)


def test_plan_options_come_from_the_library_table():
    _native_or_skip()
    options = volfft.plan_options()
    assert list(options)[:2] == ["grid", "engine"]
    assert options["engine"]["names"][:2] == ["auto", "alltoallv"]
    assert options["threads"]["default"] == "1"
    assert options["wisdom_file"]["agreed"] is True


def test_public_names_are_visible_and_errors_named_by_the_package():
    _native_or_skip()
    # Completion and help() see the lazily loaded names; tracebacks say volfft.VolfftError.
    for name in ("Plan", "scatter", "gather", "describe", "plan_options", "VolfftError", "MpiError"):
        assert name in dir(volfft)
    assert "annotations" not in dir(volfft)
    assert volfft.VolfftError.__module__ == "volfft" and volfft.MpiError.__module__ == "volfft"
    assert repr(volfft.VolfftError) == "<class 'volfft.VolfftError'>"
