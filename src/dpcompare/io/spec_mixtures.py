"""Spec entries for the mixture mechanisms of [MIX]: ``mixture``, ``subsample``, ``random_init``.

Their arguments are nested specs and words, so they are registered with
:meth:`Registry.register_raw` and parse the text between their parentheses here::

    mixture(0.3*rr(eps=1), 0.7*gaussian(mu=2))        weights·specs; the weights sum to 1
    subsample(gaussian(mu=1), w=0.01)                  any mechanism, sampling probability w ∈ [0, 1]
    random_init(loss=clipped_least_squares, a=0.5, clip=1, sigma=1)          (steps=1: Thm 5.1)
    random_init(loss=logistic, bound=1, sigma=2, steps=10, heuristic=1)      (T > 1: heuristic)

- ``mixture``: a mechanism that runs component i with probability wᵢ (chosen independently of the
  data); reported trade-off: [MIX] Lemma 3.1 (joint concavity, the index revealed).
- ``subsample``: the component run on a Poisson/with-probability-w sub-sample; reported trade-off:
  [MIX] Prop E.1, C((1−w)·Id + w·f), for any trade-off function f.
- ``random_init``: one step of DP-GD from θ₀ ~ N(0, 1) ([MIX] Thm 5.1, Examples D.1–D.3).
  ``steps = T > 1`` composes the one-step bound T times, which is **heuristic, not a guarantee**
  (see :class:`dpcompare.mixtures.RandomInit`), so it must be asked for with ``heuristic=1`` and
  the flag stays in the spec that every command prints.

Every error names the parameter and its allowed range (ValueError, one line).
"""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING, Any

from .._validation import check_in_interval, check_positive
from .spec import MECHANISMS

if TYPE_CHECKING:
    from ..mechanisms import Mechanism

__all__ = ["keyed_arguments", "split_arguments"]

_KEY = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*=(?!=)\s*(.*)\Z", re.DOTALL)
_TERM = re.compile(r"\s*([^*()]+?)\s*\*\s*(.+)\Z", re.DOTALL)


def split_arguments(text: str) -> list[str]:
    """Split at the commas outside parentheses; empty text gives [].

    >>> split_arguments("0.5*rr(eps=1), 0.5*gaussian(mu=1)")
    ['0.5*rr(eps=1)', '0.5*gaussian(mu=1)']
    """
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth < 0:
                raise ValueError(f"unbalanced ')' at position {i + 1}")
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    if depth != 0:
        raise ValueError("missing ')'")
    parts.append(text[start:])
    parts = [p.strip() for p in parts]
    if parts == [""]:
        return []
    if any(not p for p in parts):
        raise ValueError("empty argument (two commas in a row?)")
    return parts


def keyed_arguments(parts: list[str], name: str, allowed: tuple[str, ...],
                    usage: str | None = None) -> tuple[list[str], dict[str, str]]:
    """(bare arguments, key → value text) of the entry ``name``; an unknown key (the message ends with
    ``usage`` when given) and a repeated one are errors. The values are checked by the mechanism built.

    >>> keyed_arguments(["laplace(b=1)", "steps = 10"], "compose", ("steps",))
    (['laplace(b=1)'], {'steps': '10'})
    """
    bare: list[str] = []
    keyed: dict[str, str] = {}
    for part in parts:
        m = _KEY.match(part)
        if m and "(" not in m.group(1):
            key = m.group(1).lower()
            if key not in allowed:
                raise ValueError(f"unknown parameter {key!r} for {name}; allowed: {', '.join(allowed)}"
                                 + (f"; usage: {usage}" if usage else ""))
            if key in keyed:
                raise ValueError(f"parameter {key!r} given twice for {name}")
            keyed[key] = m.group(2).strip()
        else:
            bare.append(part)
    return bare, keyed


def _number(label: str, text: str) -> float:
    try:
        return float(text.replace("_", ""))
    except ValueError:
        raise ValueError(f"bad value for {label}: expected a number, got {text!r}") from None


# ---------------------------------------------------------------------------------------------- mixture
@MECHANISMS.register_raw(
    "mixture",
    usage="mixture(w1*SPEC1, w2*SPEC2, ...)",
    summary="component i with probability wi (weights sum to 1): [MIX] Lemma 3.1 (joint concavity)",
)
def _mixture(text: str) -> "Mechanism":
    from ..mixtures import JointConcavity

    parts = split_arguments(text)
    if not parts:
        raise ValueError("mixture needs at least one term weight*SPEC; usage: mixture(w1*SPEC1, w2*SPEC2, ...)")
    weights, comps = [], []
    for i, part in enumerate(parts):
        m = _TERM.match(part)
        if not m:
            raise ValueError(f"mixture term {i + 1} must be weight*SPEC (e.g. 0.5*rr(eps=1)), got {part!r}")
        w = check_in_interval(f"weight {i + 1}", _number(f"weight {i + 1}", m.group(1)), 0.0, 1.0)
        weights.append(w)
        comps.append(MECHANISMS.parse(m.group(2)))
    total = math.fsum(weights)
    if abs(total - 1.0) > 1e-12:
        raise ValueError(f"mixture weights must sum to 1, got {total:.12g}")
    return JointConcavity(tuple(weights), tuple(comps))


# ---------------------------------------------------------------------------------------------- subsample
@MECHANISMS.register_raw(
    "subsample",
    usage="subsample(SPEC, w=...)",
    summary="SPEC run on a sub-sample with probability w in [0, 1]: [MIX] Prop E.1, any trade-off function",
)
def _subsample(text: str) -> "Mechanism":
    from ..mixtures import Subsampled

    bare, keyed = keyed_arguments(split_arguments(text), "subsample", ("w",))
    if len(bare) != 1:
        raise ValueError(f"subsample needs exactly one mechanism spec, got {len(bare)}; usage: subsample(SPEC, w=...)")
    if "w" not in keyed:
        raise ValueError("subsample is missing parameter w (sampling probability in [0, 1]); usage: subsample(SPEC, w=...)")
    return Subsampled(MECHANISMS.parse(bare[0]), _number("w", keyed["w"]))  # w ∈ [0, 1] checked there


# ---------------------------------------------------------------------------------------------- random_init
_RI_KEYS = ("loss", "a", "clip", "bound", "sigma", "steps", "heuristic")


@MECHANISMS.register_raw(
    "random_init",
    usage="random_init(loss=least_squares|clipped_least_squares|logistic, a=..., clip=..., bound=..., sigma=..., steps=1 [, heuristic=1])",
    summary="DP-GD step from a random N(0,1) initialisation: [MIX] Thm 5.1 (steps > 1: heuristic, not a guarantee)",
)
def _random_init(text: str) -> "Mechanism":
    from ..mixtures import Loss, RandomInit, Sensitivity

    bare, keyed = keyed_arguments(split_arguments(text), "random_init", _RI_KEYS)
    if bare:
        raise ValueError(f"random_init takes key=value arguments only, got {bare[0]!r}")
    if "loss" not in keyed:
        raise ValueError(f"random_init is missing parameter loss (one of {', '.join(l.value for l in Loss)})")
    try:
        loss = Loss(keyed["loss"].lower())
    except ValueError:
        raise ValueError(f"loss must be one of {', '.join(l.value for l in Loss)}, got {keyed['loss']!r}") from None
    kw: dict[str, Any] = {"loss": loss}
    if "a" in keyed:
        kw["a"] = _number("a", keyed["a"])  # checked by Sensitivity
    if "sigma" in keyed:
        kw["sigma"] = check_positive("sigma (noise standard deviation)", _number("sigma", keyed["sigma"]))
    if loss is Loss.CLIPPED_LEAST_SQUARES:
        if "clip" not in keyed:
            raise ValueError("random_init with loss=clipped_least_squares is missing parameter clip (> 0)")
        kw["clip"] = check_positive("clip", _number("clip", keyed["clip"]))
    elif "clip" in keyed:
        raise ValueError(f"clip applies only to loss=clipped_least_squares, not {loss.value}")
    if loss is Loss.LOGISTIC:
        if "bound" in keyed:
            kw["bound"] = check_positive("bound (|x·y| ≤ bound)", _number("bound", keyed["bound"]))
    elif "bound" in keyed:
        raise ValueError(f"bound applies only to loss=logistic, not {loss.value}")
    steps = _number("steps", keyed["steps"]) if "steps" in keyed else 1  # checked by RandomInit
    heuristic = False
    if "heuristic" in keyed:
        h = _number("heuristic", keyed["heuristic"])
        if h not in (0.0, 1.0):
            raise ValueError(f"heuristic must be 0 or 1, got {keyed['heuristic']!r}")
        heuristic = h == 1.0
    return RandomInit(Sensitivity(**kw), steps=steps, heuristic=heuristic)
