"""Independent references for the domain harness: the closed forms in mpmath at 50 digits.

Nothing here imports dpcompare: every formula is written from its source again, so a shared bug
cannot hide. All profiles are of the *symmetrised* trade-off f_sym = conv(min(f, f⁻¹)), whose
privacy profile is δ_sym(ε) = max(δ_{P‖Q}(ε), δ_{Q‖P}(ε)).

- Gaussian μ (Dong, Roth, Su 2022, Cor 2.13; [SI] eq 7.1):
  δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2);  f(α) = Φ(Φ⁻¹(1−α) − μ).
- Laplace with m = Δ/b ([BCP] Fig 3): δ(ε) = max(0, 1 − e^{(ε−m)/2});
  f(α) = 1 − e^m α on [0, e^{−m}/2], e^{−m}/(4α) on [e^{−m}/2, ½], e^{−m}(1−α) on [½, 1]
  (Dong, Roth, Su 2022, Example: Laplace trade-off).
- ε-DP / randomized response (f_{ε,0}) and (ε, δ₀)-DP (f_{ε,δ₀}, Dong, Roth, Su 2022 eq 5):
  f(α) = max(0, 1 − δ₀ − e^ε α, e^{−ε}(1 − δ₀ − α));
  δ(ε') = δ₀ + (1 − δ₀)·(e^ε − e^{ε'})₊/(1 + e^ε).
- Subsampled Gaussian, one step ([BCP] §5; the loss is monotone in the output x, so each
  direction's profile is a difference of Gaussian tails at the point x_ε where ℓ(x) = ε):
  P = N(0, σ²), Q = (1−p)N(0, σ²) + pN(1, σ²).
- Bayes error R(π) = π(1 − δ(log((1−π)/π))) for π ≤ ½ and R(π) = R(1−π).
- Discrete pairs in rational arithmetic (``fractions.Fraction``): mixtures of masses and the trade-off
  T(P, Q) by Neyman–Pearson, so a mass such as w·q = 2.5e-324 that floats round to 0 keeps f(0) = 1.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from fractions import Fraction

import mpmath as mp

mp.mp.dps = 50

def Phi(x):
    """Φ(x); beyond |x| = 1e8 (where mpmath's erfc overflows an int) the Mills-ratio series
    Φ(−x) = φ(x)/x·(1 − 1/x² + 3/x⁴ − …), whose relative error there is below 1e-40."""
    x = mp.mpf(x)
    if x < -1e8:
        return mp.npdf(x) / (-x) * (1 - 1 / x**2 + 3 / x**4)
    if x > 1e8:
        return 1 - Phi(-x)
    return mp.ncdf(x)


def _sf(x):  # Φ̄(x) = Φ(−x), accurate in the upper tail
    return Phi(-x)


# ---------------------------------------------------------------------------------------------- profiles
def gaussian_delta(mu, eps):
    """The two Φ terms agree to ~|log₁₀ μ| digits when μ is tiny: work with that many more."""
    mu, eps = mp.mpf(mu), mp.mpf(eps)
    if mp.isinf(eps):
        return mp.mpf(0)
    extra = int(max(0, -mp.log10(mu))) + 10
    with mp.workdps(mp.mp.dps + extra):
        return +max(mp.mpf(0), Phi(-eps / mu + mu / 2) - mp.e**eps * Phi(-eps / mu - mu / 2))


def gaussian_tradeoff(mu, alpha):
    alpha = mp.mpf(alpha)
    if alpha <= 0:
        return mp.mpf(1)
    if alpha >= 1:
        return mp.mpf(0)
    # Φ⁻¹(1−α) = −√2·erfinv(2α−1); 2α − 1 keeps α only with −log₁₀ α extra digits (at 50 digits
    # α = 4e-52 vanished in it and the reference itself was 16 % low: found by the deep profile)
    with mp.workdps(mp.mp.dps + max(0, int(-mp.log10(alpha))) + 10):
        return +Phi(-mp.sqrt(2) * mp.erfinv(2 * alpha - 1) - mp.mpf(mu))


def laplace_delta(m, eps):
    m, eps = mp.mpf(m), mp.mpf(eps)
    if eps >= m:
        return mp.mpf(0)
    return -mp.expm1((eps - m) / 2)


def laplace_tradeoff(m, alpha):
    m, a = mp.mpf(m), mp.mpf(alpha)
    if a <= mp.e ** (-m) / 2:
        return 1 - mp.e**m * a
    if a <= mp.mpf(1) / 2:
        return mp.e ** (-m) / (4 * a)
    return mp.e ** (-m) * (1 - a)


def approxdp_delta(eps0, d0, eps):
    eps0, d0, eps = mp.mpf(eps0), mp.mpf(d0), mp.mpf(eps)
    if eps >= eps0:
        return d0
    # (e^ε₀ − e^ε)/(1 + e^ε₀) = (1 − e^{ε−ε₀})/(1 + e^{−ε₀}), stable for ε₀ up to 1e15
    return d0 + (1 - d0) * (-mp.expm1(eps - eps0)) / (1 + mp.e ** (-eps0))


def approxdp_tradeoff(eps0, d0, alpha):
    eps0, d0, a = mp.mpf(eps0), mp.mpf(d0), mp.mpf(alpha)
    return max(mp.mpf(0), 1 - d0 - mp.e**eps0 * a, mp.e ** (-eps0) * (1 - d0 - a))


def sgm1_delta(sigma, p, eps):
    """One step of the Poisson-subsampled Gaussian, symmetrised: max over the two directions."""
    s, p, eps = mp.mpf(sigma), mp.mpf(p), mp.mpf(eps)
    ee = mp.e**eps
    out = mp.mpf(0)
    # remove: ℓ(x) = log(1 − p + p·e^{(2x−1)/(2σ²)}) increasing; δ = Q(x > x_ε) − e^ε P(x > x_ε)
    if ee > 1 - p:
        x = s**2 * mp.log((ee - (1 - p)) / p) + mp.mpf(1) / 2
        out = max(out, (1 - p) * _sf(x / s) + p * _sf((x - 1) / s) - ee * _sf(x / s))
    else:
        out = max(out, 1 - ee)
    # add: ℓ'(x) = −ℓ(x) decreasing; δ' = P(x < x') − e^ε Q(x < x'), with e^{−ε} > 1 − p
    if 1 / ee > 1 - p:
        x = s**2 * mp.log((1 / ee - (1 - p)) / p) + mp.mpf(1) / 2
        out = max(out, Phi(x / s) - ee * ((1 - p) * Phi(x / s) + p * Phi((x - 1) / s)))
    return max(out, mp.mpf(0))


def sgm1_bayes_error(sigma, p, pi):
    """One step of the Poisson-subsampled Gaussian, symmetrised: min(R(π), R(1−π)) ([BCP] eq 2).

    Remove direction P = N(0, σ²), Q = (1−p)N(0, σ²) + pN(1, σ²): the loss is increasing in x, so
    R(π) = π·P(x ≥ x_λ) + (1−π)·Q(x < x_λ) with ℓ(x_λ) = λ = log(π/(1−π)); the add direction is the
    swap, whose Bayes error is R(1−π)."""
    s, p = mp.mpf(sigma), mp.mpf(p)

    def remove(pi, om):  # om = 1 − π, passed separately so that π = 1e-300 keeps its mirror exact
        lam_e = pi / om
        if lam_e <= 1 - p:
            return pi  # every outcome has ℓ ≥ λ
        x = s**2 * mp.log((lam_e - (1 - p)) / p) + mp.mpf(1) / 2
        return pi * _sf(x / s) + om * ((1 - p) * Phi(x / s) + p * Phi((x - 1) / s))

    pi = mp.mpf(pi)
    return min(remove(pi, 1 - pi), remove(1 - pi, pi))


# ---------------------------------------------------------------------------------------------- derived views
def epsilon_from(delta_fn, delta, hi=None):
    """Smallest ε ≥ 0 with δ(ε) ≤ delta, by bisection at 50 digits (δ non-increasing)."""
    delta = mp.mpf(delta)
    if delta_fn(mp.mpf(0)) <= delta:
        return mp.mpf(0)
    lo, up = mp.mpf(0), mp.mpf(1) if hi is None else mp.mpf(hi)
    while delta_fn(up) > delta:
        lo, up = up, up * 4
        if up > mp.mpf(10) ** 320:
            return mp.inf
    for _ in range(4000):  # relative tolerance: answers such as ε = 1e-240 keep their digits
        mid = up / 2**40 if lo == 0 else (mp.sqrt(lo * up) if up > 4 * lo else (lo + up) / 2)
        if delta_fn(mid) > delta:
            lo = mid
        else:
            up = mid
        if up - lo <= mp.mpf(10) ** -30 * up:
            break
    return up


def bayes_error_from(delta_fn, pi):
    """R(π) = π(1 − δ(log((1−π)/π))); 1 − δ can be as small as 1e-300, so it is taken at 400 digits."""
    with mp.workdps(400):
        pi = mp.mpf(pi)
        if pi > mp.mpf(1) / 2:
            pi = 1 - pi
        if pi <= 0:
            return mp.mpf(0)
        return +(pi * (1 - delta_fn(mp.log((1 - pi) / pi))))


def rational_mixture(u: Sequence[float], v: Sequence[float], w: float) -> list[Fraction]:
    """(1 − w)·u + w·v, entry by entry, exactly (every double is a rational)."""
    wf = Fraction(w)
    return [(1 - wf) * Fraction(a) + wf * Fraction(b) for a, b in zip(u, v)]


def exact_tradeoff(p: Sequence[Fraction], q: Sequence[Fraction], x: Sequence[float]) -> list[float]:
    """T(P, Q)(x) exactly, rounded to doubles at the end: Neyman–Pearson rejects outcomes by decreasing
    q/p (outcomes with p = 0 first); the vertices are (Σ p, 1 − Σ q) over the outcomes rejected so
    far, and f is linear in between (Dong, Roth & Su 2022, Def 2.1 and the Neyman–Pearson lemma)."""
    order = sorted(range(len(p)), key=lambda i: (p[i] == 0, q[i] / p[i] if p[i] else q[i]), reverse=True)
    va, vb = [Fraction(0)], [Fraction(1)]
    for i in order:
        va.append(va[-1] + p[i])
        vb.append(vb[-1] - q[i])
    out = []
    for xf in map(Fraction, x):
        k = bisect.bisect_right(va, xf) - 1  # the last vertex with α ≤ x: the lowest β at a repeated α
        if va[k] == xf or k + 1 == len(va):
            out.append(float(vb[k]))
        else:
            t = (xf - va[k]) / (va[k + 1] - va[k])
            out.append(float(vb[k] + t * (vb[k + 1] - vb[k])))
    return out
