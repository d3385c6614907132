"""F-divergences from a trade-off function ([MIX] Lemma B.4, Prop 3.3, Cor B.5, Cor B.6, Prop B.7).

For a convex F with F(1) = 0, D_F(P‖Q) = ∫_{pq>0} F(p/q) dQ + F(0)·Q[p = 0] + τ_F·P[q = 0], with
F(0) = lim_{s↓0} F(s) and τ_F = lim_{t→∞} F(t)/t. (The appendix prints "F(0) = lim F(s)/s"; the
limit of F(s) itself is the one that makes Lemma B.4 hold — e.g. for the curve length below.)

**Lemma B.4** (Dong et al. Prop B.4): D_F(P‖Q) = l_F(T(P, Q)) with z_f the first zero of f,

    l_F(f) = ∫₀^{z_f} F(1/|f′(x)|)·|f′(x)| dx + F(0)·(1 − f(0)) + τ_F·(1 − z_f).

Two evaluations, independent of each other:

- ``l_f`` on a discrete pair (a piecewise-linear f): segment k has Δx = pₖ and |f′| = qₖ/pₖ, so the
  integral is Σₖ qₖ·F(pₖ/qₖ); 1 − f(0) = q₊∞ and 1 − z_f = p₋∞. Exact. For a mechanism the
  (pessimistic, optimistic) pairs give a certified bracket, since F-divergences obey the data
  processing inequality (the pessimistic pair is more informative, so its divergence is larger).
- ``l_f_quad`` integrates Lemma B.4 with adaptive quadrature from the slope f′, which
  ``tradeoff_slope`` gives in closed form for Gaussian and Laplace mechanisms (derivatives of the
  core's closed-form trade-off functions) and exactly for pair-backed mechanisms. The integral is
  taken in u with x = Φ(−u), so both ends of [0, 1] keep full precision.

Divergences (``F`` objects): hockey-stick H_γ (F(s) = (s − γ)₊; equals the privacy profile δ at
γ = e^ε), KL (F(s) = s·log s), total variation (F(s) = |s − 1|/2), the power divergence of order a
(F_a(s) = (s^a − a(s−1) − 1)/(a(a−1)); Cor B.6: e^{(a−1)R_a(P‖Q)} = ∫₀¹ |f′(x)|^{1−a} dx, so Rényi
R_a = log(1 + a(a−1)·D_{F_a})/(a−1)), and the curve length of Prop B.7 (F(y) = √(1 + y²)).

Joint convexity (Prop 3.3, Cor B.5, Cor B.6): D_F(P_w‖Q_w) ≤ Σᵢ wᵢ D_F(Pᵢ‖Qᵢ);
``joint_convexity_terms`` returns both sides for mixtures on a finite outcome space.
"""

from __future__ import annotations

import enum
import math
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import singledispatch
from typing import Any

import numpy as np

from .._numerics import log_ndtr, ndtr, ndtri
from .._validation import check_positive
from ..mechanisms import Gaussian, Laplace, Mechanism
from ..mechanisms.composed import Composed
from ..mechanisms.pair_backed import PairMechanism
from ..tradeoff import DiscretePair
from ._checks import check_weights
from .algebra import as_pairs, vertices


class Family(enum.Enum):
    """Which named divergence an :class:`FDivergence` is (selects a closed form where one exists)."""

    HOCKEY_STICK = "hockey_stick"  #: parameter γ
    KL = "kl"
    TV = "tv"
    POWER = "power"  #: parameter a (the order)
    OTHER = "other"


@dataclass(frozen=True)
class FDivergence:
    """A convex F with F(1) = 0, its limits F(0) = lim_{s↓0} F(s) and τ_F = lim_{t→∞} F(t)/t, and a name."""

    name: str
    F: Callable[[np.ndarray], np.ndarray]
    F0: float
    tau: float
    kink: float | None = None  # s where F is not differentiable (passed to the quadrature)
    #: optional (log|f′|, log pdf) ↦ F(1/|f′|)·|f′|·pdf computed without overflow (for fast-growing F)
    weighted: Callable[[float, float], float] | None = None
    family: Family = Family.OTHER
    param: float | None = None

    def __call__(self, s: Any) -> np.ndarray:
        return self.F(np.asarray(s, dtype=float))


def hockey_stick(gamma: float) -> FDivergence:
    """H_γ: F(s) = (s − γ)₊ ([MIX] Cor B.5); with γ = e^ε it is the privacy profile δ(ε)."""
    g = check_positive("gamma", gamma)
    return FDivergence(f"hockey-stick({g:g})", lambda s: np.maximum(s - g, 0.0), 0.0, 1.0, g, family=Family.HOCKEY_STICK, param=g)


def _xlogx(s: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(s > 0, s * np.log(np.where(s > 0, s, 1.0)), 0.0)


KL = FDivergence("KL", _xlogx, 0.0, math.inf, family=Family.KL)
TV = FDivergence("TV", lambda s: 0.5 * np.abs(s - 1.0), 0.5, 0.5, 1.0, family=Family.TV)
#: Prop B.7: F(y) = √(1 + y²) gives the length of the graph of f (F(0) = 1: the drop at 0; τ = 1: the flat part)
LENGTH = FDivergence("length", lambda s: np.sqrt(1.0 + s * s), 1.0, 1.0)


def power(order: float) -> FDivergence:
    """Power divergence F_a(s) = (s^a − a(s − 1) − 1)/(a(a − 1)) ([MIX] Cor B.6), order a > 1."""
    a = check_positive("order", order)
    if a <= 1:
        raise ValueError(f"order must be > 1, got {a:g}")
    def weighted(ls: float, lp: float) -> float:
        # F_a(1/s)·s·pdf = (s^{1−a} − a(1 − s) − s)·pdf/(a(a−1)), s = e^{ls}, pdf = e^{lp}
        main = math.exp(min((1.0 - a) * ls + lp, 709.0))
        rest = (a * (1.0 - math.exp(min(ls, 709.0))) + math.exp(min(ls, 709.0))) * math.exp(lp)
        return (main - rest) / (a * (a - 1.0))

    def F(s: np.ndarray) -> np.ndarray:
        with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
            return (np.power(s, a) - a * (s - 1.0) - 1.0) / (a * (a - 1.0))

    return FDivergence(f"power({a:g})", F, 1.0 / a, math.inf, None, weighted, family=Family.POWER, param=a)


# ---------------------------------------------------------------------------------------------- l_F on pairs
def l_f(pair: DiscretePair, div: FDivergence) -> float:
    """l_F(f) of [MIX] Lemma B.4 for the piecewise-linear f = T(P, Q), exactly: Σ qₖ F(pₖ/qₖ) +
    F(0)·q₊∞ + τ_F·p₋∞ (= D_F(P‖Q)).

    Example: randomized response ε = log 3 has TV = δ(0) = ½.

    >>> rr = DiscretePair.from_masses([0.75, 0.25], [0.25, 0.75])
    >>> round(l_f(rr, TV), 12)
    0.5
    """
    body = _atoms_sum(pair, div)
    extra = 0.0
    if pair.q_pos_inf > 0:
        extra += div.F0 * pair.q_pos_inf
    if pair.p_neg_inf > 0:
        extra += math.inf if math.isinf(div.tau) else div.tau * pair.p_neg_inf
    return body + extra


#: unit roundoff of binary64
_U = 2.0**-53
#: relative error of numpy's exp of an exact argument (glibc/SIMD: ≤ 4 ulp; documented accuracy ≤ 1–4 ulp)
_EXP_ULPS = 4.0


def l_f_rounding(pair: DiscretePair, div: FDivergence) -> float | None:
    """A bound on |fl(l_f(pair, div)) − D_F(pair)|, D_F of the pair's real masses pₖ = e^{log pₖ}, qₖ = e^{log qₖ}
    (log qₖ = log pₖ + ℓₖ, or the pair's exact log q): the doubles ``pair.p``, ``pair.q`` = fl(exp(·)) are off by
    ≤ (|log m| + 8)·u·m each (as DiscretePair's δ(ε) charges them), and :func:`l_f`'s arithmetic on them rounds
    (standard model fl(a ∘ b) = (a ∘ b)(1 + θ), |θ| ≤ u; ``math.fsum`` correctly rounded; Higham, "Accuracy and
    Stability of Numerical Algorithms", §2.2 and §4). None for a family without a bound (``Family.OTHER``: F is an
    arbitrary callable whose conditioning is unknown). Per family, the arithmetic:

    - TV  ½·fsum|pₖ − qₖ|: each difference off by ≤ u·|pₖ − qₖ|, the sum by ≤ u·S: ≤ 2.02u·body.
    - KL  fsum pₖ·(−ℓₖ): each product off by ≤ u·|pₖℓₖ|, the sum by ≤ u·|S|: ≤ 2.02u·Σ|pₖℓₖ|.
    - H_γ fsum (pₖ − fl(γqₖ))₊: (·)₊ is 1-Lipschitz; ≤ u·γqₖ + u·(pₖ + γqₖ)(1 + u) each, + u·S: ≤ 3.02u·Σ(pₖ + γqₖ).
    - power(a): the exponent a·log pₖ + fl(1 − a)·log qₖ off by ≤ 3.01u·(|a log pₖ| + |(1 − a) log qₖ|) =: dₖ,
      so each term by ≤ eₖ·(1.01dₖ + 4u) (exp's own 4 ulp); then four fsums, three subtractions, one
      product and a division: ≤ [Σ errors + 5u·(B + Σq + |a|(Σp + Σq))]/|a(a − 1)| + 3u·|result|.
    The ±∞ atoms' term F(0)·q₊∞ + τ·p₋∞ and the final addition add 3u·|extra| + u·|total|. The masses' own error
    eₘ = (|log m| + 8)·u·m adds ½Σ(eₚ + e_q) (TV), Σeₚ·|ℓ| (KL; with an exact log q also Σp·|ℓ − log q + log p|),
    Σ(eₚ + γe_q) (H_γ), and (|1 − a|Σe_q + |a|Σeₚ)/|a(a − 1)| (power: Σq, Σp; log q's rounding enters the exponent).

    >>> rr = DiscretePair.from_masses([0.75, 0.25], [0.25, 0.75])
    >>> 0.0 < l_f_rounding(rr, KL) < 1e-14
    True
    """
    p, q = np.asarray(pair.p, dtype=float), np.asarray(pair.q, dtype=float)
    lp, lq = np.asarray(pair.log_p, dtype=float), np.asarray(pair.log_q, dtype=float)
    fam = div.family
    u = _U
    # the doubles p, q themselves: fl(exp(log m)) of a log that is itself a rounded sum (log q = log p + ℓ) — at most
    # (|log m| + 8)·u·m each, the charge DiscretePair's own δ(ε) makes (its tail sums' a-priori error)
    e_p = (np.abs(lp) + 8.0) * u * p
    e_q = (np.abs(lq) + 8.0) * u * q
    if fam is Family.TV:
        err = 2.02 * u * 0.5 * float(np.sum(np.abs(p - q))) + 0.5 * float(np.sum(e_p + e_q))
    elif fam is Family.KL:
        loss = np.asarray(pair.loss, dtype=float)
        err = 2.02 * u * float(np.sum(np.abs(p * loss))) + float(np.sum(e_p * np.abs(loss)))
        if pair.exact_log_q is not None:  # the labels ℓ are log(q/p) rounded: Σ p·|ℓ − (log q − log p)|, and its rounding
            err += float(np.sum(p * (np.abs(lq - loss - lp) + 2.0 * u * (np.abs(lq) + np.abs(loss) + np.abs(lp)))))
    elif fam is Family.HOCKEY_STICK:
        g = abs(float(div.param))
        err = 3.02 * u * float(np.sum(p + g * q)) + float(np.sum(e_p + g * e_q))
    elif fam is Family.POWER:
        a = float(div.param)
        with np.errstate(over="ignore", invalid="ignore"):
            e = np.exp(a * lp + (1.0 - a) * lq)
            # the exponent's arithmetic, and log q's own rounding (u·|log q|, times |1 − a|)
            d = 3.01 * u * (np.abs(a * lp) + np.abs((1.0 - a) * lq)) + u * np.abs((1.0 - a) * lq)
            term_err = e * (1.01 * d + _EXP_ULPS * u)
        fin = np.isfinite(e)
        if not np.all(fin):
            return math.inf
        big, sq, sp = float(np.sum(e)), float(np.sum(q)), float(np.sum(p))
        num_err = (float(np.sum(term_err)) * 1.01 + u * big + 5.0 * u * (big + sq + abs(a) * (sp + sq))
                   + abs(1.0 - a) * float(np.sum(e_q)) + abs(a) * float(np.sum(e_p)))  # Σq, Σp of the doubles
        body = abs(_atoms_sum(pair, div))
        err = num_err / abs(a * (a - 1.0)) + 3.0 * u * body
    else:
        return None
    extra = 0.0
    if pair.q_pos_inf > 0:
        extra += abs(float(div.F0)) * pair.q_pos_inf
    if pair.p_neg_inf > 0 and math.isfinite(div.tau):
        extra += abs(float(div.tau)) * pair.p_neg_inf
    total = abs(_atoms_sum(pair, div)) + extra
    return 1.01 * (err + 3.0 * u * extra + u * total)


def _atoms_sum(pair: DiscretePair, div: FDivergence) -> float:
    """Σₖ qₖ·F(pₖ/qₖ) over the finite atoms, without 0·∞: the named families in their perspective form
    (TV ½Σ|pₖ − qₖ|, KL Σ pₖ·(−ℓₖ), H_γ Σ(pₖ − γqₖ)₊, power (Σ e^{a·log pₖ + (1−a)·log qₖ} − Σ qₖ − a·Σ(pₖ − qₖ))/(a(a−1))),
    others with qₖ·F(pₖ/qₖ) ≤ pₖ·τ_F + qₖ·F(0) where pₖ/qₖ overflows (F convex: (F(r) − F(0))/r ↑ τ_F)."""
    p, q = pair.p, pair.q
    fam = div.family
    if fam is Family.TV:
        return 0.5 * math.fsum(np.abs(p - q).tolist())
    if fam is Family.KL:
        return math.fsum((p * -np.asarray(pair.loss, dtype=float)).tolist())
    if fam is Family.HOCKEY_STICK:
        return math.fsum(np.maximum(p - float(div.param) * q, 0.0).tolist())
    if fam is Family.POWER:
        a = float(div.param)
        with np.errstate(over="ignore"):
            big = math.fsum(np.exp(a * np.asarray(pair.log_p) + (1.0 - a) * np.asarray(pair.log_q)).tolist())
        return (big - math.fsum(q.tolist()) - a * (math.fsum(p.tolist()) - math.fsum(q.tolist()))) / (a * (a - 1.0))
    with np.errstate(over="ignore", invalid="ignore"):
        ratio = np.exp(-np.asarray(pair.loss, dtype=float))  # p/q of each atom
        vals = q * div(ratio)
    bad = ~np.isfinite(ratio) | (q == 0.0) | ~np.isfinite(vals)
    if np.any(bad):
        tail = np.where(p[bad] > 0, p[bad] * div.tau if math.isfinite(div.tau) else math.inf, 0.0)
        vals = np.where(bad, 0.0, vals)
        vals[bad] = tail + q[bad] * max(float(div.F0), 0.0)
    return math.fsum(vals.tolist())


def l_f_symmetric(obj: Any, div: FDivergence) -> tuple[float, float]:
    """The simplified form of [MIX] Lemma B.4, l_F(f) = ∫₀^{z_f} F(1/|f′|)·|f′| dx, which holds for a
    symmetric f with f(0) = 1: raises ValueError if f(0) ≠ 1 or f is not symmetric. Certified bracket."""
    pess, opt = as_pairs(obj, name="f", require_f0_one=True)
    for pr in (pess, opt):
        lam = np.union1d(pr.loss, -pr.loss)
        off = np.max(np.abs(pr.bayes_error_logit(lam) - pr.bayes_error_logit(-lam)), initial=0.0)
        if off > 1e-12 or abs(pr.p_neg_inf - pr.q_pos_inf) > 1e-12:
            raise ValueError("f must be symmetric for the simplified form of Lemma B.4")
    # symmetric up to rounding: the envelope makes it exact (and keeps the pessimistic side pessimistic)
    sym = pess.symmetrize()
    pess, opt = sym, (sym if opt is pess else opt.symmetrize())
    body = lambda pr: _atoms_sum(pr, div)  # noqa: E731
    hi = body(pess)
    return (hi if opt is pess else body(opt)), hi


#: relative widening of a closed form evaluated in floating point (a few ulp of exp/log/erfc, ×100)
CLOSED_FORM_RTOL = 1e-13


def _closed_form_entry(mech: Any, div: FDivergence) -> float | None:
    """:func:`closed_form` after mapping a DpEvent mechanism to its closed form (``closed_form_view``)."""
    from ..mechanisms.events import closed_form_view

    return closed_form(closed_form_view(mech), div)


@singledispatch
def closed_form(mech: Any, div: FDivergence) -> float | None:
    """D_F(P‖Q) in closed form for the mechanism's pair (P, Q), or None where none is implemented.

    By Lemma B.4 of [MIX] this is l_F(T(P, Q)), so it is the F-divergence of the trade-off
    function itself; the data processing inequality makes it the value for every pair with that
    trade-off function.

    Gaussian G_μ (P = N(0, 1), Q = N(μ, 1); standard Gaussian integrals):

        KL = μ²/2,   Rényi R_a = a·μ²/2,   D_{F_a} = (e^{a(a−1)μ²/2} − 1)/(a(a−1)),
        TV = 2Φ(μ/2) − 1,   H_{e^ε} = Φ(−ε/μ + μ/2) − e^ε·Φ(−ε/μ − μ/2).

    Laplace with m = Δ/b (P = Lap(0, b), Q = Lap(Δ, b)):

        KL = m + e^{−m} − 1,   e^{(a−1)R_a} = a/(2a−1)·e^{(a−1)m} + (a−1)/(2a−1)·e^{−am}
        (Mironov 2017, "Rényi differential privacy", Table II),   TV = 1 − e^{−m/2}.

    >>> import dpcompare as dc
    >>> closed_form(dc.Gaussian(mu=2.0), KL), closed_form(dc.Gaussian(mu=2.0), power(3.0)) is not None
    (2.0, True)
    """
    return None


@closed_form.register
def _(mech: Gaussian, div: FDivergence) -> float | None:
    mu = mech.mu
    if div.family is Family.KL:
        return mu * mu / 2.0
    if div.family is Family.POWER:
        a = float(div.param)
        x = a * (a - 1.0) * mu * mu / 2.0
        return math.expm1(x) / (a * (a - 1.0)) if x < 700.0 else math.inf  # beyond float: see renyi_bounds
    if div.family is Family.TV:
        return float(1.0 - 2.0 * ndtr(-mu / 2.0))
    if div.family is Family.HOCKEY_STICK:
        return float(mech.delta(math.log(float(div.param)))) if div.param >= 1.0 else None
    return None


@closed_form.register
def _(mech: Laplace, div: FDivergence) -> float | None:
    m = mech.m
    if div.family is Family.KL:
        return m + math.expm1(-m)
    if div.family is Family.POWER:
        a = float(div.param)
        log_e = _laplace_log_moment(m, a)
        return math.expm1(log_e) / (a * (a - 1.0)) if log_e < 700.0 else math.inf
    if div.family is Family.TV:
        return -math.expm1(-m / 2.0)
    return None


@closed_form.register
def _(mech: Composed, div: FDivergence) -> float | None:
    # G_μ^⊗N = G_{μ√N} (Dong, Roth & Su 2022, Cor 3.3; μ√N rounded up, then widened like every closed
    # form); KL of a product is the sum of the KLs (chain rule), so N·KL of one Laplace step
    inner, n = mech.mechanism, mech.steps
    if isinstance(inner, Gaussian):
        return closed_form(Gaussian(mu=math.nextafter(inner.mu * math.sqrt(n), math.inf)), div)
    if isinstance(inner, Laplace) and div.family is Family.KL:
        v = closed_form(inner, div)
        return None if v is None else n * v
    return None


def _laplace_log_moment(m: float, a: float) -> float:
    """log ∫p^a q^{1−a} = log(a/(2a−1)·e^{(a−1)m} + (a−1)/(2a−1)·e^{−am}) for Laplace (Mironov 2017)."""
    return (a - 1) * m + math.log(a / (2 * a - 1) + (a - 1) / (2 * a - 1) * math.exp(-(2 * a - 1) * m))


def renyi_closed_form(mech: Any, order: float) -> float | None:
    """Rényi divergence R_a(P‖Q) in closed form (log space, no overflow), or None.

    Gaussian: R_a = a·μ²/2; Laplace: R_a = log(a/(2a−1)·e^{(a−1)m} + (a−1)/(2a−1)·e^{−am})/(a−1)
    (Mironov 2017, "Rényi differential privacy", Table II).

    >>> import dpcompare as dc
    >>> renyi_closed_form(dc.Gaussian(mu=2.0), 32.0)
    64.0
    """
    from ..mechanisms.events import closed_form_view

    a = float(order)
    mech = closed_form_view(mech)
    if isinstance(mech, Composed) and isinstance(mech.mechanism, (Gaussian, Laplace)):
        one = renyi_closed_form(mech.mechanism, a)  # Rényi divergences add up over a product (Mironov 2017, Prop 4)
        return None if one is None else mech.steps * one
    if isinstance(mech, Gaussian):
        return a * mech.mu * mech.mu / 2.0
    if isinstance(mech, Laplace):
        return _laplace_log_moment(mech.m, a) / (a - 1.0)
    return None


def l_f_bounds(obj: Any, div: FDivergence) -> tuple[float, float]:
    """Certified (lower, upper) of D_F for a mechanism, pair or callable (data processing inequality).

    Where a closed form exists (:func:`closed_form`: Gaussian and Laplace, KL, Rényi/power, TV,
    hockey-stick) it is used, widened by ``CLOSED_FORM_RTOL`` for its floating-point evaluation —
    the discretised pessimistic pair would put tail mass at ℓ = ±∞ and report ∞ for every F with
    τ_F = ∞ (KL, Rényi). Otherwise the bracket of the (pessimistic, optimistic) pairs.

    >>> import dpcompare as dc
    >>> lo, hi = l_f_bounds(dc.Gaussian(mu=1.0), KL)
    >>> lo <= 0.5 <= hi, hi - lo < 1e-12
    (True, True)
    """
    if isinstance(obj, Mechanism):
        v = _closed_form_entry(obj, div)
        if v is not None and math.isfinite(v):
            return max(v * (1.0 - CLOSED_FORM_RTOL), 0.0), v * (1.0 + CLOSED_FORM_RTOL) + 1e-300
    pess, opt = as_pairs(obj)
    return _directed_l_f(opt, div, up=False), _directed_l_f(pess, div, up=True)


def _directed_l_f(pair: DiscretePair, div: FDivergence, *, up: bool) -> float:
    """l_f of ``pair`` moved outward by its evaluation's rounding (:func:`l_f_rounding`; a family without a
    bound is returned as computed). Both ends stay in the divergence's range [0, F(0) + τ_F] ([MIX] Lemma B.4:
    0 by Jensen, F convex with F(1) = 0; F(0) + τ_F for disjoint supports), each end of that range being
    itself a bound — the optimistic pair's sum can sit a rounding below it
    (a KL of −2e-15 for a subsampled Gaussian with p = 1.7e-8, found by the deep API fuzz)."""
    from ..directed_rounding import add_up, sub_down

    v = l_f(pair, div)
    err = l_f_rounding(pair, div)
    if err is not None and math.isfinite(v):
        v = float(add_up(v, err)) if up else float(sub_down(v, err))
    if not up:
        return max(v, 0.0)
    # and at most F(0) + τ_F, the divergence of two disjoint distributions (TV ≤ 1: a widened TV of 1 − 1e-16
    # must not read 1 + 4e-16)
    top = float(add_up(div.F0, div.tau))
    return min(v, top) if math.isfinite(top) else v


# ---------------------------------------------------------------------------------------------- quadrature
# The quadrature runs in the coordinate u with x = Φ(−u) (dx = φ(u) du): both ends of [0, 1] stay
# resolved to full relative precision (x near 1 is u ≪ 0), and for G_μ the slope is simply
# f′ = −exp(μu − μ²/2). ``tradeoff_slope`` therefore returns the slope as a function of u.
#: the quadrature in u runs over [−U_MAX, U_MAX]
U_MAX = 40.0


@singledispatch
def tradeoff_slope(mech: Any) -> tuple[Callable[[float], float], list[float], float, float]:
    """(u ↦ log|f′(Φ(−u))|, break points in u, f(0), z_f) of a trade-off function, in closed form."""
    raise ValueError(f"no closed-form slope for {type(mech).__name__}; use l_f on its pairs")


def _u_of(x: float) -> float:
    """u with Φ(−u) = x."""
    return float(-ndtri(x))


@tradeoff_slope.register
def _(mech: Gaussian):
    # f(x) = Φ(z − μ), z = Φ⁻¹(1 − x) = u:  f′(x) = −φ(z − μ)/φ(z) = −exp(μu − μ²/2)
    mu = mech.mu
    return (lambda u: mu * u - mu * mu / 2), [], 1.0, 1.0


@tradeoff_slope.register
def _(mech: Laplace):
    # f(x) = 1 − e^m x (x < e^{−m}/2), e^{−m}/(4x) (x ≤ ½), e^{−m}(1 − x): slopes −e^m, −e^{−m}/(4x²), −e^{−m}
    m = mech.m
    em = math.exp(-m)
    u1 = _u_of(em / 2)  # x < e^{−m}/2  ⟺  u > u1;  x ≤ ½  ⟺  u ≥ 0

    def slope(u: float) -> float:
        if u > u1:
            return m
        if u >= 0.0:
            return -m - math.log(4.0) - 2.0 * float(log_ndtr(-u))
        return -m

    return slope, [u1, 0.0], 1.0, 1.0


def _pair_slope(pair: DiscretePair):
    a, b = vertices(pair)
    with np.errstate(divide="ignore"):
        log_s = np.log(-np.diff(b) / np.diff(a))

    def slope(u: float) -> float:
        x = float(ndtr(-u))
        k = int(np.clip(np.searchsorted(a, x, side="right") - 1, 0, log_s.size - 1))
        return float(log_s[k])

    z = float(a[np.argmax(b <= 0)]) if np.any(b <= 0) else 1.0
    return slope, [_u_of(x) for x in a[1:-1] if 0.0 < x < 1.0], float(b[0]), z


@tradeoff_slope.register
def _(mech: PairMechanism):
    return _pair_slope(mech.pairs()[0])


@tradeoff_slope.register
def _(pair: DiscretePair):
    return _pair_slope(pair)


def l_f_quad(obj: Any, div: FDivergence, *, epsabs: float = 1e-13, epsrel: float = 1e-11) -> float:
    """l_F(f) by adaptive quadrature of [MIX] Lemma B.4, from the slope f′ (``tradeoff_slope``).

    ∫₀^{z_f} F(1/|f′(x)|)·|f′(x)| dx + F(0)(1 − f(0)) + τ_F(1 − z_f), integrated in u with
    x = Φ(−u) (full precision at both ends). Kinks of f′, a few fixed points and, for the hockey-stick
    and TV divergences, the point where 1/|f′| hits the kink of F are passed to the integrator.
    Raises ArithmeticError if the integrator reports non-convergence (then use ``l_f_bounds``).
    """
    from scipy import integrate  # ~0.15 s to import (it pulls scipy.optimize): only where a quadrature runs

    slope, points, f0, z = tradeoff_slope(obj)
    u_end = _u_of(z) if z < 1.0 else -math.inf  # x ≤ z  ⟺  u ≥ u_end

    log_norm = 0.5 * math.log(2 * math.pi)

    def integrand(u: float) -> float:
        ls = slope(u)  # log|f′|
        lp = -u * u / 2 - log_norm  # log φ(u)
        if ls == -math.inf:  # a flat piece inside [0, z_f) cannot occur; τ_F·pdf is its limit
            return (float(div.tau) if math.isfinite(div.tau) else 0.0) * math.exp(lp)
        if div.weighted is not None:
            return div.weighted(ls, lp)
        with np.errstate(over="ignore", invalid="ignore"):
            s = math.exp(min(ls, 709.0))
            val = float(div(math.exp(-ls) if ls > -709.0 else math.inf)) * s * math.exp(lp)
        return val if math.isfinite(val) else 0.0

    pts = list(points) + [-8.0, -4.0, -2.0, 0.0, 2.0, 4.0, 8.0]
    if div.kink is not None:  # log|f′| = −log(kink); |f′(Φ(−u))| is non-decreasing in u (f convex)
        target = -math.log(div.kink)
        lo, hi = -U_MAX, U_MAX
        if slope(lo) < target < slope(hi):
            for _ in range(200):
                mid = 0.5 * (lo + hi)
                lo, hi = (lo, mid) if slope(mid) > target else (mid, hi)
            pts.append(0.5 * (lo + hi))
    start = max(u_end, -U_MAX)  # φ(±40) ≈ 1e-348: nothing beyond contributes
    pts = sorted(set(p for p in pts if start < p < U_MAX and math.isfinite(p)))
    edges = [start]
    for p in [*pts, U_MAX]:  # break points closer than 1e-9 are one (a degenerate piece upsets quad)
        if p - edges[-1] > 1e-9:
            edges.append(p)
    edges[-1] = U_MAX
    total = 0.0
    for lo, hi in zip(edges[:-1], edges[1:]):
        if hi > lo:
            with warnings.catch_warnings():
                warnings.simplefilter("error", integrate.IntegrationWarning)
                try:
                    val, _ = integrate.quad(integrand, lo, hi, epsabs=epsabs, epsrel=epsrel, limit=500)
                except integrate.IntegrationWarning as exc:
                    raise ArithmeticError(
                        f"quadrature of Lemma B.4 did not converge on u ∈ [{lo:g}, {hi:g}] ({exc}); use l_f_bounds"
                    ) from None
            total += val
    total += div.F0 * (1.0 - f0) if f0 < 1 else 0.0
    if z < 1:
        total += math.inf if math.isinf(div.tau) else div.tau * (1.0 - z)
    return total


# ---------------------------------------------------------------------------------------------- named views
def profile_from_lf(obj: Any, eps: float) -> tuple[float, float]:
    """δ(ε) = H_{e^ε} as l_F of the hockey-stick F (Lemma B.4), as a certified (lower, upper)."""
    return l_f_bounds(obj, hockey_stick(math.exp(eps)))


def renyi_from_power(power_divergence: float, order: float) -> float:
    """R_a = log(1 + a(a−1)·D_{F_a})/(a − 1) ([MIX] Cor B.6: e^{(a−1)R_a} = ∫|f′|^{1−a})."""
    a = float(order)
    return math.log1p(a * (a - 1.0) * power_divergence) / (a - 1.0)


def renyi_bounds(obj: Any, order: float) -> tuple[float, float]:
    """Certified Rényi divergence R_a(P‖Q) of order a > 1 from the trade-off function (Cor B.6).

    Finite for the Gaussian (R_a = a·μ²/2) and Laplace mechanisms through :func:`closed_form`.

    >>> import dpcompare as dc
    >>> lo, hi = renyi_bounds(dc.Gaussian(mu=1.0), 4.0)
    >>> lo <= 2.0 <= hi, hi - lo < 1e-11
    (True, True)
    """
    div = power(order)
    r = renyi_closed_form(obj, div.param)
    if r is not None:
        return max(r * (1.0 - CLOSED_FORM_RTOL), 0.0), r * (1.0 + CLOSED_FORM_RTOL) + 1e-300
    lo, hi = l_f_bounds(obj, div)
    # R_a ≥ 0: an end below 0 (the power divergence's ends within rounding of 1, e.g. PureDP(eps=1e-300),
    # found by the deep API fuzz) is moved up to 0, towards the truth
    return max(renyi_from_power(lo, order), 0.0), max(renyi_from_power(hi, order), 0.0)


def curve_length(pair: DiscretePair) -> float:
    """Length of the graph of f on [0, 1] including a drop at 0 and a flat tail (Prop B.7), exactly."""
    return l_f(pair, LENGTH)


# ---------------------------------------------------------------------------------------------- joint convexity
def joint_convexity_terms(weights: Any, P: Sequence[Any], Q: Sequence[Any], div: FDivergence) -> tuple[float, float]:
    """(D_F(P_w‖Q_w), Σᵢ wᵢ D_F(Pᵢ‖Qᵢ)) for mixtures on a common finite outcome space.

    [MIX] Prop 3.3 (Cor B.5 for H_γ, Cor B.6 for the power divergence): the first is ≤ the second.
    The right-hand side is l_F of the Lemma 3.1 pair (revealed index), computed independently.
    """
    from .joint_concavity import exact_mixture_pair, mixture_pair

    w = check_weights(weights, size=len(P))
    exact = exact_mixture_pair(w, P, Q)
    comps = [DiscretePair.from_masses(np.asarray(p, float), np.asarray(q, float)) for p, q in zip(P, Q)]
    rhs = math.fsum(wi * l_f(c, div) for wi, c in zip(w, comps) if wi > 0)
    via_bound = l_f(mixture_pair(w, comps), div)
    if math.isfinite(rhs) and abs(via_bound - rhs) > 1e-12 * max(1.0, abs(rhs)):
        raise ArithmeticError("l_F of the Lemma 3.1 pair differs from Σ wᵢ D_F(Pᵢ‖Qᵢ)")
    return l_f(exact, div), rhs


def divergence_of(obj: Any, div: FDivergence) -> float:
    """D_F for a mechanism or pair, from its pessimistic pair (the guarantee side: never understated)."""
    if isinstance(obj, Mechanism) or isinstance(obj, DiscretePair) or callable(obj):
        return l_f_bounds(obj, div)[1]
    raise ValueError(f"expected a mechanism, a DiscretePair or a callable, got {type(obj).__name__}")


__all__ = [
    "CLOSED_FORM_RTOL",
    "FDivergence",
    "Family",
    "closed_form",
    "renyi_closed_form",
    "KL",
    "LENGTH",
    "TV",
    "curve_length",
    "divergence_of",
    "hockey_stick",
    "joint_convexity_terms",
    "l_f",
    "l_f_bounds",
    "l_f_quad",
    "l_f_rounding",
    "l_f_symmetric",
    "power",
    "profile_from_lf",
    "renyi_bounds",
    "renyi_from_power",
    "tradeoff_slope",
]
