"""Accounting: certified composition (accounting/certified.py, accounting/sgm.py) and the one adapter
that touches dp-accounting (accounting/pld.py).

- :func:`compose_subsampled_gaussian` — N steps of the Poisson-subsampled Gaussian as a pessimistic and
  an optimistic pair, certified up to ``numerical_error`` (module docstring of certified.py).
- :func:`pld_from_event`, :func:`pld_pair`, :func:`pld_to_pairs`, :func:`subsampled_gaussian_composed` —
  dp-accounting PLDs and their conversion to :class:`~dpcompare.tradeoff.DiscretePair`.
- :func:`bayes_envelope` — the pair whose Bayes error is the minimum of several (f = conv(min f_i)).
- :func:`delta_bracket` — certified Δ(A‖B) of two pair-backed mechanisms, numerical error included.
"""

from .pld import (
    PairConversion,
    bayes_envelope,
    pld_from_event,
    pld_pair,
    pld_to_pairs,
    pmf_to_pair,
    subsampled_gaussian_composed,
    subsampled_gaussian_pld,
)
from .sgm import CertifiedComposition, DeltaBracket, auto_discretization, compose_subsampled_gaussian, delta_bracket

__all__ = [
    "CertifiedComposition",
    "DeltaBracket",
    "PairConversion",
    "auto_discretization",
    "bayes_envelope",
    "compose_subsampled_gaussian",
    "delta_bracket",
    "pld_from_event",
    "pld_pair",
    "pld_to_pairs",
    "pmf_to_pair",
    "subsampled_gaussian_composed",
    "subsampled_gaussian_pld",
]
