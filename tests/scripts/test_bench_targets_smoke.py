"""Smoke test of benchmarks/bench_targets.py: it runs (small jobs, one round) and prints valid JSON rows with
a ratio and a target each. No timing is asserted."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_targets.py"


@pytest.mark.skipif(not SCRIPT.exists(), reason="benchmarks/ not present (installed package)")
def test_bench_targets_quick_json():
    pytest.importorskip("dp_accounting", reason="the ε row's peer is dp-accounting's RDP accountant")
    proc = subprocess.run([sys.executable, str(SCRIPT), "--quick", "--only", "eps,b3", "--json"],
                          capture_output=True, text=True, timeout=600, cwd=SCRIPT.parent.parent)
    assert proc.returncode == 0, proc.stderr
    res = json.loads(proc.stdout)
    assert res["quick"] is True and len(res["load"]) == 2
    jobs = [r["job"] for r in res["rows"]]
    assert len(jobs) == 7 and any("epsilon_to_accuracy" in j for j in jobs) and "B.3" in jobs[-1]
    for r in res["rows"]:
        assert r["ratio"] is not None and r["ratio"] > 0 and r["target"]
    acc = next(r for r in res["rows"] if "epsilon_to_accuracy" in r["job"] and "cold" in r["job"])
    assert acc["ours_run"]["lower"] <= acc["ours_run"]["epsilon"] and acc["ours_run"]["rel"] <= 1e-4


@pytest.mark.skipif(not SCRIPT.exists(), reason="benchmarks/ not present (installed package)")
def test_bench_targets_default_delta_row_quick():
    pytest.importorskip("dp_accounting", reason="the default-δ row's peer is dp-accounting's PLD accountant")
    proc = subprocess.run([sys.executable, str(SCRIPT), "--quick", "--only", "ddefault", "--json"],
                          capture_output=True, text=True, timeout=600, cwd=SCRIPT.parent.parent)
    assert proc.returncode == 0, proc.stderr
    (row,) = json.loads(proc.stdout)["rows"]
    truth, ours = row["truth"], row["ours_run"]
    assert truth["lo"] <= truth["hi"] and truth["lo"] <= ours["delta"]  # certified: never below a lower bound of the truth
    assert ours["accuracy"] > 0 and row["ratio"] > 0


@pytest.mark.skipif(not SCRIPT.exists(), reason="benchmarks/ not present (installed package)")
def test_bench_targets_unknown_job_exits_2():
    proc = subprocess.run([sys.executable, str(SCRIPT), "--only", "nope"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "nope" in proc.stderr


SCALING = SCRIPT.parent / "bench_scaling.py"


@pytest.mark.skipif(not SCALING.exists(), reason="benchmarks/ not present (installed package)")
def test_bench_scaling_quick_json():
    proc = subprocess.run([sys.executable, str(SCALING), "--quick", "--json"], capture_output=True, text=True,
                          timeout=600, cwd=SCALING.parent.parent)
    assert proc.returncode == 0, proc.stderr
    res = json.loads(proc.stdout)
    assert set(res) == {"load", "eps", "delta", "acc"}
    for key in ("eps", "delta"):
        for r in res[key].values():
            assert r["seconds"] > 0 and r["rss_mb"] > 0 and r["value"] > 0
    for tol, r in res["acc"].items():
        assert r["width"] <= float(tol)  # the accuracy achieved meets the one asked for


@pytest.mark.skipif(not SCRIPT.exists(), reason="benchmarks/ not present (installed package)")
def test_bench_targets_bins_and_audit_rows_quick():
    """The balls-in-bins and audit rows run (small sizes); ours is certified and within the row's absolute
    target; the audit's peer (JAX-Privacy) may be absent, then its cell says so."""
    proc = subprocess.run([sys.executable, str(SCRIPT), "--quick", "--only", "bins,audit", "--json"],
                          capture_output=True, text=True, timeout=600, cwd=SCRIPT.parent.parent)
    assert proc.returncode == 0, proc.stderr
    bins, aud = json.loads(proc.stdout)["rows"]
    o = bins["ours_run"]
    assert 0 < o["lo"] <= o["hi"] and (o["hi"] - o["lo"]) / o["hi"] <= 1e-3 and o["rss"] > 0
    assert "balls-in-bins" in bins["job"] and "audit" in aud["job"]
    assert aud["ours_run"]["epsilon"] > 0 and aud["met"] in (True, False)
