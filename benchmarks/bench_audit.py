"""Benchmark: an audit of 10⁶ attack scores against a DP-SGD claim of 10⁴ steps, after the claim's curve
is built (target ≤ 2 s), against JAX-Privacy's ``CanaryScoreAuditor.epsilon_clopper_pearson`` on the same
scores in the same run (the named baseline; it computes only the ε lower bound, we compute the whole
comparison: band, contradiction, gap, ε, TPRs).

    python benchmarks/bench_audit.py [--scores 1000000] [--steps 10000] [--repeat 3] [--json] [--quick]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scores", type=int, default=1_000_000, help="scores per class")
    ap.add_argument("--steps", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--quick", action="store_true", help="10^4 scores, 100 steps, 1 repeat (smoke test)")
    a = ap.parse_args()
    if a.quick:
        a.scores, a.steps, a.repeat = 10_000, 100, 1
    import numpy as np

    import dpcompare as dc
    from dpcompare.audit import Scores, audit

    spec = f"sgm(sigma=1.0, p=0.01, steps={a.steps})"
    t0 = time.perf_counter()
    claim = dc.parse(spec)
    claim.pairs()
    claim.epsilon(1e-5)
    t_claim = time.perf_counter() - t0
    rng = np.random.default_rng(0)
    ins, outs = rng.normal(1.0, 1, a.scores), rng.normal(0.0, 1, a.scores)

    ours, result = [], None
    for _ in range(a.repeat):
        t0 = time.perf_counter()
        result = audit(claim, Scores(ins, outs))
        ours.append(time.perf_counter() - t0)
    rows = [{"method": "dpcompare audit (full comparison)", "seconds": min(ours), "worst_seconds": max(ours),
             "epsilon_lower": result.epsilon_lower}]
    try:
        from jax_privacy.auditing import CanaryScoreAuditor

        theirs = []
        for _ in range(a.repeat):
            t0 = time.perf_counter()
            eps = CanaryScoreAuditor(ins, outs).epsilon_clopper_pearson(0.05, 1e-5, one_sided=False)
            theirs.append(time.perf_counter() - t0)
        rows.append({"method": "JAX-Privacy epsilon_clopper_pearson (ε only)", "seconds": min(theirs),
                     "worst_seconds": max(theirs),
                     "epsilon_lower": float(eps)})
    except ImportError as exc:
        rows.append({"method": f"JAX-Privacy (not installed: {exc})", "seconds": None, "worst_seconds": None,
                     "epsilon_lower": None})
    base = rows[-1]["seconds"]
    for r in rows:
        r["ratio_to_jax_privacy"] = (r["seconds"] / base) if (base and r["seconds"]) else None
    out = {"claim": spec, "claim_build_seconds": t_claim, "scores_per_class": a.scores, "repeat": a.repeat,
           "quick": a.quick, "target_seconds": 2.0, "within_target": max(ours) <= 2.0, "rows": rows}
    if a.json:
        print(json.dumps(out))
        return
    print(f"claim {spec}: built in {t_claim:.2f} s; {a.scores} scores per class; best of {a.repeat}")
    print(f"{'method':48s} {'best [s]':>9s} {'worst [s]':>9s} {'ratio':>7s} {'ε lower (δ=1e-5)':>17s}")
    for r in rows:
        s = "-" if r["seconds"] is None else f"{r['seconds']:.3f}"
        w = "-" if r["worst_seconds"] is None else f"{r['worst_seconds']:.3f}"
        q = "-" if r["ratio_to_jax_privacy"] is None else f"{r['ratio_to_jax_privacy']:.2f}"
        e = "-" if r["epsilon_lower"] is None else f"{r['epsilon_lower']:.4f}"
        print(f"{r['method']:48s} {s:>9s} {w:>9s} {q:>7s} {e:>17s}")
    print(f"target ≤ 2 s after the claim is built (slowest repeat): {'met' if out['within_target'] else 'NOT met'}")


if __name__ == "__main__":
    main()
