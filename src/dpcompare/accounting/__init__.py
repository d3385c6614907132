"""Accounting: DpEvent planning (accounting/event_plan.py, no dp-accounting import) and the one adapter
that imports dp-accounting (accounting/dp_accounting.py). The certified composition engines live in
:mod:`dpcompare.composition`; the certified Δ bracket in :mod:`dpcompare.comparison`.

- :func:`event_to_dict`, :func:`event_from_dict`, :func:`event_to_json`, :func:`plan` — DpEvents in their
  plain (JSON) form and the route each takes to a certified pair.
- :func:`pld_from_event`, :func:`pld_pair`, :func:`pld_to_pairs`, :func:`subsampled_gaussian_composed` —
  dp-accounting PLDs and their conversion to :class:`~dpcompare.tradeoff.DiscretePair`.

The adapter's names load on first use (PEP 562), so ``import dpcompare.accounting`` does not import
dp-accounting until one of them is asked for.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .event_plan import Adjacency, EventPlan, Route, check_event_dict, event_summary, load_event_text, plan

_ADAPTER = (
    "PairConversion",
    "event_from_dict",
    "event_to_dict",
    "event_to_json",
    "is_event",
    "leaves_pld",
    "pld_from_event",
    "pld_pair",
    "pld_to_pairs",
    "pmf_to_pair",
    "rdp_bound_pair",
    "subsampled_gaussian_composed",
    "subsampled_gaussian_pld",
)

if TYPE_CHECKING:  # pragma: no cover
    from .dp_accounting import (PairConversion, event_from_dict, event_to_dict, event_to_json, is_event, leaves_pld,
                                pld_from_event, pld_pair, pld_to_pairs, pmf_to_pair, rdp_bound_pair,
                                subsampled_gaussian_composed, subsampled_gaussian_pld)

__all__ = sorted(("Adjacency", "EventPlan", "Route", "check_event_dict", "event_summary", "load_event_text", "plan")
                 + _ADAPTER)


def __getattr__(name: str) -> Any:
    if name in _ADAPTER:
        value = getattr(importlib.import_module(".dp_accounting", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return list(__all__)
