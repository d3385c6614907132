"""``import dpcompare`` changes nothing outside dpcompare: no import hook, numpy untouched, no IPython
formatter, a plain module whose ``dir`` is the public API; ``dpcompare.compare`` is the function."""

from __future__ import annotations

import subprocess
import sys
import types

_PROBE = """
import sys
hooks = list(sys.meta_path)
import numpy
all_before, dir_before = list(numpy.__all__), numpy.__dir__
import dpcompare as dc
assert sys.meta_path == hooks, sys.meta_path
assert numpy.__all__ == all_before and numpy.__dir__ is dir_before
assert type(sys.modules["dpcompare"]) is type(sys), type(sys.modules["dpcompare"])
assert "scipy" not in sys.modules and "dp_accounting" not in sys.modules
import dpcompare.accounting
assert "dp_accounting" not in sys.modules
print("ok")
"""


def test_import_leaves_the_interpreter_alone():
    out = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "ok"


def test_dir_is_the_public_api_and_compare_is_the_function():
    import dpcompare as dc
    import dpcompare.comparison  # noqa: F401  (importing the subpackage must not rebind dc.compare)

    assert dir(dc) == sorted(dc.__all__)
    assert "sys" not in dir(dc) and "importlib" not in dir(dc)
    assert isinstance(dc.compare, types.FunctionType)
    assert dc.compare(dc.Gaussian(mu=1), dc.Laplace(b=1)).verdict == "incomparable"


def test_clear_caches_empties_the_composition_caches():
    import dpcompare as dc
    from dpcompare.composition import closed_form

    closed_form.compose_laplace(1.0, 2)
    assert closed_form.compose_laplace.cache_info().currsize >= 1
    assert dc.clear_caches() >= 2
    assert closed_form.compose_laplace.cache_info().currsize == 0


def test_clear_caches_knows_every_module_level_cache():
    """Every module-level ``functools`` cache of the package is listed in ``_caches.CACHED``, so that
    ``clear_caches()`` really empties them all (a cache added without registering it fails here)."""
    import importlib
    import pkgutil

    import dpcompare
    from dpcompare._caches import CACHED

    found = set()
    for info in pkgutil.walk_packages(dpcompare.__path__, "dpcompare."):
        if info.name.endswith("__main__"):  # running it would run the CLI
            continue
        try:
            mod = importlib.import_module(info.name)
        except ImportError:  # an optional extra (opacus, dask) that is not installed
            continue
        for name, obj in vars(mod).items():
            if callable(getattr(obj, "cache_clear", None)) and getattr(obj, "__module__", None) == info.name:
                found.add((info.name.removeprefix("dpcompare."), name))
    listed = {(m, n) for m, names in CACHED.items() for n in names}
    assert found - listed == set(), "caches missing from CACHED"
    assert listed - found == set(), "CACHED names that are not caches"
