"""volfft.model: predict exchange and FFT times of a plan on a machine, before it runs.

Pure Python + numpy; imports without MPI or the compiled extension. The inputs are

* a :class:`Machine` (:func:`blue_gene_l`, or a calibrated file via :func:`load_machine`),
* a plan description (``volfft.describe(shape, grid=..., kind=...)``; contract in
  docs/model.md),
* a placement (a :mod:`volfft.mapping` placement or node coordinates per world rank).

Three estimators price an exchange: [Jagode2008]'s bisection model (:func:`bisection_time`,
:func:`m_numbers`), [Eleftheriou2005]'s all-to-all bound (:func:`alltoall_bound`) and a link-level flow
simulator (:func:`simulate`); :func:`predict_transform` adds FFT stages and pack/unpack.
"""
from __future__ import annotations

from .alltoall_bound import alltoall_bound, closed_form_time
from .bisection import bisection_time, eq16_time, m_numbers
from .description import check_description, load_describe, total_bytes
from .exchange import ESTIMATORS, estimate_exchange
from .machine import (Machine, blue_gene_l, blue_gene_p, load_machine, packet_efficiency,
                      this_machine)
from .placement import ArrayPlacement, resolve_placement
from .simulator import ROUTINGS, simulate
from .traffic import exchange_traffic
from .transform import predict_transform

__all__ = [
    "ESTIMATORS",
    "ROUTINGS",
    "ArrayPlacement",
    "Machine",
    "alltoall_bound",
    "bisection_time",
    "blue_gene_l",
    "blue_gene_p",
    "check_description",
    "closed_form_time",
    "eq16_time",
    "estimate_exchange",
    "exchange_traffic",
    "load_describe",
    "load_machine",
    "m_numbers",
    "packet_efficiency",
    "predict_transform",
    "resolve_placement",
    "simulate",
    "this_machine",
    "total_bytes",
]
