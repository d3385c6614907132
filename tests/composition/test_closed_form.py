"""Certified N-fold composition of closed-form one-step laws (composition/closed_form.py, mechanisms/composed.py).

Independent references: the Laplace closed forms (N = 1), dp-accounting's PLD of the Laplace mechanism
composed N times (its pessimistic and optimistic estimates), numerical integration of the two-step
Laplace loss law, brute-force products of small discrete pairs, and the exact (ε, δ)-DP composition
(1 − δ)^N·RR^N plus the ±∞ masses.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate

import dpcompare as dc
from dpcompare.composition.closed_form import (
    aligned_spacing,
    compose_discrete,
    compose_laplace,
    discrete_partition,
    laplace_loss_std,
    laplace_partition,
)
from dpcompare.comparison.emergent_dominance import compose_n, emergent
from dpcompare.mechanisms.composed import Composed, composable
from dpcompare.tradeoff import DiscretePair, Rounding


def _bracket_delta(c, eps):
    eps = np.asarray(eps, dtype=float)
    return c.optimistic.delta(eps) - c.optimistic_error, c.pessimistic.delta(eps) + c.pessimistic_error


# ---------------------------------------------------------------------------------------------- Laplace, one step
def test_loss_std_against_quadrature():
    for m in (0.05, 0.5, 1.0, 3.0, 20.0):
        dens = lambda t, m=m: 0.25 * math.exp((t - m) / 2)  # Q-density of L on (−m, m)  # noqa: E731
        mean = 0.5 * m - 0.5 * math.exp(-m) * m + integrate.quad(lambda t: t * dens(t), -m, m, epsabs=1e-16, epsrel=1e-12)[0]
        second = 0.5 * m * m * (1 + math.exp(-m)) + integrate.quad(lambda t: t * t * dens(t), -m, m, epsabs=0, epsrel=1e-13)[0]
        assert laplace_loss_std(m) == pytest.approx(math.sqrt(second - mean * mean), rel=1e-9)


def test_partition_masses_sum_to_one_and_match_the_cdf():
    m = 1.3
    part = laplace_partition(m, 8, sub=3)
    p = np.exp(np.append(part.log_p, part.tail_lo[0]))
    q = np.exp(np.append(part.log_q, part.tail_lo[1]))
    assert p.sum() == pytest.approx(1.0, abs=1e-14) and q.sum() == pytest.approx(1.0, abs=1e-14)
    # P(L ≤ t) at every inner cell edge, from the mechanism's own closed-form tail
    lap = dc.Laplace(b=1 / m)
    n_mid = 2 * 8 * 3
    edges = -m + np.arange(1, n_mid) * (m / 8 / 3)
    cdf = -np.expm1(lap.log_sf(edges, "P"))
    ours = 0.5 + np.cumsum(np.exp(part.log_p[: n_mid - 1]))
    assert np.allclose(ours, cdf, rtol=1e-13, atol=0)


@pytest.mark.parametrize("m", [0.2, 1.0, 4.0, 30.0])
def test_one_step_brackets_the_closed_form(m):
    c = compose_laplace(m, 1)
    lap = dc.Laplace(b=1 / m)
    eps = np.linspace(-m - 0.5, m + 0.5, 301)
    lo, hi = _bracket_delta(c, eps)
    d = lap.delta(eps)
    assert np.all(lo <= d) and np.all(d <= hi)
    assert np.max(hi - lo) < 1e-4
    pi = np.linspace(1e-3, 1 - 1e-3, 501)
    r = lap.bayes_error(pi)
    assert np.all(c.pessimistic.bayes_error(pi) - c.numerical_error <= r)
    assert np.all(r <= c.optimistic.bayes_error(pi) + c.numerical_error)


# ---------------------------------------------------------------------------------------------- Laplace, N steps
def _two_step_delta(m: float, eps: float) -> float:
    """δ(ε) of Laplace^⊗2 by integration: δ = E_Q[(1 − e^{ε−L})₊] with L = L₁ + L₂ ([BCP] eq 25),
    the one-step law as two atoms plus the density of the module docstring."""
    atoms = [(-m, 0.5 * math.exp(-m)), (m, 0.5)]  # (loss, Q-mass)
    dens = lambda t: 0.25 * math.exp((t - m) / 2)  # noqa: E731
    g = lambda s: max(0.0, -math.expm1(eps - s))  # noqa: E731
    total = 0.0
    for (a, qa), (b, qb) in itertools.product(atoms, atoms):
        total += qa * qb * g(a + b)
    for a, qa in atoms:  # one atom, one continuous step (twice: either order)
        total += 2 * qa * integrate.quad(lambda t: dens(t) * g(a + t), -m, m, points=[eps - a], epsabs=1e-15, epsrel=1e-12, limit=200)[0]
    inner = lambda t1: integrate.quad(lambda t2: dens(t2) * g(t1 + t2), -m, m, points=[eps - t1], epsabs=1e-15, epsrel=1e-12, limit=200)[0]  # noqa: E731
    total += integrate.quad(lambda t1: dens(t1) * inner(t1), -m, m, epsabs=1e-14, epsrel=1e-11, limit=200)[0]
    return total


def test_two_steps_bracket_numerical_integration():
    m = 0.8
    c = compose_laplace(m, 2)
    for eps in (0.0, 0.3, 0.9, 1.5):
        lo, hi = _bracket_delta(c, eps)
        ref = _two_step_delta(m, eps)
        assert lo - 1e-10 <= ref <= hi + 1e-10
        assert hi - lo < 1e-4


@pytest.mark.parametrize("m,n", [(1.0, 10), (1.0, 100), (0.2, 400)])
def test_against_dp_accounting_pld(m, n):
    """dp-accounting's pessimistic/optimistic Laplace PLDs bracket the truth up to their truncation
    (1e-15 per step): the two brackets must intersect, and ours is the narrower one."""
    from dp_accounting.pld import privacy_loss_distribution as pld

    c = compose_laplace(m, n)
    eps = np.array([0.0, 0.5, 1.0, 2.0, 4.0])
    lo, hi = _bracket_delta(c, eps)
    theirs = {}
    for pess in (True, False):
        p = pld.from_laplace_mechanism(1 / m, sensitivity=1, value_discretization_interval=1e-4,
                                       pessimistic_estimate=pess, use_connect_dots=pess).self_compose(n)
        theirs[pess] = np.array([p.get_delta_for_epsilon(float(e)) for e in eps])
    slack = 1e-12 * n
    assert np.all(lo <= theirs[True] + slack) and np.all(theirs[False] - slack <= hi)
    assert np.all(hi - lo <= theirs[True] - theirs[False] + slack)


def test_delta_zero_between_two_constructions_of_the_same_composition():
    """Δ(Laplace^N ‖ Laplace^N) = 0: same m from (b, Δ) = (1, 1) and (2, 2), grids of different spacing."""
    a = Composed(dc.Laplace(b=1.0), steps=30)
    b = Composed(dc.Laplace(b=2.0, sensitivity=2.0), steps=30, discretization=0.003)
    assert a.composition.discretization != b.composition.discretization
    for x, y in ((a, b), (b, a)):
        d = dc.delta_divergence(x, y)
        assert d.lower == 0.0 and 0.0 <= d.value <= d.upper < 1e-5


def test_composition_of_composition_multiplies_steps():
    c = Composed(Composed(dc.Laplace(b=1.0), steps=4), steps=5)
    assert c.steps == 20 and c.spec == "compose(laplace(b=1), steps=20)"


@settings(max_examples=12, deadline=None)
@given(m=st.floats(0.05, 3.0), ratio=st.floats(1.05, 3.0), n=st.integers(1, 40))
def test_less_private_laplace_is_never_certified_above(m, ratio, n):
    """Laplace^N with the larger m is Blackwell-more informative (R lower everywhere), so the certified
    lower end of Δ(larger ‖ smaller) is 0 and Δ(smaller ‖ larger) is certified positive."""
    big, small = Composed(dc.Laplace(b=1 / (m * ratio)), steps=n), Composed(dc.Laplace(b=1 / m), steps=n)
    assert dc.delta_divergence(big, small).lower == 0.0
    assert dc.delta_divergence(small, big).lower > 0.0


# ---------------------------------------------------------------------------------------------- discrete pairs
def _brute_power(pair: DiscretePair, n: int) -> tuple[np.ndarray, np.ndarray, float, float]:
    """The n-fold product of a small pair by enumeration: (losses, P-masses, P(−∞), Q(+∞))."""
    atoms = list(zip(pair.loss, pair.p)) + [(-math.inf, pair.p_neg_inf)]
    qinf = 1.0 - (1.0 - pair.q_pos_inf) ** n
    out: dict[float, float] = {}
    pneg = 0.0
    for combo in itertools.product(atoms, repeat=n):
        loss = sum(a for a, _ in combo)
        mass = math.prod(p for _, p in combo)
        if loss == -math.inf:
            pneg += mass
        else:
            key = round(loss, 9)
            out[key] = out.get(key, 0.0) + mass
    keys = np.array(sorted(out))
    return keys, np.array([out[k] for k in keys]), pneg, qinf


@pytest.mark.parametrize("spec", ["approxdp(eps=0.7, delta=0.01)", "rr(eps=0.4)", "pp()"])
def test_discrete_composition_brackets_brute_force(spec):
    m, n = dc.parse(spec), 5
    pair = m.pairs()[0]
    loss, p, pneg, qinf = _brute_power(pair, n)
    exact = DiscretePair(loss, np.log(p), pneg, qinf)
    c = compose_discrete(pair, n)
    pi = np.linspace(0.01, 0.99, 99)
    r = exact.bayes_error(pi)
    assert np.all(c.pessimistic.bayes_error(pi) - c.numerical_error <= r + 1e-15)
    assert np.all(r <= c.optimistic.bayes_error(pi) + c.numerical_error + 1e-15)
    eps = np.linspace(-1, 3, 41)
    d = exact.delta(eps)
    assert np.all(c.optimistic.delta(eps) - c.numerical_error <= d + 1e-15)
    assert np.all(d <= c.pessimistic.delta(eps) + c.numerical_error + 1e-15)
    assert np.max(c.pessimistic.delta(eps) - c.optimistic.delta(eps)) < 1e-9  # losses on the grid


def test_unaligned_discrete_pair_is_still_certified():
    """Losses that are not multiples of one spacing are split/merged: a wider bracket, still containing the truth."""
    pair = DiscretePair.from_masses([0.45, 0.35, 0.2], [0.15, 0.3, 0.55])  # losses not commensurate
    loss, p, pneg, qinf = _brute_power(pair, 4)
    exact = DiscretePair.from_atoms(loss, np.log(p), p_neg_inf=pneg, q_pos_inf=qinf)
    c = compose_discrete(pair, 4)
    pi = np.linspace(0.01, 0.99, 99)
    r = exact.bayes_error(pi)
    assert np.all(c.pessimistic.bayes_error(pi) - c.numerical_error <= r + 1e-15)
    assert np.all(r <= c.optimistic.bayes_error(pi) + c.numerical_error + 1e-15)


def test_aligned_spacing_and_partition():
    assert aligned_spacing(np.array([-0.3, 0.0, 0.6]), 0.1) == pytest.approx(0.075)
    assert aligned_spacing(np.array([-0.3, 0.7]), 0.1) == 0.1  # not commensurate: unchanged
    part = discrete_partition(DiscretePair.from_masses([0.25, 0.75], [0.75, 0.25]), math.log(3) / 4)
    g = part.grid(part.k_lo + part.cell_k + 1)  # each atom at the top of its interval
    assert np.allclose(g, [-math.log(3), math.log(3)], rtol=1e-15)


def test_composed_refuses_what_it_cannot_certify():
    mix = dc.parse("mixture(0.5*rr(eps=1), 0.5*gaussian(mu=2))")
    assert composable(mix) is not None
    with pytest.raises(ValueError, match="cannot compose"):
        Composed(mix, steps=3)
    with pytest.raises(ValueError, match="steps"):
        Composed(dc.Laplace(b=1), steps=0)
    with pytest.raises(TypeError, match="mechanism"):
        Composed("laplace(b=1)", steps=2)
    with pytest.raises(ValueError, match="m = sensitivity/b"):
        compose_laplace(-1.0, 3)
    with pytest.raises(ValueError, match="blatantly non-private"):
        Composed(dc.Laplace(b=1e-3), steps=3)
    with pytest.raises(ValueError, match=r"closed form is exact: gaussian\(mu=2000\)"):
        Composed(dc.Gaussian(mu=20.0), steps=10_000)
    e = emergent(dc.Laplace(b=1e-3), dc.Gaussian(mu=1.0), 3, 3)  # the rest of the report stands
    assert e.composed.delta_ab is None and "blatantly non-private" in e.composed.note and e.winner == "A"


def test_composed_bnp_is_bnp():
    c = Composed(dc.parse("bnp()"), steps=9)
    assert float(c.delta(5.0)) == 1.0 and c.numerical_error == 0.0


# ---------------------------------------------------------------------------------------------- in emergent
def test_emergent_certified_delta_for_laplace_rr():
    """Laplace(b=1)^N vs RR^Ñ: emergent's certified Δ overlaps the Δ against RR^30 built by hand from its
    binomial masses (k of 30 answers truthful: P-mass C(30,k)·aᵏ·b³⁰⁻ᵏ, Q-mass C(30,k)·bᵏ·a³⁰⁻ᵏ,
    a = e^ε/(1 + e^ε), b = 1 − a), not through emergent's own composition of RR."""
    e = emergent(dc.Laplace(b=1.0), dc.RandomizedResponse(eps=0.5), 40, 30)
    comp, how = compose_n(dc.Laplace(b=1.0), 40)
    assert "grid" in how
    a = math.exp(0.5) / (1 + math.exp(0.5))
    k = np.arange(31)
    binom = np.array([math.comb(30, int(i)) for i in k], dtype=float)
    rr30 = dc.FromPair(DiscretePair.from_masses(binom * a**k * (1 - a) ** (30 - k), binom * (1 - a) ** k * a ** (30 - k)))
    ab, ba = dc.delta_divergences(comp, rr30)
    for d, ref in ((e.composed.delta_ab, ab), (e.composed.delta_ba, ba)):
        assert d.lower <= d.value <= d.upper and d.upper - d.lower < 1e-6
        assert d.lower <= ref.upper + 1e-15 and ref.lower <= d.upper + 1e-15  # 1e-15: the masses' float rounding


# ---------------------------------------------------------------------------------------------- Gaussian as pairs
@pytest.mark.parametrize("mu", [0.05, 1.0, 6.0, 40.0])
def test_gaussian_pairs_bracket_the_closed_form(mu):
    from dpcompare.composition.closed_form import compose_gaussian

    c = compose_gaussian(mu)
    g = dc.Gaussian(mu=mu)
    eps = np.linspace(-2 * mu, mu * mu / 2 + 3 * mu, 201)
    lo, hi = _bracket_delta(c, eps)
    d = g.delta(eps)
    # (the closed form δ is rounded outwards: up to 1e-12 relative above the truth)
    assert np.all(lo <= d + 1e-15) and np.all(d <= hi * (1 + 2e-12) + 1e-15) and np.max(hi - lo) < 1e-4
    pi = np.linspace(1e-3, 1 - 1e-3, 301)
    r = g.bayes_error(pi)
    assert np.all(c.pessimistic.bayes_error(pi) - c.numerical_error <= r + 1e-15)
    assert np.all(r <= c.optimistic.bayes_error(pi) + c.numerical_error + 1e-15)


def test_composed_gaussian_is_g_mu_sqrt_n():
    c = Composed(dc.Gaussian(mu=0.5), steps=16)  # G_{0.5·4} = G_2
    d = dc.delta_divergence(c, dc.Gaussian(mu=2.0))
    assert d.lower == 0.0 and d.upper < 1e-5
    d = dc.delta_divergence(dc.Gaussian(mu=2.0), c)
    assert d.lower == 0.0 and d.upper < 1e-5


def test_emergent_pairs_the_gaussian_against_a_pair_mechanism():
    e = emergent(dc.Laplace(b=10.0), dc.Gaussian(mu=0.1), 200, 150)
    assert "as certified pairs" in e.composed.note
    lap, g = compose_n(dc.Laplace(b=10.0), 200)[0], dc.Gaussian(mu=0.1 * math.sqrt(150))
    # references against the closed form (branch and bound; tol above the Laplace bracket's width)
    for d, ref in ((e.composed.delta_ab, dc.delta_divergence(lap, g, tol=1e-10)),
                   (e.composed.delta_ba, dc.delta_divergence(g, lap, tol=1e-10))):
        assert d.lower <= ref.upper and ref.lower <= d.upper and d.upper - d.lower < 1e-6
    assert e.composed.delta_ba.lower > 0.02  # G_{0.1√150} is clearly more private than Laplace(b=10)^200


def test_epsilon_is_an_upper_bound():
    """ε(δ) of Laplace^⊗N is certified from above: δ_true(ε_reported) ≤ δ (dp-accounting's pessimistic
    PLD gives a δ ≥ the truth, so δ_pld(ε) must not be far above δ at our ε), and ε is not far above
    dp-accounting's ε."""
    from dp_accounting.pld import privacy_loss_distribution as pld

    c = Composed(dc.Laplace(b=2.0), steps=50)
    p = pld.from_laplace_mechanism(2.0, sensitivity=1, value_discretization_interval=1e-4).self_compose(50)
    for delta in (1e-3, 1e-6):
        eps = float(c.epsilon(delta))
        lo, hi = c.delta_bounds(eps)
        assert hi <= delta * (1 + 1e-9)
        assert abs(eps - p.get_epsilon_for_delta(delta)) < 1e-3


# ---------------------------------------------------------------------------------------------- the spec
def test_compose_spec_round_trips_and_reaches_every_command(capsys):
    import json

    from dpcompare.io import cli

    m = dc.parse("compose(laplace(b=1), steps=1e1)")
    assert isinstance(m, Composed) and m.steps == 10 and dc.parse(m.spec).spec == m.spec
    code = cli.main(["describe", "compose(laplace(b=1), steps=10)", "--delta", "1e-5", "--json"])
    out, err = capsys.readouterr()
    assert code == 0 and err == ""
    d = json.loads(out)
    assert d["epsilon"] == pytest.approx(float(m.epsilon(1e-5)), rel=1e-12)


@pytest.mark.parametrize("spec,word", [
    ("compose(laplace(b=1))", "missing parameter steps"),
    ("compose(laplace(b=1), steps=0)", "steps"),
    ("compose(laplace(b=1), steps=2.5)", "steps"),
    ("compose(laplace(b=1), steps=x)", "steps"),
    ("compose(laplace(b=1), n=3)", "unknown parameter 'n'"),
    ("compose(steps=3)", "exactly one mechanism"),
    ("compose(laplace(b=1), laplace(b=2), steps=3)", "exactly one mechanism"),
    ("compose(laplace(b=1), steps=2, steps=3)", "twice"),
    ("compose(subsample(gaussian(mu=1), w=0.5), steps=3)", "cannot compose"),
])
def test_compose_spec_errors_are_one_line(capsys, spec, word):
    from dpcompare.io import cli

    with pytest.raises(ValueError, match=word.replace("(", r"\(")):
        dc.parse(spec)
    code = cli.main(["describe", spec])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and word in err
