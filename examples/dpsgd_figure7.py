"""Seed 000 §5, Figure 7: Δ from a baseline DP-SGD run vs the reconstruction-robustness bound (Hayes et al. 2023).

Baseline M: σ = 0.6, p = 0.01, its number of steps N chosen so that it is (4, 1e-5)-DP (certified,
dpcompare.dpsgd.steps_for_sigma). Alternatives M̃: the same N, larger p̃, σ̃ calibrated to (4, 1e-5).
ASSUMPTION (the seed does not list N or the p̃ values; Hayes et al. 2023 Fig 5 is not reproduced value by
value here): N is the baseline's, p̃ from a fixed list, and the reconstruction baseline is κ = 0.1 (a prior
over 10 candidates).
For each point: Δ(M‖M̃) (certified bracket) and the ReRo bound 1 − f(κ) (dpcompare.dpsgd.risk).

Usage:
    python examples/dpsgd_figure7.py [--quick] [--kappa 0.1] [--csv out.csv] [--png out.png]
"""

from __future__ import annotations

import argparse
import csv
import sys
import time

import dpcompare as dc
from dpcompare.dpsgd import reconstruction_bound, sigma_for_epsilon, steps_for_sigma

EPS, DELTA = 4.0, 1e-5


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--kappa", type=float, default=0.1)
    ap.add_argument("--csv", default="dpsgd_figure7.csv")
    ap.add_argument("--png", default="dpsgd_figure7.png")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    base_steps = steps_for_sigma(0.6, EPS, DELTA, 0.01)
    n = base_steps.steps
    base = dc.SubsampledGaussian(sigma=0.6, sampling_rate=0.01, steps=n)
    ps = [0.01, 0.1, 1.0] if args.quick else [0.01, 0.02, 0.05, 0.1, 0.2, 0.4, 0.7, 1.0]
    rows = []
    for p in ps:
        c = sigma_for_epsilon(EPS, DELTA, p, n)
        m = dc.SubsampledGaussian(sigma=c.sigma, sampling_rate=p, steps=n)
        d = dc.delta_divergence(base, m)
        rows.append({"sampling_rate": p, "steps": n, "sigma": c.sigma, "epsilon": c.epsilon,
                     "delta_base_to_point": d.value, "delta_lower": d.lower, "delta_upper": d.upper,
                     "rero_bound": reconstruction_bound(m, args.kappa), "kappa": args.kappa})
    with open(args.csv, "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    print(f"baseline: sigma = 0.6, p = 0.01, N = {n} steps (certified eps = {base_steps.epsilon:.4f} <= {EPS})")
    print(f"{'p~':>6s} {'sigma~':>9s} {'eps':>8s} {'Delta(M||M~)':>13s} {'ReRo bound':>11s}")
    for r in rows:
        print(f"{r['sampling_rate']:6g} {r['sigma']:9.4f} {r['epsilon']:8.4f} {r['delta_base_to_point']:13.5f} {r['rero_bound']:11.4f}")
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(5.0, 3.6))
        ax.plot([r["delta_base_to_point"] for r in rows], [r["rero_bound"] for r in rows], "o-")
        ax.set_xlabel(r"$\Delta(\mathcal{M}\,\|\,\tilde{\mathcal{M}})$")
        ax.set_ylabel(f"ReRo bound 1 - f(κ), κ = {args.kappa:g}")
        fig.tight_layout()
        fig.savefig(args.png, dpi=120)
    except ImportError:  # pragma: no cover
        print("matplotlib missing: no PNG", file=sys.stderr)
    print(f"wrote {args.csv}, {args.png} ({time.perf_counter() - t0:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
