"""Smoke test of benchmarks/bench_events.py: the quick run prints its table, passes its checks and emits valid JSON."""

from __future__ import annotations

import json

from run_script import BENCHMARKS, needs_benchmarks, run_script

SCRIPT = BENCHMARKS / "bench_events.py"


@needs_benchmarks
def test_bench_events_quick_json():
    proc = run_script(SCRIPT, "--quick", "--json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["failures"] == [] and len(doc["rows"]) == 3
    for row in doc["rows"]:
        assert all(e < float("inf") for e in row["ours"]["epsilon"])
        assert row["ours"]["guarantee"] == "certified"
