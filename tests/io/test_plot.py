"""dpcompare.io.plot and ``dpcompare plot``.

- every plot function renders for every mechanism kind, alone and against a reference, with every
  warning an error;
- what the figures show is what the library computes: ruler lengths and positions are Δ and π
  ([BCP] Cor 1, Figure 3), the shifted trade-off curve lies below the other one and touches it
  (Def 1, Thm 2 clause 1), the shaded ROC area is the AUC ([SI] eq 4.9), the weighted rulers
  are Δ^Ψ (§5);
- image comparison against reference PNGs in tests/io/baseline_images/test_plot with a tolerance
  (matplotlib.testing.compare.compare_images); regenerate them with
  ``DPCOMPARE_UPDATE_BASELINES=1 python -m pytest tests/io/test_plot.py -k image``;
- the CLI: exit 2 with one stderr line on bad input, no output file (or temporary file) left behind.
"""

from __future__ import annotations

import io
import math
import os
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

import dpcompare as dc
from dpcompare.io import cli
from dpcompare.io import plot as P
from dpcompare.io.spec import MECHANISMS
from reference_values import gauss_laplace_reference

matplotlib = pytest.importorskip("matplotlib")
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.testing.compare import compare_images  # noqa: E402

BASELINES = Path(__file__).parent / "baseline_images" / "test_plot"
UPDATE = os.environ.get("DPCOMPARE_UPDATE_BASELINES") == "1"
#: RMS tolerance (0–255 scale): absorbs anti-aliasing and small text-layout differences between
#: matplotlib releases; a moved curve, a missing ruler or a lost label exceeds it.
TOLERANCE = 4.0

GAUSS, LAP = dc.Gaussian(mu=1.0), dc.Laplace(b=1.0)
REF = dc.RandomizedResponse(eps=1.0)  # discrete: Δ against numeric kinds is an exact merge (fast)


# ---------------------------------------------------------------------------------------------- kinds
def _oracle():
    return dc.TradeoffOracle(lambda a: stats.norm.cdf(stats.norm.isf(a) - 1.0), name="gauss_oracle", points=512)


def _dpevent():
    from dp_accounting import dp_event

    from dpcompare.mechanisms.events import FromDpEvent

    # two Laplace steps: the dp-accounting PLD route (one Laplace step is now the exact dc.Laplace)
    return FromDpEvent(dp_event.SelfComposedDpEvent(dp_event.LaplaceDpEvent(noise_multiplier=2.0), 2),
                       discretization=1e-3)


#: One example of every mechanism class; ``sgm`` small so it composes in about a second.
KINDS = {
    "gaussian": lambda: dc.Gaussian(mu=0.7),
    "laplace": lambda: dc.Laplace(b=2.0),
    "rr": lambda: dc.RandomizedResponse(eps=math.log(1.5)),
    "puredp": lambda: dc.PureDP(eps=0.8),
    "approxdp": lambda: dc.ApproxDP(eps=0.5, delta=0.05),
    "pp": lambda: dc.PerfectlyPrivate(),
    "bnp": lambda: dc.BlatantlyNonPrivate(),
    "curve": lambda: dc.TradeoffCurve(alpha=[0, 0.1, 0.4, 1], beta=[1, 0.55, 0.25, 0]),
    "oracle": _oracle,
    "frompair": lambda: dc.FromPair(dc.RandomizedResponse(eps=1.0).pairs()[0], name="rr_pair"),
    "sgm": lambda: dc.parse("sgm(sigma=1, p=0.05, steps=20)"),
    "dpevent": _dpevent,
}

#: An example spec for the names of the spec language that KINDS does not cover, so mechanisms
#: registered later are drawn too.
SPEC_EXAMPLES = {
    "shuffle": "shuffle(eps0=1, n=100)",
    "shuffle_pair": "shuffle_pair(eps0=1, n=100)",
    "mixture": "mixture(0.5*rr(eps=1), 0.5*gaussian(mu=1))",
    "subsample": "subsample(gaussian(mu=1), w=0.1)",
    "random_init": "random_init(loss=clipped_least_squares, a=0.5, clip=1, sigma=1)",
    "compose": "compose(laplace(b=2), steps=5)",
}

_cache: dict[str, object] = {}


def kind(name: str):
    if name not in _cache:
        _cache[name] = KINDS[name]()
    return _cache[name]


def draw_png(fig: Figure, dpi: float = 40) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi)
    return buf.getvalue()


def all_plots(mechs, fig: Figure) -> None:
    """Every mechanism plot of the package on one figure (one Axes each, through ``ax=``); each Δ is
    computed once and shared through one explicit cache, as in the report."""
    axes = fig.subplots(2, 4).ravel()
    cache = P.DeltaCache()
    P.bayes_error(mechs, ax=axes[0], cache=cache)
    P.tradeoff(mechs, ax=axes[1], cache=cache)
    P.privacy_profile(mechs, ax=axes[2])
    P.roc(mechs, ax=axes[3])
    P.roc(mechs, ax=axes[4], log=True)
    if len(mechs) > 1:
        P.bayes_error_difference(mechs, ax=axes[5], cache=cache)
        P.weighted_bayes_error(mechs, "jeffreys", ax=axes[6], cache=cache)
        P.weighted_bayes_error(mechs, "uquadratic", ax=axes[7], rulers=False, cache=cache)


@pytest.mark.parametrize("name", sorted(KINDS))
def test_every_plot_renders_every_mechanism_kind_without_warnings(name):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m = kind(name)
        for mechs in ([m], [m, REF]):  # alone, and with both rulers / shifts against a reference
            fig = Figure(figsize=(12, 5))
            all_plots(mechs, fig)
            assert draw_png(fig)[:8] == b"\x89PNG\r\n\x1a\n"


#: spec names whose mechanism classes KINDS draws already
COVERED = {"gaussian", "laplace", "rr", "puredp", "approxdp", "pp", "bnp", "sgm"}


@pytest.mark.parametrize("name", sorted(set(MECHANISMS.names()) - COVERED))
def test_every_other_spec_name_renders(name):
    if name not in SPEC_EXAMPLES:
        pytest.skip(f"no example spec for {name!r} yet: add one to SPEC_EXAMPLES")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fig = Figure(figsize=(12, 5))
        all_plots([dc.parse(SPEC_EXAMPLES[name]), LAP], fig)
        draw_png(fig)
    assert fig.axes and all(ax.has_data() for ax in fig.axes)  # every panel drew something


def test_new_figures_are_returned_and_ax_is_honoured():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for fn in (P.bayes_error, P.tradeoff, P.privacy_profile, P.roc, P.bayes_error_difference, P.weighted_bayes_error):
            fig = fn([GAUSS, LAP])
            assert isinstance(fig, Figure) and len(fig.axes) >= 1
            host = Figure()
            ax = host.add_subplot()
            assert fn([GAUSS, LAP], ax=ax) is host
            draw_png(fig)
        assert isinstance(P.pareto([0.0, 0.1], [0.5, 0.6]), Figure)
        assert isinstance(P.sweep_heatmap(np.ones((2, 3)), [1, 2, 3], [1, 2]), Figure)


def test_plot_module_and_package_do_not_import_pyplot_or_matplotlib_eagerly():
    code = ("import sys, dpcompare; assert 'matplotlib' not in sys.modules, 'dpcompare imports matplotlib';"
            "import dpcompare.io.plot, dpcompare.io.report; assert 'matplotlib' not in sys.modules, 'plot imports matplotlib';"
            "import dpcompare as dc; dpcompare.io.plot.bayes_error([dc.Gaussian(mu=1), dc.Laplace(b=1)]);"
            "assert 'matplotlib.pyplot' not in sys.modules, 'pyplot was imported'")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    subprocess.run([sys.executable, "-c", code], check=True, env=env, timeout=120)


# ---------------------------------------------------------------------------------------------- content
def _rulers(ax):
    """The black two-point vertical bars of the Δ rulers: [(x, y_low, y_high)]."""
    out = []
    for line in ax.get_lines():
        x, y = np.asarray(line.get_xdata(), float), np.asarray(line.get_ydata(), float)
        if line.get_color() == "#000000" and x.size == 2 and x[0] == x[1] and line.get_marker() == "_":
            out.append((x[0], min(y), max(y)))
    return sorted(out)


def test_bayes_error_rulers_are_the_deltas_at_their_priors():
    # [BCP] Figure 3: Δ(Gauss‖Lap) = 0.00527 at π = ½, Δ(Lap‖Gauss) = 0.03414 at 1/(1+e)
    fig = P.bayes_error([GAUSS, LAP], labels=["Gauss", "Lap"])
    ax = fig.axes[0]
    (x1, lo1, hi1), (x2, lo2, hi2) = _rulers(ax)
    ref = gauss_laplace_reference()  # mpmath, tests/reference_values.py: 0.0341385 and 0.0052722
    assert x1 == pytest.approx(1 / (1 + math.e), abs=1e-9) and hi1 - lo1 == pytest.approx(ref.delta_lg, abs=1e-6)
    assert x2 == pytest.approx(0.5, abs=1e-9) and hi2 - lo2 == pytest.approx(ref.delta_gl, abs=1e-6)
    # each ruler spans exactly from the lower curve to the upper one
    assert hi1 == pytest.approx(float(LAP.bayes_error(x1))) and lo1 == pytest.approx(float(GAUSS.bayes_error(x1)))
    assert hi2 == pytest.approx(float(GAUSS.bayes_error(x2))) and lo2 == pytest.approx(float(LAP.bayes_error(x2)))
    texts = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "Δ(Gauss‖Lap) = 0.0053 at π ≈ 0.5" in texts and "Δ(Lap‖Gauss) = 0.034 at π ≈ 0.27" in texts
    assert ax.get_xlabel().startswith("prior π") and "R_{\\min}" in ax.get_ylabel()


def test_dominance_draws_no_ruler_and_says_which_dominates():
    fig = P.bayes_error([dc.Gaussian(mu=2), dc.Gaussian(mu=1)])
    ax = fig.axes[0]
    assert len(_rulers(ax)) == 1  # Δ(A‖B) = 0: A (μ = 2) is less private everywhere
    texts = [t.get_text().replace("\n", " ") for t in ax.get_legend().get_texts()]  # long entries are wrapped
    assert any(t.startswith("Δ(A‖B) ≈ 0") and t.endswith("B is nowhere more vulnerable than A (Thm 1)") for t in texts), texts


def test_tradeoff_shift_restores_dominance():
    # Def 1: κ = Δ(A‖B) is the smallest shift with f_A(α + κ) − κ ≤ f_B(α) for all α: the dashed
    # curve lies below f_B and touches it.
    fig = P.tradeoff([GAUSS, LAP])
    ax = fig.axes[0]
    shifted = [ln for ln in ax.get_lines() if "shifted" in ln.get_label()]
    assert len(shifted) == 2
    ref = gauss_laplace_reference()  # mpmath, tests/reference_values.py
    for ln, other, want in zip(shifted, (LAP, GAUSS), (ref.delta_gl, ref.delta_lg)):
        assert f"= {P._fmt(want)}" in ln.get_label()
        x, y = np.asarray(ln.get_xdata()), np.asarray(ln.get_ydata())
        keep = (x >= 0) & (x <= 1)
        gap = np.asarray(other.tradeoff(x[keep])) - y[keep]
        assert gap.min() > -1e-9 and gap.min() < 2e-3
    assert ax.get_xlabel() == r"Type I error $\alpha$" and "f(\\alpha)" in ax.get_ylabel()


def test_privacy_profile_is_on_a_log_axis_and_matches_delta():
    fig = P.privacy_profile([GAUSS, LAP, dc.PerfectlyPrivate()], points=[(1.0, 0.1)])
    ax = fig.axes[0]
    assert ax.get_yscale() == "log"
    line = next(ln for ln in ax.get_lines() if ln.get_label().startswith("A:"))
    x, y = np.asarray(line.get_xdata()), np.asarray(line.get_ydata())
    np.testing.assert_allclose(y, GAUSS.delta(x), rtol=1e-12)
    assert x.max() >= float(GAUSS.epsilon(1e-10))  # the range reaches δ = 1e-10
    lap = next(ln for ln in ax.get_lines() if ln.get_label().startswith("B:"))
    assert np.nanmin(lap.get_ydata()) < 1e-5  # the plunge of the Laplace profile near ε = 1 is drawn
    assert any("δ ≡ 0" in t.get_text() for t in ax.get_legend().get_texts())


def _polygon_area(collection) -> float:
    v = collection.get_paths()[0].vertices
    x, y = v[:, 0], v[:, 1]
    return 0.5 * abs(np.dot(x, np.roll(y, 1)) - np.dot(y, np.roll(x, 1)))


def test_roc_shades_the_auc():
    fig = P.roc([GAUSS])
    ax = fig.axes[0]
    areas = [_polygon_area(c) for c in ax.collections]
    want = stats.norm.cdf(1.0 / math.sqrt(2))  # [SI] eq 4.9: AUC = Φ(ψ/√2)
    assert any(abs(a - want) < 2e-4 for a in areas), (areas, want)
    assert any(f"AUC = {want:.3f}" in t.get_text() for t in ax.get_legend().get_texts())
    log = P.roc([GAUSS], log=True).axes[0]
    assert log.get_xscale() == "log" and log.get_yscale() == "log"
    dots = [ln for ln in log.get_lines() if ln.get_marker() == "o"][0]
    np.testing.assert_allclose(dots.get_ydata(), GAUSS.tpr(np.array([1e-3, 1e-2])), rtol=1e-12)


def test_weighted_rulers_are_weighted_deltas_and_the_inset_is_the_density():
    h = dc.UQuadratic()
    fig = P.weighted_bayes_error([GAUSS, LAP], h)
    ax = fig.axes[0]
    want = sorted([dc.delta_divergence(GAUSS, LAP, h), dc.delta_divergence(LAP, GAUSS, h)], key=lambda r: r.pi)
    got = _rulers(ax)
    assert len(got) == 2
    for (x, lo, hi), r in zip(got, want):
        assert x == pytest.approx(r.pi) and hi - lo == pytest.approx(r.value, rel=1e-9)
    inset = ax.child_axes
    assert len(inset) == 1
    line = inset[0].get_lines()[0]
    np.testing.assert_allclose(line.get_ydata(), h.density(line.get_xdata()))
    assert "UQuadratic" in ax.get_title(loc="left")


def test_difference_plot_levels_are_the_deltas():
    fig = P.bayes_error_difference([GAUSS, LAP])
    ax = fig.axes[0]
    levels = sorted(ln.get_ydata()[0] for ln in ax.get_lines() if ln.get_linestyle() == "--")
    ref = gauss_laplace_reference()  # mpmath, tests/reference_values.py: Δs 0.0341385, 0.0052722
    assert levels == pytest.approx([-ref.delta_lg, ref.delta_gl], abs=1e-6)
    crossings = sorted(ln.get_xdata()[0] for ln in ax.get_lines() if ln.get_linestyle() == ":")
    assert crossings == pytest.approx(list(ref.crossings), abs=1e-4)
    with pytest.raises(ValueError, match="at least two"):
        P.bayes_error_difference([GAUSS])


@given(st.lists(st.tuples(st.floats(0, 1), st.floats(0, 1)), min_size=1, max_size=12))
def test_pareto_efficient_points_are_exactly_the_undominated_ones(points):
    d, acc = np.array(points).T
    eff = P.pareto_efficient(d, acc)
    assert eff.any()
    for i in range(d.size):
        dominated = any(d[j] <= d[i] and acc[j] >= acc[i] and (d[j] < d[i] or acc[j] > acc[i]) for j in range(d.size))
        assert eff[i] == (not dominated)


def test_pareto_plot_marks_the_seed_000_figure_5_shape():
    # σ = 2 is the baseline (Δ = 0); Δ grows with σ; accuracy peaks at σ = 3: σ > 3 are inefficient
    sig = [2.0, 3.0, 4.0, 5.0, 6.0]
    d, acc = [0.0, 0.01, 0.02, 0.03, 0.04], [0.726, 0.79, 0.785, 0.77, 0.76]
    fig = P.pareto(d, acc, labels=[f"σ={s:g}" for s in sig], delta_bounds=(np.array(d) - 1e-3, np.array(d) + 1e-3))
    ax = fig.axes[0]
    assert list(P.pareto_efficient(d, acc)) == [True, True, False, False, False]
    hollow = next(ln for ln in ax.get_lines() if ln.get_label() == "not efficient")
    assert list(hollow.get_xdata()) == [0.02, 0.03, 0.04]
    assert "Delta" in ax.get_xlabel()
    with pytest.raises(ValueError, match="same length"):
        P.pareto([0.1], [0.2, 0.3])
    with pytest.raises(ValueError, match="lower <= delta <= upper"):
        P.pareto(d, acc, delta_bounds=(d, np.zeros(5)))


def test_heatmap_checks_its_arrays_and_leaves_nan_cells_grey():
    z = np.array([[0.01, np.nan, 0.03], [0.02, 0.05, 0.12]])
    fig = P.sweep_heatmap(z, [0.04, 0.2, 0.9], [534, 1500], log_x=True, xlabel="p̃", ylabel="Ñ", mark=(0.04, 534))
    ax = fig.axes[0]
    mesh = ax.collections[0]
    assert np.ma.is_masked(mesh.get_array()) and mesh.get_array().mask.sum() == 1
    assert [t.get_text() for t in ax.texts if t.get_text() not in ("$\\mathcal{M}$",)] == ["0.01", "0.03", "0.02", "0.05", "0.12"]
    for bad, msg in (
        (dict(values=np.ones((3, 3))), "shape"),
        (dict(x=[1, 3, 2]), "strictly monotone"),
        (dict(x=[0, 1, 2], log_x=True), "log axis"),
        (dict(values=np.full((2, 3), np.inf)), "finite or NaN"),
    ):
        kwargs = dict(values=np.ones((2, 3)), x=[1, 2, 3], y=[1, 2]) | bad
        with pytest.raises(ValueError, match=msg):
            P.sweep_heatmap(**kwargs)


def test_palette_is_colour_blind_safe():
    """Okabe–Ito colours stay apart under simulated protanopia, deuteranopia and tritanopia
    (Machado, Oliveira & Fernandes 2009, severity 1, applied in linear RGB)."""
    machado = {
        "protan": [[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216], [-0.003882, -0.048116, 1.051998]],
        "deutan": [[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413], [-0.011820, 0.042940, 0.968881]],
        "tritan": [[1.255528, -0.076749, -0.178779], [-0.078411, 0.930809, 0.147602], [0.004733, 0.691367, 0.303900]],
    }
    rgb = np.array([[int(c[i:i + 2], 16) / 255 for i in (1, 3, 5)] for c in P.PALETTE[:4]])
    lin = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    for name, m in machado.items():
        sim = np.clip(lin @ np.array(m).T, 0, 1)
        dist = [np.linalg.norm(sim[i] - sim[j]) for i in range(4) for j in range(i + 1, 4)]
        assert min(dist) > 0.08, (name, dist)


def test_fmt_and_labels():
    assert [P._fmt(x) for x in (0.0052722, 0.0341385, 1e-5, 0, 2.3e-11)] == ["0.0053", "0.034", "1e-5", "0", "2.3e-11"]
    with pytest.raises(ValueError, match="one entry per mechanism"):
        P.bayes_error([GAUSS, LAP], labels=["only one"])
    with pytest.raises(ValueError, match="unknown mechanism"):
        P.roc(["gauss(mu=1)"])


# ---------------------------------------------------------------------------------------------- images
IMAGES = {
    "figure3_bayes_error": lambda: P.bayes_error([dc.Gaussian(sigma=1.0), LAP], labels=["Gauss", "Lap"]),
    "figure2_tradeoff": lambda: P.tradeoff([GAUSS, LAP], labels=["Gauss", "Lap"]),
    "figure1_profile": lambda: P.privacy_profile([GAUSS, LAP, dc.RandomizedResponse(eps=1.0)], points=[(1.0, 0.1)]),
    "roc": lambda: P.roc([GAUSS, LAP]),
    "roc_log": lambda: P.roc([GAUSS, LAP], log=True),
    "figure4b_jeffreys": lambda: P.weighted_bayes_error([GAUSS, LAP], "jeffreys"),
    "figure4c_uquadratic": lambda: P.weighted_bayes_error([GAUSS, LAP], "uquadratic"),
    "difference": lambda: P.bayes_error_difference([GAUSS, LAP, dc.RandomizedResponse(eps=0.9)]),
    "pareto": lambda: P.pareto([0.0, 0.01, 0.02, 0.03], [0.726, 0.79, 0.785, 0.77], labels=["σ=2", "σ=3", "σ=4", "σ=5"]),
    "heatmap": lambda: P.sweep_heatmap(np.array([[0.0, 0.02, 0.05], [0.01, 0.04, 0.12]]), [0.04, 0.2, 0.9], [534, 1500],
                                       log_x=True, xlabel="sampling rate p̃", ylabel="steps Ñ", mark=(0.04, 534)),
}


@pytest.mark.parametrize("name", sorted(IMAGES))
def test_image_matches_baseline(name, tmp_path):
    actual = tmp_path / f"{name}.png"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        P.save(IMAGES[name](), actual, dpi=72)
    expected = BASELINES / f"{name}.png"
    if UPDATE:
        BASELINES.mkdir(parents=True, exist_ok=True)
        expected.write_bytes(actual.read_bytes())
        pytest.skip(f"baseline {expected.name} written")
    assert expected.exists(), f"missing baseline {expected}; run with DPCOMPARE_UPDATE_BASELINES=1"
    err = compare_images(str(expected), str(actual), tol=TOLERANCE)
    assert err is None, err


def test_image_comparison_detects_a_changed_figure(tmp_path):
    """The tolerance is not so loose that a different Δ passes: Laplace b = 1.2 instead of 1."""
    actual = tmp_path / "changed.png"
    P.save(P.bayes_error([dc.Gaussian(sigma=1.0), dc.Laplace(b=1.2)], labels=["Gauss", "Lap"]),
           actual, dpi=72)
    expected = BASELINES / "figure3_bayes_error.png"
    if not expected.exists():
        pytest.skip("baseline not generated yet")
    assert compare_images(str(expected), str(actual), tol=TOLERANCE) is not None


# ---------------------------------------------------------------------------------------------- save, CLI
def test_save_is_atomic_and_checks_the_suffix(tmp_path):
    target = tmp_path / "fig.svg"
    P.save(P.roc([GAUSS]), target)
    assert target.read_bytes().lstrip().startswith(b"<?xml") and b"<svg" in target.read_bytes()
    with pytest.raises(ValueError, match=r"\.png, \.svg or \.pdf"):
        P.save(P.roc([GAUSS]), tmp_path / "fig.jpg")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fig.svg"]
    assert P.render(P.roc([GAUSS]), "pdf")[:5] == b"%PDF-"


def run(capsys, *args):
    code = cli.main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(("kind", "suffix", "magic"), [("bayes", "png", b"\x89PNG"), ("tradeoff", "svg", b"<?xml"),
                                                      ("roc", "pdf", b"%PDF")])
def test_cli_plot_writes_the_file(capsys, tmp_path, kind, suffix, magic):
    out_path = tmp_path / f"f.{suffix}"
    code, out, err = run(capsys, "plot", kind, "gaussian(sigma=1)", "laplace(b=1)", "-o", str(out_path))
    assert code == 0, err
    assert out_path.read_bytes().startswith(magic)
    assert "wrote" in out and err == ""


def test_cli_plot_json_and_options(capsys, tmp_path):
    import json

    out_path = tmp_path / "w.png"
    code, out, err = run(capsys, "plot", "weighted", "gaussian(mu=1)", "laplace(b=1)", "--hyperprior", "beta(2, 2)",
                         "--label", "G", "--label", "L", "--dpi", "60", "-o", str(out_path), "--json")
    assert code == 0, err
    d = json.loads(out)
    assert out.count("\n") == 1 and d["output"] == str(out_path) and d["kind"] == "weighted" and d["bytes"] > 1000
    code, _, err = run(capsys, "plot", "roc", "gaussian(mu=1)", "--log", "-o", str(tmp_path / "r.png"))
    assert code == 0, err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["plot", "bayes", "gaussian(mu=1)", "-o", "{d}/x.jpg"], "-o must end in"),
        (["plot", "nope", "gaussian(mu=1)", "-o", "{d}/x.png"], "KIND"),
        (["plot", "bayes", "gauss(mu=1)", "-o", "{d}/x.png"], "unknown mechanism 'gauss'"),
        (["plot", "bayes", "gaussian(mu=-1)", "-o", "{d}/x.png"], "mu must be > 0"),
        (["plot", "bayes", "gaussian(mu=1)", "-o", "{d}/missing/x.png"], "does not exist"),
        (["plot", "difference", "gaussian(mu=1)", "-o", "{d}/x.png"], "at least two"),
        (["plot", "bayes", "gaussian(mu=1)", "--hyperprior", "jeffreys", "-o", "{d}/x.png"], "--hyperprior applies"),
        (["plot", "weighted", "gaussian(mu=1)", "pp()", "--hyperprior", "beta(0,1)", "-o", "{d}/x.png"], "a must be > 0"),
        (["plot", "bayes", "gaussian(mu=1)", "--log", "-o", "{d}/x.png"], "--log applies"),
        (["plot", "bayes", "gaussian(mu=1)", "--label", "a", "--label", "b", "-o", "{d}/x.png"], "--label"),
        (["plot", "bayes", "gaussian(mu=1)", "--dpi", "0", "-o", "{d}/x.png"], "--dpi"),
        (["plot", "bayes", "-o", "{d}/x.png"], "Missing argument"),
        (["plot", "bayes", "gaussian(mu=1)"], "-o"),
    ],
)
def test_cli_plot_user_errors_exit_2_with_one_line_and_no_file(capsys, tmp_path, args, message):
    code, out, err = run(capsys, *[a.replace("{d}", str(tmp_path)) for a in args])
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("error: ") and message in err, err
    assert list(tmp_path.iterdir()) == []


def test_cli_plot_does_not_touch_an_existing_file_when_it_fails(capsys, tmp_path, monkeypatch):
    target = tmp_path / "keep.png"
    target.write_bytes(b"old")

    def broken(*args, **kwargs):
        raise ValueError("simulated failure while drawing")

    monkeypatch.setattr(P, "bayes_error", broken)
    code, _, err = run(capsys, "plot", "bayes", "gaussian(mu=1)", "-o", str(target))
    assert code == 2 and "simulated failure" in err
    assert target.read_bytes() == b"old" and [p.name for p in tmp_path.iterdir()] == ["keep.png"]


def test_cli_plot_reports_a_failed_write_and_leaves_no_temporary_file(capsys, tmp_path, monkeypatch):
    def refuse(src, dst):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "replace", refuse)  # the rename at the end of the atomic write fails
    code, out, err = run(capsys, "plot", "roc", "gaussian(mu=1)", "-o", str(tmp_path / "x.png"))
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "cannot write" in err and "Permission denied" in err
    assert list(tmp_path.iterdir()) == []


def test_cli_kinds_are_the_python_figure_names():
    """``dpcompare plot KIND`` and ``plot.figure(KIND, …)`` take the same names, drawn by the same function."""
    from dpcompare.io import plot as P
    from dpcompare.io.cli.plotting import PlotKind

    assert [k.value for k in PlotKind] == list(P.KINDS)
    assert all(callable(getattr(P, name)) for name in P.KINDS.values()) and P.KINDS["bayes"] == "bayes_error"
    with pytest.raises(ValueError, match="kind must be one of bayes"):
        P.figure("histogram", ["gaussian(mu=1)"])
