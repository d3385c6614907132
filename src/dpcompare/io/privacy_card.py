"""A privacy card: every number a reader needs about one mechanism or training run, each a certified
bound labelled with its direction ("ε ≤ 0.99998", "TPR ≤ 0.0102", "R ≥ 0.303").

Numbers (all on the side that errs towards *less* privacy, so a card never overstates protection):

| key | shown as | source |
| --- | --- | --- |
| ``epsilon@δ`` | ε ≤ x at δ = 1e-5, 1e-6 (and 1/n with ``n``) | smallest ε with δ(ε) ≤ δ on the pessimistic profile |
| ``gdp_mu_fit`` | μ ≈ x | the μ-GDP curve closest to this one: minimax in Bayes error (``dpcompare.gaussian.fit``) |
| ``gdp_excess`` | Δ(G_μ‖M) ≤ x | certified: the run is at most x more vulnerable than μ-GDP says ([BCP] Def 1), at prior π |
| ``gdp_slack`` | Δ(M‖G_μ) ≤ x | certified: μ-GDP overstates the best attack by at most x, at prior π |
| ``gdp_mu`` | μ ≤ x | tightest μ-GDP bound, f ≥ G_μ everywhere (Dong et al. 2022, Def 2.6); with a one-line reason when it is far above the fit |
| ``mu_at_fixed_point`` | μ ≈ x | the Gaussian G_μ with the same fixed point α* (= R*): μ = −2Φ⁻¹(α*) |
| ``advantage`` | advantage ≤ x | TPR − FPR of the best attack = δ(0) ([BCP] eq 29) |
| ``tpr@α`` | TPR ≤ x at FPR = α | 1 − f(α) with the lower f ([SI] eq 4.7) |
| ``bayes_error@π`` | R ≥ x at prior π | R(π) = min_α π·α + (1−π)·f(α) with the lower f ([BCP] eq 2) |

The registry fields (mechanism, unit of privacy, ε, δ, accounting method, implementation) are those
public registries of DP deployments list for each entry.

Why the card leads with the fitted μ: the tightest μ-GDP bound of the subsampled Gaussian, √N/σ, holds
everywhere but is attained only in the extreme tail (the event "sampled at every step"), so for a long
run it describes almost none of the curve. The fitted μ̂ describes the curve, and the two certified
Δ-divergences to G_μ̂ say how far the curve is from it, in each direction, against which prior; the
strict bound follows, with its reason when it is much larger. ``mu_at_fixed_point`` is the Gaussian
trade-off that crosses the mechanism's own curve at α*. Both μ ≈ are descriptions, not bounds.
``PrivacyCard.notes`` holds the fit's sentence and the strict bound's reason.

>>> card = build_card("laplace(b=1)", figures=False)
>>> [n.text() for n in card.numbers][:2]
['ε ≤ 0.99998 at δ = 1e-5', 'ε ≤ 0.999998 at δ = 1e-6']
"""

from __future__ import annotations

import math
import os
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING, Any

import numpy as np

from .render import num, short

if TYPE_CHECKING:  # pragma: no cover
    from ..mechanisms import Mechanism

__all__ = ["CARD_DELTAS", "CARD_FPRS", "CARD_PRIORS", "CardNumber", "Direction", "PrivacyCard", "build_card",
           "mu_at_fixed_point"]

CARD_DELTAS = (1e-5, 1e-6)
CARD_FPRS = (1e-3, 1e-2, 1e-1)
CARD_PRIORS = (0.5, 0.01)
DEFAULT_UNIT = "one record (add/remove of one individual's example, as the mechanism's sensitivity defines)"


class Direction(Enum):
    """How the true value relates to the number shown."""

    AT_MOST = "≤"  # the truth is at most this (ε, δ, μ, advantage, TPR)
    AT_LEAST = "≥"  # the truth is at least this (Bayes error)
    ABOUT = "≈"  # a description, not a bound


@dataclass(frozen=True)
class CardNumber:
    """One number on the card: ``symbol direction value`` and, optionally, where it is evaluated."""

    key: str
    symbol: str
    direction: Direction
    value: float | None
    where: str = ""
    meaning: str = ""

    def text(self) -> str:
        """``"ε ≤ 0.99998 at δ = 1e-5"``; a missing value reads ``"none known"`` (∞ for ε)."""
        if self.value is None:
            body = f"{self.symbol} = ∞" if self.symbol == "ε" else f"{self.symbol}: none known"
        else:
            body = f"{self.symbol} {self.direction.value} {num(self.value)}"
        return f"{body} {self.where}".strip()

    def to_dict(self) -> dict[str, Any]:
        return {"symbol": self.symbol, "direction": self.direction.value, "value": self.value,
                "where": self.where, "meaning": self.meaning, "text": self.text()}


@dataclass(frozen=True)
class PrivacyCard:
    """The card of one mechanism: numbers, registry fields and (optionally) inline SVG figures."""

    spec: str
    numbers: tuple[CardNumber, ...]
    registry: dict[str, str]
    figures: tuple[tuple[str, str], ...] = field(default=(), repr=False)  # (title, inline svg)
    notes: tuple[str, ...] = ()  # sentences shown under the numbers (the μ-GDP fit, the strict bound's reason)
    #: for a training run whose batches are not Poisson: what ran vs the Poisson number usually reported
    ran: Any = field(default=None, repr=False)

    def to_dict(self) -> dict[str, Any]:
        out = {"mechanism": self.spec, "numbers": {n.key: n.to_dict() for n in self.numbers},
               "registry": dict(self.registry), "notes": list(self.notes)}
        if self.ran is not None:
            out["ran_vs_reported"] = self.ran.to_dict()
        return out

    def html(self) -> str:
        """One self-contained HTML page (figures inline as SVG, nothing loaded from the network)."""
        return _html(self)

    def write_html(self, path: str | os.PathLike[str]) -> None:
        from .files import atomic_write

        atomic_write(path, self.html().encode("utf-8"))


def _finite(x: Any) -> float | None:
    f = float(x)
    return f if math.isfinite(f) else None


def mu_at_fixed_point(alpha_star: float) -> float | None:
    """μ of the Gaussian trade-off G_μ(α) = Φ(Φ⁻¹(1−α) − μ) whose fixed point is α*: G_μ(α*) = α* ⇔
    α* = Φ(−μ/2), so μ = −2Φ⁻¹(α*) ([GDP] Dong, Roth & Su 2022, Def 2.6; fixed point: [BCP] Lemma 4).
    None when α* = 0 (no finite μ: the curve reaches the corner).

    >>> round(mu_at_fixed_point(0.3085375387259869), 12)  # α* = Φ(−½) for μ = 1
    1.0
    >>> mu_at_fixed_point(0.5), mu_at_fixed_point(0.0)
    (0.0, None)
    """
    if not 0.0 <= alpha_star <= 0.5:
        raise ValueError(f"alpha_star must be in [0, 0.5], got {alpha_star}")
    if alpha_star == 0.0:
        return None
    return max(0.0, -2.0 * statistics.NormalDist().inv_cdf(alpha_star))


def _accounting(m: "Mechanism") -> str:
    if m.exact:
        pairs = m.pairs()
        if pairs is None:
            return "closed form (exact)"
        return f"exact discrete privacy-loss pair ({pairs[0].size} atoms)"
    if getattr(m, "composition", None) is not None:
        return ("certified privacy-loss-distribution composition (pessimistic/optimistic pairs, FFT with an "
                "a-priori floating-point bound); every number is from the pessimistic side")
    return "certified numeric bracket; every number is from the pessimistic side"


def _check_n(n: Any) -> int | None:
    if n is None:
        return None
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 2:
        raise ValueError(f"n (number of individuals in the data) must be an integer ≥ 2, got {n!r}")
    return int(n)


def build_card(mechanism: "Mechanism | str", *, n: int | None = None, unit: str = DEFAULT_UNIT,
               figures: bool = True) -> PrivacyCard:
    """Compute the card of ``mechanism`` (a mechanism or a spec string); ``n``: the number of
    individuals in the data set, which adds ε at δ = 1/n; ``figures``: draw the ROC and trade-off
    curves (for the HTML)."""
    from ..mechanisms import Mechanism
    from .spec import parse

    m = parse(mechanism) if isinstance(mechanism, str) else mechanism
    if not isinstance(m, Mechanism):
        raise TypeError(f"mechanism must be a dpcompare mechanism or a spec string, got {type(m).__name__}")
    n = _check_n(n)
    if not isinstance(unit, str) or not unit.strip():
        raise ValueError("unit (the unit of privacy) must be a non-empty text")
    deltas = CARD_DELTAS + ((1.0 / n,) if n is not None else ())
    out: list[CardNumber] = []
    for d in deltas:
        where = f"at δ = {short(d, 3)}" + (" = 1/n" if n is not None and d == 1.0 / n else "")
        out.append(CardNumber(f"epsilon@{d:g}", "ε", Direction.AT_MOST, _finite(m.epsilon(d)), where,
                              "smallest ε with δ(ε) ≤ δ: the (ε, δ)-DP guarantee"))
    from ..gaussian.fit import gdp_fit

    fit = gdp_fit(m)
    notes = ["μ-GDP description: " + fit.sentence()]
    if fit.mu is not None:
        out.append(CardNumber("gdp_mu_fit", "μ", Direction.ABOUT, fit.mu, "(the μ-GDP curve closest to this one)",
                              "minimises the largest Bayes-error gap to G_μ over every prior; a description"))
        for key, sym, d, text in (
            ("gdp_excess", "Δ(G_μ‖run)", fit.excess, "the run is at most this much more vulnerable than μ-GDP says"),
            ("gdp_slack", "Δ(run‖G_μ)", fit.slack, "μ-GDP overstates the best attack by at most this much"),
        ):
            where = f"at prior π = {short(d.pi, 3)}" if d.lower > 0 else "(every prior)"
            out.append(CardNumber(key, sym, Direction.AT_MOST, float(d.upper), where, text + " (certified Δ)"))
    strict_meaning = fit.strict_reason() or "f ≥ G_μ at every FPR, the extreme tail included"
    if fit.strict_reason():
        notes.append("Why not the strict μ: " + fit.strict_reason() + ".")
    out.append(CardNumber("gdp_mu", "μ", Direction.AT_MOST, None if m.gdp_mu is None else _finite(m.gdp_mu),
                          "(tightest μ-GDP bound)", strict_meaning))
    mu_fp = mu_at_fixed_point(float(m.fixed_point))  # lower end of α*: the matched μ errs high (less privacy)
    out.append(CardNumber("mu_at_fixed_point", "μ", Direction.ABOUT, mu_fp, "(Gaussian with the same α* = R*)",
                          "the μ-GDP curve that crosses this one at FPR = FNR; describes the bulk of the curve"))
    out.append(CardNumber("advantage", "advantage", Direction.AT_MOST, float(m.advantage), "",
                          "TPR − FPR of the best membership-inference attack"))
    tpr = 1.0 - np.asarray(m.tradeoff(np.asarray(CARD_FPRS)), dtype=float)
    for a, t in zip(CARD_FPRS, tpr):
        out.append(CardNumber(f"tpr@{a:g}", "TPR", Direction.AT_MOST, float(t), f"at FPR = {short(a, 3)}",
                              "power of the best attack at this false-positive rate"))
    r = np.asarray(m.bayes_error(np.asarray(CARD_PRIORS)), dtype=float)
    for p, v in zip(CARD_PRIORS, r):
        out.append(CardNumber(f"bayes_error@{p:g}", "R", Direction.AT_LEAST, float(v), f"at prior π = {short(p, 3)}",
                              "error of the best attack against an adversary with this prior"))
    from .. import __version__

    eps0 = out[0]
    registry = {
        "mechanism": m.spec,
        "unit of privacy": unit.strip(),
        "epsilon": "∞" if eps0.value is None else f"≤ {num(eps0.value)}",
        "delta": short(CARD_DELTAS[0], 3),
        "accounting method": _accounting(m),
        "implementation": f"dpcompare {__version__}",
    }
    figs: tuple[tuple[str, str], ...] = ()
    if figures:
        figs = _figures(m)
    return PrivacyCard(m.spec, tuple(out), registry, figs, tuple(notes), ran_section(m))


def ran_section(m: "Mechanism") -> Any:
    """What ran vs the Poisson report (dpsgd/ran.py) for a run on shuffled, balls-in-bins or fixed batches."""
    from ..mechanisms import FromDpEvent
    from ..mechanisms.allocation import BallsInBinsGaussian, ShuffledGaussian
    from ..mechanisms.fixed_batch import FixedBatchGaussian

    if isinstance(m, FromDpEvent):  # a DpEvent file of such a run (dpcompare event)
        m = m.mechanism
    if not isinstance(m, (BallsInBinsGaussian, ShuffledGaussian, FixedBatchGaussian)):
        return None
    from ..dpsgd.ran import ran_versus_reported
    from .spec_training import parse_training

    return ran_versus_reported(parse_training(m.spec))


def _figures(m: "Mechanism") -> tuple[tuple[str, str], ...]:
    from . import plot
    from .report import inline_svg

    out = []
    for fid, title, make in (
        ("card-roc", "ROC curve of the best attack (log–log, low false-positive rates)", lambda: plot.roc([m], log=True)),
        ("card-tradeoff", "Trade-off function f(α)", lambda: plot.tradeoff([m])),
    ):
        out.append((title, inline_svg(plot.render(make(), "svg"), fid, title)))
    return tuple(out)


_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;max-width:860px;margin:2rem auto;padding:0 1rem;color:#1a1a1a;line-height:1.45}
h1{font-size:1.35rem}h2{font-size:1.1rem;margin-top:1.6rem;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:.4rem 0 1rem;font-size:.93rem}
th,td{border-bottom:1px solid #ddd;padding:.3rem .7rem;text-align:left;vertical-align:top}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.muted{color:#666;font-size:.88rem}
figure{margin:0 0 1rem;padding:8px;border:1px solid #ddd;border-radius:6px}
figure svg{display:block;width:100%;height:auto}
"""


def _html(card: PrivacyCard) -> str:
    import html  # its entity table costs ~10 ms to import: only for the HTML card

    from .ran_section import ran_html

    e = lambda x: html.escape(str(x), quote=True)  # noqa: E731
    rows = "".join(
        f"<tr><td>{e(c.symbol)} {e(c.direction.value)}</td><td class=\"num\">{e('∞' if c.value is None and c.symbol == 'ε' else num(c.value))}</td>"
        f"<td>{e(c.where)}</td><td class=\"muted\">{e(c.meaning)}</td></tr>"
        for c in card.numbers)
    reg = "".join(f"<tr><th>{e(k)}</th><td>{e(v)}</td></tr>" for k, v in card.registry.items())
    figs = "".join(f"<figure>{svg}<figcaption>{e(t)}</figcaption></figure>" for t, svg in card.figures)
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>Privacy card: {e(card.spec)}</title>"
        f"<style>{_CSS}</style></head><body>"
        f"<h1>Privacy card: <code>{e(card.spec)}</code></h1>"
        "<p class=\"muted\">Every number is certified and errs towards less privacy: ≤ means the truth is at most "
        "this, ≥ at least this; ≈ marks a description that is not a bound.</p>"
        f"<h2>Guarantees and attack bounds</h2><table><tr><th></th><th>value</th><th>where</th><th>meaning</th></tr>{rows}</table>"
        + "".join(f"<p>{e(t)}</p>" for t in card.notes)
        + f"<h2>Registry entry</h2><table>{reg}</table>"
        + (f"<h2>Figures</h2>{figs}" if figs else "")
        + (ran_html(card.ran) if card.ran is not None else "")
        + "</body></html>\n"
    )


def card_table_rows(card: PrivacyCard) -> Sequence[tuple[str, str, str]]:
    """(bound, where, meaning) rows for a text table: ``("ε ≤ 0.99998", "at δ = 1e-5", "…")``."""
    rows = []
    for c in card.numbers:
        text = c.text()
        bound = text[: len(text) - len(c.where)].strip() if c.where and text.endswith(c.where) else text
        rows.append((bound, c.where, c.meaning))
    return rows
