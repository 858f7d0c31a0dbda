"""Dense interior-point solver for box-constrained L1 regression (the Dinur–Nissim LP).

Solves the LP for average error of CS208 lecture 2, slide 9, algorithm 3::

    min_x ‖a − Mx‖₁   s.t.  0 ≤ x ≤ 1,            M ∈ ℝ^{m×n} dense,

written as the standard-form LP ``min 1ᵀu + 1ᵀv  s.t.  Mx + u − v = a,  x + s = 1,
x, s, u, v ≥ 0``, whose dual is ``max aᵀy − 1ᵀt  s.t.  Mᵀy − t ≤ 0,  −1 ≤ y ≤ 1,
t ≥ 0`` (dual slacks ``z_x = t − Mᵀy``, ``z_u = 1 − y``, ``z_v = 1 + y``).

Algorithm: Mehrotra's predictor–corrector primal–dual interior-point method, in the
form Portnoy & Koenker (1997, "The Gaussian hare and the Laplacian tortoise",
Statistical Science 12(4)) call the *Frisch–Newton* algorithm for L1 regression,
with the box ``0 ≤ x ≤ 1`` added. Each Newton system is reduced, by eliminating
the diagonal blocks, to one symmetric positive-definite n×n system

    (D_x⁻¹ + Mᵀ W M) Δx = r,   D_x⁻¹ = z_x/x + t/s,   W = 1/(u/z_u + v/z_v),

solved by a dense Cholesky factorisation (LAPACK) that serves both the predictor
and the corrector. Cost per iteration: one ``syrk`` (m·n² flops) and one Cholesky
(n³/3); 14–16 iterations at n = 1000, 0.53–0.75 s on 2 cores against 5.6 s for
the same LP in HiGHS (``benchmarks/bench_reconstruction.py``).

Why not HiGHS here: the query matrix is dense (half its entries are 1), and HiGHS's
interior-point code IPX works with sparse LU factors of a basis matrix. At n = 1000,
m = 2000 with noisy answers, 3.2 s of its 5.6 s go to factorising that dense basis
sparsely (HiGHS's own timing report). The LP is the same; HiGHS stays available
as ``method="highs"`` in :func:`core.attacks.reconstruction.dinur_nissim_lp.solve_lp` and is the
reference the tests compare against.

Speed details (each measured at n = 1000, m = 2000, on the 2-core machine):

* the early iterations, far from the optimum, form and factorise ``Mᵀ W M`` in
  single precision (``ssyrk``/``spotrf``: half the time of double); once the
  relative duality gap is below 1e-4, or stops shrinking (nearly consistent
  answers, where the optimum is ≈ 0 and float32 cannot resolve the gap), double
  precision takes over;
* near the optimum most queries have a non-zero residual and their weight ``W_j``
  tends to 0 like the barrier parameter; rows with ``W_j < 1e-10·max W`` (1e-6 in
  single precision) add less than rounding error to ``Mᵀ W M`` and are left out
  of the product;
* each iteration also takes up to three of Gondzio's centrality correctors (one
  extra triangular solve each, kept only if they lengthen the step): 14–15
  iterations instead of 17–18;
* a least-squares starting point saved no iterations; starting the residual split
  with a margin of mean |r| saved one;
* only ``syrk`` and the Cholesky factorisation use more than one BLAS thread (as
  many as the caller allows; the game runner allows one). Letting OpenBLAS thread
  the many small matrix–vector products as well made the whole solve slower.

These make the Newton directions inexact, never the answer: residuals are
recomputed exactly every iteration, and the result is accepted only with a
**duality-gap certificate**. For any x in the box and any y with |y| ≤ 1,

    aᵀy − Σ_i max(0, (Mᵀy)_i)  ≤  min_{x∈[0,1]^n} ‖a − Mx‖₁  ≤  ‖a − Mx‖₁,

so the returned x is within ``gap`` of the optimum, with ``gap/‖a − Mx‖₁ ≤ tol``
(default 1e-8, the same as HiGHS's default ``ipm_optimality_tolerance``). If the
certificate is not reached within ``max_iter`` iterations, or the iterates diverge
after approaching the optimum (seen in 1 of 120 stress instances, all with nearly
consistent answers), the solver says so (``certified=False`` with a reason, and
the best iterate) and the caller falls back to HiGHS.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from scipy.linalg.blas import dsyrk, ssyrk
from scipy.linalg.lapack import dpotrf, dpotrs, spotrf, spotrs

from ..errors import ParameterError

__all__ = ["FrischNewtonResult", "l1_box_ipm", "duality_certificate"]

_STEP = 0.995          # fraction of the step to the boundary
_SINGLE_UNTIL = 1e-4   # relative gap below which double precision is used
_DROP = 1e-10          # rows with W_j < _DROP · max W are left out of MᵀWM
_DROP32 = 1e-6         # the same in single precision (below its resolution)
_GONDZIO = 3           # centrality correctors per iteration (0 = plain Mehrotra)
_DELTA = 0.1           # corrector aims at a step this much longer
_BMIN, _BMAX = 0.3, 3.0  # corrector target: products within [_BMIN, _BMAX]·σμ
_DIVERGED = 1e3        # stop if gap + dual residual grow this much above the best seen
_GAMMA = 0.1           # keep a corrector only if the step grows by _GAMMA·_DELTA


@dataclass
class FrischNewtonResult:
    """Outcome of :func:`l1_box_ipm`.

    x: primal solution in [0, 1]^n; y: dual solution in [−1, 1]^m;
    primal: ‖a − Mx‖₁; dual: aᵀy − Σ(Mᵀy)₊ (a lower bound on the optimum);
    certified: (primal − dual) ≤ tol·max(1, primal); iterations; seconds.
    """

    x: np.ndarray
    y: np.ndarray
    primal: float
    dual: float
    certified: bool
    iterations: int
    seconds: float
    reason: str = ""

    @property
    def gap(self) -> float:
        return self.primal - self.dual


def duality_certificate(M: np.ndarray, a: np.ndarray, x: np.ndarray, y: np.ndarray):
    """(primal, dual, x_box, y_box): exact objective of x clipped to the box and the
    dual bound of y clipped to [−1, 1]; primal − dual bounds the suboptimality of x."""
    xb = np.clip(x, 0.0, 1.0)
    yb = np.clip(y, -1.0, 1.0)
    primal = float(np.abs(a - M @ xb).sum())
    dual = float(a @ yb - np.maximum(M.T @ yb, 0.0).sum())
    return primal, dual, xb, yb


def _finite(direction) -> bool:
    """Whether a Newton direction was found (``newton`` gives None for a solve that came back infinite or NaN)
    and every component of it is a finite number."""
    return direction is not None and all(bool(np.isfinite(part).all()) for part in direction)


def _max_step(v: np.ndarray, dv: np.ndarray) -> float:
    neg = dv < 0
    if not neg.any():
        return np.inf
    return float(np.min(-v[neg] / dv[neg]))


def _factorise(M, M32, w, d, single: bool):
    """Cholesky factor of K = diag(d) + Mᵀ diag(w) M, as a solve function, or None.

    Single precision forms and factorises K in float32 (``ssyrk``/``spotrf``/``spotrs``);
    double precision uses float64 and, if K is numerically only semi-definite, a
    shift of 1e-12·max diag(K). Rows with negligible weight are left out of the product.
    """
    sw = np.sqrt(w)
    keep = w >= (_DROP32 if single else _DROP) * w.max()
    few = keep.sum() < 0.9 * len(w)
    if single:
        sw32 = sw.astype(np.float32)
        G = np.asfortranarray(M32[keep] * sw32[keep, None]) if few else M32 * sw32[:, None]
        K = ssyrk(1.0, G, trans=1, lower=1)
        K[np.diag_indices_from(K)] += d.astype(np.float32)
        c, info = spotrf(K, lower=1, overwrite_a=1, clean=0)
        if info != 0:
            return None
        return lambda r: spotrs(c, r.astype(np.float32), lower=1)[0].astype(np.float64)
    G = np.asfortranarray(M[keep] * sw[keep, None]) if few else M * sw[:, None]
    K = dsyrk(1.0, G, trans=1, lower=1)
    K[np.diag_indices_from(K)] += d
    c, info = dpotrf(K, lower=1, overwrite_a=0, clean=0)
    if info != 0:
        K[np.diag_indices_from(K)] += 1e-12 * float(np.max(np.diag(K)))
        c, info = dpotrf(K, lower=1, overwrite_a=1, clean=0)
        if info != 0:
            return None
    return lambda r: dpotrs(c, r, lower=1)[0]


_CONTROLLER = None


def _controller():
    """One threadpoolctl controller per process (building one scans the loaded libraries)."""
    global _CONTROLLER
    if _CONTROLLER is None:
        # lazy: start-up time (threadpoolctl adds 1 modules; only this path needs it)
        from threadpoolctl import ThreadpoolController
        _CONTROLLER = ThreadpoolController()
    return _CONTROLLER


def l1_box_ipm(M, a, tol: float = 1e-8, max_iter: int = 60,
               time_limit: float | None = None) -> FrischNewtonResult:
    """Solve ``min_{x∈[0,1]^n} ‖a − Mx‖₁`` (see the module docstring).

    Parameters
    ----------
    M : (m, n) float array (dense). a : (m,) float array.
    tol : relative tolerance on primal/dual residuals and on the certified gap.
    max_iter : interior-point iterations before giving up (certified=False).
    time_limit : wall-clock seconds (None = none); on expiry returns certified=False.
    """
    started = time.perf_counter()
    M = np.asarray(M, dtype=np.float64, order="F")
    a = np.asarray(a, dtype=np.float64)
    if M.ndim != 2 or a.shape != (M.shape[0],):
        raise ParameterError("answers", f"shapes do not match: M {M.shape}, a {a.shape}")
    ctl = _controller()
    blas = [p for p in ctl.info() if p.get("user_api") == "blas"]
    heavy = max(1, min(p["num_threads"] for p in blas)) if blas else 1
    with ctl.limit(limits=1, user_api="blas"):
        return _iterate(M, a, tol, max_iter, time_limit, started, ctl, heavy)


def _iterate(M, a, tol, max_iter, time_limit, started, ctl, heavy) -> FrischNewtonResult:
    """The predictor–corrector loop. Start at the box's centre with the residual split into u, v plus a margin
    and y = 0; each iteration forms the primal, box and dual residuals, solves the reduced n×n system for the
    affine (predictor) direction, aims the corrector at σμ with σ = (μ_aff/μ)³ (Mehrotra) on the same Cholesky
    factor, adds Gondzio's centrality correctors when they lengthen the step, and moves ``_STEP`` of the way to
    the boundary. It stops with a certificate once the relative duality gap and both residuals are below ``tol``;
    otherwise it returns the best iterate so far with the reason (iterations, time limit, divergence, a lost
    factorisation)."""
    m, n = M.shape
    M32 = M.astype(np.float32, order="F")
    exact32 = bool(np.array_equal(M32, M))  # 0/1 queries: float32 matrix–vector products are safe
    N = 2 * (n + m)
    # Start: the centre of the box, residual split with a margin, dual y = 0.
    x = np.full(n, 0.5)
    s = 1.0 - x
    r = a - M @ x
    d0 = max(1.0, float(np.mean(np.abs(r))))
    u = np.maximum(r, 0.0) + d0
    v = np.maximum(-r, 0.0) + d0
    c0 = float(np.mean(u + v))  # balances x·z_x with u·z_u
    y = np.zeros(m)
    zx = np.full(n, c0)
    t = np.full(n, c0)
    zu = np.ones(m)
    zv = np.ones(m)
    scale_p = 1.0 + float(np.linalg.norm(a))
    scale_d = 1.0 + np.sqrt(m)
    single = True
    reason = f"no certificate after {max_iter} iterations"
    prev_gap = np.inf
    best = (np.inf, x.copy(), y.copy())  # (gap, x, y) of the best iterate so far
    it = 0
    for it in range(max_iter + 1):
        Mx = M @ x
        MTy = M.T @ y
        rp = a - Mx - u + v
        ru = 1.0 - x - s
        rdx = t - MTy - zx
        rdu = 1.0 - y - zu
        rdv = 1.0 + y - zv
        pobj = float(u.sum() + v.sum())
        dobj = float(a @ y - t.sum())
        gap = abs(pobj - dobj) / (1.0 + abs(pobj))
        relp = (np.linalg.norm(rp) + np.linalg.norm(ru)) / scale_p
        reld = (np.linalg.norm(rdx) + np.linalg.norm(rdu) + np.linalg.norm(rdv)) / scale_d
        if gap < tol and relp < tol and reld < tol:
            primal, dual, xb, yb = duality_certificate(M, a, x, y)
            if primal - dual <= tol * max(1.0, primal):
                return FrischNewtonResult(xb, yb, primal, dual, True, it, time.perf_counter() - started)
        if gap + reld < best[0]:
            best = (gap + reld, x.copy(), y.copy())
        elif gap + reld > _DIVERGED * best[0] and best[0] < 1e-3:
            reason = "the iterates diverged after approaching the optimum (numerical trouble)"
            break
        if it == max_iter:
            break
        if time_limit is not None and time.perf_counter() - started > time_limit:
            reason = f"time limit of {time_limit:g} s reached"
            break
        # Single precision while the gap is large and still shrinking: where the
        # optimum is tiny (nearly consistent answers) float32 stalls early.
        single = single and gap > _SINGLE_UNTIL and not (gap < 1e-2 and gap > 0.7 * prev_gap)
        prev_gap = gap
        mu = float(x @ zx + s @ t + u @ zu + v @ zv) / N
        dx_inv = zx / x + t / s
        du = u / zu
        dv = v / zv
        w = 1.0 / (du + dv)
        with ctl.limit(limits=heavy, user_api="blas"):
            solve_k = _factorise(M, M32, w, dx_inv, single)
            if solve_k is None and single:
                single = False
                solve_k = _factorise(M, M32, w, dx_inv, False)
        if solve_k is None:
            reason = "normal equations lost positive definiteness"
            break

        def newton(cxz, cst, cuz, cvz):
            # Complementarity right-hand sides: x·z_x → cxz, s·t → cst, u·z_u → cuz, v·z_v → cvz.
            rtx = rdx - cxz / x + (cst - t * ru) / s
            rtu = rdu - cuz / u
            rtv = rdv - cvz / v
            rhs_m = rp + du * rtu - dv * rtv
            lowp = single and exact32  # far from the optimum the direction is needed only roughly
            if lowp:
                g = (M32.T @ (w * rhs_m).astype(np.float32)).astype(np.float64)
            else:
                g = M.T @ (w * rhs_m)
            dx = solve_k(g - rtx)
            if not np.isfinite(dx).all():  # see the predictor below: no direction, rather than NaN further on
                return None
            Mdx = (M32 @ dx.astype(np.float32)).astype(np.float64) if lowp else M @ dx
            dy = w * (rhs_m - Mdx)
            du_ = du * (dy - rtu)
            dv_ = dv * (-dy - rtv)
            ds = ru - dx
            dzx = (cxz - zx * dx) / x
            dt = (cst - t * ds) / s
            dzu = (cuz - zu * du_) / u
            dzv = (cvz - zv * dv_) / v
            return dx, ds, du_, dv_, dy, dzx, dt, dzu, dzv

        def step_lengths(d):
            dx, ds, du_, dv_, dy, dzx, dt, dzu, dzv = d
            ap = min(1.0, _max_step(x, dx), _max_step(s, ds), _max_step(u, du_), _max_step(v, dv_))
            ad = min(1.0, _max_step(zx, dzx), _max_step(t, dt), _max_step(zu, dzu), _max_step(zv, dzv))
            return ap, ad

        # Predictor: the affine-scaling direction.
        aff = newton(-x * zx, -s * t, -u * zu, -v * zv)
        if single and not _finite(aff):
            # The float32 factor of an ill-conditioned K can give an infinite direction: LAPACK's solve says
            # nothing, and the next float32 product met the infinity with the zeros of M and made NaN (numpy's
            # "invalid value encountered in matmul"), and the iterate turned to NaN with it. ``newton`` now gives
            # no direction instead, and the solve is redone in double precision, which the solver switches to
            # near the optimum anyway.
            single = False
            solve_k = _factorise(M, M32, w, dx_inv, False)
            if solve_k is None:
                reason = "normal equations lost positive definiteness"
                break
            aff = newton(-x * zx, -s * t, -u * zu, -v * zv)
        if not _finite(aff):
            reason = "the Newton direction is not finite (numerical trouble)"
            break
        ap, ad = step_lengths(aff)
        dx, ds, du_, dv_, dy, dzx, dt, dzu, dzv = aff
        mu_aff = float((x + ap * dx) @ (zx + ad * dzx) + (s + ap * ds) @ (t + ad * dt)
                       + (u + ap * du_) @ (zu + ad * dzu) + (v + ap * dv_) @ (zv + ad * dzv)) / N
        sm = (mu_aff / mu) ** 3 * mu
        # Corrector: centring plus the second-order term, same factorisation.
        rhs = [sm - x * zx - dx * dzx, sm - s * t - ds * dt,
               sm - u * zu - du_ * dzu, sm - v * zv - dv_ * dzv]
        d = newton(*rhs)
        if not _finite(d):
            reason = "the Newton direction is not finite (numerical trouble)"
            break
        ap, ad = step_lengths(d)
        # Gondzio's multiple centrality correctors: aim a longer trial step at
        # products clipped into [β_min·σμ, β_max·σμ]; keep a corrector only if it
        # lengthens the step. Each costs one solve with the same factorisation.
        for _ in range(_GONDZIO):
            apt, adt = min(1.0, ap + _DELTA), min(1.0, ad + _DELTA)
            dx, ds, du_, dv_, dy, dzx, dt, dzu, dzv = d
            prods = [(x + apt * dx) * (zx + adt * dzx), (s + apt * ds) * (t + adt * dt),
                     (u + apt * du_) * (zu + adt * dzu), (v + apt * dv_) * (zv + adt * dzv)]
            corr = []
            for p_ in prods:
                c_ = np.clip(p_, _BMIN * sm, _BMAX * sm) - p_
                corr.append(np.maximum(c_, -_BMAX * sm))
            d2 = newton(*[r_ + c_ for r_, c_ in zip(rhs, corr)])
            if not _finite(d2):
                break
            ap2, ad2 = step_lengths(d2)
            if min(ap2, ad2) < min(ap, ad) + _GAMMA * _DELTA:
                break
            d, ap, ad = d2, ap2, ad2
            rhs = [r_ + c_ for r_, c_ in zip(rhs, corr)]
        ap = min(1.0, _STEP * ap)
        ad = min(1.0, _STEP * ad)
        dx, ds, du_, dv_, dy, dzx, dt, dzu, dzv = d
        x += ap * dx
        s += ap * ds
        u += ap * du_
        v += ap * dv_
        y += ad * dy
        zx += ad * dzx
        t += ad * dt
        zu += ad * dzu
        zv += ad * dzv
    primal, dual, xb, yb = duality_certificate(M, a, best[1], best[2])
    return FrischNewtonResult(xb, yb, primal, dual, False, it, time.perf_counter() - started, reason)
