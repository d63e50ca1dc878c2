"""Loads the compiled extension ``volfft._volfft`` on first use.

A wheel (``pip install .``) puts the extension inside the package. A plain CMake build leaves it
in the build tree; setting ``VOLFFT_EXTENSION_DIR`` to the folder that holds ``_volfft*.so``
makes that build importable without installing (the tests and ctest do this). When the package
itself is imported from a source tree (``PYTHONPATH=python``) while a wheel is installed too,
the installed wheel's extension is used.
"""
from __future__ import annotations

import glob
import importlib
import os
import sys
from types import ModuleType

_module: ModuleType | None = None


def native() -> ModuleType:
    """The extension module ``volfft._volfft``.

    Raises
    ------
    ImportError
        When the extension is neither installed nor found in ``$VOLFFT_EXTENSION_DIR``; the
        message says how to build it.
    """
    global _module
    if _module is not None:
        return _module
    import volfft

    extra = os.environ.get("VOLFFT_EXTENSION_DIR")
    if extra:
        # Searched first, so that a fresh build tree wins over an older installed copy.
        extra = os.path.abspath(extra)
        if extra not in volfft.__path__:
            volfft.__path__.insert(0, extra)
    try:
        _module = importlib.import_module("volfft._volfft")
    except ImportError as error:
        _module = _from_installed_copy(volfft)
        if _module is None:
            raise ImportError(
                "volfft's compiled extension (volfft._volfft) is not available: install the "
                "package with `pip install .`, or build it with CMake (-DVOLFFT_PYTHON=ON) and "
                "set VOLFFT_EXTENSION_DIR to the folder holding _volfft*.so "
                f"(import error: {error})"
            ) from error
    return _module


def _from_installed_copy(package: ModuleType) -> ModuleType | None:
    """The extension of another copy of the package on sys.path (an installed wheel), if any."""
    for entry in sys.path:
        folder = os.path.join(os.path.abspath(entry or os.curdir), "volfft")
        if folder in package.__path__ or not glob.glob(os.path.join(folder, "_volfft*.so")):
            continue
        package.__path__.append(folder)
        try:
            return importlib.import_module("volfft._volfft")
        except ImportError:
            package.__path__.remove(folder)
    return None
