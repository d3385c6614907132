"""What every dpcompare figure shares: the style, the A/B/C labels, the plotting grids, the bands and
rulers, an explicit Δ cache, and rendering to bytes (matplotlib is imported lazily, inside functions).

Labels: mechanism *i* is the letter ``letter(i)`` (A, B, C, …) with its spec beside it in every legend
("A: gaussian(mu=1)"), keeps colour ``PALETTE[i]`` everywhere, and Δ(X‖Y) is always written with the
letters.
"""

from __future__ import annotations

import math

import contextlib
import io
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from .render import short as _fmt

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from ..mechanisms import Mechanism

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
        vertices = getattr(pairs[0], "vertices", None) if pairs is not None and pairs[0].size <= _MAX_KINKS else None
        if vertices is not None:
            parts.append(np.asarray(vertices[0], dtype=float))
    a = np.unique(np.concatenate(parts))
    return a[(a >= 0) & (a <= 1)]


def _band(ax: "Axes", x: np.ndarray, lo: np.ndarray, hi: np.ndarray, color: str) -> None:
    if np.any(hi - lo > 0):
        ax.fill_between(x, lo, hi, color=color, alpha=0.3, linewidth=0, zorder=1)


def _ruler(ax: "Axes", x: float, y_low: float, y_high: float, text: str, label: str, crowd: int = 0) -> None:
    """A black vertical bar with end caps from y_low to y_high at x, named beside it ([BCP] Fig 3);
    ``label`` (with the value) goes to the legend. ``crowd`` = how many rulers were already drawn near
    x: the name alternates sides and steps down 11 points per pair, so names never overlap."""
    ax.plot([x, x], [y_low, y_high], color=_RULER, linewidth=1.4, marker="_", markersize=9, zorder=5, label=label)
    side = (-1 if x < 0.5 else 1) * (-1 if crowd % 2 else 1)
    if x < 0.08 or x > 0.92:  # near an end of the π axis: always write inwards, clear of the tick labels
        side = 1 if x < 0.5 else -1
    ax.annotate(text, xy=(x, 0.5 * (y_low + y_high)), xytext=(5 * side, -11 * (crowd // 2)), textcoords="offset points",
                ha="left" if side > 0 else "right", va="center", fontsize=8, color=_RULER, zorder=6)


class _Crowd:
    """Counts labels already placed near a point (|Δx| < dx and |Δy| < dy), so the next one can move."""

    def __init__(self, dx: float, dy: float) -> None:
        self.dx, self.dy, self.placed = dx, dy, []  # type: list[tuple[float, float]]

    def near(self, x: float, y: float) -> int:
        n = sum(abs(x - a) < self.dx and abs(y - b) < self.dy for a, b in self.placed)
        self.placed.append((x, y))
        return n


def _declutter(ax: "Axes") -> None:
    """Move the axes' annotations (ruler names, Δ labels) down, one by one, until no two overlap: each
    is measured with an Agg renderer at the figure's size and, if it touches one already placed, its
    offset goes down past that one (at most 12 steps). Deterministic; no global state."""
    from matplotlib.backends.backend_agg import RendererAgg
    from matplotlib.text import Annotation

    fig = ax.figure
    w, h = fig.get_size_inches() * fig.dpi
    renderer = RendererAgg(int(w), int(h), fig.dpi)
    placed = []
    for t in (c for c in ax.get_children() if isinstance(c, Annotation) and c.get_text()):
        for _ in range(12):
            bb = t.get_window_extent(renderer)
            hit = next((p for p in placed if bb.overlaps(p)), None)
            if hit is None:
                break
            x, y = t.xyann
            t.xyann = (x, y - (bb.y1 - hit.y0 + 1.0) * 72.0 / fig.dpi)
        placed.append(t.get_window_extent(renderer))


_LEGEND_INSIDE = 6  # more legend entries than this go beside the axes, where they cannot cover labels


def _legend(ax: "Axes", loc: str) -> None:
    """The legend at ``loc`` inside the axes, or beside them (right) when it has many entries."""
    n = len(ax.get_legend_handles_labels()[0])
    if n > _LEGEND_INSIDE:
        ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0)
    else:
        ax.legend(loc=loc)


def _wrap(text: str, width: int = 44) -> str:
    """A legend entry broken into lines of at most ``width`` characters (a narrow legend overlaps less)."""
    import textwrap

    return "\n".join(textwrap.wrap(text, width, break_long_words=False)) if len(text) > width else text


@dataclass
class DeltaCache:
    """Δ results reused by object identity while several figures of the same mechanisms are drawn (a
    report fills one with the Δ it has computed already and passes it as ``cache=``). An explicit
    object, not module state: two reports never share one by accident.

    >>> import dpcompare as dc
    >>> cache, g, lap = DeltaCache(), dc.Gaussian(mu=1), dc.Laplace(b=1)
    >>> cache.get(g, lap) is cache.get(g, lap)
    True
    """

    results: dict[tuple[int, int, int], Any] = field(default_factory=dict)
    _keep: list[Any] = field(default_factory=list, repr=False)  # keeps the keyed objects alive (ids stay unique)

    def put(self, a: Any, b: Any, result: Any, hyperprior: Any = None) -> None:
        self._keep.extend((a, b, hyperprior))
        self.results[(id(a), id(b), id(hyperprior))] = result

    def get(self, a: "Mechanism", b: "Mechanism", hyperprior: Any = None) -> Any:
        key = (id(a), id(b), id(hyperprior))
        if key not in self.results:
            from ..comparison import delta_divergence

            self.put(a, b, delta_divergence(a, b, hyperprior, tol=_DRAW_TOL), hyperprior)
        return self.results[key]


def _deltas(mechs, names, hyperprior=None, cache: DeltaCache | None = None) -> list[tuple[int, int, Any]]:
    """Δ(first‖k) and Δ(k‖first) for every other mechanism k: (i, j, DeltaResult) with Δ(i‖j)."""
    cache = DeltaCache() if cache is None else cache
    return [(i, j, cache.get(mechs[i], mechs[j], hyperprior)) for k in range(1, len(mechs)) for i, j in ((0, k), (k, 0))]


def _delta_text(names: Sequence[str], i: int, j: int, weighted: bool = False) -> str:
    a, b = (str(n).replace("$", r"\$") for n in (names[i], names[j]))
    return (r"$\Delta^{\Psi}$" if weighted else "Δ") + f"({a}‖{b})"


def _draw_rulers(ax: "Axes", mechs, names, hyperprior=None, cache: DeltaCache | None = None) -> None:
    """Both rulers for the first mechanism against every other one; values and π in the legend."""
    weight = (lambda p: 1.0) if hyperprior is None else (lambda p: float(hyperprior.density(np.asarray(p))))
    crowd = _Crowd(0.04, np.inf)
    for i, j, r in _deltas(mechs, names, hyperprior, cache):
        name = _delta_text(names, i, j, hyperprior is not None)
        with np.errstate(all="ignore"):
            low = float(mechs[j].bayes_error(r.pi)) * weight(r.pi) if r.value > _ZERO else math.nan
        if r.value > _ZERO and math.isfinite(low):
            _ruler(ax, r.pi, low, low + r.value, name, f"{name} = {_fmt(r.value)} at π ≈ {_fmt(r.pi)}",
                   crowd.near(r.pi, 0.0))
        elif r.value > _ZERO:  # attained where the density is infinite (π → 0 or 1): no bar to draw
            ax.plot([], [], linestyle="none", label=_wrap(f"{name} = {_fmt(r.value)} at π ≈ {_fmt(r.pi)}"))
        else:  # Δ(i‖j) = 0 ⇔ j is nowhere more vulnerable than i ([BCP] Thm 1, Thm 2)
            bound = f" (≤ {_fmt(r.upper)})" if r.upper > 0 else ""
            ax.plot([], [], linestyle="none",
                    label=_wrap(f"{name} ≈ 0{bound}: {names[j]} is nowhere more vulnerable than {names[i]} (Thm 1)"))


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
