"""Certified N-fold composition of a pair with two finite atoms (randomized response, ε-DP, (ε, δ)-DP).

One step: P-masses pₐ, p_b at losses ℓₐ < ℓ_b, Q-masses qₐ = pₐe^{ℓₐ}, q_b = p_b e^{ℓ_b}, and possibly
P-mass p₋∞ at ℓ = −∞ and Q-mass q₊∞ at ℓ = +∞. N independent steps with j outcomes at ℓ_b and N − j at
ℓₐ have loss ℓ = (N − j)·ℓₐ + j·ℓ_b and masses

    P_j = s_P^N · Bin(j; N, p_b/s_P),   Q_j = s_Q^N · Bin(j; N, q_b/s_Q),   s_P = pₐ + p_b,  s_Q = qₐ + q_b,

and every outcome with a step at ±∞ is at ±∞: P(ℓ = −∞) = 1 − s_P^N, Q(ℓ = +∞) = 1 − s_Q^N. So the
composed pair has at most N + 1 finite atoms, with closed-form masses: no grid, no FFT.

The binomial log-probabilities are Loader's saddle-point form ("Fast and accurate computation of binomial
probabilities", C. Loader, 2000; R's dbinom):

    log Bin(j; N, π) = stirlerr(N) − stirlerr(j) − stirlerr(N−j) − bd0(j, Nπ) − bd0(N−j, N(1−π))
                       − ½·log(2π·j·(N−j)/N),      bd0(x, m) = x·log(x/m) + m − x ≥ 0,

whose terms are non-negative or small, so the log-mass has an absolute error of a few u times the
magnitude of its terms (unlike log N! − log j! − log(N−j)!, which loses u·N·log N). Each atom carries
that a-priori bound eᵢ; with rᵢ = e^{eᵢ} − 1 the relative error of its masses, every δ(ε) and every
Bayes error R(π) of the stored pair is within η = Σᵢ rᵢ·(pᵢ + qᵢ) + (n + 8)·u of the true pair's
(δ: |Σ_{ℓᵢ>ε} Δqᵢ − e^ε Δpᵢ| ≤ Σ rᵢ(qᵢ + e^ε pᵢ) ≤ 2Σ rᵢqᵢ; R: |Σ Δmin(πpᵢ, (1−π)qᵢ)| ≤ Σ rᵢ·max(pᵢ, qᵢ)),
plus the atoms left out (below e^{−800} on both sides, :func:`binomial_window`).

The one-step pair's doubles are not the mechanism's real numbers either (log(1/(1+e)) is rounded; a
parameter like log 3 is too), and N steps multiply their error. Let the true one-step log-masses be
log p̃ᵥ = log pᵥ + αᵥ, log q̃ᵥ = log qᵥ + βᵥ (v ∈ {a, b}), |αᵥ| ≤ e(log pᵥ), |βᵥ| ≤ e(log qᵥ), where e is
the input error (:func:`input_log_error`: 32u·(1 + |x|) per log-mass by default). The true loss is
ℓ̃ᵥ = log q̃ᵥ − log p̃ᵥ, so |ℓᵥ − ℓ̃ᵥ| ≤ e_ℓᵥ = e(log pᵥ) + e(log qᵥ) + |ℓᵥ − (log qᵥ − log pᵥ)| (the last term,
the stored pair's own inconsistency, is computed, with its rounding). Then, for the atom with j outcomes b:

    log P̃ⱼ − log Pⱼ = (N − j)·αₐ + j·α_b,   so |·| ≤ (N − j)·e(log pₐ) + j·e(log p_b) ≤ N·max e(log p),

the same for Q with β, and |L̃ⱼ − Lⱼ| ≤ (N − j)·e_ℓₐ + j·e_ℓ_b: a relative error u in a one-step mass is a
relative error ≤ e^{N·u} − 1 ≤ N·u·e^{N·u} in a composed mass (N·u·(1 + N·u) for N·u ≤ 1). A loss error d
enters like a relative mass error e^{|d|} − 1: an atom's δ-term q·(1 − e^{ε−ℓ}) moves by ≤ q·(e^{|d|} − 1),
also where ℓ and ℓ̃ lie on either side of ε (there |q̃ − e^ε p̃| = p̃·|e^{ℓ̃} − e^ε| ≤ q̃·(e^{|d|} − 1)); R(π)
reads the masses only. So these terms are added to each atom's log-error eᵢ before η is formed. The ±∞ masses 1 − s^N: log s̃ − log s lies
between min αᵥ and max αᵥ (s = pₐ + p_b), so s̃^N = s^N·e^{θ}, |θ| ≤ N·max e(log pᵥ), and 1 − s^N is off by
≤ (e^{N·max e} − 1)·s^N (Q: with β). With e = 32u·(1 + |x|) this is ≈ 1e-8·(P + Q) at N = 10⁶, ε₀ = 1.

>>> import dpcompare as dc, math
>>> pair, eta = compose_two_atoms(dc.RandomizedResponse(eps=1.0).pairs()[0], 10)
>>> pair.size, bool(eta < 1e-12)
(11, True)
>>> round(float(pair.delta(0.0)), 12)   # P(Bin(10, e/(1+e)) ≥ 6) − P(Bin(10, 1/(1+e)) ≥ 6), the closed form
0.869597463185
"""

from __future__ import annotations

import math

import numpy as np

from ..tradeoff import DiscretePair

#: unit roundoff
U = 2.0**-53
#: atoms whose P- and Q-log-masses are both below this are left out (their mass, < e^{−800}·(N+1), is
#: below the smallest double for N < 10¹⁵ and is added to η as one subnormal)
LOG_MASS_FLOOR = -800.0
#: the declared input error of the one-step pair: each log-mass x is within INPUT_ULPS·u·(1 + |x|) of the
#: mechanism's real value (the package's builders of two-atom pairs, ``mechanisms.discrete._rr_pair`` and
#: ``mechanisms.events.randomized_response_pair`` with ``DiscretePair.from_atoms``, are within ≈ 15u·(1 + |x|),
#: first order, with 4 ulp per elementary function: twice that)
INPUT_ULPS = 32.0
#: largest |composed loss| N·max|ℓ| the binomial route serves: each loss is rounded by ≈ u·|ℓ|, which enters η
#: as a relative error of the atom's masses (≤ 2e-8 here); beyond, the caller takes another route
MAX_ABS_LOSS = 1e8
#: largest number of atoms the binomial route builds (≈ 130 MB of working arrays); beyond, the caller
#: takes another route
MAX_ATOMS = 1 << 20

#: stirlerr(n) = log n! − (n + ½)·log n + n − ½·log 2π for n = 0 … 15 (40-digit mpmath; 0 at n = 0 by
#: convention, unused); tests/composition/test_binomial_composition.py recomputes them
_STIRLERR_SMALL = np.array([
    0.0, 0.08106146679532726, 0.0413406959554093, 0.02767792568499834, 0.020790672103765093,
    0.016644691189821193, 0.013876128823070748, 0.01189670994589177, 0.010411265261972096,
    0.009255462182712733, 0.00833056343336287, 0.007573675487951841, 0.00694284010720953,
    0.006408994188004207, 0.0059513701127588475, 0.005554733551962801,
])


def stirlerr(n: np.ndarray) -> np.ndarray:
    """log n! − log(√(2πn)·(n/e)ⁿ) for integers n ≥ 0 (Loader 2000: a table below 16, the Stirling
    series 1/12n − 1/360n³ + 1/1260n⁵ − 1/1680n⁷ + 1/1188n⁹ above, truncation ≤ 1.2e-16 at n = 16).

    >>> round(float(stirlerr(np.array([100.0]))[0]), 15)   # 1/1200 − 1/360e6 + …
    0.000833330555635
    """
    n = np.asarray(n, dtype=float)
    small = n <= 15
    nn = np.where(small, 16.0, n)
    n2 = nn * nn
    s0, s1, s2, s3, s4 = 1 / 12, 1 / 360, 1 / 1260, 1 / 1680, 1 / 1188
    big = np.where(nn > 500, (s0 - s1 / n2) / nn,
                   np.where(nn > 80, (s0 - (s1 - s2 / n2) / n2) / nn,
                            np.where(nn > 35, (s0 - (s1 - (s2 - s3 / n2) / n2) / n2) / nn,
                                     (s0 - (s1 - (s2 - (s3 - s4 / n2) / n2) / n2) / n2) / nn)))
    return np.where(small, _STIRLERR_SMALL[np.clip(n, 0, 15).astype(np.int64)], big)


def bd0(x: np.ndarray, log_m: np.ndarray, m: np.ndarray | None = None, m_rel: np.ndarray | float | None = None
        ) -> tuple[np.ndarray, np.ndarray]:
    """(bd0(x, m), a bound on its absolute error) with bd0(x, m) = x·log(x/m) + m − x ≥ 0, m = e^{log m}
    (Loader 2000: near x = m the series 2x·Σ v^{2j+1}/(2j+1) − (x − m)·… with v = (x − m)/(x + m), which
    has no cancellation; elsewhere the direct form). ``log_m`` is given so that m below the smallest double
    (a step probability of e^{−800}) still works; ``m`` (with its relative error ``m_rel``) where the caller
    has it more accurately than e^{log m} (whose relative error is u·(1 + |log m|)).

    >>> v, _ = bd0(np.array([3.0]), np.log(np.array([2.0])))
    >>> round(float(v[0]), 15) == round(3 * math.log(1.5) - 1, 15)
    True
    """
    x = np.asarray(x, dtype=float)
    log_m = np.asarray(log_m, dtype=float)
    if m is None:
        m = np.exp(log_m)
        m_rel = U * (1.0 + np.abs(log_m))
    m = np.asarray(m, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        log_x = np.where(x > 0, np.log(np.where(x > 0, x, 1.0)), 0.0)
        # log(x/m) as the log of one quotient where m is a normal double (error u·(1 + |log(x/m)|)), else
        # log x − log m (error u·(|log x| + |log m|))
        normal = log_m > -700.0
        ratio = np.where(normal & (x > 0), np.log(np.where(normal & (x > 0), x, 1.0) / np.where(normal, m, 1.0)), log_x - log_m)
        ratio_err = np.where(normal, 1.0 + np.abs(ratio), np.abs(log_x) + np.abs(log_m) + 1.0)
        direct = np.where(x > 0, x * ratio, 0.0) + m - x
        direct_err = 8 * U * (x * ratio_err + m + 1e-300)
        near = (x > 0) & (np.abs(x - m) < 0.1 * (x + m))
        v = np.where(near, (x - m) / np.where(near, x + m, 1.0), 0.0)
        s = (x - m) * v
        ej = 2 * x * v
        v2 = v * v
        series = s.copy()
        for j in range(1, 40):  # |v| < 0.1: each term is 100× smaller; 20 terms reach 1e-40 relative
            ej = ej * v2
            term = ej / (2 * j + 1)
            series = series + term
            if not np.any(np.abs(term) > 1e-17 * np.abs(series)):
                break
        # m carries the relative error m_rel: bd0 moves by |x − m|·m_rel (∂bd0/∂log m = m − x)
        series_err = 8 * U * np.abs(series) + 2 * np.abs(x - m) * m_rel
    out = np.where(near, series, direct)
    err = np.where(near, series_err, direct_err)
    return np.maximum(out, 0.0), err


def binomial_log_pmf(n: int, j: np.ndarray, log_pi: float, log_rho: float) -> tuple[np.ndarray, np.ndarray]:
    """(log Bin(j; n, π), absolute error bound) for integers 0 ≤ j ≤ n, π = e^{log_pi}, 1 − π = e^{log_rho}
    (both given in log space: either may be far below the smallest double). Loader's form, module docstring.

    >>> lp, err = binomial_log_pmf(4, np.arange(5), math.log(0.5), math.log(0.5))
    >>> np.round(np.exp(lp) * 16, 12).tolist(), bool(np.all(err < 1e-13))
    ([1.0, 4.0, 6.0, 4.0, 1.0], True)
    """
    j = np.asarray(j, dtype=float)
    nf = float(n)
    log_n = math.log(nf)
    inner = (j > 0) & (j < nf)
    jj = np.where(inner, j, nf / 2)  # a placeholder inside (0, n) at the end points
    # n·π as a product where π is a normal double (relative error 2u), else from the logs
    ms = [(nf * math.exp(lg), 3 * U) if lg > -700.0 else (None, None) for lg in (log_pi, log_rho)]
    b1, e1 = bd0(jj, log_n + log_pi, *ms[0])
    b2, e2 = bd0(nf - jj, log_n + log_rho, *ms[1])
    lf = math.log(2 * math.pi) + np.log(jj) + np.log1p(-jj / nf)
    st = stirlerr(np.array([nf]))[0] - stirlerr(jj) - stirlerr(nf - jj)
    mid = st - b1 - b2 - 0.5 * lf
    mid_err = e1 + e2 + 8 * U * (0.3 + np.abs(lf) + np.abs(mid)) + 4e-16
    edge = np.where(j <= 0, nf * log_rho, nf * log_pi)
    edge_err = 4 * U * np.abs(edge)
    return np.where(inner, mid, edge), np.where(inner, mid_err, edge_err)


def _kl_bernoulli(x: float, log_pi: float, log_rho: float) -> float:
    """D(x ‖ π) = x·log(x/π) + (1−x)·log((1−x)/(1−π)), the binomial's Chernoff exponent per step."""
    a = 0.0 if x <= 0 else x * (math.log(x) - log_pi)
    b = 0.0 if x >= 1 else (1 - x) * (math.log1p(-x) - log_rho)
    return a + b


def binomial_window(n: int, log_pi: float, log_rho: float, floor: float = LOG_MASS_FLOOR) -> tuple[int, int]:
    """The integers j with Bin(j; n, π) possibly above e^{floor}: Bin(j; n, π) ≤ e^{−n·D(j/n ‖ π)}
    (the Chernoff bound, e.g. Arratia & Gordon 1989), and D(·‖π) is convex with its zero at π, so the
    window is the interval where n·D ≤ −floor, found by bisection on each side (widened by one).

    >>> binomial_window(10, math.log(0.5), math.log(0.5))
    (0, 10)
    >>> lo, hi = binomial_window(10**9, math.log(0.5), math.log(0.5)); hi - lo < 10**7
    True
    """
    target = -float(floor)
    pi = math.exp(log_pi)

    def edge(lo: float, hi: float, inside_at_lo: bool) -> float:
        # lo is inside (n·D ≤ target) when inside_at_lo, and hi outside; or the reverse
        for _ in range(200):
            mid = 0.5 * (lo + hi)
            if mid in (lo, hi):
                break
            if (n * _kl_bernoulli(mid, log_pi, log_rho) <= target) == inside_at_lo:
                lo = mid
            else:
                hi = mid
        return hi if inside_at_lo else lo

    left = 0.0 if n * _kl_bernoulli(0.0, log_pi, log_rho) <= target else edge(0.0, pi, inside_at_lo=False)
    right = 1.0 if n * _kl_bernoulli(1.0, log_pi, log_rho) <= target else edge(pi, 1.0, inside_at_lo=True)
    return max(0, math.floor(left * n) - 1), min(n, math.ceil(right * n) + 1)


def _two_atom_sides(pair: DiscretePair) -> tuple[float, float, float, float, float, float]:
    """(ℓₐ, ℓ_b, log pₐ, log p_b, log qₐ, log q_b) of a pair with two finite atoms (one atom: p_b = 0)."""
    lp, lq, loss = pair.log_p, pair.log_q, pair.loss
    if pair.size == 1:
        return float(loss[0]), float(loss[0]) + 1.0, float(lp[0]), -math.inf, float(lq[0]), -math.inf
    return float(loss[0]), float(loss[1]), float(lp[0]), float(lp[1]), float(lq[0]), float(lq[1])


def _atom_indices(lpa: float, lpb: float, lqa: float, lqb: float, steps: int) -> list[tuple[int, int]]:
    """The j-intervals to build: the union of the P-side and the Q-side binomial windows (outside both,
    both masses are below e^{LOG_MASS_FLOOR}); two intervals when they are apart (large ε: P near j = 0,
    Q near j = N)."""
    wins = []
    for a, b in ((lpa, lpb), (lqa, lqb)):
        s = float(np.logaddexp(a, b))
        wins.append(binomial_window(steps, b - s, a - s))
    (a0, a1), (b0, b1) = sorted(wins)
    return [(a0, max(a1, b1))] if b0 <= a1 + 1 else [(a0, a1), (b0, b1)]


def two_atom_window(pair: DiscretePair, steps: int) -> int:
    """Number of atoms :func:`compose_two_atoms` builds for ``steps`` steps of ``pair`` (both sides'
    windows), so that a caller can choose another route before any allocation."""
    la, lb, lpa, lpb, lqa, lqb = _two_atom_sides(pair)
    if not math.isfinite(lpb):
        return 1
    return sum(hi - lo + 1 for lo, hi in _atom_indices(lpa, lpb, lqa, lqb, steps))


def _inconsistency(loss: float, log_p: float, log_q: float) -> float:
    """|ℓ − (log q − log p)| of one stored atom, plus the rounding of computing it (an upper bound)."""
    if not (math.isfinite(log_p) and math.isfinite(log_q)):
        return 0.0
    return abs(loss - (log_q - log_p)) * (1 + 2 * U) + 2 * U * (abs(log_q) + abs(log_p) + abs(loss))


class LossesNotDistinct(ValueError):
    """The composed losses of a two-atom step coincide in double precision: the binomial route does not apply."""


def input_log_error(x: float) -> float:
    """The declared input error of one one-step log-mass x (``INPUT_ULPS``·u·(1 + |x|); 0 for x = −∞, an
    absent atom).

    >>> input_log_error(0.0) == 32 * 2.0**-53
    True
    """
    return 0.0 if not math.isfinite(x) else INPUT_ULPS * U * (1.0 + abs(x))


def compose_two_atoms(pair: DiscretePair, steps: int, *, input_error: float | None = None) -> tuple[DiscretePair, float]:
    """(the composed pair, η): ``steps`` compositions of a pair with one or two finite atoms (module
    docstring), every δ and Bayes error of the returned pair within η of the true mechanism's, certified.

    ``input_error``: a bound on the absolute error of each one-step log-mass (the same for all four); None
    takes :func:`input_log_error` of each, 0.0 treats the pair's doubles as exact (a caller that charges the
    inputs' rounding itself, like ``randomized_response.compose_randomized_response``)."""
    if pair.size not in (1, 2):
        raise ValueError(f"compose_two_atoms needs a pair with one or two finite atoms, got {pair.size}")
    n = int(steps)
    if n < 1:
        raise ValueError(f"steps must be an integer >= 1, got {steps!r}")
    la, lb, lpa, lpb, lqa, lqb = _two_atom_sides(pair)
    # the one-step inputs' error (module docstring): per log-mass, and per loss from the two log-masses
    ein = input_log_error if input_error is None else (lambda x: 0.0 if not math.isfinite(x) else float(input_error))
    e_pa, e_pb, e_qa, e_qb = ein(lpa), ein(lpb), ein(lqa), ein(lqb)
    e_la = e_pa + e_qa + _inconsistency(la, lpa, lqa) if e_pa + e_qa > 0 else 0.0
    e_lb = e_pb + e_qb + _inconsistency(lb, lpb, lqb) if e_pb + e_qb > 0 else 0.0
    log_sp, log_sq = float(np.logaddexp(lpa, lpb)), float(np.logaddexp(lqa, lqb))
    # log s carries the rounding of logaddexp (≤ 8u·(1 + |log s|), elementary functions within 4 ulp), and the
    # binomial's probabilities π = e^{log b − log s}, ρ = e^{log a − log s} inherit it: Loader's m + m′ − n
    # terms no longer cancel against N·log s, so every composed log-mass (and 1 − s^N) is off by ≤ N times it
    sp_err = 0.0 if not math.isfinite(lpb) or not math.isfinite(lpa) else n * 8 * U * (1.0 + abs(log_sp))
    sq_err = 0.0 if not math.isfinite(lqb) or not math.isfinite(lqa) else n * 8 * U * (1.0 + abs(log_sq))
    # 1 − s^N ≥ 0 in real numbers; a log s that rounds above 0 is within the error just stated (counted in η)
    p_inf = 1.0 if log_sp == -math.inf else max(0.0, -math.expm1(n * log_sp))  # 1 − s_P^N
    q_inf = 1.0 if log_sq == -math.inf else max(0.0, -math.expm1(n * log_sq))
    if not math.isfinite(lpb):  # one atom: N·ℓₐ with masses s^N
        log_p, log_q = np.array([n * lpa]), np.array([n * lqa])
        err = np.array([4 * U * (abs(n * lpa) + abs(n * lqa) + abs(n * la)) + n * (max(e_pa, e_qa) + e_la)])
        loss = np.array([n * la])
        kept_out = 0
    else:
        j = np.concatenate([np.arange(lo, hi + 1, dtype=np.int64) for lo, hi in _atom_indices(lpa, lpb, lqa, lqb, n)])
        kept_out = (n + 1) - j.size
        jf = j.astype(float)
        bp, ep = binomial_log_pmf(n, jf, lpb - log_sp, lpa - log_sp)
        bq, eq = binomial_log_pmf(n, jf, lqb - log_sq, lqa - log_sq)
        log_p = n * log_sp + bp
        log_q = n * log_sq + bq
        if la == -lb:  # symmetric steps (randomized response): ℓ = (2j − N)·ℓ_b, one rounding
            loss = (2 * jf - n) * lb
            loss_err = 2 * U * np.abs(loss)
        else:
            loss = n * la + jf * (lb - la)
            loss_err = 4 * U * (abs(n * la) + jf * abs(lb - la))
        # the inputs: (N − j)·e(a) + j·e(b) for each log-mass and for the loss (module docstring)
        in_p = (n - jf) * e_pa + jf * e_pb
        in_q = (n - jf) * e_qa + jf * e_qb
        in_l = (n - jf) * e_la + jf * e_lb
        err = np.maximum(ep + sp_err + in_p + 4 * U * (np.abs(log_p) + abs(n * log_sp)),
                         eq + sq_err + in_q + 4 * U * (np.abs(log_q) + abs(n * log_sq))) + loss_err + in_l
        keep = (log_p > LOG_MASS_FLOOR) | (log_q > LOG_MASS_FLOOR)
        kept_out += int(np.count_nonzero(~keep))
        loss, log_p, log_q, err = loss[keep], log_p[keep], log_q[keep], err[keep]
        if loss.size > 1 and not np.all(np.diff(loss) > 0):
            raise LossesNotDistinct("the composed losses are not distinct in double precision (step losses too close)")
    with np.errstate(over="ignore"):
        rel = np.expm1(err)
        eta = float(np.sum(rel * (np.exp(log_p) + np.exp(log_q))))
    eta += (loss.size + 8) * U + (5e-324 if kept_out else 0.0)
    # the ±∞ masses 1 − s^N: off by ≤ (e^{1.01·N·err(log s)} − 1)·s^N, err(log s) with the inputs' max e
    sp_in, sq_in = n * max(e_pa, e_pb), n * max(e_qa, e_qb)
    eta += math.expm1(1.01 * (sp_err + sp_in)) * (1.0 - p_inf) + math.expm1(1.01 * (sq_err + sq_in)) * (1.0 - q_inf)
    out = DiscretePair(loss, log_p, p_inf, q_inf, exact_log_q=log_q)
    return out, eta * (1 + 1e-6)


__all__ = ["LossesNotDistinct", "compose_two_atoms", "input_log_error", "INPUT_ULPS", "two_atom_window", "binomial_log_pmf", "binomial_window", "stirlerr", "bd0", "MAX_ABS_LOSS", "MAX_ATOMS"]
