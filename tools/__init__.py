"""Test and experiment infrastructure of volfft (not part of the installed package).

:mod:`tools.vcluster`: an emulated cluster on one Linux machine (network namespaces, shaped
links, MPI launched across them). Import it from the repository root, or with the repository
root on ``PYTHONPATH``; pytest's configuration in ``pyproject.toml`` puts it there for the tests.
"""
