"""Certified N-fold composition of a Gaussian-mixture dominating pair with a monotone privacy loss.

The subsampled Gaussian's construction (composition/sgm_step.py: a grid-aligned partition of the loss axis
in closed form, then tradeoff/compose.py steps 2–9) generalised to any one-step pair that is a
*disjoint mixture of components*, each a pair of Gaussian mixtures with a common scale s:

    component i (weight tᵢ, Σ tᵢ = 1):   Pᵢ = Σⱼ aᵢⱼ N(mᵢⱼ, sᵢ²),   Qᵢ = Σⱼ bᵢⱼ N(nᵢⱼ, sᵢ²)
    P = ⊕ tᵢ Pᵢ,  Q = ⊕ tᵢ Qᵢ  (the component is revealed: a publicly chosen mechanism)

Privacy loss of component i (the common e^{−x²/2s²} cancels, which keeps it accurate for large |x|):

    ℓᵢ(x) = LSE_j(log bᵢⱼ + (nᵢⱼ x − nᵢⱼ²/2)/s²) − LSE_j(log aᵢⱼ + (mᵢⱼ x − mᵢⱼ²/2)/s²)
    ℓᵢ′(x) = (E_{post Q}[n] − E_{post P}[m])/s² ≥ 0   when min_j nᵢⱼ ≥ max_j mᵢⱼ

so the loss is non-decreasing in x (required and checked: :class:`MixtureComponent`), and a loss
interval (a, b] is the x-interval (xᵢ(a), xᵢ(b]] of each component, with masses
Pᵢ(a, b] = Σⱼ aᵢⱼ (Φ((x(b) − mᵢⱼ)/s) − Φ((x(a) − mᵢⱼ)/s)) (and Q likewise), evaluated in log space by
the subsampled Gaussian's own routine (Gauss–Legendre on narrow cells, log_ndtr differences elsewhere,
with a relative error bound). A loss cell's masses are the tᵢ-weighted sums over the components: every
component's atoms in that cell have their losses inside it, so splitting (step 2) or merging (step 3)
the cell's merged atom is exactly splitting or merging all of them (the argument of tradeoff/compose.py
steps 2–3 does not need the cell to come from one component).

Pairs built here (:func:`mixture_of_gaussians_pair`, :func:`truncated_subsampled_gaussian_pair`) are
*remove* pairs (P = the record absent); the add pair is their swap and the N-fold add pair the swap of
the N-fold remove pair, so one composition serves both (as for the subsampled Gaussian).

x(ℓ) is found by safeguarded Newton iteration on the monotone ℓ(x) to a few ulps. Loss values below
ℓ(x_L) or above ℓ(x_R), x_{L,R} = (extreme centre) ∓ 40·s, are assigned to x_L, x_R: the mass beyond is
≤ Φ(−40) < 1e-348 per component and is charged to the error bound (``BEYOND_MASS``).

What is not certified beyond tradeoff/compose.py's own list: the cell edges are roots of the *computed*
loss, so an atom may sit outside its grid interval by the rounding of ℓ (≈ u·(1 + |terms|), ≲ 1e-9 nats
at the largest spreads, ≈ 1e-15 for ordinary ones) — the subsampled Gaussian's analytic inverse has the same
kind of error.
"""

from __future__ import annotations

import functools
import math
import time
from dataclasses import dataclass

import numpy as np

from .._numerics import ndtri
from ..tradeoff import Rounding
from ..tradeoff.grid import U, StepPartition

#: standard deviations beyond the extreme centres at which x(ℓ) is clipped (mass beyond < 1e-348)
X_CLIP = 40.0
#: mass charged to the error bound per component for the clipping above (Φ(−40) < 3.7e-350, rounded up)
BEYOND_MASS = 1e-300
#: largest ratio (centre spread)/scale we compose: the one-step loss then reaches ≈ spread²/2 ≈ 4.5e6 nats, within
#: the largest composed loss the grid pairs may carry (composition/sgm_grid.py MAX_ABS_LOSS = 1e7)
MAX_SPREAD = 3000.0
#: probability weights may sum to 1 within this (they are normalised, and the difference is charged)
WEIGHT_TOLERANCE = 1e-9


def _weights(name: str, w) -> tuple[float, ...]:
    w = tuple(float(v) for v in w)
    if not w or any(not (math.isfinite(v) and v >= 0.0) for v in w):
        raise ValueError(f"{name} must be a non-empty list of finite numbers >= 0, got {list(w)}")
    total = math.fsum(w)
    if abs(total - 1.0) > WEIGHT_TOLERANCE:
        raise ValueError(f"{name} must sum to 1 (within {WEIGHT_TOLERANCE:g}), got {total:.12g}")
    return w


@dataclass(frozen=True)
class MixtureComponent:
    """One component of a one-step pair: Pᵢ = Σ aⱼ N(mⱼ, s²), Qᵢ = Σ bⱼ N(nⱼ, s²) (module docstring).

    Requires min nⱼ ≥ max mⱼ over atoms of positive weight (then ℓ is non-decreasing in x) and a
    centre spread ≤ MAX_SPREAD·s.

    >>> c = MixtureComponent(1.0, (0.0,), (1.0,), (0.0, 1.0), (0.5, 0.5))
    >>> round(float(c.loss(np.array([0.5]))[0]), 12)   # log(½ + ½·e^{0}) = 0 at x = ½
    0.0
    """

    scale: float
    p_centers: tuple[float, ...]
    p_weights: tuple[float, ...]
    q_centers: tuple[float, ...]
    q_weights: tuple[float, ...]

    def __post_init__(self) -> None:
        s = float(self.scale)
        if not (math.isfinite(s) and s > 0.0):
            raise ValueError(f"scale must be finite and > 0, got {self.scale!r}")
        for name in ("p_centers", "q_centers"):
            c = tuple(float(v) for v in getattr(self, name))
            if not c or not all(math.isfinite(v) for v in c):
                raise ValueError(f"{name} must be a non-empty list of finite numbers, got {list(c)}")
            object.__setattr__(self, name, c)
        pw, qw = _weights("p_weights", self.p_weights), _weights("q_weights", self.q_weights)
        if len(pw) != len(self.p_centers) or len(qw) != len(self.q_centers):
            raise ValueError("each centre needs one weight")
        # drop zero-weight atoms (they carry no mass and would otherwise constrain monotonicity)
        p = [(c, w) for c, w in zip(self.p_centers, pw) if w > 0.0]
        q = [(c, w) for c, w in zip(self.q_centers, qw) if w > 0.0]
        object.__setattr__(self, "p_centers", tuple(c for c, _ in p))
        object.__setattr__(self, "p_weights", tuple(w for _, w in p))
        object.__setattr__(self, "q_centers", tuple(c for c, _ in q))
        object.__setattr__(self, "q_weights", tuple(w for _, w in q))
        object.__setattr__(self, "scale", s)
        if min(self.q_centers) < max(self.p_centers):
            raise ValueError(
                "the privacy loss is monotone only if every Q centre is >= every P centre; got Q centres "
                f"{list(self.q_centers)} and P centres {list(self.p_centers)}"
            )
        spread = (max(self.q_centers) - min(self.p_centers)) / s
        if spread > MAX_SPREAD:
            raise ValueError(
                f"the centres spread over {spread:.3g} noise standard deviations; at most {MAX_SPREAD:g} can be "
                "composed in double precision (the mechanism is then blatantly non-private for every practical "
                "purpose: use a larger noise standard deviation)"
            )

    # ------------------------------------------------------------------ the loss and its inverse
    def _lse(self, x: np.ndarray, centers, weights) -> tuple[np.ndarray, np.ndarray]:
        """(LSE_j(log wⱼ + (cⱼx − cⱼ²/2)/s²), posterior mean of c)."""
        s2 = self.scale * self.scale
        c = np.asarray(centers)[:, None]
        terms = np.log(np.asarray(weights))[:, None] + (c * x[None, :] - 0.5 * c * c) / s2
        m = np.max(terms, axis=0)
        e = np.exp(terms - m)
        tot = e.sum(axis=0)
        return m + np.log(tot), (e * c).sum(axis=0) / tot

    def loss(self, x: np.ndarray) -> np.ndarray:
        """ℓ(x) = log q(x)/p(x) (module docstring)."""
        x = np.asarray(x, dtype=float)
        lq, _ = self._lse(x.ravel(), self.q_centers, self.q_weights)
        lp, _ = self._lse(x.ravel(), self.p_centers, self.p_weights)
        return (lq - lp).reshape(x.shape)

    def _loss_and_slope(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        lq, mq = self._lse(x, self.q_centers, self.q_weights)
        lp, mp = self._lse(x, self.p_centers, self.p_weights)
        return lq - lp, (mq - mp) / (self.scale * self.scale)

    @property
    def loss_inf(self) -> float:
        """inf ℓ (x → −∞): log of the weights at the lowest centres if they coincide, else −∞."""
        lo_q, lo_p = min(self.q_centers), min(self.p_centers)
        if lo_q > lo_p:
            return -math.inf
        return math.log(sum(w for c, w in zip(self.q_centers, self.q_weights) if c == lo_q)) - math.log(
            sum(w for c, w in zip(self.p_centers, self.p_weights) if c == lo_p))

    @property
    def loss_sup(self) -> float:
        """sup ℓ (x → +∞): log of the weights at the highest centres if they coincide, else +∞."""
        hi_q, hi_p = max(self.q_centers), max(self.p_centers)
        if hi_q > hi_p:
            return math.inf
        return math.log(sum(w for c, w in zip(self.q_centers, self.q_weights) if c == hi_q)) - math.log(
            sum(w for c, w in zip(self.p_centers, self.p_weights) if c == hi_p))

    @property
    def x_clip(self) -> tuple[float, float]:
        lo = min(min(self.p_centers), min(self.q_centers))
        hi = max(max(self.p_centers), max(self.q_centers))
        return lo - X_CLIP * self.scale, hi + X_CLIP * self.scale

    def inverse(self, target: np.ndarray) -> np.ndarray:
        """x(ℓ): the largest x with ℓ(x) ≤ target (safeguarded Newton on the monotone loss); −∞ at or below
        inf ℓ, +∞ at or above sup ℓ, x_L/x_R beyond the clip points (module docstring)."""
        target = np.asarray(target, dtype=float)
        out = np.empty_like(target)
        xl, xr = self.x_clip
        l_lo, l_hi = (float(v) for v in self.loss(np.array([xl, xr])))
        out[:] = np.nan
        out[target <= l_lo] = xl
        out[target >= l_hi] = xr
        out[target <= self.loss_inf] = -np.inf
        out[target >= self.loss_sup] = np.inf
        idx = np.flatnonzero(np.isnan(out))
        if idx.size:
            t = target[idx]
            a = np.full(idx.size, xl)
            b = np.full(idx.size, xr)
            # start from the linear interpolation of the loss between the clip points
            x = xl + (t - l_lo) / (l_hi - l_lo) * (xr - xl)
            active = np.arange(idx.size)
            for _ in range(200):
                if active.size == 0:
                    break
                xa = x[active]
                f, d = self._loss_and_slope(xa)
                f = f - t[active]
                lo_side = f <= 0
                a[active] = np.where(lo_side, xa, a[active])
                b[active] = np.where(lo_side, b[active], xa)
                with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                    xn = xa - f / d
                aa, bb = a[active], b[active]
                bad = ~np.isfinite(xn) | (xn < aa) | (xn > bb)
                xn = np.where(bad, 0.5 * (aa + bb), xn)
                done = (np.abs(xn - xa) <= 2 * U * np.maximum(np.abs(xa), 1e-300)) | (bb - aa <= 4 * U * np.maximum(np.abs(aa), np.abs(bb))) | (f == 0)
                x[active] = xn
                active = active[~done]
            out[idx] = x
        return out

    # ------------------------------------------------------------------ masses
    def log_masses(self, xa: np.ndarray, xb: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(log P, log Q, relative error) of the x-intervals (xa, xb] (xa ≤ xb)."""
        from .sgm_step import _log_gauss_interval  # the subsampled Gaussian's own routine

        xa = np.atleast_1d(np.asarray(xa, dtype=float))
        xb = np.atleast_1d(np.asarray(xb, dtype=float))
        s = self.scale
        out = []
        rel = np.zeros(xa.shape)
        sums = []  # each measure's rounding of its weighted sum (:func:`_sum_rounding`)
        for centers, weights in ((self.p_centers, self.p_weights), (self.q_centers, self.q_weights)):
            acc = np.full(xa.shape, -np.inf)
            err = np.zeros(xa.shape)
            for c, w in zip(centers, weights):
                lg, r = _log_gauss_interval((xa - c) / s, (xb - c) / s)
                lw = math.log(w)
                term = lw + lg
                acc = np.logaddexp(acc, term)
                err += _sum_rounding(term, acc, lw)
                rel = np.maximum(rel, r)
            out.append(acc)
            sums.append(err)
        return out[0], out[1], rel + np.maximum(*sums) + 8 * U * (1 + len(self.p_centers) + len(self.q_centers))

    def loss_moments(self) -> tuple[float, float]:
        """(E_Q ℓ, E_Q ℓ²) by 200-node Gauss–Hermite quadrature (only sets the grid spacing)."""
        from .sgm_step import hermite_rule

        nodes, weights = hermite_rule()
        m1 = m2 = 0.0
        for c, w in zip(self.q_centers, self.q_weights):
            ell = self.loss(c + self.scale * nodes)
            m1 += w * float(np.sum(weights * ell))
            m2 += w * float(np.sum(weights * ell * ell))
        return m1, m2


@dataclass(frozen=True)
class GaussianMixturePair:
    """One step's remove pair: the disjoint mixture ⊕ tᵢ (Pᵢ, Qᵢ) of :class:`MixtureComponent` s.

    ``weight_error`` is the mass by which the given probabilities missed 1 (they are normalised; this
    much is added to the error bound of every δ and Bayes error, per step).

    >>> pair = mixture_of_gaussians_pair(1.0, [0.0, 1.0], [0.5, 0.5])   # ½N(0,1) + ½N(1,1) vs N(0,1)
    >>> len(pair.components), round(pair.components[0].loss_inf, 12) == round(math.log(0.5), 12)
    (1, True)
    """

    components: tuple[MixtureComponent, ...]
    weights: tuple[float, ...]
    weight_error: float = 0.0

    def __post_init__(self) -> None:
        if not self.components or len(self.components) != len(self.weights):
            raise ValueError("need one weight per component")
        _weights("component weights", self.weights)

    # ------------------------------------------------------------------ grid
    def loss_std(self) -> float:
        """Standard deviation of the one-step loss under Q (Gauss–Hermite: sets the grid spacing)."""
        m1 = m2 = 0.0
        for t, c in zip(self.weights, self.components):
            a, b = c.loss_moments()
            m1, m2 = m1 + t * a, m2 + t * b
        var = m2 - m1 * m1
        return math.sqrt(var) if math.isfinite(var) and var > 0 else 1e-6

    def loss_range(self, tail: float) -> tuple[float, float]:
        """[lo, hi] with P(ℓ < lo) ≤ tail and Q(ℓ > hi) ≤ tail in every component."""
        z = float(-ndtri(tail))
        lo, hi = math.inf, -math.inf
        for c in self.components:
            x_lo = min(c.p_centers) - z * c.scale
            x_hi = max(c.q_centers) + z * c.scale
            lo = min(lo, float(c.loss(np.array([x_lo]))[0]))
            hi = max(hi, float(c.loss(np.array([x_hi]))[0]))
        return lo, max(hi, lo + 1e-12)

    def _log_masses(self, edges: np.ndarray):
        """t-weighted (log P, log Q, relative error) of the loss intervals (edges[i], edges[i + 1]]."""
        lp = lq = None
        rel = 0.0
        err_p = err_q = 0.0  # the roundings of the two weighted sums (:func:`_sum_rounding`)
        for t, c in zip(self.weights, self.components):
            x = np.maximum.accumulate(c.inverse(np.asarray(edges, dtype=float)))  # monotone, as ℓ is
            a, b = x[:-1], x[1:]
            p, q, r = c.log_masses(a, b)
            lt = math.log(t) if t > 0 else -math.inf
            tp, tq = p + lt, q + lt
            lp = tp if lp is None else np.logaddexp(lp, tp)
            lq = tq if lq is None else np.logaddexp(lq, tq)
            err_p = err_p + _sum_rounding(tp, lp, lt)
            err_q = err_q + _sum_rounding(tq, lq, lt)
            rel = np.maximum(rel, r)
        return lp, lq, rel + np.maximum(err_p, err_q) + 4 * U

    def partition(self, h: float, *, sub: int = 4, tail: float = 1e-30) -> StepPartition:
        """The grid-aligned fine partition (tradeoff/compose.py step 1), anchored as the subsampled
        Gaussian's (composition/sgm_step.py ``sgm_partition``): when a component has a finite inf ℓ carrying
        P-mass, the offset puts the merged loss of the cell just above the lowest such infimum on a grid point.
        """
        lo, hi = self.loss_range(tail)
        offset, anchor_edge = 0.0, None
        infs = [(c.loss_inf, i) for i, c in enumerate(self.components) if math.isfinite(c.loss_inf)]
        if infs:
            c_inf = min(infs)[0]
            a_edge = c_inf + h / (2 * sub)
            lp_a, lq_a, _ = self._log_masses(np.array([-np.inf, a_edge]))
            if np.isfinite(lp_a[0]) and np.isfinite(lq_a[0]) and a_edge > lo - h:
                lam = float(lq_a[0] - lp_a[0])
                offset = lam - h * math.floor(lam / h)
                lo, anchor_edge = min(lo, c_inf), a_edge
        from .sgm_step import aligned_edges

        edges, cell_k, k_lo, k_hi = aligned_edges(lo, hi, offset, h, sub, anchor_edge)
        log_p, log_q, rel = self._log_masses(edges)
        tl = self._log_masses(np.array([-np.inf, edges[0]]))
        th = self._log_masses(np.array([edges[-1], np.inf]))
        return StepPartition(h, offset, k_lo, k_hi, cell_k, log_p, log_q,
                             (float(tl[0][0]), float(tl[1][0])), (float(th[0][0]), float(th[1][0])), rel)

    @property
    def dominating_mu(self) -> float:
        """μ of a Gaussian G_μ that dominates one step: max over components of the largest shift |n − m|/s of the
        monotone (quantile) coupling of the P and Q centres. Any coupling writes (Pᵢ, Qᵢ) as a mixture of pairs
        (N(m, s²), N(n, s²)) with common weights, and the hockey-stick divergence is jointly convex, so the mixture
        is no more distinguishable than its most shifted pair, G_{|n − m|/s}; the disjoint mixture of components
        likewise.

        >>> round(truncated_subsampled_gaussian_pair(1000, 0.1, 120, 1.0).dominating_mu, 12)  # shifts 1 and 2
        2.0
        """
        return max(_quantile_coupling_shift(c) / c.scale for c in self.components)

    @property
    def extra_error(self) -> float:
        """Per-step mass not represented by the partition: the normalised weights' miss and the clipping."""
        return self.weight_error + BEYOND_MASS * len(self.components)


def _quantile_coupling_shift(c: MixtureComponent) -> float:
    """max |n − m| over the pairs of centres the monotone coupling of (p_weights, q_weights) matches."""
    p = sorted(zip(c.p_centers, c.p_weights))
    q = sorted(zip(c.q_centers, c.q_weights))
    i = j = 0
    rp, rq = p[0][1], q[0][1]
    worst = abs(q[0][0] - p[0][0])
    while True:
        worst = max(worst, abs(q[j][0] - p[i][0]))
        if rp <= rq:
            rq -= rp
            i += 1
            if i == len(p):
                break
            rp = p[i][1]
        else:
            rp -= rq
            j += 1
            if j == len(q):
                break
            rq = q[j][1]
    # rounding may leave a residue on the other side: the remaining Q centres pair with the last P centre
    for jj in range(j, len(q)):
        worst = max(worst, abs(q[jj][0] - p[-1][0]))
    for ii in range(i, len(p)):
        worst = max(worst, abs(q[-1][0] - p[ii][0]))
    return worst


# ---------------------------------------------------------------------------------------------- the pairs
def mixture_of_gaussians_pair(standard_deviation: float, sensitivities, sampling_probs) -> GaussianMixturePair:
    """Remove pair of dp-accounting's ``MixtureOfGaussiansDpEvent``: P = N(0, σ²), Q = Σ pⱼ N(cⱼ, σ²)
    (the event's definition; Choquette-Choo et al. 2023, "Privacy amplification for matrix mechanisms",
    arXiv:2310.15526). Sensitivities all ≤ 0 are mirrored (x ↦ −x leaves P and every δ unchanged); mixed
    signs are refused (the loss is then not monotone).

    >>> p = mixture_of_gaussians_pair(2.0, [0, 1], [0.9, 0.1])
    >>> p.components[0].q_centers, p.components[0].scale
    ((0.0, 0.5), 1.0)
    """
    s = float(standard_deviation)
    if not (math.isfinite(s) and s > 0):
        raise ValueError(f"standard_deviation must be finite and > 0, got {standard_deviation!r}")
    c = [float(v) for v in sensitivities]
    w = [float(v) for v in sampling_probs]
    if len(c) != len(w) or not c:
        raise ValueError("sensitivities and sampling_probs must be non-empty and of the same length")
    if any(not math.isfinite(v) for v in c):
        raise ValueError(f"sensitivities must be finite, got {c}")
    live = [v for v, p in zip(c, w) if p > 0]
    if min(live) < 0 < max(live):
        raise ValueError(
            f"sensitivities must be all >= 0 or all <= 0 (the privacy loss is then monotone), got {c}")
    if max(live) <= 0:
        c = [-v for v in c]
    total = math.fsum(w)
    if any(not (math.isfinite(v) and v >= 0) for v in w) or abs(total - 1.0) > WEIGHT_TOLERANCE:
        raise ValueError(f"sampling_probs must be numbers >= 0 that sum to 1 (within {WEIGHT_TOLERANCE:g}), got {w}")
    wn = tuple(v / total for v in w)
    comp = MixtureComponent(1.0, (0.0,), (1.0,), tuple(v / s for v in c), wn)
    return GaussianMixturePair((comp,), (1.0,), abs(total - 1.0))


def truncation_probabilities(dataset_size: int, sampling_probability: float, truncated_batch_size: int) -> tuple[float, float]:
    """(t, p′) of truncated Poisson sampling, as dp-accounting 0.6 computes them
    (``pld.privacy_loss_distribution.from_truncated_subsampled_gaussian_mechanism``):
    t = P(Bin(n − 1, p) ≥ B) (truncation happens given the record is sampled) and
    p′ = P(Bin(n, p) > B)·B/(t·n) (the record's probability of being sampled given truncation)."""
    from scipy import stats

    n, p, b = int(dataset_size), float(sampling_probability), int(truncated_batch_size)
    t = float(stats.binom.sf(b - 1, n - 1, p))
    if t == 0.0:
        return 0.0, 0.0
    return t, float(stats.binom.sf(b, n, p)) * b / t / n


def truncated_subsampled_gaussian_pair(dataset_size: int, sampling_probability: float, truncated_batch_size: int,
                                       noise_multiplier: float) -> GaussianMixturePair:
    """Remove pair of dp-accounting's ``TruncatedSubsampledGaussianDpEvent`` (add/remove relation), the
    dominating pair its PLD is built from (dp-accounting 0.6,
    ``from_truncated_subsampled_gaussian_mechanism``; the analysis of "Tighter privacy analysis for truncated
    Poisson sampling", arXiv:2508.15089): with probability 1 − t the subsampled Gaussian
    (N(0, σ²) vs (1 − p)N(0, σ²) + pN(1, σ²)), with probability t the replace-one subsampled Gaussian of
    sensitivity 2 and sampling probability p′ (:func:`truncation_probabilities`), which dp-accounting uses as
    "a (slightly loose) upper bound in all cases": (1 − p′)N(0, σ²) + p′N(−2, σ²) vs
    (1 − p′)N(0, σ²) + p′N(2, σ²) — a symmetric pair, so it is its own add pair and the mixture's add pair
    is the swap of its remove pair.

    >>> pair = truncated_subsampled_gaussian_pair(1000, 0.1, 120, 1.0)
    >>> len(pair.components), 0.0 < pair.weights[1] < 0.05
    (2, True)
    """
    sigma = float(noise_multiplier)
    n, p, b = int(dataset_size), float(sampling_probability), int(truncated_batch_size)
    sgm = MixtureComponent(sigma, (0.0,), (1.0,), (0.0, 1.0), (1.0 - p, p))
    t, p2 = truncation_probabilities(n, p, b)
    if t <= 0.0:
        return GaussianMixturePair((sgm,), (1.0,))
    p2 = min(max(p2, 0.0), 1.0)
    rep = MixtureComponent(sigma, (-2.0, 0.0), (p2, 1.0 - p2), (0.0, 2.0), (1.0 - p2, p2))
    return GaussianMixturePair((sgm, rep), (1.0 - t, t))


# ---------------------------------------------------------------------------------------------- composition
#: grid spacing as a fraction of the one-step loss standard deviation (as for the subsampled Gaussian)
KAPPA_H = 0.01


def default_discretization(pair: GaussianMixturePair, steps: int) -> float:
    """h = KAPPA_H·s (s the one-step loss std), widened to keep the one-step grid and the FFT within the
    subsampled Gaussian's limits (composition/sgm_grid.py)."""
    from .sgm_grid import AUTO_MAX_FFT, MAX_STEP_POINTS

    s = pair.loss_std()
    h = KAPPA_H * s
    lo, hi = pair.loss_range(min(1e-18, 1e-16 / steps))
    if (hi - lo) / h > MAX_STEP_POINTS:
        h = (hi - lo) / MAX_STEP_POINTS
    if steps > 1:
        n_est = int(2 * (0.5 * s * s * steps + 10.0 * s * math.sqrt(steps) + (hi - lo)) / h) + 16
        if n_est > AUTO_MAX_FFT:
            h *= n_est / AUTO_MAX_FFT
    return float(h)


@functools.lru_cache(maxsize=16)
def compose_mixture(pair: GaussianMixturePair, steps: int, discretization: float | None = None):
    """Certified pessimistic/optimistic remove pairs of N steps of ``pair`` (tradeoff/compose.py steps 1–8)
    as a :class:`~dpcompare.composition.sgm_certified.CertifiedComposition` (the subsampled Gaussian's type: every view of
    it applies).

    >>> comp = compose_mixture(mixture_of_gaussians_pair(1.0, [0, 1], [0.5, 0.5]), 3)
    >>> comp.pessimistic.rounding.name, comp.optimistic.rounding.name, comp.numerical_error < 1e-9
    ('PESSIMISTIC', 'OPTIMISTIC', True)
    """
    from .sgm_compose import CertifiedComposition, _build_side, fft_workers, lazy_pessimistic_side
    from .sgm_grid import SUB_CELLS, MAX_CELLS, MAX_STEP_POINTS
    from ..tradeoff.compose import DiscretizationTooFine

    if isinstance(steps, bool) or not isinstance(steps, (int, np.integer)) or steps < 1:
        raise ValueError(f"steps must be an integer >= 1, got {steps!r}")
    t0 = time.perf_counter()
    from .sgm_grid import NEGLIGIBLE_MU
    from .sgm_compose import negligible_composition

    mu = math.sqrt(steps) * pair.dominating_mu
    if discretization is None and getattr(pair, "lattice_unit", None):
        discretization = pair.lattice_unit  # a lattice pair's own grid: no discretisation error
    if mu <= NEGLIGIBLE_MU:  # below what a loss grid resolves: the (0, TV(G_μ))-DP pair (composition/sgm_compose.py)
        return negligible_composition(1.0 / pair.dominating_mu, 1.0, steps)
    h = default_discretization(pair, steps) if discretization is None else float(discretization)
    tail = min(1e-18, 1e-16 / steps)
    lo, hi = pair.loss_range(tail)
    if (hi - lo) / h > 4 * MAX_STEP_POINTS:
        raise DiscretizationTooFine(f"discretization={h:g} needs {(hi - lo) / h:.3g} grid points for one step; "
                                    "choose a coarser discretization")
    sub = max(1, min(SUB_CELLS, MAX_CELLS // max(1, int((hi - lo) / h) + 2)))
    part = pair.partition(h, sub=sub, tail=tail)
    workers = fft_workers()
    extra = steps * pair.extra_error
    try:
        # the pessimistic side's far-tail passes (tradeoff/compose.py step 6″) are built only for questions that reach
        # the far tail (sgm_certified.composition_epsilon, composition_for_profile): they cost as much as the rest
        pess = lazy_pessimistic_side(part, steps, h, workers=workers, extra_error=extra)
        opt, rep_opt = _build_side(part, steps, h, Rounding.OPTIMISTIC, workers)
    except DiscretizationTooFine:
        raise
    except (RuntimeError, OverflowError, FloatingPointError) as exc:
        raise ValueError(f"the composition of {steps} steps is outside the numerically supported range ({exc}); "
                         "use a larger noise standard deviation or fewer steps") from None
    errs = (pess.numerical_error, rep_opt.numerical_error + 64 * U + extra)
    return CertifiedComposition(pess.pair, opt, max(errs), h, steps, (pess.report, rep_opt), time.perf_counter() - t0,
                                errs, pess)


@functools.lru_cache(maxsize=16)
def mixture_tail_bound(pair: GaussianMixturePair, steps: int):
    """Certified Chernoff bound of the N-fold profile (tradeoff/compose.py step 9), from a pessimistic one-step
    grid whose truncated tail is sized for δ down to 1e-300 (as composition/sgm_compose.py ``tail_bound``)."""
    from .sgm_compose import TAIL_POINTS
    from ..tradeoff import compose as certified_compose
    from ..tradeoff import grid as certified_grid

    tail = max(1e-300 / (4.0 * steps), 1e-306)
    lo, hi = pair.loss_range(tail)
    h = getattr(pair, "lattice_unit", None) or max(KAPPA_H * pair.loss_std(), (hi - lo + 2.0) / TAIL_POINTS)
    part = pair.partition(h, sub=2, tail=tail)
    step = certified_grid.pessimistic_step(part)
    rel = np.asarray(part.rel_err, dtype=float)
    rel_max = float(np.max(rel)) if rel.size else 0.0
    return certified_compose.TailBound.from_step(step, steps, rel_max + pair.extra_error)


def _sum_rounding(term: np.ndarray, acc: np.ndarray, log_w: float) -> np.ndarray:
    """The rounding, as an absolute error of the log (relative of the mass), of one step acc ← logaddexp(acc, term)
    of a weighted sum in log space, term = log w + log m: log w within 2·|log w|·u (libm, ≤ 1 ulp), forming term
    ≤ |term|·u, logaddexp's exp and log1p ≤ 10u (on a result ≤ ln 2) and its final addition ≤ |acc|·u; a −∞ term
    is exact. The inputs' own errors pass with weights summing to 1 (the caller's maximum), so the steps' roundings
    add up. Terms and sums are log masses (≤ 0 up to rounding; |·| is used all the same)."""
    lw = abs(log_w) if math.isfinite(log_w) else 0.0
    out = np.where(np.isfinite(term), np.abs(term), 0.0)
    out += np.where(np.isfinite(acc), np.abs(acc), 0.0)
    out += 10.0 + 2.0 * lw
    return out * U
