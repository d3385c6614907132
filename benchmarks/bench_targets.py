"""The speed targets of "certified and fastest at equal accuracy", each against its peer in the same run.

Every cold job is a fresh interpreter that imports numpy and scipy.special before the clock starts (for ours
and for the peer alike); the clock then includes importing the package and answering. Ours and the peer
alternate (``--repeat`` rounds, medians), so each ratio is measured under the same load; the load average
is printed with the table. Ratio = peer time / our time (> 1: we are faster).

Rows:
  eps        certified ε of DP-SGD (σ = 1, p = 0.01, N = 10⁴, δ = 1e-5), cold and warm (a second question in the
             same process: σ = 1.01, nothing cached but the imports; and the same σ again in a new object, which
             the module's pair cache answers) vs dp-accounting's RDP accountant;
             ``SubsampledGaussian.epsilon`` (default grid) and ``epsilon_to_accuracy`` (rel. accuracy 1e-4,
             certified bracket reported);
  ddefault   default δ(ε = 1.5) of SGM(0.7, 0.05, 300): excess over a certified 40×-finer bracket and time,
             ``SubsampledGaussian(...).delta`` (grid chosen from the question) vs dp-accounting's default PLD;
  delta      SGM Δ at N = 10³: ``compare(SGM(1, 0.01, 1000), SGM(1.5, 0.02, 1000))`` vs dp-accounting's PLD
             accountant at its default grid composing both mechanisms;
  thm3       the certified Theorem 3 pair ([BCP] §5; σ = 2 vs 3, p = 9e-4, N = 1.4·10⁶ vs 3.4·10⁶), Δ both ways,
             width and peak RSS, vs dp-accounting's dense PLDs at h = 1e-4 (composition only);
  calibrate  σ for (8, 1e-5) at p = 0.01, N = 1000, certified, cold process vs Opacus' RDP search (cold too);
  cli        whole CLI processes vs ``python -c "import numpy, scipy.special"``: medians of ≥ 11 interleaved rounds of
             CPU (user + system) and wall, the CPU ratio with the quartiles of the per-round ratios, and a verdict
             that says "at the edge" when the target lies within them (``cli_rows``);
  b3         ``compare(Gaussian(μ=1), Laplace(b=1))`` vs [BCP] Appendix B.3's code (tol 1e-3), in-process;
  bins       balls-in-bins certified ε bracket at (σ, k, E) = (1.1, 235, 10), cold, peak RSS (≤ 2 s, ≤ 1 GB), beside
             random-allocation's upper bound;
  audit      an audit of 10⁶ scores per class against sgm(1, 0.01, 10⁴) after the claim is built (≤ 2 s), beside
             JAX-Privacy's ``epsilon_clopper_pearson``.

Profile of the warm ε job (N = 10⁴, a new σ: nothing cached), this tree against the previous one (``--before``: main
at ce6244f), ``time.process_time`` per stage, medians over 9 new σ, two runs per tree alternating in the same minute
(05:40 UTC, load 4.1–4.4 on 2 cores: ≈ 1.6× the quiet times; previous tree in brackets); minor page faults per answer
from ``getrusage``:

    whole answer                                                                             0.058–0.061 s (0.081–0.088)
    tradeoff/compose.py  power_spectrum, Q and P                                             0.017–0.018 s (0.030–0.032)
        forward rFFT of n = 196 830: numpy's pocketfft into a per-thread buffer           0.009 s (0.012–0.013, scipy)
        _extended_dft: (A × 256)·(256 × 2·10) long-double products, the far tail's
        ≤ u/2·Σx left out, instead of a chain of clongdouble products                  0.0055 s (0.014–0.015)
    composition/sgm_step.py  one-step partition (3-point rule in closed form, chunks of 8192
        cells, one-sided chunks without the candidate masks; since then 4096-cell chunks,
        ≈ 7 % less in one process)                                                         0.012–0.013 s (0.021–0.023)
    tradeoff/grid.py  pessimistic_step (not changed)                                        0.008–0.009 s (0.007–0.008)
    composition/sgm_certified.py  side_for_epsilon (not changed)                            0.0066 s (0.006–0.0065)
    tradeoff/compose.py  chernoff_window (not changed)                                       0.006 s (0.006)
    tradeoff/compose_coarse.py  _finish (the step totals from _prepare, direct sums)         0.0036 s (0.0067–0.0071)
    minor page faults per answer                                                              2 800 (6 760)

Much of the previous tree's time went to faulting in fresh pages (7 000 per answer): ≈ 60 temporaries of 4·10⁴ doubles
per partition measure and the FFT's padded input and output, each freed and re-faulted (glibc trims the heap top).
With ``MALLOC_TRIM_THRESHOLD_``/``MALLOC_MMAP_THRESHOLD_`` at 256 MB in the environment, the tree after the DFT change
alone took 0.041–0.043 s instead of 0.050–0.073 s (alternate processes, load ≈ 3; faults 1 400 instead of 7 000): a
process-wide allocator setting a library should not make, so this tree removes most of them in the code (chunked cells, the FFT output buffer, the DFT's long-double
input, in-place halving in ``correctly_rounded_sum``). What is left: the two transforms (≈ 5.5 ms quiet), the partition
(≈ 6 ms), the pessimistic split (grid.py, ≈ 4 ms, 900 faults), the window, ε's reader (pair.py δ(ε): 4–6 δ evaluations,
≈ 1 ms each loaded) and the coarse read-out: no stage above a quarter.

Profile of the warm ``epsilon_to_accuracy(rel_tol=1e-4)`` job (N = 10⁴, a new σ), the same runs (7 new σ each, load
4.4): per call 0.094 s (0.099–0.111).

    tradeoff/grid_merge.py  greedy merge of the optimistic side (a Python loop over the groups; being vectorised in
        another branch)                                                                   0.032 s (0.027–0.031)
    composition/sgm_step.py  one-step partitions (pessimistic: 1 cell per interval; optimistic: 2)   0.0145 s (0.023–0.024)
    tradeoff/compose.py  power_spectrum (both sides)                                            0.011 s (0.014–0.016)
    tradeoff/compose_coarse.py  _finish (both sides)                                            0.008 s (0.011–0.012)
    tradeoff/compose.py  chernoff_window                                                         0.0065 s (0.0065)
    composition/sgm_accuracy.py  _upper + _lower                                                 0.010 s (0.009–0.010)
    tradeoff/grid.py  pessimistic split                                                          0.003 s (0.003)

The greedy merge is now a third of the call (the faults this tree no longer takes elsewhere show up in its loop's
allocations: 490–540 against 200).

The passes are built when a question reaches the far tail (composition/sgm_certified.py ``side_for_epsilon``,
``side_for_profile``: where they could improve the certified answer by more than 1e-5 of it), from the window
and spectra already computed. The same question asked again (a new ``SubsampledGaussian`` with the same
σ, p, N in the same process) is answered from the module-level cache of pessimistic pairs
(``composition.sgm_compose.pessimistic_side``, 16 entries) in a few ms: that is how a user who re-asks meets it,
and the "same σ" warm rows measure it.

Profile of the thm3 job (cold, both directions), this tree against the previous commit's (``--before``): CPU per
stage (``time.process_time`` around each function, medians of 3 fresh processes each, ``OMP_NUM_THREADS=1``,
load ≈ 10 on 2 cores; the stages that did not change differ by noise only):

    tradeoff/compose.py  power_spectrum, 8 passes (Q and P, both sides, both mechanisms)       0.09 s (was 1.12)
        was: full real FFTs of 2 239 488 / 3 499 200 points for inputs of 26 482 / 8 160 points and 113 / 114 live
        entries; now tradeoff/low_band_dft.py: a length-n/s rFFT certifies every entry above the band dead, the band
        (162 / 216 entries) is summed directly (band_dft 0.06 s of the 0.09 s)
    composition/sgm_step.py  sgm_partition (one-step cell masses)                              0.09 s
    tradeoff/grid.py  optimistic_step (the greedy merge, 228 k and 55 k cells)                   0.09 s
    tradeoff/compose_coarse.py  _finish (coarse read-out)                                        0.03 s
    tradeoff/compose.py  chernoff_window                                                         0.02 s
    comparison/delta.py  delta_pairs (Δ from the merged breakpoints)                             0.01 s
    imports (dpcompare.comparison, mechanisms.sgm, composition)                                  0.09 s
    total after numpy + scipy.special                                                            0.49 s (was 1.74)

Peak RSS 91 MB (was 206 MB: the full transforms' n-point complex arrays).

Profile of the CLI ``compare gaussian(mu=1) laplace(b=1)`` job: instructions of whole processes (valgrind cachegrind,
``bench_cli_startup.py --instructions``; they repeat exactly at any load), each stage a process that stops after it,
in M instructions above the floor's 1158 M (11.6 M = 0.01 of the ratio):

    typer (import)                                                                          52   (4.5 %)
    dpcompare.io.cli.app                                                                     4
    the compare module's imports: _validation/_search 10, mechanisms.base 8, bracket +
        certified 3, prior_sweep 16, delta + delta_accuracy 13, comparison 18, io.spec* 13     84   (7.2 %)
    rich (console, table, markup)                                                           96   (8.3 %)
    parsing and the comparison (with the Gaussian's and Laplace's modules)                  16
    printing (rich renders two tables and four paragraphs)                                  25
    typer's dispatch and the rest                                                            6
    whole process: 1441 M = 1.244× the floor (was 1453 M = 1.254×); CPU reads ≈ 1.3× (page faults, caches)
    since: 1404 M = 1.212× (the internal records plain classes −18 M, the public results compare does not build
    in modules of their own −19 M; measured at load 3.3, the stages above not re-measured)

15 frozen dataclasses were created on this path (≈ 2.3 M + 0.28 M per field each in Python 3.11: six methods compiled
from source; a NamedTuple ≈ 0.7 M, a plain class ≈ 0.1 M): ≈ 54 M, 4.7 % of the floor; 5 are left, all public and used (Gaussian, Laplace, Bracket, DeltaResult, Comparison).

Usage:
    python benchmarks/bench_targets.py [--repeat 3] [--json] [--only eps,delta,...]
    python benchmarks/bench_targets.py --quick            # smoke test: small jobs, 1 round
    python benchmarks/bench_targets.py --only thm3 --before /tmp/before/src   # + our job from another tree, interleaved
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SRC = ROOT / "src"

PRE = "import json, time\nimport numpy, scipy.special\n"
RSS = "rss = [int(l.split()[1]) / 1024 for l in open('/proc/self/status') if l.startswith('VmHWM')][0]\n"
CLOCK = "t0, c0 = time.perf_counter(), time.process_time()\n"
STOP = "t, c = time.perf_counter() - t0, time.process_time() - c0\n"


#: ``--before DIR``: another tree's ``src`` (e.g. ``git archive <commit> src | tar -x -C /tmp/before``); the thm3 row
#: then also runs our job from it, interleaved with the others, for a before/after in one run
BEFORE_SRC: Path | None = None


def _env(src: Path | None = None) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(src or SRC), "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "1")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def _child(body: str, timeout: float = 900, src: Path | None = None) -> dict:
    code = PRE + CLOCK + body
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=_env(src), timeout=timeout)
    if proc.returncode != 0:
        return {"error": (proc.stderr.strip().splitlines() or ["failed"])[-1][:200]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _interleaved(jobs: dict[str, str], repeat: int, srcs: dict[str, Path] | None = None) -> dict[str, dict]:
    """Run each child ``repeat`` times, alternating; medians of every numeric field. ``srcs``: a job's own
    PYTHONPATH (default: this tree's src)."""
    runs: dict[str, list[dict]] = {k: [] for k in jobs}
    for _ in range(repeat):
        for k, body in jobs.items():
            runs[k].append(_child(body, src=(srcs or {}).get(k)))
    out = {}
    for k, rs in runs.items():
        ok = [r for r in rs if "error" not in r]
        if not ok:
            out[k] = rs[-1]
            continue
        med = {f: statistics.median(r[f] for r in ok) for f, v in ok[0].items() if isinstance(v, (int, float))}
        out[k] = {**ok[-1], **med}
    return out


def _row(job, ours, peer, t_ours, t_peer, target, met, **detail) -> dict:
    ratio = (t_peer / t_ours) if (t_ours and t_peer) else None
    return {"job": job, "ours": ours, "peer": peer, "ratio": ratio, "target": target, "met": met, **detail}


# ---------------------------------------------------------------------------------------------- ε
def eps_rows(quick: bool, repeat: int) -> list[dict]:
    n = 1000 if quick else 10_000
    sg = f"SubsampledGaussian(1.0, 0.01, {n})"
    ours = ("from dpcompare.mechanisms.sgm import SubsampledGaussian\n"
            f"e = {sg}.epsilon(1e-5)\n" + STOP +
            f"t1, u1 = time.perf_counter(), time.process_time(); e2 = SubsampledGaussian(1.01, 0.01, {n}).epsilon(1e-5); tw, uw = time.perf_counter() - t1, time.process_time() - u1\n"
            f"t1 = time.perf_counter(); SubsampledGaussian(1.0, 0.01, {n}).epsilon(1e-5); ts = time.perf_counter() - t1\n"
            "print(json.dumps({'seconds': t, 'cpu': c, 'warm': tw, 'warm_cpu': uw, 'same': ts, 'epsilon': e}))\n")
    acc = ("from dpcompare.composition.sgm_accuracy import epsilon_to_accuracy\n"
           f"a = epsilon_to_accuracy(1.0, 0.01, {n}, 1e-5, rel_tol=1e-4)\n" + STOP +
           f"t1, u1 = time.perf_counter(), time.process_time(); epsilon_to_accuracy(1.01, 0.01, {n}, 1e-5, rel_tol=1e-4); tw, uw = time.perf_counter() - t1, time.process_time() - u1\n"
           f"t1 = time.perf_counter(); epsilon_to_accuracy(1.0, 0.01, {n}, 1e-5, rel_tol=1e-4); ts = time.perf_counter() - t1\n"
           "print(json.dumps({'seconds': t, 'cpu': c, 'warm': tw, 'warm_cpu': uw, 'same': ts, 'epsilon': a.epsilon, 'lower': a.lower, "
           "'rel': a.rel_accuracy}))\n")
    rdp = ("import dp_accounting\nfrom dp_accounting.rdp import rdp_privacy_accountant as R\n"
           "def run(s):\n    a = R.RdpAccountant(); a.compose(dp_accounting.SelfComposedDpEvent("
           f"dp_accounting.PoissonSampledDpEvent(0.01, dp_accounting.GaussianDpEvent(s)), {n})); return a.get_epsilon(1e-5)\n"
           "e = run(1.0)\n" + STOP +
           "t1, u1 = time.perf_counter(), time.process_time(); run(1.01); tw, uw = time.perf_counter() - t1, time.process_time() - u1\n"
           "t1 = time.perf_counter(); run(1.0); ts = time.perf_counter() - t1\n"
           "print(json.dumps({'seconds': t, 'cpu': c, 'warm': tw, 'warm_cpu': uw, 'same': ts, 'epsilon': e}))\n")
    r = _interleaved({"ours": ours, "acc": acc, "rdp": rdp}, repeat)
    rows = []
    p = r["rdp"]
    for key, label in (("ours", "SubsampledGaussian.epsilon (default grid)"), ("acc", "epsilon_to_accuracy(rel_tol=1e-4)")):
        o = r[key]
        if "error" in o or "error" in p:
            rows.append(_row(f"certified ε, N = {n}: {label}", o.get("error", ""), p.get("error", ""), None, None, "", None))
            continue
        extra = f", bracket [{o['lower']:.5f}, {o['epsilon']:.5f}] (rel {o['rel']:.1e})" if key == "acc" else ""
        rows.append(_row(f"certified ε, N = {n}: {label}, cold", f"{o['seconds']:.3f} s (CPU {o['cpu']:.3f}), "
                         f"ε = {o['epsilon']:.5f}{extra}", f"dp-accounting RDP {p['seconds']:.3f} s (CPU {p['cpu']:.3f}), "
                         f"ε = {p['epsilon']:.4f}", o["seconds"], p["seconds"], "ours ≤ 3× peer (ratio ≥ 0.33)",
                         p["seconds"] / o["seconds"] >= 1 / 3, ours_run=o, peer_run=p))
        rows.append(_row(f"certified ε, N = {n}: {label}, warm (σ = 1.01: nothing cached)", f"{o['warm']:.3f} s (CPU {o['warm_cpu']:.3f})",
                         f"{p['warm']:.3f} s (CPU {p['warm_cpu']:.3f})", o["warm"], p["warm"], "ours ≤ 1× peer (ratio ≥ 1)", p["warm"] / o["warm"] >= 1))
        rows.append(_row(f"certified ε, N = {n}: {label}, warm (same σ, new object: the module's pair cache)",
                         f"{o['same']:.4f} s", f"{p['same']:.4f} s", o["same"], p["same"], "ours ≤ 1× peer (ratio ≥ 1)",
                         p["same"] / o["same"] >= 1))
    return rows


# ---------------------------------------------------------------------------------------------- default δ(ε)
#: the audit point of the default-accuracy row: (σ, p, N) and ε (δ ≈ 0.36)
DDEFAULT = (0.7, 0.05, 300, 1.5)


def ddefault_rows(quick: bool, repeat: int) -> list[dict]:
    """Default δ(ε): excess over the truth and time, ours (``SubsampledGaussian(...).delta``, the grid chosen
    from the question) vs dp-accounting's PLD accountant at its default grid (value_discretization_interval
    1e-4). The truth is a certified bracket on a grid 40× finer than our default (width ≈ 1e-8), built once
    in a separate process and not timed."""
    sigma, p, n, eps = (0.7, 0.05, 60, 1.5) if quick else DDEFAULT
    div = 8 if quick else 40
    truth = _child("from dpcompare.composition.sgm_certified import compose_subsampled_gaussian, default_discretization, "
                   f"profile_bracket\nc = compose_subsampled_gaussian({sigma}, {p}, {n}, default_discretization({sigma}, "
                   f"{p}, {n}) / {div})\nb = profile_bracket(c, {eps})\n"
                   "print(json.dumps({'hi': float(b.pessimistic), 'lo': float(b.optimistic)}))\n", timeout=1800)
    ours = ("from dpcompare.mechanisms.sgm import SubsampledGaussian\n"
            f"m = SubsampledGaussian({sigma}, {p}, {n})\nd = float(m.delta({eps}))\n" + STOP +
            f"acc = m.accuracy({eps})\n"
            "print(json.dumps({'seconds': t, 'cpu': c, 'delta': d, 'accuracy': acc}))\n")
    peer = ("import dp_accounting\nfrom dp_accounting.pld import pld_privacy_accountant as P\n"
            "a = P.PLDAccountant()\n"
            f"a.compose(dp_accounting.SelfComposedDpEvent(dp_accounting.PoissonSampledDpEvent({p}, "
            f"dp_accounting.GaussianDpEvent({sigma})), {n}))\nd = a.get_delta({eps})\n" + STOP +
            "print(json.dumps({'seconds': t, 'cpu': c, 'delta': d}))\n")
    r = _interleaved({"ours": ours, "peer": peer}, repeat)
    o, q = r["ours"], r["peer"]
    label = f"default δ(ε = {eps:g}) of SGM({sigma:g}, {p:g}, {n}), cold"
    if "error" in o or "error" in q or "error" in truth:
        return [_row(label, o.get("error", "") or truth.get("error", ""), q.get("error", ""), None, None, "", None)]
    lo, hi = truth["lo"], truth["hi"]
    ex_o = (o["delta"] - hi, o["delta"] - lo)  # the excess lies in this range (the truth lies in [lo, hi])
    ex_p = (q["delta"] - hi, q["delta"] - lo)
    met = ex_o[1] <= 2.0 * ex_p[0] and o["seconds"] <= q["seconds"]
    return [_row(label, f"{o['seconds']:.3f} s (CPU {o['cpu']:.3f}), δ = {o['delta']:.10f}, excess "
                 f"[{ex_o[0]:.2e}, {ex_o[1]:.2e}], certified width {o['accuracy']:.1e}",
                 f"dp-accounting PLD default {q['seconds']:.3f} s (CPU {q['cpu']:.3f}), δ = {q['delta']:.10f}, excess "
                 f"[{ex_p[0]:.2e}, {ex_p[1]:.2e}]", o["seconds"], q["seconds"],
                 "excess ≤ 2× peer's, time ≤ peer's", met, truth=truth, ours_run=o, peer_run=q)]


# ---------------------------------------------------------------------------------------------- Δ at N = 10³
def delta_rows(quick: bool, repeat: int) -> list[dict]:
    n = 100 if quick else 1000
    ours = ("import dpcompare as dc\nfrom dpcompare.mechanisms.sgm import SubsampledGaussian\n"
            f"r = dc.compare(SubsampledGaussian(1.0, 0.01, {n}), SubsampledGaussian(1.5, 0.02, {n}))\n" + STOP +
            "print(json.dumps({'seconds': t, 'cpu': c, 'delta_ab': r.delta_ab.value, 'width': r.delta_ab.upper - r.delta_ab.lower}))\n")
    peer = ("import dp_accounting\nfrom dp_accounting.pld import pld_privacy_accountant as P\n"
            "es = []\nfor s, q in ((1.0, 0.01), (1.5, 0.02)):\n    a = P.PLDAccountant()\n"
            f"    a.compose(dp_accounting.SelfComposedDpEvent(dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(s)), {n}))\n"
            "    es.append(a.get_epsilon(1e-5))\n" + STOP + "print(json.dumps({'seconds': t, 'cpu': c}))\n")
    r = _interleaved({"ours": ours, "peer": peer}, repeat)
    o, p = r["ours"], r["peer"]
    if "error" in o or "error" in p:
        return [_row(f"SGM Δ, N = {n}", o.get("error", ""), p.get("error", ""), None, None, "", None)]
    return [_row(f"SGM compare (Δ both ways), N = {n}, cold", f"{o['seconds']:.3f} s (CPU {o['cpu']:.3f}), Δ = "
                 f"{o['delta_ab']:.6f} ± {o['width']:.1e}", f"dp-accounting PLD default grid, both composed "
                 f"{p['seconds']:.3f} s (CPU {p['cpu']:.3f})", o["seconds"], p["seconds"], "ours ≤ peer (ratio ≥ 1)",
                 p["seconds"] / o["seconds"] >= 1)]


# ---------------------------------------------------------------------------------------------- Theorem 3
def thm3_rows(quick: bool, repeat: int) -> list[dict]:
    na, nb = (14_000, 34_000) if quick else (1_400_000, 3_400_000)
    ours = ("from dpcompare.comparison import delta_bracket\nfrom dpcompare.mechanisms.sgm import SubsampledGaussian\n"
            f"a, b = SubsampledGaussian(2.0, 9e-4, {na}), SubsampledGaussian(3.0, 9e-4, {nb})\n"
            "ab, ba = delta_bracket(a, b), delta_bracket(b, a)\n" + STOP + RSS +
            "print(json.dumps({'seconds': t, 'cpu': c, 'rss_mb': rss, 'width': max(ab.width, ba.width)}))\n")
    peer = ("from dpcompare.accounting import subsampled_gaussian_composed as C\n"
            f"pa = C(2.0, 9e-4, {na}, discretization=1e-4); pb = C(3.0, 9e-4, {nb}, discretization=1e-4)\n" + STOP + RSS +
            "print(json.dumps({'seconds': t, 'cpu': c, 'rss_mb': rss}))\n")
    jobs = {"ours": ours, "peer": peer} if BEFORE_SRC is None else {"before": ours, "ours": ours, "peer": peer}
    r = _interleaved(jobs, repeat, None if BEFORE_SRC is None else {"before": BEFORE_SRC})
    o, p = r["ours"], r["peer"]
    if "error" in o or "error" in p:
        return [_row("Theorem 3 pair", o.get("error", ""), p.get("error", ""), None, None, "", None)]
    rows = [_row(f"certified Theorem 3 pair (N = {na:.2g} / {nb:.2g}), cold", f"{o['seconds']:.2f} s (CPU {o['cpu']:.2f}), "
                 f"{o['rss_mb']:.0f} MB, width {o['width']:.1e}", f"dp-accounting dense PLDs h = 1e-4 {p['seconds']:.2f} s "
                 f"(CPU {p['cpu']:.2f}), {p['rss_mb']:.0f} MB", o["seconds"], p["seconds"],
                 "ratio ≥ 1, width ≤ 5e-6, ≤ 300 MB",
                 p["seconds"] / o["seconds"] >= 1 and o["width"] <= 5e-6 and o["rss_mb"] <= 300)]
    b = r.get("before")
    if b is not None and "error" not in b:
        rows.append(_row(f"certified Theorem 3 pair, before ({BEFORE_SRC}), cold", f"{b['seconds']:.2f} s (CPU {b['cpu']:.2f}), "
                         f"{b['rss_mb']:.0f} MB, width {b['width']:.1e}", "the same peer", b["seconds"], p["seconds"],
                         "ratio ≥ 1, width ≤ 5e-6, ≤ 300 MB",
                         p["seconds"] / b["seconds"] >= 1 and b["width"] <= 5e-6 and b["rss_mb"] <= 300))
    return rows


# ---------------------------------------------------------------------------------------------- calibration
def calibrate_rows(quick: bool, repeat: int) -> list[dict]:
    n = 100 if quick else 1000
    ours = ("from dpcompare.dpsgd import sigma_for_epsilon\n"
            f"r = sigma_for_epsilon(8.0, 1e-5, 0.01, {n}, tol=1e-3)\n" + STOP +
            "print(json.dumps({'seconds': t, 'cpu': c, 'sigma': r.sigma, 'epsilon': r.epsilon}))\n")
    peer = ("import warnings\nwarnings.simplefilter('ignore')\nfrom opacus.accountants.utils import get_noise_multiplier\n"
            f"s = get_noise_multiplier(target_epsilon=8.0, target_delta=1e-5, sample_rate=0.01, steps={n}, "
            "accountant='rdp', epsilon_tolerance=1e-3)\n" + STOP + "print(json.dumps({'seconds': t, 'cpu': c, 'sigma': s}))\n")
    r = _interleaved({"ours": ours, "peer": peer}, repeat)
    o, p = r["ours"], r["peer"]
    if "error" in o:
        return [_row("σ calibration", o["error"], "", None, None, "", None)]
    peer_txt = (f"Opacus RDP {p['seconds']:.3f} s (CPU {p['cpu']:.3f}), σ = {p['sigma']:.4f}" if "error" not in p
                else f"Opacus: {p['error']}")
    return [_row(f"σ calibration → (8, 1e-5), p = 0.01, N = {n}, certified, cold", f"{o['seconds']:.3f} s (CPU "
                 f"{o['cpu']:.3f}), σ = {o['sigma']:.4f}", peer_txt, o["seconds"], p.get("seconds"),
                 "ours ≤ 0.15 s", o["seconds"] <= 0.15)]


# ---------------------------------------------------------------------------------------------- CLI
#: interleaved rounds of the CLI rows (at least; ``--repeat`` more if larger): a whole process varies by ±20 % between
#: runs on a shared machine, so its median needs more rounds than the in-process jobs
CLI_RUNS = 11
#: the CLI target: each whole process ≤ this × the floor's
CLI_TARGET = 1.3


def _wall(argv: list[str]) -> tuple[float, float]:
    """(wall, CPU) of one whole process; CPU = its user + system time (``getrusage`` of the waited child)."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(argv, capture_output=True, env=_env(), check=True)
    t = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return t, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)


def _quartiles(xs: list[float]) -> tuple[float, float]:
    """(lower, upper) quartile (``statistics.quantiles``, inclusive); (x, x) for one value."""
    if len(xs) < 2:
        return xs[0], xs[0]
    q = statistics.quantiles(xs, n=4, method="inclusive")
    return q[0], q[2]


def cli_verdict(ratios: list[float], target: float = CLI_TARGET) -> str:
    """"yes" when the upper quartile of the per-round ratios (ours ÷ the floor timed in the same round) is within
    the target, "no" when the lower quartile is above it, else "at the edge" (the target lies inside the
    run-to-run spread: the median alone would decide it by noise).

    >>> cli_verdict([1.1, 1.2, 1.25]), cli_verdict([1.35, 1.4, 1.5]), cli_verdict([1.2, 1.3, 1.4])
    ('yes', 'no', 'at the edge')
    """
    lo, hi = _quartiles(ratios)
    return "yes" if hi <= target else ("no" if lo > target else "at the edge")


def _cli_command(py: str) -> list[str]:
    """How a user runs the CLI: the ``dpcompare`` console script that pip installs beside the interpreter (run by
    that interpreter, which is what its shebang does; with this tree's src first on PYTHONPATH it imports this
    tree), or ``python -m dpcompare`` where no such script is installed (runpy costs a few ms more)."""
    script = Path(py).with_name("dpcompare")
    try:
        is_python = script.is_file() and script.read_bytes()[:2] == b"#!" and b"python" in script.read_bytes()[:200]
    except OSError:
        is_python = False
    return [py, str(script)] if is_python else [py, "-m", "dpcompare"]


def cli_rows(quick: bool, repeat: int) -> list[dict]:
    """Whole processes against ``python -c "import numpy, scipy.special"``, interleaved (floor, then each command, per
    round), ``max(CLI_RUNS, repeat)`` rounds (3 with ``--quick``). Reported: medians of CPU (user + system of each
    child) and of wall; the ratio of the CPU medians with the interquartile range of the per-round ratios (each
    command ÷ the floor of its own round); the verdict from that range (``cli_verdict``), on CPU, which moves less
    than wall time when the machine is shared."""
    py = sys.executable
    floor = [py, "-c", "import numpy, scipy.special"]
    cli = _cli_command(py)
    cmds = {"compare gaussian(mu=1) laplace(b=1)": [*cli, "compare", "gaussian(mu=1)", "laplace(b=1)"],
            "describe sgm(sigma=1, p=0.01, steps=1000)": [*cli, "describe", "sgm(sigma=1, p=0.01, steps=1000)"]}
    for argv in (floor, *cmds.values()):  # warm-up: file cache, .pyc
        subprocess.run(argv, capture_output=True, env=_env())
    rounds = 3 if quick else max(repeat, CLI_RUNS)
    times: dict[str, list[tuple[float, float]]] = {k: [] for k in ("floor", *cmds)}
    for _ in range(rounds):
        times["floor"].append(_wall(floor))
        for k, argv in cmds.items():
            times[k].append(_wall(argv))

    def med(k: str, i: int) -> float:
        return statistics.median(x[i] for x in times[k])

    tf, cf = med("floor", 0), med("floor", 1)
    f_lo, f_hi = min(x[1] for x in times["floor"]), max(x[1] for x in times["floor"])
    rows = []
    for k in cmds:
        t, c = med(k, 0), med(k, 1)
        cpu_ratios = [x[1] / f[1] for x, f in zip(times[k], times["floor"])]
        wall_ratios = [x[0] / f[0] for x, f in zip(times[k], times["floor"])]
        q_lo, q_hi = _quartiles(cpu_ratios)
        w_lo, w_hi = _quartiles(wall_ratios)
        verdict = cli_verdict(cpu_ratios)
        rows.append(_row(f"CLI `{k}`, whole process", f"CPU {c:.3f} s = {c / cf:.2f}× the floor's (per-round ratios: "
                         f"quartiles {q_lo:.2f}–{q_hi:.2f}×, {rounds} rounds); wall {t:.3f} s = {t / tf:.2f}× "
                         f"(quartiles {w_lo:.2f}–{w_hi:.2f}×)",
                         f"import numpy, scipy.special: CPU {cf:.3f} s (range {f_lo:.3f}–{f_hi:.3f}), wall {tf:.3f} s",
                         c, cf, f"ours ≤ {CLI_TARGET}× floor (CPU ratio ≥ {1 / CLI_TARGET:.2f}; verdict on the quartiles)",
                         verdict, cpu=c, floor_cpu=cf, wall=t, floor_wall=tf, cpu_ratio=c / cf,
                         cpu_ratio_quartiles=[q_lo, q_hi], wall_ratio=t / tf, wall_ratio_quartiles=[w_lo, w_hi],
                         rounds=rounds, cpu_runs=[x[1] for x in times[k]], floor_cpu_runs=[x[1] for x in times["floor"]]))
    return rows


# ---------------------------------------------------------------------------------------------- B.3
def b3_rows(quick: bool, repeat: int) -> list[dict]:
    sys.path.insert(0, str(HERE))
    import baseline_b3

    import dpcompare as dc

    tol = 1e-2 if quick else 1e-3
    t0 = time.perf_counter()
    baseline_b3.delta_divergences(tol=tol, mu=1.0, n_jobs=1)
    tb = time.perf_counter() - t0
    # both at the same tolerance (the target's "at tol 1e-3": equal accuracy); ours is certified at it
    dc.compare(dc.Gaussian(mu=1.0), dc.Laplace(b=1.0), tol=tol)
    ts = []
    for _ in range(max(repeat, 5)):
        t0 = time.perf_counter()
        dc.compare(dc.Gaussian(mu=1.0), dc.Laplace(b=1.0), tol=tol)
        ts.append(time.perf_counter() - t0)
    t = min(ts)
    return [_row(f"compare(Gaussian(μ=1), Laplace(b=1)) vs [BCP] App. B.3 (tol {tol:g}, 1 process)",
                 f"{t * 1e3:.2f} ms", f"B.3 {tb:.2f} s", t, tb, "ratio ≥ 10⁴", tb / t >= 1e4)]


# ---------------------------------------------------------------------------------------------- balls-in-bins, audit
#: the balls-in-bins headline: σ, k steps per epoch (n = 60 000, b = 256), epochs; ε at δ = 1e-5
BINS = (1.1, 235, 10)


def bins_rows(quick: bool, repeat: int) -> list[dict]:
    """Certified ε bracket of balls-in-bins (random allocation) at the headline configuration, cold, with peak
    RSS; target ≤ 2 s and ≤ 1 GB at relative width ≤ 1e-3. Peer: random-allocation's combined upper bound (an
    upper bound only, no bracket), cold too; not run with ``--quick``."""
    s, k, e = (1.0, 10, 1) if quick else BINS
    ours = ("from dpcompare.composition.random_allocation import epsilon_bracket\n"
            f"lo, hi = epsilon_bracket({s}, {k}, {e}, 1e-5)\n" + STOP + RSS +
            "print(json.dumps({'seconds': t, 'cpu': c, 'lo': lo, 'hi': hi, 'rss': rss}))\n")
    peer = ("from random_allocation.comparisons.structs import Direction, PrivacyParams, SchemeConfig\n"
            "from random_allocation.random_allocation_scheme.combined import allocation_epsilon_combined\n"
            f"p = PrivacyParams(sigma={s}, num_steps={k}, num_selected=1, num_epochs={e}, delta=1e-5)\n"
            "v = allocation_epsilon_combined(p, SchemeConfig(allocation_direct_alpha_orders=list(range(2, 61))), "
            "Direction.BOTH)\n" + STOP + "print(json.dumps({'seconds': t, 'cpu': c, 'epsilon': v}))\n")
    # --quick: ours only (random-allocation takes ~10 s even at k = 10: too slow for a smoke test)
    r = _interleaved({"ours": ours} if quick else {"ours": ours, "peer": peer}, repeat)
    o, q = r["ours"], r.get("peer", {"error": "not run with --quick"})
    job = f"balls-in-bins ε bracket (σ, k, E) = ({s}, {k}, {e}), δ = 1e-5, cold"
    if "error" in o:
        return [_row(job, o["error"], q.get("error", ""), None, None, "", None)]
    width = (o["hi"] - o["lo"]) / o["hi"]
    met = o["seconds"] <= 2.0 and o["rss"] <= 1024 and width <= 1e-3
    if "error" in q:
        peer_txt, tq = f"random-allocation: {q['error']}", None
    else:
        peer_txt = f"random-allocation {q['seconds']:.3f} s (CPU {q['cpu']:.3f}), upper ε = {q['epsilon']:.4f}"
        tq = q["seconds"]
    return [_row(job, f"{o['seconds']:.3f} s (CPU {o['cpu']:.3f}), {o['rss']:.0f} MB, ε ∈ [{o['lo']:.4f}, "
                 f"{o['hi']:.4f}] (rel. width {width:.1e})", peer_txt, o["seconds"], tq,
                 "ours ≤ 2 s, ≤ 1 GB, rel. width ≤ 1e-3", met, ours_run=o, peer_run=q)]


def audit_rows(quick: bool, repeat: int) -> list[dict]:
    """An audit of 10⁶ scores per class against the claim ``sgm(sigma=1, p=0.01, steps=10⁴)``, timed after the
    claim's curve is built (target ≤ 2 s); peer: JAX-Privacy's ``epsilon_clopper_pearson`` on the same scores
    (the ε lower bound only), timed after a warm-up call on 100 scores (JAX's compilation)."""
    n, steps = (10_000, 100) if quick else (1_000_000, 10_000)
    scores = f"rng = np.random.default_rng(0); ins, outs = rng.normal(1.0, 1, {n}), rng.normal(0.0, 1, {n})\n"
    ours = ("import numpy as np\nimport dpcompare as dc\nfrom dpcompare.audit import Scores, audit\n"
            f"claim = dc.parse('sgm(sigma=1.0, p=0.01, steps={steps})'); claim.pairs(); claim.epsilon(1e-5)\n"
            + scores + CLOCK + "res = audit(claim, Scores(ins, outs))\n" + STOP +
            "print(json.dumps({'seconds': t, 'cpu': c, 'epsilon': res.epsilon_lower}))\n")
    peer = ("import numpy as np\nfrom jax_privacy.auditing import CanaryScoreAuditor\n" + scores +
            "CanaryScoreAuditor(ins[:100], outs[:100]).epsilon_clopper_pearson(0.05, 1e-5, one_sided=False)\n"
            + CLOCK + "v = CanaryScoreAuditor(ins, outs).epsilon_clopper_pearson(0.05, 1e-5, one_sided=False)\n" + STOP +
            "print(json.dumps({'seconds': t, 'cpu': c, 'epsilon': float(v)}))\n")
    r = _interleaved({"ours": ours, "peer": peer}, repeat)
    o, q = r["ours"], r["peer"]
    job = f"audit of {n:,} scores per class vs sgm(1, 0.01, {steps}), after the claim is built"
    if "error" in o:
        return [_row(job, o["error"], q.get("error", ""), None, None, "", None)]
    if "error" in q:
        peer_txt, tq = f"JAX-Privacy: {q['error']}", None
    else:
        peer_txt = f"JAX-Privacy (ε only) {q['seconds']:.3f} s (CPU {q['cpu']:.3f}), ε ≥ {q['epsilon']:.4f}"
        tq = q["seconds"]
    return [_row(job, f"{o['seconds']:.3f} s (CPU {o['cpu']:.3f}), ε ≥ {o['epsilon']:.4f}", peer_txt, o["seconds"], tq,
                 "ours ≤ 2 s", o["seconds"] <= 2.0, ours_run=o, peer_run=q)]


JOBS = {"eps": eps_rows, "ddefault": ddefault_rows, "delta": delta_rows, "thm3": thm3_rows, "calibrate": calibrate_rows, "cli": cli_rows, "b3": b3_rows,
        "bins": bins_rows, "audit": audit_rows}


def markdown(rows: list[dict], load: tuple) -> str:
    out = [f"load average (1, 5, 15 min) at start {load[0]}, at end {load[1]}; {os.cpu_count()} cores", "",
           "| job | ours | peer (same run) | peer / ours | target | met |", "| --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        ratio = "—" if r["ratio"] is None else f"{r['ratio']:.3g}×"
        met = "—" if r["met"] is None else r["met"] if isinstance(r["met"], str) else ("yes" if r["met"] else "**no**")
        met = "**no**" if met == "no" else met
        out.append(f"| {r['job']} | {r['ours']} | {r['peer']} | {ratio} | {r['target']} | {met} |")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="small jobs, one round (smoke test; not the targets' numbers)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only", default=",".join(JOBS), help=f"comma-separated subset of {','.join(JOBS)}")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--before", type=Path, default=None,
                    help="another tree's src directory: the thm3 row also runs our job from it (before/after in one run)")
    args = ap.parse_args(argv)
    global BEFORE_SRC
    if args.before is not None:
        if not (args.before / "dpcompare" / "__init__.py").is_file():
            print(f"--before: {args.before} holds no dpcompare package (give a tree's src directory)", file=sys.stderr)
            return 2
        BEFORE_SRC = args.before.resolve()
    only = [j.strip() for j in args.only.split(",") if j.strip()]
    bad = [j for j in only if j not in JOBS]
    if bad:
        print(f"--only: unknown job(s) {', '.join(bad)}; choose from {', '.join(JOBS)}", file=sys.stderr)
        return 2
    repeat = 1 if args.quick else max(1, args.repeat)
    load0 = tuple(round(x, 2) for x in os.getloadavg())
    rows = []
    for j in only:
        rows.extend(JOBS[j](args.quick, repeat))
    load1 = tuple(round(x, 2) for x in os.getloadavg())
    if args.json:
        print(json.dumps({"quick": args.quick, "repeat": repeat, "load": [load0, load1], "cpus": os.cpu_count(),
                          "rows": rows}, default=str))
    else:
        print(markdown(rows, (load0, load1)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
