"""Adversarial soundness sweep of the per-threshold bound η(ε) and the far-tail passes (tradeoff/compose.py step 7′,
tradeoff/compose_jump.py step 6″): random single steps of four families (fast-decaying, power-law, masses spread over
1e-300 … 1, sparse), deficits 0 … 1e-3 sent to ±∞, N ∈ {2 … 64}, output coarsening F ∈ {1, 2, 3, 4}, composed by
``compose_coarsened`` and read as the *profile* pair δ(ε) reads (composition/infinity_atoms.py: the filled pair's atoms
with the ±∞ masses min(filled deficit, B), B = the exact ±∞ masses 1 − (Σ step masses)ᴺ rounded up — δ of it is ≤ δ of
the filled pair, so this also audits the filled reading); against the exact N-fold convolution in mpmath at 60 digits
(with those exact ±∞ masses): every atom within its bound (F = 1), and δ(ε) + η(ε) ≥ the exact δ(ε) for the pair and
its swap on a fine ε grid into the far tail. Prints each violation and a count.

    PYTHONPATH=$PWD/src python benchmarks/audit_far_tail.py FIRST_SEED COUNT

(the fast subset is tests/tradeoff/test_far_tail_audit.py)

With ``--input`` it audits the per-threshold input term instead (tradeoff/input_error.py): the Gaussian shift pair
(random μ) cut into grid-aligned cells with exact masses, split exactly and composed N times in mpmath, against the
engine fed the cells with relative errors r ∈ {0, 1e-9, 1e-7, 1e-5} of random or adverse sign (the adverse ones move the
tails' losses inwards and keep both totals, so nothing reaches the ±∞ atoms), F ∈ {1, 2, 3}; the step's own
rounding is measured (``input_tail(part, N, step)``); read as the profile pair with the library's bound
``infinity_atoms.infinity_bound(part, N)`` (checked ≥ the exact ±∞ masses too):

    PYTHONPATH=$PWD/src python benchmarks/audit_far_tail.py --input FIRST_SEED COUNT

(the fast subset is tests/tradeoff/test_input_error.py)
"""
import math, sys, time
import numpy as np, mpmath
from dpcompare.tradeoff import Rounding
from dpcompare.tradeoff.compose_coarse import compose_coarsened
from dpcompare.tradeoff.grid import GridStep, to_pair
from dpcompare.composition.infinity_atoms import profile_pair
mpmath.mp.dps = 60
U = 2.0**-53

def step_from_logq(log_q, h, k_lo, deficit=1e-9, err=0.0):
    g = (k_lo + np.arange(log_q.size)) * h
    log_p = log_q - g
    with np.errstate(over="ignore"):
        sp, sq = np.exp(log_p).sum(), np.exp(log_q).sum()
    log_p = log_p - math.log(max(sp, sq) * (1.0 + deficit))
    return GridStep(h, 0.0, k_lo, log_p, 0.0, 0.0, Rounding.PESSIMISTIC, err)

def family(kind, rng):
    size = int(rng.integers(5, 25)); h = float(rng.choice([0.02, 0.05, 0.1, 0.3])); k_lo = -int(rng.integers(0, size))
    j = np.arange(size); j0 = -k_lo
    if kind == "decay":
        lq = -rng.uniform(0.5, 12) * np.maximum(j - j0, 0) ** 1.2 - 3.0 * np.maximum(j0 - j, 0) + rng.uniform(-.5, .5, size)
    elif kind == "heavy":
        lq = -rng.uniform(1.2, 4) * np.log1p(np.abs(j - j0)) + rng.uniform(-.5, .5, size)
    elif kind == "span":
        lq = rng.uniform(-690, 0, size); lq[j0] = 0.0
    elif kind == "sparse":
        lq = np.full(size, -np.inf); lq[j0] = 0.0; idx = rng.choice(size, 3, replace=False); lq[idx] = rng.uniform(-40, -1, 3)
    deficit = float(rng.choice([1e-9, 1e-3, 0.0, 1e-15]))
    return step_from_logq(lq, h, k_lo, deficit)

def conv(a, b):
    out = [mpmath.mpf(0)] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        if x:
            for k, y in enumerate(b):
                if y: out[i + k] += x * y
    return out

def npow(x, n):
    res, base = None, x
    while n:
        if n & 1: res = base if res is None else conv(res, base)
        n >>= 1
        if n: base = conv(base, base)
    return res

def up(x):
    """The double nearest x, raised to be ≥ x."""
    b = float(x)
    return float(np.nextafter(b, np.inf)) if mpmath.mpf(b) < x else b

def check(step, N, label, tail_masses=None, F=1):
    kw = {} if tail_masses is None else dict(tail_masses=tail_masses)
    loss, clp, rep = compose_coarsened(step, N, F, tau=1e-60, workers=1, **kw)
    g = step.losses
    with np.errstate(over="ignore"):
        xq = [mpmath.mpf(float(v)) if np.isfinite(v) else mpmath.mpf(0) for v in np.exp(step.log_p + g)]
        xp = [mpmath.mpf(float(v)) if np.isfinite(v) else mpmath.mpf(0) for v in np.exp(step.log_p)]
    Q = npow(xq, N); P = npow(xp, N); i0 = N * step.k_lo; h = step.h
    qinf = 1 - mpmath.fsum(xq) ** N; pinf = 1 - mpmath.fsum(xp) ** N
    # the profile pair: the filled pair's atoms, ±∞ at min(deficit, exact bound rounded up)
    pair = profile_pair(to_pair(loss, clp, Rounding.PESSIMISTIC), (up(max(pinf, 0)), up(max(qinf, 0)))); sw = pair.swap()
    L = [(i0 + i) * h for i in range(len(Q))]
    bad = []
    # per atom
    got = dict(zip(np.rint(loss / h).astype(int).tolist(), np.exp(clp).tolist()))
    for Lk, e in (zip(rep.atom_loss.tolist(), rep.atom_error.tolist()) if F == 1 else ()):
        idx = int(round(Lk / h)); t = idx - i0
        if Lk >= 0:
            truth = Q[t] if 0 <= t < len(Q) else 0; c = got.get(idx, 0.0) * math.exp(idx * h)
        else:
            truth = P[t] if 0 <= t < len(P) else 0; c = got.get(idx, 0.0)
        if abs(mpmath.mpf(c) - truth) > e * (1 + 1e-9) + 2e-60:
            bad.append(("atom", Lk, c, float(truth), e))
    eps = np.unique(np.concatenate([np.linspace(0, max(rep.window[1], 0) + 1, 120), np.abs(np.array(L[::max(1, len(L)//200)])) + 1e-9]))
    eta = rep.error_at(eps)
    if np.any(np.diff(eta) > 0) or np.any(eta > rep.numerical_error):
        bad.append(("eta-monotone", None))
    d1, d2 = pair.delta(eps), sw.delta(eps)
    for e, et, a, b in zip(eps.tolist(), eta.tolist(), d1.tolist(), d2.tolist()):
        E = mpmath.mpf(e)
        t1 = qinf + mpmath.fsum(Q[i] * -mpmath.expm1(E - L[i]) for i in range(len(Q)) if L[i] > e and Q[i])
        t2 = pinf + mpmath.fsum(P[i] * -mpmath.expm1(E + L[i]) for i in range(len(P)) if L[i] < -e and P[i])
        if a + et < t1 * (1 - 1e-12): bad.append(("delta", e, a, float(t1), et, float(t1) - a))
        if b + et < t2 * (1 - 1e-12): bad.append(("swap", e, b, float(t2), et, float(t2) - b))
    return bad, rep

def gaussian_cells(mu, h, k_lo, k_hi):
    xs = [(mpmath.mpf(k) * mpmath.mpf(h) + mu * mu / 2) / mu for k in range(k_lo, k_hi + 1)]
    p = [mpmath.ncdf(b) - mpmath.ncdf(a) for a, b in zip(xs[:-1], xs[1:])]
    q = [mpmath.ncdf(b - mu) - mpmath.ncdf(a - mu) for a, b in zip(xs[:-1], xs[1:])]
    return p, q, (mpmath.ncdf(xs[0]), mpmath.ncdf(xs[0] - mu)), (1 - mpmath.ncdf(xs[-1]), 1 - mpmath.ncdf(xs[-1] - mu))

def exact_split(p, q, tl, th, h, k_lo):
    n = len(p) + 1; sp = [mpmath.mpf(0)] * n; sq = [mpmath.mpf(0)] * n
    for i, (pc, qc) in enumerate(zip(p, q)):
        glo = mpmath.mpf(k_lo + i) * h
        q_hi = (qc - pc * mpmath.exp(glo)) / (1 - mpmath.exp(-mpmath.mpf(h))); p_hi = q_hi * mpmath.exp(-(glo + h))
        sp[i] += pc - p_hi; sq[i] += qc - q_hi; sp[i + 1] += p_hi; sq[i + 1] += q_hi
    g_lo, g_hi = mpmath.mpf(k_lo) * h, mpmath.mpf(k_lo + len(p)) * h
    sq[0] += tl[1]; sp[0] += tl[1] * mpmath.exp(-g_lo); sp[-1] += th[0]; sq[-1] += th[0] * mpmath.exp(g_hi)
    return sp, sq, tl[0] - tl[1] * mpmath.exp(-g_lo), th[1] - th[0] * mpmath.exp(g_hi)

def check_input(seed):
    from dpcompare.tradeoff.grid import StepPartition, pessimistic_step
    from dpcompare.tradeoff.input_error import input_tail
    from dpcompare.composition.infinity_atoms import infinity_bound
    rng = np.random.default_rng(seed)
    mu = float(rng.uniform(0.3, 3.0)); h = float(rng.choice([0.1, 0.25, 0.5])) * mu
    half = int(math.ceil((mu * mu / 2 + 11 * mu) / h)); k_lo, k_hi = -half, half
    r = float(rng.choice([0.0, 1e-9, 1e-7, 1e-5])); N = int(rng.choice([2, 3, 5, 8])); F = int(rng.choice([1, 2, 3]))
    if N * 2 * half > 700: N = max(2, 700 // (2 * half))
    mm = mpmath.mpf(mu)
    p, q, tl, th = gaussian_cells(mm, h, k_lo, k_hi)
    sp, sq, pn, qp = exact_split(p, q, tl, th, h, k_lo)
    Q, P = npow(sq, N), npow(sp, N); qinf, pinf = 1 - (1 - qp) ** N, 1 - (1 - pn) ** N
    L = [(N * k_lo + i) * h for i in range(len(Q))]
    lam = np.array([(k_lo + i + 0.5) * h for i in range(len(p))])
    if rng.random() < 0.5:  # adverse: tails' losses inwards, both totals kept by the bulk
        thr = float(rng.uniform(0.0, 2.0)) * mu; top, bot = lam > thr, lam < -thr; bulk = ~(top | bot)
        sgn = np.where(top, 1.0, np.where(bot, -1.0, 0.0)); s_p = [mpmath.mpf(v) for v in sgn]; s_q = [-v for v in s_p]
        if bulk.any():
            sums = lambda x, m: mpmath.fsum(v for v, k in zip(x, m) if k)
            for i in np.flatnonzero(bulk):
                s_p[i] = -(sums(p, top) - sums(p, bot)) / sums(p, bulk); s_q[i] = (sums(q, top) - sums(q, bot)) / sums(q, bulk)
        kind = "adverse"
    else:
        s_p, s_q = rng.choice([-1.0, 1.0], len(p)), rng.choice([-1.0, 1.0], len(p)); kind = "random"
    lp = np.array([float(mpmath.log(v * (1 + s * r))) for v, s in zip(p, s_p)])
    lq = np.array([float(mpmath.log(v * (1 + s * r))) for v, s in zip(q, s_q)])
    rel = r * (1 + 1e-6) + 4 * U * (1.0 + np.maximum(np.abs(lp), np.abs(lq)))  # + the logs' rounding to float
    part = StepPartition(h, 0.0, k_lo, k_hi, np.arange(len(p)), lp, lq, (float(mpmath.log(tl[0])), float(mpmath.log(tl[1]))),
                         (float(mpmath.log(th[0])), float(mpmath.log(th[1]))), rel_err=rel)
    step = pessimistic_step(part)
    it = input_tail(part, N, step)
    loss, clp, rep = compose_coarsened(step, N, F, tau=1e-60, workers=1, input_tail=it)
    b_p, b_q = infinity_bound(part, N)
    pair = profile_pair(to_pair(loss, clp, Rounding.PESSIMISTIC), (b_p, b_q)); sw = pair.swap()
    eps = np.linspace(0, float(L[-1]), 150); eta = rep.error_at(eps); d1, d2 = pair.delta(eps), sw.delta(eps)
    bad = []
    if np.any(np.diff(eta) > 0) or np.any(eta > rep.numerical_error): bad.append(("eta-monotone", None))
    if mpmath.mpf(b_q) < qinf or mpmath.mpf(b_p) < pinf: bad.append(("inf-bound", b_p, float(pinf), b_q, float(qinf)))
    for e, et, a, b in zip(eps.tolist(), eta.tolist(), d1.tolist(), d2.tolist()):
        E = mpmath.mpf(e)
        t1 = qinf + mpmath.fsum(v * -mpmath.expm1(E - l) for v, l in zip(Q, L) if l > e)
        t2 = pinf + mpmath.fsum(v * -mpmath.expm1(E + l) for v, l in zip(P, L) if l < -e)
        if a + et < t1: bad.append(("delta", e, a, float(t1), et))
        if b + et < t2: bad.append(("swap", e, b, float(t2), et))
    return bad, (kind, round(mu, 3), round(h, 3), r, N, F, it is not None)

if __name__ == "__main__" and sys.argv[1] == "--input":
    seed0 = int(sys.argv[2]); n = int(sys.argv[3]); nb = 0
    for s in range(seed0, seed0 + n):
        bad, info = check_input(s)
        if bad:
            nb += 1; print("VIOL", s, info, bad[:3], len(bad))
    print("cases", n, "with violations", nb)
    sys.exit(0)

if __name__ == "__main__":
    seed0 = int(sys.argv[1]); n = int(sys.argv[2])
    kinds = ["decay", "heavy", "span", "sparse"]
    tot = 0; nb = 0
    for s in range(seed0, seed0 + n):
        rng = np.random.default_rng(s)
        kind = kinds[s % 4]; step = family(kind, rng); N = int(rng.choice([2, 3, 4, 8, 16, 32, 64]))
        if N * step.log_p.size > 900: N = max(2, 900 // step.log_p.size)
        try:
            F = int(rng.choice([1, 1, 2, 3, 4])); bad, rep = check(step, N, kind, F=F)
        except Exception as ex:
            print("EXC", s, kind, N, repr(ex)[:200]); continue
        tot += 1
        if bad:
            nb += 1; print("VIOL", s, kind, N, "F", F, step.log_p.size, step.h, step.k_lo, bad[:3], len(bad))
    print("cases", tot, "with violations", nb)
