"""Smoke test of benchmarks/bench_balls_in_bins.py: it runs (ours only, one small configuration) and prints
valid JSON; no timing is asserted."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_balls_in_bins.py"


@pytest.mark.skipif(not SCRIPT.exists(), reason="benchmarks/ not present (installed package)")
def test_bench_balls_in_bins_quick_json():
    env = {**os.environ, "PYTHONPATH": str(SCRIPT.parents[1] / "src")}
    proc = subprocess.run([sys.executable, str(SCRIPT), "--quick", "--ours-only", "--json"], capture_output=True,
                          text=True, timeout=300, cwd=SCRIPT.parents[1], env=env)
    assert proc.returncode == 0, proc.stderr
    (row,) = json.loads(proc.stdout)
    lo, hi = row["ours"]
    assert 0 < lo <= hi and row["rel_width"] < 1e-2
