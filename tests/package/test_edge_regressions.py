"""Regression tests for the calls an independent audit found failing at the edges of the domain.

Each call used to raise an internal error (OverflowError, ZeroDivisionError, "math domain error"),
return NaN, or return ∞ where a finite answer is known. Every reference here is independent of the
code under test: mpmath at 50 digits, a closed form, or an identity (additivity, post-processing).
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

import dpcompare as dc
from dpcompare import gaussian, mixtures
from dpcompare.mechanisms.composed import Composed
from dpcompare.mixtures import KL, TV, l_f_bounds, renyi_bounds

mp.mp.dps = 50


def _gauss_delta(mu, eps):
    """δ(ε) of G_μ (Balle & Wang 2018, Thm 8) in mpmath."""
    mu, eps = mp.mpf(mu), mp.mpf(eps)
    return mp.ncdf(-eps / mu + mu / 2) - mp.exp(eps) * mp.ncdf(-eps / mu - mu / 2)


# ---------------------------------------------------------------------------------------------- shuffling
def test_shuffle_eps0_beyond_double_is_refused_naming_eps0():
    with pytest.raises(ValueError, match="eps0 must be <= 700"):
        dc.parse("shuffle(eps0=1e300, n=1000)").delta(703.93)
    with pytest.raises(ValueError, match="eps0"):
        dc.parse("shuffle_pair(eps0=800, n=1000)")


@pytest.mark.parametrize("spec", ["shuffle", "shuffle_pair"])
def test_shuffle_at_eps0_700_is_the_randomiser(spec):
    # clone probability e^{−700}: the shuffled output is RR(ε₀) to within ~1e-300;
    # RR(ε₀): δ(ε) = (e^{ε₀} − e^{ε})/(1 + e^{ε₀}) (closed form, mpmath)
    m = dc.parse(f"{spec}(eps0=700, n=1000)")
    truth = (mp.exp(700) - mp.exp(699)) / (1 + mp.exp(700))
    assert abs(float(m.delta(699.0)) - float(truth)) < 1e-12
    assert float(m.delta(703.93)) == 0.0  # beyond ε₀ every ε₀-DP mechanism has δ = 0


def test_fmt_tiny_eps0_no_division_by_zero_and_not_understated():
    # ε₀ = 1e-300: the output is ε₀-DP (post-processing), so ε(δ) ∈ [0, ε₀]
    assert 0.0 <= mixtures.fmt_epsilon(1e-6, eps0=1e-300, n=10) <= 1e-300
    # δ(0) is linear in ε₀ as ε₀ → 0; 1 − 2w rounded to 0 below ε₀ ≈ 1e-16 and gave δ = 0 (understated)
    small, ref = mixtures.fmt_delta(0.0, eps0=1e-17, n=10), mixtures.fmt_delta(0.0, eps0=1e-10, n=10)
    assert small > 0 and small / 1e-17 == pytest.approx(ref / 1e-10, rel=1e-6)
    assert small <= math.tanh(0.5e-17) * (1 + 1e-12)  # ε₀-DP: δ(0) ≤ TV of RR(ε₀) = tanh(ε₀/2)


def test_fmt_eps0_near_limit_no_overflow():
    # RR(700) at ε = 699: 1 − e^{−1} to ~1e-300 (closed form)
    assert mixtures.fmt_delta(699.0, eps0=700.0, n=1000) == pytest.approx(1 - math.exp(-1), rel=1e-12)


# ---------------------------------------------------------------------------------------------- composition
def test_composed_huge_steps_refused_naming_steps():
    with pytest.raises(ValueError, match=r"steps=1000000000000.*GB"):
        Composed(dc.ApproxDP(eps=0.5, delta=1e-4), steps=10**12).delta(1.0)


def test_composed_laplace_pure_dp_bound_hoeffding():
    # 10⁷ Laplace(b=1) steps: ε(1e-5) ≤ N·κ + m·√(2N log(1/δ)), κ = m − 1 + e^{−m} (mpmath), and ≤ N·m;
    # the CLT value N·κ + s√N·Φ⁻¹(1 − δ) lies below it by < 0.5 %
    n, m, d = 10**7, 1.0, 1e-5
    c = Composed(dc.Laplace(b=1), steps=n)
    kappa = m - 1 + mp.exp(-m)
    hoeffding = float(n * kappa + m * mp.sqrt(2 * n * mp.log(1 / mp.mpf(d))))
    got = c.pure_dp_epsilon(d)
    assert hoeffding <= got <= hoeffding * (1 + 1e-11) and got < n * m
    s = 0.8107946  # laplace_loss_std(1), from its closed form (tests/composition/test_closed_form.py checks it)
    clt = float(n * kappa) + s * math.sqrt(n) * float(-mp.sqrt(2) * mp.erfinv(2 * mp.mpf(d) - 1))
    assert clt < got < clt * 1.005


def test_composed_laplace_epsilon_is_capped_by_the_pure_dp_bound():
    c = Composed(dc.Laplace(b=1), steps=2000)
    assert c.epsilon(1e-30) <= c.pure_dp_epsilon(1e-30)
    assert math.isfinite(c.epsilon(1e-300))


def test_composed_gaussian_far_delta_is_the_closed_form():
    # G_μ^⊗1 = G_μ; at δ = 5e-324 the grid's truncated tail gave ∞ (the closed form gives 19.30)
    eps = Composed(dc.Gaussian(mu=0.5), steps=1).epsilon(5e-324)
    assert math.isfinite(eps)
    assert _gauss_delta(0.5, eps) <= mp.mpf(5e-324)
    # tight: δ is rounded up and never below 5e-324 at a finite ε, so ε(5e-324) is where δ drops below half
    # of it; G_0.5 reaches 5e-324 at 19.302 (mpmath), the answer lies within 0.1 % of that
    assert eps <= 19.302060535217382 * 1.001
    eps4 = Composed(dc.Gaussian(mu=0.5), steps=4).epsilon(1e-12)  # G_{0.5}^⊗4 = G_1
    assert _gauss_delta(1.0, eps4) <= mp.mpf(1e-12) < _gauss_delta(1.0, eps4 * (1 - 1e-9))


# ---------------------------------------------------------------------------------------------- Gaussian
def test_sigma_for_tiny_sensitivity_is_certified():
    s = gaussian.sigma_for(1.67e-7, 0.189, sensitivity=1e-300)
    psi = mp.mpf(1e-300) / mp.mpf(s)
    assert _gauss_delta(psi, 1.67e-7) <= mp.mpf(0.189)
    # σ scales with the sensitivity (σ* = Δ/ψ*)
    assert s == pytest.approx(1e-300 * gaussian.sigma_for(1.67e-7, 0.189), rel=1e-12)


def test_gaussian_subnormal_mu_epsilon():
    # δ(0) = 2Φ(μ/2) − 1 ≈ 2e-324 ≤ 0.354, so ε = 0
    assert dc.Gaussian(mu=5e-324).epsilon(0.354) == 0.0
    assert dc.Gaussian(mu=1e-310).epsilon(0.354) == 0.0


# ---------------------------------------------------------------------------------------------- F-divergences
def test_renyi_of_approx_dp_is_infinite_not_nan():
    # P has mass δ where Q has none: R_a(P‖Q) = ∞ for a > 1
    assert renyi_bounds(dc.ApproxDP(eps=745, delta=1e-3), 2.0) == (math.inf, math.inf)


def test_tv_of_rr_800():
    lo, hi = l_f_bounds(dc.RandomizedResponse(eps=800), TV)
    truth = float(mp.tanh(400))  # TV of RR(ε) = (e^ε − 1)/(e^ε + 1)
    # the width is the rounding bound of the sum and of the masses e^{log m} themselves (a few u of each mass)
    assert lo <= truth <= hi and hi - lo < 1e-14


def test_kl_of_composed_gaussian_is_additive():
    lo, hi = l_f_bounds(Composed(dc.Gaussian(mu=0.5), steps=10**6), KL)
    assert lo <= 10**6 * 0.5**2 / 2 <= hi and hi - lo < 1e-8 * hi  # KL(G_μ) = μ²/2, additive


def test_kl_of_composed_laplace_is_additive():
    lo, hi = l_f_bounds(Composed(dc.Laplace(b=1), steps=10), KL)
    truth = float(10 * (1 - 1 + mp.exp(-1)))  # N·(m − 1 + e^{−m}) at m = 1
    assert lo <= truth <= hi


def test_tv_of_sgm_with_tiny_sigma():
    p, n = 0.9738, 10
    lo, hi = l_f_bounds(dc.SubsampledGaussian(0.001, p, n), TV)
    # σ = 0.001: the two Gaussians are 1000σ apart, TV = 1 − (1 − p)^N up to e^{−10⁵}
    truth = 1 - (1 - p) ** n
    assert not (math.isnan(lo) or math.isnan(hi))
    assert lo <= truth + 1e-12 and hi >= truth - 1e-15 and hi <= 1.0


# ---------------------------------------------------------------------------------------------- random init
@pytest.mark.parametrize("sigma", [1.77e-05, 2.0187602546790388e-05, 7.017e-4])
def test_random_init_tiny_sigma_builds_its_pairs(sigma):
    # was "Q-mass 1.00000000872 > 1" (losses ~1e9: their ulp moved the Q-masses) or "C(f) needs x̄ ≤ f(x̄)"
    from dpcompare.mixtures import Loss, RandomInit, Sensitivity

    m = RandomInit(Sensitivity(Loss.CLIPPED_LEAST_SQUARES, a=-0.0, clip=1.0, bound=1.0, sigma=sigma))
    f = m.tradeoff_bounds(0.25)
    assert 0.0 <= f.pessimistic <= f.optimistic <= 0.75
    d = m.delta_bounds(1.0)
    assert 0.0 <= d.optimistic <= d.pessimistic <= 1.0
    # every component is G_μ with μ ≤ clip/σ: the mixture is at least as private (joint concavity), so the
    # optimistic δ can only be below the closed form of G_{clip/σ} (Balle & Wang, mpmath)
    assert d.optimistic <= float(_gauss_delta(1.0 / sigma, 1.0)) + 1e-12


# ---------------------------------------------------------------------------------------------- resource limits
@pytest.mark.parametrize("call, name", [
    (lambda: dc.approximate_dominance(dc.Gaussian(mu=1), dc.Laplace(b=1), 0.1, grid=10**10), "grid"),
    (lambda: dc.TradeoffOracle(lambda a: 1.0 - a, points=10**9), "points"),
    (lambda: dc.levy_distance(dc.Gaussian(mu=1), dc.Laplace(b=1), max_points=10**9, tol=1e-15), "max_points"),
    (lambda: mixtures.RandomInit(mixtures.Sensitivity(mixtures.Loss.CLIPPED_LEAST_SQUARES, a=0.5, clip=1.0), bins=10**9),
     "bins"),
])
def test_sizes_beyond_memory_are_refused_up_front(call, name):
    with pytest.raises(ValueError, match=rf"^{name}=1000000000+ needs an estimated .* GiB.*at most {name}=\d+ fits"):
        call()


# ---------------------------------------------------------------------------------------------- calibration
def test_calibrated_sigma_meets_its_target_in_the_public_view():
    # calibrating (ε, δ) = (8, 1e-12) at p = 0.5, N = 2: the calibration certifies ε ≤ 8 on its own grid, and
    # the mechanism's default view used to certify 8.074 > 8 (its FFT error bound η ≈ 8.5e-13 dominates δ − η);
    # the far-tail view now also consults coarser grids (each certified), so it meets the target too
    from dpcompare.dpsgd.calibrate_sigma import sigma_for_epsilon

    c = sigma_for_epsilon(8.0, 1e-12, 0.5, 2)
    assert 8.0 - 1e-3 <= c.epsilon <= 8.0
    assert dc.SubsampledGaussian(c.sigma, 0.5, 2).epsilon(1e-12) <= 8.0


def test_fmt_epsilon_tiny_delta_is_at_most_eps0():
    # found by tests/package/test_api_fuzz.py: ε(5e-324) was ∞, but the shuffled output is ε₀-DP (post-processing),
    # so ε(δ) ≤ ε₀ at every δ > 0 and δ(ε₀) = 0
    assert mixtures.fmt_epsilon(5e-324, eps0=0.13011508457038942, n=1000) <= 0.13011508457038942
    assert mixtures.fmt_delta(2.0, eps0=2.0, n=1000) == 0.0


# ---------------------------------------------------------------------------------------------- directed rounding
def test_approxdp_delta_at_the_audit_point_is_not_understated():
    e0, d0, e = mp.mpf(0.0020406602401787525), mp.mpf(3.78e-97), mp.mpf(0.0019387994237304639)
    truth = d0 + (1 - d0) * (mp.exp(e0) - mp.exp(e)) / (1 + mp.exp(e0))  # Kairouz et al. 2015; mpmath
    got = dc.ApproxDP(eps=0.0020406602401787525, delta=3.78e-97).delta(0.0019387994237304639)
    assert truth <= mp.mpf(float(got)) <= truth * (1 + mp.mpf(1e-13))  # was 6e-17 (1.2e-12 relative) below


def test_small_pair_delta_never_below_mpmath():
    # (ε, δ)-DP, ε-DP and randomized response over their domains, ε near ε₀ included (where the tail-sum form
    # cancelled): δ(ε) = δ₀ + (1 − δ₀)(e^{ε₀} − e^{ε})/(1 + e^{ε₀}) for ε < ε₀, 0 beyond (mpmath, 50 digits)
    rng = np.random.default_rng(7)
    worst = 0.0
    for _ in range(1500):
        e0 = float(10 ** rng.uniform(-6, 2.8))
        d0 = float(rng.choice([0.0, 10 ** rng.uniform(-300, -0.5)]))
        e = float(e0 * rng.choice([rng.uniform(0, 1), 1 - 10 ** rng.uniform(-12, -1)]))
        m = dc.ApproxDP(eps=e0, delta=d0) if d0 > 0 else dc.PureDP(eps=e0)
        E0, D0, E = mp.mpf(e0), mp.mpf(d0), mp.mpf(e)
        truth = D0 + (1 - D0) * (mp.exp(E0) - mp.exp(E)) / (1 + mp.exp(E0)) if e < e0 else D0
        got = mp.mpf(float(m.delta(e)))
        assert got >= truth, (e0, d0, e, float(got), float(truth))
        if truth > 0:
            worst = max(worst, float((got - truth) / truth))
    assert worst < 1e-12  # and tight: the outward rounding is a few ulp, not a margin


def test_laplace_delta_never_below_mpmath():
    # δ(ε) = 1 − e^{(ε−m)/2} on [−m, m), 1 − e^ε below −m, 0 from m on (Laplace closed form; mpmath at the
    # exact m = 1/b): the plain float was below it in 15 % of such draws (≤ 7.8e-16 relative)
    rng = np.random.default_rng(1)
    worst = 0.0
    for _ in range(1000):
        b = float(10 ** rng.uniform(-2.9, 3))
        m = dc.Laplace(b=b)
        big_m = 1 / mp.mpf(b)
        e = float(float(m.m) * rng.choice([rng.uniform(-1.2, 1), 1 - 10 ** rng.uniform(-15, -1)]))
        big_e = mp.mpf(e)
        def exact(mm):
            return 0 if big_e >= mm else (1 - mp.exp(big_e) if big_e < -mm else 1 - mp.exp((big_e - mm) / 2))

        got = mp.mpf(float(m.delta(e)))
        assert got >= exact(big_m), (b, e)  # never below the truth at m = 1/b exactly
        stored = exact(mp.mpf(float(m.m)))  # m = Δ/b is rounded up (safe); tight against that m
        if stored > 0:
            worst = max(worst, float((got - stored) / stored))
    assert worst < 1e-12


# ---------------------------------------------------------------------------------------------- found by the deep fuzz
def test_sgm_subnormal_sampling_rate_is_a_clean_error():
    with pytest.raises(ValueError, match=r"sampling_rate=4.94066e-324"):  # was ZeroDivisionError in grid_range
        dc.SubsampledGaussian(2.9372865627615745, 5e-324, 8).delta(1.0)


def test_composed_gaussian_tiny_mu_is_a_clean_error_naming_the_closed_form():
    with pytest.raises(ValueError, match=r"closed form is exact: gaussian\(mu="):  # was "math domain error"
        Composed(dc.Gaussian(mu=1e-12), steps=724)


def test_random_init_kink_beyond_the_pessimistic_zero_uses_def_f1():
    # σ = 0.0017: the pessimistic curve reaches 0 before its kink (x̄ = 6.5e-53 > f(x̄) = 0); eq 3 refused it,
    # Def F.1 takes max{f, f⁻¹} (an f-DP mechanism is Symm(f)-DP)
    from dpcompare.mixtures import Loss, RandomInit, Sensitivity

    m = RandomInit(Sensitivity(Loss.CLIPPED_LEAST_SQUARES, a=-0.0, clip=1.0, sigma=0.0017012542798525892))
    f = m.tradeoff_bounds(0.01)
    assert 0.0 <= f.pessimistic <= f.optimistic <= 0.99
    d = m.delta_bounds(1.0)
    assert d.optimistic <= d.pessimistic <= 1.0


def test_gaussian_delta_never_below_mpmath():
    # Balle & Wang 2018 Thm 8 in mpmath; the plain float was below it in 38 % of such draws (≤ 2.4e-13 relative)
    rng = np.random.default_rng(3)
    for _ in range(300):
        mu = float(10 ** rng.uniform(-3, 2.5))
        e = float(10 ** rng.uniform(-4, np.log10(mu * mu / 2 + 40 * mu)))
        truth = _gauss_delta(mu, e)
        got = mp.mpf(float(dc.Gaussian(mu=mu).delta(e)))
        assert got >= min(truth, mp.mpf(5e-324)) and got >= truth * (1 - mp.mpf(1e-300)), (mu, e)
        if truth > mp.mpf(1e-300):
            assert got <= truth * (1 + mp.mpf(2e-12))
    assert float(dc.Gaussian(mu=1.0).delta(1e6)) == 5e-324  # δ > 0 at every finite ε: never a silent 0


@pytest.mark.parametrize("build", [lambda x: dc.Laplace(b=x), lambda x: dc.Gaussian(mu=1.0 / x)])
def test_epsilon_is_certified_against_the_rounded_delta(build):
    # the views are one: δ(ε(δ)) ≤ δ with δ rounded outwards
    rng = np.random.default_rng(0)
    for _ in range(300):
        m = build(float(10 ** rng.uniform(-2.5, 2)))
        d = float(10 ** rng.uniform(-300, -0.01))
        assert float(m.delta(m.epsilon(d))) <= d
