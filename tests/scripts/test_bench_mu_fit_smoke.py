"""Smoke test of benchmarks/bench_mu_fit.py --quick: it runs and prints valid JSON (no timing asserted)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_mu_fit.py"


@pytest.mark.skipif(not SCRIPT.exists(), reason="benchmarks/ not present (installed package)")
def test_bench_mu_fit_quick_json():
    proc = subprocess.run([sys.executable, str(SCRIPT), "--quick", "--json"], capture_output=True, text=True,
                          timeout=300, cwd=SCRIPT.parent.parent)
    assert proc.returncode == 0, proc.stderr
    row = json.loads(proc.stdout)["rows"][0]
    assert row["mechanism"] == "laplace(b=1)"
    # both searches find the same crossing (Laplace b = 1: μ̂ = 0.89257, worst gap 0.02443)
    assert row["mu_ours"] == pytest.approx(row["mu_baseline"], rel=1e-5)
    assert row["worst_gap_ours"] == pytest.approx(row["worst_gap_baseline"], abs=1e-8)
