"""Smoke test of benchmarks/bench_balls_in_bins.py: it runs (ours only, one small configuration) and prints
valid JSON; no timing is asserted."""

from __future__ import annotations

import json

from run_script import BENCHMARKS, needs_benchmarks, run_script

SCRIPT = BENCHMARKS / "bench_balls_in_bins.py"


@needs_benchmarks
def test_bench_balls_in_bins_quick_json():
    proc = run_script(SCRIPT, "--quick", "--ours-only", "--json", timeout=300)
    assert proc.returncode == 0, proc.stderr
    (row,) = json.loads(proc.stdout)
    lo, hi = row["ours"]
    assert 0 < lo <= hi and row["rel_width"] < 1e-2
