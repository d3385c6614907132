"""The hyper-prior weighted Δ^Ψ(A‖B) = max_π Ψ(π)·(R_A(π) − R_B(π)) ([BCP] §5) on grids chosen from the accuracy
asked (``comparison/delta_accuracy.py``, ``hyperprior=``): the bracket meets the width asked and contains the
bracket of the same certified sweep on grids 8× finer than the default; closed forms are untouched.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy import special

import dpcompare as dc
from dpcompare.comparison.delta import DeltaResult
from dpcompare.comparison.delta_accuracy import _grid_bound, delta_accuracy
from dpcompare.comparison.hyperprior import DensityPrior
from dpcompare.comparison.prior_sweep import FoldedWeight
from dpcompare.composition.sgm_grid import default_discretization
from dpcompare.io import cli
from dpcompare.mechanisms.sgm import SubsampledGaussian

# Δ^Ψ(A‖B) ≈ 0.16030 at π = ½ with Ψ = Beta(2, 2) (the default grids' bracket is 1.2e-5 wide); Δ^Ψ(B‖A) = 0
A, B = (1.0, 0.1, 50), (1.5, 0.3, 50)
PSI = dc.BetaPrior(2.0, 2.0)


def _at(params, divisor: float) -> SubsampledGaussian:
    return SubsampledGaussian(*params, discretization=default_discretization(*params) / divisor)


@pytest.fixture(scope="module")
def default():
    """Δ^Ψ both ways on the mechanisms' default grids (given explicitly: the sweep, as before)."""
    return dc.delta_divergences(_at(A, 1), _at(B, 1), PSI)


@pytest.fixture(scope="module")
def asked(default):
    """An accuracy 10× below the default grids' width: only a finer grid meets it."""
    return default[0].width / 10


@pytest.fixture(scope="module")
def chosen(asked):
    return delta_accuracy(SubsampledGaussian(*A), SubsampledGaussian(*B), hyperprior=PSI, accuracy=asked)


def test_the_width_asked_is_met_on_finer_grids(chosen, asked, default):
    assert default[0].width > 1e-6  # the default grids do not meet it
    assert chosen.met and chosen.target == (asked, asked)
    assert chosen.ab.width <= asked and chosen.ba.width <= asked
    assert all(f is not None and f < 1.0 for f in chosen.factors)  # finer than the default
    assert chosen.attempts >= 2


def test_the_bracket_contains_the_bracket_of_grids_8_times_finer(chosen):
    """The same certified sweep on grids 8× finer than the default (finer than the grids chosen, ~¼ of the
    default): its bracket (≈ 2e-7 wide) lies inside ours up to its own width (both contain Δ^Ψ)."""
    fine = dc.delta_divergences(_at(A, 8), _at(B, 8), PSI)
    assert all(f > 1.0 / 8 for f in chosen.factors)
    for ours, ref in zip((chosen.ab, chosen.ba), fine):
        assert ref.width < 1e-6
        assert ours.lower <= ref.upper and ref.lower <= ours.upper  # both certified: they must overlap
    # Δ^Ψ(A‖B) > 0: the finer bracket's midpoint lies in ours (Δ^Ψ(B‖A) = 0 lies in both: its finer bracket,
    # [0, 2.3e-10], is wider than ours, [0, 4.5e-11] — η grows with the number of atoms)
    assert chosen.ab.lower <= 0.5 * (fine[0].lower + fine[0].upper) <= chosen.ab.upper
    assert chosen.ba.lower == fine[1].lower == 0.0


def test_the_coarser_brackets_are_intersected_not_discarded(chosen, default):
    # every bracket computed is certified: the result lies within the default grids' one (1e-12: the rounding)
    for ours, d in zip((chosen.ab, chosen.ba), default):
        assert d.lower - 1e-12 <= ours.lower <= ours.upper <= d.upper + 1e-12


def test_delta_divergence_and_compare_answer_with_the_chosen_grids(chosen, asked):
    a, b = SubsampledGaussian(*A), SubsampledGaussian(*B)
    ab, ba = dc.delta_divergences(a, b, PSI, accuracy=asked)
    assert (ab, ba) == (chosen.ab, chosen.ba)
    c = dc.compare(a, b, hyperprior=PSI, accuracy=asked)
    w = c.weighted
    assert w.delta_ab.width <= asked and w.delta_ba.width <= asked
    assert w.delta_ab.lower <= chosen.ab.upper and chosen.ab.lower <= w.delta_ab.upper
    # the unweighted Δ and the regrets are read on the same (finer) grids: certified, overlapping the default's
    plain = dc.delta_divergences(a, b)
    for ours, ref in ((c.delta_ab, plain[0]), (c.delta_ba, plain[1])):
        assert ours.lower <= ref.upper and ref.lower <= ours.upper
    assert 0.0 <= w.regret_ab.lower <= w.regret_ab.upper and w.regret_ba.lower >= 0.0
    assert c.verdict == "b>=a"


def test_closed_forms_ignore_the_accuracy_as_documented():
    """Gaussian vs Laplace: no grid to choose, so ``accuracy`` changes nothing (the sweep to ``tol``)."""
    g, lap = dc.Gaussian(mu=1.0), dc.Laplace(b=1.0)
    assert dc.delta_divergences(g, lap, dc.JEFFREYS, accuracy=1e-3) == dc.delta_divergences(g, lap, dc.JEFFREYS)
    w, w0 = (dc.compare(g, lap, hyperprior=PSI, accuracy=acc).weighted for acc in (1e-3, None))
    assert (w.delta_ab, w.delta_ba, w.regret_ab, w.regret_ba) == (w0.delta_ab, w0.delta_ba, w0.regret_ab, w0.regret_ba)
    # the documented value: the brute-force max over 2·10⁵ priors of Ψ(π)·(R_A − R_B) from the closed forms
    pi = np.linspace(1e-6, 1 - 1e-6, 200_001)
    psi = PSI.density(pi)
    for ours, diff in ((w.delta_ab, _r_gauss(pi, 1.0) - _r_laplace(pi)), (w.delta_ba, _r_laplace(pi) - _r_gauss(pi, 1.0))):
        brute = float(np.max(psi * diff))
        assert ours.lower - 1e-6 <= brute <= ours.upper + 1e-12  # a grid max is ≤ the max (1e-6: the grid's reach)


def _r_gauss(pi: np.ndarray, mu: float) -> np.ndarray:
    """Bayes error of N(0, 1) vs N(μ, 1) at prior π: π·Φ(−c) + (1 − π)·Φ(c − μ), c = μ/2 + ln(π/(1 − π))/μ
    (the likelihood-ratio test)."""
    c = mu / 2 + np.log(pi / (1 - pi)) / mu
    return pi * special.ndtr(-c) + (1 - pi) * special.ndtr(c - mu)


def _r_laplace(pi: np.ndarray) -> np.ndarray:
    """Bayes error ∫ min(π·p, (1 − π)·q) of Lap(0, 1) vs Lap(1, 1), integrated piecewise in closed form: x ≤ 0 and
    x ≥ 1 (constant ratio q/p = e^∓1) and (0, 1) split at the crossing x* = (ln(π/(1 − π)) + 1)/2."""
    e = math.e
    xs = np.clip((np.log(pi / (1 - pi)) + 1) / 2, 0.0, 1.0)
    left = 0.5 * np.minimum(pi, (1 - pi) / e)
    right = 0.5 / e * np.minimum(pi, (1 - pi) * e)
    mid = 0.5 * (1 - pi) * (np.exp(xs - 1) - 1 / e) + 0.5 * pi * (np.exp(-xs) - 1 / e)
    return left + mid + right


def test_a_width_the_grids_do_not_set_is_not_refined():
    # Δ^Ψ ≈ 0 (no maximiser in (0, 1)) and a bracket far wider than the weighted node widths: reported as is
    m = (_at(A, 1), _at(B, 1))
    w = FoldedWeight(dc.JEFFREYS)
    assert not _grid_bound(m, w, DeltaResult(0.0, 0.0, 1e-6, 0.0), 1e-10)
    assert not _grid_bound(m, w, DeltaResult(0.1, 0.09, 0.11, 0.5), 1e-10)
    assert _grid_bound(m, w, DeltaResult(0.1, 0.1, 0.1 + 1e-6, 0.5), 1e-10)


def test_cli_compare_with_hyperprior_and_accuracy(capsys):
    """``compare --hyperprior … --accuracy W`` (refused before): the weighted brackets are at most W wide."""
    a, b = "sgm(sigma=1, p=0.1, steps=50)", "sgm(sigma=1.5, p=0.3, steps=50)"
    code = cli.main(["compare", a, b, "--hyperprior", "beta(2,2)", "--accuracy", "1e-6", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    d = json.loads(out)["weighted"]
    for k in ("delta_ab", "delta_ba"):
        assert d[k]["upper"] - d[k]["lower"] <= 1e-6
    assert d["delta_ab"]["lower"] == pytest.approx(0.16030, abs=1e-5)


def test_an_uncertified_density_keeps_the_newest_bracket_and_says_so():
    """A density callable (``DensityPrior``: its extremes are sampled, not certified) gives uncertified brackets:
    they are not intersected (two uncertified brackets may be disjoint) and the result says ``certified=False``."""
    psi = DensityPrior(lambda x: 6.0 * x * (1.0 - x))  # Beta(2, 2) as a callable
    r = delta_accuracy(SubsampledGaussian(*A), SubsampledGaussian(*B), hyperprior=psi, accuracy=1e-6)
    assert r.attempts >= 2 and r.ab.certified is False
    assert r.ab.width <= 1e-6 and r.ab.lower == pytest.approx(0.16030, abs=1e-5)
    assert dc.delta_divergences(*r.mechanisms, psi)[0] == r.ab  # the last grids' bracket as is
