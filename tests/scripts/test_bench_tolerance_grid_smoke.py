"""Smoke test of benchmarks/bench_tolerance_grid.py (--quick: one row, one ε): it runs, prints valid JSON, and both
answers lie above the certified reference's lower end."""

from __future__ import annotations

import json
import math

from run_script import BENCHMARKS, needs_benchmarks, run_script

SCRIPT = BENCHMARKS / "bench_tolerance_grid.py"


@needs_benchmarks
def test_bench_tolerance_grid_quick_json():
    proc = run_script(SCRIPT, "--quick", "--json")
    assert proc.returncode == 0, proc.stderr
    (r,) = json.loads(proc.stdout)["rows"]
    assert (r["sigma"], r["p"], r["steps"]) == (1.0, 0.2, 50) and r["certified"]
    assert r["now_h"] >= r["before_h"] and math.isfinite(r["cpu_ratio"]) and r["cpu_ratio"] > 0
