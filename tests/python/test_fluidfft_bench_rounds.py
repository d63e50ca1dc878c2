"""benchmarks/fluidfft_bench_rounds.py reads fluidfft-bench's printout: each method's medians
come before its "total time bench for lib" line (a printout of fluidfft 0.4.5, shortened)."""
from __future__ import annotations

import pytest

import fluidfft_bench_rounds  # benchmarks/, on sys.path by conftest.py

PRINTOUT = """Internal bench (FFT3DMPIWithFFTWMPI3D)
time fft_as_arg:
\tmedian = 0.005018 s
\tmean =   0.005120 s
time ifft_as_arg:
\tmedian = 0.007498 s
time return_fft:
\tmedian = 0.005266 s
total time bench for lib fft3dmpiwithfftwmpi3d: 1.13 s
Internal bench (FFT3DMPIWithVolfft)
time fft_as_arg:
\tmedian = 0.005980 s
time ifft_as_arg:
\tmedian = 0.006260 s
total time bench for lib fft3dmpiwithvolfft: 0.77 s
"""


def test_parse_takes_each_methods_own_medians():
    got = fluidfft_bench_rounds.parse(PRINTOUT)
    assert got == {"fft3dmpiwithfftwmpi3d": pytest.approx((0.005018, 0.007498)),
                   "fft3dmpiwithvolfft": pytest.approx((0.005980, 0.006260))}


def test_parse_of_a_failed_run_is_empty():
    assert fluidfft_bench_rounds.parse("mpirun: error\n") == {}


def test_a_missing_fluidfft_bench_is_refused(capsys):
    with pytest.raises(SystemExit):
        fluidfft_bench_rounds.main(["--fluidfft-bench", "/nonexistent/fluidfft-bench"])
    assert "no fluidfft-bench at /nonexistent/fluidfft-bench" in capsys.readouterr().err
