"""Random allocation (balls-in-bins batching) of the Gaussian mechanism: a certified pessimistic and
optimistic pair for one epoch, composed over E epochs by the certified engine.

**The mechanism.** One epoch has k steps; each example is placed in exactly one of them, uniformly at
random and independently of the other examples ("balls-and-bins"; Chua et al., "Balls-and-Bins Sampling
for DP-SGD", 2025; Feldman & Shenfeld, "Privacy amplification by random allocation", 2025). Step i
releases the sum of the clipped gradients (norm ≤ 1) of its batch plus N(0, σ²·I_d). Adjacency is
add/remove of one example.

**The dominating pair.** In units where the clipping norm is 1,

    P = N(0, σ²·I_k)   (the example is absent),     Q = (1/k)·Σᵢ N(eᵢ, σ²·I_k)   (present, in step i).

Reduction (non-adaptive gradients; numbered, each step an exact Blackwell statement):

1. The other examples' contributions cᵢ ∈ ℝᵈ are fixed given their allocation, which is independent
   of the example's own step J; subtracting them is a bijection common to both worlds, and conditioning
   on their allocation (known to the attacker) can only help the attacker. What is left: yᵢ = gᵢ·1{i = J} +
   Zᵢ, Zᵢ ~ N(0, σ²I_d) i.i.d., J uniform on {1..k}, ‖gᵢ‖ ≤ 1 (absent: yᵢ = Zᵢ).
2. Rotate each yᵢ so that gᵢ points along the first axis: the other d − 1 coordinates are N(0, σ²)
   noise in both worlds, independent of everything, so they can be dropped (they are an independent
   post-processing of nothing). Each step is one coordinate: shifts aᵢ = ‖gᵢ‖ ∈ [0, 1].
3. aᵢ = 1 is the worst case: the kernel x ↦ aᵢ·x + N(0, σ²(1 − aᵢ²)) on coordinate i maps N(0, σ²)
   to N(0, σ²) and N(1, σ²) to N(aᵢ, σ²); applied coordinatewise it maps P to P and each component
   P₁ ⊗ … N(eⱼ) … ⊗ P_k to the component with shift aⱼ, hence the mixture Q to the mixture with shifts aᵢ.
   So the true pair is a post-processing of (P, Q).

Adaptively chosen gradients (gᵢ a function of y₁ … y_{i−1}) are covered by the theorems of both papers
above, which show that (P, Q) is a dominating pair of the adaptive random allocation of the Gaussian
mechanism; we rely on them for the adaptive case. The add direction is the swap (Q, P); the
symmetrised profile max(δ_{Q‖P}, δ_{P‖Q}) covers both. E epochs use independent allocations, so they
compose (Dong, Roth & Su 2022, Thm 3.2, f-DP of adaptive composition).

**The likelihood ratio.** L(x) = dQ/dP = (1/k)·Σᵢ Yᵢ, Yᵢ = exp((xᵢ − ½)/σ²) = dN(1,σ²)/dN(0,σ²)(xᵢ):
under P the Yᵢ are i.i.d. lognormal with mean 1. (L under P) determines the pair: the pair is
Blackwell-equivalent to the law of L under P with Q = L·P (L is a sufficient statistic).

**Certified construction** (the code follows the numbering). Write a dichotomy as a law of its
likelihood ratio under P plus a Q-mass q₊∞ at ratio +∞. *Split* (mean-preserving spread) of an atom
t ∈ [v, v'] into v and v' with P-weights (v' − t)/(v' − v), (t − v)/(v' − v) keeps its P- and Q-mass; the
atom is the merge of the two, so the split pair is more informative (pessimistic), exactly. *Merge*
(replace the atoms of a cell by one atom at their P-weighted mean, the conditional expectation) is a
post-processing (optimistic), exactly (tradeoff/compose.py steps 2–3, in linear instead of log space).

1. **Leaf** (one coordinate, k = 1, the Gaussian pair N(0,σ²) vs N(1,σ²)): the certified partition of
   the SGM engine at p = 1 (:func:`dpcompare.composition.sgm_step.sgm_partition`: closed-form cell masses
   with a bound on their relative error). Pessimistic leaf: its split onto the loss grid
   (:func:`dpcompare.tradeoff.grid.pessimistic_step`; the cut-off tails become P-mass at ratio 0 and
   Q-mass at +∞, each the inverse of a merge). Optimistic leaf: every cell and both tails merged into
   one atom at its conditional mean E[Y | cell] = Q(cell)/P(cell).
2. **Mixing two groups.** For disjoint coordinate sets A, B (sizes a, b) the mixture pair over A ∪ B is
   Q_{A∪B} = (a·Q_A ⊗ P_B + b·P_A ⊗ Q_B)/(a + b), with likelihood ratio (T_A + T_B)/(a + b) where
   T_A = a·L_A is the sum of the Yᵢ over A. If (P_A, Q_A) is a post-processing of (P̃_A, Q̃_A) by a kernel
   K_A and likewise for B, then K_A ⊗ K_B maps P̃_A ⊗ P̃_B to P_A ⊗ P_B and each mixture component to the
   corresponding one: mixing is monotone in the Blackwell order in both arguments. So we may work with
   the laws of T under P: T_{A∪B} = T_A + T_B (independent under P, a convolution), and
   q₊∞(A∪B) = (a·q₊∞(A) + b·q₊∞(B))/(a + b) (an outcome singular to P on A stays singular).
3. **Re-gridding.** After each convolution the atoms are put back on a grid of at most a few thousand
   points (0, then points m·e^u with u uniform around the bulk and geometrically spaced in the tails):
   pessimistic side by the split (atoms above the top point v_top: P-mass to v_top, the Q-mass excess
   P·(t − v_top) to +∞ — again the inverse of a merge), optimistic side by the merge of each grid cell.
   Both exact in the Blackwell order, so by step 2 the pessimistic law at every node is more informative
   than the truth and the optimistic one less informative.
4. **Binary doubling.** T over k coordinates is built from the binary expansion of k: nodes of size 2ʲ by
   mixing a node with itself (step 2), then the nodes of the set bits mixed together. k = 10⁵ needs 17
   doublings; each costs one convolution of two ≤ n-atom laws (n ≈ 10³, direct, vectorised).
5. **Floating point.** Masses are products and positive sums. With e_A = a bound on ‖ΔP‖₁ and ‖ΔQ‖₁ of
   node A, the product masses err by ≤ e_A + e_B (+ 2u) in L¹ and a positive sum by ≤ (its error
   constant)·u relatively (recursive summation of n terms: (n − 1)·u; the code sums each row of a block
   first, then across rows by a balanced tree, :class:`_Bins`); the split weights by ≤ 4u of the atom's masses. So
   e_{A∪B} ≤ e_A + e_B + 2·(terms + 8)·u·2; the leaf starts from the partition's bound. A node used twice
   (doubling) counts its error twice, so e_k ≈ k·(e_leaf + a few hundred u). The final bound is handed to the engine as the cells' relative error (it enters η as
   Σ mass·rel ≥ the L¹ error).
6. **E epochs.** The final laws (ℓ = log(T/k)) become a fine partition for the certified composition
   engine (tradeoff/compose.py steps 1–8, the SGM engine's ``_build_side``): each atom is one cell,
   split (pessimistic) or merged (optimistic) onto the engine's loss grid and composed E times by FFT
   with its a-priori error bound η.

>>> c = compose_random_allocation(1.0, 4, 1)
>>> from dpcompare.composition.sgm_certified import profile_bracket
>>> b = profile_bracket(c, 1.0)
>>> bool(0 < b.optimistic <= b.pessimistic < 0.2)
True
"""

from __future__ import annotations

import functools
import math
import time
from dataclasses import dataclass

import numpy as np

from ..composition.sgm_compose import CertifiedComposition, _build_side, fft_workers, lazy_pessimistic_side
from ..composition.sgm_grid import KAPPA_H, MAX_STEP_POINTS
from ..composition.sgm_step import sgm_partition
from ..tradeoff.grid import U, StepPartition, rel_err_mass, pessimistic_step
from ..tradeoff.pair import Rounding

#: bulk grid spacing of a node, in units of its loss standard deviation (step 3)
GRID_C = 0.02
#: half-width of the uniform bulk of a node's grid, in standard deviations
BULK_SDS = 8.0
#: the node grid's lowest positive point is m·e^{−BOTTOM_NATS} (below: split with the point 0)
BOTTOM_NATS = 60.0
#: tail mass cut off at the leaf (to ratio 0 / +∞, on the safe side)
LEAF_TAIL = 1e-25
#: largest number of pairs summed in one block of the direct convolution
BLOCK = 1 << 20
#: rows of a block summed together (recursively) before the balanced tree across row groups (:class:`_Bins`)
ROW_GROUP = 16
#: P- and Q-mass (each) of the lightest atoms lumped after every mix (:func:`_prune`)
PRUNE_MASS = 1e-20
#: largest k and E accepted
MAX_STEPS = 10**6
MAX_EPOCHS = 10**4


@dataclass(frozen=True, eq=False)
class _Node:
    """The law under P of T = Σ_{i ∈ A} Yᵢ over ``size`` coordinates: atoms ``t`` (sorted, ≥ 0) with P-masses
    ``w``; ``q_inf`` the Q-mass at +∞ (fraction of Q); ``err`` the L¹ floating-point bound (step 5)."""

    size: int
    t: np.ndarray
    w: np.ndarray
    q_inf: float
    err: float


def _loss_scale(m: int, sigma: float) -> float:
    """Spread of log(T/m) used to size the node grid: sd of the mean of m lognormals (mean 1), at most the
    leaf's 1/σ (any value gives a certified result; this one sets the accuracy/speed balance)."""
    s_mean = math.sqrt(math.expm1(min(1.0 / (sigma * sigma), 700.0)) / m)
    return min(s_mean, 1.0 / sigma)


def _node_grid(m: int, sigma: float, t_max: float, c: float) -> np.ndarray:
    """Grid points of a node of size m (step 3): 0, then m·e^u for u uniform (spacing c·s) on
    [−BULK_SDS·s, BULK_SDS·s] and geometrically growing spacing (factor 1 + c) outside, down to
    −BOTTOM_NATS and up to log(t_max/m)."""
    s = _loss_scale(m, sigma)
    h = c * s
    half = BULK_SDS * s
    u_top = max(math.log(t_max / m), half) if t_max > 0 else half
    nb = int(math.ceil(half / h))
    core = np.arange(-nb, nb + 1) * h

    def tail(limit: float) -> np.ndarray:
        if limit <= nb * h:
            return np.empty(0)
        # spacings h·g^j, j = 1, 2, …: number of points to reach the limit
        g = 1.0 + c
        need = (limit - nb * h) / h * (g - 1.0) + 1.0
        n = int(math.ceil(math.log(need) / math.log(g))) + 1
        steps = h * g ** np.arange(1, n + 1)
        return nb * h + np.cumsum(steps)

    up = tail(u_top)
    down = tail(BOTTOM_NATS)
    u = np.concatenate([-down[::-1], core, up])
    v = m * np.exp(u)
    if t_max > 0:
        v = v[v < t_max]
        v = np.append(v, t_max)
    return np.concatenate([[0.0], v])


def _leaf(sigma: float, rounding: Rounding, c: float) -> _Node:
    """Step 1: the pessimistic (split) or optimistic (merged cells) law of Y = e^{(x − ½)/σ²} under P."""
    h = c / sigma
    part = sgm_partition(sigma, 1.0, h, sub=1, tail=LEAF_TAIL)
    err = rel_err_mass(part)
    if rounding is Rounding.PESSIMISTIC:
        st = pessimistic_step(part)
        fin = np.isfinite(st.log_p)
        t = np.exp(st.losses[fin])
        w = np.exp(st.log_p[fin])
        t = np.concatenate([[0.0], t])
        w = np.concatenate([[st.p_neg_inf], w])
        return _prune(_Node(1, t, w, float(st.q_pos_inf), err + 16 * U), rounding)
    lp = np.concatenate([[part.tail_lo[0]], np.asarray(part.log_p), [part.tail_hi[0]]])
    lq = np.concatenate([[part.tail_lo[1]], np.asarray(part.log_q), [part.tail_hi[1]]])
    ok = np.isfinite(lp) & np.isfinite(lq)
    t = np.exp(lq[ok] - lp[ok])
    w = np.exp(lp[ok])
    # a cell with one mass underflowed to 0 is left out: its other mass (< e^{−745} or tail-sized) joins the bound
    lost = float(np.sum(np.exp(lp[~ok & np.isfinite(lp)])) + np.sum(np.exp(lq[~ok & np.isfinite(lq)])))
    order = np.argsort(t, kind="stable")
    return _prune(_Node(1, t[order], w[order], 0.0, err + lost + 16 * U), rounding)


def _prune(node: _Node, rounding: Rounding, budget: float = PRUNE_MASS) -> _Node:
    """Lump the lightest atoms (P- and Q-mass each ≤ ``budget`` in all), exactly: pessimistic side by the
    spread of each to ratio 0 (its P-mass) and +∞ (its Q-mass); optimistic side by merging them into one
    atom at their conditional mean (any set of outcomes may be merged)."""
    m = node.size
    order = np.argsort(node.w, kind="stable")
    wp = node.w[order]
    wq = wp * node.t[order] / m
    ok = (np.cumsum(wp) <= budget) & (np.cumsum(wq) <= budget)
    n_drop = int(np.argmin(ok)) if not ok.all() else ok.size
    if n_drop < 2:
        return node
    drop = np.zeros(node.t.size, dtype=bool)
    drop[order[:n_drop]] = True
    if rounding is Rounding.PESSIMISTIC:
        keep_t, keep_w = node.t[~drop], node.w[~drop]
        p0 = float(np.sum(node.w[drop]))
        q_add = float(np.sum(node.w[drop] * node.t[drop])) / m
        if keep_t.size and keep_t[0] == 0.0:
            keep_w = keep_w.copy()
            keep_w[0] += p0
        else:
            keep_t, keep_w = np.concatenate([[0.0], keep_t]), np.concatenate([[p0], keep_w])
        return _Node(m, keep_t, keep_w, node.q_inf + q_add, node.err + 4 * U)
    wd = float(np.sum(node.w[drop]))
    td = float(np.sum(node.w[drop] * node.t[drop])) / wd
    t = np.concatenate([node.t[~drop], [td]])
    w = np.concatenate([node.w[~drop], [wd]])
    o = np.argsort(t, kind="stable")
    return _Node(m, t[o], w[o], node.q_inf, node.err + 4 * U * n_drop)


class _Bins:
    """Accumulators of the split (pessimistic) or merge (optimistic) of weighted atoms onto grid ``v`` (step 3).

    The atoms are sums of two node atoms, so they never exceed v[-1] = the sum of the two largest atoms
    (floating-point addition is monotone): no mass spills above the grid. Sums are formed per row of the
    block (few terms per grid point), then across rows by a balanced tree of row additions,
    then across blocks, and :attr:`terms` bounds the resulting relative error in units of u (step 5):
    (largest count per group and grid point) + (⌈log₂ groups⌉ + 1 levels of the tree) + (number of blocks)."""

    def __init__(self, v: np.ndarray, pess: bool) -> None:
        self.v, self.pess = v, pess
        self.nv = v.size
        self.inv_width = 1.0 / np.diff(v)
        self.w = np.zeros(v.size)
        self.m = np.zeros(v.size)
        self.row_count = 0.0
        self.log_rows = 0.0
        self.blocks = 0

    def _rows_sum(self, flat: np.ndarray, weights: np.ndarray, rows: int) -> np.ndarray:
        """Σ over rows of the per-row bin sums, as a balanced tree of row additions (⌈log₂ rows⌉ + 1 levels)."""
        m = np.bincount(flat, weights=weights, minlength=rows * self.nv).reshape(rows, self.nv)
        while m.shape[0] > 1:
            h = m.shape[0] // 2
            top = m[:h] + m[h : 2 * h]
            if m.shape[0] % 2:
                top[0] += m[-1]
            m = top
        return m[0]

    def add(self, s: np.ndarray, w: np.ndarray) -> None:
        """Add the atoms s (rows × cols) with P-masses w."""
        rows, nv = s.shape[0], self.nv
        idx = np.searchsorted(self.v, s.ravel(), side="right") - 1
        np.clip(idx, 0, nv - 2, out=idx)  # s = v[-1] splits onto the last interval with fraction 1
        groups = -(-rows // ROW_GROUP)
        flat = (idx.reshape(rows, -1) + (nv * (np.arange(rows) // ROW_GROUP))[:, None]).ravel()
        rows = groups
        s, w = s.ravel(), w.ravel()
        self.row_count = max(self.row_count, float(np.bincount(flat).max()) + 1.0)
        self.log_rows = max(self.log_rows, math.ceil(math.log2(max(rows, 1))) + 1)
        self.blocks += 1
        if self.pess:
            frac = (s - self.v[idx]) * self.inv_width[idx]
            np.clip(frac, 0.0, 1.0, out=frac)
            wf = w * frac
            self.w += self._rows_sum(flat, w - wf, rows)
            self.w[1:] += self._rows_sum(flat, wf, rows)[: nv - 1]
        else:
            self.w += self._rows_sum(flat, w, rows)
            self.m += self._rows_sum(flat, w * s, rows)

    @property
    def terms(self) -> float:
        return self.row_count + self.log_rows + self.blocks


def _mix(a: _Node, b: _Node, rounding: Rounding, sigma: float, c: float) -> _Node:
    """Steps 2–3: the law of T_A + T_B (direct convolution in blocks), split or merged onto the node grid.
    Mixing a node with itself sums each unordered pair of atoms once (weight 2·wᵢwⱼ off the diagonal)."""
    m = a.size + b.size
    t_max = float(a.t[-1] + b.t[-1])
    v = _node_grid(m, sigma, t_max, c)
    pess = rounding is Rounding.PESSIMISTIC
    bins = _Bins(v, pess)
    n = b.t.size
    rows = max(1, BLOCK // max(1, n))
    for i in range(0, a.t.size, rows):
        i1 = min(i + rows, a.t.size)
        ta, wa = a.t[i:i1, None], a.w[i:i1, None]
        if a is b:
            # the square block: pairs j ≥ i once (weight 2 above the diagonal), then the columns right of it
            sq = np.triu(np.full((i1 - i, i1 - i), 2.0), 1) + np.eye(i1 - i)
            bins.add(ta + b.t[None, i:i1], wa * b.w[None, i:i1] * sq)
            if i1 < n:
                bins.add(ta + b.t[None, i1:], 2.0 * wa * b.w[None, i1:])
        else:
            bins.add(ta + b.t[None, :], wa * b.w[None, :])
    # products (2u), split weights (4u), sums (terms·u), in P and Q (×2)
    err = a.err + b.err + 2.0 * (bins.terms + 8.0) * U * 2.0
    q_inf = (a.size * a.q_inf + b.size * b.q_inf) / m
    keep = bins.w > 0
    if pess:
        return _prune(_Node(m, v[keep], bins.w[keep], q_inf, err), rounding)
    t = bins.m[keep] / bins.w[keep]
    # a cell's mean lies in the cell; rounding cannot reorder cells by more than an ulp: keep it sorted
    t = np.maximum.accumulate(t)
    return _prune(_Node(m, t, bins.w[keep], q_inf, err), rounding)


def allocation_law(sigma: float, k: int, rounding: Rounding, c: float = GRID_C) -> _Node:
    """Step 4: the certified law of T = Σᵢ₌₁ᵏ Yᵢ under P (pessimistic or optimistic side), by binary doubling."""
    node = _leaf(sigma, rounding, c)
    acc = None
    bit = 0
    kk = k
    while True:
        if kk & 1:
            acc = node if acc is None else _mix(acc, node, rounding, sigma, c)
        kk >>= 1
        bit += 1
        if not kk:
            break
        node = _mix(node, node, rounding, sigma, c)
    assert acc is not None and acc.size == k
    return acc


@functools.lru_cache(maxsize=8)
def _cached_law(sigma: float, k: int, rounding: Rounding, c: float) -> _Node:
    return allocation_law(sigma, k, rounding, c)


def _engine_partition(node: _Node, h_min: float | None = None, null_weight: float = 0.0) -> tuple[StepPartition, float]:
    """Step 6: the epoch pair as a fine partition for the certified engine (each atom one cell), and its grid h.

    ``null_weight`` π mixes the null into the alternative, Q' = π·P + (1 − π)·Q: ratio π + (1 − π)·L, Q-mass
    at +∞ scaled by 1 − π (exact: the same outcomes, the alternative's masses mixed)."""
    k = node.size
    pos = node.t > 0 if null_weight == 0.0 else np.ones(node.t.size, dtype=bool)
    p_neg_inf = float(np.sum(node.w[~pos]))
    loss = np.log(null_weight + (1.0 - null_weight) * (node.t[pos] / k))
    log_p = np.log(node.w[pos])
    log_q = log_p + loss
    q = np.exp(log_q)
    qs = float(np.sum(q))
    mean = float(np.sum(q * loss)) / qs
    sd = math.sqrt(max(float(np.sum(q * (loss - mean) ** 2)) / qs, 0.0))
    h = KAPPA_H * sd if sd > 0 else 1e-3
    if h_min is not None:
        h = max(h, h_min)
    span = float(loss[-1] - loss[0])
    if span / h > 2 * MAX_STEP_POINTS:
        h = span / (2 * MAX_STEP_POINTS)
    k_lo = math.floor(float(loss[0]) / h)
    k_hi = max(math.floor(float(loss[-1]) / h) + 1, k_lo + 1)
    cell_k = np.clip(np.floor(loss / h).astype(np.int64) - k_lo, 0, k_hi - k_lo - 1)
    cell_k = np.maximum.accumulate(cell_k)
    part = StepPartition(h, 0.0, k_lo, k_hi, cell_k, log_p, log_q, rel_err=node.err + 8 * U,
                         p_neg_inf=p_neg_inf, q_pos_inf=min((1.0 - null_weight) * node.q_inf, 1.0))
    return part, h


def check_allocation(sigma: float, steps: int, epochs: int) -> None:
    """Raise ValueError naming the field for parameters outside the supported range."""
    if isinstance(sigma, bool) or not isinstance(sigma, (int, float)) or not math.isfinite(sigma) or not 0.05 <= sigma <= 1e3:
        raise ValueError(f"noise_multiplier must be a number in [0.05, 1000] for balls-in-bins accounting, got {sigma!r}")
    for name, v, hi in (("steps per epoch", steps, MAX_STEPS), ("epochs", epochs, MAX_EPOCHS)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or not 1 <= int(v) <= hi:
            raise ValueError(f"{name} must be an integer in [1, {hi}], got {v!r}")


@functools.lru_cache(maxsize=16)
def compose_random_allocation(sigma: float, steps: int, epochs: int, grid: float = GRID_C, *,
                              null_weight: float = 0.0) -> CertifiedComposition:
    """Certified pessimistic/optimistic *remove* pairs of ``epochs`` epochs of random allocation over
    ``steps`` steps with Gaussian noise σ (sensitivity 1), with their error bounds η (module docstring).

    ``grid`` is the node grid's relative spacing c (smaller: tighter and slower; any value is certified).
    The pairs are asymmetric (remove); symmetrise for the add/remove mechanism
    (:func:`dpcompare.composition.sgm_certified.profile_bracket` reads both directions). ``null_weight`` π ∈ [0, 1)
    gives the pair (P, π·P + (1 − π)·Q) instead (the shuffle instance of :mod:`dpcompare.mechanisms.allocation`).
    """
    check_allocation(sigma, steps, epochs)
    if not (isinstance(null_weight, (int, float)) and 0.0 <= null_weight < 1.0):
        raise ValueError(f"null_weight must be in [0, 1), got {null_weight!r}")
    sigma, steps, epochs = float(sigma), int(steps), int(epochs)
    t0 = time.perf_counter()
    workers = fft_workers()
    # the pessimistic side's far-tail passes (tradeoff/compose.py step 6″) are built only for questions that reach the
    # far tail (sgm_certified.composition_epsilon, composition_for_profile): they cost as much as the rest
    part, h_used = _engine_partition(_cached_law(sigma, steps, Rounding.PESSIMISTIC, grid), None, float(null_weight))
    pess = lazy_pessimistic_side(part, epochs, h_used, workers=workers)
    part, h = _engine_partition(_cached_law(sigma, steps, Rounding.OPTIMISTIC, grid), h_used, float(null_weight))
    opt, rep = _build_side(part, epochs, h, Rounding.OPTIMISTIC, workers)
    errs = (pess.numerical_error, rep.numerical_error + 64 * U)
    return CertifiedComposition(pess.pair, opt, max(errs), h, epochs, (pess.report, rep),
                                time.perf_counter() - t0, errs, pess)


def epsilon_bracket(sigma: float, steps: int, epochs: int, delta: float, grid: float = GRID_C) -> tuple[float, float]:
    """(lower, upper) certified bracket of ε(δ) of the add/remove random allocation (symmetrised profile).

    Upper: the smallest ε where the pessimistic δ + η ≤ δ. Lower: the smallest ε where the optimistic
    δ − η ≤ δ; below it the true δ exceeds δ, so the true ε is at least that.

    >>> lo, hi = epsilon_bracket(2.0, 10, 2, 1e-5)
    >>> bool(0 < lo <= hi < 3.0)
    True
    """
    from ..composition.sgm_certified import composition_epsilon, pair_epsilon

    c = compose_random_allocation(sigma, steps, epochs, grid)
    hi = composition_epsilon(c, delta)[1]  # with the far-tail passes where δ needs them
    lo = pair_epsilon(c.optimistic, -c.optimistic_error, delta)
    # the solver returns a point where δ ≤ target, a hair above the crossing: step back by its tolerance
    lo = max(0.0, lo * (1.0 - 1e-12) - 1e-300) if math.isfinite(lo) else lo
    return lo, max(hi, lo)
