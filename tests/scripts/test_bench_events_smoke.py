"""Smoke test of benchmarks/bench_events.py: the quick run prints its table, passes its checks and emits valid JSON."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_events.py"


@pytest.mark.skipif(not SCRIPT.exists(), reason="benchmarks/ not present (installed package)")
def test_bench_events_quick_json():
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SCRIPT.parents[1] / "src"), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run([sys.executable, str(SCRIPT), "--quick", "--json"], capture_output=True, text=True,
                          timeout=600, cwd=SCRIPT.parents[1], env=env)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["failures"] == [] and len(doc["rows"]) == 3
    for row in doc["rows"]:
        assert all(e < float("inf") for e in row["ours"]["epsilon"])
        assert row["ours"]["guarantee"] == "certified"
