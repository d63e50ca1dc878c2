"""fluidfft's own test classes for the volfft methods, plus checks of the values against numpy.

fluidfft's tests (``complete_test_class_3d``/``complete_test_class_2d``) check round trips,
energies, spectra, operators, gather and scatter, but energies do not see a wrong axis order;
the ``Values`` tests compare every rank's spectrum with ``numpy.fft.rfftn`` of the same global
field and differentiate through fluidfft's operators (its wavenumbers on volfft's layout).

Run under MPI, every rank the same tests in the same order (they are collective):

    mpirun -n 4 python -m mpi4py -m pytest plugins/fluidfft-volfft/tests -q -p no:cacheprovider
    mpirun -n 4 python plugins/fluidfft-volfft/tests/run_fluidfft_tests.py
"""
from __future__ import annotations

import os
import unittest
from math import pi

import numpy as np
from mpi4py import MPI

from fluidfft import import_fft_class
from fluidfft.fft2d.operators import OperatorsPseudoSpectral2D
from fluidfft.fft2d.testing import complete_test_class_2d
from fluidfft.fft3d.operators import OperatorsPseudoSpectral3D, vector_product
from fluidfft.fft3d.testing import complete_test_class_3d

METHOD_3D = "fft3d.mpi_with_volfft"
METHOD_2D = "fft2d.mpi_with_volfft"
# fluidfft's FFTW-MPI method (the fluidfft-fftwmpi plugin), compared with when installed.
METHOD_FFTWMPI_3D = "fft3d.mpi_with_fftwmpi3d"

COMM = MPI.COMM_WORLD


class TestsFluidfft3D(unittest.TestCase):
    """fluidfft's 3-D test functions (filled in below)."""


class TestsFluidfft2D(unittest.TestCase):
    """fluidfft's 2-D test functions (filled in below)."""


# (fluidfft's skip_if_import_error=True, the default, means: raise ImportError, not skip.)
complete_test_class_3d(METHOD_3D, TestsFluidfft3D)
complete_test_class_2d(METHOD_2D, TestsFluidfft2D)


def _global_field(shape, seed):
    # The same global field on every rank: each rank cuts its own block, no scatter needed.
    return np.random.default_rng(seed).random(shape)


def _local_block(op, field):
    start = op.get_seq_indices_first_X()
    return np.ascontiguousarray(field[tuple(slice(s, s + n) for s, n in zip(start, op.get_shapeX_loc()))])


def _expected_spectrum(op, field):
    """fluidfft's spectrum of ``field`` (numpy, normalised by 1/N), in fluidfft's spectral axis
    order and cut to this rank's block."""
    whole = np.fft.rfftn(field) / field.size
    whole = whole.transpose(op.get_dimX_K())
    start = op.get_seq_indices_first_K()
    return whole[tuple(slice(s, s + n) for s, n in zip(start, op.get_shapeK_loc()))]


def _installed(method):
    try:
        return import_fft_class(method, raise_import_error=False) is not None
    except Exception:  # not registered at all (fluidfft raises for unknown names)
        return False


def _fft3d_with_options(options):
    base = import_fft_class(METHOD_3D)
    return type("FFT3DMPIWithVolfftOptions", (base,), {"plan_options": options})


class Values(unittest.TestCase):
    """Spectra against numpy, layouts, and the no-copy hot path."""

    def check_3d(self, cls, shape):
        op = cls(*shape)
        self.assertIn(op.get_dimX_K(), ((0, 1, 2), (1, 0, 2), (2, 1, 0), (1, 2, 0)))
        field = _global_field(shape, seed=sum(shape))
        local = _local_block(op, field)
        expected = _expected_spectrum(op, field)
        spectrum = op.fft(local)
        self.assertEqual(spectrum.shape, op.get_shapeK_loc())
        np.testing.assert_allclose(spectrum, expected, atol=1e-13)
        np.testing.assert_allclose(op.ifft(spectrum), local, atol=1e-13)
        # The *_as_arg path with fluidfft's C-contiguous arrays: nothing staged (no copy).
        fieldK = op.create_arrayK(0.0)
        fieldX = op.create_arrayX(0.0)
        op.fft_as_arg(local, fieldK)
        op.ifft_as_arg(fieldK, fieldX)
        np.testing.assert_allclose(fieldK, expected, atol=1e-13)
        np.testing.assert_allclose(fieldX, local, atol=1e-13)
        self.assertEqual(op.plan.staging_bytes, 0)
        # Whole arrays back and forth.
        whole = op.gather_Xspace(local, root=0)
        if COMM.rank == 0:
            np.testing.assert_array_equal(whole, field)
        np.testing.assert_array_equal(op.scatter_Xspace(whole, root=0), local)
        np.testing.assert_array_equal(op.gather_Xspace(local, root=None), field)
        return op

    def test_3d_values_default(self):
        for shape in ((4, 8, 12), (5, 3, 7), (6, 10, 9)):
            with self.subTest(shape=shape):
                self.check_3d(import_fft_class(METHOD_3D), shape)

    def test_3d_values_pencils_p0_is_1(self):
        # grid (1, P): volfft's transposed order is (0, 2, 1), which fluidfft's operators do not
        # know; the class falls back to layout "natural" (C order).
        op = self.check_3d(_fft3d_with_options({"grid": (1, COMM.size)}), (6, 8, 10))
        if COMM.size > 1:
            self.assertEqual(op.get_dimX_K(), (0, 1, 2))

    @unittest.skipUnless(COMM.size == 4, "a 2 x 2 grid needs 4 ranks")
    def test_3d_values_pencils_2x2(self):
        op = self.check_3d(_fft3d_with_options({"grid": (2, 2), "engine": "alltoallv"}), (6, 8, 10))
        self.assertEqual(op.plan.grid, (2, 2))
        self.assertEqual(op.get_dimX_K(), (1, 2, 0))

    def test_3d_derivatives_through_operators(self):
        # d/dx, d/dy, d/dz of a field whose derivatives are known, through fluidfft's
        # wavenumbers (op.Kx, op.Ky, op.Kz) on volfft's spectral layout.
        nx, ny, nz = 12, 10, 8
        lx, ly, lz = 2 * pi, 4 * pi, 3 * pi
        op = OperatorsPseudoSpectral3D(nx, ny, nz, lx, ly, lz, fft=METHOD_3D)
        X, Y, Z = op.get_XYZ_loc()
        kx, ky, kz = 2 * pi / lx * 3, 2 * pi / ly * 2, 2 * pi / lz * 1
        f = np.sin(kx * X) * np.cos(ky * Y) * np.sin(kz * Z)
        f_fft = op.fft(np.ascontiguousarray(f))
        for K, expected in ((op.Kx, kx * np.cos(kx * X) * np.cos(ky * Y) * np.sin(kz * Z)),
                            (op.Ky, -ky * np.sin(kx * X) * np.sin(ky * Y) * np.sin(kz * Z)),
                            (op.Kz, kz * np.sin(kx * X) * np.cos(ky * Y) * np.cos(kz * Z))):
            np.testing.assert_allclose(op.ifft(1j * K * f_fft), expected, atol=1e-12)

    @unittest.skipUnless(_installed(METHOD_FFTWMPI_3D),
                         "fluidfft-fftwmpi (fft3d.mpi_with_fftwmpi3d) is not installed")
    def test_3d_nonlinear_term_as_fftwmpi3d(self):
        # fluidsim's ns3d nonlinear term on both methods, whose spectral layouts differ
        # (volfft (1, 2, 0), fftwmpi (1, 0, 2)): u and omega = curl u from a dealiased
        # spectrum, u x omega back to spectral space, dealiased and projected perpendicular to k,
        # then in real space again. The same fields (gathered) and the same energy to rounding.
        nx, ny, nz = 16, 12, 8
        lx, ly, lz = 2 * pi, 3 * pi, 4 * pi
        rng = np.random.default_rng(16)
        fields = [rng.random((nz, ny, nx)) for _ in range(3)]
        results = {}
        for method in (METHOD_3D, METHOD_FFTWMPI_3D):
            op = OperatorsPseudoSpectral3D(nx, ny, nz, lx, ly, lz, fft=method,
                                           coef_dealiasing=2 / 3)
            dealiased = op.where_dealiased.astype(bool)
            v_fft = [op.fft(_local_block(op.oper_fft, f)) for f in fields]
            for f in v_fft:
                f[dealiased] = 0
            v = [op.ifft(f) for f in v_fft]
            omega = [op.ifft(np.ascontiguousarray(f)) for f in op.rotfft_from_vecfft(*v_fft)]
            n_fft = [op.fft(np.ascontiguousarray(f)) for f in vector_product(*v, *omega)]
            for f in n_fft:
                f[dealiased] = 0
            op.project_perpk3d(*n_fft)
            energy = op.sum_wavenumbers(sum(np.abs(f) ** 2 for f in v_fft)) / 2
            results[method] = ([op.gather_Xspace(op.ifft(f), root=None) for f in n_fft], energy)
        (volfft_n, volfft_energy), (fftwmpi_n, fftwmpi_energy) = results.values()
        self.assertGreater(volfft_energy, 0.1)
        self.assertAlmostEqual(volfft_energy, fftwmpi_energy, delta=1e-14)
        for a, b in zip(volfft_n, fftwmpi_n):
            self.assertEqual(a.shape, (nz, ny, nx))
            self.assertGreater(np.abs(b).max(), 0.1)
            np.testing.assert_allclose(a, b, rtol=0, atol=1e-13)

    def test_2d_values(self):
        cls = import_fft_class(METHOD_2D)
        for shape in ((16, 24), (11, 13), (24, 48)):
            with self.subTest(shape=shape):
                op = cls(*shape)
                self.assertEqual(op.get_is_transposed(), COMM.size > 1)
                field = _global_field(shape, seed=sum(shape))
                local = _local_block(op, field)
                expected = _expected_spectrum(op, field)
                spectrum = op.create_arrayK(0.0)
                op.fft_as_arg(local, spectrum)
                np.testing.assert_allclose(spectrum, expected, atol=1e-13)
                back = op.create_arrayX(0.0)
                op.ifft_as_arg(spectrum, back)
                np.testing.assert_allclose(back, local, atol=1e-13)
                self.assertEqual(op.plan.staging_bytes, 0)
                np.testing.assert_array_equal(op.gather_Xspace(local), field)

    def check_whole_arrays(self, op, field):
        """gather_Xspace to rank 0 and to all, scatter_Xspace from rank 0: the global field."""
        local = _local_block(op, field)
        whole = op.gather_Xspace(local, root=0)
        if COMM.rank == 0:
            np.testing.assert_array_equal(whole, field)
        np.testing.assert_array_equal(op.gather_Xspace(local, root=None), field)
        np.testing.assert_array_equal(op.scatter_Xspace(field if COMM.rank == 0 else None, root=0), local)

    def test_2d_whole_arrays_with_empty_ranks(self):
        """One row: rank 0 holds the whole real-space array and the others none. gather_Xspace
        and scatter_Xspace are collective on every rank all the same (rank 0 returned at once,
        deciding alone that nothing was distributed, and the others hung in the gather)."""
        op = import_fft_class(METHOD_2D)(1, 8)
        field = _global_field((1, 8), seed=9)
        self.check_whole_arrays(op, field)

    def test_3d_whole_arrays_with_empty_ranks(self):
        """ny = 1 on a 1 x P grid: rank 0 holds the whole real-space array. fluidfft's
        BaseFFTMPI set _is_mpi_lib per rank over the plugin's, so rank 0 returned from
        gather_Xspace at once and the others hung in its collective."""
        op = _fft3d_with_options({"grid": (1, COMM.size)})(5, 1, 6)
        field = _global_field((5, 1, 6), seed=11)
        self.check_whole_arrays(op, field)

    def test_3d_operators_where_a_rank_would_hold_everything(self):
        """ny = 1: volfft's rule takes the grid 1 x P, where rank 0 holds the whole real-space
        array; fluidfft's operators decide per rank that they are not distributed and ran their
        spectra's collectives on the other ranks only (a hang). The plugin takes slabs there
        (other rank counts may take another grid on which no rank holds everything), also where
        nz = 2 is less than the ranks (some hold nothing; it kept 1 x P there and hung at np 3)."""
        for nz in (5, 2):
            op = OperatorsPseudoSpectral3D(6, 1, nz, 1.0, 1.0, 1.0, fft=METHOD_3D)
            fft = op.oper_fft
            holds_all = COMM.allreduce(int(tuple(fft.get_shapeX_loc()) == tuple(fft.get_shapeX_seq())), op=MPI.MAX)
            self.assertEqual(bool(holds_all), COMM.size == 1, (nz, fft.plan.grid))
            energy = np.abs(op.create_arrayK(1.0)) ** 2
            spectra = op.compute_1dspectra(energy)
            self.assertTrue(all(np.all(np.isfinite(s)) for s in spectra))

    def test_3d_spectra_where_a_rank_holds_no_kx(self):
        """(nz, ny, nx) = (2, 3, 4) at np 4 (grid 1 x 4): rank 3 holds no kx (nx // 2 + 1 = 3
        planes for 4 ranks). It reported its first kx as 3 = nx // 2 + 1, so fluidfft's spectra
        took its empty block for the one holding the Nyquist plane and indexed it at -1
        (IndexError on that rank alone; the others waited in the spectra's allreduce)."""
        op = OperatorsPseudoSpectral3D(4, 3, 2, 1.0, 1.0, 1.0, fft=METHOD_3D)
        fft = op.oper_fft
        field = _global_field((2, 3, 4), seed=5)
        field_fft = fft.fft(_local_block(fft, field))
        energy = np.abs(field_fft) ** 2
        spectra = op.compute_1dspectra(energy)
        self.assertTrue(all(np.all(np.isfinite(s)) for s in spectra))
        expected = np.sum(np.abs(np.fft.fftn(field) / field.size) ** 2)
        self.assertAlmostEqual(op.sum_wavenumbers_versatile(energy), expected)
        self.assertAlmostEqual(op.sum_wavenumbers(energy), expected)
        self.assertAlmostEqual(op.compute_3dspectrum(energy).sum() * op.deltak, expected)

    def test_bad_arrays_are_named_in_fluidfft_terms_on_every_rank(self):
        """volfft names its own arguments (a, out) and global-axes shapes; the plugin's message
        names fieldX/fieldK, fluidfft's shapes and the ranks whose arrays are wrong, the same on
        every rank (only rank 0 passes the bad array: the others must not hang)."""
        fft = import_fft_class(METHOD_3D)(6, 8, 10)
        fieldX = np.ascontiguousarray(np.random.default_rng(2).random(fft.get_shapeX_loc()))
        fieldK = fft.create_arrayK(0.0)
        where = "rank 0: " if COMM.size > 1 else ""
        shapeK = fft.get_shapeK_loc()
        bad_shape = np.zeros((shapeK[0] + 1,) + tuple(shapeK[1:]), np.complex128) if COMM.rank == 0 else fieldK
        with self.assertRaisesRegex(ValueError, f"^fft_as_arg: {where}fieldK has shape .* expected "
                                                r"get_shapeK_loc\(\) = "):
            fft.fft_as_arg(fieldX, bad_shape)
        fortran = np.asfortranarray(fieldK) if COMM.rank == 0 else fieldK
        self.assertTrue(COMM.rank != 0 or not fortran.flags.c_contiguous, fieldK.shape)
        with self.assertRaisesRegex(ValueError, f"^fft_as_arg: {where}fieldK is not C-contiguous"):
            fft.fft_as_arg(fieldX, fortran)
        wrong_dtype = fieldX.astype(np.float32) if COMM.rank == 0 else fieldX
        with self.assertRaisesRegex(TypeError, f"^ifft_as_arg: {where}fieldX has shape .* and dtype float32"):
            fft.ifft_as_arg(fieldK, wrong_dtype)
        # And the plan still works afterwards.
        fft.fft_as_arg(fieldX, fieldK)

    def test_options_variable_takes_lists_of_integers(self):
        """FLUIDFFT_VOLFFT_OPTIONS: colon-separated integers are a list, so that a placement
        (rank_order) can be given there; a slab grid with the ranks in reverse order puts rank
        P - 1 - r at grid position r."""
        from fluidfft_volfft._common import OPTIONS_VARIABLE, parse_options

        self.assertEqual(parse_options("grid=2x2,rank_order=3:2:1:0,threads=2,verbose=false"),
                         {"grid": "2x2", "rank_order": (3, 2, 1, 0), "threads": 2, "verbose": False})
        if COMM.size == 1:
            return
        order = ":".join(str(r) for r in reversed(range(COMM.size)))
        os.environ[OPTIONS_VARIABLE] = f"grid={COMM.size}x1,rank_order={order},effort=estimate"
        try:
            fft = import_fft_class(METHOD_3D)(COMM.size, 4, 6)
        finally:
            del os.environ[OPTIONS_VARIABLE]
        self.assertEqual(tuple(fft.plan.grid_position), (COMM.size - 1 - COMM.rank, 0))
        fieldX = np.ascontiguousarray(_local_block(fft, _global_field((COMM.size, 4, 6), seed=4)))
        self.assertTrue(np.allclose(fft.ifft(fft.fft(fieldX)), fieldX))

    def test_options_that_change_the_transform_are_refused(self):
        for options in ({"destroy_input": True}, {"batch": 2}, {"batch_layout": "inner"}, {"kinds": ("dft",) * 3}):
            with self.subTest(options=options):
                with self.assertRaisesRegex(ValueError, "cannot be chosen: fluidfft fixes the transform"):
                    _fft3d_with_options(options)(4, 4, 4)

    def test_2d_derivatives_through_operators(self):
        nx, ny, lx, ly = 24, 16, 2 * pi, 3 * pi
        op = OperatorsPseudoSpectral2D(nx, ny, lx, ly, fft=METHOD_2D)
        kx, ky = 2 * pi / lx * 5, 2 * pi / ly * 3
        f = np.sin(kx * op.XX) * np.cos(ky * op.YY)
        f_fft = op.fft(np.ascontiguousarray(f))
        np.testing.assert_allclose(op.ifft(1j * op.KX * f_fft),
                                   kx * np.cos(kx * op.XX) * np.cos(ky * op.YY), atol=1e-12)
        np.testing.assert_allclose(op.ifft(1j * op.KY * f_fft),
                                   -ky * np.sin(kx * op.XX) * np.sin(ky * op.YY), atol=1e-12)
