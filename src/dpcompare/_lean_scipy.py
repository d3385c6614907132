"""Import-time workaround: scipy ≥ 1.16 imports all of numpy's lazy submodules on first use.

Every scipy subpackage imports ``scipy._lib.array_api_compat.numpy``, which clones the numpy
namespace with ``from numpy import *`` and ``getattr(numpy, n) for n in dir(numpy)``. numpy ≥ 2
lists its lazily loaded submodules (``f2py``, ``testing``, ``random``, ``ma``, ``polynomial``, …) in
both ``__all__`` and ``__dir__``, so the clone imports them all: ~60–90 ms of a 0.4 s command-line run
(numpy.f2py alone pulls in charset_normalizer and the CJK codecs), none of which scipy or dpcompare use.

``install()`` adds a one-shot import hook. When (and only when) that compat module is first
imported, it runs with numpy's ``__all__`` and ``__dir__`` temporarily restricted to the names numpy
has already loaded, then restores both (the same objects, so numpy is unchanged afterwards). The only
difference left is that scipy's *private* compat namespace lacks the unloaded submodules; scipy itself
reaches them through ``numpy`` (``np.testing``, ``np.random``), never through that namespace. If scipy
was imported before dpcompare, or numpy/scipy change shape, the hook does nothing.
"""

from __future__ import annotations

import sys
from importlib.abc import MetaPathFinder
from importlib.machinery import ModuleSpec, PathFinder
from types import ModuleType
from typing import Any, Sequence

_TARGET = "scipy._lib.array_api_compat.numpy"


def _exec_with_lean_numpy(exec_module: Any, module: ModuleType) -> None:
    import numpy
    import numpy.typing  # noqa: F401  (the compat module imports it before cloning; keep it in the clone)

    full_all = numpy.__dict__.get("__all__")
    full_dir = numpy.__dict__.get("__dir__")
    if not isinstance(full_all, list) or not callable(full_dir):
        exec_module(module)
        return
    loaded = numpy.__dict__
    numpy.__all__ = [n for n in full_all if n in loaded]
    numpy.__dir__ = lambda: [n for n in full_dir() if n in loaded or n.startswith("_")]
    try:
        exec_module(module)
    finally:
        numpy.__all__ = full_all
        numpy.__dir__ = full_dir


class _LeanNumpyClone(MetaPathFinder):
    """Finds nothing itself; wraps the loader of scipy's numpy compat module once, then leaves."""

    def find_spec(self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
                  ) -> ModuleSpec | None:
        if fullname != _TARGET:
            return None
        uninstall()
        spec = PathFinder.find_spec(fullname, path)
        loader = getattr(spec, "loader", None)
        exec_module = getattr(loader, "exec_module", None)
        if spec is None or exec_module is None:
            return spec
        loader.exec_module = lambda module: _exec_with_lean_numpy(exec_module, module)  # type: ignore[union-attr]
        return spec


_HOOK = _LeanNumpyClone()


def install() -> None:
    """Add the one-shot hook unless scipy's compat namespace is already imported (idempotent)."""
    if _TARGET not in sys.modules and _HOOK not in sys.meta_path:
        sys.meta_path.insert(0, _HOOK)


def uninstall() -> None:
    """Remove the hook (it removes itself when it fires)."""
    while _HOOK in sys.meta_path:
        sys.meta_path.remove(_HOOK)
