"""Figures of the paper's views, one function per figure (matplotlib is imported lazily).

Every function returns the :class:`matplotlib.figure.Figure` it drew on and accepts ``ax=`` to draw
on an existing Axes instead of a new figure (no pyplot: figures are not registered globally, so
nothing leaks between calls). Mechanisms are given as mechanisms or spec strings; mechanism *i*
keeps colour ``PALETTE[i]`` in every figure. Numeric mechanisms draw their certified bracket as a
band (usually thinner than the line).

| function | shows | source |
| --- | --- | --- |
| :func:`bayes_error` | R_min(π) with the Δ "rulers" at their π | [BCP] §2 eq 2, Cor 1, Fig 3 |
| :func:`bayes_error_difference` | R_A(π) − R_B(π), its certified band, ±Δ, crossings | [BCP] Cor 1, eq 6 |
| :func:`tradeoff` | f(α) and f(α + κ) − κ with κ = Δ (Def 1) | [BCP] Def 1, Fig 2 |
| :func:`privacy_profile` | δ(ε) on a log axis, calibration points | [BCP] §1, Fig 1 |
| :func:`roc` | TPR = 1 − f(FPR) with the AUC shaded (or log–log) | [SI] eq 4.7, 4.9, Fig 3 |
| :func:`weighted_bayes_error` | Ψ(π)·R_min(π), Δ^Ψ rulers, density inset | [BCP] §5, Fig 4 |
| :func:`pareto` | accuracy against Δ, the efficient frontier | [BCP] §5, Fig 5 |
| :func:`sweep_heatmap` | a Δ (or any) grid over two parameters | [BCP] §5, Fig 6 |
| :func:`delta_heatmap` | pairwise Δ(X‖Y) of k mechanisms (instead of k crowded curves) | [BCP] Cor 1 |

:func:`figure` draws one by the command line's kind name (``dpcompare plot KIND`` and
``plot.figure(KIND, …)`` take the same names, :data:`KINDS`).

Labels: mechanism *i* is the letter A, B, C, … with its spec beside it in every legend; a Δ of 0 is
said in words ("B is nowhere more vulnerable than A"); annotations are moved apart after measuring
them, and a legend with more than six entries goes beside the axes, so no two labels overlap
(``tests/io/test_plot_layout.py``). The helpers live in ``_figure.py``, the grid figures in
``plot_grids.py``; this module re-exports every public name.

[BCP] = *Beyond the Calibration Point* (Kaissis et al., ICML 2024); [SI] = the sensitivity-index paper
(Kaissis et al., Journal of Privacy and Confidentiality).

Style: the Okabe–Ito palette (distinguishable under the common colour-vision deficiencies),
viridis for maps, black rulers, dashed shifted curves, the paper's symbols on every axis.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ._figure import (
    _GREY,
    _RULER,
    _ZERO,
    PALETTE,
    DeltaCache,
    _alpha_grid,
    _axes,
    _band,
    _color,
    _Crowd,
    _curves,
    _declutter,
    _legend,
    _delta_text,
    _deltas,
    _draw_rulers,
    _mechanisms,
    _pi_grid,
    _styled,
    render,
    save,
    style,
)
from .plot_grids import delta_heatmap, pareto, pareto_efficient, sweep_heatmap
from .render import short as _fmt

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from ..comparison.hyperprior import HyperPrior
    from ..mechanisms import Mechanism

__all__ = [
    "KINDS",
    "PALETTE",
    "DeltaCache",
    "bayes_error",
    "bayes_error_difference",
    "delta_heatmap",
    "figure",
    "pareto",
    "pareto_efficient",
    "prior_title",
    "privacy_profile",
    "render",
    "roc",
    "save",
    "style",
    "sweep_heatmap",
    "tradeoff",
    "weighted_bayes_error",
]


# ---------------------------------------------------------------------------------------------- Bayes error
@_styled
def bayes_error(mechanisms: Any, *, labels: Sequence[str] | None = None, ax: "Axes | None" = None,
                rulers: bool = True, cache: DeltaCache | None = None) -> "Figure":
    """Minimum Bayes error functions R_min(π) = min_α π·α + (1−π)·f(α) ([BCP] eq 2) of several
    mechanisms, with the Δ rulers of [BCP] Figure 3.

    For the first mechanism A and every other mechanism B both rulers are drawn where they are
    attained (Cor 1): Δ(A‖B) = max_π R_A(π) − R_B(π) as a bar from R_B up to R_A at its π, and
    Δ(B‖A) likewise; a Δ of 0 (dominance, Thm 1) has no ruler. The grey diagonal is perfect privacy,
    R = min(π, 1−π) (§3.4).

    >>> import dpcompare as dc
    >>> fig = bayes_error([dc.Gaussian(mu=1), dc.Laplace(b=1)], labels=["Gauss", "Lap"])
    >>> fig.axes[0].get_xlabel()
    'prior π of the adversary (belief in membership)'
    """
    mechs, names, legend = _mechanisms(mechanisms, labels)
    fig, ax = _axes(ax, (5.6, 4.0))
    pi = _pi_grid(mechs)
    ax.plot(pi, np.minimum(pi, 1 - pi), color=_GREY, linewidth=0.9, linestyle=":", label="perfect privacy min(π, 1−π)")
    _curves(ax, mechs, legend, pi, lambda m, x: m.bayes_error_bounds(x))
    if rulers and len(mechs) > 1:
        _draw_rulers(ax, mechs, names, None, cache)
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 0.55)
    ax.set_xlabel("prior π of the adversary (belief in membership)")
    ax.set_ylabel(r"minimum Bayes error $R_{\min}(\pi)$")
    _declutter(ax)
    _legend(ax, "best")
    return fig


@_styled
def bayes_error_difference(mechanisms: Any, *, labels: Sequence[str] | None = None,
                           ax: "Axes | None" = None, cache: DeltaCache | None = None) -> "Figure":
    """R_A(π) − R_k(π) for the first mechanism A and every other k, with its certified band, the
    levels +Δ(A‖k) and −Δ(k‖A) at their π ([BCP] Cor 1; Δ↔ = ‖R_A − R_k‖_∞, eq 6) and the priors
    where the Bayes error functions cross. It makes visible what a Δ of 1e-4 hides in
    :func:`bayes_error`.
    """
    from ..comparison import crossing_points

    mechs, names, legend = _mechanisms(mechanisms, labels)
    if len(mechs) < 2:
        raise ValueError("bayes_error_difference needs at least two mechanisms")
    fig, ax = _axes(ax, (5.6, 3.6))
    pi = _pi_grid(mechs)
    a_lo, a_hi = mechs[0].bayes_error_bounds(pi)
    ax.axhline(0.0, color=_GREY, linewidth=0.8)
    deltas = _deltas(mechs, names, None, cache)
    top = max([r.value for _, _, r in deltas] + [1e-12])
    crowd = _Crowd(0.25, 0.15 * top)
    for k in range(1, len(mechs)):
        c = _color(k)
        b_lo, b_hi = mechs[k].bayes_error_bounds(pi)
        d = 0.5 * (a_lo + a_hi) - 0.5 * (b_lo + b_hi)
        _band(ax, pi, a_lo - b_hi, a_hi - b_lo, c)
        ax.plot(pi, d, color=c, label=f"R of {names[0]} − R of {names[k]}", zorder=3)
        for i, j, r in deltas:
            if k not in (i, j) or r.value <= _ZERO:
                continue
            sign = 1.0 if i == 0 else -1.0
            ax.axhline(sign * r.value, color=c, linewidth=0.8, linestyle="--", zorder=2)
            ax.plot([r.pi], [sign * r.value], marker="o", color=c, markersize=4, zorder=4)
            step = 11 * crowd.near(r.pi, sign * r.value)  # points: stack labels that would collide
            ax.annotate(f"{'+' if sign > 0 else '−'}{_delta_text(names, i, j)} = {_fmt(r.value)}", xy=(r.pi, sign * r.value),
                        xytext=(4, 4 + step if sign > 0 else -10 - step), textcoords="offset points", fontsize=8, color=c)
        for x in crossing_points(mechs[0], mechs[k]):
            ax.axvline(x, color=c, linewidth=0.7, linestyle=":", zorder=2)
    ax.set_xlim(0, 1)
    top = max([r.value for _, _, r in deltas] + [1e-12])
    ax.set_ylim(-1.35 * top, 1.35 * top)
    ax.ticklabel_format(axis="y", style="sci", scilimits=(-3, 3))
    ax.set_xlabel("prior π of the adversary")
    ax.set_ylabel(r"difference of Bayes errors $R_{\min}(\pi) - \tilde{R}_{\min}(\pi)$")
    _declutter(ax)
    _legend(ax, "upper right")
    return fig


# ---------------------------------------------------------------------------------------------- trade-off
@_styled
def tradeoff(mechanisms: Any, *, labels: Sequence[str] | None = None, ax: "Axes | None" = None,
             shift: bool = True, cache: DeltaCache | None = None) -> "Figure":
    """Trade-off functions f(α) (Type II error of the most powerful test at Type I error α) and, with
    ``shift``, the κ-shift of [BCP] Def 1 that restores Blackwell dominance (Figure 2):
    f_A(α + κ) − κ with κ = Δ(A‖B) lies below f_B everywhere (Thm 2 clause 1), drawn dashed for the
    first mechanism A against every other B, and the other way round.
    """
    mechs, names, legend = _mechanisms(mechanisms, labels)
    fig, ax = _axes(ax, (4.6, 4.4))
    alpha = _alpha_grid(mechs)
    ax.plot([0, 1], [1, 0], color=_GREY, linewidth=0.9, linestyle=":", label="perfect privacy 1 − α")
    ax.plot([0, 1], [0, 1], color=_GREY, linewidth=0.5, linestyle="-", zorder=0)
    ys = _curves(ax, mechs, legend, alpha, lambda m, x: m.tradeoff_bounds(x))
    if shift and len(mechs) > 1:
        for i, j, r in _deltas(mechs, names, None, cache):
            kappa = r.value
            if kappa <= _ZERO:
                continue
            ax.plot(alpha - kappa, ys[i] - kappa, color=_color(i), linestyle=(0, (4, 2)), linewidth=1.2, zorder=2,
                    label=f"{names[i]} shifted by κ = Δ({names[i]}‖{names[j]}) = {_fmt(kappa)}")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_aspect("equal")
    ax.set_xlabel(r"Type I error $\alpha$")
    ax.set_ylabel(r"Type II error $\beta = f(\alpha)$")
    _legend(ax, "upper right")
    return fig


# ---------------------------------------------------------------------------------------------- privacy profile
def _eps_grid(mechs: Sequence["Mechanism"], eps_max: float, n: int = 600) -> np.ndarray:
    """A uniform grid, refined geometrically towards the ε where a profile falls to exactly 0 (the end
    of its support, found by bisection), so the log axis shows the plunge."""
    eps = np.linspace(0.0, eps_max, n)
    extra = []
    for m in mechs:
        d = np.asarray(m.delta(eps), dtype=float)
        for k in np.flatnonzero((d[1:] <= 0) & (d[:-1] > 0)):
            a, b = float(eps[k]), float(eps[k + 1])
            for _ in range(60):
                mid = 0.5 * (a + b)
                if mid in (a, b):
                    break
                a, b = (mid, b) if float(m.delta(mid)) > 0 else (a, mid)
            extra.append(a - (a - eps[k]) * np.logspace(-12, 0, 80))
            extra.append([a, b])
    return np.unique(np.concatenate([eps, *extra])) if extra else eps


@_styled
def privacy_profile(mechanisms: Any, *, labels: Sequence[str] | None = None, ax: "Axes | None" = None,
                    eps_max: float | None = None, delta_min: float = 1e-10,
                    points: Sequence[tuple[float, float]] = ()) -> "Figure":
    """Privacy profiles δ(ε) = H_{e^ε}(P‖Q) on a log δ axis ([BCP] §1, Figure 1).

    ``points`` marks (ε, δ) calibration points (Figure 1: two SGMs that share (4, 0.08)). The ε
    range is chosen so every profile reaches ``delta_min`` unless ``eps_max`` is given. A
    profile that is 0 everywhere (perfect privacy) has no point on a log axis; its legend says so.
    """
    from .._validation import check_in_interval, check_nonnegative, check_positive

    mechs, names, legend = _mechanisms(mechanisms, labels)
    delta_min = check_in_interval("delta_min", delta_min, 0.0, 1.0, low_open=True, high_open=True)
    if eps_max is None:  # where each profile reaches delta_min (or the smallest δ it reaches at all)
        ends = []
        for m in mechs:
            for level in (delta_min, 1e-8, 1e-6, 1e-4, 1e-2):
                e = float(m.epsilon(max(level, delta_min)))
                if math.isfinite(e):
                    ends.append(e)
                    break
        eps_max = min(max([1.0, *ends]) * 1.1, 60.0)
    eps_max = check_positive("eps_max", eps_max)
    for e, d in points:
        check_nonnegative("points epsilon", e)
        check_in_interval("points delta", d, 0.0, 1.0)
    fig, ax = _axes(ax, (5.6, 4.0))
    ax.set_yscale("log")
    ax.set_xlim(0, eps_max)
    ax.set_ylim(delta_min, 2.0)
    eps = _eps_grid(mechs, eps_max)
    floor = delta_min * 1e-3
    for i, (m, lab) in enumerate(zip(mechs, legend)):
        lo, hi = (np.asarray(v, dtype=float) for v in m.delta_bounds(eps))
        shown = hi > 0
        if not np.any(shown):
            ax.plot([], [], color=_color(i), label=f"{lab} (δ ≡ 0: not on a log axis)")
            continue
        _band(ax, eps[shown], np.maximum(lo[shown], floor), hi[shown], _color(i))
        ax.plot(eps, np.where(shown, hi, np.nan), color=_color(i), label=lab, zorder=3)
    for e, d in points:
        ax.plot([e], [d], marker="*", markersize=11, color=_RULER, linestyle="none", zorder=5)
        ax.annotate(f"({_fmt(e, 3)}, {_fmt(d, 3)})", xy=(e, d), xytext=(6, 6), textcoords="offset points", fontsize=8)
    ax.set_xlabel(r"$\varepsilon$")
    ax.set_ylabel(r"$\delta(\varepsilon)$")
    _legend(ax, "upper right")
    return fig


# ---------------------------------------------------------------------------------------------- ROC
@_styled
def roc(mechanisms: Any, *, labels: Sequence[str] | None = None, ax: "Axes | None" = None, shade: bool = True,
        log: bool = False, fpr_marks: Sequence[float] = (1e-3, 1e-2)) -> "Figure":
    """ROC curves of the best membership-inference test, TPR = 1 − f(FPR) ([SI] eq 4.7), with the
    area under each curve shaded and stated in the legend (AUC; Φ(ψ/√2) for the Gaussian, eq 4.9).

    ``log=True`` draws log–log axes for the low-FPR regime (Carlini et al. 2022) and marks the TPR at
    each of ``fpr_marks``; the area is then not shaded (it is not an area on those axes).
    """
    mechs, names, legend = _mechanisms(mechanisms, labels)
    fig, ax = _axes(ax, (4.6, 4.4))
    if log:
        lo_fpr = min([1e-6, *[float(x) for x in fpr_marks if x > 0]])
        fpr = np.unique(np.concatenate([np.logspace(math.log10(lo_fpr), 0, 601), np.asarray(fpr_marks, dtype=float)]))
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlim(lo_fpr, 1)
        ax.set_ylim(lo_fpr, 1.3)
    else:
        fpr = _alpha_grid(mechs)
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1.005)
        ax.set_aspect("equal")
    ax.plot([fpr[0], 1], [fpr[0], 1], color=_GREY, linewidth=0.9, linestyle=":", label="chance (AUC = 0.5)")
    for i, (m, lab) in enumerate(zip(mechs, legend)):
        f_lo, f_hi = (np.asarray(v, dtype=float) for v in m.tradeoff_bounds(fpr))
        tpr, tpr_lo = 1.0 - f_lo, 1.0 - f_hi
        c = _color(i)
        if shade and not log:
            ax.fill_between(fpr, 0, tpr, color=c, alpha=0.08, linewidth=0, zorder=1)
        _band(ax, fpr, tpr_lo, tpr, c)
        ax.plot(fpr, tpr, color=c, label=f"{lab} (AUC = {m.auc:.3f})", zorder=3)
        if log:
            marks = np.asarray([x for x in fpr_marks if 0 < x <= 1], dtype=float)
            t = 1.0 - np.asarray(m.tradeoff(marks), dtype=float)
            ax.plot(marks, t, linestyle="none", marker="o", markersize=4, color=c, zorder=4)
    if log:
        for x in fpr_marks:
            ax.axvline(x, color=_GREY, linewidth=0.6, linestyle="--", zorder=0)
    ax.set_xlabel(r"false positive rate FPR $= \alpha$")
    ax.set_ylabel(r"true positive rate TPR $= 1 - f(\alpha)$")
    _legend(ax, "lower right" if not log else "upper left")
    return fig


# ---------------------------------------------------------------------------------------------- hyper-prior
def prior_title(h: "HyperPrior") -> str:
    """How a hyper-prior is named in figures: "Jeffreys Beta(½, ½)", "UQuadratic[0, 1]", "beta(2,3)"."""
    name = getattr(h, "name", "hyper-prior")
    return {"jeffreys": "Jeffreys Beta(½, ½)", "uquadratic": "UQuadratic[0, 1]"}.get(name, name)


@_styled
def weighted_bayes_error(mechanisms: Any, hyperprior: Any = "jeffreys", *, labels: Sequence[str] | None = None,
                         ax: "Axes | None" = None, rulers: bool = True, inset: bool = True,
                         cache: DeltaCache | None = None) -> "Figure":
    """Hyper-prior weighted Bayes errors R^Ψ(π) = Ψ(π)·R_min(π) ([BCP] §5, Figure 4) with the
    weighted rulers Δ^Ψ(A‖B) = max_π Ψ(π)(R_A(π) − R_B(π)) at their π, and the density Ψ in an inset.

    ``hyperprior``: a HyperPrior, a density callable, or 'jeffreys' | 'uquadratic' | 'beta(a,b)'.
    """
    from ..comparison.hyperprior import as_hyperprior
    from .spec import parse_hyperprior

    mechs, names, legend = _mechanisms(mechanisms, labels)
    h = parse_hyperprior(hyperprior) if isinstance(hyperprior, str) else as_hyperprior(hyperprior)
    if h is None:
        raise ValueError("hyperprior must be given (jeffreys, uquadratic, beta(a,b), a HyperPrior or a density)")
    fig, ax = _axes(ax, (5.6, 4.0))
    pi = _pi_grid(mechs)
    inner = (pi > 0) & (pi < 1)

    def weigh(v: np.ndarray) -> np.ndarray:
        out = np.zeros_like(v)  # R(0) = R(1) = 0 and R ≤ min(π, 1−π): the weighted curve ends at 0
        with np.errstate(all="ignore"):
            out[inner] = v[inner] * h.density(pi[inner])
        return out

    _curves(ax, mechs, legend, pi, lambda m, x: m.bayes_error_bounds(x), transform=weigh)
    if rulers and len(mechs) > 1:
        _draw_rulers(ax, mechs, names, h, cache)
    ymax = max([float(np.nanmax(line.get_ydata())) for line in ax.get_lines() if len(line.get_ydata())] + [1e-12])
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.75 * ymax)
    ax.set_xlabel("prior π of the adversary")
    ax.set_ylabel(r"weighted Bayes error $\Psi(\pi)\,R_{\min}(\pi)$")
    ax.set_title(f"hyper-prior Ψ: {prior_title(h)}", loc="left")
    _declutter(ax)
    _legend(ax, "upper left")  # the inset takes the upper right
    if inset:
        sub = ax.inset_axes([0.79, 0.73, 0.2, 0.22])
        x = np.linspace(1e-3, 1 - 1e-3, 400)
        with np.errstate(all="ignore"):
            d = np.asarray(h.density(x), dtype=float)
        d = np.where(np.isfinite(d), d, np.nan)
        sub.plot(x, d, color=_RULER, linewidth=1.0)
        sub.fill_between(x, 0, np.nan_to_num(d), color=_GREY, alpha=0.25, linewidth=0)
        top = float(np.nanpercentile(d, 97)) if np.any(np.isfinite(d)) else 1.0
        sub.set_xlim(0, 1)
        sub.set_ylim(0, max(1.15 * top, 1e-12))
        sub.set_xticks([0, 0.5, 1])
        sub.tick_params(labelsize=6, length=2)
        sub.set_title("Ψ(π)", fontsize=7, pad=2)
        sub.grid(False)
    return fig


# ---------------------------------------------------------------------------------------------- by kind
#: The figure kinds of ``dpcompare plot KIND``, each the name of the function in this module that draws it:
#: one name per figure for the command line and for Python (``plot.figure("roc", …)`` is ``plot.roc(…)``).
KINDS: dict[str, str] = {
    "bayes": "bayes_error",
    "difference": "bayes_error_difference",
    "tradeoff": "tradeoff",
    "profile": "privacy_profile",
    "roc": "roc",
    "weighted": "weighted_bayes_error",
    "heatmap": "delta_heatmap",
}


def figure(kind: str, mechanisms: Any, **options: Any) -> "Figure":
    """Draw the figure of ``kind`` — the command line's names (:data:`KINDS`: bayes, difference, tradeoff,
    profile, roc, weighted, heatmap) — with the options of the function that draws it.

    >>> import dpcompare as dc
    >>> fig = figure("roc", [dc.Gaussian(mu=1), dc.Laplace(b=1)], log=True)
    >>> type(fig).__name__
    'Figure'
    """
    try:
        name = KINDS[str(kind).lower()]
    except KeyError:
        raise ValueError(f"kind must be one of {', '.join(KINDS)}, got {kind!r}") from None
    return globals()[name](mechanisms, **options)
