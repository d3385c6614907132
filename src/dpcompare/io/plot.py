"""Figures of the paper's views, one function per figure (matplotlib is imported lazily).

Every function returns the :class:`matplotlib.figure.Figure` it drew on and accepts ``ax=`` to draw
on an existing Axes instead of a new figure (no pyplot: figures are not registered globally, so
nothing leaks between calls). Mechanisms are given as mechanisms or spec strings; mechanism *i*
keeps colour ``PALETTE[i]`` in every figure. Numeric mechanisms draw their certified bracket as a
band (usually thinner than the line).

| function | shows | source |
| --- | --- | --- |
| :func:`bayes_error` | R_min(π) with the Δ "rulers" at their π | seed 000 §2 eq 2, Cor 1, Fig 3 |
| :func:`bayes_error_difference` | R_A(π) − R_B(π), its certified band, ±Δ, crossings | seed 000 Cor 1, eq 6 |
| :func:`tradeoff` | f(α) and f(α + κ) − κ with κ = Δ (Def 1) | seed 000 Def 1, Fig 2 |
| :func:`privacy_profile` | δ(ε) on a log axis, calibration points | seed 000 §1, Fig 1 |
| :func:`roc` | TPR = 1 − f(FPR) with the AUC shaded (or log–log) | seed 001 eq 4.7, 4.9, Fig 3 |
| :func:`weighted_bayes_error` | Ψ(π)·R_min(π), Δ^Ψ rulers, density inset | seed 000 §5, Fig 4 |
| :func:`pareto` | accuracy against Δ, the efficient frontier | seed 000 §5, Fig 5 |
| :func:`sweep_heatmap` | a Δ (or any) grid over two parameters | seed 000 §5, Fig 6 |

Style: the Okabe–Ito palette (distinguishable under the common colour-vision deficiencies),
viridis for maps, black rulers, dashed shifted curves, the paper's symbols on every axis.
"""

from __future__ import annotations

import contextlib
import io
import math
import os
import re
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from ..compare.hyperprior import HyperPrior
    from ..mechanisms import Mechanism

__all__ = [
    "PALETTE",
    "bayes_error",
    "bayes_error_difference",
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

#: Okabe & Ito (2008) colour-blind-safe palette: blue, vermillion, bluish green, reddish purple,
#: orange, sky blue, black (yellow left out: too light on white).
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000")
_GREY = "#7F7F7F"
_RULER = "#000000"
_RC = {
    "font.size": 9.0,
    "axes.titlesize": 10.0,
    "axes.labelsize": 9.0,
    "legend.fontsize": 8.0,
    "legend.frameon": False,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "grid.linewidth": 0.5,
    "lines.linewidth": 1.8,
    "image.cmap": "viridis",
    "svg.fonttype": "path",  # text as paths: an SVG needs no font to look the same everywhere
    "svg.hashsalt": "dpcompare",  # reproducible ids
    "savefig.dpi": 150,
}
_FORMATS = ("png", "svg", "pdf")
_MAX_KINKS = 5000  # add a discrete mechanism's kinks to the plotting grid up to this many atoms
_ZERO = 1e-9  # a Δ at or below this counts as 0 (dc.compare's default tolerance): no ruler, no shift
_DRAW_TOL = 1e-10  # bracket width of the Δ a figure computes for itself (far below what a figure shows)


# ---------------------------------------------------------------------------------------------- helpers
@contextlib.contextmanager
def style() -> Iterator[None]:
    """The package style as a matplotlib ``rc_context`` (used by every function and by :func:`save`)."""
    import matplotlib

    with matplotlib.rc_context(_RC):
        yield


def _styled(func: Callable[..., Any]) -> Callable[..., Any]:
    import functools

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with style():
            return func(*args, **kwargs)

    return wrapper


def _axes(ax: "Axes | None", figsize: tuple[float, float]) -> tuple["Figure", "Axes"]:
    if ax is not None:
        get = getattr(ax, "get_figure", None)
        try:
            fig = get(root=True) if get is not None else ax.figure
        except TypeError:  # matplotlib < 3.10
            fig = ax.figure
        return fig, ax
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize, layout="constrained")
    return fig, fig.add_subplot()


def _mechanisms(mechanisms: Any, labels: Sequence[str] | None) -> tuple[list["Mechanism"], list[str], list[str]]:
    """(mechanisms, short names for Δ(·‖·), legend entries). Names are A, B, … unless labels are given."""
    from ..mechanisms import Mechanism
    from .spec import parse

    if isinstance(mechanisms, (Mechanism, str)):
        mechanisms = [mechanisms]
    mechs = [parse(m) if isinstance(m, str) else m for m in mechanisms]
    if not mechs:
        raise ValueError("mechanisms must name at least one mechanism")
    for m in mechs:
        if not isinstance(m, Mechanism):
            raise ValueError(f"mechanisms must be dpcompare mechanisms or spec strings, got {type(m).__name__}")
    if labels is None:
        names = [_letter(i) for i in range(len(mechs))]
        return mechs, names, [f"{n}: {m.spec}" for n, m in zip(names, mechs)]
    labels = [str(x) for x in labels]
    if len(labels) != len(mechs):
        raise ValueError(f"labels must have one entry per mechanism ({len(mechs)}), got {len(labels)}")
    return mechs, labels, labels


def _letter(i: int) -> str:
    return chr(ord("A") + i) if i < 26 else f"M{i + 1}"


def _color(i: int) -> str:
    return PALETTE[i % len(PALETTE)]


def _fmt(x: float, digits: int = 2) -> str:
    """Short number text: 0.0053, 0.034, 1e-5 (never 1e-05), 0."""
    x = float(x)
    if x == 0 or not math.isfinite(x):
        return "0" if x == 0 else ("∞" if x > 0 else "-∞")
    s = f"{x:.{digits}g}"
    return re.sub(r"e([+-])0*(\d)", lambda m: "e" + ("-" if m.group(1) == "-" else "") + m.group(2), s)


def _kinks(m: "Mechanism") -> np.ndarray:
    """Priors where R is not smooth: the mechanism's own kinks and, for small discrete pairs, every atom."""
    from .._numerics import expit

    pts = [np.asarray(m.bayes_error_kinks(), dtype=float)]
    pairs = m.pairs()
    if pairs is not None and pairs[0].size <= _MAX_KINKS:
        pts.append(expit(np.asarray(pairs[0].loss, dtype=float)))
    out = np.concatenate(pts) if pts else np.array([])
    return out[np.isfinite(out) & (out >= 0) & (out <= 1)]


def _pi_grid(mechs: Sequence["Mechanism"], n: int = 801) -> np.ndarray:
    from .._numerics import expit

    parts = [np.linspace(0.0, 1.0, n), expit(np.linspace(-12.0, 12.0, 241))] + [_kinks(m) for m in mechs]
    return np.unique(np.concatenate(parts))


def _alpha_grid(mechs: Sequence["Mechanism"], n: int = 801) -> np.ndarray:
    parts = [np.linspace(0.0, 1.0, n), np.logspace(-8, 0, 161), 1.0 - np.logspace(-8, 0, 161)]
    for m in mechs:
        pairs = m.pairs()
        vertices = getattr(pairs[0], "_vertices", None) if pairs is not None and pairs[0].size <= _MAX_KINKS else None
        if vertices is not None:
            parts.append(np.asarray(vertices[0], dtype=float))
    a = np.unique(np.concatenate(parts))
    return a[(a >= 0) & (a <= 1)]


def _band(ax: "Axes", x: np.ndarray, lo: np.ndarray, hi: np.ndarray, color: str) -> None:
    if np.any(hi - lo > 0):
        ax.fill_between(x, lo, hi, color=color, alpha=0.3, linewidth=0, zorder=1)


def _ruler(ax: "Axes", x: float, y_low: float, y_high: float, text: str, label: str) -> None:
    """A black vertical bar with end caps from y_low to y_high at x, named beside it (seed 000 Fig 3);
    ``label`` (with the value) goes to the legend."""
    ax.plot([x, x], [y_low, y_high], color=_RULER, linewidth=1.4, marker="_", markersize=9, zorder=5, label=label)
    side = -1 if x < 0.5 else 1
    ax.annotate(text, xy=(x, 0.5 * (y_low + y_high)), xytext=(5 * side, 0), textcoords="offset points",
                ha="left" if side > 0 else "right", va="center", fontsize=8, color=_RULER, zorder=6)


_MEMO: dict[tuple[int, int, int], Any] | None = None


@contextlib.contextmanager
def _memo() -> Iterator[dict[tuple[int, int, int], Any]]:
    """Within the block, Δ results are reused by object identity (the report draws many figures of
    the same mechanisms and prefills this with the Δ it has computed already)."""
    global _MEMO
    outer = _MEMO
    _MEMO = {} if outer is None else outer
    try:
        yield _MEMO
    finally:
        _MEMO = outer


def _delta(a: "Mechanism", b: "Mechanism", hyperprior: Any = None) -> Any:
    from ..compare import delta_divergence

    key = (id(a), id(b), id(hyperprior))
    if _MEMO is not None and key in _MEMO:
        return _MEMO[key]
    r = delta_divergence(a, b, hyperprior, tol=_DRAW_TOL)
    if _MEMO is not None:
        _MEMO[key] = r
    return r


def _deltas(mechs, names, hyperprior=None) -> list[tuple[int, int, Any]]:
    """Δ(first‖k) and Δ(k‖first) for every other mechanism k: (i, j, DeltaResult) with Δ(i‖j)."""
    return [(i, j, _delta(mechs[i], mechs[j], hyperprior)) for k in range(1, len(mechs)) for i, j in ((0, k), (k, 0))]


def _delta_text(names: Sequence[str], i: int, j: int, weighted: bool = False) -> str:
    a, b = (str(n).replace("$", r"\$") for n in (names[i], names[j]))
    return (r"$\Delta^{\Psi}$" if weighted else "Δ") + f"({a}‖{b})"


def _draw_rulers(ax: "Axes", mechs, names, hyperprior=None) -> None:
    """Both rulers for the first mechanism against every other one; values and π in the legend."""
    weight = (lambda p: 1.0) if hyperprior is None else (lambda p: float(hyperprior.density(np.asarray(p))))
    for i, j, r in _deltas(mechs, names, hyperprior):
        name = _delta_text(names, i, j, hyperprior is not None)
        if r.value > _ZERO:
            low = float(mechs[j].bayes_error(r.pi)) * weight(r.pi)
            _ruler(ax, r.pi, low, low + r.value, name, f"{name} = {_fmt(r.value)} at π ≈ {_fmt(r.pi)}")
        else:  # Δ(i‖j) = 0 ⇔ i Blackwell-dominates j (seed 000 Thm 1, Thm 2)
            bound = f" (≤ {_fmt(r.upper)})" if r.upper > 0 else ""
            ax.plot([], [], linestyle="none", label=f"{name} ≈ 0{bound}: {names[i]} ≥ {names[j]} (Thm 1)")


def _curves(ax, mechs, legend, x, bounds: Callable[[Any, np.ndarray], tuple[np.ndarray, np.ndarray]],
            transform: Callable[[np.ndarray], np.ndarray] | None = None, pick: int = 0) -> list[np.ndarray]:
    """Draw one curve per mechanism (``pick`` 0 = lower end of the bracket, 1 = upper) with its band."""
    ys = []
    for i, (m, lab) in enumerate(zip(mechs, legend)):
        lo, hi = (np.asarray(v, dtype=float) for v in bounds(m, x))
        if transform is not None:
            lo, hi = transform(lo), transform(hi)
        y = lo if pick == 0 else hi
        _band(ax, x, lo, hi, _color(i))
        ax.plot(x, y, color=_color(i), label=lab, zorder=3)
        ys.append(y)
    return ys


# ---------------------------------------------------------------------------------------------- Bayes error
@_styled
def bayes_error(mechanisms: Any, *, labels: Sequence[str] | None = None, ax: "Axes | None" = None,
                rulers: bool = True) -> "Figure":
    """Minimum Bayes error functions R_min(π) = min_α π·α + (1−π)·f(α) (seed 000 eq 2) of several
    mechanisms, with the Δ rulers of seed 000 Figure 3.

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
        _draw_rulers(ax, mechs, names)
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 0.55)
    ax.set_xlabel("prior π of the adversary (belief in membership)")
    ax.set_ylabel(r"minimum Bayes error $R_{\min}(\pi)$")
    ax.legend(loc="best")
    return fig


@_styled
def bayes_error_difference(mechanisms: Any, *, labels: Sequence[str] | None = None,
                           ax: "Axes | None" = None) -> "Figure":
    """R_A(π) − R_k(π) for the first mechanism A and every other k, with its certified band, the
    levels +Δ(A‖k) and −Δ(k‖A) at their π (seed 000 Cor 1; Δ↔ = ‖R_A − R_k‖_∞, eq 6) and the priors
    where the Bayes error functions cross. It makes visible what a Δ of 1e-4 hides in
    :func:`bayes_error`.
    """
    from ..compare import crossing_points

    mechs, names, legend = _mechanisms(mechanisms, labels)
    if len(mechs) < 2:
        raise ValueError("bayes_error_difference needs at least two mechanisms")
    fig, ax = _axes(ax, (5.6, 3.6))
    pi = _pi_grid(mechs)
    a_lo, a_hi = mechs[0].bayes_error_bounds(pi)
    ax.axhline(0.0, color=_GREY, linewidth=0.8)
    deltas = _deltas(mechs, names)
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
            ax.annotate(f"{'+' if sign > 0 else '−'}{_delta_text(names, i, j)} = {_fmt(r.value)}", xy=(r.pi, sign * r.value),
                        xytext=(4, 4 if sign > 0 else -10), textcoords="offset points", fontsize=8, color=c)
        for x in crossing_points(mechs[0], mechs[k]):
            ax.axvline(x, color=c, linewidth=0.7, linestyle=":", zorder=2)
    ax.set_xlim(0, 1)
    top = max([r.value for _, _, r in deltas] + [1e-12])
    ax.set_ylim(-1.35 * top, 1.35 * top)
    ax.ticklabel_format(axis="y", style="sci", scilimits=(-3, 3))
    ax.set_xlabel("prior π of the adversary")
    ax.set_ylabel(r"difference of Bayes errors $R_{\min}(\pi) - \tilde{R}_{\min}(\pi)$")
    ax.legend(loc="upper right")
    return fig


# ---------------------------------------------------------------------------------------------- trade-off
@_styled
def tradeoff(mechanisms: Any, *, labels: Sequence[str] | None = None, ax: "Axes | None" = None,
             shift: bool = True) -> "Figure":
    """Trade-off functions f(α) (Type II error of the most powerful test at Type I error α) and, with
    ``shift``, the κ-shift of seed 000 Def 1 that restores Blackwell dominance (Figure 2):
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
        for i, j, r in _deltas(mechs, names):
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
    ax.legend(loc="upper right")
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
    """Privacy profiles δ(ε) = H_{e^ε}(P‖Q) on a log δ axis (seed 000 §1, Figure 1).

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
    ax.legend(loc="upper right")
    return fig


# ---------------------------------------------------------------------------------------------- ROC
@_styled
def roc(mechanisms: Any, *, labels: Sequence[str] | None = None, ax: "Axes | None" = None, shade: bool = True,
        log: bool = False, fpr_marks: Sequence[float] = (1e-3, 1e-2)) -> "Figure":
    """ROC curves of the best membership-inference test, TPR = 1 − f(FPR) (seed 001 eq 4.7), with the
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
    ax.legend(loc="lower right" if not log else "upper left")
    return fig


# ---------------------------------------------------------------------------------------------- hyper-prior
def prior_title(h: "HyperPrior") -> str:
    """How a hyper-prior is named in figures: "Jeffreys Beta(½, ½)", "UQuadratic[0, 1]", "beta(2,3)"."""
    name = getattr(h, "name", "hyper-prior")
    return {"jeffreys": "Jeffreys Beta(½, ½)", "uquadratic": "UQuadratic[0, 1]"}.get(name, name)


@_styled
def weighted_bayes_error(mechanisms: Any, hyperprior: Any = "jeffreys", *, labels: Sequence[str] | None = None,
                         ax: "Axes | None" = None, rulers: bool = True, inset: bool = True) -> "Figure":
    """Hyper-prior weighted Bayes errors R^Ψ(π) = Ψ(π)·R_min(π) (seed 000 §5, Figure 4) with the
    weighted rulers Δ^Ψ(A‖B) = max_π Ψ(π)(R_A(π) − R_B(π)) at their π, and the density Ψ in an inset.

    ``hyperprior``: a HyperPrior, a density callable, or 'jeffreys' | 'uquadratic' | 'beta(a,b)'.
    """
    from ..compare.hyperprior import as_hyperprior
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
        _draw_rulers(ax, mechs, names, h)
    ymax = max([float(np.nanmax(line.get_ydata())) for line in ax.get_lines() if len(line.get_ydata())] + [1e-12])
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.75 * ymax)
    ax.set_xlabel("prior π of the adversary")
    ax.set_ylabel(r"weighted Bayes error $\Psi(\pi)\,R_{\min}(\pi)$")
    ax.set_title(f"hyper-prior Ψ: {prior_title(h)}", loc="left")
    ax.legend(loc="upper left")  # the inset takes the upper right
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


# ---------------------------------------------------------------------------------------------- Pareto
def _vector(name: str, v: Any) -> np.ndarray:
    a = np.asarray(v, dtype=float).ravel()
    if a.size == 0:
        raise ValueError(f"{name} must not be empty")
    if not np.all(np.isfinite(a)):
        raise ValueError(f"{name} must be finite numbers, got {np.asarray(v).ravel().tolist()}")
    return a


def pareto_efficient(delta: Any, accuracy: Any) -> np.ndarray:
    """Mask of the points no other point beats on both counts (Δ no larger and accuracy no smaller,
    one strictly): the Pareto-efficient choices of seed 000 §5 (Figure 5)."""
    d, acc = _vector("delta", delta), _vector("accuracy", accuracy)
    if d.size != acc.size:
        raise ValueError(f"delta and accuracy must have the same length, got {d.size} and {acc.size}")
    better = (d[None, :] <= d[:, None]) & (acc[None, :] >= acc[:, None])
    strictly = (d[None, :] < d[:, None]) | (acc[None, :] > acc[:, None])
    return ~np.any(better & strictly, axis=1)


@_styled
def pareto(delta: Any, accuracy: Any, *, labels: Sequence[str] | None = None, ax: "Axes | None" = None,
           delta_bounds: tuple[Any, Any] | None = None, xlabel: str | None = None,
           ylabel: str = "accuracy") -> "Figure":
    """Accuracy against excess vulnerability Δ(M‖M̃) over a baseline M (seed 000 §5, Figure 5): the
    Pareto-efficient choices (filled, joined by the frontier) and the inefficient ones (hollow).

    ``delta_bounds=(lower, upper)`` draws the certified Δ brackets as horizontal error bars.
    """
    d, acc = _vector("delta", delta), _vector("accuracy", accuracy)
    eff = pareto_efficient(d, acc)
    if np.any(d < 0):
        raise ValueError("delta must be >= 0 (a Δ-divergence)")
    if labels is not None and len(labels) != d.size:
        raise ValueError(f"labels must have one entry per point ({d.size}), got {len(labels)}")
    fig, ax = _axes(ax, (5.0, 3.8))
    if delta_bounds is not None:
        lo, hi = _vector("delta lower bounds", delta_bounds[0]), _vector("delta upper bounds", delta_bounds[1])
        if lo.size != d.size or hi.size != d.size or np.any(lo > d) or np.any(hi < d):
            raise ValueError("delta_bounds must be (lower, upper) arrays with lower <= delta <= upper")
        ax.errorbar(d, acc, xerr=np.vstack([d - lo, hi - d]), fmt="none", ecolor=_GREY, elinewidth=0.8, zorder=2)
    order = np.argsort(d[eff], kind="stable")
    ax.plot(d[eff][order], acc[eff][order], color=PALETTE[0], linewidth=1.0, linestyle="--", zorder=2,
            label="Pareto frontier")
    ax.plot(d[eff], acc[eff], linestyle="none", marker="o", color=PALETTE[0], markersize=6, zorder=3,
            label="efficient")
    if np.any(~eff):
        ax.plot(d[~eff], acc[~eff], linestyle="none", marker="o", markerfacecolor="white", color=PALETTE[1],
                markersize=6, zorder=3, label="not efficient")
    for k, text in enumerate(labels or []):
        ax.annotate(str(text), xy=(d[k], acc[k]), xytext=(5, 4), textcoords="offset points", fontsize=8)
    span = float(np.ptp(d)) or max(float(d.max()), 1e-12)
    ax.set_xlim(min(0.0, float(d.min())) - 0.05 * span, float(d.max()) + 0.15 * span)
    ax.set_xlabel(xlabel or r"excess vulnerability $\Delta(\mathcal{M}\,\|\,\tilde{\mathcal{M}})$")
    ax.set_ylabel(ylabel)
    ax.legend(loc="lower right")
    return fig


# ---------------------------------------------------------------------------------------------- heat-map
def _edges(c: np.ndarray, log: bool, name: str) -> np.ndarray:
    if log and np.any(c <= 0):
        raise ValueError(f"{name} must be > 0 on a log axis")
    t = np.log(c) if log else c
    if t.size > 1 and not (np.all(np.diff(t) > 0) or np.all(np.diff(t) < 0)):
        raise ValueError(f"{name} must be strictly monotone")
    if t.size == 1:
        e = np.array([t[0] - 0.5, t[0] + 0.5])
    else:
        mid = 0.5 * (t[1:] + t[:-1])
        e = np.concatenate([[t[0] - (mid[0] - t[0])], mid, [t[-1] + (t[-1] - mid[-1])]])
    return np.exp(e) if log else e


@_styled
def sweep_heatmap(values: Any, x: Any, y: Any, *, xlabel: str = "x", ylabel: str = "y",
                  zlabel: str = r"$\Delta(\mathcal{M}\,\|\,\tilde{\mathcal{M}})$", ax: "Axes | None" = None,
                  log_x: bool = False, log_y: bool = False, annotate: bool | None = None,
                  mark: tuple[float, float] | None = None, mark_label: str = r"$\mathcal{M}$",
                  cmap: str = "viridis") -> "Figure":
    """A sweep result as a heat-map (seed 000 §5, Figure 6): ``values[i, j]`` at ``(x[j], y[i])``.

    Plain arrays in, so any sweep can be shown; NaN cells (not computed) are left grey. ``mark``
    points at the baseline mechanism with an arrow; cells are annotated with their value when the
    grid is small (≤ 12 × 12) unless ``annotate`` says otherwise. The colour map is viridis
    (perceptually uniform and colour-blind safe).
    """
    import matplotlib

    z = np.asarray(values, dtype=float)
    xs, ys = np.asarray(x, dtype=float).ravel(), np.asarray(y, dtype=float).ravel()
    if z.ndim != 2 or z.shape != (ys.size, xs.size):
        raise ValueError(f"values must have shape (len(y), len(x)) = ({ys.size}, {xs.size}), got {z.shape}")
    if not (np.all(np.isfinite(xs)) and np.all(np.isfinite(ys))):
        raise ValueError("x and y must be finite numbers")
    if np.any(np.isinf(z)):
        raise ValueError("values must be finite or NaN (not computed)")
    xe, ye = _edges(xs, log_x, "x"), _edges(ys, log_y, "y")
    fig, ax = _axes(ax, (5.4, 4.2))
    cm = matplotlib.colormaps[cmap].with_extremes(bad="#DDDDDD")
    masked = np.ma.masked_invalid(z)
    finite = z[np.isfinite(z)]
    vmin, vmax = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
    if vmax <= vmin:
        vmin, vmax = vmin - 0.5 * (abs(vmin) or 1.0), vmax + 0.5 * (abs(vmax) or 1.0)
    mesh = ax.pcolormesh(xe, ye, masked, cmap=cm, vmin=vmin, vmax=vmax, shading="flat")
    if log_x:
        ax.set_xscale("log")
    if log_y:
        ax.set_yscale("log")
    ax.grid(False)
    cb = fig.colorbar(mesh, ax=ax)
    cb.set_label(zlabel)
    if annotate is None:
        annotate = z.shape[0] <= 12 and z.shape[1] <= 12
    if annotate:
        for i in range(z.shape[0]):
            for j in range(z.shape[1]):
                if np.isfinite(z[i, j]):
                    r, g, b, _ = cm((z[i, j] - vmin) / (vmax - vmin))
                    dark = 0.2126 * r + 0.7152 * g + 0.0722 * b < 0.5
                    ax.text(xs[j], ys[i], _fmt(z[i, j]), ha="center", va="center", fontsize=7,
                            color="white" if dark else "black")
    if mark is not None:
        mx, my = float(mark[0]), float(mark[1])
        ax.annotate(mark_label, xy=(mx, my), xytext=(18, 18), textcoords="offset points", fontsize=9, color=_RULER,
                    arrowprops={"arrowstyle": "->", "color": _RULER, "lw": 1.2},
                    bbox={"boxstyle": "round,pad=0.2", "facecolor": "white", "edgecolor": "none", "alpha": 0.8})
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    return fig


# ---------------------------------------------------------------------------------------------- output
def render(fig: "Figure", fmt: str = "png", *, dpi: float | None = None) -> bytes:
    """The figure as PNG, SVG or PDF bytes, rendered in the package style (metadata without dates,
    so equal figures give equal bytes)."""
    fmt = fmt.lower()
    if fmt not in _FORMATS:
        raise ValueError(f"format must be one of {', '.join(_FORMATS)}, got {fmt!r}")
    meta = {"png": {"Software": None}, "svg": {"Date": None}, "pdf": {"CreationDate": None}}[fmt]
    buf = io.BytesIO()
    with style():
        fig.savefig(buf, format=fmt, dpi=dpi, metadata=meta)
    return buf.getvalue()


def save(fig: "Figure", path: str | os.PathLike[str], *, dpi: float | None = None) -> None:
    """Save ``fig`` to ``path`` (format from the suffix: .png, .svg or .pdf), atomically."""
    suffix = os.path.splitext(os.fspath(path))[1].lower().lstrip(".")
    if suffix not in _FORMATS:
        raise ValueError(f"output must end in .png, .svg or .pdf, got {os.fspath(path)!r}")
    from .files import atomic_write

    atomic_write(path, render(fig, suffix, dpi=dpi))
