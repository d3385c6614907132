"""Smoke tests of the B.3 CPU-time benchmarks (benchmarks/bench_b3_cpu.py, bench_b3_steps.py, bench_b3_ab.py): they
run with --quick and print their one line. No timing is asserted (speed is measured by the scripts themselves)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.mark.skipif(not (BENCH / "bench_b3_cpu.py").exists(), reason="benchmarks/ not present (installed package)")
@pytest.mark.parametrize("script, needles", [("bench_b3_cpu.py", ("B.3 CPU", "ratio CPU/min")),
                                             ("bench_b3_steps.py", ("compare", "two_max_states", "crossings"))])
def test_b3_benchmark_quick_runs(script, needles):
    proc = subprocess.run([sys.executable, str(BENCH / script), "--quick"], capture_output=True, text=True,
                          timeout=300, cwd=BENCH.parent)
    assert proc.returncode == 0, proc.stderr
    assert all(n in proc.stdout for n in needles)


@pytest.mark.skipif(not (BENCH / "bench_b3_ab.py").exists(), reason="benchmarks/ not present (installed package)")
def test_b3_ab_quick_runs_a_tree_against_itself():
    proc = subprocess.run([sys.executable, str(BENCH / "bench_b3_ab.py"), str(BENCH.parent / "src"), "--quick"],
                          capture_output=True, text=True, timeout=300, cwd=BENCH.parent)
    assert proc.returncode == 0, proc.stderr
    old, new = (line.split(": ", 1)[1] for line in proc.stdout.splitlines()[:2])
    assert old == new  # the same tree: the same brackets and crossings
    assert "ratio new/old CPU" in proc.stdout


@pytest.mark.skipif(not (BENCH / "bench_b3_ab.py").exists(), reason="benchmarks/ not present (installed package)")
def test_b3_ab_fresh_builds_the_mechanisms_in_every_call_and_times_the_steps():
    proc = subprocess.run([sys.executable, str(BENCH / "bench_b3_ab.py"), str(BENCH.parent / "src"), "--quick", "--fresh",
                           "--steps"], capture_output=True, text=True, timeout=300, cwd=BENCH.parent)
    assert proc.returncode == 0, proc.stderr
    assert "ratio new/old CPU" in proc.stdout and "median CPU" in proc.stdout
    assert "interval bounds" in proc.stdout and "Gaussian R" in proc.stdout
