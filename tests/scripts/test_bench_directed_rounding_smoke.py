"""Smoke test of benchmarks/bench_directed_rounding.py: a quick run finds no overstated f or R and emits valid JSON."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_directed_rounding.py"


@pytest.mark.skipif(not SCRIPT.exists(), reason="benchmarks/ not present (installed package)")
def test_bench_directed_rounding_quick_json():
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SCRIPT.parents[1] / "src"), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run([sys.executable, str(SCRIPT), "--n", "30", "--json"], capture_output=True, text=True,
                          timeout=600, cwd=SCRIPT.parents[1], env=env)
    assert proc.returncode == 0, proc.stderr + proc.stdout
    doc = json.loads(proc.stdout)
    assert len(doc["rows"]) == 6
    for row in doc["rows"]:
        assert row["draws"] == 30 and row["overstated"] == 0 and row["worst_gap"] < 1e-11
