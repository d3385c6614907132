"""benchmarks/bench_targets.py ``--before DIR``: the thm3 row also runs our job from another tree's src, interleaved
(a before/after from one run); a DIR without the package is refused with one line and exit status 2."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "bench_targets.py"


@pytest.mark.skipif(not SCRIPT.exists(), reason="benchmarks/ not present (installed package)")
def test_before_without_a_package_exits_2(tmp_path):
    proc = subprocess.run([sys.executable, str(SCRIPT), "--only", "thm3", "--before", str(tmp_path)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "--before" in proc.stderr and not proc.stdout


@pytest.mark.skipif(not SCRIPT.exists(), reason="benchmarks/ not present (installed package)")
def test_thm3_quick_with_before_gives_both_rows():
    pytest.importorskip("dp_accounting", reason="the thm3 row's peer is dp-accounting's PLD")
    proc = subprocess.run([sys.executable, str(SCRIPT), "--quick", "--only", "thm3", "--json", "--before", str(ROOT / "src")],
                          capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    rows = json.loads(proc.stdout)["rows"]
    assert len(rows) == 2 and "before" in rows[1]["job"]
    for r in rows:
        assert r["ratio"] is not None and r["ratio"] > 0 and "width" in r["ours"]
