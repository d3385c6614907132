"""What an auditor measured, validated at creation: operating-point counts, attack scores, a one-run audit.

Each input is a frozen dataclass whose constructor raises ``ValueError`` naming the field and what is
allowed (NaN, empty arrays, counts outside 0 ≤ k ≤ n, a confidence outside (0, 1)). Convention: an
attack *rejects non-membership* (says "member") when its score is high; a true positive is a member
called a member, a false positive a non-member called a member.

>>> Counts(tp=[40], positives=[100], fp=[1], negatives=[100]).size
1
>>> Counts(tp=[101], positives=[100], fp=[1], negatives=[100])
Traceback (most recent call last):
...
ValueError: counts: tp must satisfy 0 <= tp <= positives (the number of members), got tp=101 with positives=100
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np


def check_confidence(confidence: Any) -> float:
    """A confidence level in the open interval (0, 1)."""
    if isinstance(confidence, (bool, np.bool_)) or not isinstance(confidence, (int, float, np.floating, np.integer)):
        raise ValueError(f"confidence must be a number in (0, 1), got {confidence!r}")
    c = float(confidence)
    if not (0.0 < c < 1.0):
        raise ValueError(f"confidence must be in (0, 1), got {c!r}")
    return c


def check_delta(delta: Any) -> float:
    """δ of the (ε, δ) statements, in [0, 1)."""
    if isinstance(delta, (bool, np.bool_)) or not isinstance(delta, (int, float, np.floating, np.integer)):
        raise ValueError(f"delta must be a number in [0, 1), got {delta!r}")
    d = float(delta)
    if not (0.0 <= d < 1.0):
        raise ValueError(f"delta must be in [0, 1), got {d!r}")
    return d


def _integers(name: str, values: Any) -> np.ndarray:
    arr = np.atleast_1d(np.asarray(values))
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"counts: {name} must be a non-empty list of integers, got {values!r}")
    if arr.dtype == bool or not (np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)):
        raise ValueError(f"counts: {name} must contain integers, got {values!r}")
    f = arr.astype(float)
    if not np.all(np.isfinite(f)) or not np.all(f == np.round(f)):
        raise ValueError(f"counts: {name} must contain whole numbers, got {values!r}")
    return f.astype(np.int64)


@dataclass(frozen=True, eq=False)
class Counts:
    """Operating points of attacks: tp true positives among ``positives`` members, fp false positives
    among ``negatives`` non-members (one entry per operating point)."""

    tp: Any
    positives: Any
    fp: Any
    negatives: Any

    def __post_init__(self) -> None:
        arrays = {name: _integers(name, getattr(self, name)) for name in ("tp", "positives", "fp", "negatives")}
        sizes = {a.size for a in arrays.values()}
        if len(sizes) != 1:
            raise ValueError("counts: tp, positives, fp and negatives must have one entry per operating point, "
                             f"got lengths {[a.size for a in arrays.values()]}")
        for name, a in arrays.items():
            object.__setattr__(self, name, a)
        for total in ("positives", "negatives"):
            bad = np.flatnonzero(arrays[total] < 1)
            if bad.size:
                raise ValueError(f"counts: {total} must be >= 1, got {int(arrays[total][bad[0]])}")
        for k, n, who in (("tp", "positives", "members"), ("fp", "negatives", "non-members")):
            bad = np.flatnonzero((arrays[k] < 0) | (arrays[k] > arrays[n]))
            if bad.size:
                i = int(bad[0])
                raise ValueError(f"counts: {k} must satisfy 0 <= {k} <= {n} (the number of {who}), "
                                 f"got {k}={int(arrays[k][i])} with {n}={int(arrays[n][i])}")

    @property
    def size(self) -> int:
        return int(self.tp.size)


def _scores(name: str, values: Any) -> np.ndarray:
    try:
        arr = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"scores: {name} must be a 1-d array of real numbers") from None
    if arr.ndim != 1:
        raise ValueError(f"scores: {name} must be a 1-d array of real numbers, got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"scores: {name} must not be empty")
    bad = np.flatnonzero(~np.isfinite(arr))
    if bad.size:
        raise ValueError(f"scores: {name} must be finite numbers, got {arr[bad[0]]} at index {int(bad[0])}")
    arr = np.array(arr, dtype=float)
    arr.setflags(write=False)
    return arr


@dataclass(frozen=True, eq=False)
class Scores:
    """Attack scores of members (canaries in) and non-members (canaries out); higher = "member"."""

    members: Any
    nonmembers: Any

    def __post_init__(self) -> None:
        object.__setattr__(self, "members", _scores("members", self.members))
        object.__setattr__(self, "nonmembers", _scores("nonmembers", self.nonmembers))


@dataclass(frozen=True)
class OneRun:
    """A one-run audit (Steinke, Nasr & Jagielski, "Privacy auditing with one (1) training run",
    NeurIPS 2023): m canaries, each included with probability ½; the auditor made k guesses, r correct."""

    m: int
    k: int
    r: int

    def __post_init__(self) -> None:
        vals = {}
        for name in ("m", "k", "r"):
            v = getattr(self, name)
            if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)) \
                    or not math.isfinite(float(v)) or float(v) != round(float(v)):
                raise ValueError(f"one-run: {name} must be a whole number, got {v!r}")
            vals[name] = int(v)
            object.__setattr__(self, name, int(v))
        if vals["m"] < 1:
            raise ValueError(f"one-run: m (canaries) must be >= 1, got {vals['m']}")
        if not 0 <= vals["k"] <= vals["m"]:
            raise ValueError(f"one-run: k (guesses) must satisfy 0 <= k <= m = {vals['m']}, got {vals['k']}")
        if not 0 <= vals["r"] <= vals["k"]:
            raise ValueError(f"one-run: r (correct guesses) must satisfy 0 <= r <= k = {vals['k']}, got {vals['r']}")
