"""Smoke test of benchmarks/bench_mu_fit.py --quick: it runs and prints valid JSON (no timing asserted)."""

from __future__ import annotations

import json

import pytest

from run_script import BENCHMARKS, needs_benchmarks, run_script

SCRIPT = BENCHMARKS / "bench_mu_fit.py"


@needs_benchmarks
def test_bench_mu_fit_quick_json():
    proc = run_script(SCRIPT, "--quick", "--json", timeout=300)
    assert proc.returncode == 0, proc.stderr
    row = json.loads(proc.stdout)["rows"][0]
    assert row["mechanism"] == "laplace(b=1)"
    # both searches find the same crossing (Laplace b = 1: μ̂ = 0.89257, worst gap 0.02443)
    assert row["mu_ours"] == pytest.approx(row["mu_baseline"], rel=1e-5)
    assert row["worst_gap_ours"] == pytest.approx(row["worst_gap_baseline"], abs=1e-8)
