"""The spec language of the CLI: ``name(key=value, …)`` → a mechanism.

This module holds the two registries, the built-in closed-form entries and the public entry points
:func:`parse` / :func:`parse_hyperprior`. The language itself is split by job:

- :mod:`.spec_grammar`: the tokenizer/recursive-descent parser (text → name and arguments; the
  grammar is written there);
- :mod:`.spec_registry`: :class:`Param` and :class:`Registry` (name → factory, parameters, allowed key
  sets, one-line error messages), re-exported here;
- ``spec_<area>.py`` modules register further entries (imported at the bottom of this module).

``inf`` and ``nan`` are read so that the error names the parameter ("sigma must be finite, got nan")
instead of complaining about syntax. A parameter declared integer accepts ``1.4e6`` if integral.
Every error is a ``ValueError`` with one line naming the unknown mechanism, key, missing key or bad
value together with what is allowed, followed by the spec it came from.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from .._validation import declared, format_number
from .spec_grammar import Parser  # noqa: F401  (re-exported for spec_training and tests)
from .spec_registry import DeferredParams, Entry, Param, Registry  # noqa: F401  (Entry: re-exported, was defined here)

if TYPE_CHECKING:
    from ..comparison.hyperprior import HyperPrior
    from ..mechanisms import Mechanism

__all__ = [
    "HYPERPRIORS",
    "MECHANISMS",
    "Param",
    "Registry",
    "format_number",
    "parse",
    "parse_hyperprior",
]


# ---------------------------------------------------------------------------------------------- entries
MECHANISMS: Registry["Mechanism"] = Registry("mechanism")
HYPERPRIORS: Registry["HyperPrior"] = Registry("hyperprior")


def _declared(owner: Callable[[], type], *names: str, what: Mapping[str, str] | None = None) -> DeferredParams:
    """The spec parameters ``names`` of the class ``owner()``, from its one ``PARAMS`` declaration (``what``:
    key → words for messages). Built on first use (:class:`DeferredParams`): registering an entry imports no
    mechanism, so a command loads only the mechanisms its specs name."""
    words = dict(what or {})

    def load() -> dict[str, Param]:
        params = owner().PARAMS
        return {n: Param.declared(declared(params, n), what=words.get(n, "")) for n in names}

    return DeferredParams(names, load)


def _mechanism(name: str) -> Callable[[], type]:
    """The class :mod:`dpcompare.mechanisms` names ``name``, imported when called."""

    def owner() -> type:
        from .. import mechanisms

        return getattr(mechanisms, name)

    return owner


def _shuffled() -> type:
    from ..mixtures import Shuffled

    return Shuffled


def _beta_prior() -> type:
    from ..comparison.hyperprior import BetaPrior

    return BetaPrior


@MECHANISMS.register(
    "gaussian",
    _declared(_mechanism("Gaussian"), "mu", "sigma", "sensitivity"),
    forms=["mu", "sigma, sensitivity?"],
    summary="Gaussian mechanism, mu = sensitivity/sigma",
)
def _gaussian(mu: float | None = None, sigma: float | None = None, sensitivity: float = 1.0) -> "Mechanism":
    from ..mechanisms import Gaussian

    if mu is not None:
        return Gaussian(mu=mu)
    return Gaussian(sigma=sigma, sensitivity=sensitivity)


@MECHANISMS.register(
    "laplace",
    _declared(_mechanism("Laplace"), "b", "sensitivity"),
    forms=["b, sensitivity?"],
    summary="Laplace mechanism (pure DP with eps = sensitivity/b)",
)
def _laplace(b: float, sensitivity: float = 1.0) -> "Mechanism":
    from ..mechanisms import Laplace

    return Laplace(b=b, sensitivity=sensitivity)


@MECHANISMS.register("rr", _declared(_mechanism("RandomizedResponse"), "eps"), summary="binary randomized response")
def _rr(eps: float) -> "Mechanism":
    from ..mechanisms import RandomizedResponse

    return RandomizedResponse(eps=eps)


@MECHANISMS.register("puredp", _declared(_mechanism("PureDP"), "eps"), summary="worst-case eps-DP mechanism")
def _puredp(eps: float) -> "Mechanism":
    from ..mechanisms import PureDP

    return PureDP(eps=eps)


@MECHANISMS.register(
    "approxdp",
    _declared(_mechanism("ApproxDP"), "eps", "delta"),
    summary="worst-case (eps, delta)-DP mechanism",
)
def _approxdp(eps: float, delta: float) -> "Mechanism":
    from ..mechanisms import ApproxDP

    return ApproxDP(eps=eps, delta=delta)


@MECHANISMS.register("pp", {}, summary="perfectly private mechanism")
def _pp() -> "Mechanism":
    from ..mechanisms import PerfectlyPrivate

    return PerfectlyPrivate()


@MECHANISMS.register("bnp", {}, summary="blatantly non-private mechanism")
def _bnp() -> "Mechanism":
    from ..mechanisms import BlatantlyNonPrivate

    return BlatantlyNonPrivate()


#: the parameters of both shuffle analyses (one deferred table: the shuffle model loads when a spec uses it)
_SHUFFLE_PARAMS = _declared(_shuffled, "eps0", "n",
                            what={"eps0": "epsilon of each local randomiser", "n": "number of users"})


@MECHANISMS.register(
    "shuffle",
    _SHUFFLE_PARAMS,
    summary="n shuffled eps0-DP local reports: the f-DP bound of [MIX] Thm 4.2",
)
def _shuffle(eps0: float, n: int) -> "Mechanism":
    from ..mixtures import Shuffled

    return Shuffled(eps0=eps0, n=n)


@MECHANISMS.register(
    "shuffle_pair",
    _SHUFFLE_PARAMS,
    summary="n shuffled eps0-DP local reports: exact trade-off of [MIX]'s clone pair (tighter than Thm 4.2)",
)
def _shuffle_pair(eps0: float, n: int) -> "Mechanism":
    from ..mixtures import ShuffleAnalysis, Shuffled

    return Shuffled(eps0=eps0, n=n, analysis=ShuffleAnalysis.CLONE_PAIR)


@HYPERPRIORS.register("jeffreys", {}, summary="Beta(1/2, 1/2)")
def _jeffreys() -> "HyperPrior":
    from ..comparison.hyperprior import JEFFREYS

    return JEFFREYS


@HYPERPRIORS.register("uquadratic", {}, summary="12 (pi - 1/2)^2")
def _uquadratic() -> "HyperPrior":
    from ..comparison.hyperprior import UQuadratic

    return UQuadratic()


@HYPERPRIORS.register(
    "beta", _declared(_beta_prior, "a", "b"), positional=("a", "b"), summary="Beta(a, b) density"
)
def _beta(a: float, b: float) -> "HyperPrior":
    from ..comparison.hyperprior import BetaPrior

    return BetaPrior(a, b)


# ---------------------------------------------------------------------------------------------- API
def parse(spec: str) -> "Mechanism":
    """Build a mechanism from its spec, e.g. ``parse("sgm(sigma=1.1, p=0.01, steps=1.4e4)")``.

    Known names: ``gaussian(mu=…)`` | ``gaussian(sigma=…, sensitivity=…)``, ``laplace(b=…,
    sensitivity=…)``, ``rr(eps=…)``, ``puredp(eps=…)``, ``approxdp(eps=…, delta=…)``, ``pp()``,
    ``bnp()``, ``sgm(sigma=…, p=…, steps=…)`` (or in the training vocabulary, io/spec_training.py),
    ``shuffle(eps0=…, n=…)``, ``shuffle_pair(eps0=…, n=…)``, ``mixture(w1*SPEC1, …)``, ``subsample(SPEC, w=…)``,
    ``random_init(loss=…, …)`` (io/spec_mixtures.py) and whatever later modules register in
    :data:`MECHANISMS`; or a path to a DpEvent JSON file (``run.json``). Raises ``ValueError`` with a
    one-line message on any bad input.

    >>> parse(" Gaussian( sigma = 2, sensitivity=1 ) ").mu
    0.5
    >>> parse("gauss(mu=1)")
    Traceback (most recent call last):
    ...
    ValueError: unknown mechanism 'gauss'; known: approxdp, bnp, compose, gaussian, laplace, mixture, pp, puredp, random_init, rr, sgm, shuffle, shuffle_pair, subsample; did you mean 'gaussian'? (in mechanism spec 'gauss(mu=1)')
    """
    if isinstance(spec, str) and spec.strip().lower().endswith(".json"):
        return _event_file(spec.strip())
    return MECHANISMS.parse(spec)


def _event_file(path: str) -> "Mechanism":
    """A DpEvent JSON file (io/spec_training.py documents the format) as a mechanism."""
    if os.path.isdir(path):
        raise ValueError(f"DpEvent file {path!r} is a directory, not a file (a spec ending in .json is read as a "
                         "DpEvent file)")
    if not os.path.isfile(path):
        raise ValueError(f"DpEvent file {path!r} does not exist (a spec ending in .json is read as a DpEvent file)")
    from .spec_training import load_event_file

    return load_event_file(path)


def parse_hyperprior(text: str) -> "HyperPrior":
    """``jeffreys`` | ``uquadratic`` | ``beta(a, b)`` (or ``beta(a=…, b=…)``) → a hyper-prior.

    >>> parse_hyperprior("beta(2, 3)")
    BetaPrior(a=2.0, b=3.0)
    """
    return HYPERPRIORS.parse(text)


from . import spec_mixtures  # noqa: E402,F401  (registers mixture, subsample, random_init)
from . import spec_training  # noqa: E402,F401  (registers sgm with the training vocabulary)
from . import spec_composed  # noqa: E402,F401  (registers compose)
