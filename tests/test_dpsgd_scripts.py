"""Smoke tests of the issue-5 examples and benchmark (--quick). No timing asserts (DESIGN.md §5)."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = {
    "thm3": ROOT / "examples" / "dpsgd_thm3_moments.py",
    "fig6": ROOT / "examples" / "dpsgd_figure6.py",
    "fig7": ROOT / "examples" / "dpsgd_figure7.py",
    "bench": ROOT / "benchmarks" / "bench_dpsgd_calibrate.py",
}


def _run(script: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(script), *args], capture_output=True, text=True, timeout=180, cwd=cwd)


@pytest.mark.parametrize("name", ["thm3", "fig6", "fig7"])
def test_example_quick(name, tmp_path):
    script = SCRIPTS[name]
    if not script.exists():
        pytest.skip("examples/ not present")
    pytest.importorskip("matplotlib")
    proc = _run(script, "--quick", "--csv", str(tmp_path / "o.csv"), "--png", str(tmp_path / "o.png"), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    rows = list(csv.DictReader(open(tmp_path / "o.csv", encoding="utf-8")))
    assert rows
    assert (tmp_path / "o.png").stat().st_size > 1000
    if name == "thm3":
        assert all(r["precondition_M_vs_Mt"] == "False" and r["precondition_Mt_vs_M"] == "True" for r in rows)
    if name == "fig6":
        assert max(float(r["delta_base_to_point"]) for r in rows) > 0.1


def test_benchmark_quick_json(tmp_path):
    script = SCRIPTS["bench"]
    if not script.exists():
        pytest.skip("benchmarks/ not present")
    proc = _run(script, "--quick", "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    ours = out["rows"][0]
    assert ours["certified_epsilon"] <= 8.0 and 8.0 - ours["certified_epsilon"] <= 1e-3
