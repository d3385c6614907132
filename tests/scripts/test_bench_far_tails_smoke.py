"""Smoke test of benchmarks/bench_far_tails.py (--quick): it runs and prints valid JSON with both ε."""

from __future__ import annotations

import json
import math

import pytest

from run_script import BENCHMARKS, needs_benchmarks, run_script

pytest.importorskip("dp_accounting", reason="the far-tail benchmark compares with dp-accounting")
SCRIPT = BENCHMARKS / "bench_far_tails.py"


@needs_benchmarks
def test_bench_far_tails_quick_json():
    proc = run_script(SCRIPT, "--quick", "--json", timeout=300)
    assert proc.returncode == 0, proc.stderr
    rows = json.loads(proc.stdout)
    assert len(rows) == 1
    r = rows[0]
    assert math.isfinite(r["ours"]) and math.isfinite(r["dp_accounting"]) and r["ours"] > 0
    # ours is certified, dp-accounting's is a pessimistic estimate: ours is not smaller by more than 1 %
    assert r["ours"] >= 0.99 * r["dp_accounting"]
