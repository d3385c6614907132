"""Smoke test of benchmarks/audit_far_tail.py --input (the per-threshold input error against exactly split Gaussian
cells composed in mpmath): one random case runs and report no violation."""

from __future__ import annotations

import pytest

from run_script import BENCHMARKS, needs_benchmarks, run_script

pytest.importorskip("mpmath", reason="the audit's truth is computed in mpmath")
SCRIPT = BENCHMARKS / "audit_far_tail.py"


@needs_benchmarks
def test_audit_far_tail_input_one_case():
    proc = run_script(SCRIPT, "--input", "1", "1")
    assert proc.returncode == 0, proc.stderr
    assert "cases 1 with violations 0" in proc.stdout, proc.stdout
