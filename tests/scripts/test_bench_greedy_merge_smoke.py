"""Smoke test of benchmarks/bench_greedy_merge.py --quick: it runs, prints valid JSON, and the two merges
agree (no timing asserted)."""

from __future__ import annotations

import json

from run_script import BENCHMARKS, needs_benchmarks, run_script

SCRIPT = BENCHMARKS / "bench_greedy_merge.py"


@needs_benchmarks
def test_bench_greedy_merge_quick_json():
    proc = run_script(SCRIPT, "--quick", "--json", timeout=300)
    assert proc.returncode == 0, proc.stderr
    row = json.loads(proc.stdout)["rows"][0]
    assert row["cells"] > 100
    assert row["max_rel_diff"] <= 1e-8  # same greedy decisions, rounding differences only
    assert row["old_cpu"] > 0 and row["new_cpu"] > 0
