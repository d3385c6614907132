"""composition/randomized_response.py ``randomized_response_lattice`` / ``LatticePair.partition``: each cell's
charged relative error covers its stored masses against 50-digit mpmath (the k-ary randomized-response masses
1 − p + p/k, p/k, (k − 2)p/k at the double parameters)."""

from __future__ import annotations

import numpy as np
import pytest

from dpcompare.composition.randomized_response import randomized_response_lattice

mp = pytest.importorskip("mpmath", reason="mpmath is the independent truth")


@pytest.mark.parametrize(("p", "k"), [(0.999999, 10**6), (0.5, 10**6), (0.3, 3), (0.9, 2), (1e-6, 5)])
def test_lattice_cells_are_within_their_charged_error(p, k):
    lat = randomized_response_lattice(p, k)
    part = lat.partition(lat.unit)
    rel = np.broadcast_to(np.asarray(part.rel_err, dtype=float), part.log_p.shape)
    with mp.workdps(50):
        pp = mp.mpf(p)
        keep, other = mp.log(1 - pp + pp / k), mp.log(pp / k)
        want = [(keep, other)] + ([(mp.log((k - 2) * pp / k),) * 2] if k > 2 else []) + [(other, keep)]
        assert len(want) == part.log_p.size
        for i, (lp, lq) in enumerate(want):
            err = max(abs(mp.expm1(mp.mpf(float(part.log_p[i])) - lp)), abs(mp.expm1(mp.mpf(float(part.log_q[i])) - lq)))
            assert err <= rel[i], (p, k, i, float(err / 2.0**-53), float(rel[i] / 2.0**-53))
