"""Scatter a global array from one rank into a plan's layout, and gather it back.

Both are collective over the plan's communicator. Every rank learns the others' boxes with one
small gather, so the helpers work for any grid, placement and memory order. Argument errors are
agreed on by all ranks before any data moves: a bad array on one rank raises the same exception
on every rank instead of leaving the others waiting.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, List, Optional, Tuple

import numpy as np

from volfft._agree import agree_on_errors
from volfft._native import native

if TYPE_CHECKING:  # pragma: no cover
    from volfft.plan import Plan

_TAG = 7717  # one tag for every block: each pair exchanges at most one message per call


def _check_root(comm: Any, root: Any) -> int:
    if isinstance(root, bool) or not isinstance(root, (int, np.integer)):
        raise TypeError(f"root: expected an int rank, got {root!r}")
    if not 0 <= root < comm.size:
        raise native().VolfftError(
            f"root: expected a rank in 0..{comm.size - 1}, got {root}")
    return int(root)


def _side(plan: "Plan", forward_output: bool) -> Tuple[Tuple[int, ...], Tuple[int, ...], np.dtype]:
    """(global shape, memory order, dtype) of one side of the plan's arrays (with the field axis
    of a batched plan)."""
    _, order, dtype, shape = plan._side(forward_output)
    return shape, order, dtype


def _ghost_layers(plan: "Plan", name: str) -> Optional[Exception]:
    """The error for a plan whose arrays have ghost layers on this rank (None otherwise)."""
    if not plan._ghosts:
        return None
    return native().VolfftError(
        f"{name}: this plan's arrays have ghost layers (in_array/out_array with ghosts or storage); "
        f"fill and read their owned part, array[plan.input_part.owned_slice()], yourself")


def _block_shape(block: Tuple[slice, ...], order: Tuple[int, ...]) -> Tuple[int, ...]:
    return tuple(block[a].stop - block[a].start for a in order)


def scatter(plan: "Plan", global_array: Optional[np.ndarray], root: int = 0,
            forward_output: bool = False) -> np.ndarray:
    """Distribute a global array held by ``root`` into every rank's local array. Collective.

    Parameters
    ----------
    plan : volfft.Plan
    global_array : numpy.ndarray or None
        On ``root``: the whole array, of shape ``plan.shape`` (a batched plan: with its field
        axis, ``(plan.batch, *plan.shape)`` or ``(*plan.shape, plan.batch)``; ``forward_output``: the output's
        global shape), with a dtype that casts to the plan's (same kind: no complex to real).
        Ignored on the other ranks (pass None).
    root : int
        The rank holding the global array.
    forward_output : bool
        False: the forward input layout (the usual case). True: the forward output layout.

    Returns
    -------
    volfft.LocalArray
        This rank's block, indexed by global axes, ready for ``plan.forward`` (or
        ``plan.backward``).
    """
    comm = plan.comm
    shape, order, dtype = _side(plan, bool(forward_output))
    error: Optional[Exception] = _ghost_layers(plan, "scatter")
    if error is None:
        try:
            root = _check_root(comm, root)
        except (TypeError, ValueError) as e:
            error = e
    if comm.rank == root and error is None:
        try:
            if not isinstance(global_array, np.ndarray):
                raise TypeError(
                    f"global_array: expected a numpy.ndarray on the root rank, got "
                    f"{type(global_array).__name__}")
            if global_array.shape != shape:
                raise native().VolfftError(
                    f"global_array: expected the global shape {shape}, got {global_array.shape}")
            if not np.can_cast(global_array.dtype, dtype, casting="same_kind"):
                raise TypeError(
                    f"global_array: expected a dtype that casts to {dtype}, got "
                    f"{global_array.dtype}")
        except (TypeError, ValueError) as e:
            error = e
    # root and the side decide who sends what to whom: the same on every rank, or nobody moves.
    agree_on_errors(comm, error, same={"root": root, "forward_output": bool(forward_output)})

    blocks: Optional[List[Tuple[slice, ...]]] = comm.gather(
        plan.local_slice(forward_output), root=root)
    local = plan.output_array() if forward_output else plan.input_array()
    if comm.rank != root:
        target = local.memory
        if target.flags.c_contiguous:
            comm.Recv(target, source=root, tag=_TAG)
        else:  # an in-place r2c input: rows padded past the data
            piece = np.empty(target.shape, dtype)
            comm.Recv(piece, source=root, tag=_TAG)
            target[...] = piece
        return local
    for rank, block in enumerate(blocks):
        if rank == root:
            local[...] = global_array[block]
            continue
        # transpose(order): the block's axes into the receiving rank's memory order; copied
        # when not C-contiguous or not aligned (mpi4py has no MPI datatype for unaligned
        # elements: a view of a buffer at an odd offset would fail the send on this rank only).
        piece = np.require(global_array[block].transpose(order), dtype, ["C_CONTIGUOUS", "ALIGNED"])
        comm.Send(piece, dest=rank, tag=_TAG)
    return local


def gather(plan: "Plan", local_array: np.ndarray, root: int = 0,
           forward_output: bool = True) -> Optional[np.ndarray]:
    """Collect every rank's local array into one global array on ``root``. Collective.

    Parameters
    ----------
    plan : volfft.Plan
    local_array : numpy.ndarray
        This rank's block in global axes over memory in the plan's order, as ``plan.forward``
        (``forward_output``) or ``plan.backward`` returned it.
    root : int
        The rank receiving the result.
    forward_output : bool
        Which side of the plan ``local_array`` is on (default: the forward output).

    Returns
    -------
    numpy.ndarray or None
        On ``root`` the global array in C order (shape ``plan.shape``, with the field axis of a
        batched plan, or for the forward
        output of r2c the last axis ``n // 2 + 1``); None on the other ranks.
    """
    comm = plan.comm
    shape, order, dtype = _side(plan, bool(forward_output))
    error: Optional[Exception] = _ghost_layers(plan, "gather")
    memory = None
    try:
        if error is not None:
            raise error
        root = _check_root(comm, root)
        memory = plan._memory("local_array", local_array, bool(forward_output), False, staging="new")
        # Aligned for mpi4py's send, as in scatter (a copy only where the array is not).
        memory = np.require(memory, None, ["C_CONTIGUOUS", "ALIGNED"])
    except (TypeError, ValueError) as e:
        error = e
    agree_on_errors(comm, error, same={"root": root, "forward_output": bool(forward_output)})

    blocks: Optional[List[Tuple[slice, ...]]] = comm.gather(
        plan.local_slice(forward_output), root=root)
    if comm.rank != root:
        comm.Send(memory, dest=root, tag=_TAG)
        return None
    result = np.empty(shape, dtype)
    inverse = tuple(int(a) for a in np.argsort(order))  # memory order -> global axis order
    for rank, block in enumerate(blocks):
        if rank == root:
            piece = memory
        else:
            piece = np.empty(_block_shape(block, order), dtype)
            comm.Recv(piece, source=rank, tag=_TAG)
        result[block] = piece.transpose(inverse)
    return result
