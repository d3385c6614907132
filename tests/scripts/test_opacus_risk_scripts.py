"""Smoke tests of examples/opacus_pareto.py (--quick) and benchmarks/bench_risk.py (a small configuration)."""

from __future__ import annotations

import csv
import importlib.util
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _load(rel: str):
    spec = importlib.util.spec_from_file_location(Path(rel).stem, ROOT / rel)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses look their module up while the class is created
    spec.loader.exec_module(mod)
    return mod


def test_opacus_pareto_quick(tmp_path, capsys):
    pytest.importorskip("torch", reason="torch is not installed (pip install 'dpcompare[examples]')")
    pytest.importorskip("opacus", reason="opacus is not installed (pip install 'dpcompare[examples]')")
    pytest.importorskip("sklearn", reason="scikit-learn is not installed (pip install 'dpcompare[examples]')")
    mod = _load("examples/opacus_pareto.py")
    assert mod.main(["--quick", "-o", str(tmp_path)]) == 0
    rows = list(csv.DictReader(open(tmp_path / "opacus_pareto.csv")))
    assert len(rows) == 2 and (tmp_path / "opacus_pareto.png").stat().st_size > 0
    for r in rows:  # every run is calibrated to the same certified ε (within the quick tolerance)
        assert 4.0 - 0.05 <= float(r["epsilon"]) <= 4.0
        assert float(r["delta_lower"]) <= float(r["delta_from_ref"]) <= float(r["delta_upper"])
        assert 0.0 < float(r["accuracy"]) <= 1.0
    assert min(float(r["delta_from_ref"]) for r in rows) == 0.0  # the reference itself
    assert "pareto" in capsys.readouterr().out


def test_pareto_marks_dominated_rows():
    mod = _load("examples/opacus_pareto.py")
    rows = [mod.Row(1, 1, 1, 0.1, 1.0, 1.0, acc, 0.0, 0.1, 0.1, d, d, d) for acc, d in
            [(0.9, 0.0), (0.8, 0.1), (0.95, 0.2)]]
    mod.pareto(rows)
    assert [r.pareto_efficient for r in rows] == [True, False, True]
    assert rows[1].accuracy_given_up == pytest.approx(0.1) and rows[1].excess_delta == pytest.approx(0.1)


def test_bench_risk_json(capsys):
    pytest.importorskip("riskcal", reason="riskcal is not installed (pip install 'dpcompare[bench]')")
    mod = _load("benchmarks/bench_risk.py")
    assert mod.main(["--sigma", "2", "--p", "0.1", "--steps", "10", "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    for lo, hi in res["dpcompare"]["tpr"]:
        assert 0 <= lo <= hi <= 1
    lo, hi = res["dpcompare"]["advantage"]
    assert lo - 1e-9 <= res["dp_accounting"]["advantage"] and lo <= hi
