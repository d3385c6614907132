"""``dpcompare._malloc.retain_freed_memory``: accepted by glibc, and a measurable change of the allocator
(a kept array of 1 MB is served from the heap, not by a fresh mmap); opt-in only (DPCOMPARE_TUNE_MALLOC=1)."""

from __future__ import annotations

import platform
import subprocess
import sys

import pytest

glibc = pytest.mark.skipif(platform.system() != "Linux" or platform.libc_ver()[0] != "glibc", reason="glibc only")

_PROBE = """
import ctypes, sys
{setup}
import numpy as np
# bytes in the heap (mallinfo2().arena) before and after allocating a kept 1 MB array: fresh mmap
# chunks are not part of the arena, heap chunks are
class MI(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in "arena ordblks smblks hblks hblkhd usmblks fsmblks uordblks fordblks keepcost".split()]
libc = ctypes.CDLL(None); libc.mallinfo2.restype = MI
before = libc.mallinfo2().hblks
x = np.ones(1 << 17)
print(libc.mallinfo2().hblks - before)
"""


def _mmapped_blocks(setup: str) -> int:
    out = subprocess.run([sys.executable, "-c", _PROBE.format(setup=setup)], capture_output=True, text=True, check=True)
    return int(out.stdout.split()[-1])


@glibc
def test_large_arrays_come_from_the_heap_after_the_setting() -> None:
    assert _mmapped_blocks("") == 1  # glibc's default: a 1 MB array is a fresh mmap
    assert _mmapped_blocks("from dpcompare._malloc import retain_freed_memory\nassert retain_freed_memory()") == 0


@glibc
def test_importing_dpcompare_leaves_the_allocator_alone() -> None:
    assert _mmapped_blocks("import dpcompare, dpcompare.mechanisms") == 1


@glibc
def test_tuning_is_opt_in() -> None:
    """Without DPCOMPARE_TUNE_MALLOC=1 the entry points' call changes nothing; with it, the setting applies."""
    call = "from dpcompare._malloc import retain_freed_memory_if_asked as f\nassert {}f()"
    assert _mmapped_blocks("import os; os.environ.pop('DPCOMPARE_TUNE_MALLOC', None)\n" + call.format("not ")) == 1
    assert _mmapped_blocks("import os; os.environ['DPCOMPARE_TUNE_MALLOC'] = '1'\n" + call.format("")) == 0
