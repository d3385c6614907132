"""ψ as a Gaussian-DP parameter: Lemma 6, group privacy (Cor 7), composition (Cor 8), DP-SGD CLT (Cor 9).

- Lemma 6: the Gaussian mechanism with index ψ is μ-GDP (trade-off ≥ G_μ) iff ψ ≤ μ; its tightest
  GDP parameter is μ = ψ.
- Cor 7 (group privacy, Dong et al. 2022 Thm 2.14): for groups of k individuals the index is k·ψ
  (the means move k·Δ apart; as ROC curves R_ψ∘R_ψ∘… = R_{kψ}).
- Cor 8 (composition, Dong et al. 2022 Cor 3.3): G_{ψ₁} ⊗ … ⊗ G_{ψₙ} = G_{√(ψ₁² + … + ψₙ²)} exactly;
  k equal mechanisms compose to √k·ψ.
- Cor 9 (DP-SGD CLT, Dong et al. 2022 Cor 5.4), eq 5.7: T steps of the subsampled Gaussian with
  *uniform* (fixed-size, without replacement) batches at rate r, as r√T → s and T → ∞, are
  asymptotically ψ-GDP with::

      ψ = s·√2·√(e^{1/σ²}·Φ(3/(2σ)) + 3·Φ(−1/(2σ)) − 2),   s = r·√T

  (:func:`clt_psi`). The Poisson-sampling CLT is a different formula, ψ = s·√(e^{1/σ²} − 1); both, and
  :func:`compare_clt` (each against the certified accountant for the same sampling), live in
  :mod:`dpcompare.gaussian.clt`. The CLTs are asymptotic and can *under-state* the privacy cost at
  finite T (Gopi et al. 2021; [SI] §5.1).
"""

from __future__ import annotations

import math
from typing import Any, Iterable

import numpy as np

from .._validation import check_integer
from ._psi_checks import check_psi, scalar_or_array
from .clt import CLTComparison, clt_mu_uniform, compare_clt

__all__ = ["CLTComparison", "clt_psi", "compare_clt", "compose", "group", "is_gdp"]  # CLT ones from .clt


def is_gdp(psi: Any, mu: Any) -> bool | np.ndarray:
    """Lemma 6 ([SI]): the Gaussian mechanism with index ψ is μ-GDP iff ψ ≤ μ.

    >>> is_gdp(1.0, 1.5), is_gdp(1.0, 0.5)
    (True, False)
    """
    p = check_psi(psi)
    m = check_psi(mu, "mu")
    out = p <= m
    return bool(out) if out.ndim == 0 else out


def compose(psis: Iterable[Any]) -> float:
    """Cor 8 ([SI]): composing Gaussian mechanisms ψ₁, …, ψₙ gives ψ = √(ψ₁² + … + ψₙ²), exactly.

    Accepts any iterable (or array) of indices; computed with ``math.hypot`` (no overflow).

    >>> compose([3.0, 4.0])
    5.0
    >>> round(compose([0.5] * 100), 12)   # √100·0.5
    5.0
    """
    arr = np.atleast_1d(np.asarray(list(psis) if not isinstance(psis, np.ndarray) else psis, dtype=float)).ravel()
    if arr.size == 0:
        raise ValueError("psis must hold at least one sensitivity index, got none")
    check_psi(arr, "psis")
    return float(math.hypot(*arr.tolist()))


def group(psi: Any, k: Any) -> float | np.ndarray:
    """Cor 7 ([SI]): for groups of k individuals the Gaussian mechanism has index k·ψ.

    >>> group(0.5, 3)
    1.5
    """
    p = check_psi(psi)
    kk = check_integer("k", k, minimum=1)
    return scalar_or_array(kk * p)


def clt_psi(sigma: Any, sampling_rate: Any, steps: Any) -> float:
    """DP-SGD CLT index for *uniform* (fixed-size) sampling, [SI] Cor 9 eq 5.7 (Dong, Roth & Su 2022,
    Cor 5.4) — the same as :func:`dpcompare.gaussian.clt.clt_mu_uniform`. For Poisson sampling use
    :func:`dpcompare.gaussian.clt.clt_mu_poisson`; :func:`compare_clt` checks either against the
    accountant for the same sampling.

    ψ = s·√2·√(e^{1/σ²}·Φ(3/(2σ)) + 3·Φ(−1/(2σ)) − 2) with s = r·√T. Asymptotic (r√T → s, T → ∞).

    >>> round(clt_psi(1.0, 0.01, 10_000), 6)   # s = 1
    1.710142
    """
    return clt_mu_uniform(sigma, sampling_rate, steps)
