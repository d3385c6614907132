"""Shuffle model: ε at δ = 1e-6 by the f-DP bound of seed 002 (Thm 4.2) and by the clones bound.

For every ε₀ ∈ {0.5, 1, 2, 4} and n ∈ {10³, 10⁴, 10⁵} it computes, each as a certified upper bound
on ε (never understated):

- ``eps_fdp_thm42``  — seed 002 Thm 4.2 / Cor 4.3: C(2w·Id + (1−2w)·T(P₀, Q₀)), clone probability
  2/(e^{ε₀}+1) (``dpcompare.mixtures.Shuffled``; spec ``shuffle(eps0=…, n=…)``);
- ``eps_clones_fmt`` — Feldman, McMillan & Talwar, "Hiding among the clones" (2021), numerical
  method, clone probability e^{−ε₀} (``dpcompare.mixtures.fmt_epsilon``; step 1, i.e. every c);
- ``eps_clone_pair`` — the exact trade-off of seed 002's own clone pair (P, Q) of App. C, the
  tightest guarantee of that reduction (spec ``shuffle_pair(eps0=…, n=…)``).

and says which of the first two is tighter. Output: CSV on stdout (or ``--output FILE``).

Usage:
    python examples/shuffling_vs_clones.py              # the full 4 × 3 grid (~1 min)
    python examples/shuffling_vs_clones.py --quick      # 2 × 1 cells, for smoke tests
    python examples/shuffling_vs_clones.py --output shuffle_table.csv
    python examples/shuffling_vs_clones.py --extended   # also small ε₀ / small n, where FMT wins

Why the winner changes: Thm 4.2 uses the stronger clone reduction (clone probability 2/(e^{ε₀}+1)
against e^{−ε₀}: about twice as many clones for large ε₀), but it bounds the hockey-stick divergence
of its pair by (1 − 2w)·H_{e^ε}(P₀‖Q₀) where the exact value is (1 − 2w)·H_{e^ε}(P₀‖(1−η)M + ηQ₀)
≤ (1 − 2w)(1 + η)/2·H_{e^ε}(P₀‖Q₀), η = e^{ε'−ε} (seed 002 App. E.1.1). For large ε₀, η ≈ 1 and the
loss is small, so the extra clones win; for small ε₀ (w → ½), ε ≈ ε'/(1 − 2w) ≫ ε', η ≪ 1 and up to
a factor 2 in δ is lost, which outweighs the clone advantage when n is small. ``eps_clone_pair``
(the exact trade-off of the same pair) is never worse than either: it is a post-processing of the
FMT pair (more clones) and exact where Thm 4.2 is a bound.
"""

from __future__ import annotations

import argparse
import csv
import io
import sys
import time

from dpcompare.mixtures import ShuffleAnalysis, Shuffled, fmt_epsilon

EPS0 = (0.5, 1.0, 2.0, 4.0)
USERS = (1_000, 10_000, 100_000)
QUICK_EPS0 = (1.0, 4.0)
QUICK_USERS = (1_000,)
#: beyond the issue's grid: small ε₀ and small n, where the clones bound is the tighter one
EXTENDED = ((0.1, 100), (0.1, 1_000), (0.25, 100), (0.25, 1_000), (0.5, 100), (0.5, 300))
FIELDS = [
    "eps0",
    "n",
    "delta",
    "eps_fdp_thm42",
    "eps_clones_fmt",
    "eps_clone_pair",
    "tighter",
    "fdp_over_fmt",
    "seconds_fdp",
    "seconds_fmt",
]


def _timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


def row(eps0: float, n: int, delta: float) -> dict[str, object]:
    fdp, t_fdp = _timed(lambda: float(Shuffled(eps0, n).epsilon(delta)))
    fmt, t_fmt = _timed(lambda: float(fmt_epsilon(delta, eps0, n)))
    pair = float(Shuffled(eps0, n, ShuffleAnalysis.CLONE_PAIR).epsilon(delta))
    tighter = "f-DP (Thm 4.2)" if fdp < fmt else ("clones (FMT)" if fmt < fdp else "tie")
    return {
        "eps0": eps0,
        "n": n,
        "delta": delta,
        "eps_fdp_thm42": f"{fdp:.6g}",
        "eps_clones_fmt": f"{fmt:.6g}",
        "eps_clone_pair": f"{pair:.6g}",
        "tighter": tighter,
        "fdp_over_fmt": f"{fdp / fmt:.4f}" if fmt > 0 else "",
        "seconds_fdp": f"{t_fdp:.3f}",
        "seconds_fmt": f"{t_fmt:.3f}",
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="a 2-cell grid (smoke test)")
    ap.add_argument("--delta", type=float, default=1e-6, help="target δ (default 1e-6)")
    ap.add_argument("--output", "-o", help="write the CSV here instead of stdout")
    ap.add_argument("--extended", action="store_true", help="add small-ε₀ / small-n cells beyond the grid")
    args = ap.parse_args(argv)
    if not (0.0 < args.delta < 1.0):
        print(f"error: --delta must be in (0, 1), got {args.delta}", file=sys.stderr)
        return 2
    eps0s, users = (QUICK_EPS0, QUICK_USERS) if args.quick else (EPS0, USERS)
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=FIELDS, lineterminator="\n")
    writer.writeheader()
    cells = [(e, n) for e in eps0s for n in users]
    if args.extended:
        cells += list(EXTENDED)
    for eps0, n in cells:
        writer.writerow(row(eps0, n, args.delta))
    if args.output:
        with open(args.output, "w", encoding="utf-8") as fh:
            fh.write(buf.getvalue())
    else:
        sys.stdout.write(buf.getvalue())
    return 0


if __name__ == "__main__":
    sys.exit(main())
