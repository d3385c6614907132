"""Every row of the performance table, each against its peers in the same run, as one Markdown table.

Rows (job | before, as measured in the issue | now | peer | peer / now):

  1. CLI ``dpcompare compare "gaussian(mu=1)" "laplace(b=1)"``, whole process (median of ``--cli-runs``); the
     peer is the floor: a process that only imports numpy, scipy.special (as dpcompare imports it), typer and rich;
  2. ``compare(Gaussian(mu=1), Laplace(b=1))`` (both Δ, crossings, verdict) and ``delta_divergences`` (both ways)
     vs [BCP]'s Appendix B.3 code (``baseline_b3.py``) at its tolerance 1e-3, with the error against the
     30-digit mpmath reference;
  3. the certified Theorem 3 pair ([BCP] §5: SGM σ = 2 vs 3, p = 9e-4, N = 1.4e6 vs 3.4e6), Δ both
     directions through the public ``delta_bracket`` (fresh process: time, peak RSS, bracket width) vs
     dp-accounting's PLDs at discretisation 1e-4 (fresh process);
  4. σ calibration to (8, 1e-5), |ε − 8| ≤ 1e-3, certified, for p = 0.01, N = 1000 and for the Opacus
     configuration (batch 256 of 60 000, 10 epochs: p = 256/60000, N = 2344), vs Opacus'
     ``get_noise_multiplier`` (RDP and PRV) and dp-accounting's ``calibrate_dp_mechanism`` (PLD);
  5. one certified ε of DP-SGD (σ = 0.5863, p = 0.01, N = 1000, δ = 1e-5) vs dp-accounting's PLD accountant,
     Microsoft's prv-accountant, autodp and Opacus' RDP accountant (each peer's own, uncertified, ε);
  6. shuffling ([MIX] Thm 4.2), ε₀ = 1, n = 10⁶: build + ε at δ = 1e-6 vs the clones bound of Feldman,
     McMillan & Talwar (``dpcompare.mixtures.FMTBound``);
  7. shuffling, n = 10⁹ (fresh process: time, peak RSS, δ bracket at the reported ε);
  8. the Figure-6 sweep of [BCP] (``examples/dpsgd_figure6.py``'s grid) on 2 processes: points/s.

Every "now" is this tree; peers run in the same process or in fresh processes of the same run, so each ratio
is measured under the same load. ``--quick`` (the smoke test) shrinks every job (B.3 at tol 1e-2, Theorem 3 at
N/100, calibration at N = 100, n = 10⁴ and 10⁶, a 2-point sweep) and skips the slow peers (Opacus PRV,
dp-accounting's search, the dp-accounting Theorem 3 run); its numbers are not the issue's.

Usage:
    python benchmarks/bench_all.py                 # full run (a few minutes on 2 cores)
    python benchmarks/bench_all.py --quick         # smoke test (~1 min)
    python benchmarks/bench_all.py --json          # one JSON object on stdout
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SRC = ROOT / "src"
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "tests"))

#: the "before" column (measured on main before that work)
BEFORE = {
    "cli": "0.86 s",
    "gauss_laplace": "3.6–6.4 ms; 519–3 442× B.3",
    "thm3": "4.0 s, 565 MB, width 5e-6",
    "calibrate_a": "0.37 s",
    "calibrate_b": "— (≥ 1× Opacus RDP)",
    "epsilon": "—",
    "shuffle_1e6": "~1 s",
    "shuffle_1e9": "killed",
    "figure6": "3.69 points/s (README: 100 points, load ≈ 2; the same-run ratio is bench_sweep.py's)",
}


def _env() -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(SRC), "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "1")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def _child(code: str, timeout: float = 900) -> dict:
    """Run ``code`` in a fresh interpreter on this tree; its last stdout line is a JSON object (time, peak RSS)."""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=_env(), timeout=timeout)
    if proc.returncode != 0:
        return {"error": (proc.stderr.strip().splitlines() or ["failed"])[-1][:160]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


#: peak RSS of the child in MB: VmHWM belongs to the process image (reset by exec), whereas ru_maxrss keeps the
#: high-water mark of the parent that forked it (this script, which may have imported torch)
_RSS = ("rss = [int(l.split()[1]) / 1024 for l in open('/proc/self/status') if l.startswith('VmHWM')][0]\n")


def _best(fn, repeat: int) -> tuple[object, float]:
    out, times = None, []
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return out, min(times)


def _median_wall(argv: list[str], runs: int) -> float:
    subprocess.run(argv, capture_output=True, env=_env(), check=True)  # warm-up (file cache, .pyc)
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(argv, capture_output=True, env=_env(), check=True)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def _row(key: str, job: str, now: str, peer: str, ratio: float | None, **detail) -> dict:
    return {"key": key, "job": job, "before": BEFORE.get(key, "—"), "now": now, "peer": peer, "ratio": ratio, **detail}


# ---------------------------------------------------------------------------------------------- 1. CLI
def cli(runs: int) -> list[dict]:
    cmd = [sys.executable, "-m", "dpcompare", "compare", "gaussian(mu=1)", "laplace(b=1)"]
    # what any compare must import
    floor = [sys.executable, "-c", "import dpcompare, numpy, scipy.special, typer, rich.table"]
    t_now, t_floor = _median_wall(cmd, runs), _median_wall(floor, runs)
    return [_row("cli", "CLI `compare gaussian laplace`, whole process", f"{t_now:.3f} s",
                 f"import floor (numpy, scipy.special, typer, rich) {t_floor:.3f} s", t_floor / t_now,
                 seconds=t_now, peer_seconds=t_floor)]


# ---------------------------------------------------------------------------------------------- 2. Gauss vs Laplace
def gauss_laplace(quick: bool, repeat: int) -> list[dict]:
    import baseline_b3
    from reference_values import gauss_laplace_reference

    import dpcompare as dc
    from dpcompare.comparison import delta_divergences

    tol = 1e-2 if quick else 1e-3
    ref = gauss_laplace_reference(1.0, 1.0)
    b3 = baseline_b3.delta_divergences(tol=tol, mu=1.0, n_jobs=os.cpu_count() or 1)

    def whole():
        c = dc.compare(dc.Gaussian(mu=1.0), dc.Laplace(b=1.0))
        return c.delta_ab, c.delta_ba

    def deltas():
        return delta_divergences(dc.Gaussian(mu=1.0), dc.Laplace(b=1.0))

    rows = []
    for label, fn in (("compare (both Δ, crossings, verdict)", whole), ("delta_divergences (both directions, one sweep)", deltas)):
        fn()
        (ab, ba), t = _best(fn, repeat)
        err = max(abs(ab.value - ref.delta_gl), abs(ba.value - ref.delta_lg))
        rows.append(_row("gauss_laplace", f"Gaussian(μ=1) vs Laplace(b=1): {label}",
                         f"{t * 1e3:.3f} ms, error {err:.1e}", f"[BCP] App. B.3 (tol {tol:g}) {b3['seconds']:.2f} s",
                         b3["seconds"] / t, seconds=t, peer_seconds=b3["seconds"], error=err))
    return rows


# ---------------------------------------------------------------------------------------------- 3. Theorem 3
_THM3 = """
import json, time
from dpcompare.comparison import delta_bracket
from dpcompare.mechanisms.sgm import SubsampledGaussian
t0 = time.perf_counter()
a, b = SubsampledGaussian(2.0, 9e-4, {na}), SubsampledGaussian(3.0, 9e-4, {nb})
ab, ba = delta_bracket(a, b), delta_bracket(b, a)
t = time.perf_counter() - t0
""" + _RSS + """print(json.dumps({{"seconds": t, "rss_mb": rss, "width": max(ab.width, ba.width),
                  "ab": [ab.lower, ab.upper], "ba": [ba.lower, ba.upper]}}))
"""

_THM3_DPA = """
import json, time
from dpcompare.accounting import pld_pair, subsampled_gaussian_composed
from dpcompare.mechanisms import FromPair
from dpcompare.tradeoff import delta_between_pairs
t0 = time.perf_counter()
pa = FromPair(pld_pair(subsampled_gaussian_composed(2.0, 9e-4, {na}, discretization=1e-4)))
pb = FromPair(pld_pair(subsampled_gaussian_composed(3.0, 9e-4, {nb}, discretization=1e-4)))
(ap, _), (bp, _) = pa.pairs(), pb.pairs()
d = delta_between_pairs(ap, bp)[0], delta_between_pairs(bp, ap)[0]
t = time.perf_counter() - t0
""" + _RSS + """print(json.dumps({{"seconds": t, "rss_mb": rss}}))
"""


def thm3(quick: bool) -> list[dict]:
    na, nb = (14_000, 34_000) if quick else (1_400_000, 3_400_000)
    ours = _child(_THM3.format(na=na, nb=nb))
    if "error" in ours:
        return [_row("thm3", "certified Theorem 3 pair, both directions", f"failed: {ours['error']}", "—", None)]
    peer = {"error": "skipped (--quick)"} if quick else _child(_THM3_DPA.format(na=na, nb=nb))
    peer_txt = (f"dp-accounting PLD (h = 1e-4) {peer['seconds']:.2f} s, {peer['rss_mb']:.0f} MB" if "seconds" in peer
                else f"dp-accounting: {peer['error']}")
    return [_row("thm3", f"certified Theorem 3 pair (N = {na:.2g} / {nb:.2g}), both directions",
                 f"{ours['seconds']:.2f} s, {ours['rss_mb']:.0f} MB, width {ours['width']:.1e}", peer_txt,
                 peer["seconds"] / ours["seconds"] if "seconds" in peer else None, **{"ours": ours, "peer_run": peer})]


# ---------------------------------------------------------------------------------------------- 4. σ calibration
def _clear_caches() -> None:
    import dpcompare.composition.sgm_certified as sgm
    from dpcompare.dpsgd import rdp_bound

    for f in vars(sgm).values():
        if callable(getattr(f, "cache_clear", None)):
            f.cache_clear()
    rdp_bound._rdp_orders_cached.cache_clear()


def calibrate(quick: bool, repeat: int) -> list[dict]:
    from dpcompare.dpsgd import certified_epsilon, sigma_for_epsilon

    eps, delta, tol = 8.0, 1e-5, 1e-3
    configs = [("calibrate_a", "σ calibration p = 0.01, N = 100 (quick)", 0.01, 100)] if quick else [
        ("calibrate_a", "σ calibration to (8, 1e-5), p = 0.01, N = 1000", 0.01, 1000),
        ("calibrate_b", "σ calibration, Opacus config (batch 256 / 60 000, 10 epochs)", 256 / 60000,
         math.ceil(10 * 60000 / 256))]
    sigma_for_epsilon(eps, delta, 0.02, 10, tol=tol)  # warm-up
    rows = []
    for key, job, p, n in configs:
        times, c = [], None
        for _ in range(repeat):
            _clear_caches()
            t0 = time.perf_counter()
            c = sigma_for_epsilon(eps, delta, p, n, tol=tol)
            times.append(time.perf_counter() - t0)
        t = statistics.median(times)
        now = f"{t:.3f} s, σ = {c.sigma:.6f}, ε = {c.epsilon:.5f}"
        peers = []
        try:
            from opacus.accountants.utils import get_noise_multiplier
        except ImportError:  # pragma: no cover
            get_noise_multiplier = None
        for acc in ("rdp",) if quick else ("rdp", "prv"):
            if get_noise_multiplier is None:
                break

            def run(acc=acc):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    return get_noise_multiplier(target_epsilon=eps, target_delta=delta, sample_rate=p, steps=n,
                                                accountant=acc, epsilon_tolerance=tol)
            run_times, s = [], None
            for _ in range(repeat if acc == "rdp" else 1):
                t0 = time.perf_counter()
                s = run()
                run_times.append(time.perf_counter() - t0)
            peers.append((f"Opacus {acc.upper()}", statistics.median(run_times), s))
        if not quick:
            import dp_accounting
            from dp_accounting import mechanism_calibration
            from dp_accounting.pld import pld_privacy_accountant

            def event(s):
                return dp_accounting.SelfComposedDpEvent(
                    dp_accounting.PoissonSampledDpEvent(p, dp_accounting.GaussianDpEvent(s)), n)
            t0 = time.perf_counter()
            s = mechanism_calibration.calibrate_dp_mechanism(
                pld_privacy_accountant.PLDAccountant, event, eps, delta,
                mechanism_calibration.LowerEndpointAndGuess(0.1, 1.0), tol=1e-5)
            peers.append(("dp-accounting search (PLD)", time.perf_counter() - t0, s))
        for name, tp, s in peers:
            over = s / c.sigma - 1.0
            rows.append(_row(key, job, now, f"{name} {tp:.3f} s (σ {100 * over:+.1f} %, certified ε "
                             f"{certified_epsilon(s, p, n, delta):.3f})", tp / t, seconds=t, peer_seconds=tp,
                             sigma=c.sigma, peer_sigma=s))
        if not peers:
            rows.append(_row(key, job, now, "—", None, seconds=t))
    return rows


# ---------------------------------------------------------------------------------------------- 5. one ε
def one_epsilon(quick: bool, repeat: int) -> list[dict]:
    from dpcompare.dpsgd import certified_epsilon

    sigma, p, n, delta = 0.5863, 0.01, (100 if quick else 1000), 1e-5
    job = f"certified ε of DP-SGD (σ = {sigma}, p = {p}, N = {n}, δ = {delta:g})"
    certified_epsilon(0.7, p, 10, delta)  # warm-up

    def ours():
        _clear_caches()
        return certified_epsilon(sigma, p, n, delta)
    e, t = _best(ours, repeat)
    now = f"{t * 1e3:.1f} ms, ε ≤ {e:.4f}"
    peers = {}

    def dpa():
        import dp_accounting
        from dp_accounting.pld import pld_privacy_accountant

        acc = pld_privacy_accountant.PLDAccountant()
        acc.compose(dp_accounting.SelfComposedDpEvent(
            dp_accounting.PoissonSampledDpEvent(p, dp_accounting.GaussianDpEvent(sigma)), n))
        return acc.get_epsilon(delta)
    peers["dp-accounting PLD"] = dpa

    def prv():
        from prv_accountant import PoissonSubsampledGaussianMechanism, PRVAccountant

        acc = PRVAccountant(prvs=PoissonSubsampledGaussianMechanism(noise_multiplier=sigma, sampling_probability=p),
                            max_self_compositions=n, eps_error=0.01, delta_error=delta / 1000)
        return acc.compute_epsilon(delta=delta, num_self_compositions=[n])[2]
    peers["prv-accountant (upper)"] = prv

    def autodp():
        from autodp.mechanism_zoo import SubsampleGaussianMechanism

        return SubsampleGaussianMechanism({"prob": p, "sigma": sigma, "coeff": n}).get_approxDP(delta)
    peers["autodp"] = autodp

    def opacus_rdp():
        from opacus.accountants.analysis.rdp import compute_rdp, get_privacy_spent

        orders = [1 + x / 10.0 for x in range(1, 100)] + list(range(12, 64))
        return get_privacy_spent(orders=orders, rdp=compute_rdp(q=p, noise_multiplier=sigma, steps=n, orders=orders),
                                 delta=delta)[0]
    peers["Opacus RDP"] = opacus_rdp
    rows = []
    for name, fn in peers.items():
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                fn()  # warm-up (imports)
                v, tp = _best(fn, 1 if quick else min(repeat, 3))
            rows.append(_row("epsilon", job, now, f"{name} {tp * 1e3:.1f} ms (ε = {float(v):.4f})", tp / t,
                             seconds=t, peer_seconds=tp, epsilon=e, peer_epsilon=float(v)))
        except Exception as exc:  # a peer that fails is reported, not fatal
            rows.append(_row("epsilon", job, now, f"{name}: {type(exc).__name__}", None, seconds=t))
    return rows


# ---------------------------------------------------------------------------------------------- 6–7. shuffling
_SHUFFLE = """
import json, time
from dpcompare.mixtures import Shuffled
Shuffled(1.0, 10**4).epsilon(1e-6)
t0 = time.perf_counter()
m = Shuffled(1.0, {n})
e = float(m.epsilon(1e-6))
t = time.perf_counter() - t0
lo, hi = m.delta_bounds(e)
""" + _RSS + """print(json.dumps({{"seconds": t, "rss_mb": rss, "epsilon": e, "delta": [float(lo), float(hi)]}}))
"""


def shuffling(quick: bool, repeat: int) -> list[dict]:
    from dpcompare.mixtures import FMTBound, Shuffled

    n = 10**4 if quick else 10**6
    Shuffled(1.0, 1000).epsilon(1e-6)

    def ours():
        return float(Shuffled(1.0, n).epsilon(1e-6))

    def fmt():
        return float(FMTBound(1.0, n).epsilon(1e-6))
    e, t = _best(ours, repeat)
    fmt()
    ef, tf = _best(fmt, repeat)
    rows = [_row("shuffle_1e6", f"shuffling ε₀ = 1, n = {n:.0e}: build + ε at δ = 1e-6", f"{t:.3f} s, ε = {e:.6f}",
                 f"FMT clones bound {tf:.3f} s (ε = {ef:.6f})", tf / t, seconds=t, peer_seconds=tf)]
    big = 10**6 if quick else 10**9
    r = _child(_SHUFFLE.format(n=big))
    now = (f"{r['seconds']:.2f} s, {r['rss_mb']:.0f} MB, δ bracket [{r['delta'][0]:.4g}, {r['delta'][1]:.4g}]"
           if "seconds" in r else f"failed: {r['error']}")
    rows.append(_row("shuffle_1e9", f"shuffling ε₀ = 1, n = {big:.0e}, certified (fresh process)", now,
                     "— (main: MemoryError)", None, **r))
    return rows


# ---------------------------------------------------------------------------------------------- 8. Figure 6
def figure6(quick: bool, points: int) -> list[dict]:
    import numpy as np

    from dpcompare.dpsgd.sweep import parse_grid, run_sweep

    k = max(1, int(round(math.sqrt(points))))
    ps = [0.04, 0.9] if quick else [float(x) for x in np.round(np.geomspace(0.04, 0.9, k), 4)]
    ns = [534] if quick else [int(x) for x in np.round(np.linspace(534, 1500, k))]
    toml = ("[target]\nepsilon = 8.0\ndelta = 1e-5\n\n[baseline]\nsampling_rate = 0.01\nsteps = 500\n\n"
            f"[grid]\nsampling_rate = {ps!r}\nsteps = {ns!r}\n")
    with tempfile.TemporaryDirectory() as d:
        s = run_sweep(parse_grid(toml), os.path.join(d, "f6.csv"), workers=2)
    pps = s["points_per_second"] or 0.0
    return [_row("figure6", f"Figure-6 sweep, {s['points']} points, 2 processes", f"{pps:.2f} points/s "
                 f"({s['seconds']:.1f} s)", "—", None, points=s["points"], seconds=s["seconds"])]


# ---------------------------------------------------------------------------------------------- table
def markdown(rows: list[dict]) -> str:
    out = ["| job | before | now | peer (same run) | peer / now |", "| --- | --- | --- | --- | --- |"]
    last = None
    for r in rows:
        same = r["job"] == last
        ratio = "—" if r["ratio"] is None else f"{r['ratio']:.3g}×"
        out.append(f"| {'〃' if same else r['job']} | {'' if same else r['before']} | {'' if same else r['now']} | "
                   f"{r['peer']} | {ratio} |")
        last = r["job"]
    return "\n".join(out)


JOBS = ("cli", "gauss_laplace", "thm3", "calibrate", "epsilon", "shuffle", "figure6")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="small jobs, slow peers skipped (smoke test)")
    ap.add_argument("--repeat", type=int, default=None, help="timed runs per job (default 5; --quick 1)")
    ap.add_argument("--cli-runs", type=int, default=None, help="CLI processes per command (default 7; --quick 1)")
    ap.add_argument("--fig6-points", type=int, default=16, help="Figure-6 grid points (k × k, default 16; 100 = all)")
    ap.add_argument("--only", nargs="+", choices=JOBS, help="run only these rows")
    ap.add_argument("--json", action="store_true", help="one JSON object on stdout")
    args = ap.parse_args(argv)
    repeat = args.repeat or (1 if args.quick else 5)
    runs = args.cli_runs or (1 if args.quick else 7)
    if repeat < 1 or runs < 1:
        ap.error("--repeat and --cli-runs must be >= 1")
    jobs = args.only or JOBS
    rows: list[dict] = []
    t0 = time.perf_counter()
    for job in jobs:
        if job == "cli":
            rows += cli(runs)
        elif job == "gauss_laplace":
            rows += gauss_laplace(args.quick, max(repeat, 5))
        elif job == "thm3":
            rows += thm3(args.quick)
        elif job == "calibrate":
            rows += calibrate(args.quick, repeat)
        elif job == "epsilon":
            rows += one_epsilon(args.quick, repeat)
        elif job == "shuffle":
            rows += shuffling(args.quick, repeat)
        elif job == "figure6":
            rows += figure6(args.quick, args.fig6_points)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    if args.json:
        print(json.dumps({"quick": args.quick, "repeat": repeat, "load": load, "seconds": time.perf_counter() - t0,
                          "rows": rows}, default=str))
        return 0
    print(markdown(rows))
    print(f"\n{'quick run (smaller jobs, slow peers skipped); ' if args.quick else ''}load average {load:.1f} on "
          f"{os.cpu_count()} cores; best of {repeat} (calibration: median; CLI: median of {runs} processes); "
          f"{time.perf_counter() - t0:.0f} s in all")
    return 0


if __name__ == "__main__":
    sys.exit(main())
