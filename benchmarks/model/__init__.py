"""Paper reproductions of volfft's performance model (not part of the installed package).

:mod:`benchmarks.model.validate` recomputes [Jagode2008]'s Table 1 and predicts its appendix
Tables 2-3 and [Bhatele2012]'s Fig. 1 with :mod:`volfft.model`; :mod:`benchmarks.model.paper_data`
holds the papers' printed numbers, used only for comparison. Citations: docs/references.md.
Run from the repository root: ``python3 -m benchmarks.model.validate``.
"""
