"""Spec entry ``compose(SPEC, steps=N)``: a one-step mechanism composed N times, certified.

    compose(laplace(b=1), steps=100)          Laplace composed 100 times (certified grid composition)
    compose(approxdp(eps=1, delta=1e-6), steps=1e3)

SPEC is any mechanism :class:`dpcompare.mechanisms.composed.Composed` can compose (Laplace, the
Gaussian, and every mechanism with an exact discrete pair); ``steps`` is an integer ≥ 1 (1.4e6 is
accepted). Errors name the parameter and the allowed range (ValueError, one line). The spec a
composed mechanism prints parses back to it.

>>> from dpcompare.io.spec import parse
>>> parse("compose(laplace(b=1), steps=10)").spec
'compose(laplace(b=1), steps=10)'
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .spec import MECHANISMS

if TYPE_CHECKING:
    from ..mechanisms import Mechanism

_USAGE = "compose(SPEC, steps=N)"


@MECHANISMS.register_raw(
    "compose",
    usage=_USAGE,
    summary="SPEC composed N times with a certified bracket (laplace, gaussian, exact discrete pairs)",
)
def _compose(text: str) -> "Mechanism":
    from ..mechanisms.composed import Composed
    from .spec_mixtures import keyed_arguments, split_arguments  # here: spec_mixtures imports spec, which imports us

    bare, keyed = keyed_arguments(split_arguments(text), "compose", ("steps",), _USAGE)
    steps_text = keyed.get("steps")
    if len(bare) != 1:
        raise ValueError(f"compose needs exactly one mechanism spec, got {len(bare)}; usage: {_USAGE}")
    if steps_text is None:
        raise ValueError(f"compose is missing parameter steps (an integer >= 1); usage: {_USAGE}")
    try:
        steps_value = float(steps_text.replace("_", ""))
    except ValueError:
        raise ValueError(f"steps must be an integer >= 1 (1.4e6 is accepted), got {steps_text!r}") from None
    return Composed(MECHANISMS.parse(bare[0]), steps_value)  # an integer >= 1: checked by Composed
