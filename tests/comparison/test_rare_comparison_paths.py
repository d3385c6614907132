"""Rarely reached comparison paths: the width of a Δ result is its certified bracket."""

from __future__ import annotations

import pytest

import dpcompare as dc


def test_delta_result_width_is_its_bracket():
    d = dc.delta_divergence(dc.Gaussian(mu=1.0), dc.Laplace(b=1.0))
    assert d.width == d.upper - d.lower and 0 <= d.width <= 1e-9
    assert dc.DeltaResult(0.03, 0.029, 0.031, 0.27).width == pytest.approx(0.002, abs=1e-15)
