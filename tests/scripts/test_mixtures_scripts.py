"""Smoke tests of examples/shuffling_vs_clones.py and benchmarks/bench_shuffle.py (--quick).

No timing is asserted (speed is measured by the benchmark scripts); the full runs are documented in the README section.
"""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "shuffling_vs_clones.py"
BENCH = ROOT / "benchmarks" / "bench_shuffle.py"


def _run(script: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(script), *args], capture_output=True, text=True, timeout=120, cwd=ROOT)


@pytest.mark.skipif(not EXAMPLE.exists(), reason="examples/ not present (installed package)")
def test_example_quick_prints_the_csv_table():
    proc = _run(EXAMPLE, "--quick")
    assert proc.returncode == 0, proc.stderr
    rows = list(csv.DictReader(io.StringIO(proc.stdout)))
    assert [(r["eps0"], r["n"]) for r in rows] == [("1.0", "1000"), ("4.0", "1000")]
    for r in rows:
        fdp, fmt, pair = float(r["eps_fdp_thm42"]), float(r["eps_clones_fmt"]), float(r["eps_clone_pair"])
        assert 0 < pair <= fdp < float(r["eps0"]) and pair <= fmt  # the exact clone pair is the tightest
        assert r["tighter"] == "f-DP (Thm 4.2)"


@pytest.mark.skipif(not EXAMPLE.exists(), reason="examples/ not present (installed package)")
def test_example_rejects_a_bad_delta():
    proc = _run(EXAMPLE, "--quick", "--delta", "2")
    assert proc.returncode == 2 and "--delta" in proc.stderr


@pytest.mark.skipif(not BENCH.exists(), reason="benchmarks/ not present (installed package)")
def test_benchmark_quick_json():
    proc = _run(BENCH, "--quick", "--json")
    assert proc.returncode == 0, proc.stderr
    res = json.loads(proc.stdout)  # one JSON object and nothing else
    assert res["quick"] is True and res["n"] == 100_000
    (row,) = res["rows"]
    lo, hi = row["fdp"]["delta_bracket_at_epsilon"]
    assert lo <= hi <= 1e-6
    assert row["fdp"]["epsilon"] < row["fmt"]["epsilon"]
    assert row["fdp_delta_le_fmt_on_grid"] is True
