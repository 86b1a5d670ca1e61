"""Fast weights and write rules: linear attention as a recurrent matrix state, the add, decay and
correct writes, the gated write and recursive least squares.

Serves first-principles D3, D4 and D6 (lines 863-1013, 1069-1080), memory-math chapter 4's delta
rule and recursive least squares (lines 17-19), chapters 9 and 10 (lines 46-52) with D5 and D10
(line 68), and every-layer-a-store's per-channel forgetting (lines 66-72).

Conventions: a state ``S`` is ``d_v x d_k`` and is read by ``S @ q``; keys ``K`` are arrays of
shape (..., t, d_k) and values ``V`` of shape (..., t, d_v). Every function is batched over the
leading axes, so Monte Carlo draws are one array, and only loops over the positions of a stream
(at most a few dozen) are written in Python.
"""

from __future__ import annotations

import math

import numpy as np

from ..spec import (
    Output,
    coord,
    experiment,
    from_param,
    integer,
    ints,
    real,
    real_list,
    require,
    seeds,
)
from . import toylang

# ----------------------------------------------------------------------------- small tools


def unit_vectors(rng: np.random.Generator, *shape: int) -> np.ndarray:
    """Independent random unit vectors (uniform on the sphere); the last axis is the dimension."""
    x = rng.standard_normal(shape)
    return x / np.linalg.norm(x, axis=-1, keepdims=True)


def elu_plus_one(x: np.ndarray) -> np.ndarray:
    """The positive feature map elu(x) + 1 of Katharopoulos et al."""
    return np.where(x > 0, x + 1.0, np.exp(np.minimum(x, 0.0)))


def softmax_weights(scores: np.ndarray, axis: int = -1) -> np.ndarray:
    z = scores - np.max(scores, axis=axis, keepdims=True)
    w = np.exp(z)
    return w / w.sum(axis=axis, keepdims=True)


def read(S: np.ndarray, q: np.ndarray) -> np.ndarray:
    """The linear read S q, batched."""
    return np.matmul(S, q[..., None])[..., 0]


def read_all(S: np.ndarray, K: np.ndarray) -> np.ndarray:
    """The reads S k_t of every key of a stream: shape (..., t, d_v)."""
    return np.matmul(K, np.swapaxes(S, -1, -2))


def outer_sum(K: np.ndarray, V: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    """sum_t w_t v_t k_t^T: the Hebbian state after a whole stream."""
    if weights is not None:
        V = V * weights[..., None]
    return np.matmul(np.swapaxes(V, -1, -2), K)


def hebbian_states(K: np.ndarray, V: np.ndarray) -> np.ndarray:
    """Every state S_1..S_T of the additive write S_t = S_{t-1} + v_t k_t^T (axis -3 is t)."""
    return np.cumsum(np.einsum("...ti,...tj->...tij", V, K), axis=-3)


def delta_states(K, V, eta=1.0, gamma=1.0, gate=None, every: bool = True) -> np.ndarray:
    """Every state of the (decayed, gated) delta rule
    S_t = gamma S_{t-1} + g_t eta (v_t - gamma S_{t-1} k_t) k_t^T, from S_0 = 0 (axis -3 is t),
    or with ``every=False`` only the last one (no stack of states is kept: twice as fast).
    ``gate`` (..., T) multiplies each write (1 everywhere when None); its leading axes, like
    those of K and V, broadcast, so several write patterns of one stream run at once."""
    T = K.shape[-2]
    gated = () if gate is None else gate.shape[:-1]
    shape = np.broadcast_shapes(K.shape[:-2], V.shape[:-2], gated) + (V.shape[-1], K.shape[-1])
    S = np.zeros(shape)
    write = np.empty(shape)  # each step's write, in place (the same products as a new array)
    out = np.empty((*shape[:-2], T, *shape[-2:])) if every else None
    for t in range(T):
        k, v = K[..., t, :], V[..., t, :]
        if gamma != 1.0:
            S *= gamma
        np.multiply((v - read(S, k))[..., :, None], k[..., None, :], out=write)
        write *= eta if gate is None else eta * gate[..., t, None, None]
        S += write
        if every:
            out[..., t, :, :] = S
    return out if every else S


def delta_read(K, V, q, eta=1.0, gamma=1.0, gate=None) -> np.ndarray:
    """The read S_T q of the last state of ``delta_states`` (same arguments) without forming a
    state: S_t = gamma S_{t-1} (I - g_t eta k_t k_t^T) + g_t eta v_t k_t^T unrolls to
    S_T q = sum_t g_t eta (k_t . u_t) v_t, with u_T = q and
    u_{t-1} = gamma (u_t - g_t eta (k_t . u_t) k_t): a backward recursion on d_k-vectors instead
    of d_v x d_k matrices. Leading axes of K, V, q and ``gate`` (..., T) broadcast."""
    T = K.shape[-2]
    gated = () if gate is None else gate.shape[:-1]
    batch = np.broadcast_shapes(K.shape[:-2], V.shape[:-2], q.shape[:-1], gated)
    u = np.array(np.broadcast_to(q, (*batch, K.shape[-1])))
    strength = np.broadcast_to(eta if gate is None else eta * gate, (*batch, T))
    coef = np.empty((*batch, T))  # g_t eta (k_t . u_t): the weight of v_t in the read
    for t in range(T - 1, -1, -1):
        k = K[..., t, :]
        c = np.einsum("...i,...i,...->...", k, u, strength[..., t])
        coef[..., t] = c
        u -= np.einsum("...,...i->...i", c, k)
        if gamma != 1.0:
            u *= gamma
    return np.matmul(coef[..., None, :], V)[..., 0, :]


def decayed_state(K: np.ndarray, V: np.ndarray, gamma: float) -> np.ndarray:
    """S = sum_b gamma^b v_(b) k_(b)^T after a whole stream, b the age (0 for the last write)."""
    T = K.shape[-2]
    weights = gamma ** np.arange(T - 1, -1, -1, dtype=float)
    return outer_sum(K, V, weights)


def least_squares_memory(K: np.ndarray, V: np.ndarray) -> np.ndarray:
    """The minimum-norm least-squares map W = V^T (K^T)^+ (exact when the keys are independent)."""
    return np.matmul(np.swapaxes(V, -1, -2), np.swapaxes(np.linalg.pinv(K), -1, -2))


def least_squares_read(K: np.ndarray, V: np.ndarray, q: np.ndarray) -> np.ndarray:
    """W q for the minimum-norm least-squares map of the pairs (K, V), without forming W: through
    the normal equations of the smaller side (keys assumed in general position)."""
    n, d = K.shape[-2], K.shape[-1]
    Kt = np.swapaxes(K, -1, -2)
    if n >= d:  # (K^+)^T q = K (K^T K)^{-1} q
        coef = np.matmul(K, np.linalg.solve(Kt @ K, q[..., None]))
    else:  # (K^+)^T q = (K K^T)^{-1} K q
        coef = np.linalg.solve(K @ Kt, np.matmul(K, q[..., None]))
    return np.matmul(np.swapaxes(V, -1, -2), coef)[..., 0]


def ridge_memory(K: np.ndarray, V: np.ndarray, lam: float) -> np.ndarray:
    """The batch ridge solution V^T K (K^T K + lam I)^{-1}."""
    d = K.shape[-1]
    gram = np.matmul(np.swapaxes(K, -1, -2), K) + lam * np.eye(d)
    return outer_sum(K, V) @ np.linalg.inv(gram)


def rls_states(K: np.ndarray, V: np.ndarray, lam: float) -> np.ndarray:
    """Every state of recursive least squares: the delta rule with the preconditioned key R k and
    step 1/(1 + k^T R k), R updated by Sherman-Morrison, from S_0 = 0 and R_0 = I/lam."""
    T, d = K.shape[-2], K.shape[-1]
    S = np.zeros((*K.shape[:-2], V.shape[-1], d))
    R = np.broadcast_to(np.eye(d) / lam, (*K.shape[:-2], d, d)).copy()
    out = np.empty((*K.shape[:-2], T, V.shape[-1], d))
    for t in range(T):
        k, v = K[..., t, :], V[..., t, :]
        Rk = read(R, k)
        denom = 1.0 + np.einsum("...i,...i->...", k, Rk)[..., None]
        S = S + np.einsum("...i,...j->...ij", v - read(S, k), Rk) / denom[..., None]
        R = R - np.einsum("...i,...j->...ij", Rk, Rk) / denom[..., None]
        out[..., t, :, :] = S
    return out


def softmax_cache_read(K, V, q, beta: float, mask=None) -> np.ndarray:
    """Softmax read of a cache of keys K and values V with query q; ``mask`` (..., T) drops
    entries that were not written."""
    scores = beta * np.matmul(K, q[..., None])[..., 0]
    if mask is not None:
        scores = np.where(mask > 0, scores, -np.inf)
    return np.matmul(softmax_weights(scores)[..., None, :], V)[..., 0, :]


def tensor_features(x: np.ndarray, degree: int, beta: float) -> np.ndarray:
    """Feature map (sqrt(beta^p/p!) vec(x^{(x)p}))_{p<=degree}: its inner products are the
    exponential's Taylor polynomial exp(beta q.k) cut at ``degree``."""
    parts, power = [], np.ones((*x.shape[:-1], 1))
    for p in range(degree + 1):
        parts.append(math.sqrt(beta**p / math.factorial(p)) * power)
        power = np.einsum("...a,...b->...ab", power, x).reshape(*x.shape[:-1], -1)
    return np.concatenate(parts, axis=-1)


def squared_error(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.sum((a - b) ** 2, axis=-1)


# ----------------------------------------------------------------------------- D3 algebra


def linear_attention_gaps(rng, tokens: int, d_k: int, d_v: int) -> dict:
    """Largest gap, over every step, between the recurrent state's read, the explicit causal sum
    and the masked matrix form tril(Q K^T) V: identity map without normaliser, and elu+1 with its
    normaliser z_t."""
    Q, K = rng.standard_normal((tokens, d_k)), rng.standard_normal((tokens, d_k))
    V = rng.standard_normal((tokens, d_v))
    gaps = {}
    for name, psi, normalise in (("identity", lambda x: x, False), ("elu+1", elu_plus_one, True)):
        fq, fk = psi(Q), psi(K)
        S, z = np.zeros((d_v, fk.shape[1])), np.zeros(fk.shape[1])
        rec, explicit = np.empty((tokens, d_v)), np.empty((tokens, d_v))
        for t in range(tokens):
            S, z = S + np.outer(V[t], fk[t]), z + fk[t]
            rec[t] = S @ fq[t] / (z @ fq[t] if normalise else 1.0)
            w = fk[: t + 1] @ fq[t]
            explicit[t] = (w @ V[: t + 1]) / (w.sum() if normalise else 1.0)
        masked = np.tril(fq @ fk.T)
        if normalise:
            masked = masked / masked.sum(axis=1, keepdims=True)
        matrix = masked @ V
        gaps[name] = max(np.abs(rec - explicit).max(), np.abs(rec - matrix).max())
    return gaps


def gradient_step_gap(rng, tokens: int, d_k: int, d_v: int, h: float = 1e-3) -> float:
    """Each additive write v k^T equals one unit step down the finite-difference gradient of the
    linear objective -v^T S k (central differences are exact for a linear function)."""
    K, V = rng.standard_normal((tokens, d_k)), rng.standard_normal((tokens, d_v))
    states = hebbian_states(K, V)
    gap, S = 0.0, np.zeros((d_v, d_k))
    for t in range(tokens):
        grad = np.empty((d_v, d_k))
        for i in range(d_v):
            for j in range(d_k):
                E = np.zeros((d_v, d_k))
                E[i, j] = h
                f_plus = -V[t] @ (S + E) @ K[t]
                f_minus = -V[t] @ (S - E) @ K[t]
                grad[i, j] = (f_plus - f_minus) / (2 * h)
        S = S - grad
        gap = max(gap, np.abs(S - states[t]).max())
    return float(gap)


def scan_gap(rng, tokens: int, d_k: int, d_v: int) -> float:
    """A decayed additive recurrence S_t = a_t S_{t-1} + v_t k_t^T computed by a balanced tree of
    the associative combine (a1, B1) o (a2, B2) = (a1 a2, a2 B1 + B2), against the plain loop."""
    a = rng.uniform(0.5, 1.0, tokens)
    B = np.einsum(
        "ti,tj->tij", rng.standard_normal((tokens, d_v)), rng.standard_normal((tokens, d_k))
    )
    S = np.zeros((d_v, d_k))
    for t in range(tokens):
        S = a[t] * S + B[t]
    items = [(a[t], B[t]) for t in range(tokens)]
    while len(items) > 1:
        pairs = [items[i : i + 2] for i in range(0, len(items), 2)]
        items = [
            (p[0][0] * p[1][0], p[1][0] * p[0][1] + p[1][1]) if len(p) == 2 else p[0] for p in pairs
        ]
    return float(np.abs(items[0][1] - S).max())


def polynomial_state_gap(rng, tokens: int, d_k: int, d_v: int, degree_max: int = 3) -> float:
    """D10: sum_i v_i (k_i.q)^p equals the read of the fixed state sum_i v_i vec(k_i^{(x)p})^T at
    vec(q^{(x)p}), for p = 1..degree_max (largest gap)."""
    K, V, q = (rng.standard_normal(s) for s in ((tokens, d_k), (tokens, d_v), (d_k,)))
    gap = 0.0
    for p in range(1, degree_max + 1):
        direct = V.T @ (K @ q) ** p
        kp, qp = K, q
        for _ in range(p - 1):
            kp = np.einsum("ta,tb->tab", kp, K).reshape(tokens, -1)
            qp = np.outer(qp, q).ravel()
        gap = max(gap, np.abs(direct - (V.T @ kp) @ qp).max())
    return float(gap)


def exp_gram(rng, n_keys: int, dim: int) -> dict:
    """Rank and smallest eigenvalue (relative to the largest) of exp(k_i.k_j) for random keys."""
    K = rng.standard_normal((n_keys, dim))
    G = np.exp(K @ K.T)
    eig = np.linalg.eigvalsh(G)
    return {"rank": float(np.linalg.matrix_rank(G)), "min_eig_rel": float(eig[0] / eig[-1])}


def truncated_reads(rng, tokens: int, d_k: int, d_v: int, beta: float, degree_max: int) -> dict:
    """One random draw: the normalised read with the exponential cut at degree P (P = 0..max)
    against the exact softmax read (distance), and the recurrent tensor-feature state against the
    explicit truncated read at every step (gap, at the note's small setting)."""
    K, V, q = (rng.standard_normal(s) for s in ((tokens, d_k), (tokens, d_v), (d_k,)))
    exact = softmax_weights(beta * K @ q) @ V
    s = beta * K @ q
    dist = np.empty(degree_max + 1)
    for P in range(degree_max + 1):
        w = sum(s**p / math.factorial(p) for p in range(P + 1))
        dist[P] = np.linalg.norm(w @ V / w.sum() - exact)
    return {"distance": dist}


def feature_state_gap(rng, tokens: int, d_k: int, d_v: int, degree: int, beta: float) -> dict:
    """The recurrent state over the tensor features of degree <= ``degree`` against the explicit
    truncated causal read, largest gap over every step; and the feature count."""
    K, V, Q = (rng.standard_normal(s) for s in ((tokens, d_k), (tokens, d_v), (tokens, d_k)))
    fk, fq = tensor_features(K, degree, beta), tensor_features(Q, degree, beta)
    S, z, gap = np.zeros((d_v, fk.shape[1])), np.zeros(fk.shape[1]), 0.0
    for t in range(tokens):
        S, z = S + np.outer(V[t], fk[t]), z + fk[t]
        s = beta * K[: t + 1] @ Q[t]
        w = sum(s**p / math.factorial(p) for p in range(degree + 1))
        gap = max(gap, np.abs(S @ fq[t] / (z @ fq[t]) - w @ V[: t + 1] / w.sum()).max())
    return {"gap": float(gap), "count": float(fk.shape[1])}


# ----------------------------------------------------------------------------- D4 identities


def delta_write_gaps(K: np.ndarray, V: np.ndarray, rng) -> dict:
    """The delta rule stores the latest pair, ignores a repeat, keeps orthonormal pairs and moves
    an older read by (error) x (key overlap) (first-principles lines 977-988)."""
    d, pairs = K.shape[-1], K.shape[-2]
    states = delta_states(K, V)
    store = np.abs(np.einsum("tij,tj->ti", states, K) - V).max()
    S_last = states[-1]
    repeat = np.abs(S_last + np.outer(V[-1] - S_last @ K[-1], K[-1]) - S_last).max()
    Qo, _ = np.linalg.qr(rng.standard_normal((d, d)))
    ortho = delta_states(Qo.T, V[:d])[-1]
    ortho_gap = np.abs(Qo.T @ ortho.T - V[:d]).max()
    disturb = 0.0
    for t in range(1, pairs):
        prev = states[t - 1]
        err = V[t] - prev @ K[t]
        moved = states[t] @ K[:t].T - prev @ K[:t].T  # (d_v, t)
        disturb = max(disturb, np.abs(moved - np.outer(err, K[t] @ K[:t].T)).max())
    return {
        "delta_store_gap": float(store),
        "delta_repeat_change": float(repeat),
        "delta_orthonormal_gap": float(ortho_gap),
        "delta_disturb_gap": float(disturb),
    }


def delta_gradient_gap(k: np.ndarray, v: np.ndarray, rng, eta: float = 0.37) -> float:
    """The delta write is a gradient step on 1/2 |S k - v|^2 (first-principles line 977): the
    analytic gradient against central differences at a random S, and one step from S = 0."""
    d = len(k)
    S = rng.standard_normal((d, d))
    grad = np.outer(S @ k - v, k)  # analytic, checked against differences below
    h, fd = 1e-5, np.empty((d, d))
    for i in range(d):
        for j in range(d):
            E = np.zeros((d, d))
            E[i, j] = h
            fd[i, j] = (
                0.5 * np.sum(((S + E) @ k - v) ** 2) - 0.5 * np.sum(((S - E) @ k - v) ** 2)
            ) / (2 * h)
    stepped = delta_states(k[None], v[None], eta=eta)[-1]  # from S_0 = 0
    zero_step = -eta * np.outer(-v, k)
    return float(max(np.abs(fd - grad).max(), np.abs(stepped - zero_step).max()))


def gated_delta_gap(k: np.ndarray, v: np.ndarray, rng, alpha: float = 0.8) -> float:
    """Gated delta alpha S (I - k k^T) + v k^T stores (k, v) and scales the rest by alpha
    (memory-math chapter 10, line 50), with a unit key and write strength 1."""
    d = len(k)
    S0 = rng.standard_normal((d, d))
    gated = alpha * S0 @ (np.eye(d) - np.outer(k, k)) + np.outer(v, k)
    u = rng.standard_normal(d)
    u -= (u @ k) * k
    return float(max(np.abs(gated @ k - v).max(), np.abs(gated @ u - alpha * S0 @ u).max()))


def overwrite_errors(rng, d: int) -> dict:
    """Squared read-back error of a delta write with write strength 1 under an L2-unit key and
    under the same key normalised by its sum (L1), on a random prior state; positive keys. Also
    the error of a purely additive write v k^T under the unit key (no correction)."""
    k = np.abs(rng.standard_normal(d)) + 0.1
    S, v = rng.standard_normal((d, d)), rng.standard_normal(d)
    out = {}
    for name, key in (("l2", k / np.linalg.norm(k)), ("l1", k / k.sum())):
        S1 = S + np.outer(v - S @ key, key)
        out[name] = float(np.sum((S1 @ key - v) ** 2))
    unit = k / np.linalg.norm(k)
    additive = S + np.outer(v, unit)  # purely additive write: the old content under k stays
    out["additive"] = float(np.sum((additive @ unit - v) ** 2))
    return out


def wy_gap(rng, steps: int, d: int) -> float:
    """Products of generalised Householder factors I - beta_t k_t k_t^T equal I - W K^T with
    w_t = beta_t (k_t - W_{t-1} K_{t-1}^T k_t), the compact form DeltaNet parallelises
    (memory-math line 50)."""
    K, betas = unit_vectors(rng, steps, d), rng.uniform(0, 1, steps)
    prod, W = np.eye(d), np.zeros((0, d))
    for t in range(steps):
        prod = prod @ (np.eye(d) - betas[t] * np.outer(K[t], K[t]))
        w = betas[t] * (K[t] - W.T @ (K[:t] @ K[t]))
        W = np.vstack([W, w])
    return float(np.abs(prod - (np.eye(d) - W.T @ K)).max())


def ttt_gaps(rng, tokens: int, d: int) -> dict:
    """Test-time training: one batch gradient step of size 1/2 on sum_t |W k_t - v_t|^2 from W = 0
    is the linear-attention state; per-token steps of size beta on 1/2 |S k - v|^2 are the delta
    rule with write strength beta."""
    K, V = unit_vectors(rng, tokens, d), rng.standard_normal((tokens, d))
    grad0 = sum(2 * np.outer(0 - V[t], K[t]) for t in range(tokens))
    batch = np.zeros((d, d)) - 0.5 * grad0
    beta, S = 0.6, np.zeros((d, d))
    for t in range(tokens):
        S = S - beta * np.outer(S @ K[t] - V[t], K[t])
    return {
        "batch": float(np.abs(batch - outer_sum(K, V)).max()),
        "per_token": float(np.abs(S - delta_states(K, V, eta=beta)[-1]).max()),
    }


def repeated_delta_distance(rng, d: int, pairs: int, passes) -> np.ndarray:
    """Relative distance of the delta rule (strength 1, unit keys, passes over the same pairs)
    from the minimum-norm least-squares store, after each number of passes in ``passes``.

    One write S <- S (I - k k^T) + v k^T is linear in the augmented state [S, V^T]; a whole pass
    is the product of the pairs' augmented matrices, and n passes its n-th power (repeated
    squaring), so a million passes cost twenty matrix products and no shortcut through the
    fixed point is taken."""
    K, V = unit_vectors(rng, pairs, d), rng.standard_normal((pairs, d))
    target = least_squares_memory(K, V)
    one_pass = np.eye(d + pairs)
    for t in range(pairs):
        step = np.eye(d + pairs)
        step[:d, :d] -= np.outer(K[t], K[t])
        step[d + t, :d] = K[t]
        one_pass = one_pass @ step
    start = np.hstack([np.zeros((d, d)), V.T])
    out = []
    for n in passes:
        S = (start @ np.linalg.matrix_power(one_pass, int(n)))[:, :d]
        out.append(np.linalg.norm(S - target) / np.linalg.norm(target))
    return np.array(out)


def rls_batch_gap(rng, pairs: int, d_k: int, d_v: int, lam: float) -> float:
    """Largest relative (Frobenius) gap, over every step, between recursive least squares and
    the batch ridge solution of the pairs so far."""
    K, V = rng.standard_normal((pairs, d_k)), rng.standard_normal((pairs, d_v))
    states = rls_states(K, V, lam)
    gap = 0.0
    for t in range(pairs):
        batch = ridge_memory(K[: t + 1], V[: t + 1], lam)
        gap = max(gap, np.linalg.norm(states[t] - batch) / np.linalg.norm(batch))
    return float(gap)


def ridge_read_errors(rng, draws: int, d: int, pairs: int, lams) -> np.ndarray:
    """Mean squared error of the ridge store's read over its pairs, per draw and lambda
    (random unit keys and values): shape (lambda, draw)."""
    K, V = unit_vectors(rng, draws, pairs, d), unit_vectors(rng, draws, pairs, d)
    out = np.empty((len(lams), draws))
    for i, lam in enumerate(lams):
        W = ridge_memory(K, V, lam)
        out[i] = squared_error(read_all(W, K), V).mean(axis=-1)
    return out


# ----------------------------------------------------------------------------- D3 figure sentence

FLO_SENTENCE = ("Flo", "gave", "Ann", "a", "pen", "and", "yes", "well", "well", "and", "so")
# first-principles line 864: the prompt, with Flo as the answer at position 14 (gap of 6 fillers).


def flo_tokens() -> np.ndarray:
    """The prompt of D3 as ToyLang token ids (a full sentence of gap 6)."""
    fill = [toylang.FILLERS.index(w) for w in FLO_SENTENCE[5:]]
    x, y = toylang.NAMES.index("Flo"), toylang.NAMES.index("Ann")
    return toylang.assemble([x], [y], [toylang.THINGS.index("pen")], [fill], 8)[0]


def reader_steps(rng, tokens: np.ndarray, n_names: int, d: int, beta: float, vocab: int) -> dict:
    """Write a sentence token by token under random unit position keys (values: random unit word
    embeddings) and ask, after each token, for the word at position 0: cosine of each reader's
    answer with the true first name and with the closest other name."""
    E = unit_vectors(rng, vocab, d)
    T = len(tokens)
    K, V = unit_vectors(rng, T, d), E[tokens]
    states = hebbian_states(K, V)
    names = E[:n_names]
    out_true, out_wrong = np.empty((2, T)), np.empty((2, T))
    for t in range(T):
        answers = (states[t] @ K[0], softmax_cache_read(K[: t + 1], V[: t + 1], K[0], beta))
        for r, a in enumerate(answers):
            cos = names @ a / np.linalg.norm(a)
            out_true[r, t] = cos[tokens[0]]
            out_wrong[r, t] = np.max(np.delete(cos, tokens[0]))
    return {"true": out_true, "wrong": out_wrong, "state": states[-1], "states": states}


# ----------------------------------------------------------------------------- experiments


READERS = ("linear", "softmax")

_ALGEBRA_SECTIONS = (
    "first-principles D3 (lines 863-950) and D4 (lines 977-1008)",
    "memory-math ch. 4 delta rule and RLS (lines 17-18), ch. 9-10 (lines 46-50), D10 (line 68)",
    "every-layer-a-store: per-channel forgetting (line 72)",
)

STORES = ("hebbian", "least_squares", "delta", "softmax")


@experiment(
    grid={"seed": seeds()},
    params={
        "tokens": integer(min=2, work=True, memory=True),
        "d_k": integer(min=1),
        "d_v": integer(min=1),
        "gram_keys": integer(min=1),
        "gram_dim": integer(min=1),
        "feature_dim": integer(min=1),
        "feature_degree": integer(min=0, max=6),
        "trunc_dim": integer(min=1),
        "trunc_beta": real(gt=0),
        "degree_max": integer(min=0),
        "rls_pairs": integer(min=1),
        "rls_dim": integer(min=1),
        "rls_lambda": real(gt=0),
        "ridge_dim": integer(min=1, work=True, memory=2),
        "ridge_pairs": integer(min=1, memory=True),
        "ridge_draws": integer(min=1, work=True, memory=True),
        "ridge_lambdas": real_list(gt=0, doc="ridge penalties of the ridge-store reads"),
        "state_dim": integer(min=2, work=True),
        "passes": ints(min=1, ranges=False, doc="passes of the repeated delta write"),
        "cache_beta": real(gt=0),
    },
    outputs=(
        Output(
            "recurrence_gap",
            "largest gap of the recurrent read from the explicit and masked forms",
            dims=("feature_map",),
        ),
        Output("gradient_step_gap", "additive write minus a unit gradient step"),
        Output("scan_gap", "tree scan minus sequential decayed recurrence"),
        Output("polynomial_state_gap", "degree-p read minus its fixed-state read"),
        Output("gram_rank", "rank of exp(k_i.k_j) for the random keys"),
        Output("gram_min_eig_rel", "smallest over largest eigenvalue of that matrix"),
        Output("feature_count", "entries of the tensor feature vector"),
        Output("feature_state_gap", "tensor-feature state minus truncated read"),
        Output(
            "truncated_distance",
            "distance of the degree-P read from the softmax read (one draw)",
            dims=("degree",),
        ),
        Output("delta_store_gap", "latest pair's read minus its value, delta rule"),
        Output("delta_repeat_change", "change of the state on a repeated write"),
        Output("delta_orthonormal_gap", "largest read error with orthonormal keys"),
        Output("delta_disturb_gap", "disturbance minus (error) x (key overlap)"),
        Output("delta_gradient_gap", "delta write minus a gradient step"),
        Output("gated_delta_gap", "gated delta: stored pair and decayed rest"),
        Output("overwrite_error_l2", "read-back error after overwrite, L2-unit key"),
        Output("overwrite_error_l1", "read-back error after overwrite, L1-normalised key"),
        Output(
            "overwrite_error_additive", "read-back error after a purely additive write, unit key"
        ),
        Output("wy_gap", "Householder product minus its compact form"),
        Output("ttt_batch_gap", "batch TTT step minus the linear-attention state"),
        Output("ttt_delta_gap", "per-token TTT steps minus the delta rule"),
        Output(
            "ttt_batch_fd_gap",
            "read of one batch TTT step (rate 1/2 from 0, finite-difference gradient) minus the "
            "linear-attention read",
        ),
        Output(
            "repeated_delta_distance",
            "relative distance of repeated delta writes from least squares",
            dims=("passes",),
        ),
        Output("rls_batch_gap", "relative gap of RLS from the batch ridge solution"),
        Output("ridge_error_one_draw", "squared read error of the ridge store", dims=("lam",)),
        Output("ridge_error_median", "median over draws of that error", dims=("lam",)),
        Output("ridge_mean_over_median", "mean over median of that error", dims=("lam",)),
        Output("ridge_error_mean", "mean over draws of that error", dims=("lam",)),
        Output(
            "flo_cos_true",
            "cosine of the answer with the first name after each token",
            dims=("reader", "step"),
        ),
        Output(
            "flo_cos_wrong",
            "largest cosine of the answer with another name",
            dims=("reader", "step"),
        ),
        Output("flo_correct", "1 if the reader names the first word at the end", dims=("reader",)),
        Output("flo_state", "the 8 x 8 state after the prompt", dims=("row", "col")),
        # the interactive page's cursor shows the state as it is written, token by token
        Output("flo_states", "the 8 x 8 state after each token", dims=("step", "row", "col")),
    ),
    coords={
        "col": coord("column of the 8 x 8 fast-weight state (0 first)"),
        "row": coord("row of the 8 x 8 fast-weight state (0 first)"),
        "feature_map": coord("feature map applied to keys and queries", ["identity", "elu+1"]),
        "degree": coord(
            "degree P of the truncated Taylor feature map",
            lambda **p: list(range(p["degree_max"] + 1)),
        ),
        "passes": from_param("passes"),
        "lam": from_param("ridge_lambdas"),
        "reader": coord("read of the fast-weight state: linear or softmax", list(READERS)),
        "step": coord(
            "tokens of the worked sentence read so far", list(range(len(FLO_SENTENCE) + 3))
        ),
    },
    sections=_ALGEBRA_SECTIONS,
)
def fast_weight_algebra(
    seed: int,
    tokens: int,
    d_k: int,
    d_v: int,
    gram_keys: int,
    gram_dim: int,
    feature_dim: int,
    feature_degree: int,
    trunc_dim: int,
    trunc_beta: float,
    degree_max: int,
    rls_pairs: int,
    rls_dim: int,
    rls_lambda: float,
    ridge_dim: int,
    ridge_pairs: int,
    ridge_draws: int,
    ridge_lambdas: list[float],
    state_dim: int,
    passes: list[int],
    cache_beta: float,
    rng,
) -> dict:
    """One random draw of every algebraic check of the fast-weight sections (the note's Checks
    each use one draw; the seeds replicate them). The parts draw from ``rng`` in this order."""
    del seed
    out = linear_attention_forms(rng, tokens, d_k, d_v)
    out.update(exp_gram_checks(rng, gram_keys, gram_dim))
    out.update(
        truncated_exp_checks(
            rng, tokens, d_v, feature_dim, feature_degree, trunc_dim, trunc_beta, degree_max
        )
    )
    out.update(delta_rule_checks(rng, state_dim))
    out.update(ttt_checks(rng, tokens, state_dim))
    out.update(ridge_checks(rng, ridge_dim, ridge_pairs, ridge_draws, ridge_lambdas))
    out.update(flo_reads(rng, state_dim, cache_beta))
    out.update(additive_write_checks(rng, tokens, d_k, d_v))
    out["wy_gap"] = wy_gap(rng, tokens, state_dim)
    out.update(least_squares_limits(rng, state_dim, passes, rls_pairs, rls_dim, rls_lambda))
    # drawn last, so that every value above keeps its draws
    out["ttt_batch_fd_gap"] = ttt_batch_fd_gap(rng, tokens, state_dim)
    return out


def linear_attention_forms(rng, tokens: int, d_k: int, d_v: int) -> dict:
    """Recurrent, explicit and masked causal linear attention agree (first-principles 880-900)."""
    lin = linear_attention_gaps(rng, tokens, d_k, d_v)
    return {"recurrence_gap": np.array([lin["identity"], lin["elu+1"]])}


def exp_gram_checks(rng, n_keys: int, dim: int) -> dict:
    """exp(k_i.k_j) of random keys has full rank: no finite features (first-principles 908-917)."""
    gram = exp_gram(rng, n_keys, dim)
    return {"gram_rank": gram["rank"], "gram_min_eig_rel": gram["min_eig_rel"]}


def truncated_exp_checks(
    rng, tokens, d_v, feature_dim, feature_degree, trunc_dim, beta, degree_max
) -> dict:
    """Tensor features of the cut exponential, and the cut read (first-principles 918-919)."""
    feat = feature_state_gap(rng, tokens, feature_dim, d_v, feature_degree, beta)
    trunc = truncated_reads(rng, tokens, trunc_dim, d_v, beta, degree_max)
    return {
        "feature_count": feat["count"],
        "feature_state_gap": feat["gap"],
        "truncated_distance": trunc["distance"],
    }


def delta_rule_checks(rng, state_dim: int) -> dict:
    """The delta rule's identities, its gated form and overwriting (first-principles 977-988)."""
    K = unit_vectors(rng, 3 * state_dim, state_dim)
    V = rng.standard_normal((3 * state_dim, state_dim))
    out = delta_write_gaps(K, V, rng)
    out["delta_gradient_gap"] = delta_gradient_gap(K[0], V[0], rng)
    out["gated_delta_gap"] = gated_delta_gap(K[0], V[0], rng)
    over = overwrite_errors(rng, state_dim)
    out["overwrite_error_l2"] = over["l2"]
    out["overwrite_error_l1"] = over["l1"]
    out["overwrite_error_additive"] = over["additive"]
    return out


def ttt_checks(rng, tokens: int, state_dim: int) -> dict:
    """Test-time training's batch and per-token steps against the fast states (memory-math 50)."""
    ttt = ttt_gaps(rng, tokens, state_dim)
    return {"ttt_batch_gap": ttt["batch"], "ttt_delta_gap": ttt["per_token"]}


def ridge_checks(rng, dim: int, pairs: int, draws: int, lams) -> dict:
    """The ridge store's read error, one draw and many, per penalty (first-principles 989)."""
    one = ridge_read_errors(rng, 1, dim, pairs, lams)[:, 0]
    many = ridge_read_errors(rng, draws, dim, pairs, lams)
    return {
        "ridge_error_one_draw": one,
        "ridge_error_median": np.median(many, axis=1),
        "ridge_error_mean": many.mean(axis=1),
        "ridge_mean_over_median": many.mean(axis=1) / np.median(many, axis=1),
    }


def flo_reads(rng, state_dim: int, cache_beta: float) -> dict:
    """The state and the cache asked for Flo after each word of D3's prompt (lines 864, 901)."""
    prompt = flo_tokens()[: len(FLO_SENTENCE) + 3]  # up to 'thanked'; position 14 is asked
    flo = reader_steps(rng, prompt, 8, state_dim, cache_beta, toylang.vocab_size(8, 6))
    return {
        "flo_cos_true": flo["true"],
        "flo_cos_wrong": flo["wrong"],
        "flo_correct": (flo["true"][:, -1] > flo["wrong"][:, -1]).astype(float),
        "flo_state": flo["state"],
        "flo_states": flo["states"],
    }


def additive_write_checks(rng, tokens: int, d_k: int, d_v: int) -> dict:
    """The additive write as a gradient step and a scan (first-principles 902), and D10's
    polynomial read as a fixed state (memory-math line 68)."""
    return {
        "gradient_step_gap": gradient_step_gap(rng, tokens, d_k, d_v),
        "scan_gap": scan_gap(rng, tokens, d_k, d_v),
        "polynomial_state_gap": polynomial_state_gap(rng, tokens, d_k, d_v),
    }


def least_squares_limits(rng, state_dim, passes, rls_pairs, rls_dim, rls_lambda) -> dict:
    """Repeated delta passes and RLS reach least squares (first-principles 989-1008, els 72)."""
    return {
        "repeated_delta_distance": repeated_delta_distance(rng, state_dim, 6, passes),
        "rls_batch_gap": rls_batch_gap(rng, rls_pairs, rls_dim, rls_dim, rls_lambda),
    }


def ttt_batch_fd_gap(rng, tokens: int, d: int, h: float = 1e-3) -> float:
    """Test-time training of a linear model by one batch gradient step of size 1/2 from W = 0
    on the note's loss sum_t |W k_t - v_t|^2, the gradient taken by central finite differences
    of that loss (no gradient formula), read at d random queries, against the linear-attention
    read sum_t v_t (k_t . q) computed from the tokens directly: the largest difference."""
    K, V = unit_vectors(rng, tokens, d), rng.standard_normal((tokens, d))
    Q = rng.standard_normal((d, d))

    def loss(W):
        return float(np.sum((K @ W.T - V) ** 2))

    grad = np.zeros((d, d))
    for idx in np.ndindex(grad.shape):
        E = np.zeros((d, d))
        E[idx] = h
        grad[idx] = (loss(E) - loss(-E)) / (2 * h)
    W1 = np.zeros((d, d)) - 0.5 * grad
    linear_attention = (Q @ K.T) @ V  # row s: sum_t (q_s . k_t) v_t
    return float(np.abs(Q @ W1.T - linear_attention).max())


def age_streams(rng, streams: int, d: int, pairs: int, gammas, beta: float) -> dict:
    """Streams of ``pairs`` random unit keys and values in R^d: squared error of each pair's read
    against its age (0 = the last written), mean over streams, for decay at each gamma (gamma 1
    is adding), the delta rule (strength 1) and a softmax cache."""
    K, V = unit_vectors(rng, streams, pairs, d), unit_vectors(rng, streams, pairs, d)
    by_age = slice(None, None, -1)  # position t has age pairs-1-t
    decay = np.empty((len(gammas), pairs))
    for i, g in enumerate(gammas):
        decay[i] = squared_error(read_all(decayed_state(K, V, g), K), V).mean(0)[by_age]
    S = delta_states(K, V, every=False)
    delta = squared_error(read_all(S, K), V).mean(0)[by_age]
    w = softmax_weights(beta * K @ np.swapaxes(K, -1, -2))
    soft = squared_error(w @ V, V).mean(0)[by_age]
    return {"decay": decay, "delta": delta, "softmax": soft}


def store_streams(rng, draws: int, d: int, max_pairs: int, beta: float) -> dict:
    """Squared recall error, mean over the m stored pairs and over draws, of four stores of the
    first m pairs of a stream (m = 1..max_pairs) in d dimensions: Hebbian, least squares, the
    one-pass delta rule and a softmax cache. Also the interference-to-signal ratio of the two
    linear stores (mean sum_{i != j} c_ji^2 over mean c_jj^2, c the read's coefficients on the
    values), and the smallest margin of the delta error over the least-squares error.

    The least-squares reads of the stored keys are the projection P V of the values onto the
    column space of the key matrix, P = K (K^T K)^{-1} K^T when m >= d and the identity
    K K^T (K K^T)^{-1} when m < d (solved, not inverted; the same map as the pseudo-inverse for
    keys in general position). The Hebbian state sum_j v_j k_j^T is read at the keys as
    (K K^T) V, its coefficients on the values, without forming the state."""
    K, V = unit_vectors(rng, draws, max_pairs, d), unit_vectors(rng, draws, max_pairs, d)
    dst = delta_states(K, V)
    err = np.empty((4, max_pairs, draws))
    ratio = np.empty((2, max_pairs))
    margin = np.empty(max_pairs)
    for m in range(1, max_pairs + 1):
        Km, Vm = K[:, :m], V[:, :m]
        Kt = np.swapaxes(Km, -1, -2)
        coef_h = Km @ Kt
        if m >= d:
            coef_l = Km @ np.linalg.solve(Kt @ Km, Kt)
        else:
            coef_l = np.swapaxes(np.linalg.solve(coef_h, coef_h), -1, -2)
        reads = (
            coef_h @ Vm,
            coef_l @ Vm,
            read_all(dst[:, m - 1], Km),
            softmax_weights(beta * coef_h) @ Vm,
        )
        for r, a in enumerate(reads):
            err[r, m - 1] = squared_error(a, Vm).mean(-1)
        margin[m - 1] = np.min(err[2, m - 1] - err[1, m - 1])
        for r, c in enumerate((coef_h, coef_l)):
            diag = np.diagonal(c, axis1=1, axis2=2)
            off = (c**2).sum(-1) - diag**2
            ratio[r, m - 1] = off.mean() / (diag**2).mean()
    return {"error": err, "ratio": ratio, "margin": margin}


@experiment(
    grid={"seed": seeds()},
    params={
        "age_dim": integer(min=1),
        "age_pairs": integer(min=1, work=True, memory=2),
        "gammas": real_list(gt=0, max=1, doc="decay factors of the decayed additive state"),
        "streams": integer(min=1, memory=True, work=True),
        "store_dim": integer(min=1, memory=True),
        "max_pairs": integer(min=1, work=2),
        "draws": integer(min=1, work=True, memory=True),
        "few_draws": integer(min=1),
        "cache_dim": integer(min=1),
        "cache_tokens": integer(min=1),
        "cache_draws": integer(min=1),
        "beta": real(gt=0),
    },
    outputs=(
        Output(
            "decay_age_error",
            "squared read error by age, decayed additive state (mean of streams)",
            dims=("gamma", "age"),
        ),
        Output("delta_age_error", "squared read error by age, delta rule", dims=("age",)),
        Output("softmax_age_error", "squared read error by age, softmax cache", dims=("age",)),
        Output(
            "store_error",
            "squared recall error against the number of stored pairs (mean of draws)",
            dims=("store", "pairs"),
        ),
        Output("store_error_few", "the same over the first few draws", dims=("store", "pairs")),
        Output(
            "interference_ratio",
            "interference power over signal power of the read",
            dims=("linear_store", "pairs"),
        ),
        Output(
            "interference_cross",
            "fewest pairs with interference power at least the signal's",
            "pairs",
            ("linear_store",),
        ),
        Output("interference_advantage", "least-squares crossing over Hebbian crossing"),
        Output(
            "delta_over_ls_min",
            "smallest excess of the delta error over the least-squares error",
            dims=("pairs",),
        ),
        Output(
            "first_value_error",
            "squared error of the first value's read after t tokens",
            dims=("memory", "tokens"),
        ),
    ),
    coords={
        "gamma": from_param("gammas"),
        "age": coord(
            "age of a stored pair: writes since it was stored",
            lambda **p: list(range(p["age_pairs"])),
        ),
        "store": coord("write rule of the associative store", list(STORES)),
        "pairs": coord(
            "number of key-value pairs stored", lambda **p: list(range(1, p["max_pairs"] + 1))
        ),
        "linear_store": coord("write rule of the linear store", ["hebbian", "least_squares"]),
        "memory": coord(
            "kind of memory read: a fixed-size state or a cache of every token", ["state", "cache"]
        ),
        "tokens": coord(
            "tokens written into the memory", lambda **p: list(range(1, p["cache_tokens"] + 1))
        ),
    },
    sections=(
        "first-principles D4 (lines 955-1009)",
        "memory-math ch. 4 figure (line 19), ch. 9 figure (lines 47-48), ch. 10 figure (51)",
        "every-layer-a-store: per-channel forgetting (line 72)",
    ),
)
def write_rule_streams(
    seed: int,
    age_dim: int,
    age_pairs: int,
    gammas: list[float],
    streams: int,
    store_dim: int,
    max_pairs: int,
    draws: int,
    few_draws: int,
    cache_dim: int,
    cache_tokens: int,
    cache_draws: int,
    beta: float,
    rng,
) -> dict:
    """Monte Carlo of the write rules: error by age in a stream (``streams`` streams per seed, the
    size of the note's Check), the four stores against the number of pairs (``draws`` per seed,
    and the first ``few_draws`` of them), and the cache against the state as tokens are read."""
    del seed
    age = age_streams(rng, streams, age_dim, age_pairs, gammas, beta)
    store = store_streams(rng, draws, store_dim, max_pairs, beta)
    # fewest pairs at which the interference power reaches the signal's, per linear store
    cross = np.array(
        [np.argmax(r >= 1) + 1.0 if np.any(r >= 1) else np.nan for r in store["ratio"]]
    )
    first = first_value_errors(rng, cache_draws, cache_tokens, cache_dim, beta)
    return {
        "decay_age_error": age["decay"],
        "delta_age_error": age["delta"],
        "softmax_age_error": age["softmax"],
        "store_error": store["error"].mean(-1),
        "store_error_few": store["error"][..., :few_draws].mean(-1),
        "interference_ratio": store["ratio"],
        "interference_cross": cross,
        "interference_advantage": cross[1] / cross[0],
        "delta_over_ls_min": store["margin"],
        "first_value_error": first,
    }


def first_value_errors(rng, draws: int, tokens: int, d: int, beta: float) -> np.ndarray:
    """Squared error of the first value's read after t = 1..``tokens`` tokens of random unit keys
    and values, mean over ``draws``: the Hebbian state read at k_0, and a softmax cache (shape
    (2, tokens)). The state after t tokens read at k_0 is sum_{j<=t} (k_j . k_0) v_j, a running
    sum over the tokens, so no state is formed."""
    K, V = unit_vectors(rng, draws, tokens, d), unit_vectors(rng, draws, tokens, d)
    state_reads = np.cumsum(np.einsum("sti,si->st", K, K[:, 0])[..., None] * V, axis=1)
    state_err = squared_error(state_reads, V[:, None, 0]).mean(0)
    cache_err = np.empty(tokens)
    for t in range(tokens):
        a = softmax_cache_read(K[:, : t + 1], V[:, : t + 1], K[:, 0], beta)
        cache_err[t] = squared_error(a, V[:, 0]).mean()
    return np.stack([state_err, cache_err])


def decay_error_closed(d: int, n: int, gamma, age) -> np.ndarray:
    """(1 - gamma^age)^2 + (sum_{b<n} gamma^{2b} - gamma^{2 age}) / d (first-principles l. 957)."""
    gamma, age = np.asarray(gamma, float)[..., None], np.asarray(age)
    total = np.sum(gamma ** (2 * np.arange(n)), axis=-1, keepdims=True)
    return (1 - gamma**age) ** 2 + (total - gamma ** (2 * age)) / d


def weights_and_cache(d_model: int, layers: int) -> tuple[int, int]:
    """Parameters of a stack of ``layers`` blocks of width ``d_model`` (4 d^2 in attention and
    8 d^2 in an MLP of hidden size 4d, memory-math line 46) and the keys and values one token
    adds to the cache (2 d per layer)."""
    return 12 * d_model**2 * layers, 2 * d_model * layers


@experiment(
    grid={
        "d_model": ints(doc="residual width d_model of the model"),
        "layers": ints(doc="depth of the model: number of layers"),
    },
    outputs=(
        Output("param_count", "parameters 12 d^2 L", "parameters"),
        Output("cache_per_token", "cache numbers per token, 2 d L", "numbers"),
        Output("n_star", "tokens where the cache equals the parameters", "tokens"),
        Output("n_star_over_d", "that crossing in units of the width"),
    ),
    sections=("memory-math ch. 9 (line 48) and ch. 17 exercise 4 (lines 64-65)",),
)
def cache_crossover(d_model: int, layers: int) -> dict:
    """The context length at which the cache holds as many numbers as the weights."""
    params, cache_token = weights_and_cache(d_model, layers)
    return {
        "param_count": float(params),
        "cache_per_token": float(cache_token),
        "n_star": params / cache_token,
        "n_star_over_d": params / cache_token / d_model,
    }


@experiment(
    params={
        "d_head": integer(min=1),
        "n_seq": integer(min=1),
        "d_model": integer(min=1),
        "layers": integer(min=1),
        "bytes_per_number": integer(min=1),
        "contexts": ints(min=1, ranges=False, doc="context lengths of the cache against weights"),
        "age_dim": integer(min=1),
        "age_pairs": integer(min=1),
        "gammas": real_list(gt=0, max=1, doc="decay factors of the closed-form error"),
        "gamma_check": real(max=1, gt=0),
        "store_dim": integer(min=1),
        "max_pairs": integer(min=1),
        "cache_dim": integer(min=1),
        "cache_tokens": integer(min=1),
    },
    constraints=(
        require(
            "store_dim < max_pairs",
            "the Hebbian store's error reaches 1 only past store_dim pairs: store_dim must be "
            "below max_pairs",
            "store_dim",
            "max_pairs",
        ),
        # decay_error_closed grows with the age; sum_{b<n} g^2b in closed form (no range)
        require(
            "(1 - gamma_check ** (age_pairs - 1)) ** 2 + ((age_pairs if gamma_check == 1 else"
            " (1 - gamma_check ** (2 * age_pairs)) / (1 - gamma_check**2))"
            " - gamma_check ** (2 * (age_pairs - 1))) / age_dim > 1",
            "the decayed store's error at gamma_check must pass 1 within age_pairs ages (the "
            "crossing is an output): raise age_pairs or lower age_dim",
            "age_dim",
            "age_pairs",
            "gamma_check",
        ),
        require(
            "((age_pairs if gamma_check == 1 else (1 - gamma_check ** (2 * age_pairs))"
            " / (1 - gamma_check**2)) - 1) / age_dim < 1",
            "the decayed store's error at age 0 must be below 1 (the last age below 1 is an "
            "output): raise age_dim",
            "age_dim",
            "age_pairs",
            "gamma_check",
        ),
    ),
    outputs=(
        Output("state_numbers", "numbers a linear state holds", "numbers"),
        Output("cache_numbers_end", "numbers a cache holds after the sequence", "numbers"),
        Output("state_madds_per_token", "multiply-adds per token, state", "multiply-adds"),
        Output("cache_madds_last_token", "multiply-adds at the last token, cache", "multiply-adds"),
        Output(
            "state_madds_total", "multiply-adds over the sequence, state (formula)", "multiply-adds"
        ),
        Output(
            "cache_madds_total", "multiply-adds over the sequence, cache (formula)", "multiply-adds"
        ),
        Output("loop_state_total", "the same summed token by token, state", "multiply-adds"),
        Output("loop_cache_total", "the same summed token by token, cache", "multiply-adds"),
        Output("cost_ratio", "cache total over state total"),
        Output("numbers_crossing", "tokens where the cache holds as many numbers", "tokens"),
        Output("cost_crossing", "tokens where the cache costs as much per token", "tokens"),
        Output("param_count", "parameters 12 d^2 L", "parameters"),
        Output("param_bytes", "bytes of the parameters", "bytes"),
        Output("cache_bytes_per_token", "bytes of keys and values per token", "bytes"),
        Output("param_gb", "parameters in GB (10^9 bytes)", "GB"),
        Output("cache_mb_per_token", "cache per token in MB (10^6 bytes)", "MB"),
        Output("n_star", "tokens where the cache equals the parameters", "tokens"),
        Output("cache_bytes", "bytes of the cache", "bytes", ("context",)),
        Output(
            "decay_closed_error",
            "expected squared error by age, decayed state (closed form)",
            dims=("gamma", "age"),
        ),
        Output("decay_last_below_one", "oldest age with closed-form error below 1"),
        Output("decay_first_above_one", "youngest age with closed-form error above 1"),
        Output("hebbian_closed_error", "Hebbian error (m-1)/d", dims=("pairs",)),
        Output("least_squares_closed_error", "least-squares error max(0, 1-d/m)", dims=("pairs",)),
        Output("hebbian_reaches_one", "fewest pairs with Hebbian error at least 1", "pairs"),
        Output("least_squares_exact_up_to", "most pairs least squares stores exactly", "pairs"),
        Output("first_value_state_closed", "state's error on the first value", dims=("tokens",)),
        Output("flo_answer_position", "position of the copied first name, gap 6"),
        Output("toylang_fillers", "filler words of ToyLang", "words"),
        Output("hebbian_state_ann_cy", "Hebbian state after Ann then Cy", dims=("component",)),
        Output("hebbian_read_ann_cy", "its read at the key"),
        Output("delta_error_cy", "delta rule's error on Cy"),
        Output("delta_state_cy", "delta state after Ann then Cy", dims=("component",)),
        Output("delta_read_cy", "its read at the key"),
        Output("delta_repeat_error", "error when Cy is written again"),
        Output("neighbour_state_before", "state holding the neighbour", dims=("component",)),
        Output("neighbour_error", "error on Ann with the neighbour stored"),
        Output("neighbour_state_after", "state after writing Ann", dims=("component",)),
        Output("neighbour_read_k", "read at Ann's key"),
        Output("neighbour_read_kprime", "read at the neighbour's key"),
        Output("neighbour_shift", "change of the neighbour's read"),
        Output("overlap_times_error", "key overlap times corrected error"),
        Output("gdn_decayed", "row after a uniform decay of 1/2", dims=("component",)),
        Output("gdn_prediction", "its prediction at the key"),
        Output("gdn_error", "its error"),
        Output("gdn_increment", "its write"),
        Output("gdn_row", "row after decay and write (Gated DeltaNet)", dims=("component",)),
        Output("kda_decayed", "row after per-channel decay (1/2, 1)", dims=("component",)),
        Output("kda_prediction", "its prediction at the key"),
        Output("kda_error", "its error"),
        Output("kda_increment", "its write"),
        Output("kda_row", "row after decay and write (KDA)", dims=("component",)),
    ),
    coords={
        "context": from_param("contexts"),
        "gamma": from_param("gammas"),
        "age": coord(
            "age of a stored pair: writes since it was stored",
            lambda **p: list(range(p["age_pairs"])),
        ),
        "pairs": coord(
            "number of key-value pairs stored", lambda **p: list(range(1, p["max_pairs"] + 1))
        ),
        "tokens": coord(
            "tokens written into the state", lambda **p: list(range(1, p["cache_tokens"] + 1))
        ),
        "component": coord("coordinate of the two-dimensional state (0 first)", [0, 1]),
    },
    sections=(
        "first-principles D3 cost table (lines 920-939), D4 (lines 955-1009), D6 (1077)",
        "memory-math ch. 9 cost of the cache (lines 48-49)",
        "every-layer-a-store: per-channel forgetting (lines 68-72)",
    ),
)
def fast_memory_exact(
    d_head: int,
    n_seq: int,
    d_model: int,
    layers: int,
    bytes_per_number: int,
    contexts: list[int],
    age_dim: int,
    age_pairs: int,
    gammas: list[float],
    gamma_check: float,
    store_dim: int,
    max_pairs: int,
    cache_dim: int,
    cache_tokens: int,
) -> dict:
    """The closed forms and worked examples of the fast-memory sections, computed exactly."""
    out = cost_table(d_head, n_seq)
    out.update(weights_against_cache(d_model, layers, bytes_per_number, contexts))
    out.update(decay_closed_forms(age_dim, age_pairs, gammas, gamma_check))
    out.update(store_closed_forms(store_dim, max_pairs))
    out.update(first_value_closed(cache_dim, cache_tokens))
    out.update(toylang_counts())
    out.update(ann_then_cy())
    out.update(neighbour_write())
    out.update(decayed_row_writes())
    return out


def cost_table(d: int, n_seq: int) -> dict:
    """Numbers and multiply-adds of one head's state and cache (first-principles 920-939)."""
    t = np.arange(1, n_seq + 1)
    state_per_token = np.full(n_seq, 2 * d * d)  # write d^2 + read d^2 (line 929)
    cache_per_token = t * (d + d)  # t d_k scores + t d_v weighted sum (line 930)
    return {
        "state_numbers": float(d * d),
        "cache_numbers_end": float(2 * d * n_seq),
        "state_madds_per_token": float(2 * d * d),
        "cache_madds_last_token": float(cache_per_token[-1]),
        "state_madds_total": float(2 * n_seq * d * d),
        "cache_madds_total": float((d + d) * n_seq * (n_seq + 1) // 2),
        "loop_state_total": float(state_per_token.sum()),
        "loop_cache_total": float(cache_per_token.sum()),
        "cost_ratio": float(cache_per_token.sum() / state_per_token.sum()),
        "numbers_crossing": d * d / (d + d),
        "cost_crossing": 2 * d * d / (d + d),
    }


def weights_against_cache(d_model: int, layers: int, bytes_per_number: int, contexts) -> dict:
    """A model's weights against its cache, per token and per context (memory-math lines 46-49)."""
    params, cache_token = weights_and_cache(d_model, layers)
    context = np.asarray(contexts, dtype=float)
    return {
        "param_count": float(params),
        "param_bytes": float(params * bytes_per_number),
        "cache_bytes_per_token": float(cache_token * bytes_per_number),
        "n_star": params / cache_token,
        "param_gb": params * bytes_per_number / 1e9,
        "cache_mb_per_token": cache_token * bytes_per_number / 1e6,
        "cache_bytes": context * cache_token * bytes_per_number,
    }


def decay_closed_forms(age_dim: int, age_pairs: int, gammas, gamma_check: float) -> dict:
    """Decayed state's error by age; where the Check's crosses 1 (first-principles 955-976)."""
    age = np.arange(age_pairs)
    at_check = decay_error_closed(age_dim, age_pairs, [gamma_check], age)[0]
    return {
        "decay_closed_error": decay_error_closed(age_dim, age_pairs, gammas, age),
        "decay_last_below_one": float(age[at_check < 1].max()),
        "decay_first_above_one": float(age[at_check > 1].min()),
    }


def store_closed_forms(store_dim: int, max_pairs: int) -> dict:
    """Hebbian and least-squares errors against the number of pairs (memory-math line 19)."""
    m = np.arange(1, max_pairs + 1)
    hebb = (m - 1) / store_dim
    ls = np.maximum(0.0, 1 - store_dim / m)
    return {
        "hebbian_closed_error": hebb,
        "least_squares_closed_error": ls,
        "hebbian_reaches_one": float(m[hebb >= 1].min()),
        "least_squares_exact_up_to": float(m[ls == 0].max()),
    }


def first_value_closed(cache_dim: int, cache_tokens: int) -> dict:
    """The state's error on the first value after t tokens, (t - 1)/d (memory-math lines 47-48)."""
    return {"first_value_state_closed": (np.arange(1, cache_tokens + 1) - 1) / cache_dim}


def toylang_counts() -> dict:
    """Where D3's prompt asks for Flo, and how many fillers ToyLang has (first-principles 864)."""
    return {
        "flo_answer_position": float(toylang.copy_positions(len(FLO_SENTENCE) - 5)["X"]),
        "toylang_fillers": float(len(toylang.FILLERS)),
    }


def ann_then_cy() -> dict:
    """Ann then Cy under one key, added and then corrected (first-principles lines 984-986)."""
    k, ann, cy = np.array([1.0, 0.0]), 3.0, 5.0
    heb = ann * k + cy * k
    S = ann * k
    err_cy = cy - S @ k
    S_delta = S + err_cy * k
    return {
        "hebbian_state_ann_cy": heb,
        "hebbian_read_ann_cy": float(heb @ k),
        "delta_error_cy": float(err_cy),
        "delta_state_cy": S_delta,
        "delta_read_cy": float(S_delta @ k),
        "delta_repeat_error": float(cy - S_delta @ k),
    }


def neighbour_write() -> dict:
    """Correcting Ann over a stored neighbour moves the neighbour's read (first-principles 987)."""
    k, ann = np.array([1.0, 0.0]), 3.0  # Ann's key and value, line 984
    kp, seven = np.array([0.6, 0.8]), 7.0
    S0 = seven * kp
    err_ann = ann - S0 @ k
    S1 = S0 + err_ann * k
    return {
        "neighbour_state_before": S0,
        "neighbour_error": float(err_ann),
        "neighbour_state_after": S1,
        "neighbour_read_k": float(S1 @ k),
        "neighbour_read_kprime": float(S1 @ kp),
        "neighbour_shift": float(S1 @ kp - seven),
        "overlap_times_error": float((k @ kp) * err_ann),
    }


def decayed_row_writes() -> dict:
    """One row decayed whole (Gated DeltaNet) or per channel (KDA), then corrected (els 68-72)."""
    row, key, value, strength = np.array([2.0, 1.0]), np.array([1.0, 0.0]), 3.0, 0.5
    out = {}
    for name, keep in (("gdn", np.array([0.5, 0.5])), ("kda", np.array([0.5, 1.0]))):
        decayed = keep * row
        pred = decayed @ key
        out[f"{name}_decayed"] = decayed
        out[f"{name}_prediction"] = float(pred)
        out[f"{name}_error"] = float(value - pred)
        out[f"{name}_increment"] = float(strength * (value - pred))
        out[f"{name}_row"] = decayed + strength * (value - pred) * key
    return out
