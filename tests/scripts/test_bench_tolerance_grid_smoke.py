"""Smoke test of benchmarks/bench_tolerance_grid.py (--quick: one row, one ε): it runs, prints valid JSON, and both
answers lie above the certified reference's lower end."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_tolerance_grid.py"


@pytest.mark.skipif(not SCRIPT.exists(), reason="benchmarks/ not present (installed package)")
def test_bench_tolerance_grid_quick_json():
    proc = subprocess.run([sys.executable, str(SCRIPT), "--quick", "--json"], capture_output=True, text=True,
                          timeout=600, cwd=SCRIPT.parent.parent)
    assert proc.returncode == 0, proc.stderr
    (r,) = json.loads(proc.stdout)["rows"]
    assert (r["sigma"], r["p"], r["steps"]) == (1.0, 0.2, 50) and r["certified"]
    assert r["now_h"] >= r["before_h"] and math.isfinite(r["cpu_ratio"]) and r["cpu_ratio"] > 0
