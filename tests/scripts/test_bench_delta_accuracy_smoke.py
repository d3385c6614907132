"""Smoke test of benchmarks/bench_delta_accuracy.py: it runs (N = 100, one round) and prints valid JSON whose
brackets are ordered and contain the 8×-finer certified reference. No timing is asserted."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_delta_accuracy.py"


@pytest.mark.skipif(not SCRIPT.exists(), reason="benchmarks/ not present (installed package)")
def test_bench_delta_accuracy_quick_json():
    pytest.importorskip("dp_accounting", reason="the peer is dp-accounting's PLD accountant")
    proc = subprocess.run([sys.executable, str(SCRIPT), "--quick", "--json"], capture_output=True, text=True,
                          timeout=600, cwd=SCRIPT.parent.parent)
    assert proc.returncode == 0, proc.stderr
    res = json.loads(proc.stdout)
    assert res["quick"] is True and res["n"] == 100
    ref = res["reference"]
    assert ref["lower"] <= ref["upper"]
    for k in ("chosen", "default", "accuracy"):
        o = res["results"][k]
        assert o["lower"] <= o["value"] <= o["upper"] and o["contains_reference"] is True
    assert res["results"]["accuracy"]["upper"] - res["results"]["accuracy"]["lower"] <= res["accuracy"]
    assert res["results"]["default"]["factor_a"] is None  # the explicitly gridded mechanisms are not regridded
    assert res["results"]["chosen"]["factor_a"] >= 1.0
    assert abs(res["results"]["peer"]["value"] - ref["upper"]) < 1e-5  # PLD's uncertified Δ at π = ½ is close


@pytest.mark.skipif(not SCRIPT.exists(), reason="benchmarks/ not present (installed package)")
def test_bench_delta_accuracy_weighted_quick_json():
    """``--weighted``: Δ^Ψ with Ψ = Beta(2, 2); the accuracy variants meet their width and every bracket contains the
    8×-finer reference."""
    proc = subprocess.run([sys.executable, str(SCRIPT), "--quick", "--weighted", "--json"], capture_output=True,
                          text=True, timeout=600, cwd=SCRIPT.parent.parent)
    assert proc.returncode == 0, proc.stderr
    res = json.loads(proc.stdout)
    assert res["weighted"] is True and res["n"] == 100
    for k in ("w-default", "w-accuracy", "w-probe8"):
        o = res["results"][k]
        assert o["lower"] <= o["value"] <= o["upper"] and o["contains_reference"] is True
    for k in ("w-accuracy", "w-probe8"):
        o = res["results"][k]
        assert o["upper"] - o["lower"] <= res["accuracy"] and o["factor_a"] < 1.0
    assert res["results"]["w-default"]["factor_a"] is None  # without accuracy: the default grids, as before
