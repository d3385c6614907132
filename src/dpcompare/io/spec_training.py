"""Spec entries for DP training runs: ``sgm(...)`` in the trainer's vocabulary, and DpEvent JSON files.

``sgm`` accepts the original form ``sgm(sigma=…, p=…, steps=…)`` and the training vocabulary
(dpsgd/training.py)::

    sgm(noise_multiplier=1.1, batch_size=256, dataset_size=60000, epochs=10)
    sgm(noise_multiplier=1.1, batch_size=256, dataset_size=60000, steps=2344, sampling=fixed)
    sgm(sigma=1.1, sampling_rate=0.004, epochs=3)

``sigma``/``noise_multiplier`` and ``p``/``sampling_rate`` are synonyms; ``sampling=poisson|shuffle|fixed|balls_in_bins``
(default poisson) and ``adjacency=add_remove|replace_one`` (checked against the sampling mode).

**DpEvent files.** Anywhere a spec is accepted, a path ending in ``.json`` is read as a DpEvent: one JSON
object with the fields of dp-accounting's ``DpEvent.to_named_tuple()`` — ``module_name``
(``"dp_accounting.dp_event"``, optional), ``class_name`` and the event's own fields, nested events as
nested objects, lists as lists, e.g. ``{"class_name": "SelfComposedDpEvent", "count": 1000, "event":
{"class_name": "PoissonSampledDpEvent", "sampling_probability": 0.01, "event": {"class_name":
"GaussianDpEvent", "noise_multiplier": 1.1}}}``. ``dpcompare event SPEC`` writes one. Runs on
balls-in-bins or shuffled batches, which dp-accounting has no class for, are written as dpcompare's extension
events ``RandomAllocationDpEvent`` / ``ShuffledBatchesDpEvent`` (``"module_name": "dpcompare.events"``,
accounting/extension_events.py), read back here as the same certified mechanism.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .._validation import declared
from .spec import MECHANISMS, DeferredParams, Param

if TYPE_CHECKING:
    from ..dpsgd.training import TrainingConfig
    from ..mechanisms import Mechanism

#: the keys of ``sgm(...)``, in the order messages list them; their checks load with the entry's first use
_SGM_KEYS = ("sigma", "noise_multiplier", "p", "sampling_rate", "steps", "epochs", "batch_size", "dataset_size",
             "sampling", "adjacency")


def _sgm_params() -> dict[str, Param]:
    """The checks of ``sgm(...)``'s keys: σ, p and N from ``SubsampledGaussian.PARAMS``, the run's sizes from
    the training configuration's ``PARAMS`` (the one declaration of each domain)."""
    from ..dpsgd.training import PARAMS as TRAINING_PARAMS
    from ..mechanisms import SubsampledGaussian

    sgm = {p.name: p for p in SubsampledGaussian.PARAMS}
    return {
        "sigma": Param.declared(sgm["sigma"], what="noise multiplier"),
        "noise_multiplier": Param.declared(declared(TRAINING_PARAMS, "noise_multiplier"),
                                           what="noise std / clipping norm"),
        "p": Param.declared(sgm["sampling_rate"], what="sampling rate"),
        "sampling_rate": Param.declared(sgm["sampling_rate"], what="sampling rate"),
        "steps": Param.declared(sgm["steps"], what="number of steps"),
        "epochs": Param.declared(declared(TRAINING_PARAMS, "epochs"), what="passes over the data"),
        "batch_size": Param.declared(declared(TRAINING_PARAMS, "batch_size"), what="(expected) batch size"),
        "dataset_size": Param.declared(declared(TRAINING_PARAMS, "dataset_size"), what="number of examples"),
        "sampling": Param.choice("poisson", "shuffle", "fixed", "balls_in_bins", what="batch sampling"),
        "adjacency": Param.choice("add_remove", "replace_one", what="neighbouring relation"),
    }


_SGM_PARAMS = DeferredParams(_SGM_KEYS, _sgm_params)


def _training_config(kw: dict[str, Any]) -> "TrainingConfig":
    """The run of ``sgm(...)``'s converted keywords: the noise multiplier given once, as ``sigma`` or
    ``noise_multiplier``."""
    from ..dpsgd.training import TrainingConfig

    if "sigma" in kw and "noise_multiplier" in kw:
        raise ValueError("give the noise multiplier once: sigma or noise_multiplier, not both")
    nm = kw.pop("sigma", None)
    nm = kw.pop("noise_multiplier", nm)
    if nm is None:
        raise ValueError("sgm is missing noise_multiplier (or sigma)")
    return TrainingConfig(nm, **kw)


@MECHANISMS.register(
    "sgm",
    _SGM_PARAMS,
    forms=["sigma, p, steps",
           "noise_multiplier?, sigma?, p?, sampling_rate?, steps?, epochs?, batch_size?, dataset_size?, "
           "sampling?, adjacency?"],
    summary="DP-SGD: sgm(sigma, p, steps) or sgm(noise_multiplier, batch_size, dataset_size, epochs|steps, "
            "sampling=poisson|shuffle|fixed|balls_in_bins)",
)
def _sgm(**kw: Any) -> "Mechanism":
    config = _training_config(kw)
    if config.sampling.value == "poisson":
        from ..mechanisms.sgm import SubsampledGaussian

        return SubsampledGaussian(sigma=config.noise_multiplier, sampling_rate=config.sampling_rate, steps=config.steps)
    return config.mechanism


def load_event_file(path: str) -> "Mechanism":
    """The mechanism of a DpEvent JSON file (module docstring); ``ValueError`` naming the file and field."""
    from ..accounting.event_plan import load_event_text
    from ..mechanisms import FromDpEvent

    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"cannot read DpEvent file {path!r}: {getattr(exc, 'strerror', None) or exc}") from None
    _reject_non_finite(text, path)
    try:
        plain = load_event_text(text, source=f"DpEvent file {path!r}")
        return FromDpEvent(plain, name=path)
    except ValueError as exc:
        msg = str(exc)
        raise ValueError(msg if path in msg else f"DpEvent file {path!r}: {msg}") from None


class _NonFinite(str):
    """A JSON constant (``Infinity``, ``-Infinity``, ``NaN``) kept as its text, to be reported with its field."""


def _reject_non_finite(text: str, path: str) -> None:
    """``ValueError`` naming the file and the field of the first non-finite number (JSON has none; Python's
    reader accepts ``Infinity`` and ``NaN``, which no DpEvent field allows).

    >>> _reject_non_finite('{"class_name": "GaussianDpEvent", "noise_multiplier": Infinity}', "run.json")
    Traceback (most recent call last):
    ...
    ValueError: DpEvent file 'run.json': field noise_multiplier must be a finite number, got Infinity
    """
    import json

    try:
        obj = json.loads(text, parse_constant=_NonFinite)
    except ValueError:
        return  # malformed JSON: the reader reports it

    def walk(x: Any, where: str) -> None:
        if isinstance(x, _NonFinite):
            raise ValueError(f"DpEvent file {path!r}: field {where or 'the top level'} must be a finite number, "
                             f"got {str(x)}")
        if isinstance(x, dict):
            for k, v in x.items():
                walk(v, f"{where}.{k}" if where else str(k))
        elif isinstance(x, list):
            for i, v in enumerate(x):
                walk(v, f"{where}[{i}]")

    walk(obj, "")


def parse_training(spec: str) -> "TrainingConfig":
    """A :class:`~dpcompare.dpsgd.training.TrainingConfig` from ``sgm(...)`` in either vocabulary
    (``noise_multiplier``/``sigma``, ``batch_size``, ``dataset_size``, ``epochs``/``steps``, ``sampling``,
    ``adjacency``); ``ValueError`` naming the parameter otherwise.

    >>> parse_training("sgm(noise_multiplier=1.1, batch_size=256, dataset_size=60000, epochs=10)").steps
    2344
    """
    from .spec import Parser

    if str(spec).strip().lower().endswith(".json"):
        return _training_from_event_file(str(spec).strip())
    parser = Parser(str(spec).strip(), "mechanism")
    name = parser.parse_name().lower()
    if name != "sgm":
        raise ValueError(f"a training run must be sgm(noise_multiplier=…, batch_size=…, dataset_size=…, "
                         f"epochs=…, sampling=…), got {name}(…)")
    call = parser.parse_args(name)
    entry = MECHANISMS["sgm"]
    MECHANISMS.check_form(entry, {k.lower() for k, _ in call.args if k})
    kw = {k.lower(): entry.params[k.lower()].convert(k.lower(), n) for k, n in call.args if k}
    return _training_config(kw)


def _training_from_event_file(path: str) -> "TrainingConfig":
    """The run of a DpEvent file written by ``dpcompare event`` for a training run (the extension events of
    balls-in-bins and shuffled batches, or a fixed-batch event); ``ValueError`` for other events."""
    from ..mechanisms.allocation import BallsInBinsGaussian, ShuffledGaussian
    from ..mechanisms.fixed_batch import FixedBatchGaussian
    from .spec import parse

    m = getattr(parse(path), "mechanism", None)
    if isinstance(m, FixedBatchGaussian):
        return parse_training(f"sgm(noise_multiplier={m.sigma * 2.0!r}, batch_size={m.batch_size}, "
                              f"dataset_size={m.dataset_size}, steps={m.steps}, sampling=fixed)")
    if not isinstance(m, (BallsInBinsGaussian, ShuffledGaussian)):
        raise ValueError(f"DpEvent file {path!r} does not describe a run with a batch size and dataset size (a "
                         "RandomAllocationDpEvent, ShuffledBatchesDpEvent or SampledWithoutReplacement event)")
    return parse_training(m.spec)


def training_event_json(spec: str) -> str:
    """The DpEvent JSON of a spec: ``sgm(...)`` in any vocabulary, another DpEvent file, or a mechanism
    with a DpEvent equivalent (``gaussian``, ``laplace``); ``ValueError`` otherwise."""
    from ..accounting.dp_accounting import event_to_json
    from .spec import Parser, parse

    text = spec.strip()
    if text.lower().endswith(".json"):
        mech = parse(text)
        return mech.to_json()
    name = Parser(text, "mechanism").parse_name().lower()
    if name == "sgm":
        config = parse_training(text)
        if config.sampling.value in ("balls_in_bins", "shuffle"):  # no dp-accounting class: the extension event
            from ..accounting.extension_events import extension_event_dict

            return event_to_json(extension_event_dict(config.sampling.value, config.noise_multiplier,
                                                      dataset_size=config.dataset_size, batch_size=config.batch_size,
                                                      epochs=config.steps // config.batches_per_epoch))
        return event_to_json(config.event_dict())
    mech = parse(text)
    from ..mechanisms import Gaussian, Laplace

    if isinstance(mech, Gaussian):
        return event_to_json({"class_name": "GaussianDpEvent", "noise_multiplier": 1.0 / mech.mu})
    if isinstance(mech, Laplace):
        return event_to_json({"class_name": "LaplaceDpEvent", "noise_multiplier": mech.b / mech.sensitivity})
    raise ValueError(f"{name} has no DpEvent equivalent; event takes sgm(...), gaussian(...), laplace(...) or a "
                     "DpEvent file")
