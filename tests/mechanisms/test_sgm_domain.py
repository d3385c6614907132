"""Regression tests for the subsampled Gaussian at the edges of its domain.

References are independent of the engine: the exact identity p = 1 ⇒ Gaussian(μ = √N/σ), whose
δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) (Balle & Wang 2018, Thm 8), and for one step (N = 1) the
exact profile of the remove pair P = N(0, 1), Q = (1 − p)N(0, 1) + pN(μ, 1) (μ = 1/σ):
δ_rem(ε) = Q(x > x_ε) − e^ε P(x > x_ε), x_ε = (log((e^ε − 1 + p)/p) + μ²/2)/μ, both evaluated with
mpmath at 50 digits. Every value in these tests was wrong (understated, inverted, an internal error or
∞) before the fix.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

from dpcompare.mechanisms.sgm import SubsampledGaussian

mp.mp.dps = 50


def gauss_delta(mu: float, eps: float) -> mp.mpf:
    """Exact δ(ε) of G_μ (Balle & Wang 2018, Thm 8), mpmath."""
    mu, eps = mp.mpf(mu), mp.mpf(eps)
    return mp.ncdf(-eps / mu + mu / 2) - mp.e**eps * mp.ncdf(-eps / mu - mu / 2)


def gauss_epsilon(mu: float, delta: float) -> float:
    """Exact ε(δ) of G_μ: the root of δ(ε) = delta (mpmath bisection on a certified bracket)."""
    lo, hi = mp.mpf(0), mp.mpf(1)
    while gauss_delta(mu, hi) > delta:
        hi *= 2
    for _ in range(200):
        mid = (lo + hi) / 2
        if gauss_delta(mu, mid) > delta:
            lo = mid
        else:
            hi = mid
    return float(hi)


def one_step_delta(sigma: float, p: float, eps: float) -> mp.mpf:
    """Exact symmetrised δ(ε), ε ≥ 0, of one subsampled-Gaussian step (remove direction dominates for
    ε ≥ −log(1 − p), where the add direction is 0 because ℓ ≥ log(1 − p))."""
    mu, p, eps = 1 / mp.mpf(sigma), mp.mpf(p), mp.mpf(eps)
    assert eps >= -mp.log(1 - p)
    x = (mp.log((mp.e**eps - (1 - p)) / p) + mu**2 / 2) / mu
    sf = lambda z: mp.ncdf(-z)  # noqa: E731
    return (1 - p) * sf(x) + p * sf(x - mu) - mp.e**eps * sf(x)


# ---------------------------------------------------------------------------------------------- p = 1
@pytest.mark.parametrize(
    "sigma, steps, delta",
    [(1.0, 2500, 1e-5), (1.0, 1, 1e-15), (1.0, 10**6, 1e-12), (3.0, 40, 1e-9)],
)
def test_p1_is_the_gaussian(sigma, steps, delta):
    """p = 1: exactly G_μ, μ = √N/σ (was 1462.2000 < 1462.2850 and 8.16557005 < 8.16557970)."""
    mu = math.sqrt(steps) / sigma
    eps = SubsampledGaussian(sigma, 1.0, steps).epsilon(delta)
    truth = gauss_epsilon(mu, delta)
    assert eps >= truth * (1 - 1e-12)
    assert eps <= truth * (1 + 1e-9)


def test_p1_profile_is_exact():
    m = SubsampledGaussian(1.0, 1.0, 1)
    for e in (0.0, 1.0, 9.0):
        lo, hi = m.delta_bounds(e)
        truth = float(gauss_delta(1.0, e))
        assert float(hi) >= truth * (1 - 1e-12)  # δ(9) was 8.76e-19 < 9.76e-19
        assert float(lo) <= truth * (1 + 1e-12)
        assert abs(float(hi) - truth) <= 1e-10 * truth


def test_p1_long_composition_bracket_in_range():
    lo, hi = SubsampledGaussian(1.0, 1.0, 10**6).delta_bounds(0.0)  # was (1.00000000000016, 0.99999999999999)
    assert 0.0 <= float(lo) <= float(hi) <= 1.0


# ---------------------------------------------------------------------------------------------- brackets contain the truth
@pytest.mark.parametrize("eps", [0.5, 1.0, 1.5])
def test_bracket_contains_truth_tiny_delta(eps):
    """(0.8, 0.001, 1): the bracket was inverted, (9.0506e-12, 8.9880e-12) around the exact 8.6685e-12."""
    lo, hi = SubsampledGaussian(0.8, 0.001, 1).delta_bounds(eps)
    truth = float(one_step_delta(0.8, 0.001, eps))
    assert float(lo) <= truth <= float(hi)


def test_far_tail_not_dropped():
    """(1, 0.01, 1).delta(5) was 0; the exact value is 4.4465e-23."""
    truth = float(one_step_delta(1.0, 0.01, 5.0))
    # the closed form against the definition δ(ε) = ∫ ((1−p)φ(z) + pφ(z−μ) − e^ε φ(z))₊ dz by mpmath
    # quadrature, split where the integrand's sign changes: (1−p) + p·e^{z−½} = e^ε (μ = 1)
    with mp.workdps(30):
        p, e5 = mp.mpf(0.01), mp.e ** 5
        hockey = lambda z: max(mp.mpf(0), (1 - p) * mp.npdf(z) + p * mp.npdf(z - 1) - e5 * mp.npdf(z))  # noqa: E731
        kink = mp.mpf(0.5) + mp.log((e5 - 1 + p) / p)
        by_quad = mp.quad(hockey, [-40, 0, kink, kink + 1, kink + 2, kink + 4, kink + 10, 40])
    assert truth == pytest.approx(float(by_quad), rel=1e-6)  # 4.4465e-23
    d = float(SubsampledGaussian(1.0, 0.01, 1).delta(5.0))
    assert truth <= d <= 1e3 * truth


def test_tiny_delta_gets_a_finite_certified_epsilon():
    """ε was ∞ for every δ below ~7e-13; now finite down to 1e-300 and never understated (N = 1: exact)."""
    m = SubsampledGaussian(1.0, 0.01, 1)
    prev = 0.0
    for delta in (1e-5, 1e-14, 1e-100, 1e-300):
        eps = m.epsilon(delta)
        assert math.isfinite(eps) and eps >= prev
        prev = eps
        assert one_step_delta(1.0, 0.01, eps) <= delta * (1 + 1e-9)


def test_tiny_delta_composed_is_finite_and_monotone():
    m = SubsampledGaussian(1.0, 0.01, 100)
    eps = [m.epsilon(d) for d in (1e-5, 1e-13, 1e-50, 1e-300)]
    assert all(math.isfinite(e) for e in eps)
    assert eps == sorted(eps)
    # certified: the reported δ at the reported ε is within the target
    for d, e in zip((1e-5, 1e-13, 1e-50, 1e-300), eps):
        assert float(m.delta(e)) <= d * (1 + 1e-12)


# ---------------------------------------------------------------------------------------------- no internal errors
def test_small_sigma_is_served():
    """σ ≤ 0.02 raised 'Q-mass 1.1699 > 1'. With μ = 100 a sampled step reveals the example, so
    δ(1) = 1 − (1 − p)^N up to terms below e^{−1000}."""
    lo, hi = SubsampledGaussian(0.01, 0.01, 10).delta_bounds(1.0)
    truth = 1.0 - 0.99**10
    assert float(lo) - 1e-12 <= truth <= float(hi) + 1e-12
    assert float(hi) - float(lo) < 1e-6


def test_tiny_sampling_rate_is_served():
    """SubsampledGaussian(2, 1e-12, 1e6).delta(1) raised 'P-mass … > 1'."""
    d = float(SubsampledGaussian(2.0, 1e-12, 10**6).delta(1.0))
    assert 0.0 < d <= 1e-10


def test_small_sigma_every_view_is_served():
    """sgm(σ = 0.01, p = 0.01, N = 100): f, AUC and describe raised 'Q-mass 1.1699 > 1' (the linear-space
    symmetrisation double-counted slope drops where R underflows, |λ| > 745).

    Reference: with μ = 100 a sampled step reveals the record (up to e^{−1000}), so the remove pair is
    P-mass 1 at ℓ = N·log(1 − p) with Q-mass c = (1 − p)^N there and Q-mass 1 − c at ℓ ≈ +∞: f(α) =
    c(1 − α). Its symmetrisation conv(min(f, f⁻¹)) is the chord f_sym(α) = max(c − α, 0), hence
    R(π) = c·min(π, 1 − π), fixed point c/2, AUC = 1 − c²/2."""
    c = 0.99**100
    m = SubsampledGaussian(0.01, 0.01, 100)
    alpha = np.array([1e-300, 1e-6, 0.1, 0.3, c - 1e-3, 0.5, 0.9])
    f = m.tradeoff_bounds(alpha)
    truth = np.maximum(c - alpha, 0.0)  # for α ≥ e^{−4000}; f(0) = 1 (no mass at ℓ = +∞)
    # the pessimistic pair moves the composition's tail mass to ℓ = +∞ (q₊∞ = 1.2e-10 here), so its f(0) is
    # 1 − q₊∞; the symmetrised pair keeps it (it used to report 1 − 3.5e-14 from a pair whose P-mass was
    # 1 + 1.2e-10: the branch with the larger A stayed active at λ → −∞)
    q_inf = m.composition.pessimistic.q_pos_inf
    assert 0.0 < q_inf < 1e-9
    # the lower end of f(0): never above the pessimistic pair's exact f(0) = 1 − q₊∞ (its tail mass sits at
    # ℓ = +∞; the generic read-out may sit lower by its rounding allowance), and within 1e-9 of the truth 1
    assert 1.0 - 1e-9 < float(m.tradeoff(0.0)) <= 1.0 - q_inf + 1e-15
    sym = m.pairs()[0]
    assert math.fsum(sym.p) + sym.p_neg_inf <= 1.0 + 1e-15 and math.fsum(sym.q) + sym.q_pos_inf <= 1.0 + 1e-15
    assert np.all(f.pessimistic <= truth + 1e-12) and np.all(f.optimistic >= truth - 1e-12)
    assert np.max(truth - f.pessimistic) < 1e-6
    pi = np.array([1e-12, 0.2, 0.5, 0.8, 1 - 1e-12])
    r = m.bayes_error_bounds(pi)
    r_true = c * np.minimum(pi, 1 - pi)
    assert np.all(r.pessimistic <= r_true * (1 + 1e-12)) and np.all(r.optimistic >= r_true * (1 - 1e-12))
    # tight up to the composition's own error bound η (the R bracket is widened by it)
    eta = m.numerical_error
    assert abs(m.fixed_point - c / 2) <= eta + 1e-9 and m.fixed_point <= c / 2 + 1e-12
    assert abs(m.auc - (1 - c * c / 2)) <= 2 * eta + 1e-6
    assert m.describe()["advantage"] == pytest.approx(1 - c, abs=1e-6)


def test_tiny_sampling_rate_every_view_is_served():
    """SubsampledGaussian(2, 1e-12, 1e6): f, the fixed point, AUC and describe raised 'P-mass
    1.00000000118 > 1'. Reference (a union bound): unless the record is sampled in some step (probability
    1 − (1 − p)^N ≤ N·p = 1e-6) the outputs have the same law, so TV ≤ 1e-6, R(½) ≥ (1 − 1e-6)/2 and
    f(α) ≥ 1 − α − 1e-6; and f ≤ 1 − α always."""
    m = SubsampledGaussian(2.0, 1e-12, 10**6)
    alpha = np.array([0.0, 1e-9, 0.01, 0.5, 0.99, 1.0])
    f = m.tradeoff_bounds(alpha)
    assert np.all(f.pessimistic <= f.optimistic)
    assert np.all(f.optimistic <= 1 - alpha + 1e-15) and np.all(f.pessimistic >= 1 - alpha - 1e-6)
    assert 0.5 - 0.5e-6 <= m.fixed_point <= 0.5
    assert 0.5 <= m.auc <= 0.5 + 1e-6
    assert 0.0 <= m.describe()["advantage"] <= 1e-6


def test_near_identity_pair_symmetrises_with_its_mass_balance():
    """Found by the deep harness profile: SubsampledGaussian(1000, 1e-12, 617) raised 'P-mass 1.0186 > 1'.
    Its losses are ~1e-13, so R and its mirror image are tied to rounding while the two sides' masses
    differ by 2 %; left of π = ½ the branch with the larger slope is the lower one. Reference (a union
    bound): unless the record is sampled in some step (probability ≤ N·p = 6.17e-10) the outputs have
    the same law, so the fixed point is within 3.1e-10 of ½ and AUC within 6.2e-10 of ½."""
    m = SubsampledGaussian(1000.0, 1e-12, 617)
    pess, opt = m.pairs()
    assert pess.is_symmetric and opt.is_symmetric
    assert float(np.exp(np.logaddexp.reduce(pess.log_p))) + pess.p_neg_inf <= 1 + 1e-12
    assert 0.5 - 3.1e-10 - m.numerical_error <= m.fixed_point <= 0.5
    assert 0.5 <= m.auc <= 0.5 + 6.2e-10 + 2 * m.numerical_error
    assert 0.0 <= m.describe()["advantage"] <= 6.2e-10 + m.numerical_error


def test_huge_sigma_is_served():
    """sgm(sigma=1e300, p=0.01, steps=100) raised ZeroDivisionError; its TV is ≤ that of G_μ, μ = 1e-299."""
    m = SubsampledGaussian(1e300, 0.01, 100)
    lo, hi = m.delta_bounds(0.0)
    assert 0.0 <= float(lo) <= float(hi) <= 1e-298
    assert m.epsilon(1e-5) == 0.0
    assert m.describe()["advantage"] <= 1e-298


def test_too_many_steps_refused_before_work():
    with pytest.raises(ValueError, match=r"limit.*sampling_rate=1"):
        SubsampledGaussian(1.0, 0.01, 1e20).delta(1.0)
    # p = 1 is a closed form at any number of steps


@pytest.mark.parametrize("steps", [1e14, 1e20])
def test_p1_huge_mu_never_understated(steps):
    """μ = √N/σ ≥ 1e7: the Gaussian closed form loses ε/μ − μ/2 to cancellation (ε(1e-5) came out as
    3.9e-11 at μ = 1e10, truth ≈ 5e19); the certified bound is used instead. Reference: mpmath, 80 digits."""
    m = SubsampledGaussian(1.0, 1.0, steps)
    eps = m.epsilon(1e-5)
    with mp.workdps(80):
        mu, e = mp.sqrt(mp.mpf(steps)), mp.mpf(eps)
        d = mp.ncdf(-e / mu + mu / 2) - mp.e**e * mp.ncdf(-e / mu - mu / 2)
        assert d <= mp.mpf(1e-5)
        assert eps <= float(mu**2 / 2 + mu * 4.3)  # ε ≈ μ²/2 + μ·Φ⁻¹(1 − 1e-5), Φ⁻¹(1 − 1e-5) = 4.26
        lo, hi = m.delta_bounds(eps)
        assert float(lo) <= float(d) <= float(hi)


def test_advantage_and_tpr_in_range():
    assert SubsampledGaussian(0.3, 0.2, 1000).advantage <= 1.0  # was 1.0000000000000016 for long runs
    t = SubsampledGaussian(2.0, 1e-4, 1).tpr(np.array([0.0, 1e-9, 0.5]))
    assert np.all(t >= 0.0) and np.all(t <= 1.0)  # tpr(0) was −2.2e-12


# ---------------------------------------------------------------------------------------------- tolerance
def test_tolerance_chooses_the_grid_and_reports_back():
    """The grid follows the accuracy asked for; the certified width achieved is reported back and is
    within 2× the tolerance (pessimistic and optimistic excess each ≈ the tolerance or less)."""
    coarse = SubsampledGaussian(2.0, 0.2, 50, tolerance=1e-6)
    fine = SubsampledGaussian(2.0, 0.2, 50, tolerance=1e-7)
    for m, tol in ((coarse, 1e-6), (fine, 1e-7)):
        assert m.accuracy(np.array([0.5, 1.0, 2.0])) <= 2 * tol
    assert fine.composition.discretization < coarse.composition.discretization
    lo_c, hi_c = coarse.delta_bounds(1.0)
    lo_f, hi_f = fine.delta_bounds(1.0)
    assert lo_c <= hi_f and lo_f <= hi_c  # both contain the truth, so they overlap


def test_tolerance_validation():
    with pytest.raises(ValueError, match="tolerance"):
        SubsampledGaussian(2.0, 0.2, 50, tolerance=0.0)
    with pytest.raises(ValueError, match="tolerance or discretization"):
        SubsampledGaussian(2.0, 0.2, 50, tolerance=1e-6, discretization=1e-3)


def test_huge_noise_free_steps_at_a_tiny_rate_are_served():
    """SubsampledGaussian(0.001, 1e-9, 223) (deep harness): f raised "masses at ±∞ plus the finite atoms
    exceed 1". μ = 1000 per step, so a sampled step reveals the record: the remove pair is about P-mass 1 at
    ℓ ≈ N·log(1 − p) and Q-mass 1 − (1 − p)^N ≈ N·p at +∞. Reference: δ(ε) ≈ TV ≈ 1 − (1 − p)^N for
    small ε, f ≥ 1 − α − TV, and every view answers."""
    p, n = 1e-9, 223
    tv = -math.expm1(n * math.log1p(-p))  # 2.23e-7
    m = SubsampledGaussian(0.001, p, n)
    alpha = np.array([0.0, 1e-9, 0.1, 0.5, 1.0])
    f = m.tradeoff(alpha)
    # the pessimistic f is rounded down by its sums' a-priori error (γₙ·Σ, n = 24 555 atoms: ≤ 3e-12 here;
    # DiscretePair.tradeoff_bounds), so it may sit that far below the reference
    assert np.all(f >= 1 - alpha - tv * (1 + 1e-6) - 1e-11) and np.all(f <= 1 - alpha)
    eta = m.numerical_error  # 2e-5 at this grid: the brackets below are certified, not tight
    assert tv * (1 - 1e-9) <= m.advantage <= tv + eta
    r = m.bayes_error(np.array([0.5]))[0]
    assert (1 - tv) / 2 - eta - 1e-12 <= r <= 0.5  # the R bracket is widened by η
    sym = m.pairs()[0]
    assert math.fsum(sym.p) + sym.p_neg_inf <= 1.0 + 1e-15 and math.fsum(sym.q) + sym.q_pos_inf <= 1.0 + 1e-15
    assert 0.5 <= m.auc <= 0.5 + tv + eta and 0.5 - tv - eta <= m.fixed_point <= 0.5
