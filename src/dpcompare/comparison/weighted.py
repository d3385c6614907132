"""What a hyper-prior Ψ adds to a comparison ([BCP] §5): the expected regret and the weighted figures.

Loaded by ``compare`` only where a hyper-prior is given (the public names stay ``dpcompare.comparison.Regret``
and ``dpcompare.comparison.Weighted``, PEP 562): a comparison without one does not define these two frozen
dataclasses (≈ 6 M instructions of a command's start-up).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .certified import UpperBracketed

if TYPE_CHECKING:
    from .delta import DeltaResult
    from .hyperprior import HyperPrior

__all__ = ["Regret", "Weighted"]


@dataclass(frozen=True)
class Regret(UpperBracketed):
    """Expected regret E_Ψ[(R_X − R_Y)₊] = ∫₀¹ Ψ(π)(R_X(π) − R_Y(π))₊ dπ with a certified bracket.

    A probability-scale figure (it lies in [0, ½]): the Bayes error the adversary gains, on average
    over priors drawn from Ψ, by facing Y instead of X.

    ``upper`` is the pessimistic end (more regret = less privacy), ``lower`` the optimistic one;
    ``bracket`` holds them as a ``Bracket`` of ``Sense.UPPER``, checked at construction.
    """

    value: float
    lower: float
    upper: float
    certified: bool = True

    def __str__(self) -> str:
        return f"{self.value:.6g}, certified in [{self.lower:.6g}, {self.upper:.6g}]"

    def to_dict(self) -> dict[str, Any]:
        return {"value": self.value, "lower": self.lower, "upper": self.upper, "certified": self.certified}


@dataclass(frozen=True)
class Weighted:
    """What a hyper-prior Ψ adds to a comparison ([BCP] §5). It never changes the verdict.

    ``delta_ab`` = Δ^Ψ(A‖B) = max_π Ψ(π)(R_A − R_B)(π) is density-weighted: not a probability, it can
    exceed 1 for a peaked Ψ. ``regret_ab`` = E_Ψ[(R_A − R_B)₊] is on the probability scale.
    """

    hyperprior: HyperPrior
    delta_ab: DeltaResult
    delta_ba: DeltaResult
    regret_ab: Regret
    regret_ba: Regret

    def __str__(self) -> str:
        name = self.hyperprior.name
        return (f"Hyper-prior {name} (density-weighted, not a probability): Δ^Ψ(A‖B): {self.delta_ab}; "
                f"Δ^Ψ(B‖A): {self.delta_ba}\n"
                f"Expected regret under {name}: E_Ψ[(R_A − R_B)₊] = {self.regret_ab}; "
                f"E_Ψ[(R_B − R_A)₊] = {self.regret_ba}")

    def to_dict(self) -> dict[str, Any]:
        return {
            "hyperprior": self.hyperprior.name,
            "delta_ab": self.delta_ab.to_dict(),
            "delta_ba": self.delta_ba.to_dict(),
            "delta_scale": "density-weighted (not a probability; can exceed 1)",
            "expected_regret_ab": self.regret_ab.to_dict(),
            "expected_regret_ba": self.regret_ba.to_dict(),
        }
