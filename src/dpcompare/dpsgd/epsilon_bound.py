"""The certified ε_hi of N steps of SGM(σ, p) at δ, shared by every DP-SGD calibration.

ε_hi is the pessimistic PLD engine's ε (composition/sgm_certified.py), or the Rényi-DP bound (:mod:`.rdp_bound`) where
that engine cannot certify a finite ε; see :mod:`dpcompare.dpsgd.calibrate` for the whole story.

>>> b = epsilon_upper(2.0, 1.0, 4, 1e-5)      # p = 1: the Gaussian mechanism with μ = 1
>>> b.accountant.value, 4.37 < b.epsilon < 4.39
('pld', True)
"""

from __future__ import annotations

import enum
import math
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from .._summary import summarized
from .._validation import check_in_interval, check_positive, format_number
from ..composition.sgm_certified import default_discretization

#: smallest σ searched: below it the single-step privacy loss overflows the PLD engine (the RDP bound
#: still answers, but a noise multiplier < 1e-4 is no privacy at all)
SIGMA_MIN = 1e-4
#: largest number of steps composed by the PLD engine; beyond, the Rényi-DP bound certifies ε
PLD_MAX_STEPS = 10**8
#: below this δ, ε_hi is the smaller of the PLD engine's bound and the Rényi-DP bound (both certified)
TINY_DELTA = 1e-10
#: largest number of steps searched by ``steps_for_sigma`` (an answer beyond is reported as "more than")
STEPS_MAX = 10**18
#: coarse grid factor of the bracketing phase
COARSE_FACTOR = 64.0
#: coarse grid factor of the bracketing phase of risk calibration (both sides of the pair are composed)
RISK_COARSE_FACTOR = 16.0

#: what an engine failure at one point looks like (numerically out of range): treated as "not certified"
_ENGINE_ERRORS = (ValueError, RuntimeError, OverflowError, FloatingPointError, ZeroDivisionError, MemoryError)


class Accountant(str, enum.Enum):
    """Which certified bound produced an ε."""

    PLD = "pld"  #: pessimistic privacy-loss distribution (tight)
    RDP = "rdp"  #: Rényi DP conversion (looser, any δ and N)


def _check_target(epsilon: Any, delta: Any) -> tuple[float, float]:
    eps = check_positive("epsilon", epsilon)
    if not math.isfinite(eps):
        raise ValueError(f"epsilon must be finite, got {epsilon!r}")
    d = check_in_interval("delta", delta, 0.0, 1.0, low_open=True, high_open=True)
    return eps, d


def certified_epsilon(sigma: float, p: float, steps: int, delta: float, discretization: float | None = None) -> float:
    """Certified ε(δ) of N steps of SGM(σ, p) from the PLD engine: an upper bound of the true ε at every grid.

    The engine's own entry point (:func:`dpcompare.composition.sgm_certified.certified_epsilon`): only the
    pessimistic pair is composed, and its floating-point error bound η and the certified Chernoff
    tail bound are included, so ε_hi(δ) ≥ the true ε(δ) at every grid spacing (tradeoff/compose.py). For the
    symmetrised pair ε_sym(δ) = max(ε_f(δ), ε_{f⁻¹}(δ)), which the engine takes.
    """
    from ..composition.sgm_certified import certified_epsilon as engine_epsilon

    return float(engine_epsilon(sigma, p, steps, delta, discretization))


@summarized("Certified upper bound of ε")
@dataclass(frozen=True)
class EpsilonBound:
    """One certified upper bound ε_hi (``math.inf``: nothing certified) and where it came from."""

    epsilon: float
    accountant: Accountant
    discretization: float | None
    note: str = ""  #: why the PLD engine did not answer, when it did not


def epsilon_upper(sigma: float, p: float, steps: int, delta: float, discretization: float | None = None,
                  factor: float = 1.0) -> EpsilonBound:
    """ε_hi of N steps of SGM(σ, p) at δ (module docstring): the PLD bound at grid ``discretization`` (or
    ``factor`` × the automatic grid), or the Rényi-DP bound where the PLD engine cannot certify a finite ε."""
    note = ""
    if steps <= PLD_MAX_STEPS:
        try:
            h = discretization if discretization is not None else factor * default_discretization(sigma, p, steps)
            e = certified_epsilon(sigma, p, steps, delta, h)
            if math.isfinite(e) and delta < TINY_DELTA:
                # far below the grid's resolution the engine answers from its Chernoff tail bound;
                # the Rényi-DP bound is another certified upper bound, and can be tighter there
                from .rdp_bound import rdp_epsilon

                r = rdp_epsilon(sigma, p, steps, delta)
                if r < e:
                    return EpsilonBound(r, Accountant.RDP, None, "the Renyi-DP bound is tighter than the PLD tail bound here")
            if math.isfinite(e):
                return EpsilonBound(e, Accountant.PLD, float(h))
            note = f"the PLD engine puts mass > delta={delta:g} at epsilon = +inf"
        except _ENGINE_ERRORS as exc:
            note = f"the PLD engine is out of range here ({type(exc).__name__})"
    else:
        note = f"more than {PLD_MAX_STEPS:.0e} steps: not composed by the PLD engine"
    from .rdp_bound import rdp_epsilon  # its order tables cost ~30 ms to build: only where the PLD engine does not answer

    e = rdp_epsilon(sigma, p, steps, delta)
    return EpsilonBound(e if math.isfinite(e) else math.inf, Accountant.RDP, None, note)


#: progress callback: (certified feasible σ or None, known infeasible σ or None)
Progress = Callable[[float | None, float | None], None]


@summarized("DP-SGD calibration (certified)", "spec")
class _SgmResult:
    """Shared by the calibration results: a dict view and the spec string of the calibrated mechanism."""

    sigma: float
    sampling_rate: float
    steps: int

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)  # type: ignore[call-overload]
        return {k: (v.value if isinstance(v, enum.Enum) else v) for k, v in d.items()}

    @property
    def spec(self) -> str:
        return f"sgm(sigma={format_number(self.sigma)}, p={format_number(self.sampling_rate)}, steps={self.steps})"
