"""The regular groups of the greedy merge (:mod:`dpcompare.tradeoff.grid_merge`) evaluated for a whole run of
grid intervals at once, with numpy, instead of one loop iteration per group.

On a run of *fast* intervals (each interval's atoms are the members of one group, which absorbs atoms of the
next interval only) the walk is a chain: the group of interval J starts at atom i_J with the fraction x_J of
it already taken by the previous group, and its decisions give the state (i_{J+1}, x_{J+1}) the next group
starts from:

    D = S_d(i) + (1 − x)·d_i                           members' deficit (S_d: the deficits after i, d_i its own)
    m = first atom of J + 1 whose cumulated excess covers D/ρ_J
    (i', x') = (end_J, 0)                              balanced by the members alone (D ≤ 64u·P-mass)
             | (m, 0)                                  balanced after whole atoms (up to 64u·P-mass)
             | (m + 1, 0)                              the fraction of atom m is 1 up to 64u
             | (m, (D/ρ_J − C_{m−1})/e_m)             the fraction t of atom m is absorbed

For a fixed path of decisions the fraction is affine in the previous one, x_{J+1} = A_J + B_J·x_J (t above,
with B_J = −d_i/(ρ_J·e_m)). The path itself is nearly periodic on the DP-SGD partitions: a group starts at
the same place in its interval as the group two before it (on the partitions of ``describe``'s
SGM(1, 0.01) and of the [BCP] Theorem 3 pair this fails 2 to 4 times in 14 000 to 57 000 groups). So, from
the last two states the loop would have reached:

1. predict the path of the next window of groups (each starts where the one two before started, relative to
   its interval's first atom);
2. solve the affine recurrence of that path by a prefix scan of affine maps (log₂ of the window's length
   vector passes);
3. check every state against the loop's own step from the state before it, vectorised: the same atom, the
   same kind of group, and a fraction within ``TOL_U`` units of the rounding of t = (D/ρ − C)/e (whose
   rounding is relative to (D/ρ)/e, not to t);
4. accept the groups up to the first state that fails, take that group as the loop does (in Python, the
   loop's operations), and predict again from there.

The accepted groups make the loop's decisions, each from a state the loop would reach up to rounding. The
masses agree with the loop's to rounding carried along the chain of fractions, which is not contracting
(|B_J·B_{J+1}| is near 1 on these partitions: the chain does not forget its state, a walk started elsewhere
settles into another equally balanced pattern). Measured with ``benchmarks/bench_greedy_merge.py``: ≤ 1.4e-14
relative on ``describe``'s and the [BCP] Theorem 3 pair's partitions and on the default grids of its sweep
(SGM(σ, p), σ 0.6–3, p 1e-3–0.2, N = 10³); on 0.3× those grids up to 5.4e-8, on cells holding < 1e-10 of
the mass (there the loop itself differs from the atom-by-atom merge by up to 1.6e-8). The tests hold the
chain to 1e-9 relative (or 1e-13 of the total mass, the far tails) of the loop on DP-SGD partitions and on
random inputs.

**Why the landing is certified whichever chain of fractions it follows.** The optimistic landing must be a
post-processing of the input up to the Q-mass returned beside it (which the caller adds to the step's error:
moving Q-mass τ changes δ(ε) = sup_S Q(S) − e^ε·P(S) by at most τ). A landing of groups each of loss exactly
its grid point is one: merging outcomes of one likelihood ratio e^g into one outcome loses no mass and keeps
the ratio. The chain's landing differs from exact balance only where it says:

* every group is a part of the input: 1 − x_J of its first atom (x_J is the fraction the previous group took),
  whole atoms, and x_{J+1} of atom m_J, with 0 ≤ x_{J+1} < 1 checked; the next group starts at the same atom
  with 1 − x_{J+1} of it (the same double), so no atom's P-mass is created or lost beyond the product's last
  bit, as in the loop;
* a group's residual deficit (P-units) is D/ρ − C_{m−1} − x_{J+1}·e_m = (t − x_{J+1})·e_m, with t the loop's
  fraction computed by the loop's operations from the chain's state x_J: the chain adds
  |x_{J+1} − t|·e_m·ρ·e^{scale + g} to the returned Q-mass (e^{scale + g} capped at e^h against overflow on
  inputs that are not laws; on a law the cap is never reached, as the interval's largest atom has Q-mass
  e^{scale + λ} ≤ 1 with λ > g − h). On the bench's partitions this is 1e-24 to 1e-20 of the total;
* groups balanced by their members, after whole atoms, or by a fraction 1 up to 64u (``SNAP``) add the
  loop's snapped amounts, by the loop's expressions, in walk order.

So the returned Q-mass covers every deviation from exact balance beyond the loop's own last-bit rounding of
t, and how closely the masses follow the loop's is a measured property, not part of the certificate.
Windows that keep failing within 16 groups, and groups that absorb beyond the next interval (the loop's
atom-by-atom case), hand the walk back to the loop; :func:`dpcompare.tradeoff.grid_merge.greedy_merge`
decides up front where the chain is called at all (long fast runs, away from such groups, while its cost
model allows).

>>> import numpy as np
>>> from dpcompare.composition.sgm_step import sgm_partition
>>> from dpcompare.tradeoff.grid_merge import greedy_merge
>>> part = sgm_partition(1.0, 0.01, 1.31e-4)          # the one-step partition of describe's SGM(1, 0.01)
>>> ok = np.isfinite(part.log_p) & np.isfinite(part.log_q)
>>> lam, lp = part.log_q[ok] - part.log_p[ok], part.log_p[ok]   # its cells (optimistic_step adds two tails)
>>> grid = (part.h, part.offset, part.k_lo, part.k_hi)
>>> a, sa = greedy_merge(lam, lp, *grid)                # 56 000 groups, 99 % of them the chain's
>>> b, sb = greedy_merge(lam, lp, *grid, chain=False)   # one loop iteration per group
>>> fin = np.isfinite(b)
>>> bool(np.array_equal(np.isfinite(a), fin)) and float(np.max(np.abs(np.expm1(a[fin] - b[fin])))) < 1e-9
True
>>> 0.0 <= sa - sb < 1e-20                  # the chain's off-balance Q-mass, added to the loop's snapped mass
True
"""

from __future__ import annotations

import math
from bisect import bisect_left

import numpy as np

from .grid import SNAP, U

#: runs of fewer fast intervals than this are left to the loop (the vector passes have a fixed cost)
MIN_CHAIN = 2048

#: groups predicted and checked at once at first (×4 after a window without a misprediction, 2× the groups
#: accepted after one with)
WINDOW = 1024
#: a window whose misprediction came within this many groups did not pay for its vector passes (≈ 0.2–0.5 ms,
#: the loop's time for a few hundred groups) …
STRIKE_BELOW = 16
#: … and after more such windows than this the call hands the walk back to the loop (which calls the chain again
#: only after a stretch of its own, twice as long each time)
MAX_STRIKES = 3
#: the cost of one window (its ≈ 60 vector operations) and of each group it computes, in groups of the loop's
#: work (≈ 1 µs each; measured on the partitions of ``benchmarks/bench_greedy_merge.py``): a call is given a
#: credit in these units, starts no window without credit, and returns what is left
WINDOW_COST = 500.0
GROUP_COST = 0.5
#: the smallest window (after a misprediction at group k of a window, the next one has 2k groups)
MIN_WINDOW = 64
#: a fraction agrees with the step from its predecessor when within this many units of its rounding
TOL_U = 16.0

# the kinds of group, as ``_step`` classifies them
_EMPTY, _ALONE, _WHOLE, _SNAPT, _FRAC, _STOP = 0, 1, 2, 3, 4, 5


def solve_chain(tb: dict, K0: int, i0: int, x0: float, K1: int, limit: int | None = None,
                credit: float = math.inf):
    """The groups of the fast intervals K0 … K1 − 1 of the tables ``tb`` (``grid_merge._tables``' arrays),
    entered at atom ``i0`` of K0 with the fraction ``x0`` of it taken (only the first ``limit`` of them, and only
    while the windows' worst-case cost fits in ``credit``, in groups of the loop's work).

    Returns (the interval of each group, its P-mass / e^{scale of the interval}, the snapped Q-masses in walk
    order, the atom and the taken fraction the walk leaves the chain at, whether it left at a group the chain
    cannot take or at the run's end rather than because the predictions kept failing or the credit ran out,
    and the credit left: ``credit`` plus the groups accepted less the windows' cost).
    """
    # (past a misprediction the maps are meaningless and may overflow; every value read from such a state is
    # rejected by the checks: one floating-point error state for the whole call, not one per vector pass)
    with np.errstate(all="ignore"):
        return _solve_chain(tb, K0, i0, x0, K1, limit, credit)


def _solve_chain(tb: dict, K0: int, i0: int, x0: float, K1: int, limit: int | None, credit: float):
    """:func:`solve_chain`'s work (under its floating-point error state)."""
    R = K1 - K0 if limit is None else min(K1 - K0, limit)  # (at most ``limit`` groups: the arrays are O(R))
    end = tb["end"]
    I = np.zeros(R + 1, dtype=np.int64)
    X = np.zeros(R + 1)
    I[0], X[0] = i0, x0
    kind = np.full(R, _STOP, dtype=np.int8)
    pg = np.zeros(R)
    keep = {k: np.zeros(R) for k in ("D", "rem", "tt", "ex")}
    p0 = 0  # states 0 … p0 are the loop's (up to rounding); groups 0 … p0 − 1 are done
    window, strikes, stopped = WINDOW, 0, True
    off_balance = 0.0  # Q-mass of the deficits the accepted fractions leave (each within TOL_U roundings)
    while p0 < R:
        if p0 < 2:  # the prediction needs two states: one group as the loop does it
            if not _one(tb, K0, p0, I, X, kind, pg, keep):
                break
            p0 += 1
            continue
        if credit <= 0.0:  # no window without credit (one may overdraw it)
            stopped = False
            break
        n = min(R - p0, window)
        credit -= WINDOW_COST + GROUP_COST * n
        P = np.arange(p0, p0 + n)
        # the predicted path: each group starts at the same place in its interval as the one two before
        Kp = K0 + P
        first = end[Kp - 1]
        off = np.where((P - p0) % 2 == 0, I[p0] - end[K0 + p0 - 1], I[p0 - 1] - end[K0 + p0 - 2])
        Ipred = np.minimum(first + off, end[Kp])
        Ipred[0] = I[p0]
        m = np.empty(n, dtype=np.int64)
        m[:-1] = Ipred[1:]
        last = K0 + p0 + n - 1  # (the window's last group ends where its pattern says)
        m[-1] = min(end[last] + (I[p0 - 1] - end[K0 + p0 - 2] if n % 2 else I[p0] - end[K0 + p0 - 1]), end[last + 1])
        A, B = _affine(tb, Kp, Ipred, m)
        Ib, Xb = I[p0 : p0 + n + 1].copy(), X[p0 : p0 + n + 1].copy()
        Ib[1:] = m
        d = 1
        while d < n:  # x_{p+1} = A'_p + B'_p·x_{p0}: a prefix scan of the affine maps
            A2 = A[d:] + B[d:] * A[:-d]
            B[d:] = B[d:] * B[:-d]
            A[d:] = A2
            d *= 2
        Xb[1:] = A + B * X[p0]
        nI, nX, res = _step(tb, K0, P, Ib[:-1], Xb[:-1], Xb[1:])
        bad = _inconsistent(tb, K0, P, Ib, Xb, nI, nX, res)
        fb = int(np.argmax(bad)) if bad.any() else n
        # groups p0 … p0 + fb − 1 and states up to p0 + fb agree with the loop's steps
        sl = slice(p0, p0 + fb)
        I[p0 + 1 : p0 + fb + 1], X[p0 + 1 : p0 + fb + 1] = Ib[1 : fb + 1], Xb[1 : fb + 1]
        kind[sl], pg[sl] = res["kind"][:fb], res["pg"][:fb]
        fr = np.flatnonzero(res["kind"][:fb] == _FRAC)
        if fr.size:  # the group took the next state's fraction, not its own t: |x − t|·e_m·ρ of deficit left
            Kf = Kp[fr]
            dev = np.abs(Xb[1:][fr] - res["tt"][fr]) * res["ex"][fr] * tb["rho"][Kf]
            # (Q-units: × e^{scale + g}, capped at e^h against overflow on inputs that are not laws: where Q is a
            # probability the cap is never reached, as the interval's largest atom has Q-mass e^{scale + λ} ≤ 1
            # with λ > g − h)
            off_balance += float(np.sum(dev * np.exp(np.minimum(tb["scale"][Kf] + tb["G"][Kf], tb["h"]))))
        for k, v in keep.items():
            v[sl] = res[k][:fb]
        p0 += fb
        credit += fb
        if fb == n:
            window *= 4
            continue
        window = max(MIN_WINDOW, 2 * fb)  # (the window a misprediction would have cost little in)
        strikes += fb < STRIKE_BELOW
        if not _one(tb, K0, p0, I, X, kind, pg, keep):  # the mispredicted group, as the loop does it
            break
        p0 += 1
        if strikes > MAX_STRIKES:
            stopped = False
            break
    E = p0
    stops = np.flatnonzero(kind[:E] == _STOP)
    if stops.size:
        E = int(stops[0])
    kinds = kind[:E]
    grp = np.flatnonzero(kinds != _EMPTY)
    snaps = _snapped(tb, K0, kinds, keep)
    if off_balance > 0.0:
        snaps.append(off_balance)
    return grp + K0, pg[grp], snaps, int(I[E]), float(X[E]), stopped or E < p0, credit


def _one(tb, K0, p, I, X, kind, pg, keep) -> bool:
    """Group p from state p as the loop takes it (state p + 1 with it); False where the chain must stop."""
    ni, nx, k, g, dv, rm, tt, ex = _step1(tb, K0 + p, int(I[p]), float(X[p]))
    kind[p], pg[p] = k, g
    keep["D"][p], keep["rem"][p], keep["tt"][p], keep["ex"][p] = dv, rm, tt, ex
    if k == _STOP:
        return False
    I[p + 1], X[p + 1] = ni, nx
    return True


def _affine(tb: dict, K: np.ndarray, Ii: np.ndarray, m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """x_{p+1} = A_p + B_p·x_p for the group of interval K from atom Ii to a fraction of atom m:
    t = ((S_d + (1 − x)·d)/ρ − C_{m−1})/e_m (A = B = 0 where that path is impossible)."""
    end = tb["end"]
    a, b = end[K], end[K + 1]
    ok = (Ii >= end[K - 1]) & (Ii < a) & (m >= a) & (m < b)
    ii, mm = np.where(ok, Ii, 0), np.where(ok, m, 1)
    rh, ex, d = tb["rho"][K], tb["xs"][mm], tb["dm"][ii]
    c = np.where(mm > a, tb["cume"][mm - 1], 0.0)
    A = ((tb["sufd"][ii] + d) / rh - c) / ex
    B = -d / (rh * ex)
    ok &= np.isfinite(A) & np.isfinite(B)
    return np.where(ok, A, 0.0), np.where(ok, B, 0.0)


def _inconsistent(tb: dict, K0: int, P: np.ndarray, I: np.ndarray, X: np.ndarray, nI: np.ndarray,
                  nX: np.ndarray, res: dict) -> np.ndarray:
    """Where state p + 1 is not the loop's step from state p: another atom, a fraction taken where the
    step resets (or none where it takes one), or a fraction off by more than ``TOL_U`` units of rounding of
    its own computation t = (D/ρ − C)/e (whose rounding is relative to (D/ρ)/e, not to t)."""
    scale = 1.0 + np.abs(res["D"] / tb["rho"][P + K0]) / res["ex"]
    off = np.abs(nX - X[1:]) > TOL_U * U * scale
    frac = res["kind"] == _FRAC
    # (a fraction must be one: 0 ≤ x < 1, so that each atom's mass is split between two groups, never more)
    outside = ~((X[1:] >= 0.0) & (X[1:] < 1.0))
    return (nI != I[1:]) | np.where(frac, off | ~np.isfinite(nX) | outside, X[1:] != 0.0)


def _tol(dn: float, ex: float) -> float:
    """How far a fraction t = (D/ρ − C)/e may be from its recomputation: ``TOL_U`` units of its rounding."""
    return TOL_U * U * (1.0 + abs(dn) / ex)


def _step1(tb: dict, K: int, i: int, x: float, x_next: float | None = None):
    """:func:`_step` for one state (Python scalars, the same operations in the same order)."""
    end, w, rho, cume = tb["end_l"], tb["w_l"], tb["rho_l"], tb["cume_l"]
    a, b = end[K], end[K + 1]
    if i == a:
        return a, 0.0, _EMPTY, 0.0, 0.0, 0.0, 0.0, 0.0
    r = 1.0 - x
    wi = w[i]
    pg = r * wi + tb["sufw_l"][i]
    D = tb["sufd_l"][i] + r * tb["dm_l"][i]
    if D <= SNAP * pg:
        return a, 0.0, _ALONE, pg, D, 0.0, 0.0, 0.0
    rh = rho[K]
    Dn = D / rh
    m = bisect_left(cume, Dn, a, b)
    if m == b:
        return a, 0.0, _STOP, pg, D, 0.0, 0.0, 0.0
    rem = Dn - cume[m - 1] if m > a else Dn
    whole = tb["cumw_l"][m]
    if m > a and rem <= SNAP * (pg / rh + whole):
        return m, 0.0, _WHOLE, pg + whole * rh, D, rem, 0.0, 0.0
    ex = tb["xs_l"][m]
    tt = rem / ex
    if tt > 1.0 - SNAP:
        return m + 1, 0.0, _SNAPT, pg + (whole + w[m]) * rh, D, rem, tt, ex
    tf = tt if x_next is None else x_next
    return m, tt, _FRAC, pg + (whole + tf * w[m]) * rh, D, rem, tt, ex


def _step(tb: dict, K0: int, pos: np.ndarray, Ii: np.ndarray, x: np.ndarray, x_next: np.ndarray | None = None):
    """The loop's regular group of interval K0 + pos from atom ``Ii`` with the fraction ``x`` taken, for many
    at once: the same floating-point operations on the same table entries. Returns the next states and the
    group's kind, P-mass and the values its snapped amount is computed from."""
    end, w, sufw, sufd, dm = tb["end"], tb["w"], tb["sufw"], tb["sufd"], tb["dm"]
    cume, cumw, xs, rho, count = tb["cume"], tb["cumw"], tb["xs"], tb["rho"], tb["count"]
    K = pos + K0
    a, b = end[K], end[K + 1]
    empty = Ii == a
    valid = (Ii >= 0) & ~empty
    ii = np.where(valid, Ii, 0)
    r = 1.0 - x
    wi = w[ii]
    pg = r * wi + sufw[ii]
    D = sufd[ii] + r * dm[ii]
    alone = D <= SNAP * pg
    rh = rho[K]
    Dn = D / rh
    m = a.copy()  # bisect_left(cume, Dn, a, b): the runs of cume within an interval are non-decreasing
    for j in range(int(count[K + 1].max(initial=0))):
        idx = a + j
        inb = idx < b
        m += inb & (cume[np.where(inb, idx, 0)] < Dn)
    stop = valid & ~alone & (m == b)
    mm = np.where(m < b, m, a)
    rem = np.where(mm > a, Dn - cume[mm - 1], Dn)
    whole = cumw[mm]
    wc = (mm > a) & (rem <= SNAP * (pg / rh + whole))
    ex = xs[mm]
    tt = rem / ex
    st = tt > 1.0 - SNAP
    wm = w[mm]
    tf = tt if x_next is None else x_next  # the fraction of atom m absorbed (the next state's, if given)
    kind = np.full(pos.size, _FRAC, dtype=np.int8)
    kind[st] = _SNAPT
    kind[wc] = _WHOLE
    kind[alone] = _ALONE
    kind[stop] = _STOP
    kind[~valid] = _STOP
    kind[empty] = _EMPTY
    pg_out = np.where(kind == _ALONE, pg,
                      np.where(kind == _WHOLE, pg + whole * rh,
                               np.where(kind == _SNAPT, pg + (whole + wm) * rh, pg + (whole + tf * wm) * rh)))
    nI = np.where(kind == _SNAPT, mm + 1, mm)
    nI = np.where((kind == _ALONE) | (kind == _EMPTY), a, nI)
    nI = np.where(kind == _STOP, (a + b) // 2, nI)  # (a guess to go on from, as a block's first: the chain
    # ends at its first stop anyway)
    nX = np.where(kind == _FRAC, tt, np.where(kind == _STOP, 0.5, 0.0))
    return nI, nX, {"kind": kind, "pg": pg_out, "D": D, "rem": rem, "tt": tt, "ex": ex, "mm": mm}


def _snapped(tb: dict, K0: int, kinds: np.ndarray, keep: dict) -> list[float]:
    """The Q-mass each snapped group changes, in walk order: the loop's expressions, evaluated as it does."""
    G, scale, rho, h = tb["G"], tb["scale"], tb["rho"], tb["h"]
    exp, log = math.exp, math.log
    out = []
    for p in np.flatnonzero((kinds == _ALONE) | (kinds == _WHOLE) | (kinds == _SNAPT)).tolist():
        J, k = p + K0, int(kinds[p])
        if k == _ALONE:
            D = float(keep["D"][p])
            if D != 0.0:
                out.append(D * exp(min(float(scale[J]) + float(G[J]), h)))
        elif k == _WHOLE:
            out.append(float(keep["rem"][p]) * float(rho[J]) * exp(min(float(scale[J]) + float(G[J]), h)))
        else:
            tt, ex = float(keep["tt"][p]), float(keep["ex"][p])
            out.append((1.0 - tt) * exp(min(log(ex) + float(scale[J + 1]) + float(G[J]), 0.0)))
    return out
