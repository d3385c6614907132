"""comparison/delta_accuracy.py ``intersect``: the brackets of several grids are intersected, and two that do
not overlap (which would mean one of them is wrong) raise an internal consistency error naming both."""

from __future__ import annotations

import dataclasses

import pytest

from dpcompare.comparison import delta_accuracy as da
from dpcompare.comparison.delta import DeltaResult
from dpcompare.mechanisms.sgm import SubsampledGaussian


def test_overlapping_brackets_intersect_and_the_estimate_is_clamped_into_them():
    r = da.intersect(DeltaResult(0.2, 0.1, 0.3, 0.5), DeltaResult(0.35, 0.2, 0.4, 0.4))
    assert (r.lower, r.value, r.upper, r.pi) == (0.2, 0.3, 0.3, 0.4)


def test_disjoint_brackets_raise_a_runtime_error_naming_both():
    with pytest.raises(da.BracketsDisagree, match=r"\[0\.1, 0\.2\].*\[0\.25, 0\.4\]") as info:
        da.intersect(DeltaResult(0.15, 0.1, 0.2, 0.5), DeltaResult(0.3, 0.25, 0.4, 0.5), "Δ(A‖B)")
    assert isinstance(info.value, RuntimeError) and not isinstance(info.value, ValueError)  # not the caller's input
    assert "Δ(A‖B)" in str(info.value)


def test_a_finer_grid_whose_bracket_misses_the_coarser_ones_raises(monkeypatch):
    """A wrong bracket forced on the second grid (its Δ(A‖B) moved above the probe's): before, this returned
    an inverted bracket (or a ValueError from its constructor, read as bad input); now a RuntimeError."""
    calls = []
    real = da.delta_pairs

    def wrong_on_second_grid(pa, pb):
        ab, ba = real(pa, pb)
        calls.append(ab)
        if len(calls) == 2:
            shift = calls[0].upper - ab.lower + 0.1
            ab = dataclasses.replace(ab, value=ab.value + shift, lower=ab.lower + shift, upper=ab.upper + shift)
        return ab, ba

    monkeypatch.setattr(da, "delta_pairs", wrong_on_second_grid)
    with pytest.raises(RuntimeError, match="do not overlap"):
        da.delta_accuracy(SubsampledGaussian(1.0, 0.1, 10), SubsampledGaussian(1.0, 0.2, 10), accuracy=1e-9)
    assert len(calls) == 2
