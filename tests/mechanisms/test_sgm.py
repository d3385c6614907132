"""The subsampled Gaussian and the dp-accounting-backed mechanisms (mechanisms/sgm.py).

Sources of reference values:
- Gaussian mechanism closed forms: δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) (Balle & Wang 2018, Thm 8),
  N steps of noise σ = μ = √N/σ (Dong, Roth & Su 2022, Cor 3.3);
- dp-accounting 0.6's PLD of the subsampled Gaussian (``from_gaussian_mechanism``, both adjacency
  directions; its δ is the max of the two) and its ``PLDAccountant`` for DpEvents;
- [BCP] §5: the paper reports Δ(M‖M̃) = 8e-4 for σ = 2/3, p = 9e-4, N = 1.4e6/3.4e6; our certified
  bracket [2.747e-4, 2.798e-4] (examples/thm3_tightness.py) excludes it, and dp-accounting's own value
  converges to the bracket as its discretisation is refined (1e-4: 8.3e-4, 5e-5: 4.2e-4, 2.5e-5: 3.1e-4).
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from dp_accounting import dp_event
from dp_accounting.pld import pld_privacy_accountant
from scipy.stats import norm

import dpcompare as dc
from dpcompare.accounting import subsampled_gaussian_composed
from dpcompare.comparison import delta_bracket
from dpcompare.mechanisms.events import FromDpEvent, FromPLD
from dpcompare.mechanisms.sgm import SubsampledGaussian

ROOT = Path(__file__).resolve().parents[2]
EPS = np.array([0.0, 0.25, 0.5, 1.0, 2.0, 4.0])


def gauss_delta(eps, mu):
    eps = np.asarray(eps, dtype=float)
    return norm.cdf(-eps / mu + mu / 2) - np.exp(eps) * norm.cdf(-eps / mu - mu / 2)


# ---------------------------------------------------------------------------------------------- validation
@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        (dict(sigma=0.0, sampling_rate=0.1, steps=10), "sigma"),
        (dict(sigma=-1.0, sampling_rate=0.1, steps=10), "sigma"),
        (dict(sigma=float("nan"), sampling_rate=0.1, steps=10), "sigma"),
        (dict(sigma=float("inf"), sampling_rate=0.1, steps=10), "sigma"),
        (dict(sigma="2", sampling_rate=0.1, steps=10), "sigma"),
        (dict(sigma=1e-9, sampling_rate=0.1, steps=10), "sigma"),
        (dict(sigma=1.0, sampling_rate=0.0, steps=10), "sampling_rate"),
        (dict(sigma=1.0, sampling_rate=1.5, steps=10), "sampling_rate"),
        (dict(sigma=1.0, sampling_rate=float("nan"), steps=10), "sampling_rate"),
        (dict(sigma=1.0, sampling_rate=-0.1, steps=10), "sampling_rate"),
        (dict(sigma=1.0, sampling_rate=0.1, steps=0), "steps"),
        (dict(sigma=1.0, sampling_rate=0.1, steps=-3), "steps"),
        (dict(sigma=1.0, sampling_rate=0.1, steps=2.5), "steps"),
        (dict(sigma=1.0, sampling_rate=0.1, steps=float("inf")), "steps"),
        (dict(sigma=1.0, sampling_rate=0.1, steps=True), "steps"),
        (dict(sigma=1.0, sampling_rate=0.1, steps="10"), "steps"),
        (dict(sigma=1.0, sampling_rate=0.1, steps=10, discretization=0.0), "discretization"),
        (dict(sigma=1.0, sampling_rate=0.1, steps=10, discretization=-1e-4), "discretization"),
        (dict(sigma=1.0, sampling_rate=0.1, steps=10, discretization=100.0), "discretization"),
    ],
)
def test_bad_input_raises_naming_the_parameter(kwargs, name):
    with pytest.raises(ValueError, match=name):
        SubsampledGaussian(**kwargs)


def test_integral_float_steps_and_spec():
    m = SubsampledGaussian(sigma=2.0, sampling_rate=9e-4, steps=1.4e6)
    assert m.steps == 1_400_000 and type(m.steps) is int
    assert m.spec == "sgm(sigma=2, p=0.0009, steps=1400000)"
    assert m == SubsampledGaussian(2, 0.0009, 1_400_000)  # value semantics (frozen dataclass)
    with pytest.raises(AttributeError):
        m.sigma = 3.0  # type: ignore[misc]


def test_spec_round_trips_through_the_parser():
    spec = pytest.importorskip("dpcompare.io.spec")
    m = SubsampledGaussian(sigma=1.1, sampling_rate=0.01, steps=1000)
    assert spec.parse(m.spec) == m


# ---------------------------------------------------------------------------------------------- correctness
@pytest.mark.parametrize(("sigma", "steps"), [(2.0, 4), (10.0, 100), (1.0, 1)])
def test_p_equal_one_is_the_gaussian_with_mu_sqrt_n_over_sigma(sigma, steps):
    m = SubsampledGaussian(sigma=sigma, sampling_rate=1.0, steps=steps)
    mu = math.sqrt(steps) / sigma
    assert m.gdp_mu == pytest.approx(mu)
    lo, hi = m.delta_bounds(EPS)
    exact = gauss_delta(EPS, mu)
    slack = m.numerical_error * (1 + np.exp(EPS)) + 1e-14
    assert np.all(lo <= exact + slack) and np.all(exact <= hi + slack)
    assert np.max(hi - lo) < 1e-6
    r = dc.delta_divergence(m, dc.Gaussian(mu=mu))
    assert r.lower <= 1e-12 and r.upper < 1e-6


@pytest.mark.parametrize(("sigma", "p", "steps"), [(1.0, 0.05, 30), (0.7, 0.02, 200), (3.0, 0.3, 50)])
def test_delta_matches_dp_accounting_both_directions(sigma, p, steps):
    """dp-accounting (discretisation 1e-4, both adjacency directions, δ = max) inside our bracket.

    dp-accounting's pessimistic δ is ≥ the truth ≥ our lower end; above, it may exceed our upper end by
    its own discretisation error (measured ≤ 1e-7 for these step counts)."""
    m = SubsampledGaussian(sigma=sigma, sampling_rate=p, steps=steps)
    pld = subsampled_gaussian_composed(sigma, p, steps, discretization=1e-4)
    ref = np.array([pld.get_delta_for_epsilon(float(e)) for e in EPS])
    lo, hi = m.delta_bounds(EPS)
    assert np.all(lo <= ref + 1e-12)
    assert np.all(ref <= hi + 1e-7)
    assert np.all(hi - lo <= 1e-5)


def test_views_are_consistent_and_valid():
    m = SubsampledGaussian(sigma=1.0, sampling_rate=0.01, steps=1000)
    pess, opt = m.pairs()
    for pair in (pess, opt):
        assert pair.is_symmetric
        assert pair.p.sum() + pair.p_neg_inf <= 1 + 1e-12 and pair.q.sum() + pair.q_pos_inf <= 1 + 1e-12
    pi = np.linspace(0, 1, 201)
    r_lo, r_hi = m.bayes_error_bounds(pi)
    assert np.all(r_lo <= r_hi + 2 * m.numerical_error)
    assert np.all(r_lo <= np.minimum(pi, 1 - pi) + 1e-15)
    f_lo, f_hi = m.tradeoff_bounds(pi)
    assert np.all(f_lo <= f_hi + 1e-9)
    eps = m.epsilon(1e-5)
    assert 0 < eps < 10 and m.delta(eps) <= 1e-5
    assert 0 <= m.advantage <= 1 and 0.5 <= m.auc <= 1
    assert not m.exact and m.numerical_error < 1e-6


def test_extreme_steps_give_finite_answers():
    """10⁷ steps: finite, ordered, certified values (a coarser explicit grid keeps the test fast; ε at δ = 1e-3,
    where the FFT's η is far below δ; δ = 1e-4, where the coarser grids are consulted, is
    tests/composition/test_sgm_far_grids.py)."""
    m = SubsampledGaussian(sigma=2.0, sampling_rate=9e-4, steps=1e7, discretization=4e-5)
    lo, hi = m.delta_bounds(EPS)
    assert np.all(np.isfinite(lo)) and np.all(np.isfinite(hi))
    assert np.all(lo <= hi + 1e-9) and hi[0] > 0.5  # δ(0) = TV is large after 10⁷ steps
    eps = m.epsilon(1e-3)
    assert math.isfinite(eps) and 4 < eps < 7
    assert float(m.delta_bounds(np.array([eps]))[0][0]) <= 1e-3  # δ(ε(δ)) ≤ δ across views


def test_absurd_noise_is_a_clear_error_not_nan():
    with pytest.raises(ValueError, match="too large to compose.*limit.*What works"):
        SubsampledGaussian(sigma=1e-3, sampling_rate=0.5, steps=10_000_000).pairs()


def test_a_tiny_sampling_rate_is_refused_for_its_real_cause():
    # it said "needs an FFT of about 4.49e+03 points … the limit is 8388608": the cause is one step's loss range
    # (18.6) against its spread (2.2e-5), not the FFT; the message gives a grid that works and the cap 1 − (1 − p)^N
    import re

    with pytest.raises(ValueError, match=r"one step's privacy loss reaches .* discretization ≥ [0-9.e+-]+ .*5e-07") as ei:
        SubsampledGaussian(sigma=0.3, sampling_rate=1e-7, steps=5).pairs()
    assert "FFT" not in str(ei.value)
    h = float(re.search(r"discretization ≥ ([0-9.e+-]+)", str(ei.value)).group(1))
    from dpcompare.composition.sgm_grid import check_grid

    check_grid(0.3, 1e-7, 5, h)  # the grid the message names is accepted (building it is the slow part: not here)


# ---------------------------------------------------------------------------------------------- [BCP] §5
def test_seed000_thm3_tightness_bracket():
    """The §5 case end to end: certified Δ(M‖M̃) ∈ [2.74e-4, 2.81e-4] (paper: 8e-4), width ≤ 1e-4."""
    a = SubsampledGaussian(2.0, 9e-4, 1.4e6)
    b = SubsampledGaussian(3.0, 9e-4, 3.4e6)
    ab, ba = delta_bracket(a, b), delta_bracket(b, a)
    assert ab.width <= 1e-4 and ba.width <= 1e-4
    assert 2.70e-4 <= ab.lower <= ab.upper <= 2.85e-4
    assert not ab.lower <= 8e-4 <= ab.upper
    assert ba.lower == 0.0 and ba.upper < 2e-6
    assert ab.upper < 1e-3  # Theorem 3's predicted bound holds
    # the library's delta_divergence sees the same pairs
    r = dc.delta_divergence(a, b)
    assert ab.lower - 1e-12 <= r.value <= ab.upper + 1e-12


# ---------------------------------------------------------------------------------------------- DpEvent / PLD
def test_from_dp_event_routes_dp_sgm_to_the_certified_mechanism():
    event = dp_event.SelfComposedDpEvent(dp_event.PoissonSampledDpEvent(0.01, dp_event.GaussianDpEvent(1.0)), 100)
    m = FromDpEvent(event)
    assert m.certified and m.spec == "sgm(sigma=1, p=0.01, steps=100)"
    ref = SubsampledGaussian(1.0, 0.01, 100)
    # FromDpEvent reads the symmetrised pairs, the mechanism the asymmetric ones widened by η
    # (composition.sgm_certified.profile_bracket): they agree up to η and the symmetrisation's rounding
    np.testing.assert_allclose(m.delta_bounds(EPS), ref.delta_bounds(EPS), rtol=1e-9, atol=2 * ref.numerical_error + 1e-11)


def test_from_dp_event_generic_brackets_the_accountant():
    """Generic path: the pessimistic pair is dp-accounting's own PLD (same δ as PLDAccountant); the
    mechanism's δ is the symmetrised one (max over both orderings), so it is ≥ the
    accountant's one-sided δ, and equal where the swapped direction is not larger."""
    from dpcompare.accounting import pld_from_event, pld_pair

    event = dp_event.ComposedDpEvent([dp_event.GaussianDpEvent(3.0), dp_event.LaplaceDpEvent(2.0)])
    acc = pld_privacy_accountant.PLDAccountant()
    acc.compose(event)
    ref = np.array([acc.get_delta(float(e)) for e in EPS])
    np.testing.assert_allclose(pld_pair(pld_from_event(event)).delta(EPS), ref, rtol=1e-9, atol=1e-14)
    m = FromDpEvent(event)
    assert not m.certified
    lo, hi = m.delta_bounds(EPS)
    assert np.all(hi >= ref - 1e-12) and np.all(lo <= ref + 1e-12)
    np.testing.assert_allclose(hi[:4], ref[:4], rtol=1e-6)
    assert np.max(hi - lo) < 1e-3


@pytest.mark.parametrize("bad", ["gaussian", 3, None])
def test_from_dp_event_rejects_non_events(bad):
    with pytest.raises(ValueError, match="event"):
        FromDpEvent(bad)


def test_from_dp_event_unsupported_event_names_the_event():
    with pytest.raises(ValueError, match="event"):
        FromDpEvent(dp_event.UnsupportedDpEvent()).pairs()


def test_from_pld_is_the_plds_own_pair():
    """FromPLD is the PLD's pair, symmetrised: its δ is ≥ the PLD's own (one-sided) δ, and equal at small ε
    (at large ε the swapped direction of dp-accounting's tail handling is the larger one)."""
    pld = subsampled_gaussian_composed(1.0, 0.05, 20, discretization=1e-4)
    m = FromPLD(pld)
    assert m.exact
    ref = np.array([pld.get_delta_for_epsilon(float(e)) for e in EPS])
    got = m.delta(EPS)
    assert np.all(got >= ref - 1e-13)
    np.testing.assert_allclose(got[:4], ref[:4], rtol=1e-6)
    with pytest.raises(ValueError, match="pld"):
        FromPLD("not a pld")


# ---------------------------------------------------------------------------------------------- scripts
def _run(script: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / script), "--quick", *args], capture_output=True, text=True,
                          timeout=300, cwd=ROOT)


@pytest.mark.skipif(not (ROOT / "examples" / "thm3_tightness.py").exists(), reason="examples/ not present")
def test_example_quick_writes_the_convergence_csv(tmp_path):
    out = tmp_path / "table.csv"
    proc = _run("examples/thm3_tightness.py", "--csv", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "certified" in proc.stdout and "dp-accounting" in proc.stdout
    lines = out.read_text().splitlines()
    assert lines[0].startswith("method,") and len(lines) >= 4


@pytest.mark.skipif(not (ROOT / "benchmarks" / "bench_sgm.py").exists(), reason="benchmarks/ not present")
def test_benchmark_quick_prints_table_and_json():
    proc = _run("benchmarks/bench_sgm.py")
    assert proc.returncode == 0, proc.stderr
    assert "dpcompare certified" in proc.stdout and "dp-accounting" in proc.stdout
    proc = _run("benchmarks/bench_sgm.py", "--json")
    assert proc.returncode == 0, proc.stderr
    res = json.loads(proc.stdout)
    assert res["quick"] is True and len(res["rows"]) == 2
    ours = res["rows"][0]
    assert ours["width_ab"] <= 1e-4 and ours["delta_ab"][0] <= ours["delta_ab"][1]


def test_lemmas_3_to_5_on_a_subsampled_gaussian():
    """[BCP] Lemmas 3–5 on a numeric mechanism: Δ(PP‖M) = δ(0)/2, Δ(M‖BNP) = R(½) = α*, sum ½,
    each within the certified brackets of both sides."""
    m = SubsampledGaussian(sigma=1.0, sampling_rate=0.01, steps=100)
    eta = m.numerical_error
    pp = dc.delta_from_perfect_privacy(m)
    d0_lo, d0_hi = m.delta_bounds(0.0)
    assert pp.lower - 1e-15 <= d0_hi / 2 + eta and d0_lo / 2 - eta <= pp.upper + 1e-15
    bnp = dc.delta_to_blatant_non_privacy(m)
    r_lo, r_hi = m.bayes_error_bounds(0.5)
    assert bnp.lower <= float(r_hi) + eta and float(r_lo) - eta <= bnp.upper
    assert pp.lower + bnp.lower <= 0.5 <= pp.upper + bnp.upper
    assert abs(pp.value + bnp.value - 0.5) <= (pp.upper - pp.lower) + (bnp.upper - bnp.lower) + 1e-12
    assert m.fixed_point == pytest.approx(float(r_lo))
