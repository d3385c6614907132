"""examples/audit_opacus.py runs end to end in its quick mode (CI): a real Opacus run, audited."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "examples" / "audit_opacus.py"


@pytest.mark.skipif(not SCRIPT.exists(), reason="examples/ not present (installed package)")
def test_audit_opacus_quick(tmp_path):
    pytest.importorskip("torch", reason="the example trains with torch (pip install 'dpcompare[opacus]')")
    pytest.importorskip("opacus", reason="the example trains with Opacus (pip install 'dpcompare[opacus]')")
    pytest.importorskip("sklearn", reason="the example's dataset ships with scikit-learn")
    proc = subprocess.run([sys.executable, str(SCRIPT), "--quick", "--json", "-o", str(tmp_path)],
                          capture_output=True, text=True, timeout=600, cwd=SCRIPT.parent.parent)
    assert proc.returncode == 0, proc.stderr
    d = json.loads(proc.stdout)
    assert {"contradicts", "epsilon_lower", "claimed_epsilon", "gap", "one_run"} <= set(d)
    # the claim is the run's own accounting: dpcompare's sgm and Opacus' accountant (dpcompare) agree
    assert abs(d["claimed_epsilon"] - d["opacus_epsilon"]) <= 1e-6 * d["claimed_epsilon"] + 1e-9
    # a correct DP-SGD implementation is not contradicted by its own audit (at 95 % this could fail by
    # chance with probability ≤ 5 %; the seed is fixed, so the test is deterministic)
    assert d["contradicts"] is False and d["epsilon_lower"] <= d["claimed_epsilon"]
    assert (tmp_path / "audit_opacus.png").stat().st_size > 0
