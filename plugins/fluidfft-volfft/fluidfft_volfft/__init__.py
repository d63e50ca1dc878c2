"""fluidfft plugin: volfft's distributed FFTs as fluidfft methods.

Methods (entry points of the group ``fluidfft.plugins``):

* ``fft3d.mpi_with_volfft``: :class:`fluidfft_volfft.mpi_with_volfft.FFT3DMPIWithVolfft`
* ``fft2d.mpi_with_volfft``: :class:`fluidfft_volfft.mpi_with_volfft2d.FFT2DMPIWithVolfft`

``fluidfft.import_fft_class("fft3d.mpi_with_volfft")`` finds them once this package is
installed; nothing is imported from volfft until a class is loaded. The layouts and how they
map onto fluidfft's conventions are described in the two modules.
"""
__version__ = "0.1.0"
