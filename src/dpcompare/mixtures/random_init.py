"""DP-GD with random initialisation ([MIX] Thm 5.1, App. D.1, Examples D.1–D.3).

With θ₀ = I ~ N(0, 1), one noisy gradient step on neighbouring data sets is dominated by the mixture,
over I, of the Gaussian pairs P_I = N(0, 1), Q_I = N(μ_I, 1), where μ_I is the gradient sensitivity
at θ₀ = I in units of the noise σ. The continuous form of Lemma 3.1 (App. B, eqs 4–5) bounds its
trade-off function by that of the revealed-initialisation pair; App. D.1 writes it as

    α(t) = ∫ P_{X~N(0,1)}[−μ_w X + μ_w²/2 ≤ t] φ(w) dw,   β(t) = ∫ P_{X~N(μ_w,1)}[−μ_w X + μ_w²/2 > t] φ(w) dw,

i.e. with λ = log-threshold on q/p and ℓ_w ~ N(∓μ_w²/2, μ_w²): α(λ) = E_w Φ(−(λ + μ_w²/2)/|μ_w|),
β(λ) = E_w Φ((λ − μ_w²/2)/|μ_w|) (``theorem51_points``, by adaptive quadrature).

Sensitivity profiles (App. D.2; linear model y = a·x, x² = 1; a removed point):

- Example D.1, least squares without clipping: μ_I = (a − I)/σ — unbounded in I.
- Example D.2, with clipping at c: μ_I = clip(a − I, −c, c)/σ.
- Example D.3, logistic loss with |x·y| ≤ M: μ_I = sup_{|s|≤M} e^{−Is}/(1 + e^{−Is}) / σ = σ(M|I|)/σ_noise,
  σ(·) the logistic function (the gradient's magnitude).

Certified numerical integration (``RandomInit``): the I-axis is cut into bins of equal width on
[−U, U] plus two tails (mass ≤ ``tail`` each). On a bin, G_μ is Blackwell-monotone in |μ|, so
replacing each bin by its largest |μ| (smallest |μ|) gives a mixture that dominates (is dominated by)
the truth; an unbounded tail (Example D.1) becomes the perfectly distinguishable pair. Each
Gaussian component is cut into the cells of a common symmetric loss grid and the components are mixed
cell by cell (:func:`~dpcompare.tradeoff.partition.mix_partitions`); the pessimistic pair splits every
mixed cell onto its grid points (exactly the Lemma 3.1 mixture of the split components), the
optimistic one merges every mixed cell into one atom (a post-processing). The bracket width is the
error bound of the integration.

**T steps: heuristic, not a guarantee.** ``steps = T > 1`` composes the one-step trade-off T times
(f^{⊗T}: the one-step pairs split/merged onto a coarser grid by :mod:`dpcompare.tradeoff.grid` and
composed by the FFT of :mod:`dpcompare.tradeoff.compose`, certified *as a computation of f^{⊗T}* up to
its error bound ``numerical_error``). [MIX]
proves only the one-step bound (Thm 5.1). f^{⊗T} would be a guarantee if every step were f-DP
conditionally on the released past (adaptive composition, Dong, Roth & Su Thm 3.2), but it is not:
the initialisation I is drawn once, and from step 2 on the adversary has seen θ₁, so the gradient
at θ₁ — hence the sensitivity of step 2 — is a known number rather than a random one averaged over
I ~ N(0, 1). Step 2 is then only G_{μ(θ₁)}-DP, which for least squares without clipping (Example D.1)
is unbounded. So the T-step number is **heuristic, not a guarantee**: it must be asked for with
``heuristic=True`` (spec ``heuristic=1``), and ``describe`` reports ``guarantee: heuristic, not a
guarantee``. A certified T-step statement for a clipped loss is G_{√T·c/σ} (T Gaussian steps
at the clipped sensitivity, no initialisation amplification): ``clipped_composition_mu``.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from .._limits import check_memory
from .._numerics import ndtr, ndtri
from .._validation import check_in_interval, check_integer, check_positive, check_real, format_number
from ..mechanisms import Gaussian
from ..mechanisms.pair_backed import PairMechanism
from ..tradeoff import DiscretePair, Rounding
from ..tradeoff import compose as certified_compose
from ..tradeoff import grid as certified_grid
from ..tradeoff import partition
from .algebra import identity_pair, symm, symmetrize_eq3


class Loss(enum.Enum):
    """The loss functions of [MIX] App. D.2."""

    LEAST_SQUARES = "least_squares"  # Example D.1
    CLIPPED_LEAST_SQUARES = "clipped_least_squares"  # Example D.2
    LOGISTIC = "logistic"  # Example D.3


@dataclass(frozen=True)
class Sensitivity:
    """μ_I as a function of the initialisation I (Examples D.1–D.3), in units of the noise σ."""

    loss: Loss
    a: float = 1.0  # the slope of the noiseless linear model (D.1, D.2)
    clip: float = math.inf  # c of Example D.2
    bound: float = 1.0  # M of Example D.3 (|x·y| ≤ M)
    sigma: float = 1.0  # noise standard deviation

    def __post_init__(self) -> None:
        if not isinstance(self.loss, Loss):
            try:
                object.__setattr__(self, "loss", Loss(self.loss))
            except ValueError:
                raise ValueError(f"loss must be one of {', '.join(l.value for l in Loss)}, got {self.loss!r}") from None
        object.__setattr__(self, "a", check_real("a", self.a))
        object.__setattr__(self, "sigma", check_positive("sigma", self.sigma))
        if self.loss is Loss.CLIPPED_LEAST_SQUARES:
            c = float(self.clip)
            if not (c > 0 and math.isfinite(c)):
                raise ValueError(f"clip must be a finite number > 0 for clipped least squares, got {self.clip!r}")
        if self.loss is Loss.LOGISTIC:
            object.__setattr__(self, "bound", check_positive("bound", self.bound))

    def mu(self, i: Any) -> np.ndarray:
        """|μ_I| at initialisations i."""
        i = np.asarray(i, dtype=float)
        if self.loss is Loss.LEAST_SQUARES:
            g = np.abs(self.a - i)
        elif self.loss is Loss.CLIPPED_LEAST_SQUARES:
            g = np.minimum(np.abs(self.a - i), self.clip)
        else:
            g = 1.0 / (1.0 + np.exp(-self.bound * np.abs(i)))
        return g / self.sigma

    def range(self, lo: float, hi: float) -> tuple[float, float]:
        """(inf, sup) of |μ_I| over I ∈ [lo, hi] (ends may be infinite); each |μ| is piecewise monotone."""
        cand = [x for x in (lo, hi) if math.isfinite(x)]
        vals = [float(self.mu(x)) for x in cand]
        if self.loss is Loss.LOGISTIC:
            inner_min = float(self.mu(0.0)) if lo <= 0.0 <= hi else min(vals)
            sup = 1.0 / self.sigma if not (math.isfinite(lo) and math.isfinite(hi)) else max(vals)
            return inner_min, sup
        kink = self.a
        inf = 0.0 if lo <= kink <= hi else min(vals)
        if math.isinf(lo) or math.isinf(hi):
            sup = math.inf if self.loss is Loss.LEAST_SQUARES else self.clip / self.sigma
        else:
            sup = max(vals)
        return inf, sup


#: working memory per (bin of I) × (loss-grid cell) of one step (measured 61: docs/edges.md)
RANDOM_INIT_BYTES_PER_CELL = 64
#: largest finite μ of a Thm 5.1 component (larger ones are bracketed by G_∞ and G_{MU_CAP}; see ``_one_step``)
MU_CAP = 1000.0
#: tail mass of the Chernoff window of the T-step FFT composition (tradeoff/compose.py step 5)
WINDOW_TAIL = 1e-18


def _gaussian_component(mu: float, h: float, K: int) -> certified_grid.StepPartition:
    """G_μ's privacy loss on the symmetric grid k·h, |k| ≤ K (Id for μ = 0, BNP for μ = ∞)."""
    if mu == 0.0:
        return partition.pair_partition(identity_pair(), h, 0.0, -K, K)
    if math.isinf(mu):
        return partition.pair_partition(DiscretePair(np.array([]), np.array([]), 1.0, 1.0), h, 0.0, -K, K)
    g = Gaussian(mu=mu)
    return partition.tails_partition(g.log_sf, g.log_cdf, h, 0.0, -K, K)


def compose_on_grid(pair: DiscretePair, steps: int, h: float, K: int, rounding: Rounding) -> tuple[DiscretePair, float]:
    """pair^{⊗T} on the grid k·h, |k| ≤ K, certified in the direction ``rounding``: the pair is split
    (pessimistic) or merged (optimistic) onto the grid (tradeoff/grid.py steps 1–3) and composed by FFT
    (tradeoff/compose.py steps 4–7); returns the symmetrised (eq 3) result and its error bound η.
    If the grid is too coarse to land the optimistic groups, the closed-form binomial fallback of
    :func:`~dpcompare.tradeoff.grid.optimistic_binary` is used (exact, looser)."""
    part = partition.pair_partition(pair, h, 0.0, -K, K)
    # the ±∞ atoms of the step: T steps put at most T·(q₊∞ + p₋∞) there; the composed pair represents
    # them only as deficits 1 − Σ(finite masses), so they are added to the error bound explicitly
    inf_mass = float(steps) * (part.q_pos_inf + part.p_neg_inf)
    if rounding is Rounding.PESSIMISTIC:
        step = certified_grid.pessimistic_step(part)
    else:
        try:
            step = certified_grid.optimistic_step(part)
        except RuntimeError:
            loss, log_p, eta = certified_grid.optimistic_binary(part, steps)
            return symmetrize_eq3(certified_grid.to_pair(loss, log_p, rounding)), eta + inf_mass
    inf_mass = float(steps) * (step.q_pos_inf + step.p_neg_inf)  # the split's tails add to them
    log_p, i_lo, report = certified_compose.compose(step, steps, tau=WINDOW_TAIL, workers=1)
    loss = (i_lo + np.arange(log_p.size)) * h
    return symmetrize_eq3(certified_grid.to_pair(loss, log_p, rounding)), report.numerical_error + inf_mass


@dataclass(frozen=True, repr=False, eq=False)
class RandomInit(PairMechanism):
    """DP-GD with random initialisation I ~ N(0, 1): the Thm 5.1 trade-off of one step, certified.

    ``steps = T > 1`` (with ``heuristic=True``) composes the one-step bound T times: **heuristic,
    not a guarantee** (module docstring: later steps are not averaged over the initialisation).

    >>> m = RandomInit(Sensitivity(Loss.CLIPPED_LEAST_SQUARES, a=0.5, clip=1.0), steps=1)
    >>> lo, hi = m.delta_bounds(0.5)
    >>> bool(0 < lo <= hi < 0.2)
    True
    >>> RandomInit(Sensitivity(Loss.LOGISTIC), steps=3)
    Traceback (most recent call last):
    ...
    ValueError: steps = 3 > 1 composes Thm 5.1's one-step bound: heuristic, not a guarantee (after step 1 the adversary knows θ₁, so later steps are not averaged over the initialisation); pass heuristic=True (spec: heuristic=1) to compute it anyway
    """

    sensitivity: Sensitivity
    steps: int = 1
    bins: int = 400  # bins of the initialisation I on [−U, U]
    grid: int = 2048  # half-size of the loss grid
    tail: float = 1e-14  # mass of each tail of I
    heuristic: bool = False  # required for steps > 1: the T-step composition is not a guarantee

    def __post_init__(self) -> None:
        if not isinstance(self.sensitivity, Sensitivity):
            raise ValueError(f"sensitivity must be a Sensitivity, got {type(self.sensitivity).__name__}")
        object.__setattr__(self, "steps", check_integer("steps", self.steps, minimum=1))
        if not isinstance(self.heuristic, bool):
            raise TypeError(f"heuristic must be True or False, got {self.heuristic!r}")
        if self.steps > 1 and not self.heuristic:
            raise ValueError(
                f"steps = {self.steps} > 1 composes Thm 5.1's one-step bound: heuristic, not a guarantee "
                "(after step 1 the adversary knows θ₁, so later steps are not averaged over the initialisation); "
                "pass heuristic=True (spec: heuristic=1) to compute it anyway"
            )
        object.__setattr__(self, "bins", check_integer("bins", self.bins, minimum=4))
        object.__setattr__(self, "grid", check_integer("grid", self.grid, minimum=16))
        # one partition of 2·grid + 1 cells per bin of I: 61 bytes per bin·cell measured (docs/edges.md)
        check_memory("bins", self.bins, RANDOM_INIT_BYTES_PER_CELL * (2 * self.grid + 1))
        check_in_interval("tail", self.tail, 0.0, 1e-3, low_open=True)

    # -- one step: the Lemma 3.1 mixture over I, bracketed
    def _one_step(self) -> tuple[DiscretePair, DiscretePair]:
        U = float(-ndtri(self.tail))
        edges = np.linspace(-U, U, self.bins + 1)
        lows = np.concatenate([[-np.inf], edges])
        highs = np.concatenate([edges, [np.inf]])
        weights = np.diff(ndtr(np.concatenate([[-np.inf], edges, [np.inf]])))
        weights = weights / math.fsum(weights.tolist())
        # a component with μ > MU_CAP is pessimistically G_∞ (blatantly non-private: Blackwell-below every
        # G_μ) and optimistically G_{MU_CAP} (above it); the two differ in TV by 2Φ(−MU_CAP/2), below every
        # double. The grid then spans |ℓ| ≲ MU_CAP²/2 = 5e5, whose ulp (1.2e-10) keeps the Q-masses
        # e^{log p + ℓ} within the pair's mass tolerance (at μ = 5.6e4 losses ~1.6e9 put a relative 1e-7 on
        # them: "Q-mass > 1"). ε(δ) is ∞ below the G_∞ components' weight (σ < clip/MU_CAP only).
        ranges = [(min(i, MU_CAP), s if s <= MU_CAP else math.inf) for i, s in
                  (self.sensitivity.range(lo, hi) for lo, hi in zip(lows, highs))]
        mu_max = max((s for _, s in ranges if math.isfinite(s)), default=1.0)
        mu_max = max(mu_max, 1e-3)
        L = mu_max * mu_max / 2 + 9.0 * mu_max  # Gaussian tails beyond: Φ(−9) ≈ 1e-19, accounted
        K = self.grid
        h = L / K
        cache: dict[float, certified_grid.StepPartition] = {}

        def comp(mu: float) -> certified_grid.StepPartition:
            if mu not in cache:
                cache[mu] = _gaussian_component(mu, h, K)
            return cache[mu]

        # Lemma 3.1 mixtures on the common grid: the split of the mixture is the mixture of the splits
        # (exact); merging the mixed cells is a post-processing of the optimistic mixture (tradeoff/grid.py)
        pess_part = partition.mix_partitions(weights, [comp(s) for _, s in ranges])
        opt_part = partition.mix_partitions(weights, [comp(i) for i, _ in ranges])
        pess = partition.step_pair(certified_grid.pessimistic_step(pess_part))
        # Def F.1 (``symm``): eq 3 where x̄ ≤ f(x̄), else max{f, f⁻¹}; an f-DP mechanism is Symm(f)-DP
        # (Dong, Roth & Su 2022, Prop F.2), so either is a guarantee (at small σ the pessimistic curve can
        # reach 0 before its kink: x̄ > f(x̄) = 0, which eq 3 alone refused)
        return symm(pess), symmetrize_eq3(partition.merge_cells(opt_part))

    def _build_pairs(self) -> tuple[DiscretePair, DiscretePair]:
        pess, opt, _ = self._pairs_and_error
        return pess, opt

    def _epsilon_scalar(self, delta: float) -> float:
        """ε(δ) of the pessimistic pair; for a clipped loss also the certified G_{√T·c/σ} bound
        (:func:`clipped_composition_mu`, μ rounded up), whichever is smaller: the pair's far tail is cut to
        ℓ = +∞ (pessimistic), so below its mass there (δ = 5e-324, say) the pair alone answers ∞ where ε is
        finite."""
        eps = super()._epsilon_scalar(delta)
        s = self.sensitivity
        if s.loss is Loss.CLIPPED_LEAST_SQUARES:
            mu = clipped_composition_mu(s.clip, s.sigma, self.steps)
            mu = math.nextafter(math.nextafter(mu, math.inf), math.inf)  # sqrt, product, quotient: ≤ 1.5 ulp
            eps = min(eps, float(Gaussian(mu=mu).epsilon(delta)))
        return eps

    @property
    def numerical_error(self) -> float:
        """0 for one step (exact pairs); for T > 1 the error bound η of the FFT composition
        (tradeoff/compose.py step 7) plus T times the one-step masses at ℓ = ±∞."""
        return self._pairs_and_error[2]

    @cached_property
    def _pairs_and_error(self) -> tuple[DiscretePair, DiscretePair, float]:
        pess, opt = self._one_step()
        if self.steps == 1:
            return pess, opt, 0.0
        # T-step range from the one-step moments of ℓ under P (CLT), capped by T·(largest loss)
        finite = pess.loss
        mean = float(np.sum(pess.p * finite))
        var = float(np.sum(pess.p * finite**2)) - mean**2
        top = float(np.max(np.abs(finite))) if finite.size else 1.0
        T = self.steps
        sd = math.sqrt(max(var, 0.0))
        # grid spacing h = L_T/K with L_T = T|mean| + 10·√T·sd (the composed loss under Q has mean T|mean|
        # and sd √T·sd); the composition's Chernoff window then cuts the result (tradeoff/compose.py step 5)
        L_T = min(T * top, T * abs(mean) + 10.0 * math.sqrt(T) * sd + 2.0 * sd)
        h = L_T / self.grid
        p_T, eta_p = compose_on_grid(pess, T, h, self.grid, Rounding.PESSIMISTIC)
        o_T, eta_o = compose_on_grid(opt, T, h, self.grid, Rounding.OPTIMISTIC)
        return p_T, o_T, max(eta_p, eta_o)

    @property
    def guarantee(self) -> str:
        """"certified ([MIX] Thm 5.1)" for one step; "heuristic, not a guarantee" for T > 1."""
        return "certified ([MIX] Thm 5.1)" if self.steps == 1 else "heuristic, not a guarantee"

    def describe(self, delta: float = 1e-5) -> dict[str, Any]:
        out = super().describe(delta)
        out["guarantee"] = self.guarantee
        return out

    @property
    def spec(self) -> str:
        s = self.sensitivity
        parts = [f"loss={s.loss.value}"]
        if s.loss is not Loss.LOGISTIC:
            parts.append(f"a={format_number(s.a)}")
        if s.loss is Loss.CLIPPED_LEAST_SQUARES:
            parts.append(f"clip={format_number(s.clip)}")
        if s.loss is Loss.LOGISTIC:
            parts.append(f"bound={format_number(s.bound)}")
        parts += [f"sigma={format_number(s.sigma)}", f"steps={self.steps}"]
        if self.steps > 1:
            parts.append("heuristic=1")
        return f"random_init({', '.join(parts)})"

    def __repr__(self) -> str:
        label = "" if self.steps == 1 else " [heuristic, not a guarantee]"
        return f"<RandomInit {self.spec}{label}>"


def clipped_composition_mu(clip: float, sigma: float, steps: int) -> float:
    """μ = √T·c/σ: a certified T-step bound for DP-GD with gradients clipped at c (Example D.2).

    Each step is the Gaussian mechanism with sensitivity c and noise σ, i.e. G_{c/σ}-DP whatever
    the initialisation; T adaptive steps are G_{√T·c/σ}-DP (Dong, Roth & Su, "Gaussian differential
    privacy", Cor 3.3). No amplification by the random initialisation is claimed.

    >>> clipped_composition_mu(1.0, 2.0, 4)
    1.0
    """
    c = check_positive("clip", clip)
    sg = check_positive("sigma", sigma)
    t = check_integer("steps", steps, minimum=1)
    return math.sqrt(t) * c / sg


def theorem51_points(sensitivity: Sensitivity, lam: Any) -> tuple[np.ndarray, np.ndarray]:
    """(α(λ), β(λ)) of the Thm 5.1 bound by adaptive quadrature of the App. D.1 integrals over w ~ N(0, 1)."""
    lam = np.atleast_1d(np.asarray(lam, dtype=float))
    kinks = [sensitivity.a] if sensitivity.loss is not Loss.LOGISTIC else [0.0]
    if sensitivity.loss is Loss.CLIPPED_LEAST_SQUARES:
        kinks += [sensitivity.a - sensitivity.clip, sensitivity.a + sensitivity.clip]
    pts = sorted(k for k in kinks if -12 < k < 12)
    out_a, out_b = [], []
    for l in lam:
        def fa(w: float) -> float:
            m = float(sensitivity.mu(w))
            pdf = math.exp(-w * w / 2) / math.sqrt(2 * math.pi)
            if m == 0:
                return pdf * (1.0 if l <= 0 else 0.0)
            return pdf * float(ndtr(-(l + m * m / 2) / m))

        def fb(w: float) -> float:
            m = float(sensitivity.mu(w))
            pdf = math.exp(-w * w / 2) / math.sqrt(2 * math.pi)
            if m == 0:
                return pdf * (1.0 if l > 0 else 0.0)
            return pdf * float(ndtr((l - m * m / 2) / m))

        from scipy import integrate  # the quadrature reference only: scipy.integrate costs ~0.15 s to import

        edges = [-12.0, *pts, 12.0]
        a = sum(integrate.quad(fa, lo, hi, epsabs=1e-14, epsrel=1e-12, limit=200)[0] for lo, hi in zip(edges[:-1], edges[1:]))
        b = sum(integrate.quad(fb, lo, hi, epsabs=1e-14, epsrel=1e-12, limit=200)[0] for lo, hi in zip(edges[:-1], edges[1:]))
        out_a.append(a)
        out_b.append(b)
    return np.array(out_a), np.array(out_b)


__all__ = ["Loss", "RandomInit", "Sensitivity", "clipped_composition_mu", "compose_on_grid", "theorem51_points"]
