"""The grammar of the spec language: text → a name and its ``key=value`` arguments (no meaning).

Grammar (whitespace anywhere between tokens; names and keys case-insensitive)::

    spec   := NAME [ "(" [ arg ("," arg)* ] ")" ]
    arg    := KEY "=" NUMBER            (mechanisms take keyword arguments only)
            | NUMBER                    (only where an entry declares positional keys, e.g. beta(a,b))
    NUMBER := [+-] ( digits [. digits] [e [+-] digits] | . digits [e …] | inf | infinity | nan )

A bare word is read as a value only for choice parameters (``sampling=poisson``). What a name and its
keys mean is the business of :mod:`dpcompare.io.spec_registry`; the public entry points are
:func:`dpcompare.io.spec.parse` and :func:`dpcompare.io.spec.parse_hyperprior`.

>>> call = Parser("Gaussian( sigma = 2, sensitivity=1 )", "mechanism").parse()
>>> call.name, [(k, n.value) for k, n in call.args]
('Gaussian', [('sigma', 2.0), ('sensitivity', 1.0)])
"""

from __future__ import annotations

import math
import re
from typing import Any, NamedTuple

__all__: list[str] = []  # internal to dpcompare.io (the parser behind Registry.parse)


# ---------------------------------------------------------------------------------------------- parser
class Number(NamedTuple):  # NamedTuple: 0.15 ms to define, a frozen dataclass 1 ms (CLI start-up)
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


class Call(NamedTuple):
    name: str
    args: tuple[tuple[str | None, Number], ...] = ()


_WS = re.compile(r"\s*")
_NAME = re.compile(r"[^\W\d]\w*")  # any Unicode identifier: `gaussian(μ=1)` is an unknown parameter, not a bad value
_NUMBER = re.compile(
    r"[+-]?(?:(?P<int>\d+(?:_\d+)*)(?P<frac>\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?"
    r"|[+-]?(?:infinity|inf|nan)",
    re.IGNORECASE,
)


class Parser:
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

    def _name(self, what: str) -> str:
        self._skip()
        m = _NAME.match(self.text, self.pos)
        if not m:
            raise ValueError(f"expected {what} {self._where()}")
        self.pos = m.end()
        return m.group(0)

    def _number(self, key: str | None) -> Number:
        self._skip()
        end = self.pos  # the value is everything up to the next ',' or ')'
        while end < len(self.text) and self.text[end] not in ",)":
            end += 1
        raw = self.text[self.pos:end].rstrip()
        m = _NUMBER.fullmatch(raw)
        if not m and _NAME.fullmatch(raw):  # a word value, for choice parameters
            self.pos += len(raw)
            return Number(raw, math.nan, False, word=True)
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
        return Number(text, value, integral)

    def parse(self) -> Call:
        return self.parse_args(self.parse_name())

    def parse_name(self) -> str:
        if not self.text.strip():
            raise ValueError(f"empty {self.kind} spec")
        return self._name(f"a {self.kind} name like gaussian(mu=1)")

    def parse_args(self, name: str) -> Call:
        args: list[tuple[str | None, Number]] = []
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
        return Call(name, tuple(args))

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

    def _arg(self) -> tuple[str | None, Number]:
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
