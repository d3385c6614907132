"""The σ calibration's cold start: its Gaussian σ_G (search domain end and starting point) agrees with the
certified calibration of the Gaussian package, and a cold calibration does not load the Gaussian or mechanism
packages (their import was most of what a cold call paid besides the composition engine)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import dpcompare.gaussian as dg
from dpcompare.dpsgd.calibrate_sigma import _gaussian_sigma

SRC = Path(__file__).resolve().parents[2] / "src"


@pytest.mark.parametrize("eps", [1e-3, 0.1, 1.0, 8.0, 50.0, 700.0])
@pytest.mark.parametrize("delta", [1e-300, 1e-30, 1e-10, 1e-5, 0.1, 0.5, 0.9])
def test_gaussian_sigma_matches_the_certified_calibration(eps: float, delta: float) -> None:
    # reference: dpcompare.gaussian.sigma_for (Balle & Wang's analytic calibration, its own tests check it
    # against mpmath); 1e-9 relative is far below what a starting point needs and far above rounding
    assert _gaussian_sigma(eps, delta) == pytest.approx(float(dg.sigma_for(eps, delta)), rel=1e-9)


def test_cold_calibration_imports_neither_gaussian_nor_mechanisms_package() -> None:
    code = (
        "import json, sys\n"
        "from dpcompare.dpsgd import sigma_for_epsilon\n"
        "r = sigma_for_epsilon(8.0, 1e-5, 0.01, 100, tol=1e-2)\n"
        "print(json.dumps({'sigma': r.sigma, 'epsilon': r.epsilon, 'modules': sorted(sys.modules)}))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300, check=True)
    d = json.loads(out.stdout.strip().splitlines()[-1])
    assert 8.0 - 1e-2 <= d["epsilon"] <= 8.0
    loaded = set(d["modules"])
    assert not {"dpcompare.gaussian", "dpcompare.mechanisms", "dpcompare.dpsgd.rdp_bound", "dpcompare.dpsgd.calibrate_risk",
                "scipy.optimize"} & loaded
