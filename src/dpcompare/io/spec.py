"""The spec language of the CLI: ``name(key=value, …)`` → a mechanism (DESIGN.md §3).

Grammar (whitespace anywhere between tokens; names and keys case-insensitive)::

    spec   := NAME [ "(" [ arg ("," arg)* [","] ] ")" ]
    arg    := KEY "=" NUMBER            (mechanisms take keyword arguments only)
            | NUMBER                    (only where an entry declares positional keys, e.g. beta(a,b))
    NUMBER := [+-] ( digits [. digits] [e [+-] digits] | . digits [e …] | inf | infinity | nan )

``inf`` and ``nan`` are read so that the error names the parameter ("sigma must be finite, got nan")
instead of complaining about syntax. A parameter declared integer accepts ``1.4e6`` if integral.

What a name means lives in a :class:`Registry` (name → factory, parameters, allowed key sets), so a
later issue adds a mechanism with one decorated factory and no change to the parser::

    @MECHANISMS.register("shuffle", {"eps0": Param.nonnegative(), "n": Param.integer(minimum=1)})
    def _shuffle(eps0, n):
        from ..mixtures import Shuffled
        return Shuffled(eps0=eps0, n=n)

Every error is a ``ValueError`` with one line naming the unknown mechanism, key, missing key or bad
value together with what is allowed, followed by the spec it came from.
"""

from __future__ import annotations

import difflib
import math
import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeVar

from .._validation import format_number, check_in_interval, check_integer, check_nonnegative, check_positive

if TYPE_CHECKING:
    from ..compare.hyperprior import HyperPrior
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

T = TypeVar("T")


# ---------------------------------------------------------------------------------------------- params
@dataclass(frozen=True)
class Param:
    """One parameter of a spec: how its text becomes a value, and the check it must pass.

    ``check(label, value)`` raises ``ValueError`` naming ``label`` (the key, or ``"key (what)"``)
    when the value is out of range; ``kind`` says whether the value is a float or an integer
    (``1.4e6`` accepted if integral); ``what`` says in words what the key means, for messages.
    """

    kind: Literal["real", "integer", "choice"] = "real"
    check: Callable[[str, float], Any] | None = None
    what: str = ""
    choices: tuple[str, ...] = ()

    # -- the usual checks, named after the range they enforce
    @classmethod
    def positive(cls, what: str = "") -> "Param":
        return cls("real", check_positive, what)

    @classmethod
    def nonnegative(cls, what: str = "") -> "Param":
        return cls("real", check_nonnegative, what)

    @classmethod
    def interval(
        cls, low: float, high: float, *, low_open: bool = False, high_open: bool = False, what: str = ""
    ) -> "Param":
        def check(label: str, v: float) -> float:
            return check_in_interval(label, v, low, high, low_open=low_open, high_open=high_open)

        return cls("real", check, what)

    @classmethod
    def integer(cls, minimum: int = 1, what: str = "") -> "Param":
        return cls("integer", lambda label, v: check_integer(label, v, minimum=minimum), what)

    @classmethod
    def choice(cls, *choices: str, what: str = "") -> "Param":
        """A word from ``choices`` (case-insensitive), e.g. ``sampling=poisson``."""
        return cls("choice", None, what, tuple(choices))

    def convert(self, key: str, number: "_Number") -> Any:
        label = f"{key} ({self.what})" if self.what else key
        if self.kind == "choice":
            word = number.text.lower()
            if not number.word or word not in self.choices:
                raise ValueError(f"{label} must be one of {'|'.join(self.choices)}, got {number.text!r}")
            return word
        if number.word:
            raise ValueError(f"bad value for {key}: expected a number, got {number.text!r}")
        if self.kind == "integer":
            value: Any = number.as_integer(label)
        else:
            value = number.value
        return self.check(label, value) if self.check is not None else value


@dataclass(frozen=True)
class _Form:
    """One allowed combination of keys: all of ``required``, any of ``optional``."""

    required: tuple[str, ...]
    optional: tuple[str, ...] = ()

    @property
    def keys(self) -> frozenset[str]:
        return frozenset(self.required) | frozenset(self.optional)

    def usage(self, name: str) -> str:
        parts = [f"{k}=..." for k in self.required] + [f"[{k}=...]" for k in self.optional]
        return f"{name}({', '.join(parts)})"


@dataclass(frozen=True)
class Entry(Generic[T]):
    """A registered name: its factory, parameters, allowed key sets and positional keys."""

    name: str
    factory: Callable[..., T]
    params: Mapping[str, Param]
    forms: tuple[_Form, ...]
    positional: tuple[str, ...] = ()
    summary: str = ""
    #: non-empty for an entry whose arguments are not plain numbers (nested specs, words): its factory
    #: receives the text between the outer parentheses and parses it itself (``register_raw``)
    raw_usage: str = ""

    def usage(self) -> str:
        if self.raw_usage:
            return self.raw_usage
        return " | ".join(f.usage(self.name) for f in self.forms)


def _parse_forms(params: Mapping[str, Param], forms: Sequence[str] | None) -> tuple[_Form, ...]:
    if forms is None:
        return (_Form(tuple(params)),)
    out = []
    for text in forms:
        keys = [k.strip() for k in text.split(",") if k.strip()]
        req = tuple(k for k in keys if not k.endswith("?"))
        opt = tuple(k[:-1] for k in keys if k.endswith("?"))
        unknown = [k for k in req + opt if k not in params]
        if unknown:
            raise ValueError(f"form {text!r} names undeclared parameters {unknown}")
        out.append(_Form(req, opt))
    return tuple(out)


# ---------------------------------------------------------------------------------------------- registry
class Registry(Generic[T]):
    """Names of the spec language → factories. ``kind`` names the things in messages ("mechanism")."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._entries: dict[str, Entry[T]] = {}

    def register(
        self,
        name: str,
        params: Mapping[str, Param] | None = None,
        *,
        forms: Sequence[str] | None = None,
        positional: Sequence[str] = (),
        summary: str = "",
    ) -> Callable[[Callable[..., T]], Callable[..., T]]:
        """Decorator: register ``factory(**values)`` under ``name`` (lower case).

        ``forms`` lists the allowed key sets as strings, ``"?"`` marking an optional key, e.g.
        ``["mu", "sigma, sensitivity?"]``; by default every parameter is required. Keys missing from
        the spec are not passed, so the factory's own defaults apply.
        """
        params = dict(params or {})
        key = name.lower()
        if not re.fullmatch(r"[a-z_][a-z0-9_]*", key):
            raise ValueError(f"invalid {self.kind} name {name!r}")
        if key in self._entries:
            raise ValueError(f"{self.kind} {key!r} is already registered")
        parsed_forms = _parse_forms(params, forms)
        for p in positional:
            if p not in params:
                raise ValueError(f"positional key {p!r} is not a parameter of {key}")

        def decorator(factory: Callable[..., T]) -> Callable[..., T]:
            self._entries[key] = Entry(key, factory, params, parsed_forms, tuple(positional), summary)
            return factory

        return decorator

    def register_raw(self, name: str, *, usage: str, summary: str = "") -> Callable[[Callable[[str], T]], Callable[[str], T]]:
        """Decorator: register ``factory(text)`` under ``name``; ``text`` is everything between the
        spec's outer parentheses (balanced; "" without them). For entries whose arguments are nested
        specs or words, e.g. ``subsample(gaussian(mu=1), w=0.1)``; the factory parses ``text``."""
        key = name.lower()
        if not re.fullmatch(r"[a-z_][a-z0-9_]*", key):
            raise ValueError(f"invalid {self.kind} name {name!r}")
        if key in self._entries:
            raise ValueError(f"{self.kind} {key!r} is already registered")

        def decorator(factory: Callable[[str], T]) -> Callable[[str], T]:
            self._entries[key] = Entry(key, factory, {}, (_Form(()),), (), summary, usage)
            return factory

        return decorator

    def unregister(self, name: str) -> None:
        del self._entries[name.lower()]

    def names(self) -> list[str]:
        return sorted(self._entries)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.lower() in self._entries

    def __getitem__(self, name: str) -> Entry[T]:
        return self._entries[name.lower()]

    def entries(self) -> list[Entry[T]]:
        return [self._entries[n] for n in self.names()]

    def usage(self) -> str:
        """One line per entry: ``name(key=..., …) | …``."""
        return "\n".join(e.usage() for e in self.entries())

    # -------------------------------------------------------------------------- parse
    def parse(self, text: str) -> T:
        """Parse ``text`` and build the object; ``ValueError`` with a one-line message otherwise."""
        if not isinstance(text, str):
            raise TypeError(f"a {self.kind} spec must be a string, got {type(text).__name__}")
        try:
            parser = _Parser(text, self.kind)
            name = parser.parse_name()
            entry = self._lookup(name)  # an unknown name is the first thing to report
            if entry.raw_usage:
                return entry.factory(parser.parse_raw())
            return self._build(parser.parse_args(name))
        except ValueError as exc:
            msg = " ".join(str(exc).split())  # one line, whatever the constructor said
            where = f" (in {self.kind} spec {text.strip()!r})" if text.strip() else ""
            raise ValueError(msg + where) from None

    def _lookup(self, name: str) -> Entry[T]:
        key = name.lower()
        if key not in self._entries:
            known = ", ".join(self.names())
            close = difflib.get_close_matches(key, self.names(), n=1, cutoff=0.6)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise ValueError(f"unknown {self.kind} {name!r}; known: {known}{hint}")
        return self._entries[key]

    def _build(self, call: "_Call") -> T:
        entry = self._lookup(call.name)
        name = entry.name
        allowed = sorted(entry.params)
        allowed_txt = ", ".join(allowed) if allowed else "none"

        values: dict[str, Any] = {}
        n_pos = 0
        for key, number in call.args:
            if key is None:
                if values and n_pos < len(values):
                    raise ValueError(f"{name}: a bare value {number.text!r} cannot follow key=value arguments")
                if n_pos >= len(entry.positional):
                    if not entry.positional:
                        raise ValueError(
                            f"{name} takes key=value arguments (e.g. {entry.forms[0].usage(name)}), "
                            f"got a bare value {number.text!r}"
                        )
                    raise ValueError(
                        f"{name} takes at most {len(entry.positional)} positional values, got {number.text!r} too"
                    )
                key = entry.positional[n_pos]
                n_pos += 1
            else:
                key = key.lower()
            if key not in entry.params:
                close = difflib.get_close_matches(key, allowed, n=1, cutoff=0.6)
                hint = f"; did you mean {close[0]!r}?" if close else ""
                raise ValueError(f"unknown parameter {key!r} for {name}; allowed: {allowed_txt}{hint}")
            if key in values:
                raise ValueError(f"parameter {key!r} given twice for {name}")
            values[key] = number

        self._check_form(entry, set(values))
        kwargs = {k: entry.params[k].convert(k, num) for k, num in values.items()}
        return entry.factory(**kwargs)

    @staticmethod
    def _check_form(entry: Entry[T], given: set[str]) -> None:
        if any(f.required and set(f.required) <= given <= f.keys for f in entry.forms) or any(
            not f.required and given <= f.keys for f in entry.forms
        ):
            return
        usage = entry.usage()
        fitting = [f for f in entry.forms if given <= f.keys]
        if not fitting:  # keys that no form allows together
            extra = sorted(given)
            both = ", ".join(extra[:-1]) + " and " + extra[-1]
            raise ValueError(f"{entry.name} cannot combine {both}; usage: {usage}")
        missing = list(dict.fromkeys(tuple(k for k in f.required if k not in given) for f in fitting))
        fewest = min(len(m) for m in missing)
        best = [m for m in missing if len(m) == fewest]  # in the order the forms were declared
        if len(best) == 1:
            keys = best[0]
            noun = "parameter" if len(keys) == 1 else "parameters"
            raise ValueError(f"{entry.name} is missing {noun} {', '.join(keys)}; usage: {usage}")
        alts = " or ".join("+".join(m) for m in best)
        raise ValueError(f"{entry.name} needs {alts}; usage: {usage}")


# ---------------------------------------------------------------------------------------------- parser
@dataclass(frozen=True)
class _Number:
    text: str
    value: float
    integral_text: bool  # written as an integer literal (exact even beyond 2**53)
    word: bool = False  # a bare word such as ``poisson`` (only choice parameters accept it)

    def as_integer(self, label: str) -> Any:
        if self.integral_text:
            digits = self.text.replace("_", "")
            if len(digits.lstrip("+-")) > 30:
                raise ValueError(f"{label} is too large, got {self.text}")
            return int(digits)
        return self.value  # a float: check_integer accepts it if finite and integral


@dataclass(frozen=True)
class _Call:
    name: str
    args: tuple[tuple[str | None, _Number], ...] = field(default=())


_WS = re.compile(r"\s*")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_NUMBER = re.compile(
    r"[+-]?(?:(?P<int>\d+(?:_\d+)*)(?P<frac>\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?"
    r"|[+-]?(?:infinity|inf|nan)",
    re.IGNORECASE,
)


class _Parser:
    """Recursive descent over the text, one position index; no eval."""

    def __init__(self, text: str, kind: str) -> None:
        self.text = text
        self.pos = 0
        self.kind = kind

    def _skip(self) -> None:
        self.pos = _WS.match(self.text, self.pos).end()

    def _peek(self) -> str:
        self._skip()
        return self.text[self.pos : self.pos + 1]

    def _where(self) -> str:
        if self.pos >= len(self.text):
            return "at the end"
        return f"at position {self.pos + 1} ({self.text[self.pos:self.pos + 12]!r})"

    def _expect(self, ch: str, what: str) -> None:
        if self._peek() != ch:
            raise ValueError(f"expected {what} {self._where()}")
        self.pos += 1

    def _name(self, what: str) -> str:
        self._skip()
        m = _NAME.match(self.text, self.pos)
        if not m:
            raise ValueError(f"expected {what} {self._where()}")
        self.pos = m.end()
        return m.group(0)

    def _number(self, key: str | None) -> _Number:
        self._skip()
        end = self.pos  # the value is everything up to the next ',' or ')'
        while end < len(self.text) and self.text[end] not in ",)":
            end += 1
        raw = self.text[self.pos:end].rstrip()
        m = _NUMBER.fullmatch(raw)
        if not m and _NAME.fullmatch(raw):  # a word value, for choice parameters
            self.pos += len(raw)
            return _Number(raw, math.nan, False, word=True)
        if not m:
            who = f" for {key}" if key else ""
            raise ValueError(f"bad value{who}: expected a number, got {raw!r}" if raw else f"missing value{who}")
        self.pos += len(raw)
        text = m.group(0)
        integral = m.group("int") is not None and m.group("frac") is None and "e" not in text.lower()
        try:
            value = float(text.replace("_", ""))
        except ValueError:  # pragma: no cover - the regex only admits float syntax
            raise ValueError(f"bad value for {key}: {text!r}") from None
        return _Number(text, value, integral)

    def parse(self) -> _Call:
        return self.parse_args(self.parse_name())

    def parse_name(self) -> str:
        if not self.text.strip():
            raise ValueError(f"empty {self.kind} spec")
        return self._name(f"a {self.kind} name like gaussian(mu=1)")

    def parse_args(self, name: str) -> _Call:
        args: list[tuple[str | None, _Number]] = []
        if self._peek() == "(":
            self.pos += 1
            while self._peek() != ")":
                if self._peek() == "":
                    raise ValueError("missing ')' at the end")
                args.append(self._arg())
                if self._peek() == ",":
                    self.pos += 1
                    if self._peek() == ")":  # `f(a=1,)`: an empty item is a typo, not a shorter list
                        raise ValueError(f"empty item after ',' {self._where()}")
                elif self._peek() == "":
                    raise ValueError("missing ')' at the end")
                elif self._peek() != ")":
                    raise ValueError(f"expected ',' or ')' {self._where()}")
            self.pos += 1
        self._skip()
        if self.pos != len(self.text):
            raise ValueError(f"unexpected text {self._where()}")
        return _Call(name, tuple(args))

    def parse_raw(self) -> str:
        """The text between balanced outer parentheses ("" if there are none); nothing may follow."""
        if self._peek() != "(":
            self._skip()
            if self.pos != len(self.text):
                raise ValueError(f"unexpected text {self._where()}")
            return ""
        start = self.pos + 1
        depth = 0
        for i in range(self.pos, len(self.text)):
            depth += {"(": 1, ")": -1}.get(self.text[i], 0)
            if depth == 0:
                self.pos = i + 1
                self._skip()
                if self.pos != len(self.text):
                    raise ValueError(f"unexpected text {self._where()}")
                return self.text[start:i]
        raise ValueError("missing ')' at the end")

    def _arg(self) -> tuple[str | None, _Number]:
        self._skip()
        start = self.pos
        m = _NAME.match(self.text, self.pos)
        if m:
            key = m.group(0)
            self.pos = m.end()
            if self._peek() == "=":
                self.pos += 1
                return key, self._number(key.lower())
            if not _NUMBER.fullmatch(key):  # a word that is neither a key nor inf/nan
                raise ValueError(f"expected '=' after {key!r} {self._where()}")
        self.pos = start
        return None, self._number(None)


# ---------------------------------------------------------------------------------------------- entries
MECHANISMS: Registry["Mechanism"] = Registry("mechanism")
HYPERPRIORS: Registry["HyperPrior"] = Registry("hyperprior")


@MECHANISMS.register(
    "gaussian",
    {"mu": Param.positive(), "sigma": Param.positive(), "sensitivity": Param.positive()},
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
    {"b": Param.positive(), "sensitivity": Param.positive()},
    forms=["b, sensitivity?"],
    summary="Laplace mechanism (pure DP with eps = sensitivity/b)",
)
def _laplace(b: float, sensitivity: float = 1.0) -> "Mechanism":
    from ..mechanisms import Laplace

    return Laplace(b=b, sensitivity=sensitivity)


@MECHANISMS.register("rr", {"eps": Param.nonnegative()}, summary="binary randomized response")
def _rr(eps: float) -> "Mechanism":
    from ..mechanisms import RandomizedResponse

    return RandomizedResponse(eps=eps)


@MECHANISMS.register("puredp", {"eps": Param.nonnegative()}, summary="worst-case eps-DP mechanism")
def _puredp(eps: float) -> "Mechanism":
    from ..mechanisms import PureDP

    return PureDP(eps=eps)


@MECHANISMS.register(
    "approxdp",
    {"eps": Param.nonnegative(), "delta": Param.interval(0.0, 1.0)},
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


@MECHANISMS.register(
    "shuffle",
    {
        "eps0": Param.positive(what="epsilon of each local randomiser"),
        "n": Param.integer(minimum=2, what="number of users"),
    },
    summary="n shuffled eps0-DP local reports: the f-DP bound of seed 002 Thm 4.2",
)
def _shuffle(eps0: float, n: int) -> "Mechanism":
    from ..mixtures import Shuffled

    return Shuffled(eps0=eps0, n=n)


@MECHANISMS.register(
    "shuffle_pair",
    {
        "eps0": Param.positive(what="epsilon of each local randomiser"),
        "n": Param.integer(minimum=2, what="number of users"),
    },
    summary="n shuffled eps0-DP local reports: exact trade-off of seed 002's clone pair (tighter than Thm 4.2)",
)
def _shuffle_pair(eps0: float, n: int) -> "Mechanism":
    from ..mixtures import ShuffleAnalysis, Shuffled

    return Shuffled(eps0=eps0, n=n, analysis=ShuffleAnalysis.CLONE_PAIR)


@HYPERPRIORS.register("jeffreys", {}, summary="Beta(1/2, 1/2)")
def _jeffreys() -> "HyperPrior":
    from ..compare.hyperprior import JEFFREYS

    return JEFFREYS


@HYPERPRIORS.register("uquadratic", {}, summary="12 (pi - 1/2)^2")
def _uquadratic() -> "HyperPrior":
    from ..compare.hyperprior import UQuadratic

    return UQuadratic()


@HYPERPRIORS.register(
    "beta", {"a": Param.positive(), "b": Param.positive()}, positional=("a", "b"), summary="Beta(a, b) density"
)
def _beta(a: float, b: float) -> "HyperPrior":
    from ..compare.hyperprior import BetaPrior

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
