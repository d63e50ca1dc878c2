"""Argument errors agreed between ranks: an argument wrong on one rank raises the same exception
(type and message) on every rank, instead of leaving the others waiting in a collective.

Two ways in. Before a collective of Python's own (a plan's construction, scatter, gather),
:func:`agree_on_errors` gathers every rank's error and the values that must be the same
everywhere. Inside a library call (a transform, a reshape), the other ranks are already in the
library's own agreement, which carries text only: :func:`fail_call` sends this rank's problem
there with its type marked, and :func:`native_call` raises it on the other ranks with that type.
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Dict, Iterator, NoReturn, Optional

from volfft._native import native

#: Marks an agreed problem that was a TypeError on the rank that found it.
_TYPE_ERROR = "[TypeError] "


def agree_on_errors(comm: Any, error: Optional[Exception], same: Optional[Dict[str, Any]] = None) -> None:
    """Raise the lowest failing rank's error on every rank, if any rank has one; else, if a value
    of ``same`` (name -> value) differs between ranks, a VolfftError naming it on every rank.
    Collective.

    Errors travel as (type, message), so every rank raises the same TypeError or VolfftError.
    """
    mine = None if error is None else ("type" if isinstance(error, TypeError) else "value", str(error))
    gathered = comm.allgather((mine, same or {}))
    failing = sum(found is not None for found, _ in gathered)
    for rank, (found, _) in enumerate(gathered):
        if found is not None:
            kind, message = found
            # The same text on every rank (the library's rule): the rank is named when not
            # every rank failed.
            if failing < comm.size:
                message = f"{message} (on rank {rank})"
            if kind == "type":
                raise TypeError(message)
            raise native().VolfftError(message)
    first = gathered[0][1]
    for rank, (_, values) in enumerate(gathered[1:], start=1):
        for name, value in first.items():
            if values.get(name) != value:
                raise native().VolfftError(
                    f"{name}: every rank must pass the same value; rank 0 passed {value!r}, rank {rank} "
                    f"passed {values.get(name)!r}")


def allocated(make: Any, side: str) -> Any:
    """``make()``, with a MemoryError turned into a VolfftError that names it: raised on one rank
    only, the others waited in the library's call (a MemoryError is no argument error, and its
    text may be empty, which the agreement takes for no problem)."""
    try:
        return make()
    except MemoryError as error:
        reason = str(error) or "MemoryError"
        raise native().VolfftError(f"out: cannot allocate this rank's {side} array ({reason})") from None


def fail_call(handle: Any, problem: Exception) -> NoReturn:
    """This rank found ``problem`` in a library call's arguments: fail the other ranks' call
    with it (they wait in the library's agreement, which ``handle.agree_on_problem`` joins), then
    raise it here. Call from the ``except`` clause that caught it."""
    try:
        handle.agree_on_problem((_TYPE_ERROR if isinstance(problem, TypeError) else "") + str(problem))
    except ValueError:
        pass  # its own message, agreed
    raise problem


@contextmanager
def native_call() -> Iterator[None]:
    """Around a library call whose agreement may bring another rank's problem (fail_call): a
    TypeError there is raised as a TypeError here too, with the same message."""
    try:
        yield
    except native().VolfftError as error:
        text = str(error)
        if text.startswith(_TYPE_ERROR):
            raise TypeError(text[len(_TYPE_ERROR):]) from None
        raise
