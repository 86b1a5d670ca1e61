"""The algebra of one attention layer (first-principles C2 lines 603-618, C3 lines 626-660, C4
lines 661-701 and the causal checks of C5, lines 721-731).

Everything here is a check on random matrices of width ``d`` (keys ``d_k = d / n_h``): that only
the product W_Q W_K^T matters and what breaks that symmetry; the dimension count of rank-d_k
bilinear forms (the rank of the Jacobian of the factorisation); the softmax Jacobian and the
saturation bound; heads as a sum of per-head writes; layer normalisation; the shape table; the
causal mask (all losses in one pass, the key-value cache) and the sinusoidal code as a rotation.
Random draws come from the grid point's generator; no number of the notes enters a computation
except the hand-written vector of the layer-normalisation example (line 680).
"""

from __future__ import annotations

import numpy as np

from ..spec import Output, coord, experiment, integer, ints
from .set_functions import sinusoidal
from .softmax import softmax, softmax_jacobian

HEADS = (1, 2, 4, 8)
SHAPE_OBJECTS = ("X", "W_Q", "W_K", "W_V", "A", "O", "W_1", "W_2")
LN_EXAMPLE = np.array([2.0, 0.0, -2.0, 4.0])  # first-principles line 680, typed data


# ----------------------------------------------------------------------------- one head


def head_weights(rng: np.random.Generator, d: int, d_k: int, d_v: int) -> dict:
    """W_Q, W_K (d x d_k), W_V (d x d_v), W_O (d_v x d), entries N(0, 1/d)."""
    s = 1.0 / np.sqrt(d)
    return {
        "WQ": s * rng.standard_normal((d, d_k)),
        "WK": s * rng.standard_normal((d, d_k)),
        "WV": s * rng.standard_normal((d, d_v)),
        "WO": s * rng.standard_normal((d_v, d)),
    }


def causal_mask(n: int) -> np.ndarray:
    """True where row i may look at column j (j <= i)."""
    return np.tril(np.ones((n, n), dtype=bool))


def attend(X, WQ, WK, WV, WO, causal=False, bq=0.0, bk=0.0, qk_norm=False, rope=None):
    """One head in the rows-as-tokens convention; returns (scores, weights, output).
    ``rope`` is a function (vectors, positions) -> rotated vectors applied to q and k."""
    q, k = X @ WQ + bq, X @ WK + bk
    if rope is not None:
        pos = np.arange(len(X))
        q, k = rope(q, pos), rope(k, pos)
    if qk_norm:
        q = q / np.linalg.norm(q, axis=1, keepdims=True)
        k = k / np.linalg.norm(k, axis=1, keepdims=True)
    s = q @ k.T / np.sqrt(WQ.shape[1])
    if causal:
        s = np.where(causal_mask(len(X)), s, -np.inf)
    a = softmax(s, axis=-1)
    return s, a, a @ (X @ WV) @ WO


def rope_rotate(v: np.ndarray, pos: np.ndarray, base: float = 10000.0) -> np.ndarray:
    """Rotary code: rotate each coordinate pair of row t by the angle t * omega_i."""
    d = v.shape[1]
    omega = base ** (-2.0 * np.arange(d // 2) / d)
    ang = pos[:, None] * omega[None, :]
    c, s = np.cos(ang), np.sin(ang)
    out = v.copy()
    x, y = v[:, 0::2], v[:, 1::2]
    out[:, 0::2], out[:, 1::2] = c * x - s * y, s * x + c * y
    return out


def commuting_block(rng: np.random.Generator, d: int) -> np.ndarray:
    """A block-diagonal matrix of 2x2 scaled rotations (alpha I + eta J): it commutes with
    every rotation of the coordinate pairs."""
    G = np.zeros((d, d))
    J = np.array([[0.0, 1.0], [-1.0, 0.0]])
    for i in range(d // 2):
        alpha, eta = 1.0 + 0.5 * rng.random(), rng.standard_normal()
        G[2 * i : 2 * i + 2, 2 * i : 2 * i + 2] = alpha * np.eye(2) + eta * J
    return G


def gauge_gaps(rng: np.random.Generator, X: np.ndarray, w: dict) -> dict:
    """How much the scores move when W_Q -> W_Q G and W_K -> W_K G^{-T}: for the bare head, with
    biases, with rotary codes, with QK-norm, and for the subgroups each of those keeps."""
    d_k = w["WQ"].shape[1]
    G = rng.standard_normal((d_k, d_k)) + 2.0 * np.eye(d_k)
    Ginv_T = np.linalg.inv(G).T
    Qg, Kg = w["WQ"] @ G, w["WK"] @ Ginv_T
    ortho, _ = np.linalg.qr(rng.standard_normal((d_k, d_k)))
    rot = commuting_block(rng, d_k)
    bq, bk = rng.standard_normal(d_k), rng.standard_normal(d_k)

    def gap(kw, Wq, Wk):
        s0 = attend(X, w["WQ"], w["WK"], w["WV"], w["WO"], **kw)[0]
        s1 = attend(X, Wq, Wk, w["WV"], w["WO"], **kw)[0]
        return float(np.max(np.abs(s1 - s0)))

    rot_inv_T = np.linalg.inv(rot).T
    out0 = attend(X, w["WQ"], w["WK"], w["WV"], w["WO"])[2]
    out1 = attend(X, Qg, Kg, w["WV"], w["WO"])[2]
    return {
        "gauge_score_gap": gap({}, Qg, Kg),
        "gauge_output_gap": float(np.max(np.abs(out1 - out0))),
        "bias_gauge_gap": gap({"bq": bq, "bk": bk}, Qg, Kg),
        "rope_gauge_gap": gap({"rope": rope_rotate}, Qg, Kg),
        "rope_commuting_gap": gap({"rope": rope_rotate}, w["WQ"] @ rot, w["WK"] @ rot_inv_T),
        "qknorm_gauge_gap": gap({"qk_norm": True}, Qg, Kg),
        "qknorm_orthogonal_gap": gap({"qk_norm": True}, w["WQ"] @ ortho, w["WK"] @ ortho),
    }


def factorisation_dims(rng: np.random.Generator, d: int, d_k: int) -> tuple[int, int]:
    """Rank of the Jacobian of (W_Q, W_K) -> W_Q W_K^T at a random point (the dimension of the
    family of rank-d_k matrices it reaches), and the number of entries of the two factors."""
    WQ, WK = rng.standard_normal((d, d_k)), rng.standard_normal((d, d_k))
    # d(WQ WK^T) = dWQ WK^T + WQ dWK^T; vec(A X B) = (B^T kron A) vec(X) (column-major vec).
    eye = np.eye(d)
    jac_q = np.kron(WK, eye)  # columns: vec(dWQ)
    jac_k = np.kron(eye, WQ)  # columns: vec(dWK^T); their order does not change the rank
    jac = np.hstack([jac_q, jac_k])
    return int(np.linalg.matrix_rank(jac)), 2 * d * d_k


def gauge_orbit(rng: np.random.Generator, d: int, d_k: int) -> tuple[int, int, float]:
    """The directions of the G's at a random (W_Q, W_K), found from the group itself and not
    from the count: G = I + eps E moves (W_Q, W_K) along (W_Q E, -W_K E^T). Returns the number
    of independent such directions (d_k^2 when the action is free), how many dimensions they
    add to the Jacobian's null space (0 when every one leaves W_Q W_K^T unchanged) and the
    largest image of a unit orbit direction under the Jacobian."""
    WQ, WK = rng.standard_normal((d, d_k)), rng.standard_normal((d, d_k))
    eye = np.eye(d)
    jac = np.hstack([np.kron(WK, eye), np.kron(eye, WQ)])
    tangents = []
    for E in np.eye(d_k * d_k).reshape(d_k * d_k, d_k, d_k):
        dWQ, dWKt = WQ @ E, -(WK @ E.T).T  # the second block of jac takes vec(dWK^T)
        tangents.append(np.concatenate([dWQ.ravel(order="F"), dWKt.ravel(order="F")]))
    T = np.array(tangents).T
    T = T / np.linalg.norm(T, axis=0)
    rank = int(np.linalg.matrix_rank(jac))
    null = np.linalg.svd(jac)[2][rank:].T  # an orthonormal basis of the null space
    outside = int(np.linalg.matrix_rank(np.hstack([null, T]))) - null.shape[1]
    return int(np.linalg.matrix_rank(T)), outside, float(np.max(np.abs(jac @ T)))


# ----------------------------------------------------------------------------- the score


def additive_score(x, y, W1, W2, w):
    """A smooth non-bilinear similarity, w . tanh(W1 x + W2 y) (additive attention)."""
    return float(w @ np.tanh(W1 @ x + W2 @ y))


def expansion_order(rng: np.random.Generator, d: int) -> float:
    """Order in eps of the remainder after expanding the additive score to first order in each
    argument (constant, linear in x, linear in y, bilinear cross term): log2 of the ratio of
    remainders at eps and eps/2."""
    W1, W2 = rng.standard_normal((d, d)) / np.sqrt(d), rng.standard_normal((d, d)) / np.sqrt(d)
    w = rng.standard_normal(d)
    x0, y0 = rng.standard_normal(d), rng.standard_normal(d)
    u, v = rng.standard_normal(d), rng.standard_normal(d)
    t = np.tanh(W1 @ x0 + W2 @ y0)
    g = w * (1 - t**2)
    grad_x, grad_y = W1.T @ g, W2.T @ g
    cross = W1.T @ np.diag(w * (-2 * t * (1 - t**2))) @ W2
    s0 = additive_score(x0, y0, W1, W2, w)

    def remainder(eps):
        exact = additive_score(x0 + eps * u, y0 + eps * v, W1, W2, w)
        approx = s0 + eps * grad_x @ u + eps * grad_y @ v + eps**2 * u @ cross @ v
        return abs(exact - approx)

    return float(np.log2(remainder(1e-2) / remainder(5e-3)))


def cross_term_gap(rng: np.random.Generator, d: int, h: float = 1e-4) -> float:
    """The bilinear cross term of the additive score, u^T C v with C = W1^T diag(w s'') W2,
    against the mixed second difference of the score itself in the directions u (query side)
    and v (key side); relative to the size of the cross term."""
    W1, W2 = rng.standard_normal((d, d)) / np.sqrt(d), rng.standard_normal((d, d)) / np.sqrt(d)
    w = rng.standard_normal(d)
    x0, y0 = rng.standard_normal(d), rng.standard_normal(d)
    u, v = rng.standard_normal(d), rng.standard_normal(d)
    t = np.tanh(W1 @ x0 + W2 @ y0)
    cross = float(u @ (W1.T @ np.diag(w * (-2 * t * (1 - t**2))) @ W2) @ v)

    def f(a, b):
        return additive_score(x0 + a * u, y0 + b * v, W1, W2, w)

    mixed = (f(h, h) - f(h, -h) - f(-h, h) + f(-h, -h)) / (4 * h * h)
    return abs(mixed - cross) / max(abs(cross), 1e-12)


def jacobian_checks(rng: np.random.Generator, m: int = 16) -> dict:
    """Trace identity, finite-difference agreement, the saturated limit and the top-weight bound."""
    s = rng.standard_normal(m) * 2.0
    a = softmax(s)
    J = softmax_jacobian(a)
    h = 1e-6
    fd = np.stack([(softmax(s + h * e) - softmax(s - h * e)) / (2 * h) for e in np.eye(m)], 1)
    sat = softmax_jacobian(softmax(50.0 * s))
    onehot = softmax_jacobian(np.eye(m)[0])
    # top-weight bound 1/(1 + (m-1) e^{-gap}) over many random score rows of every spread
    rows = rng.standard_normal((4000, m)) * rng.uniform(0.1, 30.0, (4000, 1))
    top = softmax(rows, axis=-1).max(axis=-1)
    srt = np.sort(rows, axis=-1)
    bound = 1.0 / (1.0 + (m - 1) * np.exp(-(srt[:, -1] - srt[:, -2])))
    row_shift = rng.standard_normal()
    key_bias = rng.standard_normal(m)
    return {
        # the trace of the finite-difference Jacobian (not of the formula) against 1 - sum a^2
        "jacobian_trace_gap": float(abs(np.trace(fd) - (1 - np.sum(a**2)))),
        "jacobian_fd_gap": float(np.max(np.abs(J - fd))),
        "jacobian_saturated_trace": float(np.trace(sat)),
        "jacobian_onehot_norm": float(np.max(np.abs(onehot))),
        # least slack over the rows that are not saturated (where top and bound both round
        # to 1 the inequality is empty)
        "top_bound_slack": float(np.min((top - bound)[bound < 1.0 - 1e-9])),
        "row_constant_gap": float(np.max(np.abs(softmax(s + row_shift) - a))),
        "key_bias_change": float(np.max(np.abs(softmax(s + key_bias) - a))),
    }


# ----------------------------------------------------------------------------- heads


def heads_as_sum(rng: np.random.Generator, n: int, d: int, n_h: int) -> dict:
    """A random n_h-head layer: concatenate-then-W_O against the sum of per-head writes, the
    factor A_u (X W_V^u W_O^u) of one term, the rank of each write map and the parameters."""
    d_k = d // n_h
    X = rng.standard_normal((n, d))
    WQ, WK, WV = (rng.standard_normal((d, d)) / np.sqrt(d) for _ in range(3))
    WO = rng.standard_normal((d, d)) / np.sqrt(d)
    Hs, terms, factor_gap, write_rank = [], [], 0.0, 0
    for u in range(n_h):
        sl = slice(u * d_k, (u + 1) * d_k)
        _, A, _ = attend(X, WQ[:, sl], WK[:, sl], WV[:, sl], np.eye(d_k))
        H = A @ X @ WV[:, sl]
        Hs.append(H)
        terms.append(H @ WO[sl, :])
        factor_gap = max(
            factor_gap, float(np.max(np.abs(terms[-1] - A @ (X @ WV[:, sl] @ WO[sl]))))
        )
        write_rank = max(write_rank, int(np.linalg.matrix_rank(WV[:, sl] @ WO[sl, :])))
    concat = np.hstack(Hs) @ WO
    params = sum(m.size for m in (WQ, WK, WV, WO))
    return {
        "sum_gap": float(np.max(np.abs(concat - sum(terms)))),
        "factor_gap": factor_gap,
        "write_rank_minus_dk": float(write_rank - d_k),
        "params_over_d2": params / d**2,
    }


# ----------------------------------------------------------------------------- normalisation


def layer_norm(x: np.ndarray) -> np.ndarray:
    """(x - mean) / sd over the last axis, sd with divisor d (no gain or shift)."""
    mu = x.mean(axis=-1, keepdims=True)
    return (x - mu) / x.std(axis=-1, keepdims=True)


def layer_norm_checks(rng: np.random.Generator, d: int) -> dict:
    x = rng.standard_normal((50, d)) * rng.uniform(0.1, 10, (50, 1)) + rng.normal(0, 3, (50, 1))
    y = layer_norm(x)
    c, lam = rng.normal(0, 5), rng.uniform(0.1, 10)
    sq = np.sum((x - x.mean(1, keepdims=True)) ** 2, axis=1)
    ex = layer_norm(LN_EXAMPLE)
    return {
        "ln_shift_gap": float(np.max(np.abs(layer_norm(x + c) - y))),
        "ln_scale_gap": float(np.max(np.abs(layer_norm(lam * x) - y))),
        "ln_mean_max": float(np.max(np.abs(y.mean(axis=1)))),
        "ln_norm_gap": float(np.max(np.abs(np.linalg.norm(y, axis=1) - np.sqrt(d)))),
        "ln_square_identity_gap": float(np.max(np.abs(sq - d * x.var(axis=1)) / sq)),
        "ln_example_mean": float(LN_EXAMPLE.mean()),
        "ln_example_sd": float(LN_EXAMPLE.std()),
        "ln_example_out": ex,
        "ln_example_norm": float(np.linalg.norm(ex)),
    }


# ----------------------------------------------------------------------------- a small block


def block_params(rng: np.random.Generator, d: int, d_k: int, d_v: int, d_ff: int) -> dict:
    w = head_weights(rng, d, d_k, d_v)
    w["W1"] = rng.standard_normal((d, d_ff)) / np.sqrt(d)
    w["W2"] = rng.standard_normal((d_ff, d)) / np.sqrt(d_ff)
    return w


def mlp(x: np.ndarray, w: dict) -> np.ndarray:
    return np.maximum(x @ w["W1"], 0.0) @ w["W2"]


def block(X: np.ndarray, w: dict, causal: bool = True) -> tuple[np.ndarray, dict]:
    """Pre-norm block x <- x + Attn(LN x); x <- x + MLP(LN x). Returns the output and the
    intermediate objects (for the shape table and the cache)."""
    Xn = layer_norm(X)
    _, A, write = attend(Xn, w["WQ"], w["WK"], w["WV"], w["WO"], causal=causal)
    H = X + write
    out = H + mlp(layer_norm(H), w)
    return out, {"X": X, "A": A, "O": write, "K": Xn @ w["WK"], "V": Xn @ w["WV"]}


def shape_checks(rng: np.random.Generator, n: int, d: int, d_k: int, d_v: int, d_ff: int):
    """1 where each object of the shape table has the shape the table gives it."""
    w = block_params(rng, d, d_k, d_v, d_ff)
    _, parts = block(rng.standard_normal((n, d)), w)
    want = {
        "X": (n, d),
        "W_Q": (d, d_k),
        "W_K": (d, d_k),
        "W_V": (d, d_v),
        "A": (n, n),
        "O": (n, d),
        "W_1": (d, d_ff),
        "W_2": (d_ff, d),
    }
    got = {
        "X": parts["X"].shape,
        "W_Q": w["WQ"].shape,
        "W_K": w["WK"].shape,
        "W_V": w["WV"].shape,
        "A": parts["A"].shape,
        "O": parts["O"].shape,
        "W_1": w["W1"].shape,
        "W_2": w["W2"].shape,
    }
    return np.array([float(got[k] == want[k]) for k in SHAPE_OBJECTS])


def causal_checks(rng: np.random.Generator, n: int, d: int, d_k: int, d_ff: int) -> dict:
    """A random two-block causal model: later tokens never reach earlier rows, one pass equals
    one pass per prefix, appending a token leaves the earlier keys and values alone, decoding
    with a cache equals recomputing, and the per-token MLP ignores other positions."""
    ws = [block_params(rng, d, d_k, d_k, d_ff) for _ in range(2)]

    def model(X):
        parts = []
        for w in ws:
            X, p = block(X, w)
            parts.append(p)
        return X, parts

    X = rng.standard_normal((n, d))
    full, parts = model(X)
    i = n // 2
    Xp = X.copy()
    Xp[i + 1 :] += rng.standard_normal((n - i - 1, d))
    future = float(np.max(np.abs(model(Xp)[0][: i + 1] - full[: i + 1])))
    prefixes = max(float(np.max(np.abs(model(X[: t + 1])[0][t] - full[t]))) for t in range(n))
    # appending one token: the earlier keys and values of every layer stay as they were
    more = np.vstack([X, rng.standard_normal((1, d))])
    _, parts2 = model(more)
    kv = max(
        float(np.max(np.abs(p2[name][:n] - p1[name])))
        for p1, p2 in zip(parts, parts2, strict=True)
        for name in ("K", "V")
    )
    # incremental decoding of the last token from cached K, V (layer by layer)
    h, cached_gap = more[-1:], 0.0
    for w, p1 in zip(ws, parts, strict=True):
        hn = layer_norm(h)
        K = np.vstack([p1["K"], hn @ w["WK"]])
        V = np.vstack([p1["V"], hn @ w["WV"]])
        a = softmax((hn @ w["WQ"]) @ K.T / np.sqrt(w["WQ"].shape[1]), axis=-1)
        h = h + a @ V @ w["WO"]
        h = h + mlp(layer_norm(h), w)
    cached_gap = float(np.max(np.abs(h[0] - model(more)[0][-1])))
    # the MLP reads one position: changing another row leaves this row's output alone
    w0 = ws[0]
    Y = X.copy()
    Y[1:] += 1.0
    mlp_cross = float(np.max(np.abs(mlp(Y, w0)[0] - mlp(X, w0)[0])))
    return {
        "future_change": future,
        "prefix_pass_gap": prefixes,
        "append_kv_gap": kv,
        "cached_decode_gap": cached_gap,
        "mlp_cross_position_change": mlp_cross,
    }


def order_and_reach(rng: np.random.Generator, n: int, d: int, d_k: int) -> dict:
    """One masked layer read at the last row: exchanging two earlier tokens changes nothing
    without a position code and something with one; every earlier token moves the last row."""
    w = head_weights(rng, d, d_k, d_k)
    X = rng.standard_normal((n, d))
    pe = sinusoidal(n, d)
    swap = np.arange(n)
    swap[[0, n - 3]] = swap[[n - 3, 0]]

    def last(X):
        return attend(X, w["WQ"], w["WK"], w["WV"], w["WO"], causal=True)[2][-1]

    nopos = float(np.max(np.abs(last(X[swap]) - last(X))))
    withpos = float(np.max(np.abs(last(X[swap] + pe) - last(X + pe))))
    h = 1e-6
    sens = []
    for j in range(n):
        E = np.zeros_like(X)
        E[j] = rng.standard_normal(d)
        sens.append(np.max(np.abs(last(X + h * E) - last(X - h * E))) / (2 * h))
    return {
        "reorder_change_nopos": nopos,
        "reorder_change_pos": withpos,
        "reach_min_sensitivity": float(np.min(sens)),
    }


# ----------------------------------------------------------------------------- the code


def frequencies(d: int, base: float = 10000.0) -> np.ndarray:
    return base ** (-2.0 * np.arange(d // 2) / d)


def shift_rotation(b: float, d: int) -> np.ndarray:
    """The block-diagonal R_b with blocks [[cos wb, sin wb], [-sin wb, cos wb]]."""
    R = np.zeros((d, d))
    for i, w in enumerate(frequencies(d)):
        c, s = np.cos(w * b), np.sin(w * b)
        R[2 * i : 2 * i + 2, 2 * i : 2 * i + 2] = [[c, s], [-s, c]]
    return R


def rotation_checks(d: int, t_max: int) -> dict:
    """The two facts of the sinusoidal code's rotation not checked in set_functions: every shift
    R_b (b up to t_max) is orthogonal, and every (sine, cosine) pair has length one."""
    pe = sinusoidal(2 * t_max + 1, d)
    ortho = max(
        float(np.max(np.abs(shift_rotation(b, d).T @ shift_rotation(b, d) - np.eye(d))))
        for b in range(t_max + 1)
    )
    return {
        "rotation_orthogonal_gap": ortho,
        "pair_norm_gap": float(np.max(np.abs(pe[:, 0::2] ** 2 + pe[:, 1::2] ** 2 - 1))),
    }


# ----------------------------------------------------------------------------- experiment


@experiment(
    grid={"d": ints(work=3, memory=2, doc="model width d")},
    params={
        "n": integer(min=3),
        "n_h": integer(min=1),
        "d_ff_mult": integer(min=1),
        "t_max": integer(min=1, doc="largest shift of the rotation check"),
    },
    outputs=(
        Output("gauge_score_gap", "largest score change under W_Q G, W_K G^-T"),
        Output("gauge_output_gap", "largest head-output change under the same G"),
        Output("bias_gauge_gap", "the same with biases on q and k"),
        Output("rope_gauge_gap", "the same with rotary codes on q and k"),
        Output("rope_commuting_gap", "rotary codes, G made of scaled 2x2 rotations"),
        Output("qknorm_gauge_gap", "the same with q and k normalised"),
        Output("qknorm_orthogonal_gap", "QK-norm, G orthogonal"),
        Output("family_dim_gap", "Jacobian rank of the factorisation minus d_k(2d - d_k)"),
        Output("gauge_dim_gap", "independent directions of the G's at a point, minus d_k^2"),
        Output("gauge_null_gap", "dimensions those directions add to the Jacobian's null space"),
        Output("gauge_orbit_image", "largest image of a unit G direction under the Jacobian"),
        Output("score_rank_minus_dk", "rank of W_Q W_K^T minus d_k"),
        Output("write_rank_minus_dv", "rank of W_V W_O minus d_v"),
        Output("expansion_order", "order in eps of the remainder of the two-argument expansion"),
        Output("cross_term_gap", "relative gap, analytic cross term against a mixed difference"),
        Output("jacobian_trace_gap", "|trace of the finite-difference Jacobian - (1 - sum a^2)|"),
        Output("jacobian_fd_gap", "largest gap between the Jacobian and finite differences"),
        Output("jacobian_saturated_trace", "trace of the Jacobian at scores times 50"),
        Output("jacobian_onehot_norm", "largest entry of the Jacobian at a one-hot a"),
        Output("top_bound_slack", "least (top weight - 1/(1+(m-1)e^-gap)), unsaturated rows"),
        Output("row_constant_gap", "weight change when a constant is added to the row"),
        Output("key_bias_change", "weight change when each key gets its own bias"),
        Output(
            "heads_sum_gap", "concatenated heads times W_O minus the per-head sum", dims=("heads",)
        ),
        Output("heads_factor_gap", "H_u W_O^u minus A_u (X W_V^u W_O^u)", dims=("heads",)),
        Output("heads_write_rank_minus_dk", "rank of W_V^u W_O^u minus d_k", dims=("heads",)),
        Output("heads_params_over_d2", "entries of W_Q, W_K, W_V, W_O over d^2", dims=("heads",)),
        Output("ln_shift_gap", "LN change after adding a constant"),
        Output("ln_scale_gap", "LN change after a positive rescaling"),
        Output("ln_mean_max", "largest |mean| of an LN output"),
        Output("ln_norm_gap", "largest |norm of an LN output - sqrt(d)|"),
        Output("ln_square_identity_gap", "relative gap of |x - mean|^2 against d sd^2"),
        Output("ln_example_mean", "mean of the worked vector (2, 0, -2, 4)"),
        Output("ln_example_sd", "its standard deviation (divisor d)"),
        Output("ln_example_out", "its layer normalisation", dims=("coordinate",)),
        Output("ln_example_norm", "norm of that"),
        Output("shape_ok", "1 if the object has the table's shape", dims=("object",)),
        Output("future_change", "change of rows <= i when later tokens change"),
        Output("prefix_pass_gap", "one masked pass against one pass per prefix"),
        Output("append_kv_gap", "change of earlier keys and values when a token is appended"),
        Output("cached_decode_gap", "cached decoding of a new token against recomputing"),
        Output("mlp_cross_position_change", "MLP output change at a row when others change"),
        Output("reorder_change_nopos", "last-row change after exchanging two earlier tokens"),
        Output("reorder_change_pos", "the same with a sinusoidal position code added"),
        Output("reach_min_sensitivity", "least sensitivity of the last row to an earlier token"),
        Output("rotation_orthogonal_gap", "largest |R_b^T R_b - I|"),
        Output("pair_norm_gap", "largest |sin^2 + cos^2 - 1| over the code's pairs"),
    ),
    coords={
        "heads": coord("number of attention heads the width is split into", HEADS),
        "object": coord("matrix of one attention head", SHAPE_OBJECTS),
        "coordinate": coord(
            "coordinate of the layer-normalisation example vector (1 first)",
            range(1, len(LN_EXAMPLE) + 1),
        ),
    },
    sections=(
        "first-principles C2: the sinusoidal code as a rotation (lines 603-618)",
        "first-principles C3: projections, the gauge symmetry, the softmax Jacobian (626-660)",
        "first-principles C4: heads as a sum, layer normalisation, shapes (lines 661-691)",
        "first-principles C5: the causal mask and the cache (lines 721-731)",
    ),
)
def head_algebra(d: int, n: int, n_h: int, d_ff_mult: int, t_max: int, rng) -> dict:
    """Every check of this module at width ``d`` (keys d / n_h, n tokens)."""
    d_k = d // n_h
    w = head_weights(rng, d, d_k, d_k)
    X = rng.standard_normal((n, d))
    out = gauge_gaps(rng, X, w)
    fam, entries = factorisation_dims(rng, d, d_k)
    out["family_dim_gap"] = float(fam - d_k * (2 * d - d_k))
    orbit_rank, outside, orbit_image = gauge_orbit(rng, d, d_k)
    out["gauge_dim_gap"] = float(orbit_rank - d_k**2)
    out["gauge_null_gap"] = float(outside)
    out["gauge_orbit_image"] = orbit_image
    out["score_rank_minus_dk"] = float(np.linalg.matrix_rank(w["WQ"] @ w["WK"].T) - d_k)
    out["write_rank_minus_dv"] = float(np.linalg.matrix_rank(w["WV"] @ w["WO"]) - d_k)
    out["expansion_order"] = expansion_order(rng, d)
    out["cross_term_gap"] = cross_term_gap(rng, d)
    out.update(jacobian_checks(rng))
    per_heads = [heads_as_sum(rng, n, d, h) for h in HEADS]
    for key in ("sum_gap", "factor_gap", "write_rank_minus_dk", "params_over_d2"):
        out[f"heads_{key}"] = np.array([p[key] for p in per_heads])
    out.update(layer_norm_checks(rng, d))
    out["shape_ok"] = shape_checks(rng, n, d, d_k, d_k, d_ff_mult * d)
    out.update(causal_checks(rng, n, d, d_k, d_ff_mult * d))
    out.update(order_and_reach(rng, max(n, 6), d, d_k))
    out.update(rotation_checks(d, t_max))
    return out
