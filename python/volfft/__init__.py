"""volfft: distributed 2-D and 3-D FFTs on MPI, with placement and performance models.

The subpackages :mod:`volfft.mapping` and :mod:`volfft.model` are pure Python + numpy and
import without MPI. The distributed transforms (:class:`volfft.Plan`) need the compiled
extension and mpi4py; they are loaded on first use so that ``import volfft.mapping`` works on a
login node without MPI.
"""
__version__ = "0.1.0"

_LAZY = {
    "Plan": "volfft.plan",
    "LocalArray": "volfft.plan",
    "scatter": "volfft.plan",
    "gather": "volfft.plan",
    "describe": "volfft.plan",
    "plan_options": "volfft.plan",
    "VolfftError": "volfft.plan",
    "MpiError": "volfft.plan",
    "Reshape": "volfft.reshape",
    "LocalBox": "volfft.distribution",
    "slabs": "volfft.distribution",
    "pencils": "volfft.distribution",
    "bricks": "volfft.distribution",
    "fftw_blocks": "volfft.distribution",
}


def __dir__():
    # The lazily loaded names too, so that completion and help() show Plan, scatter, gather...
    return sorted(set(globals()) | set(_LAZY))


def __getattr__(name: str):
    # Lazy import: the native module pulls in MPI, which pure-Python users do not need.
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'volfft' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)


__all__ = sorted(_LAZY) + ["__version__"]
