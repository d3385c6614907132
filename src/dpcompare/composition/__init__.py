"""Composition: every certified N-fold composition engine, each a pessimistic and an optimistic pair with
a numerical error bound, built on :mod:`dpcompare.tradeoff` (grid.py, compose.py) and nothing above it.

- :mod:`.sgm_certified` (with :mod:`.sgm_step`, :mod:`.sgm_grid`, :mod:`.sgm_compose`) — the
  Poisson-subsampled Gaussian (DP-SGD): pairs, δ(ε), ε(δ).
- :mod:`.closed_form` — Laplace, the Gaussian and any discrete pair composed N times.
- :mod:`.wor` — batches sampled without (and with) replacement, replace-one.
- :mod:`.profile_bound` — the least informative pair under a privacy-profile bound (the upper envelope).
- :mod:`.random_allocation` — random allocation (balls-in-bins batches) and the shuffle lower bound.
- :mod:`.gaussian_mixture` — a Gaussian mixture against a Gaussian mixture with a monotone loss (DpEvent
  mixtures of Gaussians, the truncated Poisson-subsampled Gaussian).
- :mod:`.randomized_response` — randomized response composed N times, exactly or on a lattice.
"""

from .profile_bound import profile_bound_pair
from .sgm_certified import CertifiedComposition, auto_discretization, compose_subsampled_gaussian

__all__ = ["CertifiedComposition", "auto_discretization", "compose_subsampled_gaussian", "profile_bound_pair"]
