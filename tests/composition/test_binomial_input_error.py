"""composition/binomial.py: η covers the rounding of the one-step pair's own doubles, N times over.

Truth: the binomial closed form summed in 40-digit mpmath from the *real* one-step masses (not the doubles):
randomized response's 1/(1 + e^ε₀), and a pair at the edge of the declared input error (every log-mass
``input_log_error`` away from its double, in the direction that moves the composed masses most).
"""

from __future__ import annotations

import math

import pytest

import dpcompare as dc
from dpcompare.composition.binomial import compose_two_atoms, input_log_error
from dpcompare.mechanisms.composed import Composed

mp = pytest.importorskip("mpmath", reason="mpmath is the independent truth")


def _mp_delta(log_m: tuple, losses: tuple, n: int, eps_list: list[float]) -> list:
    """δ(ε) of the n-fold product of a one-step pair with real log-masses log_m = (log pₐ, log p_b, log qₐ,
    log q_b) at losses (ℓₐ, ℓ_b) and the rest of its mass at ∓∞: Q(+∞) = 1 − s_Q^n plus Σ_{Lⱼ>ε} Qⱼ − e^ε Pⱼ
    over j outcomes b, summed from 40 standard deviations below the lower side's mean to 40 above the upper's
    (Hoeffding: the rest is below e^{−800}·n for π ≈ ½, as here; Pⱼ₊₁ = Pⱼ·(n − j)/(j + 1)·p_b/pₐ)."""
    with mp.workdps(40):
        lpa, lpb, lqa, lqb = (mp.mpf(x) for x in log_m)
        la, lb = (mp.mpf(x) for x in losses)
        sp, sq = mp.exp(lpa) + mp.exp(lpb), mp.exp(lqa) + mp.exp(lqb)
        js: set[int] = set()
        for pi in (mp.exp(lpb) / sp, mp.exp(lqb) / sq):
            mean, sd = float(pi) * n, math.sqrt(n * float(pi) * (1 - float(pi))) + 1
            js.update(range(max(0, int(mean - 40 * sd)), min(n, int(mean + 40 * sd)) + 1))
        out = [1 - sq ** n for _ in eps_list]
        scale = [mp.exp(eps) for eps in eps_list]
        rp, rq = mp.exp(lpb - lpa), mp.exp(lqb - lqa)
        lo, hi = min(js), max(js)  # one interval (the two windows overlap here), by the ratio recursion
        lc = mp.loggamma(n + 1) - mp.loggamma(lo + 1) - mp.loggamma(n - lo + 1)
        pj, qj = mp.exp(lc + (n - lo) * lpa + lo * lpb), mp.exp(lc + (n - lo) * lqa + lo * lqb)
        for j in range(lo, hi + 1):
            big_l = (n - j) * la + j * lb
            for i, eps in enumerate(eps_list):
                if big_l > eps:
                    out[i] += qj - scale[i] * pj
            step = mp.mpf(n - j) / (j + 1)
            pj, qj = pj * step * rp, qj * step * rq
        return out


def test_randomized_response_from_its_real_masses_within_eta():
    # RR(ε₀ = 0.01)^(10⁵): the one-step masses e^{±ε₀}/(1 + e^{ε₀}) are not doubles; the measured error
    # (≈ 1e-12) is far inside η, old and new: the package's own builders round by a few u per step
    eps0, n = 0.01, 10**5
    pair = dc.RandomizedResponse(eps=eps0).pairs()[0]
    out, eta = compose_two_atoms(pair, n)
    with mp.workdps(40):
        e0 = mp.mpf(eps0)
        lhi, llo = -mp.log1p(mp.exp(-e0)), -e0 - mp.log1p(mp.exp(-e0))
    truth = _mp_delta((lhi, llo, llo, lhi), (-eps0, eps0), n, [0.0, 1.0, 3.0])
    for eps, t in zip([0.0, 1.0, 3.0], truth):
        assert abs(mp.mpf(float(out.delta(eps))) - t) <= eta, eps


def test_a_pair_at_the_edge_of_its_input_error_is_within_the_new_eta_and_outside_the_old():
    # (ε₀ = 0.01, δ₀ = 1e-9)-DP, N = 10⁵: the real pair has every log-mass input_log_error(x) above its double
    # (losses unchanged, finite mass s̃ = s·e^{e} ≤ 1: a valid pair, its δ₀ a little smaller). Its composed
    # masses are e^{N·e} ≈ 1 + 6e-10 times the doubles' pair's: at ε = 30 (only Q(+∞) = 1 − s_Q^N matters)
    # δ moves by ≈ 6e-10, which the old η (≈ 3.6e-10: the binomial sums' rounding only) does not cover.
    eps0, d0, n = 0.01, 1e-9, 10**5
    pair = dc.ApproxDP(eps=eps0, delta=d0).pairs()[0]
    lp, lq = [float(x) for x in pair.log_p], [float(x) for x in pair.log_q]
    with mp.workdps(40):
        real = tuple(mp.mpf(x) + input_log_error(x) for x in (lp[0], lp[1], lq[0], lq[1]))
    out, eta = compose_two_atoms(pair, n)
    _, eta_old = compose_two_atoms(pair, n, input_error=0.0)  # the doubles taken as exact: the old bound
    eps_list = [0.0, 2.0, 30.0]
    truth = _mp_delta(real, (float(pair.loss[0]), float(pair.loss[1])), n, eps_list)
    errs = [abs(mp.mpf(float(out.delta(e))) - t) for e, t in zip(eps_list, truth)]
    assert all(err <= eta for err in errs), (errs, eta)
    assert errs[-1] > eta_old, (errs[-1], eta_old)
    # Composed's bracket contains the real pair's δ
    lo, hi = Composed(dc.ApproxDP(eps=eps0, delta=d0), steps=n).delta_bounds(30.0)
    assert float(lo) <= truth[-1] <= float(hi)


def test_input_error_is_charged_n_times_and_zero_turns_it_off():
    pair = dc.RandomizedResponse(eps=1.0).pairs()[0]
    _, eta = compose_two_atoms(pair, 10**4)
    _, eta0 = compose_two_atoms(pair, 10**4, input_error=0.0)
    # per step ≥ the smaller of the two log-masses' declared errors, on P and on Q (masses ≈ 1 each)
    assert eta - eta0 >= 2 * 10**4 * input_log_error(math.log(1 / (1 + math.e)))
    assert 0 < eta0 < eta < 1e-9


@pytest.mark.parametrize("eps0", [1e-6, 0.01, 0.5, 1.0, 5.0, 30.0, 100.0])
@pytest.mark.parametrize("delta0", [0.0, 1e-9, 0.3])
def test_the_packages_two_atom_builders_are_within_the_declared_input_error(eps0, delta0):
    # the certificate assumes every one-step log-mass within input_log_error of the real one: measured here against
    # 50-digit mpmath for ε-DP / (ε, δ)-DP / randomized response (mechanisms.discrete._rr_pair)
    pair = (dc.ApproxDP(eps=eps0, delta=delta0) if delta0 else dc.RandomizedResponse(eps=eps0)).pairs()[0]
    with mp.workdps(50):
        e0, base = mp.mpf(eps0), mp.log1p(-mp.mpf(delta0))
        hi, lo = base - mp.log1p(mp.exp(-e0)), base - e0 - mp.log1p(mp.exp(-e0))  # P at −ε₀, P at +ε₀
        for got, want in zip([*pair.log_p, *pair.log_q], [hi, lo, lo, hi]):
            assert abs(mp.mpf(float(got)) - want) <= input_log_error(float(got)) / 4, (got, float(want))


@pytest.mark.parametrize("noise", [1e-6, 0.01, 0.3, 0.5, 0.9, 0.999999])
def test_randomized_response_event_pair_is_within_the_declared_input_error(noise):
    # mechanisms.events.randomized_response_pair (k = 2) and its DiscretePair.from_atoms (log q = log p + loss): the
    # atom at loss < 0 is output a (P: keep = 1 − p/2, Q: o = p/2), the one at loss > 0 output b (P: o, Q: keep)
    from dpcompare.mechanisms.events import randomized_response_pair

    pair = randomized_response_pair(noise, 2)
    assert pair.size == 2 and pair.loss[0] < 0 < pair.loss[1]
    with mp.workdps(50):
        p = mp.mpf(noise)
        keep, other = mp.log(1 - p / 2), mp.log(p / 2)
        wants = [keep, other, other, keep]  # log p at a, b; log q at a, b
        for got, want in zip([*pair.log_p, *pair.log_q], wants):
            assert abs(mp.mpf(float(got)) - want) <= input_log_error(float(got)) / 2, (noise, got, float(want))
