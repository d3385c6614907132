"""Smoke test of benchmarks/bench_lazy_far_tails.py (--quick): it runs, prints valid JSON, and before (passes built
for every composition) and after (on demand) certify ε within FAR_TAIL_GAIN of each other."""

from __future__ import annotations

import json
import math

from run_script import BENCHMARKS, needs_benchmarks, run_script

SCRIPT = BENCHMARKS / "bench_lazy_far_tails.py"


@needs_benchmarks
def test_bench_lazy_far_tails_quick_json():
    from dpcompare.composition.sgm_certified import FAR_TAIL_GAIN

    proc = run_script(SCRIPT, "--quick", "--json", timeout=300)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert len(out["rows"]) == 2
    for r in out["rows"]:
        assert math.isfinite(r["eps_before"]) and r["eps_before"] > 0
        assert abs(r["eps_after"] / r["eps_before"] - 1.0) <= FAR_TAIL_GAIN
        assert r["cpu_before"] >= 0.0 and r["cpu_after"] >= 0.0
