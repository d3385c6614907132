"""Smoke test of benchmarks/bench_gauss_laplace.py (--quick): it runs, prints its table and valid JSON.

No timing is asserted (DESIGN.md §5); the B.3 baseline runs at tol = 1e-2 (100 priors).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "bench_gauss_laplace.py"


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(SCRIPT), "--quick", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=SCRIPT.parent.parent,
    )


@pytest.mark.skipif(not SCRIPT.exists(), reason="benchmarks/ not present (installed package)")
def test_bench_gauss_laplace_quick_prints_table():
    proc = _run()
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    for needle in ("method", "time [s]", "Δ(G‖L)", "Δ(L‖G)", "speed-up", "B.3 (paper)", "dpcompare delta_divergence"):
        assert needle in out
    assert "bracket∋exact" in out and " NO " not in out


@pytest.mark.skipif(not SCRIPT.exists(), reason="benchmarks/ not present (installed package)")
def test_bench_gauss_laplace_quick_json():
    proc = _run("--json", "--repeat", "1")
    assert proc.returncode == 0, proc.stderr
    res = json.loads(proc.stdout)  # one JSON object and nothing else
    assert res["quick"] is True
    methods = [r["method"] for r in res["rows"]]
    assert methods[0].startswith("B.3 (paper)") and len(methods) == 4  # B.3, delta_divergence, compare, oracle
    for row in res["rows"][1:]:
        assert row["bracket_contains_exact"] is True
        assert row["err_gl"] < 1e-6 and row["err_lg"] < 1e-6
    assert res["rows"][1]["err_gl"] <= 1e-9 and res["rows"][1]["err_lg"] <= 1e-9
