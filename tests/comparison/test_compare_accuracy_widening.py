"""With a hyper-prior and ``accuracy``, ``compare`` reads the unweighted Δ on the grids chosen for
Δ^Ψ (``delta_accuracy(...).mechanisms``), so its brackets must be widened by *those* mechanisms' η, not by the
default grids' (a finer composition carries a larger η: 3.0e-11 on 0.14·h₀ against 6.7e-12 on h₀ for
SGM(1, 0.2, 2) beside Laplace(4)). Each Δ bracket ``compare`` returns contains the sweep's outcome widened by
η(chosen grids) on both ends (``delta.widen``). A merge that widened by the default mechanisms' η
(``widening(a, b)``) while sweeping the chosen ones would return brackets up to η(chosen) − η(default) too narrow
at each end: uncertified.
"""

from dpcompare.comparison import comparison
from dpcompare.comparison.delta import widening
from dpcompare.comparison.hyperprior import BetaPrior
from dpcompare.mechanisms import Laplace
from dpcompare.mechanisms.sgm import SubsampledGaussian


def test_compare_widens_by_the_chosen_grids_eta(monkeypatch):
    a, b = SubsampledGaussian(1.0, 0.2, 2), Laplace(b=4.0)  # b closed form: Δ is read off the sweep's outcomes
    chosen, swept = [], []  # what compare chose and swept (recorded from its own calls, not repeated)
    real_accuracy, real_sweep = comparison.delta_accuracy, comparison.sweep

    def recording_accuracy(*args, **kwargs):
        out = real_accuracy(*args, **kwargs)
        if kwargs.get("hyperprior") is not None:
            chosen.append(out)
        return out

    def recording_sweep(ma, mb, targets, **kwargs):
        grid, outs = real_sweep(ma, mb, targets, **kwargs)
        swept.append((ma, mb, outs))
        return grid, outs

    monkeypatch.setattr(comparison, "delta_accuracy", recording_accuracy)
    monkeypatch.setattr(comparison, "sweep", recording_sweep)
    c = comparison.compare(a, b, hyperprior=BetaPrior(2.0, 3.0), accuracy=1e-7)
    assert len(chosen) == 1 and len(swept) == 1
    ma, mb, outs = swept[0]
    assert (ma, mb) == chosen[0].mechanisms  # the sweep runs on the chosen grids
    eta = widening(ma, mb)
    assert eta > 2.0 * widening(a, b)  # the case this test is about: the chosen grid is finer, its η larger
    for r, o in ((c.delta_ab, outs[0]), (c.delta_ba, outs[1])):
        assert r.lower <= max(0.0, o.lower - eta) and r.upper >= o.upper + eta, (r, o.lower, o.upper, eta)
