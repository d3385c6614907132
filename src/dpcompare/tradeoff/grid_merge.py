"""Step 3 of :mod:`dpcompare.tradeoff.compose` (the optimistic landing on the grid): the greedy merge, one
*group* per loop iteration instead of one atom.

The greedy merge walks the atoms in loss order. A group with target g = o + k·h takes what is left of the
atom it starts at and every further atom with loss λ ≤ g (its *members*; their deficit
D = Σ pᵢ(1 − e^{λᵢ−g}) ≥ 0 in P-units), then absorbs atoms above g, whole while their excess
pᵢ(e^{λᵢ−g} − 1) does not cover what is left of D, and the fraction t of the atom that does; the merged
outcome has loss exactly g (a post-processing, so the input dominates the result), and the next group
starts at the remainder 1 − t of that atom. Deficits or fractions within rounding of the group's mass are
snapped (|D| ≤ 64u·P-mass of the group; t > 1 − 64u) and the Q-mass this changes is returned, to be added
to the step's error. A snapped deficit D (P-units) changes the Q-mass by D·e^g; with masses relative to the
interval's largest atom, e^s, that is D·e^{s+g}, and since that atom's loss λ > g − h and its Q-mass e^{s+λ} ≤ 1,
e^{s+g} < e^h: the factor is capped at e^h, a bound that needs no argument about the group (a group balanced up to
rounding has e^{s+g} ≤ its P-mass·e^g ≈ its Q-mass ≤ 1, so a cap at 1 is off by at most the rounding itself).
A snapped fraction's excess (1 − t)·p·(e^{λ−g} − 1)·e^g ≤ Q-mass of that atom ≤ 1 needs no cap beyond 1.

On the one-step partitions of :mod:`dpcompare.composition` the atoms lying in one grid interval (g − h, g]
all have target g and form the members of one group (the loop's *regular* case), and the group absorbs
atoms of the next occupied interval only. For every atom the values a group needs — its mass relative to its
interval's largest, its deficit −w·expm1(λ − g), its excess w·expm1(λ − g′) over the previous interval's
target g′, and the sums of these within the interval (sequential prefix and suffix sums) — are computed
vectorised once; a regular group then costs a bisection and a few float operations. A regular group whose
deficit the next interval's atoms do not cover absorbs them whole from the tables and goes on atom by atom
(:func:`_absorb`); every other group (an interval below the grid, a loss within rounding of a grid point,
a run of more than 16 atoms, masses more than e^600 apart) runs the atom-by-atom loop of the same greedy
(:func:`_scalar_group`). Both paths make the same decisions; they differ only in rounding (masses are
scaled per interval instead of per group), and the snapped amounts are accounted the same way. One
rounding-level rule is applied at the group's last whole atom of the next interval only: a regular group
is emitted as balanced after whole atoms when the deficit left after them is ≤ 64u·its P-mass (the
atom-by-atom loop checks it after every whole atom); otherwise it takes the exact fraction of the next
atom, which is balanced too. The masses landed agree with the atom-by-atom loop's only up to the rounding
carried along the chain of remainders, which the walk does not forget: ≤ 1e-8 relative on the DP-SGD
partitions of the tests (7.2e-9 on SGM(3, 9e-4)'s default grid, on masses 5e-5 of the total), but a
rounding-level difference can also send the two walks into different, equally balanced patterns (on
SGM(3, 0.2)'s default grid they differ by up to 3.2e-5 relative from a cell of its low tail on). Both are
post-processings of the input up to the snapped Q-mass, which is what the landing's certificate rests on and
what the tests check from the masses alone (conservation, δ_out(ε) ≤ δ_in(ε) + snap).

Where the loop's groups form a long chain of regular groups, :mod:`dpcompare.tradeoff.grid_chain` solves
them with numpy (the same decisions, each checked against this loop's step; its docstring argues why its
landing is certified whichever chain of fractions it follows), and hands the walk back here at the run's
end, at a group that absorbs beyond the next interval, or where its predictions keep failing. A window of
the chain has a fixed cost (≈ 0.5 ms) and pays only where ~1000 groups in a row follow its prediction, so
the path is chosen up front and kept in check by a deterministic cost model (no clock: the landing must not
depend on the load): the chain is called only on a run of at least ``MIN_CHAIN`` (2048) fast intervals,
not on the walk's first ``_WARM_UP`` (768) intervals (its low tail, where the path shifts every ~150 groups),
not within ``_CALM`` intervals after a group that absorbed beyond the next interval (where every other
group does, e.g. SGM(0.5, 0.2) or SGM(1, 0.01) at h = 1e-3, the loop walks alone and the landing is the
loop's, bit for bit), and only while it has credit: ``_CHAIN_RISK`` (5 %) of the loop's modelled work, plus
what its accepted groups saved, less what its windows cost (``grid_chain.WINDOW_COST``, ``GROUP_COST``);
spent, the loop walks the rest alone. ``chain=False`` walks every group here (the reference the chain is
tested against).

>>> import math
>>> c = math.log1p(math.exp(-0.05))       # P-masses ∝ (1, e^{−0.05}): the merged loss is exactly 0
>>> out, snap = greedy_merge([-0.05, 0.05], [-c, -0.05 - c], 0.1, 0.0, -1, 1)
>>> [round(math.exp(v), 12) for v in out]  # one atom at g = 0 holds all the mass
[0.0, 1.0, 0.0]
"""

from __future__ import annotations

import math
from bisect import bisect_left

import numpy as np

from .grid import SNAP, U, _land_leftover
from .grid_chain import MIN_CHAIN as _MIN_CHAIN
from .grid_chain import solve_chain

#: intervals holding more atoms than this take the atom-by-atom path (their tables would be wide)
_MAX_PER_INTERVAL = 16
#: largest |log| ratio between the largest masses of two neighbouring intervals on the regular path
_MAX_SCALE_GAP = 600.0
#: the chain is not called within this many intervals after a group that absorbed beyond the next interval …
_CALM = 64
#: … nor on the first this many intervals of the walk
_WARM_UP = 768
#: the chain may cost at most this share of the loop's work (and one window) more than the loop, in
#: ``grid_chain``'s cost model
_CHAIN_RISK = 0.05


def greedy_merge(lam, logp, h: float, o: float, k_lo: int, k_hi: int, *, chain: bool = True) -> tuple[np.ndarray, float]:
    """Step 3 on atoms sorted by loss ``lam`` (non-decreasing) with log P-masses ``logp``; returns the log
    P-masses on the grid o + k·h, k = k_lo … k_hi, and the Q-mass changed by snapping rounding-level
    deficits (the module docstring says how). ``chain=False``: no run of groups is solved at once.

    >>> import math
    >>> lam, p = [0.04, 0.08, 0.13, 0.17, 0.24, 0.29], [0.3, 0.2, 0.2, 0.1, 0.1, 0.1]
    >>> out, snap = greedy_merge(lam, [math.log(x) for x in p], 0.1, 0.0, 0, 3)
    >>> [round(math.exp(v), 6) for v in out]   # P-masses on the grid 0, 0.1, 0.2, 0.3
    [0.0, 0.735068, 0.264932, 0.0]
    >>> q_in = sum(x * math.exp(l) for x, l in zip(p, lam))
    >>> q_out = sum(math.exp(v + 0.1 * k) for k, v in enumerate(out))
    >>> abs(q_out - q_in) < 1e-15                 # each group's loss is its grid point: Q is kept
    True
    """
    lam_a = np.asarray(lam, dtype=float)
    logp_a = np.asarray(logp, dtype=float)
    lam_l, logp_l = _view(lam_a), _view(logp_a)
    n = lam_a.size
    out = [-math.inf] * (k_hi - k_lo + 1)
    snap_err = 0.0
    left_lp: list[float] = []
    left_lam: list[float] = []
    if n == 0:
        return np.array(out), 0.0
    t = _tables(lam_a, logp_a, h, o, k_lo, k_hi)
    iid, fast, end, G, scale, rho = t["iid"], t["fast"], t["end"], t["G"], t["scale"], t["rho"]
    w, sufw, sufd, cume, cumw, dm, xs = t["w"], t["sufw"], t["sufd"], t["cume"], t["cumw"], t["dm"], t["xs"]
    run_end = t["run_end"]
    # the vectorised chain is tried from this interval on (after the loop walked the first _WARM_UP: a partition
    # whose groups often absorb beyond the next interval shows it there) …
    chain_from = _WARM_UP if chain else len(fast)
    chain_limit, backoff = 4096, _CALM  # … chain_limit groups a call at most
    # the chain's credit, in groups of the loop's work: the loss it may risk, _CHAIN_RISK of the loop's work, plus
    # what its calls saved less what they cost (``grid_chain``'s cost model); no window is started without credit,
    # and once it is spent the loop walks the rest alone (a deterministic model, not a clock: the landing must not
    # depend on the load)
    credit = _CHAIN_RISK * len(fast)
    exp, log, log1p, expm1, snap = math.exp, math.log, math.log1p, math.expm1, SNAP
    groups: list[int] = []  # interval of each group of the regular path …
    masses: list[float] = []  # … and its P-mass / e^{scale of that interval}
    add_group, add_mass = groups.append, masses.append
    parts: list[tuple[np.ndarray, np.ndarray]] = []  # groups and masses in walk order, in blocks
    i, taken = 0, 0.0  # the walk is at atom i, of which the fraction ``taken`` went to the previous group
    while i < n:
        J = iid[i]
        if fast[J]:
            if J >= chain_from and run_end[J] - J >= _MIN_CHAIN:
                parts.append((np.array(groups, dtype=np.int64), np.array(masses)))
                groups.clear()
                masses.clear()
                gi, ms, snaps, i, taken, stopped, credit = solve_chain(
                    t["arrays"], J, i, taken, run_end[J], chain_limit, credit)
                parts.append((gi, ms))
                for v in snaps:  # in walk order, as the loop adds them
                    snap_err += v
                J_exit = iid[i] if i < n else len(fast)
                # past a group the chain cannot take (it goes on atom by atom); where its predictions kept failing,
                # the loop walks a stretch, twice as long each time
                chain_from = J_exit + 1 if stopped else J_exit + backoff
                backoff *= 1 if stopped else 2
                if credit <= 0.0:  # spent: the loop is cheaper on this partition
                    chain_from = len(fast)
                chain_limit = 4 * chain_limit if gi.size >= chain_limit // 2 else max(4096, 4 * gi.size)
                continue
            r = 1.0 - taken
            wi = w[i]
            pg = r * wi + sufw[i]  # members' P-mass / e^{scale(J)}
            D = sufd[i] + r * dm[i]  # members' deficit / e^{scale(J)} (≥ 0: all λ ≤ g)
            if D <= snap * pg:  # balanced by the members alone (up to rounding)
                if D != 0.0:
                    snap_err += D * exp(min(scale[J] + G[J], h))
                i, taken = end[J], 0.0
            else:
                a, b, rh = end[J], end[J + 1], rho[J]  # the next interval's atoms; rh = e^{scale(J+1) − scale(J)}
                Dn = D / rh
                m = bisect_left(cume, Dn, a, b)  # first atom whose cumulated excess covers the deficit
                if m == b:  # the next interval's atoms, all absorbed whole, do not cover it: go on atom by atom
                    if chain_from < J + _CALM:  # (such groups end chain calls: none near one)
                        chain_from = J + _CALM
                    rem, whole = Dn - cume[b - 1], cumw[b - 1] + w[b - 1]
                    i0, r0, pgn = i, log1p(-taken), pg / rh + whole
                    done = rem <= snap * pgn  # balanced up to rounding after the last whole atom
                    if done:
                        snap_err += rem * rh * exp(min(scale[J] + G[J], h))
                    i, log_rem, pgn, balanced, last, ds = _absorb(lam_l, logp_l, b, G[J], scale[J + 1], pgn, rem, done, h)
                    snap_err += ds
                    if not balanced:  # ran out of atoms: the whole group is left over
                        left_lp.append(logp_l[i0] + r0)
                        left_lam.append(lam_l[i0])
                        for mm in range(i0 + 1, last):
                            if logp_l[mm] != -math.inf:
                                left_lp.append(logp_l[mm])
                                left_lam.append(lam_l[mm])
                        taken = -expm1(log_rem)
                        continue
                    add_group(J)
                    add_mass(pgn * rh)
                    taken = -expm1(log_rem)
                    continue
                rem = Dn - cume[m - 1] if m > a else Dn  # deficit left after the whole atoms a … m−1
                whole = cumw[m]  # their P-mass / e^{scale(J+1)}
                if m > a and rem <= snap * (pg / rh + whole):
                    snap_err += rem * rh * exp(min(scale[J] + G[J], h))
                    pg += whole * rh
                    i, taken = m, 0.0
                else:
                    ex = xs[m]  # its excess w·(e^{λ−g} − 1)
                    tt = rem / ex  # fraction of atom m absorbed
                    if tt > 1.0 - snap:  # all of it, up to rounding
                        snap_err += (1.0 - tt) * exp(min(log(ex) + scale[J + 1] + G[J], 0.0))
                        pg += (whole + w[m]) * rh
                        i, taken = m + 1, 0.0
                    else:
                        pg += (whole + tt * w[m]) * rh
                        i, taken = m, tt
            add_group(J)
            add_mass(pg)
            continue
        i, log_rem, ds, stop = _scalar_group(lam_l, logp_l, i, log1p(-taken), h, o, k_lo, k_hi, out, left_lp, left_lam)
        snap_err += ds
        taken = -expm1(log_rem)
        if stop:
            break
    out_a = np.array(out)
    parts.append((np.array(groups, dtype=np.int64), np.array(masses)))
    gi = np.concatenate([g for g, _ in parts])
    if gi.size:
        ms = np.concatenate([m for _, m in parts])
        np.logaddexp.at(out_a, t["kc"][gi] - k_lo, np.log(ms) + t["scale_a"][gi])
    if i < n:  # atoms (or the remainder of one) above the grid
        left_lp.append(logp_l[i] + log1p(-taken))
        left_lam.append(lam_l[i])
        left_lp.extend(logp_l[i + 1 :])
        left_lam.extend(lam_l[i + 1 :])
    if left_lp:
        snap_err += _land_leftover(out_a, np.asarray(left_lp), np.asarray(left_lam), h, o, k_lo, k_hi)
    return out_a, snap_err


def _tables(lam: np.ndarray, logp: np.ndarray, h: float, o: float, k_lo: int, k_hi: int) -> dict:
    """Per-atom and per-interval tables of the regular path (memoryviews: the loop reads a few scalars).

    Intervals are the runs of atoms with the same target k = ⌈(λ − o)/h⌉ (raised by one where o + k·h < λ
    in floating point, as the atom-by-atom loop does). An interval J is *fast* when it and the next run
    J + 1 hold only regular atoms (finite, target in [k_lo, k_hi], not within rounding of the grid point
    below), at most ``_MAX_PER_INTERVAL`` atoms each, every atom of J + 1 has λ > g_J in floating point,
    and the two intervals' largest masses are at most e^600 apart.
    """
    n = lam.size
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        z = (lam - o) / h
        kf = np.floor(z)
        near = (kf >= k_lo) & (lam - (o + kf * h) <= 8 * U * (1.0 + np.abs(lam) + abs(o) + np.abs(kf * h)))
        del kf
        kc = np.ceil(z, out=z)
        ok = np.isfinite(lam) & np.isfinite(logp) & np.isfinite(kc) & ~near & (kc >= k_lo)  # (the loop raises a
        del near  # target below k_lo to k_lo before its rounding check: such atoms take the loop)
        kc = np.where(o + kc * h < lam, kc + 1.0, kc)
        ok &= kc <= k_hi
        kc[~np.isfinite(kc)] = 0.0
    new = np.empty(n, dtype=bool)
    new[0] = True
    np.not_equal(kc[1:], kc[:-1], out=new[1:])
    start = np.flatnonzero(new)
    nI = start.size
    end = np.append(start[1:], n)
    count = end - start
    iid = (np.cumsum(new, dtype=np.int32) - 1) if nI < 2**31 else np.cumsum(new) - 1
    del new
    reg = np.logical_and.reduceat(ok, start) & (count <= _MAX_PER_INTERVAL)
    kI = kc[start]
    del kc
    G = o + kI * h
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        scale = np.maximum.reduceat(np.where(ok, logp, -np.inf), start)
        w = np.exp(logp - scale[iid])
        # a mass that underflows relative to its interval's largest loses its relative precision
        reg &= np.logical_and.reduceat(w >= 1e-300, start)
        gap = np.concatenate([scale[1:] - scale[:-1], [np.nan]])
        rho = np.exp(gap)
    # sums within each interval, in sequential order: the atoms of a run laid out as the columns of an
    # (L × intervals) array (row = position in the run), so each partial sum is one vector addition
    L = int(min(count.max(), _MAX_PER_INTERVAL))
    cell = np.arange(n, dtype=iid.dtype if L * nI < 2**31 else np.int64)
    cell -= start[iid].astype(cell.dtype)  # position in the run
    whole_runs = L == int(count.max())
    keep = None if whole_runs else cell < L  # runs longer than L take the loop: their sums are never read
    np.minimum(cell, L - 1, out=cell)
    cell *= nI
    cell += iid  # the atom's place in the (L × intervals) array

    def rows(vals: np.ndarray) -> np.ndarray:  # (consumes vals)
        vals[~np.isfinite(vals)] = 0.0
        m = np.zeros((L, nI))
        if keep is None:
            m.ravel()[cell] = vals
        else:
            m.ravel()[cell[keep]] = vals[keep]
        return m

    def prefix(m: np.ndarray, inclusive: bool) -> np.ndarray:
        c = np.empty_like(m)
        c[0] = m[0] if inclusive else 0.0
        for k in range(1, L):
            np.add(c[k - 1], m[k] if inclusive else m[k - 1], out=c[k])
        return c.ravel()[cell]

    def suffix_after(m: np.ndarray) -> np.ndarray:
        c = np.empty_like(m)
        c[L - 1] = 0.0
        for k in range(L - 2, -1, -1):
            np.add(c[k + 1], m[k + 1], out=c[k])
        return c.ravel()[cell]

    def scaled_expm1(targets: np.ndarray, sign: float) -> np.ndarray:
        """sign·wᵢ·(e^{λᵢ − targetᵢ} − 1) with one temporary."""
        tmp = targets[iid]
        np.subtract(lam, tmp, out=tmp)
        np.expm1(tmp, out=tmp)
        tmp *= w
        if sign < 0:
            np.negative(tmp, out=tmp)
        return tmp

    with np.errstate(invalid="ignore", over="ignore"):
        W = rows(w.copy())
        cumW_before, sufW_after = prefix(W, False), suffix_after(W)
        del W
        dm = scaled_expm1(G, -1.0)  # deficits pᵢ(1 − e^{λᵢ−g}) ≥ 0 (rows() zeroes the non-finite in place)
        sufD_after = suffix_after(rows(dm))
        xs = scaled_expm1(np.concatenate([[np.nan], G[:-1]]), 1.0)  # excesses over g_{J−1}
        cumE = prefix(rows(xs), True)
    # the next run holds only atoms above g_J, and its first one is strictly above in floating point
    above = np.zeros(nI, dtype=bool)
    above[:-1] = lam[start[1:]] > G[:-1]
    fast = np.zeros(nI, dtype=bool)
    fast[:-1] = reg[:-1] & reg[1:] & above[:-1] & np.isfinite(gap[:-1]) & (np.abs(gap[:-1]) <= _MAX_SCALE_GAP)
    fast &= np.isfinite(scale)
    f = _view
    arrays = {"end": np.append(end, n), "count": np.append(count, 0), "G": G, "scale": scale, "rho": rho, "w": w,
              "sufw": sufW_after, "sufd": sufD_after, "cume": cumE, "cumw": cumW_before, "dm": dm, "xs": xs}
    # the run of fast intervals each one belongs to ends before run_end[J] (J itself where it is not fast)
    nf = np.flatnonzero(~fast)  # ascending, never empty (the last interval is not fast)
    run_end = nf[np.searchsorted(nf, np.arange(nI))]
    out = {k: f(v) for k, v in arrays.items()}
    arrays.update({k + "_l": v for k, v in out.items()})  # (the chain's one-by-one steps read scalars)
    arrays["h"] = h
    out.update({"iid": f(iid), "fast": f(fast), "run_end": f(run_end), "kc": kI.astype(np.int64), "scale_a": scale, "h": h,
                "arrays": arrays})
    return out


def _view(x: np.ndarray) -> memoryview:
    """A read-only memoryview: indexing it yields Python scalars without converting the whole array
    (``tolist`` of every table cost more than the loop that reads a few entries per group)."""
    return memoryview(np.ascontiguousarray(x)).toreadonly()


def _scalar_group(lam: list, logp: list, i: int, log_rem: float, h: float, o: float, k_lo: int, k_hi: int,
                  out: list, left_lp: list, left_lam: list) -> tuple[int, float, float, bool]:
    """One group of the greedy merge, atom by atom, from atom ``i`` of which the fraction e^{log_rem} is
    left; adds the group to ``out`` (or, out of atoms, its members to the leftovers). Returns the next
    (i, log_rem), the snapped Q-mass, and whether the walk stops (the target lies above the grid).

    A group with target g keeps its deficit D = Σ pᵢ(1 − e^{λᵢ−g}) ≥ 0 (P-units); absorbing the
    fraction t of an atom above g lowers D by t·p·(e^{λ−g} − 1). Masses inside a group are relative to
    the group's first member (scale e^s), excesses are compared in log space, so neither masses far
    below 1e-308 nor losses far above 700 overflow or vanish.
    """
    n = len(lam)
    exp, expm1, log, log1p, ninf = math.exp, math.expm1, math.log, math.log1p, -math.inf
    snap, snap_err = SNAP, 0.0
    while i < n and logp[i] + log_rem == ninf:
        i, log_rem = i + 1, 0.0
    if i >= n:
        return i, 0.0, 0.0, False
    lam_i = lam[i]
    kf = math.floor((lam_i - o) / h)
    if kf >= k_lo and lam_i - (o + kf * h) <= 8 * U * (1.0 + abs(lam_i) + abs(o) + abs(kf * h)):
        kt = kf  # the loss is a grid point up to rounding: target it (snapped below)
    else:
        kt = max(math.ceil((lam_i - o) / h), k_lo)
        if o + kt * h < lam_i:  # rounding: the target must not lie below the first member
            kt += 1
    if kt > k_hi:
        return i, log_rem, 0.0, True
    g = o + kt * h
    scale = logp[i] + log_rem
    pg = 0.0  # group P-mass / e^scale
    deficit = 0.0  # D / e^scale
    first_i, first_log_rem, first = i, log_rem, True
    while i < n and (lam[i] <= g or first):  # the first member may sit a rounding error above g
        first = False
        pm = exp(logp[i] + log_rem - scale)
        pg += pm
        deficit -= pm * expm1(lam[i] - g)
        i, log_rem = i + 1, 0.0
    last_member = i  # one past the last whole member
    balanced = abs(deficit) <= snap * pg
    if balanced and deficit != 0.0:
        snap_err += abs(deficit) * exp(min(scale + g, h))
    balanced = balanced or deficit <= 0.0
    i, log_rem, pg, balanced, last_absorbed, ds = _absorb(lam, logp, i, g, scale, pg, deficit, balanced, h)
    snap_err += ds
    last_member = max(last_member, last_absorbed)
    if balanced:
        j = kt - k_lo
        v = log(pg) + scale
        a = out[j]
        out[j] = v if a == ninf else max(a, v) + log1p(exp(-abs(a - v)))
    else:  # ran out of atoms: the whole group is left over
        for m in range(first_i, last_member):
            if m == first_i:
                left_lp.append(logp[m] + first_log_rem)
            elif logp[m] == ninf:
                continue
            else:
                left_lp.append(logp[m])
            left_lam.append(lam[m])
    return i, log_rem, snap_err, False


def _absorb(lam, logp, i: int, g: float, scale: float, pg: float, deficit: float, balanced: bool, h: float):
    """The absorbing half of a group (atom by atom): whole atoms from ``i`` on while their excess
    pᵢ(e^{λᵢ−g} − 1) does not cover the deficit, then the fraction t of the atom that does (t > 1 − 64u is
    taken whole, and a deficit ≤ 64u·P-mass left after a whole atom ends the group, the snapped Q-mass
    counted). ``pg`` and ``deficit`` are in units of e^{scale}. Returns (the next atom, the log of the
    fraction of it left, the group's P-mass / e^{scale}, whether the group balanced, one past its last
    whole atom, the snapped Q-mass)."""
    n = len(lam)
    exp, expm1, log, log1p, ninf, snap = math.exp, math.expm1, math.log, math.log1p, -math.inf, SNAP
    snap_err, log_rem, last_member = 0.0, 0.0, i
    while not balanced and i < n:
        lpm = logp[i] + log_rem - scale
        if lpm == ninf:
            i, log_rem = i + 1, 0.0
            last_member = i
            continue
        x = lam[i] - g
        log_ex = lpm + (x + log(-expm1(-x)) if x > 1.0 else log(expm1(x)))  # pm·(e^x − 1), in log space
        log_def = log(deficit)
        if log_ex >= log_def:
            t = exp(log_def - log_ex)  # fraction of the remainder absorbed
            if t > 1.0 - snap:  # all of it, up to rounding: no rounding-size remainder is left behind
                snap_err += (1.0 - t) * exp(min(log_ex + scale + g, 0.0))
                t = 1.0
            pg += t * exp(lpm) if lpm > -745.0 else 0.0
            log_rem += log1p(-t) if t < 1.0 else ninf
            balanced = True
            if logp[i] + log_rem == ninf:
                i, log_rem = i + 1, 0.0
        else:
            pg += exp(lpm) if lpm > -745.0 else 0.0
            deficit -= exp(log_ex)
            i, log_rem = i + 1, 0.0
            last_member = i
            if abs(deficit) <= snap * pg:  # balanced up to rounding
                snap_err += abs(deficit) * exp(min(scale + g, h))
                balanced = True
    return i, log_rem, pg, balanced, last_member, snap_err
