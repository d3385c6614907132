"""The CLI rows of benchmarks/bench_targets.py and benchmarks/bench_cli_startup.py: the verdict reads the spread of
the per-round ratios (no timing is asserted), and a quick run prints rows with medians, quartiles and a verdict."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"
TARGETS = BENCH / "bench_targets.py"
STARTUP = BENCH / "bench_cli_startup.py"
pytestmark = pytest.mark.skipif(not TARGETS.exists(), reason="benchmarks/ not present (installed package)")


def _load(path: Path):
    spec = importlib.util.spec_from_file_location(path.stem + "_under_test", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_verdict_reads_the_quartiles():
    bt = _load(TARGETS)
    assert bt.cli_verdict([1.0, 1.1, 1.2, 1.29]) == "yes"
    assert bt.cli_verdict([1.31, 1.4, 1.5]) == "no"
    # median 1.25 ≤ 1.3, but a quarter of the rounds are above: not claimed as met
    assert bt.cli_verdict([1.1, 1.2, 1.25, 1.4, 1.5]) == "at the edge"
    # quartiles by hand (inclusive method: linear interpolation between order statistics)
    assert bt._quartiles([1.0, 2.0, 3.0, 4.0, 5.0]) == (2.0, 4.0)
    assert bt._quartiles([7.0]) == (7.0, 7.0)
    assert _load(STARTUP)._quartiles([1.0, 2.0, 3.0, 4.0, 5.0]) == (2.0, 4.0)


def test_cli_rows_quick_json():
    proc = subprocess.run([sys.executable, str(TARGETS), "--quick", "--only", "cli", "--json"], capture_output=True,
                          text=True, timeout=600, cwd=BENCH.parent)
    assert proc.returncode == 0, proc.stderr
    rows = json.loads(proc.stdout)["rows"]
    assert len(rows) == 2
    for r in rows:
        assert r["met"] in ("yes", "no", "at the edge") and r["rounds"] == 3
        lo, hi = r["cpu_ratio_quartiles"]
        assert 0 < lo <= hi and len(r["cpu_runs"]) == len(r["floor_cpu_runs"]) == 3
        assert r["cpu_ratio"] == pytest.approx(r["cpu"] / r["floor_cpu"])


def test_instruction_count_is_read_from_cachegrinds_summary():
    bs = _load(STARTUP)
    # cachegrind's exit summary (valgrind 3.19, --cache-sim=no): the "I refs" line, digits grouped by commas
    text = "==8124== \n==8124== I   refs:      1,440,951,812\n"
    assert bs.parse_instructions(text) == 1_440_951_812
    assert bs.parse_instructions("==1== error: no such file\n") is None
