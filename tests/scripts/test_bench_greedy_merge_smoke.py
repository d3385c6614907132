"""Smoke test of benchmarks/bench_greedy_merge.py --quick: it runs, prints valid JSON, and the two merges
agree (no timing asserted)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_greedy_merge.py"


@pytest.mark.skipif(not SCRIPT.exists(), reason="benchmarks/ not present (installed package)")
def test_bench_greedy_merge_quick_json():
    proc = subprocess.run([sys.executable, str(SCRIPT), "--quick", "--json"], capture_output=True, text=True,
                          timeout=300, cwd=SCRIPT.parent.parent)
    assert proc.returncode == 0, proc.stderr
    row = json.loads(proc.stdout)["rows"][0]
    assert row["cells"] > 100
    assert row["max_rel_diff"] <= 1e-8  # same greedy decisions, rounding differences only
    assert row["old_cpu"] > 0 and row["new_cpu"] > 0
