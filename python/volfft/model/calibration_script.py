"""Measurements for ``volfft model calibrate``; runs under mpirun with mpi4py (not imported by
volfft.model itself).

Every rank measures at the same time, so the numbers include the contention of a full node:
ping-pong between ranks 0 and 1 (latency of 8-byte messages, bandwidth of large ones), an
MPI_Alltoall of large blocks (aggregate bandwidth of all ranks exchanging), numpy's 1-D FFT
rate for several lengths, memory copy bandwidth, and the bandwidth of a transposing copy (what
pack and unpack do). Times are medians over repetitions, as volfft-bench reports medians.
Rank 0 writes one JSON file: for rates, the slowest rank's value (a phase costs its slowest
rank).

Usage: mpirun -n P python calibration_script.py OUT.json [--quick]
"""
from __future__ import annotations

import json
import math
import os
import socket
import sys
import time

import numpy as np


def median_of(repeats: int, func) -> float:
    """Median wall time of ``func()`` over ``repeats`` runs, after one warm-up run."""
    func()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def ping_pong(comm, nbytes: int, repeats: int) -> float | None:
    """Half round-trip time between ranks 0 and 1 (None on other ranks or with one rank)."""
    from mpi4py import MPI

    rank = comm.Get_rank()
    buf = np.zeros(max(nbytes, 1), dtype=np.uint8)
    comm.Barrier()
    if comm.Get_size() < 2 or rank > 1:
        comm.Barrier()
        return None
    times = []
    for _ in range(repeats):
        start = MPI.Wtime()
        if rank == 0:
            comm.Send([buf, MPI.BYTE], dest=1, tag=7)
            comm.Recv([buf, MPI.BYTE], source=1, tag=7)
        else:
            comm.Recv([buf, MPI.BYTE], source=0, tag=7)
            comm.Send([buf, MPI.BYTE], dest=0, tag=7)
        times.append((MPI.Wtime() - start) / 2)
    comm.Barrier()
    return float(np.median(times))


def alltoall_bandwidth(comm, block_bytes: int, repeats: int) -> float:
    """Aggregate bytes/s sent to other ranks by all ranks together in MPI_Alltoall."""
    from mpi4py import MPI

    size = comm.Get_size()
    send = np.ones(block_bytes * size, dtype=np.uint8)
    recv = np.empty_like(send)
    comm.Alltoall([send, MPI.BYTE], [recv, MPI.BYTE])  # warm-up: connections, page faults
    times = []
    for _ in range(repeats):
        comm.Barrier()
        start = MPI.Wtime()
        comm.Alltoall([send, MPI.BYTE], [recv, MPI.BYTE])
        times.append(comm.allreduce(MPI.Wtime() - start, op=MPI.MAX))
    return size * (size - 1) * block_bytes / float(np.median(times))


def copy_bandwidth(nbytes: int, repeats: int) -> float:
    """Bytes/s of one core copying a large array (bytes copied, not bytes moved)."""
    src = np.ones(nbytes // 8, dtype=np.float64)
    dst = np.empty_like(src)
    return nbytes / median_of(repeats, lambda: np.copyto(dst, src))


def transpose_bandwidth(nbytes: int, repeats: int, row: int = 64) -> float:
    """Bytes/s of a copy that swaps the two outer axes of a 3-D complex array with contiguous
    rows of ``row`` elements: the access pattern of pack/unpack."""
    side = max(1, int(math.sqrt(nbytes / 16 / row)))
    src = np.ones((side, side, row), dtype=np.complex128)
    dst = np.empty((side, side, row), dtype=np.complex128)
    return src.nbytes / median_of(repeats, lambda: np.copyto(dst, src.transpose(1, 0, 2)))


def fft_rate(length: int, points: int, repeats: int) -> float:
    """numpy 1-D complex FFT speed in N log2 N per second, batched over contiguous rows."""
    batch = max(1, points // length)
    data = (np.random.default_rng(0).standard_normal((batch, length))
            + 1j * np.random.default_rng(1).standard_normal((batch, length)))
    seconds = median_of(repeats, lambda: np.fft.fft(data, axis=1))
    return batch * length * math.log2(length) / seconds


def main(argv: list[str]) -> int:
    from mpi4py import MPI

    if not argv:
        print("usage: calibration_script.py OUT.json [--quick]", file=sys.stderr)
        return 2
    out, quick = argv[0], "--quick" in argv
    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    reps = 3 if quick else 7
    big = (2 << 20) if quick else (16 << 20)
    result: dict = {"ranks": size, "host": socket.gethostname(), "quick": quick,
                    "cores": os.cpu_count()}
    result["latency_s"] = ping_pong(comm, 8, 50 if quick else 500)
    pp_time = ping_pong(comm, big, reps)
    result["pingpong_bandwidth"] = None if pp_time is None else big / pp_time
    block = max(1 << 16, big // max(size, 1))
    result["alltoall_bandwidth"] = alltoall_bandwidth(comm, block, reps) if size > 1 else None
    result["alltoall_block_bytes"] = block
    comm.Barrier()
    copy = copy_bandwidth(4 * big, reps)
    comm.Barrier()
    transpose = transpose_bandwidth(4 * big, reps)
    lengths = [16, 64, 256, 1024, 4096]
    points = (1 << 18) if quick else (1 << 20)
    comm.Barrier()
    rates = {n: fft_rate(n, points, reps) for n in lengths}
    copies = comm.gather(copy, root=0)
    transposes = comm.gather(transpose, root=0)
    all_rates = comm.gather(rates, root=0)
    if rank == 0:
        result["memcpy_bandwidth"] = min(copies)
        result["transpose_bandwidth"] = min(transposes)
        result["fft_rate_by_length"] = {str(n): min(r[n] for r in all_rates) for n in lengths}
        with open(out, "w") as handle:
            json.dump(result, handle, indent=2, sort_keys=True)
    comm.Barrier()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
