#!/usr/bin/env python3
"""Experiment 1: the 2-D FFT study of [Beowulf2D] (docs/references.md) on an emulated switched cluster.

2-D c2c double transforms of 400^2 (96 of them), 800^2 (24) and 1600^2 (6), forward and
backward, on 2, 4 and 8 hosts (one rank each) of a switch at 100 Mbit/s and then 1 Gbit/s,
with the exchange engines that correspond to the paper's programs:

    paper "fftw"    (MPI_Alltoall)                       -> volfft engine alltoall
    paper "fft2d-i" (derived datatypes, Isend/Irecv)     -> volfft engine alltoallw
    paper "fft2d-p" (per-column pipelined sends)         -> volfft engine pipelined

Times are seconds for nfft forward + backward transforms, like the paper's tables: nfft x the
medians of one forward and one backward (``volfft-bench --batch`` is used instead when the
bench offers it). The np=1 row is one rank on one host (no network).

    sudo python3 -m benchmarks.cluster.exp_beowulf2d [--rates 100mbit,1gbit] [--mpi openmpi]
         [--hosts 2,4,8] [--sizes 400:96,800:24,1600:6] [--bench PATH] [--quick] [--out DIR]

Engines the bench does not offer (``volfft-bench --help`` lists them) are reported as n/a.
MPICH needs a volfft-bench built against MPICH (``--bench``); the script checks which MPI the
binary links and refuses a mismatch. Writes table.txt, results.json and beowulf2d.png to
--out (default build/cluster/exp_beowulf2d/). Run from the repository root.
"""
from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

from benchmarks.cluster import experiment as X
from tools import vcluster

PAPER_NAMES = {"alltoall": "fftw", "alltoallw": "fft2d-i", "pipelined": "fft2d-p"}


def bench_features(bench: str) -> tuple[set[str], bool]:
    """Engines ``bench`` accepts and whether it has ``--batch`` (from its usage text)."""
    text = subprocess.run([bench, "--help"], capture_output=True, text=True, timeout=30)
    usage = text.stdout + text.stderr
    m = re.search(r"--engine\s+([a-z0-9_|]+)", usage)
    engines = set(m.group(1).split("|")) - {"auto", "all"} if m else set()
    return engines, "--batch" in usage


def bench_mpi(bench: str) -> str:
    """Which MPI ``bench`` is linked with: "openmpi", "mpich" or "unknown"."""
    libs = subprocess.run(["ldd", bench], capture_output=True, text=True).stdout
    if "libmpi.so.40" in libs:
        return "openmpi"
    if "libmpich" in libs:
        return "mpich"
    return "unknown"


def run_case(state, bench, mpi, n, nfft, np_, engine, args, out, batch_ok) -> dict:
    """One bench job; returns {"seconds": nfft fwd+bwd, "exchange_share": ..., ...} or an error."""
    tag = f"{mpi}_{state['rate']}_{n}_{np_}_{engine}"
    path = out / f"{tag}.json"
    path.unlink(missing_ok=True)
    cmd = [bench, "c2c", "double", str(n), str(n), "--grid", f"{np_}x1", "--engine", engine,
           "--iters", str(args.iters), "--warmup", str(args.warmup), "--json", str(path)]
    if batch_ok:
        cmd += ["--batch", str(nfft)]
    rc = X.run_mpi(state, cmd, hosts=list(range(np_)), mpi=mpi, timeout=args.timeout, log=out / "jobs.log")
    data = X.read_json(path)
    if rc != 0 or data is None:
        return {"error": f"exit {rc}"}
    fwd, bwd = data["forward"], data["backward"]
    per_call = (fwd["median_ms"] + bwd["median_ms"]) / 1e3
    exch = sum(p["ms"] for ph in (fwd, bwd) for p in ph.get("phases", []) if p["name"].startswith("exchange"))
    total_ms = fwd["median_ms"] + bwd["median_ms"]
    return {"seconds": per_call if batch_ok else nfft * per_call,
            "forward_ms": fwd["median_ms"], "backward_ms": bwd["median_ms"],
            "exchange_share": exch / total_ms if total_ms else None,
            "verify_ok": data.get("verify", {}).get("ok")}


def measure(args, out: Path, bench: str) -> dict:
    engines_offered, batch_ok = bench_features(bench)
    results: dict = {"bench": bench, "engines_offered": sorted(engines_offered), "batch": batch_ok, "runs": []}
    for rate in args.rates:
        with X.cluster(f"s4{rate[:4].replace('.', '')}", ["switch"], rate, hosts=max(args.hosts)) as state:
            for mpi in args.mpi:
                for n, nfft in args.sizes:
                    print(f"# {rate} {mpi} {n}^2 x{nfft}: np=1", flush=True)
                    ref = run_case(state, bench, mpi, n, nfft, 1, "alltoall", args, out, batch_ok)
                    results["runs"].append({"rate": rate, "mpi": mpi, "n": n, "nfft": nfft, "np": 1,
                                            "engine": "serial", **ref})
                    for np_ in args.hosts:
                        for engine in args.engines:
                            row = {"rate": rate, "mpi": mpi, "n": n, "nfft": nfft, "np": np_, "engine": engine}
                            if engine not in engines_offered:
                                row["error"] = "engine not in this volfft-bench"
                            else:
                                print(f"# {rate} {mpi} {n}^2 x{nfft}: np={np_} {engine}", flush=True)
                                row.update(run_case(state, bench, mpi, n, nfft, np_, engine, args, out, batch_ok))
                            results["runs"].append(row)
    return results


def report(results: dict, out: Path) -> str:
    runs = results["runs"]
    engines = [e for e in PAPER_NAMES if any(r["engine"] == e for r in runs)]
    lines = []
    for rate in dict.fromkeys(r["rate"] for r in runs):
        for n, nfft in dict.fromkeys((r["n"], r["nfft"]) for r in runs if r["rate"] == rate):
            sel = [r for r in runs if r["rate"] == rate and r["n"] == n]
            lines.append(f"system size LxL = {n}x{n}, nfft={nfft}, switch {rate}: seconds for nfft "
                         f"forward+backward (exchange share in brackets; * = best of the row)")
            for r in sel:
                if r["engine"] == "serial" and "seconds" in r:
                    lines.append(f"np=1 ({r['mpi']})  {r['seconds']:.3g}")
            rows = []
            for mpi in dict.fromkeys(r["mpi"] for r in sel):
                for np_ in sorted({r["np"] for r in sel if r["np"] > 1}):
                    cells = {r["engine"]: r for r in sel if r["mpi"] == mpi and r["np"] == np_}
                    done = {e: c["seconds"] for e, c in cells.items() if "seconds" in c}
                    best = min(done, key=done.get) if done else None
                    row = [mpi, np_]
                    for e in engines:
                        c = cells.get(e, {})
                        if "seconds" in c:
                            share = f" ({c['exchange_share']:.0%})" if c.get("exchange_share") is not None else ""
                            row.append(f"{c['seconds']:.3g}{share}{'*' if e == best else ''}")
                        else:
                            row.append("n/a")
                    rows.append(row)
            lines.append(X.format_table(["MPI", "np"] + [f"{PAPER_NAMES[e]} ({e})" for e in engines], rows))
            lines.append("")
    # [Beowulf2D]'s closing question: does the best strategy change with a faster network?
    lines.append("best engine per case, by rate:")
    keys = sorted({(r["mpi"], r["n"], r["np"]) for r in runs if r["np"] > 1})
    for mpi, n, np_ in keys:
        best = {}
        for rate in dict.fromkeys(r["rate"] for r in runs):
            done = {r["engine"]: r["seconds"] for r in runs if (r["mpi"], r["n"], r["np"], r["rate"]) ==
                    (mpi, n, np_, rate) and "seconds" in r}
            best[rate] = PAPER_NAMES.get(min(done, key=done.get), "?") if done else "n/a"
        lines.append(f"  {mpi:8s} {n}^2 np={np_}: " + ", ".join(f"{k}: {v}" for k, v in best.items()))
    table = "\n".join(lines)
    (out / "table.txt").write_text(table + "\n")
    (out / "results.json").write_text(json.dumps(results, indent=1))
    _plot(runs, engines, out / "beowulf2d.png")
    return table


def _plot(runs, engines, path: Path) -> None:
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("# matplotlib missing: no PNG", file=sys.stderr)
        return
    rates = list(dict.fromkeys(r["rate"] for r in runs))
    sizes = list(dict.fromkeys(r["n"] for r in runs))
    mpi = runs[0]["mpi"]
    fig, axes = plt.subplots(len(rates), len(sizes), figsize=(4 * len(sizes), 3.2 * len(rates)), squeeze=False)
    for i, rate in enumerate(rates):
        for j, n in enumerate(sizes):
            ax = axes[i][j]
            nps = sorted({r["np"] for r in runs if r["np"] > 1})
            width = 0.8 / max(1, len(engines))
            for k, e in enumerate(engines):
                vals = [next((r.get("seconds", 0) for r in runs if (r["rate"], r["n"], r["np"], r["engine"], r["mpi"])
                              == (rate, n, p, e, mpi)), 0) for p in nps]
                ax.bar([x + k * width for x in range(len(nps))], vals, width, label=PAPER_NAMES[e])
            serial = next((r.get("seconds") for r in runs if (r["rate"], r["n"], r["engine"], r["mpi"]) ==
                           (rate, n, "serial", mpi)), None)
            if serial:
                ax.axhline(serial, color="gray", ls="--", lw=1, label="np=1")
            ax.set_xticks([x + width * (len(engines) - 1) / 2 for x in range(len(nps))])
            ax.set_xticklabels([f"np={p}" for p in nps])
            ax.set_title(f"{n}x{n}, {rate} ({mpi})", fontsize=9)
            ax.set_ylabel("s for nfft fwd+bwd", fontsize=8)
            if i == 0 and j == 0:
                ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def _sizes(text: str) -> list[tuple[int, int]]:
    try:
        return [(int(a), int(b)) for a, b in (item.split(":") for item in text.split(","))]
    except ValueError:
        raise argparse.ArgumentTypeError(f"--sizes: expected N:NFFT pairs like 400:96,800:24, got {text!r}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rates", default="100mbit,1gbit")
    ap.add_argument("--mpi", default="openmpi", help="openmpi, mpich or both: openmpi,mpich")
    ap.add_argument("--hosts", default="2,4,8")
    ap.add_argument("--sizes", type=_sizes, default=_sizes("400:96,800:24,1600:6"))
    ap.add_argument("--engines", default="alltoall,alltoallw,pipelined")
    ap.add_argument("--iters", type=int, default=3)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per bench job")
    ap.add_argument("--bench", help="volfft-bench to run (default: build/benchmarks/volfft-bench, then PATH)")
    ap.add_argument("--quick", action="store_true", help="400^2 and 800^2 on 2 and 4 hosts only")
    ap.add_argument("--out")
    ap.add_argument("--report-only", action="store_true")
    args = ap.parse_args(argv)
    args.rates = args.rates.split(",")
    args.mpi = args.mpi.split(",")
    args.hosts = [int(h) for h in args.hosts.split(",")]
    args.engines = args.engines.split(",")
    if args.quick:
        args.sizes, args.hosts = [s for s in args.sizes if s[0] <= 800], [h for h in args.hosts if h <= 4]
    for rate in args.rates:
        vcluster.parse_rate(rate)
    unknown = [e for e in args.engines if e not in PAPER_NAMES]
    if unknown:
        ap.error(f"--engines: expected some of {', '.join(PAPER_NAMES)}, got {unknown}")
    out = X.output_dir(args.out, "exp_beowulf2d")
    if args.report_only:
        results = X.earlier_results(out)
    else:
        bench = X.bench_for_live_run(args.bench)
        if bench is None:
            return 2
        linked = bench_mpi(bench)
        for mpi in args.mpi:
            if linked != "unknown" and linked != mpi:
                print(f"--mpi {mpi}: {bench} is linked with {linked}; build volfft against {mpi} and "
                      f"pass --bench", file=sys.stderr)
                return 2
        results = measure(args, out, bench)
    print(report(results, out))
    print(f"# wrote {out / 'table.txt'}, {out / 'results.json'}, {out / 'beowulf2d.png'}")
    return 0 if all("seconds" in r or r.get("error", "").startswith("engine not") for r in results["runs"]) else 1


if __name__ == "__main__":
    sys.exit(main())
