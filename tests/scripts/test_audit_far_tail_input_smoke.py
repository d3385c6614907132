"""Smoke test of benchmarks/audit_far_tail.py --input (the per-threshold input error against exactly split Gaussian
cells composed in mpmath): one random case runs and report no violation."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mpmath", reason="the audit's truth is computed in mpmath")
SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "audit_far_tail.py"


@pytest.mark.skipif(not SCRIPT.exists(), reason="benchmarks/ not present (installed package)")
def test_audit_far_tail_input_one_case():
    env = dict(os.environ)
    src = str(SCRIPT.parent.parent / "src")
    env["PYTHONPATH"] = src + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    proc = subprocess.run([sys.executable, str(SCRIPT), "--input", "1", "1"], capture_output=True, text=True,
                          timeout=600, cwd=SCRIPT.parent.parent, env=env)
    assert proc.returncode == 0, proc.stderr
    assert "cases 1 with violations 0" in proc.stdout, proc.stdout
