"""The unified view and the summaries that close the notes.

Serves first-principles E5 (lines 1282-1342: the two summary tables, where the picture breaks,
the five exercises, the requirements table and what crosses the gap) and memory-math chapters
12-16 and appendix E (lines 54-58 and 68: one state / write / read object, the table of layers,
the corner that cannot exist, exact identities against analogies, a number on each choice,
the failure modes, the rank-one edit of one fact, the Rosetta stone, the glossary).

Most rows of these summaries restate results judged elsewhere; this module computes what is
new here: closed forms evaluated at the summary's settings, small exact identities on random
instances (each returned as the largest absolute gap, so 0 up to rounding), and the rank-one
edit of chapter 14 on a random linear memory. One experiment, ``unified_view``, no grid.
"""

from __future__ import annotations

import math

import numpy as np

from ..spec import Output, coord, experiment, from_param, integer, ints, real
from .softmax import softmax
from .store_writes import edit_directions
from .toylang_machine import smallest_certified_beta

# ----------------------------------------------------------------------------- helpers


def unit(x: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length."""
    return x / np.linalg.norm(x, axis=-1, keepdims=True)


def gap(a, b) -> float:
    """Largest absolute entry of a - b."""
    return float(np.max(np.abs(np.asarray(a, float) - np.asarray(b, float))))


# ----------------------------------------------------------------------------- E5 closed forms

READOUT_KAPPA = 10.0  # first-principles line 1138
VOCAB = 63  # |V| at N = 48: 48 names + 8 template words + 6 fillers + the full stop (line 1171)
EX3_X = np.array([1.0, 2.0, 1.0])  # first-principles line 1310
EX3_Y = np.array([1.0, 2.0, 3.0])


def exercise_three(eta: float, layers: int) -> dict:
    """One-dimensional in-context regression (first-principles line 1312): each layer adds
    (eta/m) sum_i r_i x_i x_q to the prediction, r_i the current residual; mean-loss steps."""
    x, y = EX3_X, EX3_Y
    m = len(x)
    theta = 0.0
    slopes, residuals = [], []
    for _ in range(layers):
        r = y - theta * x
        residuals.append(r)
        theta = theta + eta / m * float(np.sum(r * x))
        slopes.append(theta)
    sigma = float(x @ x) / m
    star = float(x @ y) / float(x @ x)
    closed = [(1 - (1 - eta * sigma) ** (ell + 1)) * star for ell in range(layers)]
    return {
        "ex3_prediction": np.array(slopes),  # x_q = 1
        "ex3_closed_form": np.array(closed),
        "ex3_residuals_after_one": residuals[1],
        "ex3_second_increment": slopes[1] - slopes[0],
        "ex3_least_squares": star,
        "ex3_contraction": 1 - eta * sigma,
    }


def induction_split(kappa: float, vocab: int) -> dict:
    """Hard-attention probabilities of the induction read (first-principles line 1315): weight
    split evenly over k earlier successors gives logit kappa/k to each, 0 to the rest."""
    two = math.exp(kappa / 2) / (2 * math.exp(kappa / 2) + vocab - 2)
    three = math.exp(kappa / 3) / (3 * math.exp(kappa / 3) + vocab - 3)
    return {"ex4_two_way": two, "ex4_two_way_rest": 1 - 2 * two, "ex4_three_way": three}


EX4_WORDS = ("Ann", "gave", "pen")
EX4_STOP = (".", "Ann", "gave", "Ann", "pen", "Ann")  # first-principles line 1313
EX4_BARE = EX4_STOP[1:]


def induction_read(words, beta: float, kappa: float, vocab: int) -> np.ndarray:
    """The induction circuit of first-principles E4 on one sequence, at sharpness beta.

    Layer 1 (E2's previous-token head): position t puts e^beta / (e^beta + t) on t-1 and
    1 / (e^beta + t) on every other visible position (position 0 sees only itself), so PREV_t
    is that mixture of one-hot tokens. Layer 2 at the last position p scores key j by
    beta * PREV_j[w_p] over j <= p and returns the mixture of their tokens (OUT); the logits
    are kappa * OUT over a vocabulary of ``vocab`` tokens. Returns the probabilities of
    Ann, gave and pen at the last position."""
    types = sorted(set(words))
    idx = {w: i for i, w in enumerate(types)}
    tok = np.eye(len(types))[[idx[w] for w in words]]
    n = len(words)
    att1 = np.zeros((n, n))
    for t in range(n):
        if t == 0:
            att1[0, 0] = 1.0
            continue
        att1[t, : t + 1] = 1.0 / (math.exp(beta) + t)
        att1[t, t - 1] = math.exp(beta) / (math.exp(beta) + t)
    prev = att1 @ tok
    p = n - 1
    a2 = softmax(beta * prev[: p + 1, idx[words[p]]])
    out = a2 @ tok[: p + 1]
    logits = np.zeros(vocab)
    logits[: len(types)] = kappa * out
    probs = softmax(logits)
    return np.array([probs[idx[w]] for w in EX4_WORDS])


# ----------------------------------------------------------------------------- ch12 identities


def ladder_gaps(rng, d: int, m: int, d_v: int) -> dict:
    """Least squares with equal weights is V^T K (K^T K)^{-1}; with orthonormal keys
    K^T K = I and it is the Hebbian store V^T K (linear attention)."""
    K = rng.standard_normal((m, d))
    V = rng.standard_normal((m, d_v))
    lstsq = np.linalg.lstsq(K, V, rcond=None)[0].T
    formula = V.T @ K @ np.linalg.inv(K.T @ K)
    Q, _ = np.linalg.qr(rng.standard_normal((d, d)))
    Vq = rng.standard_normal((d, d_v))
    ls_orth = np.linalg.lstsq(Q, Vq, rcond=None)[0].T
    return {
        "ladder_formula_gap": gap(lstsq, formula),
        "ladder_orthonormal_gap": gap(ls_orth, Vq.T @ Q),
        "ladder_covariance_offdiag": float(
            np.max(np.abs(K.T @ K / m - np.diag(np.diag(K.T @ K / m))))
        ),
    }


def kernel_gaps(rng, d: int, m: int, d_v: int, beta: float) -> dict:
    """Softmax attention against the Nadaraya-Watson smoother (exponential kernel, and the
    Gaussian distance kernel on unit vectors); the modern Hopfield read as attention."""
    K = unit(rng.standard_normal((m, d)))
    V = rng.standard_normal((m, d_v))
    q = unit(rng.standard_normal(d))
    attn = V.T @ softmax(beta * K @ q)
    w = np.exp(beta * K @ q)
    nw = (w[:, None] * V).sum(0) / w.sum()
    g = np.exp(-beta * np.sum((K - q) ** 2, axis=1) / 2)
    nw_dist = (g[:, None] * V).sum(0) / g.sum()
    X = rng.standard_normal((m, d))
    hop = X.T @ softmax(beta * X @ q)
    return {
        "nw_softmax_gap": gap(attn, nw),
        "nw_distance_kernel_gap": gap(attn, nw_dist),
        "hopfield_is_attention_gap": gap(hop, _attention(q, X, X, beta)),
    }


def _attention(q, K, V, beta):
    """One softmax-attention read with keys K and values V as rows."""
    return V.T @ softmax(beta * K @ q)


def decay_gap(rng, d_k: int, d_v: int, tokens: int, gamma: float) -> float:
    """The decayed write S <- gamma S + v k^T against the explicit sum of gamma^(t-i) v_i k_i^T."""
    K = rng.standard_normal((tokens, d_k))
    V = rng.standard_normal((tokens, d_v))
    S = np.zeros((d_v, d_k))
    for t in range(tokens):
        S = gamma * S + np.outer(V[t], K[t])
    weights = gamma ** np.arange(tokens - 1, -1, -1)
    return gap(S, (V * weights[:, None]).T @ K)


def dpfp(x: np.ndarray, nu: int) -> np.ndarray:
    """Schlag et al.'s deterministic parameter-free projection: [relu(x), relu(-x)] times its
    rolls by 1..nu, concatenated (dimension 2 d nu)."""
    r = np.concatenate([np.maximum(x, 0), np.maximum(-x, 0)], axis=-1)
    return np.concatenate([r * np.roll(r, i, axis=-1) for i in range(1, nu + 1)], axis=-1)


def feature_map_state(rng, d: int, d_v: int, tokens: int, nu: int) -> dict:
    """A feature-map read compressed into S (d_v x D) and z (D): the same output as the
    explicit kernel-weighted average over the pairs, with D = 2 d nu for DPFP."""
    K = rng.standard_normal((tokens, d))
    V = rng.standard_normal((tokens, d_v))
    q = rng.standard_normal(d)
    pk, pq = dpfp(K, nu), dpfp(q, nu)
    S, z = V.T @ pk, pk.sum(0)
    weights = pk @ pq
    explicit = (weights[:, None] * V).sum(0) / weights.sum()
    return {
        "dpfp_dim": float(pk.shape[1]),
        "dpfp_state_numbers": float(S.size + z.size),
        "dpfp_state_gap": gap(S @ pq / (z @ pq), explicit),
    }


def one_read_gap(rng, d: int, m: int, d_v: int) -> dict:
    """An MLP V^T sigma(K x) is the read sum_i v_i sigma(k_i . x); with sigma = exp and the
    weights normalised it is softmax attention on the same pairs."""
    K = rng.standard_normal((m, d)) / math.sqrt(d)
    V = rng.standard_normal((m, d_v))
    x = rng.standard_normal(d)
    relu = np.maximum(K @ x, 0)
    mlp = V.T @ relu
    by_pairs = sum(V[i] * max(K[i] @ x, 0.0) for i in range(m))
    e = np.exp(K @ x)
    return {
        "mlp_read_gap": gap(mlp, by_pairs),
        "normalised_read_gap": gap((V.T @ e) / e.sum(), _attention(x, K, V, 1.0)),
    }


# ----------------------------------------------------------------------------- ch12 numbers


def state_costs(d_head: int, n_seq: int, d_model: int, layers: int) -> dict:
    """The fixed state's cost over n tokens in two readings: multiply-adds 2 n d^2 (write and
    read, first-principles D3) and floating-point operations 4 n d^2 (a multiply-add is two);
    the cache's crossing with the weights, 12 d^2 L / (2 d L), in units of d."""
    madds = 2 * n_seq * d_head * d_head
    return {
        "state_madds_total": float(madds),
        "state_flops_total": float(2 * madds),
        "cache_crossing_over_d": 12 * d_model**2 * layers / (2 * d_model * layers) / d_model,
    }


SEVEN_LAYERS = (
    "linear layer",
    "MLP",
    "softmax attention",
    "linear attention",
    "decayed / gated",
    "delta rule",
    "test-time training",
)


def layer_state_numbers(d: int, contexts) -> np.ndarray:
    """Numbers each of the seven layers keeps after n tokens at width d (d_k = d_v = d), for
    each n of ``contexts``: the fixed matrices hold d^2, an MLP with 4d hidden units holds
    8 d^2 (a key and a value of d numbers per unit), a linear test-time-trained model d^2, the
    cache 2 n d."""
    n = np.asarray(contexts, dtype=float)
    fixed = np.full_like(n, float(d * d))
    rows = [fixed, 8.0 * d * d + 0 * n, 2.0 * d * n, fixed, fixed, fixed, fixed]
    return np.array(rows)


def capacity_ratio(d: int) -> dict:
    """Capacities where interference equals signal: Hebbian sqrt((M-1)/d) = 1 at M = d + 1,
    least squares sqrt(M/d - 1) = 1 at M = 2d; their ratio."""
    return {
        "hebbian_capacity": float(d + 1),
        "ls_capacity": float(2 * d),
        "ls_over_hebbian": 2 * d / (d + 1),
    }


def dilution(rng, d: int, m_before: int, m_added: int, beta: float) -> dict:
    """Attention is a budget of one: the weight on a matched key falls when unrelated keys are
    added, while the weights still sum to one and nothing is removed."""
    K = unit(rng.standard_normal((m_before + m_added, d)))
    q = K[0]
    before = softmax(beta * K[:m_before] @ q)
    after = softmax(beta * K @ q)
    return {
        "dilution_weight_before": float(before[0]),
        "dilution_weight_after": float(after[0]),
        "dilution_sum_after": float(after.sum()),
        "dilution_drop": float(before[0] - after[0]),
    }


def hard_limit_gap(rng, d: int, m: int, beta: float) -> float:
    """At large beta the softmax read returns the value of the best-matching key."""
    K = unit(rng.standard_normal((m, d)))
    V = rng.standard_normal((m, d))
    q = unit(K[3] + 0.1 * rng.standard_normal(d))
    return gap(_attention(q, K, V, beta), V[np.argmax(K @ q)])


def hopfield_retrieval(rng, d: int, m: int, beta: float, noise: float) -> dict:
    """Iterate xi <- X^T softmax(beta X xi) from a noisy copy of a stored pattern: one step
    lands on the pattern, and the pattern is (numerically) a fixed point."""
    X = rng.choice([-1.0, 1.0], size=(m, d))
    xi = X[0] + noise * rng.standard_normal(d)
    one = X.T @ softmax(beta * X @ xi)
    return {
        "hopfield_one_step_gap": gap(one, X[0]),
        "hopfield_fixed_point_gap": gap(X.T @ softmax(beta * X @ X[0]), X[0]),
    }


# ----------------------------------------------------------------------------- ch14 the edit


def rank_one_edit(rng, d_k: int, d_v: int, n_keys: int, unevenness: float, n_perturb: int):
    """memory-math ch14 (line 58): edit a random linear memory W (d_v x d_k) so that a new key
    k* reads a new value v*, with C the second moment of a sample of typical keys. The
    preconditioned direction is store_writes.edit_directions (memory-math D17); here we check
    what it does."""
    scales = np.exp(-unevenness * np.arange(d_k) / (d_k - 1) / 2)
    keys = rng.standard_normal((n_keys, d_k)) * scales  # uneven typical keys
    C = keys.T @ keys / n_keys
    W = rng.standard_normal((d_v, d_k))
    kstar = rng.standard_normal(d_k) * scales
    vstar = rng.standard_normal(d_v)
    r = vstar - W @ kstar
    pre, naive = edit_directions(C, kstar)
    delta = np.outer(r, pre)
    W2 = W + delta
    moved = keys @ W2.T - keys @ W.T  # how each typical key's read changes
    predicted = np.outer(keys @ np.linalg.solve(C, kstar), r) / (kstar @ np.linalg.solve(C, kstar))
    mean_sq = float(np.mean(np.sum(moved**2, axis=1)))
    mean_sq_pred = float((r @ r) / (kstar @ np.linalg.solve(C, kstar)))
    naive_sq = float(np.mean(np.sum((keys @ np.outer(r, naive).T) ** 2, axis=1)))
    out = {
        "edit_new_value_gap": gap(W2 @ kstar, vstar),
        "edit_rank": float(np.linalg.matrix_rank(delta)),
        "edit_moved_gap": gap(moved, predicted),
        "edit_mean_sq_move": mean_sq,
        "edit_mean_sq_move_predicted": mean_sq_pred,
        "edit_naive_mean_sq_move": naive_sq,
        "edit_mean_sq_gap": abs(mean_sq - mean_sq_pred),
        "edit_naive_over_preconditioned": naive_sq / mean_sq,
    }
    out.update(least_costly_edit(rng, C, delta, kstar, n_perturb))
    out.update(edit_direction_checks(C, delta, kstar, pre))
    return out


def least_costly_edit(rng, C, delta, kstar, n_perturb: int) -> dict:
    """Any other change that also makes k* read v* (Delta' k* = r) costs at least as much on
    typical keys (memory-math ch14, line 58)."""
    d_v, d_k = delta.shape
    E = rng.standard_normal((n_perturb, d_v, d_k))
    E -= np.einsum("nij,j->ni", E, kstar)[:, :, None] * kstar[None, None, :] / (kstar @ kstar)
    cand = delta[None] + rng.uniform(1e-3, 1.0, (n_perturb, 1, 1)) * E
    costs = np.einsum("nij,jk,nik->n", cand, C, cand)
    return {"edit_min_excess": float(np.min(costs) - np.trace(delta @ C @ delta.T))}


def edit_direction_checks(C, delta, kstar, pre) -> dict:
    """The edit's key direction ignores the scale of C, is k*/|k*|^2 at C = I, and Delta C is a
    multiple of k*^T (memory-math ch14, line 58)."""
    pre_scaled, _ = edit_directions(7.5 * C, kstar)
    pre_identity, naive_identity = edit_directions(np.eye(len(kstar)), kstar)
    return {
        "edit_scale_invariance_gap": gap(pre_scaled, pre),
        "edit_identity_is_delta_gap": gap(pre_identity, naive_identity),
        "edit_lagrange_gap": gap(delta @ C, np.outer(delta @ C @ kstar / (kstar @ kstar), kstar)),
    }


# ----------------------------------------------------------------------------- appendix E


def glossary_checks(rng, d: int, m: int) -> dict:
    """Each glossary definition that states a checkable property, on one random instance
    (memory-math appendix E, line 68), drawn in this order from ``rng``."""
    out = softmax_entries(rng, m)
    out.update(projection_entries(rng, d))
    M = rng.standard_normal((d, d))
    out.update(matrix_entries(rng, M))
    out.update(sherman_morrison_entry(rng, M))
    out.update(whitening_entries(rng, d, m))
    out.update(ridge_entry(rng, d, m))
    out.update(layernorm_entries(rng, d))
    out.update(causal_attention_entries(rng, m))
    return out


def softmax_entries(rng, m: int) -> dict:
    """Glossary softmax and temperature (line 68): sums to one, positive, not entrywise, flat at
    beta -> 0 and one-hot at beta -> infinity."""
    z = rng.standard_normal(m)
    p = softmax(z)
    z2 = z.copy()
    z2[0] += 1.0
    return {
        "gl_softmax_sum_gap": abs(float(p.sum()) - 1.0),
        "gl_softmax_min": float(p.min()),
        "gl_softmax_entrywise": float(np.allclose(softmax(z2)[1:], p[1:])),  # 0: not entrywise
        "gl_temperature_flat": gap(softmax(1e-9 * z), np.full(m, 1 / m)),
        "gl_temperature_hard": gap(softmax(1e4 * z), np.eye(m)[np.argmax(z)]),
    }


def projection_entries(rng, d: int) -> dict:
    """Glossary projection (line 68): idempotent, symmetric, trace equal to rank."""
    A = rng.standard_normal((d, 3))
    P = A @ np.linalg.solve(A.T @ A, A.T)
    return {
        "gl_projection_idempotent_gap": gap(P @ P, P),
        "gl_projection_symmetric_gap": gap(P, P.T),
        "gl_projection_trace_minus_rank": float(np.trace(P) - np.linalg.matrix_rank(P)),
    }


def matrix_entries(rng, M: np.ndarray) -> dict:
    """Glossary SVD, rank, outer product, Frobenius norm and trace (line 68), on the square
    matrix ``M`` and a sum of three random outer products."""
    d = len(M)
    U, s, Vt = np.linalg.svd(M)
    low = sum(np.outer(rng.standard_normal(d), rng.standard_normal(d)) for _ in range(3))
    Ul, sl, Vtl = np.linalg.svd(low)
    u, v = rng.standard_normal(d), rng.standard_normal(d)
    return {
        "gl_svd_gap": gap(M, (U * s) @ Vt),
        "gl_svd_orthonormal_gap": max(gap(U.T @ U, np.eye(d)), gap(Vt @ Vt.T, np.eye(d))),
        "gl_rank_of_three_outer": float(np.linalg.matrix_rank(low)),
        "gl_rank_three_terms_gap": gap(low, (Ul[:, :3] * sl[:3]) @ Vtl[:3]),
        "gl_outer_entries_gap": gap(np.outer(u, v), u[:, None] * v[None, :]),
        "gl_frobenius_gap": max(
            abs(np.sqrt((M**2).sum()) - np.sqrt(np.trace(M.T @ M))),
            abs(np.sqrt((M**2).sum()) - np.sqrt((s**2).sum())),
        ),
        "gl_trace_gap": abs(float(np.trace(M)) - float(np.diag(M).sum())),
    }


def sherman_morrison_entry(rng, M: np.ndarray) -> dict:
    """Glossary Sherman-Morrison (line 68): the rank-one update of an inverse, against a fresh
    inverse, on M M^T + d I."""
    d = len(M)
    B = M @ M.T + d * np.eye(d)
    b, c = rng.standard_normal(d), rng.standard_normal(d)
    Binv = np.linalg.inv(B)
    sm = Binv - np.outer(Binv @ b, c @ Binv) / (1 + c @ Binv @ b)
    return {"gl_sherman_morrison_gap": gap(sm, np.linalg.inv(B + np.outer(b, c)))}


def whitening_entries(rng, d: int, m: int) -> dict:
    """Glossary whitening (line 68): C^-1 k against k has identity cross moment but is not
    white itself; C^-1/2 k is white."""
    keys = rng.standard_normal((m, d)) * np.linspace(1.0, 3.0, d) + 0.5 * rng.standard_normal(d)
    C = keys.T @ keys / m
    white = keys @ np.linalg.inv(C)  # rows C^-1 k
    cross = white.T @ keys / m
    evals, evecs = np.linalg.eigh(C)
    half = keys @ (evecs / np.sqrt(evals)) @ evecs.T
    self2 = white.T @ white / m
    return {
        "gl_whiten_cross_gap": gap(cross, np.eye(d)),
        "gl_whiten_self_offdiag": float(np.max(np.abs(self2 - np.diag(np.diag(self2))))),
        "gl_whiten_sqrt_gap": gap(half.T @ half / m, np.eye(d)),
    }


def ridge_entry(rng, d: int, m: int) -> dict:
    """Glossary ridge regression (line 68): the gradient of the ridge loss vanishes at its
    closed form."""
    X = rng.standard_normal((m, d))
    y = rng.standard_normal(m)
    lam = 0.7
    w = np.linalg.solve(X.T @ X + lam * np.eye(d), X.T @ y)
    return {"gl_ridge_gradient": gap(X.T @ (X @ w - y) + lam * w, np.zeros(d))}


def layernorm_entries(rng, d: int) -> dict:
    """Glossary layer norm (line 68): mean 0 and variance 1 after normalising."""
    h = rng.standard_normal(d) * 3 + 2
    ln = (h - h.mean()) / h.std()
    return {
        "gl_layernorm_mean": abs(float(ln.mean())),
        "gl_layernorm_var_gap": abs(float(ln.var()) - 1.0),
    }


def causal_attention_entries(rng, m: int) -> dict:
    """Glossary attention matrix and causal mask (line 68): rows sum to one, nothing above the
    diagonal."""
    scores = rng.standard_normal((m, m))
    mask = np.triu(np.ones((m, m), bool), 1)
    Acausal = softmax(np.where(mask, -np.inf, scores))
    return {
        "gl_attention_rows_gap": gap(Acausal.sum(1), np.ones(m)),
        "gl_causal_upper_max": float(Acausal[mask].max()),
    }


# ----------------------------------------------------------------------------- the experiment


def _layers(ex3_layers: int, **_) -> list[int]:
    """Coordinates of the layer dim of exercise 3."""
    return list(range(1, ex3_layers + 1))


def closing_counts(n_names: int, certified_n) -> dict:
    """Counts of the closing summary (first-principles lines 1299, 1326-1328): the nats of the
    pair situations at N = 8, the R3 predictions at ``n_names`` and the sharpness E2's bound
    certifies at each length of ``certified_n``."""
    return {
        "pair_situations_nats_n8": math.log(8 * 7),
        "r3_predictions": float(n_names * (n_names - 1) * 3 * 2),  # 3 gaps, 2 copies each
        "certified_beta": np.array([smallest_certified_beta(n) for n in certified_n]),
    }


@experiment(
    params={
        "n_names": integer(min=2, doc="names of the R3 count"),
        "certified_n": ints(min=2, ranges=False, doc="lengths n of the certified sharpness"),
        "ex4_beta": real(gt=0, doc="sharpness of exercise 4", max=300),
        "ex3_eta": real(gt=0, doc="step of exercise 3"),
        "ex3_layers": integer(min=2, doc="layers of exercise 3"),
        "d": integer(min=2, doc="key dimension of the identity checks"),
        "pairs": integer(min=4, doc="stored pairs of the identity checks"),
        "d_v": integer(min=1),
        "beta": real(gt=0, max=300),
        "tokens": integer(min=2),
        "gamma": real(max=1, gt=0),
        "dpfp_nu": integer(min=1),
        "d_head": integer(min=1),
        "n_seq": integer(min=1),
        "d_model": integer(min=1),
        "layers": integer(min=1),
        "contexts": ints(min=1, ranges=False, doc="sequence lengths n of the layer-size table"),
        "edit_d_k": integer(min=2),
        "edit_d_v": integer(min=1),
        "edit_keys": integer(min=2),
        "edit_unevenness": real(min=0, max=300),
        "edit_perturb": integer(min=1),
    },
    outputs=(
        Output("pair_situations_nats_n8", "ln N(N-1) at N = 8", "nats"),
        Output("r3_predictions", "copies over every ordered pair at three gaps", "predictions"),
        Output("certified_beta", "smallest beta the E2 bound certifies", dims=("n",)),
        Output("ex3_prediction", "prediction at x_q = 1 after l layers", dims=("layer",)),
        Output("ex3_closed_form", "(1 - (1-eta Sigma)^l) theta*", dims=("layer",)),
        Output("ex3_residuals_after_one", "residuals after one layer", dims=("example",)),
        Output("ex3_second_increment", "what the second layer adds"),
        Output("ex3_least_squares", "least-squares slope through the origin"),
        Output("ex3_contraction", "1 - eta Sigma"),
        Output("ex4_two_way", "induction read split over two successors, each"),
        Output("ex4_two_way_rest", "probability left for the other tokens"),
        Output("ex4_three_way", "hard split over three successors, each"),
        Output(
            "ex4_circuit_probs",
            "circuit at finite beta, no stop: Ann, gave, pen",
            dims=("ex4_token",),
        ),
        Output(
            "ex4_circuit_probs_stop", "same with the full stop: Ann, gave, pen", dims=("ex4_token",)
        ),
        Output("ladder_formula_gap", "least squares minus V^T K (K^T K)^-1"),
        Output("ladder_orthonormal_gap", "least squares minus V^T K, orthonormal keys"),
        Output("ladder_covariance_offdiag", "largest off-diagonal of K^T K / m (random keys)"),
        Output("nw_softmax_gap", "softmax attention minus Nadaraya-Watson, exp kernel"),
        Output("nw_distance_kernel_gap", "same with the Gaussian distance kernel, unit vectors"),
        Output("hopfield_is_attention_gap", "Hopfield read minus attention with K = V = X"),
        Output("decay_gap", "decayed recurrence minus the explicit weighted sum"),
        Output("dpfp_dim", "DPFP feature dimension D", "features"),
        Output("dpfp_state_numbers", "numbers in S and z for DPFP", "numbers"),
        Output("dpfp_state_gap", "compressed feature-map read minus the explicit one"),
        Output("mlp_read_gap", "V^T relu(K x) minus the sum over pairs"),
        Output("normalised_read_gap", "normalised exp read minus softmax attention"),
        Output("state_madds_total", "fixed state, 2 n d^2 over the sequence", "multiply-adds"),
        Output("state_flops_total", "fixed state, 4 n d^2 over the sequence", "flops"),
        Output("cache_crossing_over_d", "tokens where cache equals weights, over d"),
        Output(
            "layer_state_numbers",
            "numbers each layer keeps after n tokens",
            "numbers",
            ("seven_layer", "context"),
        ),
        Output("hebbian_capacity", "M where sqrt((M-1)/d) = 1", "pairs"),
        Output("ls_capacity", "M where sqrt(M/d - 1) = 1", "pairs"),
        Output("ls_over_hebbian", "least-squares over Hebbian capacity"),
        Output("dilution_weight_before", "weight on the matched key, m keys"),
        Output("dilution_weight_after", "weight on the matched key, 11 m keys"),
        Output("dilution_sum_after", "sum of the weights after adding keys"),
        Output("dilution_drop", "weight lost by the matched key"),
        Output("hard_limit_gap", "softmax read at beta 1000 minus the best key's value"),
        Output("hopfield_one_step_gap", "one Hopfield update from a noisy probe minus pattern"),
        Output("hopfield_fixed_point_gap", "update of a stored pattern minus itself"),
        Output("edit_new_value_gap", "edited memory's read of k* minus v*"),
        Output("edit_rank", "rank of the edit"),
        Output("edit_moved_gap", "change of each typical read minus the predicted change"),
        Output("edit_mean_sq_move", "mean squared change of typical reads"),
        Output("edit_mean_sq_move_predicted", "|r|^2 / (k*^T C^-1 k*)"),
        Output("edit_naive_mean_sq_move", "the same for the unpreconditioned edit"),
        Output("edit_mean_sq_gap", "|mean squared change - predicted|"),
        Output("edit_naive_over_preconditioned", "naive over preconditioned mean square change"),
        Output("edit_min_excess", "least extra cost of a random feasible change"),
        Output("edit_scale_invariance_gap", "edit key with C scaled by 7.5 minus unscaled"),
        Output("edit_identity_is_delta_gap", "edit key at C = I minus k*/|k*|^2"),
        Output("edit_lagrange_gap", "Delta C minus lambda k*^T"),
        Output("gl_softmax_sum_gap", "|sum of softmax - 1|"),
        Output("gl_softmax_min", "smallest softmax weight"),
        Output("gl_softmax_entrywise", "1 if softmax acted entry by entry"),
        Output("gl_temperature_flat", "softmax at beta 1e-9 minus uniform"),
        Output("gl_temperature_hard", "softmax at beta 1e4 minus one-hot argmax"),
        Output("gl_projection_idempotent_gap", "P^2 - P"),
        Output("gl_projection_symmetric_gap", "P - P^T"),
        Output("gl_projection_trace_minus_rank", "trace P - rank P"),
        Output("gl_svd_gap", "A minus its SVD sum"),
        Output("gl_svd_orthonormal_gap", "U^T U - I and V^T V - I"),
        Output("gl_rank_of_three_outer", "rank of a sum of three outer products"),
        Output("gl_rank_three_terms_gap", "that matrix minus its top three SVD terms"),
        Output("gl_outer_entries_gap", "u v^T minus the table u_i v_j"),
        Output("gl_frobenius_gap", "root sum of squares vs sqrt tr A^T A and singular values"),
        Output("gl_trace_gap", "trace minus the sum of the diagonal"),
        Output("gl_sherman_morrison_gap", "Sherman-Morrison minus a fresh inverse"),
        Output("gl_whiten_cross_gap", "E[(C^-1 k) k^T] - I"),
        Output("gl_whiten_self_offdiag", "largest off-diagonal of E[(C^-1 k)(C^-1 k)^T]"),
        Output("gl_whiten_sqrt_gap", "E[(C^-1/2 k)(C^-1/2 k)^T] - I"),
        Output("gl_ridge_gradient", "gradient of the ridge loss at the closed form"),
        Output("gl_layernorm_mean", "|mean| after normalising"),
        Output("gl_layernorm_var_gap", "|variance - 1| after normalising"),
        Output("gl_attention_rows_gap", "row sums of a causal attention matrix minus 1"),
        Output("gl_causal_upper_max", "largest weight above the diagonal"),
    ),
    coords={
        "n": from_param("certified_n"),
        "layer": coord("linear-attention layers applied so far (each one gradient step)", _layers),
        "example": coord("in-context example of the prompt (0 first)", [0, 1, 2]),
        "ex4_token": coord("token of the circuit's answer", list(EX4_WORDS)),
        "seven_layer": coord("kind of layer", list(SEVEN_LAYERS)),
        "context": from_param("contexts"),
    },
    sections=(
        "first-principles E5: summary tables, limits, exercises, requirements (1282-1342)",
        "memory-math ch12-ch16 (lines 54-58): unified view, mental models, the edit, names",
        "memory-math appendix E glossary (line 68)",
    ),
)
def unified_view(
    n_names: int,
    certified_n: list[int],
    ex4_beta: float,
    ex3_eta: float,
    ex3_layers: int,
    d: int,
    pairs: int,
    d_v: int,
    beta: float,
    tokens: int,
    gamma: float,
    dpfp_nu: int,
    d_head: int,
    n_seq: int,
    d_model: int,
    layers: int,
    contexts: list[int],
    edit_d_k: int,
    edit_d_v: int,
    edit_keys: int,
    edit_unevenness: float,
    edit_perturb: int,
    rng,
) -> dict:
    """Every number of the closing summaries that is not already a cube of its own chapter."""
    out = closing_counts(n_names, certified_n)
    out.update(exercise_three(ex3_eta, ex3_layers))
    out.update(induction_split(READOUT_KAPPA, VOCAB))
    out["ex4_circuit_probs"] = induction_read(EX4_BARE, ex4_beta, READOUT_KAPPA, VOCAB)
    out["ex4_circuit_probs_stop"] = induction_read(EX4_STOP, ex4_beta, READOUT_KAPPA, VOCAB)
    out.update(ladder_gaps(rng, d, pairs, d_v))
    out.update(kernel_gaps(rng, d, pairs, d_v, beta))
    out["decay_gap"] = decay_gap(rng, d, d_v, tokens, gamma)
    out.update(feature_map_state(rng, d, d_v, tokens, dpfp_nu))
    out.update(one_read_gap(rng, d, pairs, d_v))
    out.update(state_costs(d_head, n_seq, d_model, layers))
    out.update(capacity_ratio(d_head))
    out["layer_state_numbers"] = layer_state_numbers(d_head, contexts)
    out.update(dilution(rng, d_head, pairs, 10 * pairs, beta))
    out["hard_limit_gap"] = hard_limit_gap(rng, d_head, pairs, 1e3)
    out.update(hopfield_retrieval(rng, d_head, pairs, beta, 0.5))
    out.update(rank_one_edit(rng, edit_d_k, edit_d_v, edit_keys, edit_unevenness, edit_perturb))
    out.update(glossary_checks(rng, d, pairs))
    return out
