"""dpcompare's extension events: DpEvent-shaped JSON objects for the batching schemes dp-accounting has no
class for (no dp_accounting import; the mechanisms are built in mechanisms/events.py).

dp-accounting's ``DpEvent`` vocabulary has no random-allocation (balls-in-bins) event and no event for
shuffled batches. A DpEvent file that describes such a run therefore uses one of the two classes below,
with ``"module_name": "dpcompare.events"`` and a ``dpcompare_extension`` field saying, in the file itself,
that it is not a dp-accounting event. ``dp_accounting_upper_bound`` holds the closest *standard* event that
is a valid upper bound on the run's privacy loss (for a dp-accounting user; it is looser than the
certified answer). Both are top-level objects only (they cannot be nested in a composition).

``RandomAllocationDpEvent`` — E epochs of balls-in-bins batching: k steps per epoch, every example in one
uniformly random step of each epoch, Gaussian noise σ (noise multiplier) on the clipped sum; add/remove
adjacency. Fields ``noise_multiplier`` σ, ``num_steps_per_epoch`` k, ``num_epochs`` E; optionally
``dataset_size`` n and ``batch_size`` b (then k must be ⌈n/b⌉). Its certified two-sided bracket is
:class:`~dpcompare.mechanisms.allocation.BallsInBinsGaussian`. Standard upper bound:
``SelfComposed(Gaussian(σ), E)`` — the Gaussian G_{√E/σ}, the run with each example's step revealed.

``ShuffledBatchesDpEvent`` — E epochs of a random permutation cut into batches of b (replace-one adjacency).
Fields ``noise_multiplier``, ``dataset_size``, ``batch_size``, ``num_epochs``; optionally
``num_steps_per_epoch`` (= ⌈n/b⌉). The ``bracket`` field states both sides' meaning: lower side a realised
worst-case dataset (certified lower bound), upper side the Gaussian μ = 2√E/σ (Dong, Roth & Su, "Gaussian
differential privacy", 2022, Cor 3.3); the width between them is an open research question
(:class:`~dpcompare.mechanisms.allocation.ShuffledGaussian`). Standard upper bound:
``SelfComposed(Gaussian(σ/2), E)`` (the replace-one sensitivity 2C folded into the noise multiplier, as
dpcompare's fixed-batch events do): G_{2√E/σ} under dp-accounting's default ADD_OR_REMOVE_ONE relation
and its RDP accountant; its REPLACE_ONE PLD accountant doubles the sensitivity again (valid, looser).

>>> ev = extension_event_dict("balls_in_bins", 1.1, dataset_size=60000, batch_size=256, epochs=10)
>>> ev["class_name"], ev["num_steps_per_epoch"], ev["dp_accounting_upper_bound"]["count"]
('RandomAllocationDpEvent', 235, 10)
>>> check_extension_dict(ev) == ev
True
"""

from __future__ import annotations

from typing import Any, Mapping

__all__ = ["EXTENSION_MODULE", "EXTENSIONS", "check_extension_dict", "extension_event_dict", "extension_summary",
           "is_extension"]

#: the ``module_name`` of dpcompare's extension events
EXTENSION_MODULE = "dpcompare.events"
RANDOM_ALLOCATION = "RandomAllocationDpEvent"
SHUFFLED_BATCHES = "ShuffledBatchesDpEvent"
#: class name → (required fields, optional fields)
EXTENSIONS: Mapping[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    RANDOM_ALLOCATION: (("noise_multiplier", "num_steps_per_epoch", "num_epochs"),
                        ("dataset_size", "batch_size")),
    SHUFFLED_BATCHES: (("noise_multiplier", "dataset_size", "batch_size", "num_epochs"),
                       ("num_steps_per_epoch",)),
}
_DESCRIPTIVE = ("module_name", "class_name", "dpcompare_extension", "neighboring_relation", "bracket",
                "dp_accounting_upper_bound")
_RELATION = {RANDOM_ALLOCATION: "add_remove", SHUFFLED_BATCHES: "replace_one"}

_NOTE = {
    RANDOM_ALLOCATION: (
        "dpcompare extension, not a dp-accounting DpEvent: balls-in-bins (random allocation) batching, read by "
        "dpcompare as a certified two-sided bracket. dp-accounting has no such class; its closest valid "
        "standard upper bound is the event in dp_accounting_upper_bound (the Gaussian with each example's step "
        "revealed)."),
    SHUFFLED_BATCHES: (
        "dpcompare extension, not a dp-accounting DpEvent: shuffled batches, read by dpcompare as a certified "
        "bracket whose width is an open research question (see bracket). dp-accounting has no such class; its "
        "closest valid standard upper bound is the event in dp_accounting_upper_bound (the bracket's upper "
        "side; evaluate it with dp-accounting's default neighboring relation ADD_OR_REMOVE_ONE: the replace-one "
        "sensitivity 2 is already folded into its noise multiplier, and dp-accounting's REPLACE_ONE PLD accountant "
        "would double it again, valid but looser). A Poisson-sampled event is NOT a valid bound for shuffled "
        "batches."),
}
_BRACKET = {
    "lower": "a realised worst-case dataset: a certified lower bound on the run's privacy loss",
    "upper": "the Gaussian mechanism with mu = 2*sqrt(num_epochs)/noise_multiplier: a certified upper bound",
    "width": "an open research question (no tight certified accountant for shuffled batches is known)",
}


def is_extension(node: Any) -> bool:
    """Whether ``node`` is (claims to be) one of dpcompare's extension events."""
    return isinstance(node, Mapping) and node.get("class_name") in EXTENSIONS


def _gaussian(sigma: float) -> dict[str, Any]:
    return {"module_name": "dp_accounting.dp_event", "class_name": "GaussianDpEvent", "noise_multiplier": sigma}


def _upper_bound(cls: str, sigma: float, epochs: int) -> dict[str, Any]:
    s = sigma if cls == RANDOM_ALLOCATION else sigma / 2.0
    return {"module_name": "dp_accounting.dp_event", "class_name": "SelfComposedDpEvent", "event": _gaussian(s),
            "count": epochs}


def extension_event_dict(sampling: str, noise_multiplier: float, *, dataset_size: int, batch_size: int,
                         epochs: int) -> dict[str, Any]:
    """The extension event of a run with ``sampling`` = ``balls_in_bins`` or ``shuffle`` (module docstring)."""
    if sampling not in ("balls_in_bins", "shuffle"):
        raise ValueError(f"sampling must be balls_in_bins or shuffle for an extension event, got {sampling!r}")
    cls = RANDOM_ALLOCATION if sampling == "balls_in_bins" else SHUFFLED_BATCHES
    k = -(-int(dataset_size) // int(batch_size))
    out: dict[str, Any] = {"module_name": EXTENSION_MODULE, "class_name": cls, "dpcompare_extension": _NOTE[cls],
                           "noise_multiplier": float(noise_multiplier), "num_steps_per_epoch": k,
                           "num_epochs": int(epochs), "dataset_size": int(dataset_size),
                           "batch_size": int(batch_size), "neighboring_relation": _RELATION[cls]}
    if cls == SHUFFLED_BATCHES:
        out["bracket"] = dict(_BRACKET)
    out["dp_accounting_upper_bound"] = _upper_bound(cls, float(noise_multiplier), int(epochs))
    return check_extension_dict(out)


def _int(where: str, v: Any) -> int:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not float(v).is_integer() or v < 1:
        raise ValueError(f"{where} must be an integer >= 1, got {v!r}")
    return int(v)


def check_extension_dict(node: Mapping[str, Any], where: str = "event") -> dict[str, Any]:
    """Validate an extension event; returns the normalised form (every field written, descriptive fields
    regenerated). ``ValueError`` naming the field otherwise.

    >>> check_extension_dict({"class_name": "RandomAllocationDpEvent", "noise_multiplier": 1.0,
    ...                       "num_steps_per_epoch": 10, "num_epochs": 0})
    Traceback (most recent call last):
    ...
    ValueError: event.num_epochs must be an integer >= 1, got 0
    """
    cls = node["class_name"]
    required, optional = EXTENSIONS[cls]
    module = node.get("module_name", EXTENSION_MODULE)
    if module != EXTENSION_MODULE:
        raise ValueError(f"{where}.module_name must be {EXTENSION_MODULE!r} for {cls} (a dpcompare extension, not a "
                         f"dp-accounting class), got {module!r}")
    extra = sorted(set(node) - set(required) - set(optional) - set(_DESCRIPTIVE))
    if extra:
        raise ValueError(f"{where}: unknown field(s) {', '.join(extra)} for {cls}; allowed: "
                         f"{', '.join(required + optional + _DESCRIPTIVE[2:])}")
    for f in required:
        if f not in node:
            raise ValueError(f"{where}: {cls} needs field {f} (fields: {', '.join(required)})")
    sigma = node["noise_multiplier"]
    if isinstance(sigma, bool) or not isinstance(sigma, (int, float)) or not (0.05 <= sigma <= 1000.0):
        raise ValueError(f"{where}.noise_multiplier must be a number in [0.05, 1000], got {sigma!r}")
    sigma = float(sigma)
    vals = {f: _int(f"{where}.{f}", node[f]) for f in required[1:] + optional if f in node}
    if ("dataset_size" in vals) != ("batch_size" in vals):
        raise ValueError(f"{where}: dataset_size and batch_size go together")
    if "dataset_size" in vals:
        n, b = vals["dataset_size"], vals["batch_size"]
        if b > n:
            raise ValueError(f"{where}.batch_size ({b}) must be <= dataset_size ({n})")
        k = -(-n // b)
        if vals.setdefault("num_steps_per_epoch", k) != k:
            raise ValueError(f"{where}.num_steps_per_epoch must be ceil(dataset_size/batch_size) = {k}, got "
                             f"{vals['num_steps_per_epoch']}")
    if vals["num_steps_per_epoch"] > 10**6:
        raise ValueError(f"{where}.num_steps_per_epoch must be <= 1000000, got {vals['num_steps_per_epoch']}")
    if vals["num_epochs"] > 10**4:
        raise ValueError(f"{where}.num_epochs must be <= 10000, got {vals['num_epochs']}")
    rel = node.get("neighboring_relation", _RELATION[cls])
    if rel != _RELATION[cls]:
        raise ValueError(f"{where}.neighboring_relation must be {_RELATION[cls]!r} for {cls}, got {rel!r}")
    for f in ("dpcompare_extension",):
        if f in node and not isinstance(node[f], str):
            raise ValueError(f"{where}.{f} must be a string, got {type(node[f]).__name__}")
    if "bracket" in node:
        br = node["bracket"]
        if cls != SHUFFLED_BATCHES:
            raise ValueError(f"{where}: unknown field bracket for {cls}")
        if not isinstance(br, Mapping) or set(br) - set(_BRACKET) or not all(isinstance(v, str) for v in br.values()):
            raise ValueError(f"{where}.bracket must be an object with text fields lower, upper, width")
    upper = _upper_bound(cls, sigma, vals["num_epochs"])
    if "dp_accounting_upper_bound" in node:
        from .event_plan import check_event_dict

        given = node["dp_accounting_upper_bound"]
        if is_extension(given) or check_event_dict(given, f"{where}.dp_accounting_upper_bound") != upper:
            s = upper["event"]["noise_multiplier"]
            raise ValueError(f"{where}.dp_accounting_upper_bound must be SelfComposed(Gaussian({s:g}), "
                             f"{vals['num_epochs']}) for this {cls} (the field is derived, not an input)")
    out: dict[str, Any] = {"module_name": EXTENSION_MODULE, "class_name": cls, "dpcompare_extension": _NOTE[cls],
                           "noise_multiplier": sigma}
    for f in ("num_steps_per_epoch", "num_epochs", "dataset_size", "batch_size"):
        if f in vals:
            out[f] = vals[f]
    out["neighboring_relation"] = _RELATION[cls]
    if cls == SHUFFLED_BATCHES:
        out["bracket"] = dict(_BRACKET)
    out["dp_accounting_upper_bound"] = upper
    return out


def extension_summary(node: Mapping[str, Any]) -> str:
    """One line, e.g. ``RandomAllocation(σ=1.1, k=235, E=10)``."""
    name = node["class_name"].removesuffix("DpEvent")
    return (f"{name}(noise_multiplier={node['noise_multiplier']:g}, num_steps_per_epoch={node['num_steps_per_epoch']}, "
            f"num_epochs={node['num_epochs']})")
