"""The meaning side of the spec language: :class:`Param` (how a value is read and checked) and
:class:`Registry` (name → factory, parameters, allowed key sets), re-exported by :mod:`dpcompare.io.spec`.

A later issue adds a mechanism with one decorated factory and no change to the parser::

    @MECHANISMS.register("shuffle", {"eps0": Param.nonnegative(), "n": Param.integer(minimum=1)})
    def _shuffle(eps0, n):
        from ..mixtures import Shuffled
        return Shuffled(eps0=eps0, n=n)

Every error is a ``ValueError`` with one line naming the unknown name, key, missing key or bad value
together with what is allowed, followed by the spec it came from.

>>> colours: Registry[str] = Registry("colour")
>>> @colours.register("grey", {"level": Param.interval(0.0, 1.0)})
... def _grey(level: float) -> str:
...     return f"grey {level:g}"
>>> colours.parse("grey(level=0.5)")
'grey 0.5'
>>> colours.parse("grey(level=2)")
Traceback (most recent call last):
...
ValueError: level must be in [0, 1], got 2 (in colour spec 'grey(level=2)')
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Generic, Literal, NamedTuple, TypeVar

from .._validation import Param as DeclaredParam, check_in_interval, check_integer, check_nonnegative, check_positive
from .spec_grammar import Call, Number, Parser

__all__ = ["DeferredParams", "Entry", "Param", "Registry"]

T = TypeVar("T")


# ---------------------------------------------------------------------------------------------- params
class Param(NamedTuple):  # NamedTuple: 0.15 ms to define, a frozen dataclass 1 ms (CLI start-up)
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
    def declared(cls, param: "DeclaredParam", what: str = "") -> "Param":
        """The spec-language parameter of a declared domain (a mechanism's ``PARAMS`` entry): the same
        interval, said in the spec language's words (:meth:`dpcompare._validation.Interval.check_spec`),
        so a domain is written once, where the mechanism is defined."""
        kind: Literal["real", "integer"] = "integer" if param.integer else "real"
        return cls(kind, lambda label, v: param.check_spec(v, label), what)

    @classmethod
    def choice(cls, *choices: str, what: str = "") -> "Param":
        """A word from ``choices`` (case-insensitive), e.g. ``sampling=poisson``."""
        return cls("choice", None, what, tuple(choices))

    def convert(self, key: str, number: "Number") -> Any:
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


class DeferredParams(Mapping[str, Param]):
    """The parameters of an entry whose names are known when it is registered and whose :class:`Param`
    values are built on first use: ``load()`` returns them (a mapping with exactly the names ``keys``).

    The names are all that the usage line, the help listing and the messages about unknown, repeated or
    missing keys need; only converting a value (parsing a spec of this entry) builds the checks. So an
    entry whose ranges are declared next to a heavy mechanism (``SubsampledGaussian.PARAMS``) can be
    registered without importing that mechanism: a command that never parses the entry never loads it.

    >>> calls = []
    >>> def load():
    ...     calls.append(1)
    ...     return {"level": Param.interval(0.0, 1.0)}
    >>> params = DeferredParams(("level",), load)
    >>> sorted(params), "level" in params, calls
    (['level'], True, [])
    >>> params["level"].kind, calls
    ('real', [1])
    """

    def __init__(self, keys: Sequence[str], load: Callable[[], Mapping[str, Param]]) -> None:
        self._keys = tuple(keys)
        self._load = load
        self._params: dict[str, Param] | None = None

    def resolved(self) -> Mapping[str, Param]:
        """The parameters, loaded on the first call; ``RuntimeError`` if ``load`` does not give exactly ``keys``
        (a registration bug: the names the messages showed would not be the ones checked)."""
        if self._params is None:
            params = dict(self._load())
            if list(params) != list(self._keys):
                raise RuntimeError(f"deferred parameters {list(params)} do not match the registered names "
                                   f"{list(self._keys)}")
            self._params = params
        return self._params

    def __getitem__(self, key: str) -> Param:
        if key not in self._keys:
            raise KeyError(key)
        return self.resolved()[key]

    def __contains__(self, key: object) -> bool:
        return key in self._keys

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __len__(self) -> int:
        return len(self._keys)

    def __repr__(self) -> str:
        return f"DeferredParams({list(self._keys)!r})"


class _Form(NamedTuple):  # (NamedTuple: see Param)
    """One allowed combination of keys: all of ``required``, any of ``optional``."""

    required: tuple[str, ...]
    optional: tuple[str, ...] = ()

    @property
    def keys(self) -> frozenset[str]:
        return frozenset(self.required) | frozenset(self.optional)

    def usage(self, name: str) -> str:
        parts = [f"{k}=..." for k in self.required] + [f"[{k}=...]" for k in self.optional]
        return f"{name}({', '.join(parts)})"


class Entry(NamedTuple, Generic[T]):  # (NamedTuple: see Param)
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
        the spec are not passed, so the factory's own defaults apply. ``params`` may be
        :class:`DeferredParams` (names now, checks on first use).
        """
        params = params if isinstance(params, DeferredParams) else dict(params or {})
        key = self._new_key(name)
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
        key = self._new_key(name)

        def decorator(factory: Callable[[str], T]) -> Callable[[str], T]:
            self._entries[key] = Entry(key, factory, {}, (_Form(()),), (), summary, usage)
            return factory

        return decorator

    def _new_key(self, name: str) -> str:
        """``name`` in lower case, checked to be a valid name not registered yet."""
        key = name.lower()
        if not re.fullmatch(r"[a-z_][a-z0-9_]*", key):
            raise ValueError(f"invalid {self.kind} name {name!r}")
        if key in self._entries:
            raise ValueError(f"{self.kind} {key!r} is already registered")
        return key

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
            parser = Parser(text, self.kind)
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

    def _build(self, call: "Call") -> T:
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

        self.check_form(entry, set(values))
        kwargs = {k: entry.params[k].convert(k, num) for k, num in values.items()}
        return entry.factory(**kwargs)

    @staticmethod
    def check_form(entry: Entry[T], given: set[str]) -> None:
        """Raise ``ValueError`` (naming the entry's usage) unless the parameter names ``given`` fit one of
        ``entry``'s declared forms; used by :meth:`build` and by grammars layered on a registry
        (io/spec_training.py)."""
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
