"""Accounting: certified SGM composition (accounting/sgm.py on tradeoff/grid.py + tradeoff/compose.py), DpEvent planning
(accounting/events.py) and the one adapter that imports dp-accounting (accounting/dp_accounting.py).

- :func:`compose_subsampled_gaussian` — N steps of the Poisson-subsampled Gaussian as a pessimistic and
  an optimistic pair, certified up to ``numerical_error`` (module docstring of certified.py).
- :func:`pld_from_event`, :func:`pld_pair`, :func:`pld_to_pairs`, :func:`subsampled_gaussian_composed` —
  dp-accounting PLDs and their conversion to :class:`~dpcompare.tradeoff.DiscretePair`.
- :func:`event_to_dict`, :func:`event_from_dict`, :func:`event_to_json`, :func:`plan` — DpEvents in their
  plain (JSON) form and the route each takes to a certified pair.
- :func:`profile_bound_pair` — the pair of a privacy-profile bound (the lower envelope of several pairs
  is :func:`dpcompare.tradeoff.lower_envelope`).
- :func:`delta_bracket` — certified Δ(A‖B) of two pair-backed mechanisms, numerical error included.
"""

from .dp_accounting import (
    PairConversion,
    event_from_dict,
    event_to_dict,
    event_to_json,
    is_event,
    leaves_pld,
    pld_from_event,
    pld_pair,
    pld_to_pairs,
    pmf_to_pair,
    rdp_bound_pair,
    subsampled_gaussian_composed,
    subsampled_gaussian_pld,
)
from .envelope import profile_bound_pair
from .events import Adjacency, EventPlan, Route, check_event_dict, event_summary, load_event_text, plan
from .sgm import CertifiedComposition, DeltaBracket, auto_discretization, compose_subsampled_gaussian, delta_bracket

__all__ = [
    "Adjacency",
    "CertifiedComposition",
    "DeltaBracket",
    "EventPlan",
    "PairConversion",
    "Route",
    "auto_discretization",
    "check_event_dict",
    "compose_subsampled_gaussian",
    "delta_bracket",
    "event_from_dict",
    "event_summary",
    "event_to_dict",
    "event_to_json",
    "is_event",
    "leaves_pld",
    "load_event_text",
    "plan",
    "pld_from_event",
    "pld_pair",
    "pld_to_pairs",
    "pmf_to_pair",
    "profile_bound_pair",
    "rdp_bound_pair",
    "subsampled_gaussian_composed",
    "subsampled_gaussian_pld",
]
