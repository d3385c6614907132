"""Smoke test of benchmarks/bench_dpsgd_calibrate.py --quick: it runs and its JSON holds certified answers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_dpsgd_calibrate.py"


def test_bench_dpsgd_calibrate_quick_json():
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1] / "src"))
    res = subprocess.run([sys.executable, str(SCRIPT), "--quick", "--repeat", "1", "--json"], capture_output=True,
                         text=True, timeout=600, env=env)
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    ours = out["configs"][0]["rows"][0]
    assert ours["method"].startswith("dpcompare")
    assert 8.0 - 1e-3 <= ours["own_epsilon"] <= 8.0 and ours["certified_epsilon"] <= 8.0
    assert all(r["seconds"] > 0 for r in out["configs"][0]["rows"])
