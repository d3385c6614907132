"""Smoke test of benchmarks/bench_tightness.py (--quick on its cheapest row): it runs and prints valid JSON whose
answers are certified (above the reference bracket's lower end)."""

from __future__ import annotations

import json
import math

import pytest

from run_script import BENCHMARKS, needs_benchmarks, run_script

pytest.importorskip("dp_accounting", reason="the tightness benchmark compares with dp-accounting")
SCRIPT = BENCHMARKS / "bench_tightness.py"


@needs_benchmarks
def test_bench_tightness_quick_json():
    proc = run_script(SCRIPT, "--quick", "--rows", "10", "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    (r,) = out["rows"]
    assert (r["sigma"], r["p"], r["steps"]) == (2.0, 0.01, 1000)
    assert r["default_certified"] and r["ours_certified"] and r["before_certified"]
    for key in ("default_excess_ratio", "default_time_ratio", "default_cpu_ratio", "excess_ratio", "before_cpu_ratio"):
        assert math.isfinite(r[key]) and r[key] > 0, key
