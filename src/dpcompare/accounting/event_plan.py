"""Which route a dp-accounting ``DpEvent`` takes to a certified privacy-loss pair (no dp_accounting import).

A DpEvent is handled here in its *plain form*: the structure of dp-accounting's ``to_named_tuple`` as
JSON-ready dicts (``{"module_name": "dp_accounting.dp_event", "class_name": "GaussianDpEvent",
"noise_multiplier": 1.0}``, nested events as nested dicts, lists as lists); accounting/dp_accounting.py
converts both ways. :func:`plan` flattens ``SelfComposed``/``Composed``/``NoOp`` into leaves with counts
and picks, for the whole event:

==========================  ===============================================================================
route                       when (after dropping leaves with no privacy loss)
==========================  ===============================================================================
NOOP                        nothing left (perfectly private, exact)
NONPRIVATE                  a NonPrivate leaf or a zero noise parameter (blatantly non-private, exact)
GAUSSIAN                    only Gaussians: μ = √(Σ countᵢ/σᵢ²) exactly (Dong, Roth & Su, "Gaussian
                            differential privacy", 2022, Cor 3.3: G_μ₁ ⊗ G_μ₂ = G_√(μ₁²+μ₂²))
LAPLACE, DISCRETE_LAPLACE   one such leaf with count 1: the exact closed form / exact discrete pair
RANDOMIZED_RESPONSE         one k-ary randomized response leaf, N times (N ≤ 2000, or 10⁶ for k = 2): the exact
                            N-fold pair (multinomial)
RANDOMIZED_RESPONSE_COMP.   randomized response more times than that: its lattice pair (losses −L, 0, L) composed by the
                            certified FFT on its own grid (composition/randomized_response.py)
MIXTURE_OF_GAUSSIANS,       one such leaf, N times: the certified composition of its monotone-loss Gaussian
TRUNCATED_SUBSAMPLED_GAUSS. mixture pair (composition/gaussian_mixture.py)
SUBSAMPLED_GAUSSIAN         one Poisson-sampled Gaussian leaf, N times: the certified composition
FIXED_BATCH_GAUSSIAN        one SampledWithoutReplacement(Gaussian) leaf, N times (replace-one): the certified
                            bracket of composition/wor.py (symmetrise each step, then compose)
WITH_REPLACEMENT_GAUSSIAN   one SampledWithReplacement(Gaussian) leaf, N times (replace-one): the certified
                            upper bound of composition/wor.py (multiplicity K revealed, then as above)
PLD                         every leaf has a dp-accounting PLD (pessimistic: connect-the-dots, a valid
                            dominating pair, Doroshenko et al. 2022; optimistic where dp-accounting has one)
RDP_BOUND                   otherwise, if dp-accounting's RDP accountant supports every leaf: a certified
                            *upper bound* (RDP → profile by Canonne, Kamath & Steinke 2020 Prop 12 → pair)
==========================  ===============================================================================

Identical leaves are merged first (their counts add), so ``Composed([E, E])`` is ``SelfComposed(E, 2)``.
An infinite noise parameter (Gaussian, Laplace, mixture of Gaussians, sampled Gaussians) is perfectly
private: such a leaf is dropped.

Each leaf has a neighbouring relation (dp-accounting's ``NeighboringRelation``): randomized response and
sampling with or without replacement are defined for replace-one, tree aggregation for replace-special, zCDP for
any, everything else for add-or-remove-one; a composition mixing relations is refused, naming the leaves.
Events no accountant can serve (``UnsupportedDpEvent``, sampled events of other mechanisms,
``SampledWithReplacementDpEvent`` composed with other events) raise ``ValueError`` naming the type and why.
"""

from __future__ import annotations

import enum
import json
import math
from dataclasses import dataclass
from typing import Any, Mapping

__all__ = ["Adjacency", "EventPlan", "Route", "check_event_dict", "event_summary", "load_event_text", "plan"]

MODULE = "dp_accounting.dp_event"


class Adjacency(enum.Enum):
    """Neighbouring relation of a DpEvent (dp-accounting's ``NeighboringRelation``)."""

    ADD_REMOVE = "add_remove"
    REPLACE_ONE = "replace_one"
    REPLACE_SPECIAL = "replace_special"


class Route(enum.Enum):
    NOOP = "noop"
    NONPRIVATE = "nonprivate"
    GAUSSIAN = "gaussian"
    LAPLACE = "laplace"
    DISCRETE_LAPLACE = "discrete_laplace"
    RANDOMIZED_RESPONSE = "randomized_response"
    RANDOMIZED_RESPONSE_COMPOSED = "randomized_response_composed"
    MIXTURE_OF_GAUSSIANS = "mixture_of_gaussians"
    TRUNCATED_SUBSAMPLED_GAUSSIAN = "truncated_subsampled_gaussian"
    SUBSAMPLED_GAUSSIAN = "subsampled_gaussian"
    FIXED_BATCH_GAUSSIAN = "fixed_batch_gaussian"
    WITH_REPLACEMENT_GAUSSIAN = "with_replacement_gaussian"
    PLD = "pld"
    RDP_BOUND = "rdp_bound"
    RANDOM_ALLOCATION = "random_allocation"  # dpcompare extension event (accounting/extension_events.py)
    SHUFFLED_BATCHES = "shuffled_batches"  # dpcompare extension event


#: every DpEvent class of dp-accounting 0.6 and its fields (in ``to_named_tuple`` order)
FIELDS: Mapping[str, tuple[str, ...]] = {
    "NoOpDpEvent": (),
    "NonPrivateDpEvent": (),
    "UnsupportedDpEvent": (),
    "RandomizedResponseDpEvent": ("noise_parameter", "num_buckets"),
    "GaussianDpEvent": ("noise_multiplier",),
    "LaplaceDpEvent": ("noise_multiplier",),
    "DiscreteLaplaceDpEvent": ("noise_parameter", "sensitivity"),
    "SelfComposedDpEvent": ("event", "count"),
    "ComposedDpEvent": ("events",),
    "PoissonSampledDpEvent": ("sampling_probability", "event"),
    "SampledWithReplacementDpEvent": ("source_dataset_size", "sample_size", "event"),
    "SampledWithoutReplacementDpEvent": ("source_dataset_size", "sample_size", "event"),
    "SingleEpochTreeAggregationDpEvent": ("noise_multiplier", "step_counts"),
    "RepeatAndSelectDpEvent": ("event", "mean", "shape"),
    "MixtureOfGaussiansDpEvent": ("standard_deviation", "sensitivities", "sampling_probs"),
    "ZCDpEvent": ("rho", "xi"),
    "TruncatedSubsampledGaussianDpEvent": (
        "dataset_size", "sampling_probability", "truncated_batch_size", "noise_multiplier"),
}
_OPTIONAL = {("ZCDpEvent", "xi")}
_EVENT_FIELDS = {"event"}
_INT_FIELDS = {"num_buckets", "sensitivity", "count", "source_dataset_size", "sample_size", "dataset_size",
               "truncated_batch_size"}


# ---------------------------------------------------------------------------------------------- validation
def _real(where: str, v: Any, lo: float = 0.0, hi: float = math.inf, *, lo_open: bool = False) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise ValueError(f"{where} must be a number, got {v!r}")
    f = float(v)
    if not (lo < f if lo_open else lo <= f) or not f <= hi or math.isnan(f):
        left = "(" if lo_open else "["
        raise ValueError(f"{where} must be in {left}{lo:g}, {hi:g}], got {v!r}")
    return f


def _int(where: str, v: Any, lo: int = 0) -> int:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not float(v).is_integer() or v < lo:
        raise ValueError(f"{where} must be an integer >= {lo}, got {v!r}")
    return int(v)


def check_event_dict(node: Any, where: str = "event") -> dict[str, Any]:
    """Validate a plain DpEvent (types, field names, ranges); returns a normalised copy.

    Errors name the field path, e.g. ``event.event.noise_multiplier must be in [0, inf], got -1``.
    """
    if not isinstance(node, Mapping):
        raise ValueError(f"{where} must be a JSON object describing a DpEvent, got {type(node).__name__}")
    cls = node.get("class_name")
    from .extension_events import check_extension_dict, is_extension

    if is_extension(node):
        if where != "event":
            raise ValueError(f"{where}: {cls} is a dpcompare extension event and must be the top-level object of "
                             "the file (it cannot be composed with other events)")
        return check_extension_dict(node, where)
    if cls not in FIELDS:
        known = ", ".join(sorted(FIELDS))
        raise ValueError(f"{where}.class_name must be one of {known} (or, as the whole file, a dpcompare extension "
                         f"event: RandomAllocationDpEvent, ShuffledBatchesDpEvent); got {cls!r}")
    module = node.get("module_name", MODULE)
    if module not in (MODULE, "dp_accounting"):
        raise ValueError(f"{where}.module_name must be {MODULE!r}, got {module!r}")
    fields = FIELDS[cls]
    extra = sorted(set(node) - set(fields) - {"class_name", "module_name"})
    if extra:
        raise ValueError(f"{where}: unknown field(s) {', '.join(extra)} for {cls}; allowed: {', '.join(fields) or 'none'}")
    out: dict[str, Any] = {"module_name": MODULE, "class_name": cls}
    for f in fields:
        w = f"{where}.{f}"
        if f not in node:
            if (cls, f) in _OPTIONAL:
                out[f] = 0.0
                continue
            raise ValueError(f"{where}: {cls} needs field {f} (fields: {', '.join(fields)})")
        v = node[f]
        if f in _EVENT_FIELDS:
            out[f] = check_event_dict(v, w)
        elif f == "events":
            if not isinstance(v, list):
                raise ValueError(f"{w} must be a list of DpEvents, got {type(v).__name__}")
            out[f] = [check_event_dict(e, f"{w}[{i}]") for i, e in enumerate(v)]
        elif f in _INT_FIELDS:
            out[f] = _int(w, v)
        elif f in ("sensitivities", "sampling_probs"):
            if not isinstance(v, list) or not v:
                raise ValueError(f"{w} must be a non-empty list of numbers")
            out[f] = [_real(f"{w}[{i}]", x, -math.inf if f == "sensitivities" else 0.0,
                            math.inf if f == "sensitivities" else 1.0) for i, x in enumerate(v)]
        elif f == "step_counts":
            out[f] = [_int(f"{w}[{i}]", x) for i, x in enumerate(v)] if isinstance(v, list) else _int(w, v)
        elif f in ("sampling_probability", "noise_parameter"):
            out[f] = _real(w, v, 0.0, 1.0) if f == "sampling_probability" or cls == "RandomizedResponseDpEvent" else _real(w, v)
        else:
            out[f] = _real(w, v)
    _check_sizes(out, where)
    return out


def _check_sizes(node: dict[str, Any], where: str) -> None:
    cls = node["class_name"]
    if cls in ("SampledWithReplacementDpEvent", "SampledWithoutReplacementDpEvent"):
        if node["sample_size"] > 0 and node["source_dataset_size"] < 1:
            raise ValueError(f"{where}.source_dataset_size must be >= 1 when sample_size > 0, got "
                             f"{node['source_dataset_size']}")
        if node["sample_size"] > node["source_dataset_size"] and cls == "SampledWithoutReplacementDpEvent":
            raise ValueError(f"{where}.sample_size ({node['sample_size']}) must be <= source_dataset_size "
                             f"({node['source_dataset_size']}) for sampling without replacement")
    if cls == "MixtureOfGaussiansDpEvent":
        if len(node["sensitivities"]) != len(node["sampling_probs"]):
            raise ValueError(f"{where}: sensitivities and sampling_probs must have the same length")
        if abs(sum(node["sampling_probs"]) - 1.0) > 1e-9:
            raise ValueError(f"{where}.sampling_probs must sum to 1, got {sum(node['sampling_probs']):.12g}")
    if cls == "TruncatedSubsampledGaussianDpEvent" and node["truncated_batch_size"] > node["dataset_size"]:
        raise ValueError(f"{where}.truncated_batch_size must be <= dataset_size")


def load_event_text(text: str, source: str = "DpEvent file") -> dict[str, Any]:
    """Parse and validate the JSON text of a DpEvent file (one JSON object, the plain form above)."""
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{source}: malformed JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from None
    return check_event_dict(obj)


# ---------------------------------------------------------------------------------------------- planning
@dataclass(frozen=True, eq=False)
class EventPlan:
    """How a DpEvent is evaluated: the route, its neighbouring relation, and the parameters the route needs
    (``leaves`` are the flattened (plain leaf, count) pairs; ``params`` the closed-form parameters)."""

    route: Route
    adjacency: Adjacency | None
    leaves: tuple[tuple[dict[str, Any], int], ...]
    params: tuple[tuple[str, float], ...] = ()

    def param(self, name: str) -> float:
        return dict(self.params)[name]


def _flatten(node: dict[str, Any], count: int, out: list[tuple[dict[str, Any], int]]) -> None:
    cls = node["class_name"]
    if count == 0 or cls == "NoOpDpEvent":
        return
    if cls == "SelfComposedDpEvent":
        _flatten(node["event"], count * node["count"], out)
    elif cls == "ComposedDpEvent":
        for e in node["events"]:
            _flatten(e, count, out)
    else:
        out.append((node, count))


#: largest (sensitivity spread)/(noise standard deviation) of a mixture leaf (composition/gaussian_mixture.py
#: MAX_SPREAD: the one-step privacy loss then reaches ≈ 4.5e6 nats)
MAX_NOISE_SPREAD = 3000.0


def _sampled_kind(leaf: dict[str, Any], empty: bool, inners: tuple[str, ...], why: str, prefix: str = "") -> str:
    """The kind of a sampled leaf whose inner event is one of ``inners`` with a noise multiplier: 'none' when
    no record is sampled or the noise is infinite, 'nonprivate' at zero noise, else ``prefix`` + the inner
    event's class (no prefix: the leaf's own class)."""
    cls, event = leaf["class_name"], leaf.get("event")
    inner = event["class_name"]
    if empty:
        return "none"
    if inner not in inners:
        raise ValueError(f"{cls} of {inner} is not supported ({why})")
    if event["noise_multiplier"] == math.inf:
        return "none"
    return "nonprivate" if event["noise_multiplier"] == 0 else (prefix + inner if prefix else cls)


def _leaf_kind(leaf: dict[str, Any]) -> str:
    """'none' (no privacy loss), 'nonprivate', or the leaf's own kind."""
    cls = leaf["class_name"]
    g = leaf.get
    if cls == "NonPrivateDpEvent":
        return "nonprivate"
    if cls == "UnsupportedDpEvent":
        raise ValueError("UnsupportedDpEvent: the event describes an operation with no known DP guarantee; no certified "
                         "answer exists (use NonPrivateDpEvent if it is not private)")
    if cls == "SampledWithReplacementDpEvent":
        return _sampled_kind(leaf, g("sample_size") == 0, ("GaussianDpEvent",),
                             "Gaussian only: a record drawn k times needs the inner mechanism's k-fold group privacy, "
                             "which dpcompare has in closed form only for the Gaussian, a mean shift of k")
    if cls in ("GaussianDpEvent", "LaplaceDpEvent"):
        if g("noise_multiplier") == math.inf:
            return "none"  # infinite noise: the output does not depend on the data
        return "nonprivate" if g("noise_multiplier") == 0 else cls
    if cls == "DiscreteLaplaceDpEvent":
        if g("sensitivity") == 0:
            return "none"
        if g("noise_parameter") == math.inf:  # pmf ∝ e^{−a|x|} with a = ∞: no noise at all
            return "nonprivate"
        return "nonprivate" if g("noise_parameter") == 0 else cls
    if cls == "RandomizedResponseDpEvent":
        if g("num_buckets") <= 1 or g("noise_parameter") == 1:
            return "none"
        return "nonprivate" if g("noise_parameter") == 0 else cls
    if cls == "MixtureOfGaussiansDpEvent":
        if all(s == 0 for s, w in zip(g("sensitivities"), g("sampling_probs")) if w > 0) or g("standard_deviation") == math.inf:
            return "none"
        if g("standard_deviation") == 0:
            return "nonprivate"
        live = [s for s, w in zip(g("sensitivities"), g("sampling_probs")) if w > 0]
        if any(not math.isfinite(s) for s in live):
            return "nonprivate"  # an infinite shift with positive probability is revealed with that probability
        if min(live) < 0 < max(live):
            raise ValueError(f"MixtureOfGaussiansDpEvent.sensitivities must be all >= 0 or all <= 0 (then the privacy "
                             f"loss is monotone and the mixture can be bounded), got {g('sensitivities')}")
        spread = max(abs(s) for s in live) / g("standard_deviation")
        if spread > MAX_NOISE_SPREAD:
            raise ValueError(f"MixtureOfGaussiansDpEvent.standard_deviation must be >= (largest |sensitivity|)/"
                             f"{MAX_NOISE_SPREAD:g} = {max(abs(s) for s in live) / MAX_NOISE_SPREAD:.3g}, got "
                             f"{g('standard_deviation'):g}: the privacy loss of a smaller noise exceeds what a "
                             "privacy-loss distribution holds in double precision (0 is accepted: not private)")
        return cls
    if cls == "PoissonSampledDpEvent":
        return _sampled_kind(leaf, g("sampling_probability") == 0, ("GaussianDpEvent", "LaplaceDpEvent"),
                             "Gaussian or Laplace only, as in dp-accounting's accountants", "Poisson")
    if cls == "TruncatedSubsampledGaussianDpEvent":
        if (g("sampling_probability") == 0 or g("truncated_batch_size") == 0 or g("dataset_size") == 0
                or g("noise_multiplier") == math.inf):
            return "none"
        if g("noise_multiplier") == 0:
            return "nonprivate"
        if 4.0 / g("noise_multiplier") > MAX_NOISE_SPREAD:  # its truncated part shifts by ±2
            raise ValueError(f"TruncatedSubsampledGaussianDpEvent.noise_multiplier must be >= 4/{MAX_NOISE_SPREAD:g} = "
                             f"{4.0 / MAX_NOISE_SPREAD:.3g} (or 0: not private), got {g('noise_multiplier'):g}: the "
                             "privacy loss of a smaller noise exceeds what a privacy-loss distribution holds in double "
                             "precision")
        return cls
    if cls == "SampledWithoutReplacementDpEvent":
        return _sampled_kind(leaf, g("sample_size") == 0, ("GaussianDpEvent",),
                             "Gaussian only, as in dp-accounting's RDP accountant")
    if cls == "ZCDpEvent":
        return "none" if g("rho") == 0 and g("xi") == 0 else cls
    if cls == "SingleEpochTreeAggregationDpEvent":
        return "nonprivate" if g("noise_multiplier") == 0 else cls
    if cls == "RepeatAndSelectDpEvent":
        return cls
    raise ValueError(f"unsupported DpEvent type {cls}")  # pragma: no cover - FIELDS lists every class


_ADJ = {
    "RandomizedResponseDpEvent": Adjacency.REPLACE_ONE,
    "SampledWithoutReplacementDpEvent": Adjacency.REPLACE_ONE,
    "SampledWithReplacementDpEvent": Adjacency.REPLACE_ONE,
    "SingleEpochTreeAggregationDpEvent": Adjacency.REPLACE_SPECIAL,
    "ZCDpEvent": None,  # a bound under whatever relation the rest uses
}
_PLD_KINDS = {"GaussianDpEvent", "LaplaceDpEvent", "DiscreteLaplaceDpEvent", "RandomizedResponseDpEvent",
              "MixtureOfGaussiansDpEvent", "PoissonGaussianDpEvent", "PoissonLaplaceDpEvent",
              "TruncatedSubsampledGaussianDpEvent"}


#: leaf kinds dp-accounting's RDP accountant cannot bound
_NO_RDP = {"MixtureOfGaussiansDpEvent", "DiscreteLaplaceDpEvent", "TruncatedSubsampledGaussianDpEvent"}


def _adjacency(leaf: dict[str, Any]) -> Adjacency | None:
    if leaf["class_name"] == "RepeatAndSelectDpEvent":
        inner: list[tuple[dict[str, Any], int]] = []
        _flatten(leaf["event"], 1, inner)
        adj = {_adjacency(x) for x, _ in inner} - {None}
        return adj.pop() if len(adj) == 1 else (Adjacency.ADD_REMOVE if not adj else None)
    return _ADJ.get(leaf["class_name"], Adjacency.ADD_REMOVE)


#: largest count of a randomized-response leaf composed exactly: [k > 2 buckets (the multinomial sum costs O(N²)),
#: k = 2 (binomial, O(N))]
MAX_RR_COUNT = (2000, 10**6)


def _merge_identical(kinds: list) -> list:
    """Leaves that are the same event are one leaf with the summed count (order of first appearance)."""
    out: dict[str, list] = {}
    for kind, leaf, n in kinds:
        key = json.dumps(leaf, sort_keys=True)
        if key in out:
            out[key][2] += n
        else:
            out[key] = [kind, leaf, n]
    return [tuple(v) for v in out.values()]


def _gaussian_mu(leaves) -> float:
    """μ = √(Σ countᵢ/σᵢ²), scaled so that neither σ² (σ up to 1.8e308) nor 1/σ² overflows or underflows."""
    inv = [(1.0 / leaf["noise_multiplier"], n) for leaf, n in leaves]
    m = max(v for v, _ in inv)
    return m * math.sqrt(math.fsum(n * (v / m) ** 2 for v, n in inv))


def plan(event: dict[str, Any]) -> EventPlan:
    """The route of a plain (validated) DpEvent; ``ValueError`` naming the type when there is none."""
    from .extension_events import RANDOM_ALLOCATION, is_extension

    if is_extension(event):
        route = Route.RANDOM_ALLOCATION if event["class_name"] == RANDOM_ALLOCATION else Route.SHUFFLED_BATCHES
        adj = Adjacency(event["neighboring_relation"])
        params = tuple((f, float(event[f])) for f in ("noise_multiplier", "num_steps_per_epoch", "num_epochs",
                                                       "dataset_size", "batch_size") if f in event)
        return EventPlan(route, adj, ((event, 1),), params)
    flat: list[tuple[dict[str, Any], int]] = []
    _flatten(event, 1, flat)
    kinds = [(_leaf_kind(leaf), leaf, n) for leaf, n in flat]
    if any(k == "nonprivate" for k, _, _ in kinds):
        return EventPlan(Route.NONPRIVATE, None, ())
    kinds = _merge_identical([x for x in kinds if x[0] != "none"])
    if not kinds:
        return EventPlan(Route.NOOP, None, ())
    adjs = {a for _, leaf, _ in kinds if (a := _adjacency(leaf)) is not None}
    if len(adjs) > 1:
        names = ", ".join(sorted({f"{leaf['class_name']} ({_adjacency(leaf).value})" for _, leaf, _ in kinds
                                  if _adjacency(leaf) is not None}))
        raise ValueError(f"event composes mechanisms defined for different neighbouring relations: {names}; "
                         "all parts must use the same relation")
    adj = adjs.pop() if adjs else Adjacency.ADD_REMOVE
    leaves = tuple((leaf, n) for _, leaf, n in kinds)
    names = {k for k, _, _ in kinds}
    if names == {"GaussianDpEvent"}:
        return EventPlan(Route.GAUSSIAN, adj, leaves, (("mu", _gaussian_mu(leaves)),))
    if len(leaves) == 1:
        (leaf, n), kind = leaves[0], kinds[0][0]
        if n == 1 and kind == "LaplaceDpEvent":
            return EventPlan(Route.LAPLACE, adj, leaves, (("b", leaf["noise_multiplier"]),))
        if n == 1 and kind == "DiscreteLaplaceDpEvent":
            return EventPlan(Route.DISCRETE_LAPLACE, adj, leaves,
                             (("a", leaf["noise_parameter"]), ("sensitivity", leaf["sensitivity"])))
        if kind == "RandomizedResponseDpEvent" and n <= MAX_RR_COUNT[leaf["num_buckets"] == 2]:
            return EventPlan(Route.RANDOMIZED_RESPONSE, adj, leaves,
                             (("noise_parameter", leaf["noise_parameter"]), ("num_buckets", leaf["num_buckets"]),
                              ("count", n)))
        if kind == "RandomizedResponseDpEvent":
            return EventPlan(Route.RANDOMIZED_RESPONSE_COMPOSED, adj, leaves,
                             (("noise_parameter", leaf["noise_parameter"]), ("num_buckets", leaf["num_buckets"]),
                              ("count", n)))
        if kind == "MixtureOfGaussiansDpEvent":
            return EventPlan(Route.MIXTURE_OF_GAUSSIANS, adj, leaves, (("steps", n),))
        if kind == "TruncatedSubsampledGaussianDpEvent":
            return EventPlan(Route.TRUNCATED_SUBSAMPLED_GAUSSIAN, adj, leaves, (("steps", n),))
        if kind == "PoissonGaussianDpEvent":
            return EventPlan(Route.SUBSAMPLED_GAUSSIAN, adj, leaves, (
                ("sigma", leaf["event"]["noise_multiplier"]), ("p", leaf["sampling_probability"]), ("steps", n)))
        if kind == "SampledWithoutReplacementDpEvent":
            return EventPlan(Route.FIXED_BATCH_GAUSSIAN, adj, leaves, (
                ("sigma", leaf["event"]["noise_multiplier"]), ("dataset_size", leaf["source_dataset_size"]),
                ("batch_size", leaf["sample_size"]), ("steps", n)))
        if kind == "SampledWithReplacementDpEvent":
            return EventPlan(Route.WITH_REPLACEMENT_GAUSSIAN, adj, leaves, (
                ("sigma", leaf["event"]["noise_multiplier"]), ("dataset_size", leaf["source_dataset_size"]),
                ("batch_size", leaf["sample_size"]), ("steps", n)))
    if "SampledWithReplacementDpEvent" in names:
        others = ", ".join(sorted(names - {"SampledWithReplacementDpEvent"})) or "another SampledWithReplacementDpEvent"
        raise ValueError(f"SampledWithReplacementDpEvent is supported on its own (SelfComposed N times), not composed "
                         f"with {others}: neither dp-accounting's accountants nor dpcompare's bound cover the mix")
    if names <= _PLD_KINDS:
        return EventPlan(Route.PLD, adj, leaves)
    no_rdp = sorted(names & _NO_RDP)
    if no_rdp:
        rdp_only = sorted(names - _PLD_KINDS)
        raise ValueError(f"event composes {', '.join(no_rdp)} (privacy loss distribution only) with "
                         f"{', '.join(rdp_only)} (RDP bound only): no accountant covers both")
    return EventPlan(Route.RDP_BOUND, adj, leaves)


def event_summary(event: dict[str, Any]) -> str:
    """A short one-line description, e.g. ``SelfComposed(PoissonSampled(0.01, Gaussian(1.1)), 1000)``."""
    from .extension_events import extension_summary, is_extension

    if is_extension(event):
        return extension_summary(event)
    cls = event["class_name"].removesuffix("DpEvent")
    parts = []
    for f in FIELDS[event["class_name"]]:
        v = event[f]
        if isinstance(v, dict):
            parts.append(event_summary(v))
        elif f == "events":
            parts.append("[" + ", ".join(event_summary(e) for e in v) + "]")
        else:
            parts.append(f"{v:g}" if isinstance(v, float) else str(v))
    return f"{cls}({', '.join(parts)})"
