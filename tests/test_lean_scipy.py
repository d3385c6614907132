"""The one-shot import hook of ``dpcompare._lean_scipy``: scipy loads without numpy's unused lazy
submodules, numpy is left exactly as it was, and nothing happens when scipy came first."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

_HEAVY = ("numpy.f2py", "numpy.testing")  # neither scipy nor dpcompare uses them


def _run(code: str) -> dict:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


_PROBE = """
import json, sys{first}
import dpcompare, numpy
all_before, dir_before = numpy.__all__, numpy.__dir__
from dpcompare import Gaussian
eps = Gaussian(mu=1).epsilon(1e-5)
import scipy.special, scipy.optimize, scipy.integrate, scipy.fft
from scipy._lib import array_api_compat
import scipy._lib.array_api_compat.numpy as xp
print(json.dumps({{
    "eps": eps,
    "ndtr": float(scipy.special.ndtr(1.0)),
    "heavy": [m for m in {heavy!r} if m in sys.modules],
    "numpy_same": numpy.__all__ is all_before and numpy.__dir__ is dir_before,
    "f2py_listed": "f2py" in dir(numpy) and "f2py" in numpy.__all__,
    "hook_left": any(type(h).__name__ == "_LeanNumpyClone" for h in sys.meta_path),
    "xp": [hasattr(xp, n) for n in ("asarray", "linalg", "fft", "typing", "float64", "isdtype")],
}}))
"""


def test_scipy_loads_without_numpys_unused_submodules() -> None:
    r = _run(_PROBE.format(first="", heavy=_HEAVY))
    assert r["heavy"] == []
    assert r["numpy_same"] and r["f2py_listed"]  # numpy is restored: the same __all__ and __dir__ objects
    assert not r["hook_left"]  # one shot
    assert all(r["xp"])  # scipy's compat namespace keeps what scipy uses from it
    assert r["ndtr"] == pytest.approx(0.8413447460685429, rel=1e-15)  # Φ(1), scipy's own value
    assert r["eps"] > 0


def test_scipy_imported_first_is_left_alone() -> None:
    r = _run(_PROBE.format(first="\nimport scipy.special", heavy=_HEAVY))
    assert "numpy.f2py" in r["heavy"]  # scipy's own import, unaffected
    assert not r["hook_left"]


def test_same_numbers_with_and_without_the_hook() -> None:
    code = ("import json{first}\nimport dpcompare as dc\n"
            "c = dc.compare(dc.Gaussian(mu=1), dc.Laplace(b=1))\n"
            "print(json.dumps([c.delta_ab.lower, c.delta_ab.upper, c.delta_ba.lower, c.delta_ba.upper]))")
    assert _run(code.format(first="")) == _run(code.format(first="\nimport scipy.special"))
