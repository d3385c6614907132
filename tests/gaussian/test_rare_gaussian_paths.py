"""Rarely reached paths of the ψ views: scalar-only arguments and the cited RDP conversions ([SI] §6)."""

from __future__ import annotations

import numpy as np
import pytest

import dpcompare as dc


# ---------------------------------------------------------------------------------------------- gaussian views
def test_gaussian_views_mechanism_and_tangent_rejects_arrays():
    import dpcompare.gaussian as dg

    v = dg.views(psi=1.5)
    assert v.mechanism == dc.Gaussian(mu=1.5)
    with pytest.raises(ValueError, match="psi must be a single number"):
        dg.mechanism(np.array([1.0, 2.0]))
    with pytest.raises(ValueError, match="psi must be a single number"):
        dg.tangent(np.array([1.0, 2.0]), 1.0)
    with pytest.raises(ValueError, match="eps must be a single number"):
        dg.tangent(1.0, np.array([1.0, 2.0]))


def test_rdp_conversions_cite_their_corollaries():
    from dpcompare.gaussian.rdp import Conversion

    # [SI] §6: Cor 11 (Mironov), Cor 12 (improved A, Asoodeh et al.), Cor 13 (improved B, Balle et al.)
    assert [c.citation.split(" (")[0].split(",")[0] for c in Conversion] == ["Cor 11", "Cor 12", "Cor 13"]
    assert "Mironov" in Conversion.STANDARD.citation and "Asoodeh" in Conversion.ASOODEH.citation
    assert "Balle" in Conversion.BALLE.citation
