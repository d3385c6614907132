"""Seed 000, Figure 1: two subsampled Gaussian mechanisms (SGMs) calibrated to the same (ε, δ) = (4, 0.08)
whose privacy profiles δ(ε) cross there and differ everywhere else.

What the seed prints: only the caption "Privacy profiles of two SGMs with different noise scales σ and
sampling rates p. Both satisfy (4.00, 0.08)-DP, but offer otherwise different levels of privacy
protection." The text gives no σ, p or number of steps N. CHOSEN HERE (not the paper's): N = 1000
steps, p = 0.01 and p = 0.5 (``--quick``: N = 100, p = 0.05 and 0.5). For each p this script

1. calibrates σ with dpcompare (``dpcompare.dpsgd.sigma_for_epsilon``: certified ε ≤ 4 at δ = 0.08,
   within 1e-3 of 4);
2. checks σ independently with Google's dp-accounting (PLDAccountant on
   ``PoissonSampledDpEvent(p, GaussianDpEvent(σ))`` composed N times, add-or-remove neighbours):
   dp-accounting's ε(σ) ≤ 4 < dp-accounting's ε(σ·(1 − 10⁻³)), i.e. dp-accounting's own calibrated
   σ lies in (0.999·σ, σ] — the two calibrations agree to 0.1 %;
3. evaluates both privacy profiles on ε ∈ [0, 10] (``dc.SubsampledGaussian.delta``), checks they
   cross at ε ≈ 4, and prints Δ in both directions (``dc.compare``).

Writes ``figure1.csv`` (ε, δ₁(ε), δ₂(ε)) and ``figure1.png`` into ``-o DIR``.

Usage:
    python examples/figure1.py [-o DIR] [--quick]
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
from dpcompare.dpsgd import sigma_for_epsilon  # noqa: E402

EPS, DELTA = 4.0, 0.08


def dp_accounting_epsilon(sigma: float, p: float, steps: int, delta: float) -> float:
    """ε at δ of N-fold Poisson-subsampled Gaussian by dp-accounting's PLD accountant (the independent reference)."""
    import dp_accounting

    event = dp_accounting.SelfComposedDpEvent(
        dp_accounting.PoissonSampledDpEvent(p, dp_accounting.GaussianDpEvent(sigma)), steps)
    acc = dp_accounting.pld.PLDAccountant(value_discretization_interval=1e-4)
    acc.compose(event)
    return float(acc.get_epsilon(delta))


REL = 1e-3  # dp-accounting's calibrated σ must lie in ((1 − REL)·σ, σ]


def plot(eps: np.ndarray, curves: list[np.ndarray], labels: list[str], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    for ax, log in zip(axes, (False, True)):
        for c, lab, col in zip(curves, labels, ("tab:blue", "tab:red")):
            ax.plot(eps, c, color=col, label=lab)
        ax.plot([EPS], [DELTA], "ko", label="(4, 0.08)")
        ax.set_xlabel("ε")
        ax.set_ylabel("δ(ε)")
        if log:
            ax.set_yscale("log")
            ax.set_ylim(1e-8, 1)
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=8)
    fig.suptitle("Seed 000, Figure 1: two SGMs calibrated to (4, 0.08) (parameters chosen here)")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-o", "--outdir", type=Path, default=Path("."), help="where to write figure1.{csv,png}")
    ap.add_argument("--quick", action="store_true", help="N = 100 steps, p = 0.05 and 0.5, fewer ε points")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    steps, rates = (100, (0.05, 0.5)) if args.quick else (1000, (0.01, 0.5))
    mechs, labels, ok = [], [], True
    print(f"seed 000 Figure 1: two SGMs, both (4.00, 0.08)-DP; σ, p, N not given in the text. Chosen: N = {steps}, "
          f"p ∈ {list(rates)}")
    print(f"{'p':>6} {'σ dpcompare':>12} {'ε (certified)':>14} {'ε dp-accounting(σ)':>19} "
          f"{'ε dp-accounting(0.999σ)':>24}")
    for p in rates:
        cal = sigma_for_epsilon(EPS, DELTA, p, steps)
        e_at = dp_accounting_epsilon(cal.sigma, p, steps, DELTA)
        e_below = dp_accounting_epsilon(cal.sigma * (1 - REL), p, steps, DELTA)
        print(f"{p:6g} {cal.sigma:12.6f} {cal.epsilon:14.6f} {e_at:19.6f} {e_below:24.6f}")
        ok &= e_at <= EPS < e_below and cal.epsilon <= EPS
        mechs.append(dc.SubsampledGaussian(sigma=cal.sigma, sampling_rate=p, steps=steps))
        labels.append(f"σ = {cal.sigma:.4f}, p = {p:g}, N = {steps}")
    eps = np.linspace(0.0, 10.0, 101 if args.quick else 401)
    curves = [np.asarray(m.delta(eps), dtype=float) for m in mechs]
    at4 = [float(m.delta(EPS)) for m in mechs]
    diff = curves[0] - curves[1]
    sign_change = eps[1:][np.sign(diff[1:]) != np.sign(diff[:-1])]
    print(f"δ(4) of the two: {at4[0]:.5f}, {at4[1]:.5f} (both ≤ 0.08: {all(d <= DELTA for d in at4)})")
    print(f"profiles cross near ε = {', '.join(f'{e:.3g}' for e in sign_change) or 'nowhere'}; "
          f"δ(0) = TV: {curves[0][0]:.4f} vs {curves[1][0]:.4f}; δ(8): {float(mechs[0].delta(8.0)):.2e} vs "
          f"{float(mechs[1].delta(8.0)):.2e}")
    cmp = dc.compare(mechs[0], mechs[1])
    print(f"Δ(p={rates[0]:g} ‖ p={rates[1]:g}) = {cmp.delta_ab.value:.4f} [{cmp.delta_ab.lower:.4f}, {cmp.delta_ab.upper:.4f}] "
          f"at π = {cmp.delta_ab.pi:.3f}; Δ(p={rates[1]:g} ‖ p={rates[0]:g}) = {cmp.delta_ba.value:.4f} at π = "
          f"{cmp.delta_ba.pi:.3f}; verdict: {cmp.to_dict()['verdict']}")
    ok &= all(d <= DELTA + 1e-12 for d in at4) and any(abs(e - EPS) < 0.5 for e in sign_change)
    args.outdir.mkdir(parents=True, exist_ok=True)
    csv_path, png_path = args.outdir / "figure1.csv", args.outdir / "figure1.png"
    with csv_path.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["eps", f"delta_p{rates[0]:g}", f"delta_p{rates[1]:g}"])
        for e, a, b in zip(eps, *curves):
            w.writerow([f"{e:.6g}", f"{a:.10g}", f"{b:.10g}"])
    plot(eps, curves, labels, png_path)
    print(f"wrote {csv_path}, {png_path} ({time.perf_counter() - t0:.1f} s)")
    print("reproduced (both σ agree with dp-accounting to 0.1 %, both (4, 0.08)-DP, profiles cross near ε = 4):",
          "yes" if ok else "NO")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
