"""Benchmark: balls-in-bins (random allocation) Gaussian — dpcompare's certified ε bracket beside pld-accounting 2.0
(``gaussian_allocation_epsilon_range``: an upper/lower pair) and random-allocation 1.0.5
(``allocation_epsilon_combined``: an upper bound), in one run, as ratios.

For each configuration (σ, k steps per epoch, E epochs) at δ = 1e-5 it prints our [lower, upper], its relative
width, the external tools' numbers, wall and CPU seconds of each (ours cold: the engine's caches cleared,
best of ``--runs``), and the process's peak resident memory after our computation (ours runs first).
Containment is checked in the table: our bracket must meet pld-accounting's, and our upper end must be ≤
random-allocation's upper bound.

Usage:
    python benchmarks/bench_balls_in_bins.py [--runs 1] [--json] [--ours-only] [--quick]
"""

from __future__ import annotations

import argparse
import json
import resource
import time

CONFIGS = [(1.1, 235, 10), (0.8, 100, 5), (2.0, 1000, 1)]
QUICK = [(1.0, 10, 1)]
#: ours only (the external tools take minutes or do not support it): k = 10⁵ in bounded memory
OURS_ONLY = [(1.0, 100_000, 1)]


def _clear() -> None:
    from dpcompare.composition import random_allocation as ra

    ra.compose_random_allocation.cache_clear()
    ra._cached_law.cache_clear()


def _timed(fn):
    t0, c0 = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - t0, time.process_time() - c0


def _ours(s: float, k: int, e: int):
    from dpcompare.composition.random_allocation import epsilon_bracket

    return epsilon_bracket(s, k, e, 1e-5)


def _pld(s: float, k: int, e: int):
    from PLD_accounting import gaussian_allocation_epsilon_range

    up, lo = gaussian_allocation_epsilon_range(delta=1e-5, sigma=s, num_steps=k, num_epochs=e)
    return lo, up


def _ra(s: float, k: int, e: int):
    from random_allocation.comparisons.structs import Direction, PrivacyParams, SchemeConfig
    from random_allocation.random_allocation_scheme.combined import allocation_epsilon_combined

    p = PrivacyParams(sigma=s, num_steps=k, num_selected=1, num_epochs=e, delta=1e-5)
    # the 'remove' direction's RDP bound needs its Rényi orders (α = 2 … 60, integers)
    return allocation_epsilon_combined(p, SchemeConfig(allocation_direct_alpha_orders=list(range(2, 61))), Direction.BOTH)


def _row(cfg, runs: int, external: bool) -> dict:
    best = None
    for _ in range(runs):
        _clear()
        r = _timed(lambda: _ours(*cfg))
        best = r if best is None or r[1] < best[1] else best
    (lo, hi), wall, cpu = best
    row = {"sigma": cfg[0], "steps_per_epoch": cfg[1], "epochs": cfg[2], "ours": [lo, hi], "rel_width": (hi - lo) / hi,
           "ours_wall_s": wall, "ours_cpu_s": cpu, "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}
    if external:
        for name, fn in (("pld_accounting", _pld), ("random_allocation", _ra)):
            try:
                val, w, c = _timed(lambda: fn(*cfg))
            except Exception as exc:  # noqa: BLE001  (a tool's own limitation is reported, not fatal)
                row[name] = f"error: {type(exc).__name__}: {exc}"[:120]
                continue
            row[name], row[name + "_wall_s"], row[name + "_cpu_s"] = val, w, c
            row[name + "_ratio_wall"] = w / wall
        p = row.get("pld_accounting")
        if isinstance(p, tuple):
            row["meets_pld"] = bool(lo <= p[1] * (1 + 1e-9) and hi >= p[0] * (1 - 1e-9))
        q = row.get("random_allocation")
        if isinstance(q, float):
            row["below_random_allocation"] = bool(hi <= q * (1 + 1e-9))
    return row


def main(argv=None) -> list[dict]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--ours-only", action="store_true", help="skip pld-accounting and random-allocation")
    ap.add_argument("--quick", action="store_true", help="one small configuration (the smoke test)")
    args = ap.parse_args(argv)
    rows = [_row(c, args.runs, not args.ours_only) for c in (QUICK if args.quick else CONFIGS)]
    if not args.quick:
        rows += [_row(c, args.runs, False) for c in OURS_ONLY]
    if args.json:
        print(json.dumps(rows))
        return rows
    print("| σ | k | E | ours [lower, upper] | rel. width | s ours (wall/cpu) | peak RSS MB | pld-accounting [lower, upper] "
          "| s pld (×ours) | random-allocation (upper) | s r-a (×ours) | checks |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        p, q = r.get("pld_accounting", "-"), r.get("random_allocation", "-")
        ps = f"[{p[0]:.5f}, {p[1]:.5f}]" if isinstance(p, tuple) else str(p)
        qs = f"{q:.5f}" if isinstance(q, float) else str(q)
        pt = f"{r['pld_accounting_wall_s']:.1f} ({r['pld_accounting_ratio_wall']:.0f}×)" if "pld_accounting_wall_s" in r else "-"
        qt = (f"{r['random_allocation_wall_s']:.1f} ({r['random_allocation_ratio_wall']:.0f}×)"
              if "random_allocation_wall_s" in r else "-")
        checks = ", ".join(f"{k}={v}" for k, v in r.items() if k in ("meets_pld", "below_random_allocation")) or "-"
        print(f"| {r['sigma']:g} | {r['steps_per_epoch']} | {r['epochs']} | [{r['ours'][0]:.5f}, {r['ours'][1]:.5f}] | "
              f"{r['rel_width']:.1e} | {r['ours_wall_s']:.2f}/{r['ours_cpu_s']:.2f} | {r['peak_rss_mb']:.0f} | {ps} | {pt} "
              f"| {qs} | {qt} | {checks} |")
    return rows


if __name__ == "__main__":
    main()
