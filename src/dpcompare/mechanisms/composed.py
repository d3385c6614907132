"""The N-fold composition of a one-step mechanism with a closed-form privacy-loss law, certified.

``Composed(m, steps=N)`` is M^⊗N for M a Laplace mechanism (closed-form loss law, composed on a grid:
composition/closed_form.py) or a mechanism given by an exact discrete pair (randomized response, ε-DP,
(ε, δ)-DP, a piecewise-linear trade-off curve, ``FromPair``). For a Gaussian G_μ it is G_{μ√N} as
certified discrete pairs (the closed form ``Gaussian(mu=μ√N)`` is exact; the pairs make Δ against
another pair-backed mechanism an exact merge instead of a branch and bound: 8.5× faster, building the
pairs included, in benchmarks/bench_composed_laplace.py). Its two pairs are certified like the
subsampled Gaussian's (tradeoff/compose.py): R_pess − η ≤ R ≤ R_opt + η at every π, η =
``numerical_error``, so every view and every Δ against it carries a bracket containing the truth.

A step with one or two finite atoms (randomized response, ε-DP, (ε, δ)-DP) is composed in closed form
instead: the binomial pair of composition/binomial.py, certified with η its a-priori bound on the rounding
of the binomial sums and of the one-step pair's own doubles, N times over (no grid; up to 2²⁰ atoms and
composed losses up to 1e8, beyond which the grid route is taken).

The composition of the symmetric one-step pair is the mechanism's (f-DP composition, Dong, Roth & Su
2022, Thm 3.2: the N-fold product of the pair that attains f is the pair that attains f^⊗N).

>>> import dpcompare as dc
>>> c = Composed(dc.Laplace(b=1), steps=10)
>>> lo, hi = c.delta_bounds(1.0)
>>> bool(0.0 < lo <= hi < lo + 1e-4), c.spec
(True, 'compose(laplace(b=1), steps=10)')
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from .._validation import check_integer, check_positive
from ..directed_rounding import add_up, sub_down
from ..tradeoff import DiscretePair, Sense
from .base import _ROUNDING_ABS, Mechanism, interval_bracket
from .continuous import Gaussian, Laplace
from .pair_backed import PairMechanism


def composable(m: Mechanism) -> str | None:
    """None when ``Composed(m, …)`` can be built, else the reason (one sentence)."""
    if isinstance(m, (Laplace, Gaussian)):
        return None
    if isinstance(m, Composed):
        return None
    if isinstance(m, PairMechanism) and float(m.numerical_error) == 0.0:
        pess, opt = m.pairs()
        if pess is opt:
            return None
        return f"{m.spec} has a numeric (pessimistic/optimistic) pair, not an exact one"
    return f"{m.spec} has no closed-form privacy-loss law that can be composed with a certified bracket"


@dataclass(frozen=True, repr=False)
class Composed(PairMechanism):
    """M composed ``steps`` times (module docstring). ``discretization`` bounds the loss-grid spacing
    (default: 1% of the one-step loss standard deviation); a coarser grid is faster and wider, never
    uncertified. Composing a ``Composed`` multiplies the step counts."""

    mechanism: Mechanism
    steps: int
    discretization: float | None = field(default=None, kw_only=True)

    def __post_init__(self) -> None:
        if not isinstance(self.mechanism, Mechanism):
            raise TypeError(f"mechanism must be a dpcompare Mechanism, got {type(self.mechanism).__name__}")
        object.__setattr__(self, "steps", check_integer("steps", self.steps, minimum=1))
        if self.discretization is not None:
            object.__setattr__(self, "discretization", check_positive("discretization", self.discretization))
        if isinstance(self.mechanism, Composed):  # (M^⊗a)^⊗b = M^⊗(ab)
            inner = self.mechanism
            object.__setattr__(self, "mechanism", inner.mechanism)
            object.__setattr__(self, "steps", inner.steps * self.steps)
        why = composable(self.mechanism)
        if why is not None:
            raise ValueError(f"cannot compose: {why} (supported: laplace, gaussian and mechanisms with an exact discrete pair)")
        from ..composition.closed_form import MAX_LAPLACE_M

        if isinstance(self.mechanism, Gaussian) and self.mechanism.mu * math.sqrt(self.steps) < 1e-9:
            raise ValueError(f"cannot compose gaussian as certified pairs with μ√N = {self.mechanism.mu * math.sqrt(self.steps):g} "
                             f"< 1e-9 (the grid spacing underflows); the closed form is exact: "
                             f"gaussian(mu={self.mechanism.mu * math.sqrt(self.steps):.17g})")
        if isinstance(self.mechanism, Gaussian) and self.mechanism.mu * math.sqrt(self.steps) > 1e3:
            raise ValueError(f"cannot compose gaussian as certified pairs with μ√N = {self.mechanism.mu * math.sqrt(self.steps):g} "
                             f"> 1000; the closed form is exact: gaussian(mu={self.mechanism.mu * math.sqrt(self.steps):.17g})")
        if isinstance(self.mechanism, Laplace) and self.mechanism.m > MAX_LAPLACE_M:
            raise ValueError(f"cannot compose laplace with sensitivity/b = {self.mechanism.m:g} > {MAX_LAPLACE_M:g}: one step is "
                             "already blatantly non-private for every practical purpose (δ(ε) = 1 − e^{(ε−m)/2})")

    @cached_property
    def composition(self):
        """The certified composition (pairs, grid spacing, error bound): composition/closed_form.py."""
        from ..composition.closed_form import compose_discrete, compose_gaussian, compose_laplace

        m = self.mechanism
        self._check_mean_loss()
        if isinstance(m, Laplace):
            return compose_laplace(float(m.m), self.steps, self.discretization)
        if isinstance(m, Gaussian):  # G_μ^⊗N = G_{μ√N}, as certified pairs
            return compose_gaussian(float(m.mu) * math.sqrt(self.steps), self.discretization)
        pair = m.pairs()[0]
        if self.steps == 1 or pair.size == 0:  # one step, or only atoms at ±∞ (bnp^N = bnp): the pair itself
            return None
        exact = self._two_atom_composition(pair)
        if exact is not None:
            return exact
        return compose_discrete(pair, self.steps, self.discretization)

    def _check_mean_loss(self) -> None:
        """Refuse up front a grid composition whose output would carry losses beyond MAX_ABS_LOSS (the grid
        route refuses those after composing): its window holds the composed loss's mean under Q, N·KL
        (KL = m − 1 + e^{−m} for Laplace), so N·KL > MAX_ABS_LOSS is refused there anyway, after the FFT."""
        from ..composition.sgm_grid import MAX_ABS_LOSS
        from ..tradeoff.compose import DiscretizationTooFine

        m = self.mechanism
        if not isinstance(m, Laplace):  # pairs: the window check (before allocation) refuses the large ones
            return
        kl, what = float(m.m) + math.expm1(-float(m.m)), f"laplace with sensitivity/b = {float(m.m):.4g}"
        if self.steps * kl > MAX_ABS_LOSS:
            raise DiscretizationTooFine(
                f"steps={self.steps}: the composed privacy loss of {what} has mean N·KL = {self.steps * kl:.3g} nats, "
                f"beyond the {MAX_ABS_LOSS:.0e} a certified pair can carry: steps must be below {int(MAX_ABS_LOSS // kl)} "
                "(where N·KL reaches it; ε(δ) is still answered by the pure-DP bound)")

    def _two_atom_composition(self, pair: DiscretePair):
        """The certified binomial composition of a step with one or two finite atoms (randomized response,
        ε-DP, (ε, δ)-DP: composition/binomial.py, η including the one-step inputs' rounding), or None where it does not apply or would build more
        than ``MAX_ATOMS`` atoms (checked before any allocation); ``discretization`` is not used there."""
        from ..composition.binomial import MAX_ABS_LOSS, MAX_ATOMS, LossesNotDistinct, compose_two_atoms, two_atom_window
        from ..composition.sgm_certified import CertifiedComposition
        from ..tradeoff.compose import CompositionReport

        if pair.size not in (1, 2) or self.steps * float(np.max(np.abs(pair.loss))) > MAX_ABS_LOSS:
            return None
        if two_atom_window(pair, self.steps) > MAX_ATOMS:
            return None
        t0 = time.perf_counter()
        try:
            out, eta = compose_two_atoms(pair, self.steps)
        except LossesNotDistinct:  # composed losses not distinct in double precision: the grid route
            return None
        lo, hi = (float(out.loss[0]), float(out.loss[-1])) if out.size else (0.0, 0.0)
        report = CompositionReport(self.steps, 0.0, 0, (lo, hi), 0.0, 0.0, 0.0, eta, eta)
        return CertifiedComposition(out, out, eta, 0.0, self.steps, (report,), time.perf_counter() - t0, (eta, eta))

    def _build_pairs(self) -> tuple[DiscretePair, DiscretePair]:
        c = self.composition
        if c is None:  # one step of an exact pair: the pair itself
            p = self.mechanism.pairs()[0]
            return p, p
        return c.pessimistic, c.optimistic

    @property
    def numerical_error(self) -> float:
        """Bound η on the floating-point error of every Bayes error and δ of both pairs (tradeoff/compose.py
        step 7); Δ brackets add it."""
        c = self.composition
        return 0.0 if c is None else float(c.numerical_error)

    def _bayes_error_bounds(self, pi):
        lo, hi = super()._bayes_error_bounds(pi)
        eta = self.numerical_error
        cap = np.minimum(pi, 1.0 - np.asarray(pi, dtype=float))
        return interval_bracket(sub_down(lo, eta), add_up(hi, eta), Sense.LOWER, 0.0, cap, absolute=_ROUNDING_ABS + eta)

    def _delta_bounds(self, eps):
        lo, hi = super()._delta_bounds(eps)
        eta = self.numerical_error
        return interval_bracket(sub_down(lo, eta), add_up(hi, eta), Sense.UPPER, 0.0, 1.0)

    def _epsilon_scalar(self, delta: float) -> float:
        """Smallest ε with δ_pess(ε) + η ≤ δ (composition/sgm_certified.py ``pair_epsilon``): an upper bound of ε(δ).

        Two other upper bounds answer where they are smaller (or where the grid cannot, e.g. below its
        truncated tails): for a Gaussian the closed form of G_{μ√N} (μ√N rounded up, exact), and for
        ε₀-DP steps :meth:`pure_dp_epsilon`.
        """
        m = self.mechanism
        if isinstance(m, Gaussian):  # G_μ^⊗N = G_{μ√N} (Dong, Roth & Su 2022, Cor 3.3): exact, any δ
            return Gaussian(mu=math.nextafter(m.mu * math.sqrt(self.steps), math.inf)).epsilon(delta)
        bound = self.pure_dp_epsilon(delta)
        try:
            if self.numerical_error == 0.0:
                eps = super()._epsilon_scalar(delta)
            else:
                from ..composition.sgm_certified import pair_epsilon

                eps = pair_epsilon(self._pairs[0], self.numerical_error, delta)
        except ValueError:  # the grid does not fit (refused with its estimate): the closed-form bound answers
            if math.isfinite(bound):
                return bound
            raise
        return min(eps, bound)

    def pure_dp_epsilon(self, delta: float) -> float:
        """An upper bound on ε(δ) when every step is ε₀-DP (∞ otherwise): min(N·ε₀, N·κ + ε₀·√(2N·log(1/δ))).

        N·ε₀ is basic composition (Dwork & Roth 2014, Thm 3.16). The second term: the composed privacy
        loss is a sum of N independent losses in [−ε₀, ε₀] with mean κ = KL(Q‖P) of one step, so
        Q(L > N·κ + t) ≤ exp(−t²/(2N·ε₀²)) (Hoeffding 1963, Thm 2), and δ(ε) ≤ Q(L > ε) ([BCP]
        eq 25 without its negative term); as in Kairouz, Oh & Viswanath 2015 (Thm 3.5) with κ exact
        instead of its bound ε₀·tanh(ε₀/2). κ is the Laplace closed form m − 1 + e^{−m} or the pair's
        Σ qᵢℓᵢ; both terms are rounded up by a relative 1e-12.

        >>> import dpcompare as dc
        >>> round(Composed(dc.Laplace(b=1), steps=10**7).pure_dp_epsilon(1e-5) / 1e6, 4)
        3.694
        """
        m = self.mechanism
        n = self.steps
        if isinstance(m, Laplace):
            eps0 = float(m.m)
            kl = eps0 + math.expm1(-eps0)  # m − (1 − e^{−m}) ≥ 0
        elif isinstance(m, PairMechanism) and float(m.numerical_error) == 0.0:
            pair = m.pairs()[0]
            if pair.p_neg_inf > 0 or pair.q_pos_inf > 0 or pair.size == 0:
                return math.inf
            q = np.exp(np.asarray(pair.log_q, dtype=float))
            eps0 = float(np.max(np.abs(pair.loss)))
            kl = max(math.fsum((q * pair.loss).tolist()), 0.0)
        else:
            return math.inf
        basic = n * eps0 * (1.0 + 1e-15)
        if not 0.0 < delta < 1.0:
            return 0.0 if delta >= 1.0 else basic
        hoeffding = (n * kl + eps0 * math.sqrt(2.0 * n * -math.log(delta))) * (1.0 + 1e-12)
        return min(basic, hoeffding)

    @property
    def spec(self) -> str:
        return f"compose({self.mechanism.spec}, steps={self.steps})"
