"""Benchmark: fixed-size batches (SampledWithoutReplacement Gaussian, replace-one) — dpcompare's certified
bracket against dp-accounting's RDP accountant (the only dp-accounting accountant for the event), in one run.

For each configuration (Opacus vocabulary: noise multiplier σ relative to C, batch b, dataset n, epochs) it
prints ε at δ = 1e-5 from: dpcompare's pessimistic side (certified), its realised lower side, dp-accounting's
RdpAccountant (certified, looser), and the wall time of each: ours is the certified ε, cold (every composition
cache of accounting/ cleared before each run), best of ``--runs``; the realised lower ε is read after the timer.

Usage:
    python benchmarks/bench_fixed_batch.py [--runs 3] [--json]
"""

from __future__ import annotations

import argparse
import json
import time

CONFIGS = [(1.1, 256, 60000, 10), (2.0, 256, 60000, 10), (1.0, 64, 10000, 5)]


def _clear_caches() -> None:
    from dpcompare.composition import sgm_compose, sgm_grid, wor

    for mod in (wor, sgm_compose, sgm_grid):
        for f in vars(mod).values():
            getattr(f, "cache_clear", lambda: None)()


def _ours(sigma: float, b: int, n: int, epochs: int):
    """(certified ε, the mechanism); the caller times this call only."""
    from dpcompare.dpsgd.training import TrainingConfig

    m = TrainingConfig(sigma, batch_size=b, dataset_size=n, epochs=epochs, sampling="fixed").mechanism
    return m.epsilon(1e-5), m


def _realised_lower(m) -> float:
    c = m.composition
    return max(c.optimistic.epsilon(1e-5), c.optimistic.swap().epsilon(1e-5))


def _rdp(sigma: float, b: int, n: int, epochs: int) -> float:
    from dp_accounting.privacy_accountant import NeighboringRelation
    from dp_accounting.rdp import rdp_privacy_accountant

    from dpcompare.dpsgd.training import TrainingConfig

    ev = TrainingConfig(sigma, batch_size=b, dataset_size=n, epochs=epochs, sampling="fixed").event()
    acc = rdp_privacy_accountant.RdpAccountant(neighboring_relation=NeighboringRelation.REPLACE_ONE)
    acc.compose(ev)
    return acc.get_epsilon(1e-5)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    rows = []
    for cfg in CONFIGS:
        t_ours, t_rdp = [], []
        for _ in range(args.runs):
            _clear_caches()
            t0 = time.perf_counter()
            eps, m = _ours(*cfg)
            t_ours.append(time.perf_counter() - t0)
            lower = _realised_lower(m)
            t0 = time.perf_counter()
            rdp = _rdp(*cfg)
            t_rdp.append(time.perf_counter() - t0)
        rows.append({"noise_multiplier": cfg[0], "batch_size": cfg[1], "dataset_size": cfg[2], "epochs": cfg[3],
                     "epsilon_certified": eps, "epsilon_realised_lower": lower, "epsilon_rdp": rdp,
                     "seconds_ours": min(t_ours), "seconds_rdp": min(t_rdp)})
    if args.json:
        print(json.dumps(rows))
        return
    print("| σ | b | n | epochs | ε certified | ε realised (lower) | ε RDP (dp-accounting) | ε RDP / ours | s ours | s RDP |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        print(f"| {r['noise_multiplier']:g} | {r['batch_size']} | {r['dataset_size']} | {r['epochs']} | "
              f"{r['epsilon_certified']:.4f} | {r['epsilon_realised_lower']:.4f} | {r['epsilon_rdp']:.4f} | "
              f"{r['epsilon_rdp'] / r['epsilon_certified']:.2f} | {r['seconds_ours']:.2f} | {r['seconds_rdp']:.2f} |")


if __name__ == "__main__":
    main()
