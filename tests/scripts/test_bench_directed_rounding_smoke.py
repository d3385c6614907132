"""Smoke test of benchmarks/bench_directed_rounding.py: a quick run finds no overstated f or R and emits valid JSON."""

from __future__ import annotations

import json

from run_script import BENCHMARKS, needs_benchmarks, run_script

SCRIPT = BENCHMARKS / "bench_directed_rounding.py"


@needs_benchmarks
def test_bench_directed_rounding_quick_json():
    proc = run_script(SCRIPT, "--n", "30", "--json")
    assert proc.returncode == 0, proc.stderr + proc.stdout
    doc = json.loads(proc.stdout)
    assert len(doc["rows"]) == 6
    for row in doc["rows"]:
        assert row["draws"] == 30 and row["overstated"] == 0 and row["worst_gap"] < 1e-11
