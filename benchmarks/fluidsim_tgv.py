"""fluidsim's ns3d solver on volfft: the Taylor-Green vortex at Re = 1600 against the 512^3 DNS.

A benchmark, not run in CI (it needs fluidsim, which is not a dependency of volfft or of the
fluidfft-volfft plugin, and minutes of CPU). It runs fluidsim's own incompressible solver
``fluidsim.solvers.ns3d.solver.Simul`` on the fluidfft method ``fft3d.mpi_with_volfft``
(``params.oper.type_fft``, provided by plugins/fluidfft-volfft) for the Taylor-Green vortex of
case C3.5 of the International Workshop on High-Order CFD Methods:

    box [0, 2 pi)^3, nx = ny = nz = N, u = sin x cos y cos z, v = -cos x sin y cos z, w = 0,
    V0 = 1, L = 1, nu = 1/1600,

with fluidsim's defaults for everything else: RK4 (viscous term integrated exactly), time step
from fluidsim's CFL condition (``--dt`` fixes it instead), 2/3-rule dealiasing (cubic
truncation). fluidsim stops at the first step that reaches ``--t-end`` (it does not shorten the
last step), so runs end a little past it. The only output is fluidsim's ``spatial_means`` (E, epsK every ``--period``
time units); its state files at the start and end of the run are switched off. fluidsim's run
directory goes under ``--dir`` (default: a temporary directory, removed at the end unless
``--keep``), never into the repository.

Afterwards E(t) and the dissipation epsK(t) = 2 nu <|omega|^2>/2 read back from fluidsim's
spatial_means file are compared with the workshop's 512^3 pseudo-spectral reference of van Rees
et al. (2011) (``--reference``, default docs/examples/data/tgv_spectral_Re1600_512.gdiag,
columns t, E, -dE/dt, enstrophy): a table at ``--times`` (fluidsim's values interpolated with a
cubic spline between its saves; the reference, which ends at t = 19.99, extrapolated by one step
of its -dE/dt beyond that), the peak dissipation and its time, wall time per step and in total,
ranks. E and epsK are also recorded at double precision at each of fluidsim's saves (fluidsim's
file keeps 6 digits; a few passes over the spectral state per save, inside the timed loop: 1.2
ms at 64^3 and 11 ms at 128^3 on 2 ranks, 0.3 % of the loop with ``--dt 0.01``) and at the end
of the run. ``--out`` writes all of it, with the whole series, as JSON; ``--compare`` prints the
differences from another run's JSON (rank counts, FFT methods): of the 6-digit series, of E and
epsK at the end (absolute and relative, when both runs end at the same time) and the largest
absolute and relative differences of the double-precision series.

Run (scripts/mpirun.sh is mpirun with Open MPI's consent to root and to more ranks than cores)::

    scripts/mpirun.sh -n 2 python benchmarks/fluidsim_tgv.py --n 64 --t-end 20 --out tgv64.json
    scripts/mpirun.sh -n 1 python benchmarks/fluidsim_tgv.py --n 32 --t-end 0.5 \\
        --type-fft fft3d.with_pyfftw --out pyfftw.json
    scripts/mpirun.sh -n 1 python benchmarks/fluidsim_tgv.py --n 32 --t-end 0.5 \\
        --compare pyfftw.json

volfft against fluidfft's FFTW-MPI method (the fluidfft-fftwmpi plugin) with the same fixed
time step, so that both runs take the same steps and end at the same time (100 steps of 0.01
end at t = 1 + 7e-16)::

    scripts/mpirun.sh -n 2 python benchmarks/fluidsim_tgv.py --n 64 --t-end 1 --dt 0.01 \\
        --type-fft fft3d.mpi_with_fftwmpi3d --out fftwmpi.json
    scripts/mpirun.sh -n 2 python benchmarks/fluidsim_tgv.py --n 64 --t-end 1 --dt 0.01 \\
        --compare fftwmpi.json

Needs fluidsim (``pip install fluidsim``), fluidfft >= 0.4 and the plugin; fluidsim also builds
a sequential 2-D operator, for which fluidfft needs pyfftw (``pip install pyfftw``) or the
fluidfft-fftw plugin. ``fft3d.mpi_with_fftwmpi3d`` needs the fluidfft-fftwmpi plugin, built
from source against FFTW-MPI (plugins/fluidfft-volfft/README.md says how). volfft's plan
options come from ``FLUIDFFT_VOLFFT_OPTIONS`` (see the plugin's README).

Reference: W. M. van Rees, A. Leonard, D. I. Pullin, P. Koumoutsakos, J. Comput. Phys. 230
(2011) 2794-2805.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import sys
import tempfile
import time
from typing import Any, Dict, List, Optional

import numpy as np
from mpi4py import MPI

REYNOLDS = 1600.0
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REFERENCE = os.path.join(REPO, "docs", "examples", "data", "tgv_spectral_Re1600_512.gdiag")
TIMES = "1,5,8.97,12,20"


def parse_args(argv: Optional[List[str]] = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--n", type=int, default=64, help="grid points per direction (default 64)")
    p.add_argument("--t-end", type=float, default=20.0, help="final time (default 20)")
    p.add_argument("--type-fft", default="fft3d.mpi_with_volfft",
                   help="params.oper.type_fft (default fft3d.mpi_with_volfft; 'default' is "
                        "fluidfft's own choice)")
    p.add_argument("--dt", type=float, default=None,
                   help="fixed time step (default: fluidsim's CFL condition, CFL = 1 for RK4)")
    p.add_argument("--period", type=float, default=0.1,
                   help="period of fluidsim's spatial_means output (default 0.1)")
    p.add_argument("--times", default=TIMES, help=f"comparison times (default {TIMES})")
    p.add_argument("--reference", default=REFERENCE,
                   help="reference .gdiag file (t, E, -dE/dt, enstrophy; default the repository's "
                        "docs/examples/data/tgv_spectral_Re1600_512.gdiag)")
    p.add_argument("--dir", default=None,
                   help="directory for fluidsim's run directory (default: a temporary one)")
    p.add_argument("--keep", action="store_true",
                   help="keep the temporary fluidsim directory")
    p.add_argument("--out", default=None, help="write the results as JSON here")
    p.add_argument("--compare", default=None,
                   help="JSON of another run of this script: print the differences")
    p.add_argument("--quiet", action="store_true", help="less of fluidsim's own printing")
    return p.parse_args(argv)


# --- reference --------------------------------------------------------------------------------

def load_reference(path: str) -> Dict[str, np.ndarray]:
    data = np.loadtxt(path, comments="#")
    return {"t": data[:, 0], "E": data[:, 1], "eps": data[:, 2], "Z": data[:, 3]}


def reference_at(ref: Dict[str, np.ndarray], t: float) -> Dict[str, Any]:
    """E and -dE/dt of the reference at t: linear interpolation on its 0.01 grid; beyond its
    last time (19.99) one explicit step of its -dE/dt (at most 0.05)."""
    tr, E, eps = ref["t"], ref["E"], ref["eps"]
    if t <= tr[-1] + 1e-12:
        return {"E": float(np.interp(t, tr, E)), "eps": float(np.interp(t, tr, eps)),
                "extrapolated": False}
    if t - tr[-1] > 0.05 + 1e-12:
        return {"E": None, "eps": None, "extrapolated": True}
    return {"E": float(E[-1] - (t - tr[-1]) * eps[-1]), "eps": float(eps[-1]),
            "extrapolated": True}


# --- fluidsim run -----------------------------------------------------------------------------

def make_params(args: argparse.Namespace, directory: str):
    from fluidsim.solvers.ns3d.solver import Simul

    params = Simul.create_default_params()
    params.short_name_type_run = "tgv"
    params.oper.type_fft = args.type_fft
    params.oper.nx = params.oper.ny = params.oper.nz = args.n
    params.oper.Lx = params.oper.Ly = params.oper.Lz = 2 * math.pi
    # params.oper.coef_dealiasing = 2/3 and truncation_shape = "cubic" are fluidsim's defaults
    params.nu_2 = 1.0 / REYNOLDS  # V0 = 1, L = 1
    params.init_fields.type = "in_script"
    params.time_stepping.type_time_scheme = "RK4"
    params.time_stepping.USE_T_END = True
    params.time_stepping.t_end = args.t_end
    if args.dt is not None:
        params.time_stepping.USE_CFL = False
        params.time_stepping.deltat0 = args.dt
    params.output.sub_directory = directory  # absolute: fluidsim puts its run directory here
    params.output.ONLINE_PLOT_OK = False
    params.output.periods_print.print_stdout = 5.0 if args.quiet else 1.0
    for key in params.output.periods_save._key_attribs:
        params.output.periods_save[key] = 0.0
    params.output.periods_save.spatial_means = args.period
    return Simul, params


def init_taylor_green(sim) -> None:
    X, Y, Z = sim.oper.get_XYZ_loc()
    vx = np.sin(X) * np.cos(Y) * np.cos(Z)
    vy = -np.cos(X) * np.sin(Y) * np.cos(Z)
    vz = np.zeros_like(vx)
    sim.state.init_statephys_from(vx=vx, vy=vy, vz=vz)
    sim.state.statespect_from_statephys()
    sim.state.statephys_from_statespect()


def full_precision_means(sim) -> Dict[str, float]:
    """E and epsK of the current state at double precision (fluidsim's file keeps 6 digits)."""
    energy_fft = sim.output.compute_energy_fft()
    f_d, _ = sim.compute_freq_diss()
    return {"t": float(sim.time_stepping.t),
            "E": float(sim.output.sum_wavenumbers(energy_fft)),
            "eps": float(sim.output.sum_wavenumbers(f_d * 2 * energy_fft))}


def record_full_precision_series(sim, initial: Dict[str, float]) -> Dict[str, List[float]]:
    """Makes fluidsim's spatial_means also record E and epsK at double precision at each of
    its saves (from the initial state on); returns the lists it appends to.

    ``_save_one_time`` is what fluidsim's ns3d spatial_means calls at every save, on every rank
    (its sums are collective); wrapping it on the instance adds one full_precision_means.
    """
    series = {key: [initial[key]] for key in ("t", "E", "eps")}
    spatial_means = sim.output.spatial_means
    save_one_time = spatial_means._save_one_time

    def save_and_record(*args, **kwargs):
        result = save_one_time(*args, **kwargs)
        means = full_precision_means(sim)
        for key in series:
            series[key].append(means[key])
        return result

    spatial_means._save_one_time = save_and_record
    return series


class TransformTimer:
    """Counts and times the operator's transforms (fft, ifft and their _as_arg forms).

    fluidsim looks these methods up on ``sim.oper`` when it calls them, so wrapping them on the
    instance sees every transform of the time loop. Per rank, without barriers: the time
    includes what a rank waits for the other inside a transform (its communication).
    """

    NAMES = ("fft", "ifft", "fft_as_arg", "ifft_as_arg", "ifft_as_arg_destroy")

    def __init__(self, oper) -> None:
        self.count = {name: 0 for name in self.NAMES}
        self.seconds = {name: 0.0 for name in self.NAMES}
        for name in self.NAMES:
            if hasattr(oper, name):
                setattr(oper, name, self._wrap(name, getattr(oper, name)))

    def _wrap(self, name, method):
        def timed(*args, **kwargs):
            t0 = time.perf_counter()
            try:
                return method(*args, **kwargs)
            finally:
                self.seconds[name] += time.perf_counter() - t0
                self.count[name] += 1
        return timed

    def total(self) -> float:
        return sum(self.seconds.values())


# --- analysis ---------------------------------------------------------------------------------

def interpolate(t: np.ndarray, y: np.ndarray, at: float) -> Optional[float]:
    if at < t[0] - 1e-12 or at > t[-1] + 1e-12:
        return None
    from scipy.interpolate import CubicSpline  # fluidsim depends on scipy
    keep = np.concatenate(([True], np.diff(t) > 1e-12))
    return float(CubicSpline(t[keep], y[keep])(at))


def peak(t: np.ndarray, y: np.ndarray) -> Dict[str, float]:
    """Largest sample, and the vertex of the parabola through it and its neighbours."""
    i = int(np.argmax(y))
    result = {"eps": float(y[i]), "t": float(t[i]), "eps_sample": float(y[i]),
              "t_sample": float(t[i]), "at_end": i == len(y) - 1}
    if 0 < i < len(y) - 1:
        a, b, c = np.polyfit(t[i - 1:i + 2] - t[i], y[i - 1:i + 2], 2)
        if a < 0:
            tv = -b / (2 * a)
            result["t"] = float(t[i] + tv)
            result["eps"] = float(c - b * b / (4 * a))
    return result


def relative(a: Optional[float], b: Optional[float]) -> Optional[float]:
    if a is None or b is None or b == 0:
        return None
    return (a - b) / b


def fmt(value: Optional[float], spec: str) -> str:
    if value is None:
        width = "".join(c for c in spec.split(".")[0] if c.isdigit())
        return "-".rjust(int(width) if width else 1)
    return format(value, spec)


def analyse(series: Dict[str, np.ndarray], ref: Optional[Dict[str, np.ndarray]],
            times: List[float]) -> Dict[str, Any]:
    t, E, eps = series["t"], series["E"], series["eps"]
    table = []
    for at in times:
        row: Dict[str, Any] = {"t": at, "E": interpolate(t, E, at), "eps": interpolate(t, eps, at)}
        if ref is not None:
            r = reference_at(ref, at)
            row.update({"E_ref": r["E"], "eps_ref": r["eps"],
                        "ref_extrapolated": r["extrapolated"],
                        "E_rel": relative(row["E"], r["E"]),
                        "eps_rel": relative(row["eps"], r["eps"])})
        table.append(row)
    result: Dict[str, Any] = {"table": table, "peak": peak(t, eps)}
    if ref is not None:
        i = int(np.argmax(ref["eps"]))
        result["peak_ref"] = {"eps": float(ref["eps"][i]), "t": float(ref["t"][i])}
        result["peak_rel"] = relative(result["peak"]["eps"], result["peak_ref"]["eps"])
        result["peak_dt"] = result["peak"]["t"] - result["peak_ref"]["t"]
        inside = t <= ref["t"][-1] + 1e-12
        if inside.any():
            e_ref = np.interp(t[inside], ref["t"], ref["E"])
            d_ref = np.interp(t[inside], ref["t"], ref["eps"])
            rel_E = np.abs(E[inside] / e_ref - 1)
            rel_eps = np.abs(eps[inside] / d_ref - 1)
            result["max_E_rel"] = {"value": float(rel_E.max()),
                                   "t": float(t[inside][rel_E.argmax()])}
            result["max_eps_rel"] = {"value": float(rel_eps.max()),
                                     "t": float(t[inside][rel_eps.argmax()])}
    return result


def compare_runs(mine: Dict[str, Any], other: Dict[str, Any]) -> Dict[str, Any]:
    """Differences between this run's spatial means and another run's (same saves expected)."""
    a, b = mine["series"], other["series"]
    ta, tb = np.asarray(a["t"]), np.asarray(b["t"])
    n = min(len(ta), len(tb))
    same_times = bool(np.allclose(ta[:n], tb[:n], rtol=0, atol=1e-9))
    out: Dict[str, Any] = {"other": {k: other.get(k) for k in ("type_fft", "ranks", "n")},
                           "common_saves": n, "same_save_times": same_times}
    if same_times and n:
        for key in ("E", "eps"):
            x, y = np.asarray(a[key][:n]), np.asarray(b[key][:n])
            out[f"max_{key}_rel_file"] = float(np.max(np.abs(x / y - 1)))
    fa, fb = mine["final_full_precision"], other["final_full_precision"]
    if abs(fa["t"] - fb["t"]) < 1e-9:
        out["final_t"] = fa["t"]
        for key in ("E", "eps"):
            out[f"final_{key}"] = (fa[key], fb[key])
            out[f"final_{key}_diff"] = fa[key] - fb[key]
            out[f"final_{key}_rel"] = fa[key] / fb[key] - 1
    # The double-precision series (runs of this script that record it): the largest absolute
    # and relative differences over the saves both runs have at the same times.
    sa, sb = mine.get("series_full_precision"), other.get("series_full_precision")
    if sa and sb:
        ta, tb = np.asarray(sa["t"]), np.asarray(sb["t"])
        n = min(len(ta), len(tb))
        out["full_precision_saves"] = n
        out["full_precision_same_times"] = bool(
            np.allclose(ta[:n], tb[:n], rtol=0, atol=1e-9))
        if out["full_precision_same_times"] and n:
            for key in ("E", "eps"):
                x, y = np.asarray(sa[key][:n]), np.asarray(sb[key][:n])
                diff = np.abs(x - y)
                i = int(np.argmax(diff))
                out[f"max_{key}_diff"] = {"value": float(diff[i]), "t": float(ta[i]),
                                          "rel": float(np.max(np.abs(x / y - 1)))}
    return out


# --- main -------------------------------------------------------------------------------------

def main(argv: Optional[List[str]] = None) -> int:
    args = parse_args(argv)
    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    times = [float(x) for x in args.times.split(",") if x.strip()]

    ref = None
    if rank == 0 and args.reference and os.path.exists(args.reference):
        ref = load_reference(args.reference)
    elif rank == 0 and args.reference:
        print(f"reference {args.reference} not found: no comparison with it", file=sys.stderr)

    temporary = args.dir is None
    directory = None
    if rank == 0:
        directory = (tempfile.mkdtemp(prefix="fluidsim_tgv_") if temporary
                     else os.path.abspath(args.dir))
        os.makedirs(directory, exist_ok=True)
    directory = comm.bcast(directory)

    import fluidfft
    import fluidsim

    Simul, params = make_params(args, directory)
    t0 = MPI.Wtime()
    sim = Simul(params)
    init_taylor_green(sim)
    # With init_fields.type = "in_script", the outputs are made once the state is set.
    sim.output.init_with_initialized_state()
    # No state files: fluidsim saves state_phys at the start and the end of start() even when
    # periods_save.phys_fields = 0. This run keeps only the spatial means.
    sim.output.phys_fields.save = lambda *a, **k: None
    comm.Barrier()
    init_time = MPI.Wtime() - t0
    initial = full_precision_means(sim)
    # E and epsK at double precision at each of fluidsim's saves (its file keeps 6 digits),
    # for --compare: one more pass over the spectral state per save (every --period).
    series_full = record_full_precision_series(sim, initial)

    timer = TransformTimer(sim.oper)
    comm.Barrier()
    t0 = MPI.Wtime()
    sim.time_stepping.start()
    comm.Barrier()
    loop_time = MPI.Wtime() - t0
    steps = int(sim.time_stepping.it)
    transforms_count = dict(timer.count)
    transforms_s = comm.allreduce(timer.total(), op=MPI.MAX)
    final = full_precision_means(sim)

    fft_obj = getattr(sim.oper, "oper_fft", None)
    fft_class = type(fft_obj).__module__ + "." + type(fft_obj).__name__
    plan = getattr(fft_obj, "plan", None)
    plan_info = None
    if plan is not None:
        plan_info = {"grid": list(plan.grid), "engine": str(plan.engine),
                     "output_order": list(plan.output_order), "layout": str(plan.layout)}

    if rank == 0:
        means = sim.output.spatial_means.load()
        series = {"t": np.asarray(means["t"]), "E": np.asarray(means["E"]),
                  "eps": np.asarray(means["epsK"])}
        path_run = sim.output.path_run
    if hasattr(fft_obj, "close"):
        fft_obj.close()  # collective (volfft's plans)

    if rank != 0:
        return 0

    analysis = analyse(series, ref, times)
    nu = 1.0 / REYNOLDS
    k_max = params.oper.coef_dealiasing * args.n / 2  # 2/3 * N/2 (box 2 pi: dk = 1)
    eta_peak = (nu ** 3 / analysis["peak"]["eps"]) ** 0.25
    result: Dict[str, Any] = {
        "benchmark": "fluidsim ns3d Taylor-Green vortex, Re = 1600",
        "n": args.n, "ranks": size, "type_fft": args.type_fft, "fft_class": fft_class,
        "volfft_plan": plan_info,
        "fluidsim": fluidsim.__version__, "fluidfft": fluidfft.__version__,
        "nu": nu, "t_end": args.t_end, "t_final": final["t"],
        "time_stepping": {"scheme": params.time_stepping.type_time_scheme,
                          "cfl": args.dt is None, "dt": args.dt, "steps": steps,
                          "mean_dt": final["t"] / steps if steps else None},
        "dealiasing": {"coef": params.oper.coef_dealiasing,
                       "truncation_shape": params.oper.truncation_shape},
        "k_max_eta_at_peak": k_max * eta_peak,
        "wall_time": {"init_s": init_time, "loop_s": loop_time,
                      "per_step_s": loop_time / steps if steps else None,
                      "transforms_s": transforms_s,
                      "transforms_share": transforms_s / loop_time if loop_time > 0 else None,
                      "transforms_per_step": (sum(transforms_count.values()) / steps
                                              if steps else None),
                      "transforms_count": {k: v for k, v in transforms_count.items() if v}},
        "reference": os.path.basename(args.reference) if ref is not None else None,
        "initial_full_precision": initial, "final_full_precision": final,
        **analysis,
        "series": {k: v.tolist() for k, v in series.items()},
        "series_full_precision": series_full,
        "fluidsim_dir": None if temporary and not args.keep else path_run,
    }
    if args.compare:
        with open(args.compare) as f:
            result["compare"] = compare_runs(result, json.load(f))

    report(result)
    if args.out:
        with open(args.out, "w") as f:
            json.dump(result, f, indent=1)
            f.write("\n")
        print(f"wrote {args.out}")
    if temporary and not args.keep:
        shutil.rmtree(directory, ignore_errors=True)
    return 0


def report(r: Dict[str, Any]) -> None:
    ts = r["time_stepping"]
    wt = r["wall_time"]
    print()
    print(f"fluidsim {r['fluidsim']} ns3d, Taylor-Green Re 1600, {r['n']}^3, "
          f"{r['ranks']} rank(s), "
          f"type_fft {r['type_fft']} ({r['fft_class']})"
          + (f", volfft grid {r['volfft_plan']['grid']} {r['volfft_plan']['engine']}"
             if r["volfft_plan"] else ""))
    print(f"RK4, {'CFL' if ts['cfl'] else 'dt = %g' % ts['dt']}: {ts['steps']} steps to "
          f"t = {r['t_final']:.4f} (mean dt {ts['mean_dt']:.4g}); "
          f"dealiasing {r['dealiasing']['coef']:.4g} ({r['dealiasing']['truncation_shape']})")
    print(f"wall: init {wt['init_s']:.2f} s, loop {wt['loop_s']:.1f} s, "
          f"{1e3 * wt['per_step_s']:.1f} ms/step; in the transforms "
          f"({wt['transforms_per_step']:.0f} a step): {wt['transforms_s']:.1f} s, "
          f"{100 * wt['transforms_share']:.0f} % (the slowest rank)")
    print()
    has_ref = "peak_ref" in r
    head = f"{'t':>6} {'E':>11} {'eps':>11}"
    if has_ref:
        head += f" {'E_ref':>11} {'eps_ref':>11} {'dE/E':>9} {'deps/eps':>9}"
    print(head)
    for row in r["table"]:
        line = f"{row['t']:6.2f} {fmt(row['E'], '11.6f')} {fmt(row['eps'], '11.7f')}"
        if has_ref:
            mark = "*" if row["ref_extrapolated"] else " "
            line += (f" {fmt(row['E_ref'], '11.6f')} {fmt(row['eps_ref'], '11.7f')}{mark}"
                     f"{fmt(row['E_rel'], '+9.2%')} {fmt(row['eps_rel'], '+9.2%')}")
        print(line)
    if has_ref and any(row["ref_extrapolated"] for row in r["table"]):
        print("* reference extrapolated from its last time, 19.99, with its -dE/dt")
    pk = r["peak"]
    line = f"peak dissipation {pk['eps']:.6f} at t = {pk['t']:.2f}"
    if pk["at_end"]:
        line += " (the last save: still rising)"
    if has_ref:
        line += (f"; reference {r['peak_ref']['eps']:.6f} at t = {r['peak_ref']['t']:.2f} "
                 f"({r['peak_rel']:+.2%}, {r['peak_dt']:+.2f})")
    print(line)
    if "max_E_rel" in r:
        print(f"largest |dE/E| {r['max_E_rel']['value']:.3g} at t = {r['max_E_rel']['t']:.2f}, "
              f"largest |deps/eps| {r['max_eps_rel']['value']:.3g} at t = "
              f"{r['max_eps_rel']['t']:.2f} (over the saves up to the reference's last time)")
    print(f"k_max eta at the peak: {r['k_max_eta_at_peak']:.3f}")
    print(f"final state (double precision): t = {r['final_full_precision']['t']:.6f}, "
          f"E = {r['final_full_precision']['E']:.15e}, "
          f"eps = {r['final_full_precision']['eps']:.15e}")
    if "compare" in r:
        c = r["compare"]
        print(f"compared with {c['other']}: {c['common_saves']} saves, same times: "
              f"{c['same_save_times']}")
        if "max_E_rel_file" in c:
            print(f"  spatial_means file (6 digits): max |dE/E| {c['max_E_rel_file']:.2e}, "
                  f"max |deps/eps| {c['max_eps_rel_file']:.2e}")
        if "final_E_rel" in c:
            print(f"  final state at t = {c['final_t']:.6f}: E {c['final_E'][0]:.15e} vs "
                  f"{c['final_E'][1]:.15e} (difference {c['final_E_diff']:+.2e}, relative "
                  f"{c['final_E_rel']:+.2e}), eps relative {c['final_eps_rel']:+.2e}")
        if "max_E_diff" in c:
            print(f"  double precision at the {c['full_precision_saves']} saves: max |dE| "
                  f"{c['max_E_diff']['value']:.2e} (t = {c['max_E_diff']['t']:.4f}, relative "
                  f"{c['max_E_diff']['rel']:.2e}), max |deps| {c['max_eps_diff']['value']:.2e} "
                  f"(relative {c['max_eps_diff']['rel']:.2e})")
        elif "full_precision_saves" in c:
            print(f"  double precision series: {c['full_precision_saves']} saves, same times: "
                  f"{c['full_precision_same_times']}")


if __name__ == "__main__":
    sys.exit(main())
