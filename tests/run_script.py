"""Run a repository script (``benchmarks/``, ``examples/``) in a fresh process, as the smoke tests need it: the
working directory is the repository root and ``src`` comes first on PYTHONPATH, so the script imports the
dpcompare of this checkout (not whichever copy is installed), whatever directory pytest was started in.

>>> BENCHMARKS.name
'benchmarks'
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

#: the repository root (this file is ``tests/run_script.py``)
ROOT = Path(__file__).resolve().parents[1]
#: the benchmark scripts; absent when the tests run against an installed package without the repository
BENCHMARKS = ROOT / "benchmarks"

#: skip marker for a test that needs ``benchmarks/`` (absent beside an installed package)
needs_benchmarks = pytest.mark.skipif(not BENCHMARKS.exists(), reason="benchmarks/ not present (installed package)")


def run_script(script: str | Path, *args: object, timeout: float = 600) -> subprocess.CompletedProcess:
    """Run ``script`` (a path, or a file name under ``benchmarks/``) with ``args`` in a fresh interpreter;
    returns the finished process with its stdout and stderr as text."""
    path = Path(script)
    if not path.is_absolute():
        path = BENCHMARKS / path
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT / "src"), env.get("PYTHONPATH")) if p)
    return subprocess.run([sys.executable, str(path), *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT, env=env)
