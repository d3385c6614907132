"""The Poisson-subsampled Gaussian (DP-SGD) with its certified composition (DpEvents and PLDs: mechanisms/events.py).

``SubsampledGaussian`` is N steps of the Poisson-subsampled Gaussian mechanism with noise multiplier σ
and sampling rate p (Abadi et al. 2016; dominating pair of Balle et al. 2018 / Zhu et al. 2022):
one step's remove pair is P = N(0, σ²), Q = (1 − p)·N(0, σ²) + p·N(1, σ²), the add pair its swap; the
mechanism is f_sym = conv(min(f, f⁻¹)) of the N-fold composition (seed 000 §1, DESIGN.md §1).
Its two pairs are certified (accounting/certified.py): the pessimistic one is at least as informative
as the truth, the optimistic one at most, up to ``numerical_error`` in Bayes error; the bracket
therefore contains the exact value. With p = 1 the mechanism is the Gaussian with μ = √N/σ exactly.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from .._validation import check_in_interval, check_integer, check_positive, format_number
from ..tradeoff import DiscretePair
from .pair_backed import PairMechanism


def _check_discretization(value: Any) -> float | None:
    if value is None:
        return None
    return check_positive("discretization", value)


@dataclass(frozen=True, repr=False)
class SubsampledGaussian(PairMechanism):
    """N = ``steps`` steps of the Poisson-subsampled Gaussian mechanism (sensitivity 1).

    Parameters
    ----------
    sigma : noise multiplier σ > 0 (noise standard deviation / clipping norm).
    sampling_rate : Poisson sampling probability p ∈ (0, 1].
    steps : number of compositions N ≥ 1 (an integral float such as 1.4e6 is accepted).
    discretization : privacy-loss grid spacing h (keyword only). Default: h = 0.01·s, s the
        single-step loss standard deviation, so the bracket width is ≈ 1e-5 or less in Δ
        (accounting/sgm.py, ``auto_discretization``); a coarser h is faster and wider, never uncertified.

    >>> import dpcompare as dc
    >>> m = dc.SubsampledGaussian(sigma=1.0, sampling_rate=0.01, steps=100)
    >>> lo, hi = m.delta_bounds(1.0)
    >>> bool(lo <= hi) and hi < 1e-3
    True
    """

    sigma: float
    sampling_rate: float
    steps: int
    discretization: float | None = field(default=None, kw_only=True)

    def __post_init__(self) -> None:
        object.__setattr__(self, "sigma", check_positive("sigma", self.sigma))
        object.__setattr__(
            self, "sampling_rate", check_in_interval("sampling_rate", self.sampling_rate, 0.0, 1.0, low_open=True)
        )
        object.__setattr__(self, "steps", check_integer("steps", self.steps, minimum=1))
        object.__setattr__(self, "discretization", _check_discretization(self.discretization))
        if 1.0 / self.sigma > 1e6:
            raise ValueError(
                f"sigma must be >= 1e-6 (the privacy loss of a smaller noise multiplier does not fit in "
                f"double precision), got {self.sigma:g}"
            )
        if self.discretization is not None and self.discretization > 10.0:
            raise ValueError(f"discretization must be in (0, 10], got {self.discretization:g}")

    @cached_property
    def composition(self):
        """The certified composition (pairs, discretisation, error bound, timings): accounting/sgm.py."""
        from ..accounting.sgm import compose_subsampled_gaussian

        return compose_subsampled_gaussian(self.sigma, self.sampling_rate, self.steps, self.discretization)

    def _build_pairs(self) -> tuple[DiscretePair, DiscretePair]:
        c = self.composition
        return c.pessimistic, c.optimistic

    @property
    def numerical_error(self) -> float:
        """Bound on the floating-point error of every Bayes error of both pairs (accounting/certified.py
        step 7): widen Δ brackets by the sum of both mechanisms' values."""
        return self.composition.numerical_error

    @property
    def spec(self) -> str:
        return f"sgm(sigma={format_number(self.sigma)}, p={format_number(self.sampling_rate)}, steps={self.steps})"

    @property
    def gdp_mu(self) -> float:
        """μ* = √N/σ for every sampling rate p — the tightest μ-GDP bound, though for p < 1 only the
        extreme tail reaches it.

        Bound: Poisson subsampling only raises a symmetric f (C((1−p)·Id + p·f) ≥ f, seed 002 Prop E.1,
        Dong et al.'s C_p) and composition is monotone, so f ≥ G_{1/σ}^{⊗N} = G_{√N/σ}. Tightness: with α = 1−Φ(x) and one step,
        1 − f(α) = (1−p)(1−Φ(x)) + p(1−Φ(x−1/σ)), so the GDP gap Φ⁻¹(1−α) − Φ⁻¹(f(α)) =
        1/σ − log(1/p)/x + o(1/x) → 1/σ as α → 0 (for N steps the event "sampled every time", of
        probability p^N, gives √N/σ the same way). The CLT μ = p√(N(e^{1/σ²}−1)) (Dong et al. 2022, §5) is
        an approximation of the bulk of f, not a bound; see ``dpcompare.dpsgd`` for it.
        """
        return math.sqrt(self.steps) / self.sigma
