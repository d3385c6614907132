"""Figures of many numbers at once: the Pareto front ([BCP] Figure 5), a sweep heat-map (Figure 6)
and the pairwise Δ heat-map that replaces one crowded plot when more than a few mechanisms are compared.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ._figure import _GREY, _RULER, _ZERO, PALETTE, _axes, _styled
from .render import short as _fmt

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure


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
    one strictly): the Pareto-efficient choices of [BCP] §5 (Figure 5)."""
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
    """Accuracy against excess vulnerability Δ(M‖M̃) over a baseline M ([BCP] §5, Figure 5): the
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
    """A sweep result as a heat-map ([BCP] §5, Figure 6): ``values[i, j]`` at ``(x[j], y[i])``.

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


# ---------------------------------------------------------------------------------------------- pairwise Δ
@_styled
def delta_heatmap(mechanisms: Any, *, labels: Sequence[str] | None = None, ax: "Axes | None" = None,
                  cache: Any = None) -> "Figure":
    """Pairwise Δ(row‖column) = max_π R_row(π) − R_col(π) ([BCP] Cor 1) of k mechanisms as a k × k
    heat-map — what a report shows instead of one crowded plot when k > 6. Row X, column Y: how much
    more vulnerable Y can be than X; a cell "≈0" (Δ ≤ 1e-9, the Blackwell tolerance) means Y is nowhere
    more vulnerable than X (Thm 1).
    The letters are those of every other figure; the specs are listed under the axes.

    >>> import dpcompare as dc
    >>> fig = delta_heatmap([dc.Gaussian(mu=1), dc.Laplace(b=1), dc.RandomizedResponse(eps=1)])
    >>> [t.get_text() for t in fig.axes[0].get_xticklabels()]
    ['A', 'B', 'C']
    """
    from ._figure import DeltaCache, _mechanisms

    mechs, names, legend = _mechanisms(mechanisms, labels)
    k = len(mechs)
    if k < 2:
        raise ValueError("delta_heatmap needs at least two mechanisms")
    cache = DeltaCache() if cache is None else cache
    z = np.zeros((k, k))
    for i in range(k):
        for j in range(k):
            if i != j:
                z[i, j] = cache.get(mechs[i], mechs[j]).value
    side = 3.2 + 0.42 * k
    fig, ax = _axes(ax, (side + 1.2, side + 0.25 * k))
    mesh = ax.imshow(z, cmap="viridis", vmin=0.0, vmax=max(float(z.max()), 1e-12))
    ax.set_xticks(range(k), names)
    ax.set_yticks(range(k), names)
    ax.grid(False)
    cb = fig.colorbar(mesh, ax=ax, shrink=0.8)
    cb.set_label("Δ(row‖column): how much more vulnerable the column can be")
    if k <= 12:
        for i in range(k):
            for j in range(k):
                if i != j:
                    light = z[i, j] > 0.6 * z.max()
                    cell = "≈0" if z[i, j] <= _ZERO else _fmt(z[i, j])  # within the Blackwell tolerance
                    ax.text(j, i, cell, ha="center", va="center", fontsize=6.5,
                            color="black" if light else "white")
    ax.set_xlabel("Y (column)\n\n" + "\n".join(legend), fontsize=8, loc="left")  # the specs, in the layout's space
    ax.set_ylabel("X (row)")
    ax.set_title("pairwise Δ(X‖Y)", loc="left")
    return fig
