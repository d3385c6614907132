"""Public names of a package that load their submodule on first use (PEP 562 module ``__getattr__``).

A package keeps a table public name → submodule and binds the pair this module returns::

    __getattr__, __dir__ = lazy_module(__name__, _LAZY)

so that importing the package does not import the submodules (and their numpy/scipy) until a name is used.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_module"]


def lazy_module(package: str, table: Mapping[str, str]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``package``: a name in ``table`` is loaded from ``package.table[name]``.

    The loaded value is bound in the package's namespace, so the next lookup is a plain attribute;
    ``__dir__`` lists ``__all__`` and the names already bound.

    >>> import types, sys
    >>> pkg = types.ModuleType("lazy_demo")
    >>> sys.modules["lazy_demo"] = pkg
    >>> pkg.__getattr__, pkg.__dir__ = lazy_module("lazy_demo", {"sqrt": "math"})
    >>> pkg.missing
    Traceback (most recent call last):
    ...
    AttributeError: module 'lazy_demo' has no attribute 'missing'
    >>> del sys.modules["lazy_demo"]
    """

    def __getattr__(name: str) -> Any:
        try:
            module = table[name]
        except KeyError:
            raise AttributeError(f"module {package!r} has no attribute {name!r}") from None
        value = getattr(importlib.import_module(f".{module}", package), name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        namespace = vars(sys.modules[package])
        return sorted(set(namespace.get("__all__", ())) | set(namespace))

    return __getattr__, __dir__
