"""Smoke test of benchmarks/bench_audit.py (--quick): it runs and prints one JSON object. No timing asserted."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_audit.py"


@pytest.mark.skipif(not SCRIPT.exists(), reason="benchmarks/ not present (installed package)")
def test_bench_audit_quick_json():
    proc = subprocess.run([sys.executable, str(SCRIPT), "--quick", "--json"], capture_output=True, text=True,
                          timeout=300, cwd=SCRIPT.parent.parent)
    assert proc.returncode == 0, proc.stderr
    res = json.loads(proc.stdout)
    assert res["quick"] is True and res["rows"][0]["epsilon_lower"] > 0
