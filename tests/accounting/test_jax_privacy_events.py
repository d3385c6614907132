"""JAX-Privacy's DpEvents (stored fixtures; no jax-privacy needed) and the events that answered ∞ or raised:
certified finite brackets, checked against dp-accounting 0.6 (its optimistic PLD below our ε, our ε within a
stated factor of its pessimistic PLD) and against a seeded Monte Carlo estimate of the privacy profile.

Reference values: dp-accounting's PLDs are computed here (``dp_accounting.pld``, 0.6); the Monte Carlo
estimates sample the event's own definition (dp-accounting's ``dp_event`` docstrings and, for the truncated
Poisson-sampled Gaussian, the dominating pair of its ``from_truncated_subsampled_gaussian_mechanism``),
written here with scipy, independently of dpcompare's partition code.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest
from scipy import stats
from scipy.special import logsumexp

import dpcompare as dc
from dpcompare.mechanisms.events import Guarantee

sys.path.insert(0, os.path.dirname(__file__))
import jax_privacy_fixture_specs as specs  # noqa: E402

dp_accounting = pytest.importorskip("dp_accounting", reason="dp-accounting is the reference accountant")
from dp_accounting import dp_event as e  # noqa: E402
from dp_accounting.pld import privacy_loss_distribution as pld_lib  # noqa: E402

FIXTURES = specs.load_fixture()
#: our certified ε (pessimistic side) may exceed dp-accounting's pessimistic PLD ε by at most this factor: ours
#: carries the composition's floating-point error bound η (≈ 1e-10 in δ), which at δ = 1e-8 moves ε by ≲ 0.5 %
FACTOR = 1.01
DELTAS = (1e-5, 1e-8)
H_REF = 1e-3
#: events on the certified routes (the rest: fixed batches — dp-accounting has no PLD for them)
PLD_EVENTS = [k for k in FIXTURES if not k.startswith("fixed_dpsgd")]


# ---------------------------------------------------------------------------------------------- dp-accounting
def _leaf_and_count(ev: dict) -> tuple[dict, int]:
    if ev["class_name"] == "SelfComposedDpEvent":
        leaf, n = _leaf_and_count(ev["event"])
        return leaf, n * ev["count"]
    return ev, 1


def _gaussian_pld(sigma, q, h, pess, relation=None):
    kw = {} if relation is None else {"neighboring_relation": relation}
    return pld_lib.from_gaussian_mechanism(sigma, sampling_prob=q, value_discretization_interval=h,
                                           pessimistic_estimate=pess, use_connect_dots=pess, **kw)


def dpacc_pld(ev: dict, h: float, pessimistic: bool):
    """dp-accounting's PLD of a SelfComposed leaf, optimistic or pessimistic. dp-accounting's own
    ``from_truncated_subsampled_gaussian_mechanism`` has no optimistic version; the optimistic one is built
    from the same two parts (its source) with ``pessimistic_estimate=False``."""
    from dp_accounting import NeighboringRelation as NR

    leaf, n = _leaf_and_count(ev)
    cls = leaf["class_name"]
    if cls == "PoissonSampledDpEvent":
        one = _gaussian_pld(leaf["event"]["noise_multiplier"], leaf["sampling_probability"], h, pessimistic)
    elif cls == "MixtureOfGaussiansDpEvent":
        one = pld_lib.from_mixture_gaussian_mechanism(leaf["standard_deviation"], leaf["sensitivities"],
                                                      leaf["sampling_probs"], pessimistic_estimate=pessimistic,
                                                      value_discretization_interval=h, use_connect_dots=pessimistic)
    elif cls == "TruncatedSubsampledGaussianDpEvent":
        from dpcompare.composition.gaussian_mixture import truncation_probabilities

        sigma = leaf["noise_multiplier"]
        one = _gaussian_pld(sigma, leaf["sampling_probability"], h, pessimistic)
        t, p2 = truncation_probabilities(leaf["dataset_size"], leaf["sampling_probability"], leaf["truncated_batch_size"])
        if t > 0:
            two = _gaussian_pld(sigma / 2, p2, h, pessimistic, NR.REPLACE_ONE)
            one = two.compute_mixture(one, t)
    else:
        raise AssertionError(cls)
    return one.self_compose(n)


# ---------------------------------------------------------------------------------------------- Monte Carlo
def components(ev: dict):
    """The one-step remove pair from the event's definition: [(weight, [(w, centre, scale)] of P, … of Q)]."""
    leaf, n = _leaf_and_count(ev)
    cls = leaf["class_name"]
    if cls == "PoissonSampledDpEvent":
        s, q = leaf["event"]["noise_multiplier"], leaf["sampling_probability"]
        return [(1.0, [(1.0, 0.0, s)], [(1 - q, 0.0, s), (q, 1.0, s)])], n
    if cls == "MixtureOfGaussiansDpEvent":
        s = leaf["standard_deviation"]
        return [(1.0, [(1.0, 0.0, s)], [(w, c, s) for c, w in zip(leaf["sensitivities"], leaf["sampling_probs"])])], n
    if cls == "TruncatedSubsampledGaussianDpEvent":
        nn, q, b, s = (leaf[k] for k in ("dataset_size", "sampling_probability", "truncated_batch_size",
                                         "noise_multiplier"))
        t = float(stats.binom.sf(b - 1, nn - 1, q))  # dp-accounting 0.6's formulas, rewritten here
        p2 = float(stats.binom.sf(b, nn, q)) * b / t / nn if t > 0 else 0.0
        out = [(1.0 - t, [(1.0, 0.0, s)], [(1 - q, 0.0, s), (q, 1.0, s)])]
        if t > 0:
            out.append((t, [(p2, -2.0, s), (1 - p2, 0.0, s)], [(1 - p2, 0.0, s), (p2, 2.0, s)]))
        return out, n
    raise AssertionError(cls)


def _logpdf(x, mix):
    return logsumexp([math.log(w) + stats.norm.logpdf(x, c, s) for w, c, s in mix if w > 0], axis=0)


def sample_losses(ev: dict, size: int, under: str, rng) -> np.ndarray:
    """``size`` draws of the N-step privacy loss log(q/p) under Q ("q") or P ("p")."""
    comps, n = components(ev)
    weights = np.array([c[0] for c in comps])
    which = rng.choice(len(comps), size=size * n, p=weights / weights.sum())
    x = np.empty(size * n)
    ell = np.empty(size * n)
    for i, (_, pm, qm) in enumerate(comps):
        sel = which == i
        k = int(sel.sum())
        mix = qm if under == "q" else pm
        w = np.array([m[0] for m in mix])
        j = rng.choice(len(mix), size=k, p=w / w.sum())
        x[sel] = np.array([m[1] for m in mix])[j] + np.array([m[2] for m in mix])[j] * rng.standard_normal(k)
        ell[sel] = _logpdf(x[sel], qm) - _logpdf(x[sel], pm)
    return ell.reshape(size, n).sum(axis=1)


def mc_profile(ev: dict, eps: float, size: int, seed: int) -> tuple[float, float]:
    """(estimate of max(δ_rem(ε), δ_add(ε)), half-width of a 4-standard-error interval):
    δ_rem = E_Q[(1 − e^{ε−L})₊], δ_add = E_P[(1 − e^{ε+L})₊] (L = log q/p, [BCP] eq 25)."""
    rng = np.random.default_rng(seed)
    lq = sample_losses(ev, size, "q", rng)
    lp = sample_losses(ev, size, "p", rng)
    y_rem = np.maximum(-np.expm1(eps - lq), 0.0)
    y_add = np.maximum(-np.expm1(eps + lp), 0.0)
    hw = 4 * max(y_rem.std(), y_add.std()) / math.sqrt(size)
    return max(y_rem.mean(), y_add.mean()), hw


# ---------------------------------------------------------------------------------------------- tests
@pytest.mark.parametrize("name", PLD_EVENTS)
def test_certified_finite_and_between_dp_accountings_optimistic_and_pessimistic_pld(name):
    """Against dp-accounting 0.6.0's PLDs at discretisation 1e-4 (its default), stored in the fixture by
    ``python benchmarks/bench_events.py --write-fixture`` (the live comparison is the next test)."""
    ev, ref = FIXTURES[name]["event"], FIXTURES[name]["dp_accounting"]
    assert ref["discretization"] == 1e-4 and tuple(ref["deltas"]) == DELTAS
    m = dc.FromDpEvent(ev)
    assert m.guarantee in (Guarantee.CERTIFIED, Guarantee.EXACT)
    for d, opt, pess in zip(DELTAS, ref["optimistic"], ref["pessimistic"]):
        ours = float(m.epsilon(d))
        assert math.isfinite(ours)
        assert opt - 1e-9 <= ours <= FACTOR * pess
        lo, hi = m.delta_bounds(ours)
        assert lo <= hi <= d * (1 + 1e-9)


@pytest.mark.parametrize(("name", "h"), [("mixture_of_gaussians", 1e-2),  # dp-accounting's mixture PLD is slow
                                         ("truncated_subsampled_gaussian", H_REF)])
def test_live_against_dp_accounting(name, h):
    ev = FIXTURES[name]["event"]
    m = dc.FromDpEvent(ev)
    pess, opt = dpacc_pld(ev, h, True), dpacc_pld(ev, h, False)
    for d in DELTAS:
        ours = float(m.epsilon(d))
        assert opt.get_epsilon_for_delta(d) - 1e-9 <= ours <= FACTOR * pess.get_epsilon_for_delta(d)
        # dp-accounting's pessimistic δ at our ε is above our optimistic δ (both bound the same truth)
        lo, _ = m.delta_bounds(ours)
        assert lo <= pess.get_delta_for_epsilon(ours) + 1e-12


@pytest.mark.parametrize(("name", "size"), [
    ("mixture_of_gaussians", 400_000),
    ("mixture_of_gaussians_x10", 100_000),
    ("truncated_subsampled_gaussian", 400_000),
    ("user_level_mixture", 5_000),
    ("truncated_dpsgd_event", 3_000),
    ("truncated_amplified_bandmf_event", 4_000),
    ("amplified_bandmf_event", 4_000),
    ("dpsgd_event", 2_000),
])
def test_monte_carlo_profile_lies_in_the_certified_bracket(name, size):
    ev = FIXTURES[name]["event"]
    m = dc.FromDpEvent(ev)
    for target in (0.1, 0.02):
        eps = float(m.epsilon(target))
        lo, hi = m.delta_bounds(eps)
        est, hw = mc_profile(ev, eps, size, seed=20261126)
        assert lo - hw <= est <= hi + hw, (name, eps, lo, hi, est, hw)


def test_fixed_batch_events_are_certified_and_below_dp_accountings_rdp_bound():
    from dp_accounting import NeighboringRelation as NR
    from dp_accounting.rdp import rdp_privacy_accountant as rdp

    for name, guarantee in (("fixed_dpsgd_event", Guarantee.CERTIFIED), ("fixed_dpsgd_event_replace", Guarantee.BOUND)):
        ev = FIXTURES[name]["event"]
        m = dc.FromDpEvent(ev)
        assert m.guarantee is guarantee
        eps = float(m.epsilon(1e-5))
        assert math.isfinite(eps)
        if guarantee is Guarantee.CERTIFIED:  # the RDP accountant supports sampling without replacement only
            acc = rdp.RdpAccountant(neighboring_relation=NR.REPLACE_ONE)
            acc.compose(_event(ev))
            assert eps <= acc.get_epsilon(1e-5)


def _event(ev: dict):
    from dpcompare.accounting.dp_accounting import event_from_dict

    return event_from_dict(ev)


# ---------------------------------------------------------------------------------------------- the edges
def test_mixture_of_gaussians_two_atoms_is_the_subsampled_gaussian():
    """½N(0,1) + ½N(1,1) vs N(0,1) is sgm(σ = 1, p = ½): two certified brackets of the same truth overlap."""
    for n in (1, 10):
        a = dc.FromDpEvent(e.SelfComposedDpEvent(e.MixtureOfGaussiansDpEvent(1.0, [0, 1], [0.5, 0.5]), n))
        b = dc.SubsampledGaussian(1.0, 0.5, n)
        eps = np.array([0.0, 0.5, 2.0, 5.0])
        (alo, ahi), (blo, bhi) = a.delta_bounds(eps), b.delta_bounds(eps)
        assert np.all(alo <= bhi + 1e-12) and np.all(blo <= ahi + 1e-12)
    # the reported numbers: dp-accounting 10.46 at δ = 1e-5 for 10 steps (it answered ∞ through the certified API)
    assert a.epsilon(1e-5) == pytest.approx(10.46, abs=0.01)


def test_negative_sensitivities_are_mirrored():
    a = dc.FromDpEvent(e.MixtureOfGaussiansDpEvent(2.0, [0.0, -1.0, -2.0], [0.5, 0.3, 0.2]))
    b = dc.FromDpEvent(e.MixtureOfGaussiansDpEvent(2.0, [0.0, 1.0, 2.0], [0.5, 0.3, 0.2]))
    assert a.epsilon(1e-6) == pytest.approx(b.epsilon(1e-6), rel=1e-12)


@pytest.mark.parametrize(("ev", "field"), [
    (e.MixtureOfGaussiansDpEvent(1.0, [-1.0, 1.0], [0.5, 0.5]), "sensitivities"),
    (e.MixtureOfGaussiansDpEvent(1e-16, [0.0, 1.0], [0.5, 0.5]), "standard_deviation"),
    (e.TruncatedSubsampledGaussianDpEvent(1000, 0.1, 120, 1e-9), "noise_multiplier"),
])
def test_events_we_cannot_bound_raise_naming_the_field(ev, field):
    with pytest.raises(ValueError, match=field):
        dc.FromDpEvent(ev)


def test_cli_bad_event_file_one_line_exit_2(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"module_name": "dp_accounting.dp_event", "class_name": "MixtureOfGaussiansDpEvent",
                               "standard_deviation": 1e-16, "sensitivities": [0.0, 1.0], "sampling_probs": [0.5, 0.5]}))
    r = subprocess.run([sys.executable, "-m", "dpcompare", "describe", str(bad)], capture_output=True, text=True,
                       env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert r.returncode == 2 and r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "standard_deviation" in lines[0] and "Traceback" not in r.stderr


def test_self_composed_randomized_response_is_exact():
    """RR(noise 0.5, 2 buckets): keep 0.75, flip 0.25, ε₀ = ln 3; 20 times: ε(δ = 0) = 20·ln 3 and
    δ(ε) = Σ_j C(20, j)·(0.75ʲ0.25^{20−j})·(1 − e^{ε − (2j − 20)ln 3})₊ (binomial, written out here)."""
    m = dc.FromDpEvent(e.SelfComposedDpEvent(e.RandomizedResponseDpEvent(0.5, 2), 20))
    assert m.guarantee is Guarantee.CERTIFIED  # the exact pair up to its rounding bound η (composed_rr.py)
    assert float(m.epsilon(0.0)) == pytest.approx(20 * math.log(3), rel=1e-12)
    j = np.arange(21)
    q = stats.binom.pmf(j, 20, 0.75)
    for eps in (0.0, 5.0, 15.0):
        ref = float(np.sum(q * np.maximum(0.0, -np.expm1(eps - (2 * j - 20) * math.log(3)))))
        assert float(m.delta(eps)) == pytest.approx(ref, rel=1e-9, abs=1e-15)
    # k > 2 buckets, composed: the exact pair against a brute-force enumeration of 3 steps
    m3 = dc.FromDpEvent(e.SelfComposedDpEvent(e.RandomizedResponseDpEvent(0.3, 4), 3))
    keep, other = 1 - 0.3 + 0.3 / 4, 0.3 / 4
    import itertools
    p1 = {0: keep, 1: other, 2: other, 3: other}   # input 0
    q1 = {0: other, 1: keep, 2: other, 3: other}   # input 1
    for eps in (0.0, 1.0, 3.0):
        ref = sum(max(0.0, math.prod(q1[o] for o in out) - math.exp(eps) * math.prod(p1[o] for o in out))
                  for out in itertools.product(range(4), repeat=3))
        assert float(m3.delta(eps)) == pytest.approx(ref, rel=1e-9, abs=1e-15)


def test_huge_and_infinite_gaussian_noise():
    m = dc.FromDpEvent(e.GaussianDpEvent(1e300))
    assert m.spec == "gaussian(mu=1e-300)" and float(m.delta(0.0)) == pytest.approx(1e-300 / math.sqrt(2 * math.pi), rel=1e-9)
    inf = dc.FromDpEvent(e.GaussianDpEvent(math.inf))
    assert inf.advantage == 0.0 and float(inf.epsilon(1e-10)) == 0.0
    both = dc.FromDpEvent(e.ComposedDpEvent([e.GaussianDpEvent(1e300), e.GaussianDpEvent(2e300)]))
    assert both.mechanism.mu == pytest.approx(1e-300 * math.sqrt(1.25), rel=1e-12)


def test_gaussian_and_laplace_events_keep_their_closed_forms():
    from dpcompare.mixtures.f_divergences import KL, l_f_bounds, renyi_bounds

    for ev, ref in ((e.GaussianDpEvent(2.0), dc.Gaussian(mu=0.5)), (e.LaplaceDpEvent(2.0), dc.Laplace(b=2.0))):
        m = dc.FromDpEvent(ev)
        assert renyi_bounds(m, 4.0) == renyi_bounds(ref, 4.0)
        assert l_f_bounds(m, KL) == l_f_bounds(ref, KL)
        lo, hi = renyi_bounds(m, 4.0)
        assert hi - lo < 1e-12  # closed form, not the (∞-tailed) discretised pair
    # Gaussian μ = ½: R_4 = 4·μ²/2 = 0.5 (Mironov 2017, Table II)
    assert renyi_bounds(dc.FromDpEvent(e.GaussianDpEvent(2.0)), 4.0)[0] == pytest.approx(0.5, rel=1e-12)


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=8)
@given(sigma=st.floats(0.3, 5.0), c=st.floats(0.2, 3.0), p=st.floats(0.01, 0.99), n=st.integers(1, 5))
def test_two_atom_mixture_brackets_overlap_the_subsampled_gaussians(sigma, c, p, n):
    """Law: MixtureOfGaussians(σ, [0, c], [1 − p, p]) is the subsampled Gaussian with noise multiplier σ/c and
    sampling rate p (scale invariance of the Gaussian), so the two certified brackets must overlap."""
    a = dc.FromDpEvent(e.SelfComposedDpEvent(e.MixtureOfGaussiansDpEvent(sigma, [0.0, c], [1 - p, p]), n))
    b = dc.SubsampledGaussian(sigma / c, p, n)
    eps = np.array([0.0, 0.3, 1.0, 3.0])
    (alo, ahi), (blo, bhi) = a.delta_bounds(eps), b.delta_bounds(eps)
    assert np.all(alo <= bhi + 1e-12) and np.all(blo <= ahi + 1e-12)


def test_identical_leaves_merge_into_one_certified_composition():
    mog = e.MixtureOfGaussiansDpEvent(1.0, [0, 1], [0.5, 0.5])
    a = dc.FromDpEvent(e.ComposedDpEvent([mog, e.SelfComposedDpEvent(mog, 2)]))
    b = dc.FromDpEvent(e.SelfComposedDpEvent(mog, 3))
    assert a.guarantee is Guarantee.CERTIFIED and a.epsilon(1e-5) == b.epsilon(1e-5)


def test_monte_carlo_check_can_fail():
    """The Monte Carlo check distinguishes p = 0.5 from p = 0.55 in the half-half mixture (so it is not vacuous)."""
    ev = FIXTURES["mixture_of_gaussians"]["event"]
    other = dc.FromDpEvent(e.MixtureOfGaussiansDpEvent(1.0, [0.0, 1.0], [0.45, 0.55]))
    eps = float(other.epsilon(0.1))
    lo, hi = other.delta_bounds(eps)
    est, hw = mc_profile(ev, eps, 400_000, seed=20261126)
    assert not (lo - hw <= est <= hi + hw)
