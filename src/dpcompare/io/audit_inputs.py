"""Reading audit inputs from files: attack scores as ``.npy`` or text/``.csv`` (all parsing lives in io/).

>>> import os, tempfile, numpy as np
>>> d = tempfile.mkdtemp(); p = os.path.join(d, "s.csv")
>>> _ = open(p, "w").write("0.5, 1.5 2.5")
>>> load_scores("members", p).tolist()
[0.5, 1.5, 2.5]
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np


def load_scores(option: str, path: str) -> Any:
    """A 1-d float array from a .npy file (``allow_pickle=False``) or a text/.csv file (numbers separated by
    commas, spaces or new lines); ValueError naming ``option`` on any problem. NaN and emptiness are
    checked by :class:`~dpcompare.audit.Scores`."""
    if not os.path.isfile(path):
        raise ValueError(f"{option}: no such file {path!r}")
    try:
        if path.lower().endswith(".npy"):
            arr = np.load(path, allow_pickle=False)
        else:
            with open(path, encoding="utf-8") as fh:
                text = fh.read().replace(",", " ").split()
            arr = np.array([float(t) for t in text], dtype=float)
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        raise ValueError(f"{option}: cannot read {path!r} as numbers ({' '.join(str(exc).split())[:120]})") from None
    arr = np.asarray(arr)
    if arr.ndim == 2 and 1 in arr.shape:
        arr = arr.ravel()
    if not (np.issubdtype(arr.dtype, np.number) and not np.issubdtype(arr.dtype, np.complexfloating)):
        raise ValueError(f"{option}: {path!r} must hold real numbers, got dtype {arr.dtype}")
    return arr.astype(float)




def read_scores(members: str, nonmembers: str) -> Any:
    """:class:`~dpcompare.audit.Scores` from two files (see :func:`load_scores`)."""
    from ..audit import Scores

    return Scores(load_scores("members", members), load_scores("nonmembers", nonmembers))
