"""Independent high-precision reference values (mpmath), shared by the tests and the benchmarks.

Nothing here imports dpcompare: every number comes from the closed-form privacy profiles evaluated
with mpmath at ``DPS`` significant digits.

Provenance
----------
- Gaussian mechanism G_μ (Balle & Wang 2018, Thm 8; Dong et al. 2022, Cor 2.13):
      δ_G(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2),   δ_G′(ε) = −e^ε Φ(−ε/μ − μ/2).
- Laplace mechanism, sensitivity/b = m:
      δ_L(ε) = max(0, 1 − e^{(ε−m)/2}),   δ_L′(ε) = −½ e^{(ε−m)/2} on [0, m), 0 beyond.
- Bayes error from the profile: R(π) = π(1 − δ(log((1−π)/π))) for π ≤ ½,
  R(π) = R(1−π).
- Δ-divergence ([BCP] Cor 1 / Thm 2 clause 2): for symmetric mechanisms, with π = 1/(1+e^ε),
      Δ(A‖B) = max(0, sup_{ε ≥ 0} g(ε)),  g(ε) = (δ_B(ε) − δ_A(ε)) / (1 + e^ε).
  g is smooth between the kinks of the profiles (ε = m for the Laplace mechanism); on each smooth
  piece the supremum is at an end or at a root of g′, located by a scan and refined with
  ``mpmath.findroot`` (Anderson's bracketing method) at DPS digits.
- Crossings: roots of δ_A(ε) − δ_B(ε) on ε > 0, found the same way; π = 1/(1+e^ε) and 1 − π.

[BCP] §5 (Figure 3) quotes Δ(G‖L) = 0.00527 at π = ½, Δ(L‖G) = 0.03414 at
π = 1/(1+e), crossing at π ≈ 0.4185, for μ = 1, b = 1.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

import mpmath as mp

DPS = 30

ProfileFn = Callable[[mp.mpf], mp.mpf]


# ------------------------------------------------------------------ profiles
def gauss_delta(eps, mu=1):
    """δ_G(ε) of G_μ (Balle & Wang 2018, Thm 8)."""
    eps, mu = mp.mpf(eps), mp.mpf(mu)
    return mp.ncdf(-eps / mu + mu / 2) - mp.exp(eps) * mp.ncdf(-eps / mu - mu / 2)


def gauss_delta_prime(eps, mu=1):
    eps, mu = mp.mpf(eps), mp.mpf(mu)
    return -mp.exp(eps) * mp.ncdf(-eps / mu - mu / 2)


def gauss_epsilon(delta, mu=1) -> mp.mpf:
    """ε(δ) of G_μ: the root of δ_G(ε) = δ, bracketed by 0 and μ²/2 + μ·√(2 ln(1/δ)) (the privacy
    loss is N(μ²/2, μ²), so its Gaussian tail bound puts δ_G below δ there), at DPS digits.
    ``delta`` is taken as given (a float 1e-5 is the double nearest 10⁻⁵, as the CLI receives it)."""
    with mp.workdps(DPS):
        d, mu = mp.mpf(delta), mp.mpf(mu)
        # on log δ: the root finder's tolerance is absolute, so δ − target itself would stop at once for δ ≪ 1
        return _refine_root(lambda e: mp.log(gauss_delta(e, mu)) - mp.log(d), mp.mpf(0),
                            mu * mu / 2 + mu * mp.sqrt(2 * mp.log(1 / d)))


def laplace_delta(eps, m=1):
    """δ_L(ε) = max(0, 1 − e^{(ε−m)/2}) of the Laplace mechanism with sensitivity/b = m."""
    eps, m = mp.mpf(eps), mp.mpf(m)
    return mp.mpf(0) if eps >= m else 1 - mp.exp((eps - m) / 2)


def laplace_delta_prime(eps, m=1):
    eps, m = mp.mpf(eps), mp.mpf(m)
    return mp.mpf(0) if eps >= m else -mp.exp((eps - m) / 2) / 2


def bayes_error(delta: ProfileFn, pi) -> mp.mpf:
    """R(π) = π(1 − δ(log((1−π)/π))) for π ≤ ½ and R(π) = R(1−π)."""
    pi = mp.mpf(pi)
    if pi <= 0 or pi >= 1:
        return mp.mpf(0)
    if pi > mp.mpf(1) / 2:
        pi = 1 - pi
    return pi * (1 - delta(mp.log((1 - pi) / pi)))


def rr_delta(eps, eps0=1):
    """δ(ε) = max(0, (e^{ε₀} − e^ε)/(1 + e^{ε₀})) of ε₀-randomized response (Dong et al. 2022, Prop 2.5)."""
    eps, eps0 = mp.mpf(eps), mp.mpf(eps0)
    return mp.mpf(0) if eps >= eps0 else (mp.exp(eps0) - mp.exp(eps)) / (1 + mp.exp(eps0))


def gdp_mu_at(delta: ProfileFn, eps) -> mp.mpf:
    """The μ with δ_{G_μ}(ε) = δ(ε) (δ_G is increasing in μ); 0 when δ(ε) = 0."""
    target = delta(eps)
    if target <= 0:
        return mp.mpf(0)
    lo, hi = mp.mpf(1), mp.mpf(1)
    while gauss_delta(eps, hi) < target:
        hi *= 2
    while gauss_delta(eps, lo) > target:
        lo /= 2
    return _refine_root(lambda mu: gauss_delta(eps, mu) - target, lo, hi)


def tightest_gdp_mu(delta: ProfileFn, eps_max, scan=200):
    """(sup_{ε≥0} μ_ε, argmax ε): M is μ-GDP iff δ_M(ε) ≤ δ_{G_μ}(ε) for all ε ≥ 0 (Dong et al. 2022,
    Cor 2.13, for symmetric f), so the tightest μ is the largest μ_ε = ``gdp_mu_at(δ, ε)``.

    A scan of [0, eps_max] and a golden-section refinement around the best scan point; the result
    is a lower bound of the supremum (tests compare with a tolerance in that direction).
    """
    with mp.workdps(DPS):
        return _golden_sup(lambda e: gdp_mu_at(delta, e), mp.mpf(eps_max), scan)


def _golden_sup(fn, x_max, scan):
    xs = [x_max * k / scan for k in range(scan + 1)]
    vals = [fn(x) for x in xs]
    k = max(range(len(xs)), key=lambda i: vals[i])
    a, b = xs[max(k - 1, 0)], xs[min(k + 1, scan)]
    best, arg = vals[k], xs[k]
    invphi = (mp.sqrt(5) - 1) / 2
    for _ in range(80):
        c, d = b - invphi * (b - a), a + invphi * (b - a)
        fc, fd = fn(c), fn(d)
        for x, fx in ((c, fc), (d, fd)):
            if fx > best:
                best, arg = fx, x
        if fc >= fd:
            b = d
        else:
            a = c
    return best, arg


# ------------------------------------------------------------------ maximisation / root finding
def _refine_root(fn, lo, hi):
    """Root of fn in [lo, hi] (fn(lo), fn(hi) of opposite signs), at DPS digits."""
    flo, fhi = fn(lo), fn(hi)
    if flo == 0:
        return lo
    if fhi == 0:
        return hi
    try:
        x = mp.findroot(fn, (lo, hi), solver="anderson")
        if lo <= x <= hi:
            return x
    except (ValueError, ZeroDivisionError):  # pragma: no cover - fall back to bisection
        pass
    for _ in range(4 * DPS):  # plain bisection: ~3.3 bits per digit
        mid = (lo + hi) / 2
        fm = fn(mid)
        if (fm > 0) == (flo > 0):
            lo, flo = mid, fm
        else:
            hi = mid
    return (lo + hi) / 2


def _sign_changes(fn, lo, hi, n):
    xs = [lo + (hi - lo) * mp.mpf(k) / n for k in range(n + 1)]
    vals = [fn(x) for x in xs]
    return [(xs[k], xs[k + 1]) for k in range(n) if (vals[k] > 0) != (vals[k + 1] > 0) or vals[k] == 0]


def sup_profile_gap(delta_a, delta_a_prime, delta_b, delta_b_prime, breakpoints, eps_max=40, scan=400):
    """(sup_{ε≥0} g(ε), argmax ε) with g(ε) = (δ_B(ε) − δ_A(ε))/(1+e^ε), g′ from the derivatives.

    ``breakpoints`` are the ε where a profile has a kink; the supremum over each smooth piece is at
    an end or a root of g′.
    """
    def g(e):
        return (delta_b(e) - delta_a(e)) / (1 + mp.exp(e))

    def gp(e):
        ex = mp.exp(e)
        return ((delta_b_prime(e) - delta_a_prime(e)) * (1 + ex) - (delta_b(e) - delta_a(e)) * ex) / (1 + ex) ** 2

    cuts = sorted({mp.mpf(0), mp.mpf(eps_max), *(mp.mpf(b) for b in breakpoints if 0 < b < eps_max)})
    candidates = list(cuts)
    for lo, hi in zip(cuts[:-1], cuts[1:]):
        # derivative just inside the piece (one-sided at the kinks)
        inner = lambda e, lo=lo, hi=hi: gp(min(max(e, lo + mp.mpf(10) ** (-DPS + 5)), hi - mp.mpf(10) ** (-DPS + 5)))
        for a, b in _sign_changes(inner, lo, hi, scan):
            candidates.append(_refine_root(inner, a, b))
    best = max(candidates, key=g)
    return g(best), best


def profile_crossings(delta_a, delta_b, breakpoints, eps_max=40, scan=400):
    """ε > 0 where δ_A(ε) = δ_B(ε) changes sign (crossings of the Bayes error functions)."""
    fn = lambda e: delta_a(e) - delta_b(e)  # noqa: E731
    cuts = sorted({mp.mpf(0), mp.mpf(eps_max), *(mp.mpf(b) for b in breakpoints if 0 < b < eps_max)})
    roots = []
    for lo, hi in zip(cuts[:-1], cuts[1:]):
        for a, b in _sign_changes(fn, lo, hi, scan):
            r = _refine_root(fn, a, b)
            if r > 0:
                roots.append(r)
    return roots


# ------------------------------------------------------------------ the Gaussian vs Laplace example
@dataclass(frozen=True)
class GaussLaplaceReference:
    """Reference numbers for Gaussian μ vs Laplace (sensitivity/b = m), as floats and mp strings."""

    mu: float
    m: float
    delta_gl: float  # Δ(Gauss‖Lap)
    pi_gl: float
    delta_lg: float  # Δ(Lap‖Gauss)
    pi_lg: float
    crossings: tuple[float, ...]  # π in (0, 1) where R_G = R_L, ascending
    delta_gl_str: str
    delta_lg_str: str


@lru_cache(maxsize=None)
def gauss_laplace_reference(mu: float = 1.0, m: float = 1.0) -> GaussLaplaceReference:
    """Δ(Gauss μ‖Lap m), Δ(Lap‖Gauss), their maximisers and the crossing priors, at DPS digits.

    >>> ref = gauss_laplace_reference()
    >>> round(ref.delta_gl, 5), round(ref.delta_lg, 5), round(ref.crossings[0], 4)
    (0.00527, 0.03414, 0.4185)
    """
    with mp.workdps(DPS):
        dg = lambda e: gauss_delta(e, mu)  # noqa: E731
        dgp = lambda e: gauss_delta_prime(e, mu)  # noqa: E731
        dl = lambda e: laplace_delta(e, m)  # noqa: E731
        dlp = lambda e: laplace_delta_prime(e, m)  # noqa: E731
        kinks = [m]
        # Δ(G‖L) = max_π (R_G − R_L) = sup_ε (δ_L − δ_G)/(1+e^ε)
        v_gl, e_gl = sup_profile_gap(dg, dgp, dl, dlp, kinks)
        v_lg, e_lg = sup_profile_gap(dl, dlp, dg, dgp, kinks)
        pis = []
        for e in profile_crossings(dg, dl, kinks):
            p = 1 / (1 + mp.exp(e))
            pis.extend([p, 1 - p])
        v_gl, v_lg = max(v_gl, mp.mpf(0)), max(v_lg, mp.mpf(0))
        return GaussLaplaceReference(
            mu=mu,
            m=m,
            delta_gl=float(v_gl),
            pi_gl=float(1 / (1 + mp.exp(e_gl))),
            delta_lg=float(v_lg),
            pi_lg=float(1 / (1 + mp.exp(e_lg))),
            crossings=tuple(sorted(float(p) for p in pis)),
            delta_gl_str=mp.nstr(v_gl, DPS - 2),
            delta_lg_str=mp.nstr(v_lg, DPS - 2),
        )


if __name__ == "__main__":  # pragma: no cover
    print(gauss_laplace_reference())
