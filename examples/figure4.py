"""Seed 000, Figure 4: hyper-priors over the adversary's prior π can reverse which of two SGMs is riskier.

What the seed prints (§5, "Bayesian Mechanism Selection"), for two SGMs M (blue) and M̃ (red):

    no hyper-prior   Δ(M‖M̃) = 0.01   < 0.02  = Δ(M̃‖M)
    Jeffreys         Δ(M‖M̃) = 0.007  < 0.015 = Δ(M̃‖M)    (Beta(½, ½): ranking unchanged)
    UQuadratic[0,1]  Δ(M‖M̃) = 0.014  > 0     = Δ(M̃‖M)    (ranking flipped)

with the weighted Δ^Ψ(M‖M̃) = max_π Ψ(π)·(R(π) − R̃(π)). The seed gives NO parameters for M and M̃.
CHOSEN HERE, not the paper's mechanisms: we screened every ordered pair of SGMs with
σ ∈ {0.5, 0.8, 1.2, 2, 3, 5}, p ∈ {0.02, 0.1, 0.3, 0.6, 1}, N ∈ {1, 10, 100} on a 4001-point π grid for
the same qualitative reversal (Δ(M‖M̃) < Δ(M̃‖M) without a prior and with Jeffreys, the opposite with
UQuadratic) and took one whose numbers resemble the seed's:

    M  = SGM(σ = 3,   p = 0.3, N = 100)
    M̃ = SGM(σ = 0.5, p = 0.1, N = 10)

M̃ has the higher Bayes error near π = ½ (safer against an uninformed adversary) and M the higher one
for π ≲ 0.36 and π ≳ 0.64 (safer against an informed one); UQuadratic (density 12(π − ½)², zero at
½) weights the tails, Jeffreys (density 1/(π√(π(1−π)))) does not weight them enough to flip.
The script prints the three weighted pairs (``dc.delta_divergence(a, b, hyperprior=…)``, certified
brackets) next to the seed's, and writes ``figure4.csv`` (π, R, R̃ and the three weighted differences)
and ``figure4.png`` (three panels like the seed's 4a–c) into ``-o DIR``.

Usage:
    python examples/figure4.py [-o DIR] [--quick]
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))  # the working tree

import numpy as np  # noqa: E402

import dpcompare as dc  # noqa: E402

M_PARAMS = {"sigma": 3.0, "sampling_rate": 0.3, "steps": 100}
MT_PARAMS = {"sigma": 0.5, "sampling_rate": 0.1, "steps": 10}
#: (label, hyper-prior argument of dc.delta_divergence, seed's Δ(M‖M̃), seed's Δ(M̃‖M))
PRIORS = (("none", None, 0.01, 0.02), ("Jeffreys", "jeffreys", 0.007, 0.015), ("UQuadratic", "uquadratic", 0.014, 0.0))


def density(name: str | None, pi: np.ndarray) -> np.ndarray:
    """Ψ(π) for the plot and CSV (the certified values come from dc.delta_divergence)."""
    if name is None:
        return np.ones_like(pi)
    return np.asarray(dc.parse_hyperprior(name).density(pi), dtype=float)


def plot(pi: np.ndarray, r: np.ndarray, rt: np.ndarray, results: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(15, 4.3))
    for ax, res, (label, name, _, _) in zip(axes, results, PRIORS):
        w = density(name, pi)
        ax.plot(pi, r * w, color="tab:blue", label="M: SGM(σ=3, p=0.3, N=100)")
        ax.plot(pi, rt * w, color="tab:red", label="M̃: SGM(σ=0.5, p=0.1, N=10)")
        for key, col in (("ab", "tab:blue"), ("ba", "tab:red")):
            x = res[f"pi_{key}"]
            ya, yb = np.interp(x, pi, r * w), np.interp(x, pi, rt * w)
            ax.vlines(x, min(ya, yb), max(ya, yb), color="k", lw=2.5)
        ax.set_title(f"({'abc'[results.index(res)]}) hyper-prior: {label}\n"
                     f"Δ(M‖M̃) = {res['ab']:.4f}, Δ(M̃‖M) = {res['ba']:.4f}", fontsize=10)
        ax.set_xlabel("adversary's prior π")
        ax.set_ylabel("Ψ(π)·R(π)")
        ax.grid(alpha=0.3)
        if name is not None:
            ins = ax.inset_axes([0.38, 0.05, 0.24, 0.22])
            ins.plot(pi, w, color="0.3")
            ins.set_xticks([])
            ins.set_yticks([])
    axes[0].legend(fontsize=8, loc="upper left")
    fig.suptitle("Seed 000, Figure 4: hyper-priors over π (mechanisms chosen here; the seed gives none)")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-o", "--outdir", type=Path, default=Path("."), help="where to write figure4.{csv,png}")
    ap.add_argument("--quick", action="store_true", help="fewer π points in the CSV and figure (same Δ values)")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    m, mt = dc.SubsampledGaussian(**M_PARAMS), dc.SubsampledGaussian(**MT_PARAMS)
    print("seed 000 Figure 4: the seed gives no SGM parameters; CHOSEN here: "
          "M = SGM(σ=3, p=0.3, N=100), M̃ = SGM(σ=0.5, p=0.1, N=10)")
    print(f"{'hyper-prior':>11} | {'seed Δ(M‖M̃)':>12} {'ours Δ(M‖M̃) [certified]':>33} {'at π':>6} | "
          f"{'seed Δ(M̃‖M)':>12} {'ours Δ(M̃‖M) [certified]':>33} {'at π':>6} | ranking")
    results = []
    for label, name, seed_ab, seed_ba in PRIORS:
        prior = None if name is None else dc.parse_hyperprior(name)
        ab = dc.delta_divergence(m, mt, hyperprior=prior)
        ba = dc.delta_divergence(mt, m, hyperprior=prior)
        rank = "M̃ riskier" if ab.value > ba.value else "M riskier"
        seed_rank = "M̃ riskier" if seed_ab > seed_ba else "M riskier"
        results.append({"prior": label, "ab": ab.value, "ab_lower": ab.lower, "ab_upper": ab.upper, "pi_ab": ab.pi,
                        "ba": ba.value, "ba_lower": ba.lower, "ba_upper": ba.upper, "pi_ba": ba.pi,
                        "ranking": rank, "seed_ranking": seed_rank,
                        "certified_ranking": ab.lower > ba.upper or ba.lower > ab.upper})
        print(f"{label:>11} | {seed_ab:12g} {ab.value:9.5f} [{ab.lower:.5f}, {ab.upper:.5f}] {ab.pi:6.3f} | "
              f"{seed_ba:12g} {ba.value:9.5f} [{ba.lower:.5f}, {ba.upper:.5f}] {ba.pi:6.3f} | {rank} (seed: {seed_rank})")
    same = all(r["ranking"] == r["seed_ranking"] and r["certified_ranking"] for r in results)
    print("ranking as in the seed under every hyper-prior (no prior, Jeffreys: Δ(M‖M̃) < Δ(M̃‖M), choosing M is "
          "riskier; UQuadratic flips it), certified by disjoint brackets:", "yes" if same else "NO")
    print(f"ε at δ = 1e-5 for context: M {m.epsilon(1e-5):.3f}, M̃ {mt.epsilon(1e-5):.3f}; "
          f"Bayes error functions cross at π = {', '.join(f'{c:.4f}' for c in dc.crossing_points(m, mt))}")
    n = 200 if args.quick else 1000
    pi = (np.arange(n) + 0.5) / n  # mid-points: Jeffreys' density is infinite at 0 and 1
    r, rt = np.asarray(m.bayes_error(pi), dtype=float), np.asarray(mt.bayes_error(pi), dtype=float)
    args.outdir.mkdir(parents=True, exist_ok=True)
    csv_path, png_path = args.outdir / "figure4.csv", args.outdir / "figure4.png"
    with csv_path.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["pi", "R_M", "R_Mtilde", "diff_none", "diff_jeffreys", "diff_uquadratic"])
        ws = [density(name, pi) for _, name, _, _ in PRIORS]
        for k in range(pi.size):
            w.writerow([f"{pi[k]:.6g}", f"{r[k]:.10g}", f"{rt[k]:.10g}",
                        *[f"{(r[k] - rt[k]) * wt[k]:.10g}" for wt in ws]])
    plot(pi, r, rt, results, png_path)
    with (args.outdir / "figure4_delta.csv").open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(results[0]))
        w.writeheader()
        w.writerows(results)
    print(f"wrote {csv_path}, {args.outdir / 'figure4_delta.csv'}, {png_path} ({time.perf_counter() - t0:.1f} s)")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
