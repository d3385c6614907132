"""Smoke test of benchmarks/bench_slow_paths.py (--quick): it runs one call in a fresh process and prints valid JSON."""

from __future__ import annotations

import json

from run_script import BENCHMARKS, needs_benchmarks, run_script

SCRIPT = BENCHMARKS / "bench_slow_paths.py"


@needs_benchmarks
def test_bench_slow_paths_quick_json():
    proc = run_script(SCRIPT, "--quick", "--json", timeout=300)
    assert proc.returncode == 0, proc.stderr
    rows = json.loads(proc.stdout)
    assert len(rows) == 1 and rows[0]["before"] is None
    now = rows[0]["now"]
    assert now["cpu"] >= 0.0 and now["wall"] > 0.0
    lo, hi = now["answer"]  # the δ bracket [optimistic, pessimistic] of SubsampledGaussian(2, 1e-7, 100) at ε = 1e-3
    assert 0.0 <= min(lo, hi) <= max(lo, hi) < 1e-9
