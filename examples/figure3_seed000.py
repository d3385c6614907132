"""Seed 000, Figure 3: the Bayes error functions of the Gaussian (σ = 1) and Laplace (b = 1) mechanisms
with the two Δ "rulers".

The paper (§5, "Approximate Comparisons in Practice") reads off the figure: the functions cross at
π ≈ 0.4, Δ(Gauss‖Lap) = 0.005 < Δ(Lap‖Gauss) = 0.034. This script draws the figure with
``dpcompare.io.plot.bayes_error``, the panel of R_Gauss − R_Lap beside it, prints the certified values
and checks them against the paper's (rounded) numbers and DESIGN.md's (0.00527 at π = ½, 0.03414 at
π = 1/(1+e), crossing at 0.4185).

Usage:
    python examples/figure3_seed000.py                 # ./figure3_seed000.png and .svg
    python examples/figure3_seed000.py --quick         # the PNG only, lower resolution
    python examples/figure3_seed000.py --outdir out/

The same figure from the command line: ``dpcompare plot bayes "gaussian(sigma=1)" "laplace(b=1)" -o figure3.png``.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))  # the working tree

import dpcompare as dc  # noqa: E402
from dpcompare.io import plot  # noqa: E402
from dpcompare.io.report import verdict_sentence  # noqa: E402

#: the paper's numbers (seed 000 §5) and the tolerance their rounding allows
PAPER = {"delta_gauss_lap": (0.005, 5e-4), "delta_lap_gauss": (0.034, 5e-4), "crossing": (0.4, 0.05)}


def figure(gauss: dc.Mechanism, lap: dc.Mechanism):
    from matplotlib.figure import Figure

    with plot.style():
        fig = Figure(figsize=(11, 4.2), layout="constrained")
        left, right = fig.subplots(1, 2, width_ratios=[1.25, 1])
        labels = ["Gauss", "Lap"]
        plot.bayes_error([gauss, lap], labels=labels, ax=left)
        plot.bayes_error_difference([gauss, lap], labels=labels, ax=right)
        left.set_title("Seed 000, Figure 3: Gauss (σ = 1) vs Laplace (b = 1), with the Δ rulers", loc="left")
        right.set_title("R_Gauss − R_Lap: where each is more vulnerable", loc="left")
    return fig


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="PNG only, at 100 dpi")
    ap.add_argument("--outdir", type=Path, default=Path("."), help="where to write figure3_seed000.{png,svg}")
    args = ap.parse_args(argv)

    t0 = time.perf_counter()
    gauss, lap = dc.Gaussian(sigma=1.0), dc.Laplace(b=1.0)
    c = dc.compare(gauss, lap)
    fig = figure(gauss, lap)
    args.outdir.mkdir(parents=True, exist_ok=True)
    written = []
    for fmt in ("png",) if args.quick else ("png", "svg"):
        path = args.outdir / f"figure3_seed000.{fmt}"
        plot.save(fig, path, dpi=100 if args.quick else 150)
        written.append(str(path))
    seconds = time.perf_counter() - t0

    ab, ba = c.delta_ab, c.delta_ba
    print(f"Δ(Gauss‖Lap) = {ab.value:.6f}  [{ab.lower:.6f}, {ab.upper:.6f}]  at π = {ab.pi:.4f}")
    print(f"Δ(Lap‖Gauss) = {ba.value:.6f}  [{ba.lower:.6f}, {ba.upper:.6f}]  at π = {ba.pi:.4f} (1/(1+e) = {1 / (1 + math.e):.4f})")
    print("crossings at π ≈ " + ", ".join(f"{x:.4f}" for x in c.crossings))
    print(verdict_sentence(c, "Gauss", "Laplace"))
    checks = {
        "delta_gauss_lap": ab.value,
        "delta_lap_gauss": ba.value,
        "crossing": min(c.crossings) if c.crossings else float("nan"),
    }
    ok = True
    for key, got in checks.items():
        want, tol = PAPER[key]
        good = abs(got - want) <= tol
        ok &= good
        print(f"  paper {key} ≈ {want}: ours {got:.4f} -> {'ok' if good else 'MISMATCH'}")
    print(f"wrote {', '.join(written)} in {seconds:.1f} s")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
