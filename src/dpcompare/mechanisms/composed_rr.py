"""N-fold k-ary randomized response (dp-accounting's ``SelfComposedDpEvent(RandomizedResponseDpEvent)``) as
its certified composed pair with η, the a-priori bound on the rounding of the multinomial sums and of the
one-step inputs, N times over (composition/randomized_response.py ``compose_randomized_response``): every view is widened by η like ``Composed``'s (R_pess − η ≤ R ≤ R_opt + η).

>>> m = ComposedRandomizedResponse.of(0.5, 2, 20)
>>> lo, hi = m.delta_bounds(0.0)
>>> bool(0 < hi - lo < 1e-12)
True
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import cached_property

from .composed import Composed


@dataclass(frozen=True, repr=False)
class ComposedRandomizedResponse(Composed):
    """``Composed`` of the one-step randomized-response pair whose composition is the certified pair with η."""

    noise_parameter: float = field(default=0.5, kw_only=True)
    num_buckets: int = field(default=2, kw_only=True)

    @classmethod
    def of(cls, noise_parameter: float, num_buckets: int, count: int, name: str = "randomized_response"
           ) -> "ComposedRandomizedResponse":
        from .discrete import FromPair
        from .events import randomized_response_pair

        step = FromPair(randomized_response_pair(noise_parameter, num_buckets), name=name)
        return cls(step, count, noise_parameter=float(noise_parameter), num_buckets=int(num_buckets))

    @cached_property
    def composition(self):
        from ..composition.randomized_response import compose_randomized_response
        from ..composition.sgm_certified import CertifiedComposition
        from ..tradeoff.compose import CompositionReport

        t0 = time.perf_counter()
        out, eta = compose_randomized_response(self.noise_parameter, self.num_buckets, self.steps)
        lo, hi = (float(out.loss[0]), float(out.loss[-1])) if out.size else (0.0, 0.0)
        report = CompositionReport(self.steps, 0.0, 0, (lo, hi), 0.0, 0.0, 0.0, eta, eta)
        return CertifiedComposition(out, out, eta, 0.0, self.steps, (report,), time.perf_counter() - t0, (eta, eta))
