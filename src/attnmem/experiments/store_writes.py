"""One matrix as a memory: the Hebbian and the least-squares write, and editing one fact.

Serves first-principles D1-D2 (lines 737-862), memory-math chapter 4's least-squares part
(lines 15-16, 20) with derivations D3, D14 and D17, and chapter 5's MLP-as-memory identities.

Two experiments:

- ``linear_store_errors``: m random unit keys in R^d with random unit values, written by the
  Hebbian rule S = V^T K and by least squares; the squared error of a read, the projection
  H = K (K^T K)^{-1} K^T behind the least-squares read, and its interference-to-signal ratio.
  Everything is computed without forming m x m matrices for large m (reads are K S^T).
- ``memory_edit_checks``: the hand-set and small exact checks (the three-pair worked example,
  finite-difference gradients, the MLP read as a sum over hidden units, parameter counts) and
  the preconditioned rank-one edit, including the figure's sweep over how uneven the typical
  keys are.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..spec import Output, coord, experiment, integer, ints, real, seeds


def unit_rows(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    """Independent uniform unit vectors along the last axis (normalised Gaussians)."""
    g = rng.standard_normal(shape)
    return g / np.linalg.norm(g, axis=-1, keepdims=True)


# ----------------------------------------------------------------------------- the two writes


def hebbian_store(K: np.ndarray, V: np.ndarray) -> np.ndarray:
    """S = sum_i v_i k_i^T for keys and values stacked as rows (batched over leading axes)."""
    return np.swapaxes(V, -1, -2) @ K


def least_squares_store(K: np.ndarray, V: np.ndarray) -> np.ndarray:
    """The minimiser of sum_i |S k_i - v_i|^2: V^T (K K^T)^{-1} K when m <= d (the
    minimum-norm exact solution) and V^T K (K^T K)^{-1} when m > d."""
    m, d = K.shape[-2:]
    Vt = np.swapaxes(V, -1, -2)
    Kt = np.swapaxes(K, -1, -2)
    if m <= d:
        return Vt @ np.linalg.solve(K @ Kt, K)
    return np.swapaxes(np.linalg.solve(Kt @ K, Kt @ V), -1, -2)


def reads(S: np.ndarray, K: np.ndarray) -> np.ndarray:
    """Row j is S k_j."""
    return K @ np.swapaxes(S, -1, -2)


def leverages(K: np.ndarray) -> np.ndarray:
    """Diagonal of the projection H = K (K^T K)^{-1} K^T (all ones when m <= d)."""
    m, d = K.shape[-2:]
    if m <= d:
        return np.ones(K.shape[:-1])
    Kt = np.swapaxes(K, -1, -2)
    X = np.linalg.solve(Kt @ K, Kt)  # (K^T K)^{-1} K^T
    return np.einsum("...jd,...dj->...j", K, X)


def projection(K: np.ndarray) -> np.ndarray:
    """H = K (K^T K)^{-1} K^T for one key matrix (m x m; only for small m)."""
    return K @ np.linalg.solve(K.T @ K, K.T)


EDIT_MC_REPS = 20  # replicates of the Monte Carlo of the edit costs

EDIT_MC_KEYS = 5000  # fresh keys per replicate


def _sampled_isr(read: np.ndarray, values: np.ndarray, signal: np.ndarray) -> float:
    """The root of the mean over pairs of |interference|^2 / signal^2 for one store, from its
    reads (m, d), the stored values (m, d) and each pair's signal weight H_jj (m,)."""
    interference = read - signal[:, None] * values
    return float(np.sqrt(np.mean(np.sum(interference**2, axis=-1) / signal**2)))


@experiment(
    grid={
        "d": ints(doc="key width d"),
        "m": ints(doc="number of key-value pairs stored"),
        "seed": seeds(),
    },
    params={
        "trials": integer(min=1, doc="stores drawn per seed"),
    },
    outputs=(
        Output("hebb_err", "mean squared error of a Hebbian read"),
        Output("hebb_err_expected", "expected Hebbian squared error (m-1)/d (exact)"),
        Output("lsq_err", "mean squared error of a least-squares read"),
        Output("lsq_err_expected", "expected least-squares squared error (exact)"),
        Output("lsq_beats_hebb", "fraction of draws where least squares has less error"),
        Output("lsq_recall_max_error", "largest error of a least-squares read, m <= d"),
        Output("trace_gap", "largest |sum of leverages - min(m, d)| over draws"),
        Output("lsq_err_given_keys", "mean of 1 - H_jj over pairs and draws"),
        Output("lsq_isr2", "mean of (H_jj - H_jj^2)/H_jj^2 (squared interference/signal)"),
        Output("lsq_isr2_plugin", "the same with H_jj replaced by d/m"),
        Output("hebb_isr", "root mean squared error over signal, Hebbian"),
        Output("hebb_isr_formula", "sqrt((m - 1) / d)"),
        Output("lsq_isr", "root mean squared interference over signal, least squares"),
        Output("lsq_isr_formula", "sqrt(m / d - 1), m > d"),
        Output("hebb_isr_one_store", "root mean squared error over signal, one store"),
        Output(
            "lsq_isr_one_store",
            "root mean over pairs of |sum_{i!=j} H_ji v_i|^2 / H_jj^2, least squares, one store "
            "(drawn values, the reads sampled as the Hebbian one's)",
        ),
        Output("whitening_cancels", "d times (Hebbian (m-1)/d minus m/d - 1), m > d", "pairs"),
        Output(
            "hebb_weights_draw",
            "draw 0: weight of each value in the read of pair 0",
            dims=("pair",),
        ),
        Output(
            "lsq_weights_draw", "draw 0: least-squares weight of each value, pair 0", dims=("pair",)
        ),
        Output("hebb_err_draw", "draw 0: Hebbian squared error of pair 0"),
        Output("lsq_err_draw", "draw 0: least-squares squared error of pair 0"),
        Output("projection_gap", "draw 0: largest entry of H - H^T and H^2 - H"),
        Output("row_square_gap", "draw 0: largest |sum_{i!=j} H_ji^2 - (H_jj - H_jj^2)|"),
        Output("dual_basis_gap", "draw 0: largest |dual_i . k_j - delta_ij|, m <= d"),
        Output(
            "lsq_solver_max_error",
            "largest read error of the least-squares store found by numpy pinv (an SVD)",
        ),
        Output(
            "lsq_solver_store_gap",
            "largest |closed-form store - pinv minimum-norm store| over draws",
        ),
        Output(
            "lsq_solver_read_gap",
            "largest |closed-form store's read - pinv store's read| over draws",
        ),
        Output(
            "lsq_solver_offweight_max",
            "largest |weight of another value| in the pinv read of pair 0, over draws",
        ),
        Output(
            "recall_svd_gap",
            "draw 0: largest |R - U U^T|, R the store's recall matrix, U from an SVD of K",
        ),
        Output(
            "recall_row_square_gap_svd",
            "draw 0: largest |sum_{i!=j} R_ji^2 - (p_j - p_j^2)|, p_j the SVD leverage",
        ),
        Output("recall_trace_minus_rank", "draw 0: |tr R - rank K|, rank from the singular values"),
    ),
    coords={"pair": coord("stored pair whose value is weighed (0 first)")},
    sections=(
        "first-principles D1: Hebbian and least-squares errors, the figure (lines 755-783)",
        "memory-math ch4: least squares and its projection (line 15), D3 (lines 16, 68)",
    ),
)
def linear_store_errors(d: int, m: int, seed: int, trials: int, rng) -> dict:
    """``trials`` draws of m unit keys and m unit values in R^d, written both ways.

    Errors are |S k_j - v_j|^2 averaged over pairs and draws; the draw-0 weights are the
    coefficients of every stored value in the read of pair 0 (the figure's bars)."""
    del seed
    K = unit_rows(rng, (trials, m, d))
    V = unit_rows(rng, (trials, m, d))
    hebb = reads(hebbian_store(K, V), K)
    lsq_store = least_squares_store(K, V)
    lsq = reads(lsq_store, K)
    hebb_sq = np.sum((hebb - V) ** 2, axis=-1)  # (trials, m)
    lsq_sq = np.sum((lsq - V) ** 2, axis=-1)
    lev = leverages(K)
    past = m > d
    isr2 = (1.0 - lev) / lev if past else np.zeros_like(lev)
    k0 = K[0]
    hebb_w = k0 @ k0[0]
    if past:
        lsq_w = k0 @ np.linalg.solve(k0.T @ k0, k0[0])  # row 0 of H
    else:
        gram = k0 @ k0.T
        lsq_w = (gram @ np.linalg.inv(gram))[0]  # row 0 of K K^T (K K^T)^{-1}
    out = {
        "hebb_err": float(hebb_sq.mean()),
        "hebb_err_expected": (m - 1) / d,
        "lsq_err": float(lsq_sq.mean()),
        "lsq_err_expected": max(0.0, 1.0 - d / m),
        "lsq_beats_hebb": float(np.mean(lsq_sq.sum(-1) <= hebb_sq.sum(-1) + 1e-12)),
        "lsq_recall_max_error": float(np.max(np.abs(lsq - V))) if not past else float("nan"),
        "trace_gap": float(np.max(np.abs(lev.sum(-1) - min(m, d)))),
        "lsq_err_given_keys": float(np.mean(1.0 - lev)),
        "lsq_isr2": float(isr2.mean()),
        "lsq_isr2_plugin": m / d - 1.0 if past else 0.0,
        # root ratios, as exercise 1 of memory-math prints them (simulated and by formula)
        "hebb_isr": float(np.sqrt(hebb_sq.mean())),
        "hebb_isr_formula": float(np.sqrt((m - 1) / d)),
        "lsq_isr": float(np.sqrt(isr2.mean())),
        "lsq_isr_formula": float(np.sqrt(m / d - 1.0)) if past else 0.0,
        # the same root ratios for one store of m pairs (draw 0), the size exercise 1 describes
        "hebb_isr_one_store": float(np.sqrt(hebb_sq[0].mean())),
        # the least-squares read of pair j is H_jj v_j (the signal) plus sum_{i!=j} H_ji v_i;
        # sampled with the drawn values, like the Hebbian ratio (not averaged over values)
        "lsq_isr_one_store": _sampled_isr(lsq[0], V[0], lev[0]) if past else 0.0,
        "whitening_cancels": d * ((m - 1) / d - (m / d - 1.0)) if past else float("nan"),
        "hebb_weights_draw": hebb_w,
        "lsq_weights_draw": lsq_w,
        "hebb_err_draw": float(hebb_sq[0, 0]),
        "lsq_err_draw": float(lsq_sq[0, 0]),
    }
    out.update(_projection_facts(K[0]) if past and m <= 256 else _NO_PROJECTION)
    out["dual_basis_gap"] = _dual_basis_gap(K[0]) if not past else float("nan")
    out.update(_solver_facts(K, V, lsq_store, lsq))
    out.update(_svd_projection_facts(K[0]) if past and m <= 256 else _NO_SVD_PROJECTION)
    return out


def solver_store(K: np.ndarray, V: np.ndarray) -> np.ndarray:
    """The minimiser of sum_i |S k_i - v_i|^2 found by a generic solver (numpy.linalg.lstsq,
    an SVD; the minimum-norm one when it is not unique), for one key matrix: no closed form."""
    X, *_ = np.linalg.lstsq(K, V, rcond=None)  # K X ~ V, X = S^T
    return X.T


def solver_pseudo_inverses(K: np.ndarray) -> np.ndarray:
    """K^+ for every key matrix of a stack (trials, m, d), from numpy's generic pseudo-inverse
    (an SVD; singular values below max(m, d) eps times the largest count as zero, lstsq's
    default cut): the minimum-norm least-squares store is V^T K^{+T}, with no closed form."""
    cut = max(K.shape[-2:]) * np.finfo(K.dtype).eps  # numpy 2's default rtol, spelled out for 1.26
    return np.linalg.pinv(K, rcond=cut)


def _solver_facts(K: np.ndarray, V: np.ndarray, closed: np.ndarray, lsq_reads: np.ndarray) -> dict:
    """The generic solver against the closed-form store ``closed`` (reads ``lsq_reads``), over
    every draw at once: its largest read error, the largest difference of the two stores and of
    their reads, and the largest weight the solver's read of pair 0 puts on another stored value
    (row 0 of K K^+, K^+ by the solver)."""
    pinv = solver_pseudo_inverses(K)  # (trials, d, m)
    S = np.swapaxes(pinv @ V, -1, -2)  # S^T = K^+ V, the minimum-norm minimiser
    read = reads(S, K)
    w = np.einsum("td,tdm->tm", K[:, 0], pinv)  # weight of each value in read 0
    return {
        "lsq_solver_max_error": float(np.max(np.abs(read - V))),
        "lsq_solver_store_gap": float(np.max(np.abs(S - closed))),
        "lsq_solver_read_gap": float(np.max(np.abs(read - lsq_reads))),
        "lsq_solver_offweight_max": float(np.max(np.abs(w[:, 1:]))) if K.shape[-2] > 1 else 0.0,
    }


_NO_SVD_PROJECTION = {
    "recall_svd_gap": float("nan"),
    "recall_row_square_gap_svd": float("nan"),
    "recall_trace_minus_rank": float("nan"),
}


def _svd_projection_facts(K: np.ndarray) -> dict:
    """The recall matrix of the least-squares store (the reads of the stored keys when the
    values are the m unit vectors: read j = sum_i R_ji v_i) against the orthogonal projection
    onto the column space of K built another way, U U^T from a thin SVD of K: the largest
    entry of R - U U^T; the row-square identity sum_{i!=j} R_ji^2 = p_j - p_j^2 with p_j the
    SVD leverage |U_j|^2; and tr R minus the rank of K counted from its singular values."""
    m = K.shape[0]
    R = reads(least_squares_store(K, np.eye(m)), K)  # R_ji: weight of v_i in read j
    U, sv, _ = np.linalg.svd(K, full_matrices=False)
    p = np.sum(U**2, axis=1)
    off = np.sum(R**2, axis=1) - np.diag(R) ** 2
    rank = int(np.sum(sv > sv[0] * max(K.shape) * np.finfo(float).eps))
    return {
        "recall_svd_gap": float(np.max(np.abs(R - U @ U.T))),
        "recall_row_square_gap_svd": float(np.max(np.abs(off - (p - p**2)))),
        "recall_trace_minus_rank": float(abs(np.trace(R) - rank)),
    }


_NO_PROJECTION = {"projection_gap": float("nan"), "row_square_gap": float("nan")}


def _projection_facts(K: np.ndarray) -> dict:
    """How far H is from symmetric idempotent, and from sum_{i!=j} H_ji^2 = H_jj - H_jj^2."""
    H = projection(K)
    diag = np.diag(H)
    off = np.sum(H**2, axis=1) - diag**2
    return {
        "projection_gap": float(max(np.max(np.abs(H - H.T)), np.max(np.abs(H @ H - H)))),
        "row_square_gap": float(np.max(np.abs(off - (diag - diag**2)))),
    }


def _dual_basis_gap(K: np.ndarray) -> float:
    """max |tilde k_i . k_j - delta_ij| for the rows of (K K^T)^{-1} K (m <= d)."""
    dual = np.linalg.solve(K @ K.T, K)
    return float(np.max(np.abs(dual @ K.T - np.eye(K.shape[0]))))


# ----------------------------------------------------------------------------- worked example

# first-principles D1, worked example (line 785): keys in R^2 and scalar values, as printed.
THREE_KEYS = np.array([[1.0, 0.0], [0.0, 1.0], [1.0 / np.sqrt(2.0), 1.0 / np.sqrt(2.0)]])
THREE_VALUES = np.array([[3.0], [5.0], [2.0]])


def three_pairs() -> dict:
    """Both writes of the three printed pairs, their reads and errors (first-principles 784-787)."""
    K, V = THREE_KEYS, THREE_VALUES
    hebb = hebbian_store(K, V)[0]
    lsq = least_squares_store(K, V)[0]
    hebb_reads = K @ hebb
    lsq_reads = K @ lsq
    hebb_sse = float(np.sum((hebb_reads - V[:, 0]) ** 2))
    lsq_sse = float(np.sum((lsq_reads - V[:, 0]) ** 2))
    return {
        "three_hebb_store": hebb,
        "three_hebb_reads": hebb_reads,
        "three_hebb_extra_k1": float(V[2, 0] * (K[2] @ K[0])),
        "three_hebb_sse": hebb_sse,
        "three_gram": K.T @ K,
        "three_lsq_store": lsq,
        "three_lsq_reads": lsq_reads,
        "three_lsq_sse": lsq_sse,
        "three_hebb_over_lsq": hebb_sse / lsq_sse,
    }


# first-principles D1, the prompt (line 738), as printed.
D1_PROMPT = "Flo gave Ann a pen and yes well well and so then Ann thanked"


def prompt_positions() -> dict:
    """Position of the name after D1's prompt, and the words before it (first-principles 738)."""
    words = D1_PROMPT.split()
    return {
        "prompt_next_position": float(len(words)),
        "prompt_words_between": float(len(words) - 1),
    }


# ----------------------------------------------------------------------------- gradients


def central_difference(f, X: np.ndarray, h: float) -> np.ndarray:
    """Entrywise central finite-difference gradient of a scalar function of a matrix."""
    G = np.zeros_like(X)
    for idx in np.ndindex(X.shape):  # 20-30 entries: the explicit check the note describes
        E = np.zeros_like(X)
        E[idx] = h
        G[idx] = (f(X + E) - f(X - E)) / (2 * h)
    return G


def gradient_checks(rng: np.random.Generator, rows: int, cols: int, h: float) -> dict:
    """Finite differences against three outer-product gradients: the squared error of a linear
    layer (e x^T), the Hebbian loss -v^T S k (-v k^T), and a general loss through y = W x
    (ybar x^T, here a log-sum-exp cross-entropy). First-principles lines 789-802, memory-math
    line 15."""
    S = rng.standard_normal((rows, cols))
    x = rng.standard_normal(cols)
    y = rng.standard_normal(rows)
    v = rng.standard_normal(rows)

    def sq(M):
        return 0.5 * np.sum((M @ x - y) ** 2)

    def hebb(M):
        return -(v @ M @ x)

    def xent(M):
        z = M @ x
        return np.log(np.sum(np.exp(z - z.max()))) + z.max() - z[0]

    z = S @ x
    p = np.exp(z - z.max())
    p /= p.sum()
    ybar = p - np.eye(rows)[0]
    return {
        "grad_sq_gap": float(np.max(np.abs(central_difference(sq, S, h) - np.outer(z - y, x)))),
        "grad_hebb_gap": float(np.max(np.abs(central_difference(hebb, S, h) + np.outer(v, x)))),
        "grad_general_gap": float(
            np.max(np.abs(central_difference(xent, S, h) - np.outer(ybar, x)))
        ),
        "delta_step_gap": _delta_step_gap(S, x, y),
    }


def _delta_step_gap(S: np.ndarray, x: np.ndarray, y: np.ndarray, eta: float = 0.1) -> float:
    """A gradient step S - eta (Sx - y) x^T equals the delta write S + eta (y - Sx) x^T; also
    check it moves the read toward the target (returns the gap, or inf if it did not)."""
    step = S - eta * np.outer(S @ x - y, x)
    delta = S + eta * np.outer(y - S @ x, x)
    if np.linalg.norm(step @ x - y) >= np.linalg.norm(S @ x - y):
        return float("inf")
    return float(np.max(np.abs(step - delta)))


# ----------------------------------------------------------------------------- the MLP as a memory


def relu(s):
    return np.maximum(s, 0.0)


def mlp_lookup(rng: np.random.Generator, d: int, hidden: int) -> dict:
    """A small ReLU MLP read as W2 relu(W1 x) and as a lookup (first-principles 805-809, mm 21)."""
    W1 = rng.standard_normal((hidden, d)) / np.sqrt(d)
    W2 = rng.standard_normal((d, hidden)) / np.sqrt(hidden)
    x = rng.standard_normal(d)
    scores = W1 @ x
    weights = relu(scores)
    by_units = sum(W2[:, i] * weights[i] for i in range(hidden))
    out = W2 @ relu(W1 @ x)
    linear = sum(W2[:, i] * scores[i] for i in range(hidden))
    return {
        "mlp_keys": W1,
        "mlp_values": W2.T,
        "mlp_x": x,
        "mlp_scores": scores,
        "mlp_weights": weights,
        "mlp_out": out,
        "mlp_sum_gap": float(np.max(np.abs(out - by_units))),
        "mlp_linear_gap": float(np.max(np.abs(W2 @ W1 @ x - linear))),
    }


def parameter_counts(d_model: int) -> dict:
    """Numbers stored by an MLP of width 4d (two matrices) against attention's four d x d
    matrices, and a three-matrix gated MLP of width 8d/3 against the two-matrix one
    (first-principles line 811, memory-math line 26)."""
    d_h = 4 * d_model
    mlp = d_model * d_h + d_h * d_model
    attn = 4 * d_model * d_model
    gated_hidden = 2 * d_h // 3
    gated = 3 * d_model * gated_hidden
    return {
        "mlp_numbers_per_unit": (mlp / d_h) / d_model,
        "mlp_share_of_block": mlp / (mlp + attn),
        "mlp_over_d2": mlp / d_model**2,
        "attn_over_d2": attn / d_model**2,
        "gated_hidden_over_d": gated_hidden / d_model,
        "gated_over_two_matrix": gated / mlp,
        "gated_over_d2": gated / d_model**2,
    }


def gating_facts() -> dict:
    """ReLU(s)^2 = ReLU(s) s on a fine grid, and what squaring does to a similarity of 0.1 and
    to the stored key's own similarity of 1 (memory-math line 26)."""
    s = np.linspace(-1.0, 1.0, 2001)
    return {
        "gate_identity_gap": float(np.max(np.abs(relu(s) ** 2 - relu(s) * s))),
        "relu2_of_tenth": float(relu(0.1) ** 2),
        "relu2_of_one": float(relu(1.0) ** 2),
    }


# ----------------------------------------------------------------------------- the one-fact edit


def edit_directions(Sigma: np.ndarray, kstar: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Row vectors u of the preconditioned and the naive edit Delta = r u^T (both give
    Delta k* = r)."""
    pre = np.linalg.solve(Sigma, kstar)
    return pre / (kstar @ pre), kstar / (kstar @ kstar)


def edit_cost(u: np.ndarray, Sigma: np.ndarray, r: np.ndarray) -> float:
    """tr(Delta Sigma Delta^T) for Delta = r u^T: the mean squared change on typical keys."""
    Delta = np.outer(r, u)
    return float(np.trace(Delta @ Sigma @ Delta.T))


def naive_over_optimal(Sigma: np.ndarray, kstar: np.ndarray) -> float:
    """(k*^T Sigma k*)(k*^T Sigma^{-1} k*) / (k*^T k*)^2."""
    return float(
        (kstar @ Sigma @ kstar) * (kstar @ np.linalg.solve(Sigma, kstar)) / (kstar @ kstar) ** 2
    )


def uneven_sigma(d: int, unevenness: float) -> np.ndarray:
    """diag(1, e^{-u/(d-1)}, ..., e^{-u}) rescaled to trace d (mean square of a key fixed);
    u = 4 at d = 8 is the note's Check up to the scale, which the ratio does not see."""
    lam = np.exp(-unevenness * np.arange(d) / (d - 1))
    return np.diag(lam * d / lam.sum())


def edit_plane(Sigma: np.ndarray, kstar: np.ndarray) -> np.ndarray:
    """Orthonormal basis (d x 2) of the plane of k* and Sigma^{-1} k* (first axis along k*);
    when the two coincide, the second axis is an arbitrary fixed orthogonal direction."""
    a = kstar / np.linalg.norm(kstar)
    b = np.linalg.solve(Sigma, kstar)
    b = b - (b @ a) * a
    if np.linalg.norm(b) < 1e-9:
        b = np.zeros_like(a)
        b[0], b[-1] = 1.0, -1.0
        b = b - (b @ a) * a
    return np.stack([a, b / np.linalg.norm(b)], axis=1)


def axis_angle_deg(x: np.ndarray, y: np.ndarray) -> float:
    """Angle between two lines (0 to 90 degrees)."""
    c = abs(x @ y) / (np.linalg.norm(x) * np.linalg.norm(y))
    return float(np.degrees(np.arccos(min(1.0, c))))


def edit_sweep(d: int, levels: np.ndarray, n_typical: int, rng: np.random.Generator) -> dict:
    """Over unevenness u: the cost ratio, the expected per-key changes of both edits, ten
    typical keys (one fixed draw z, keys = Sigma^{1/2} z) and the change each edit makes on
    them, and the angle in the edit plane between the long axis of the key cloud and the line
    the preconditioned edit leaves unchanged (perpendicular to Sigma^{-1} k*). The figure of
    first-principles line 860."""
    kstar = np.ones(d)
    r = np.zeros(d)
    r[0] = 1.0  # |r| = 1: costs are per unit of the needed change
    z = rng.standard_normal((n_typical, d))
    out = {k: [] for k in ("ratio", "naive", "opt", "angle", "keys", "nchg", "ochg", "violet")}
    for u in levels:  # a handful of positions of the figure's handle
        Sigma = uneven_sigma(d, u)
        pre, naive = edit_directions(Sigma, kstar)
        keys = z * np.sqrt(np.diag(Sigma))
        B = edit_plane(Sigma, kstar)
        w, vecs = np.linalg.eigh(B.T @ Sigma @ B)
        violet = B.T @ pre
        null_line = np.array([-violet[1], violet[0]])
        round_cloud = w[-1] - w[0] < 1e-9
        out["ratio"].append(naive_over_optimal(Sigma, kstar))
        out["naive"].append(edit_cost(naive, Sigma, r))
        out["opt"].append(edit_cost(pre, Sigma, r))
        out["angle"].append(float("nan") if round_cloud else axis_angle_deg(vecs[:, -1], null_line))
        out["keys"].append(keys @ B)
        out["nchg"].append(np.abs(keys @ naive))
        out["ochg"].append(np.abs(keys @ pre))
        out["violet"].append(violet / np.linalg.norm(violet))
    angle = np.array(out["angle"])
    return {
        "sweep_ratio": np.array(out["ratio"]),
        "sweep_naive_cost": np.array(out["naive"]),
        "sweep_opt_cost": np.array(out["opt"]),
        "sweep_angle": angle,
        "sweep_keys_plane": np.array(out["keys"]),
        "sweep_naive_change": np.array(out["nchg"]),
        "sweep_opt_change": np.array(out["ochg"]),
        "sweep_violet_dir": np.array(out["violet"]),
        "sweep_naive_total": np.array(out["nchg"]).sum(axis=1),
        "sweep_opt_total": np.array(out["ochg"]).sum(axis=1),
        "angle_within_10_from": _first_below(levels, angle, 10.0),
        "naive_cost_spread": float(np.ptp(out["naive"])),
        "opt_cost_decreasing": float(np.all(np.diff(out["opt"]) <= 1e-12)),
    }


def _first_below(x: np.ndarray, y: np.ndarray, level: float) -> float:
    """First x where y drops to ``level`` and stays there, linearly interpolated."""
    ok = np.where(np.isnan(y), False, y <= level)
    if not ok[-1]:
        return float("nan")
    i = len(ok) - 1
    while i > 0 and ok[i - 1]:
        i -= 1
    if i == 0:
        return float(x[0])
    x0, x1, y0, y1 = x[i - 1], x[i], y[i - 1], y[i]
    return float(x0 + (level - y0) * (x1 - x0) / (y1 - y0))


class EditCase(NamedTuple):
    """The Check's edit: Sigma and k* as printed, a random W and v*, the change r = v* - W k*,
    and the rows u of the preconditioned and the naive edit Delta = r u^T."""

    Sigma: np.ndarray
    kstar: np.ndarray
    W: np.ndarray
    vstar: np.ndarray
    r: np.ndarray
    pre: np.ndarray
    naive: np.ndarray


def check_edit_case(d: int, unevenness: float, rng) -> EditCase:
    """The Check's Sigma and k* with a random W and v* (first-principles lines 813-821, 859)."""
    lam = np.exp(-unevenness * np.arange(d) / (d - 1))
    Sigma = np.diag(lam)  # the Check's matrix as printed (first-principles line 859)
    kstar = np.ones(d)
    W = rng.standard_normal((d, d))
    vstar = rng.standard_normal(d)
    pre, naive = edit_directions(Sigma, kstar)
    return EditCase(Sigma, kstar, W, vstar, vstar - W @ kstar, pre, naive)


def edit_closed_forms(case: EditCase) -> dict:
    """Both edits hit v*, their costs and ratio match Steps 5-6 (first-principles 827-859)."""
    Sigma, kstar, W, vstar, r, pre, naive = case
    D_opt, D_naive = np.outer(r, pre), np.outer(r, naive)
    kinv = kstar @ np.linalg.solve(Sigma, kstar)
    opt_cost, naive_cost = edit_cost(pre, Sigma, r), edit_cost(naive, Sigma, r)
    return {
        "edit_ratio_check": naive_over_optimal(Sigma, kstar),
        "edit_ratio_identity": naive_over_optimal(np.eye(len(kstar)), kstar),
        "edit_identity_same": float(
            np.max(np.abs(np.subtract(*edit_directions(np.eye(len(kstar)), kstar))))
        ),
        "edit_hits_target": float(np.max(np.abs((W + D_opt) @ kstar - vstar))),
        "naive_hits_target": float(np.max(np.abs((W + D_naive) @ kstar - vstar))),
        "edit_rank": float(np.linalg.matrix_rank(D_opt)),
        "edit_opt_cost_gap": abs(opt_cost - (r @ r) / kinv),
        "edit_naive_cost_gap": abs(
            naive_cost - (r @ r) * (kstar @ Sigma @ kstar) / (kstar @ kstar) ** 2
        ),
        "edit_cost_over_ratio_gap": abs(naive_cost / opt_cost - naive_over_optimal(Sigma, kstar)),
        "edit_stationarity_gap": _stationarity_gap(D_opt, Sigma, kstar),
    }


def edit_perturbations(case: EditCase, n_perturb: int, rng) -> dict:
    """No feasible change E k* = 0 lowers the edit's cost (first-principles lines 828-847)."""
    Sigma, kstar, r, pre = case.Sigma, case.kstar, case.r, case.pre
    d = len(kstar)
    E = rng.standard_normal((n_perturb, d, d))
    E -= np.einsum("nij,j->ni", E, kstar)[:, :, None] * kstar[None, None, :] / (kstar @ kstar)
    scale = rng.uniform(1e-3, 1.0, n_perturb)[:, None, None]
    cand = np.outer(r, pre)[None] + scale * E
    costs = np.einsum("nij,jk,nik->n", cand, Sigma, cand)
    return {"edit_perturbed_min_excess": float(np.min(costs - edit_cost(pre, Sigma, r)))}


def cauchy_schwarz_ratios(d: int, n_random: int, rng) -> dict:
    """The naive/optimal ratio is >= 1, and 1 at an eigenvector (first-principles line 858)."""
    A = rng.standard_normal((n_random, d, d))
    S_rand = A @ np.swapaxes(A, 1, 2) + 1e-3 * np.eye(d)
    k_rand = rng.standard_normal((n_random, d))
    num = np.einsum("ni,nij,nj->n", k_rand, S_rand, k_rand) * np.einsum(
        "ni,ni->n", k_rand, np.linalg.solve(S_rand, k_rand[..., None])[..., 0]
    )
    ratios = num / np.einsum("ni,ni->n", k_rand, k_rand) ** 2
    _, vecs = np.linalg.eigh(S_rand[0])
    return {
        "cs_min_ratio": float(ratios.min()),
        "cs_eigen_ratio": naive_over_optimal(S_rand[0], vecs[:, 0]),
    }


def edit_objective(case: EditCase, rng) -> dict:
    """Mean |Delta k|^2 over sample keys is tr(Delta C Delta^T) (memory-math D17, line 68)."""
    D_opt = np.outer(case.r, case.pre)
    keys = rng.standard_normal((50, len(case.kstar)))
    C = keys.T @ keys / len(keys)
    objective = np.mean(np.sum((keys @ D_opt.T) ** 2, axis=1))
    return {"edit_objective_gap": float(abs(objective - np.trace(D_opt @ C @ D_opt.T)))}


def second_moment_ranks(d: int, rng) -> dict:
    """Sigma from fewer than d sample keys is singular, from more it is not (memory-math D17)."""
    samples_few = rng.standard_normal((d - 1, d))
    samples_more = rng.standard_normal((d + 1, d))
    return {
        "second_moment_rank_few": float(np.linalg.matrix_rank(samples_few.T @ samples_few)),
        "second_moment_rank_more": float(np.linalg.matrix_rank(samples_more.T @ samples_more)),
    }


def _stationarity_gap(D: np.ndarray, Sigma: np.ndarray, kstar: np.ndarray) -> float:
    """D Sigma must be lambda k*^T for some lambda: its residual off the k* direction."""
    M = D @ Sigma
    lam = M @ kstar / (kstar @ kstar)
    return float(np.max(np.abs(M - np.outer(lam, kstar))))


def whitened_query_gap(rng: np.random.Generator, d: int, m: int) -> float:
    """Least-squares read of q = Hebbian read of the whitened (K^T K)^{-1} q (memory-math 15)."""
    K = unit_rows(rng, (m, d))
    V = unit_rows(rng, (m, d))
    q = rng.standard_normal(d)
    lsq = least_squares_store(K, V) @ q
    hebb_white = hebbian_store(K, V) @ np.linalg.solve(K.T @ K, q)
    return float(np.max(np.abs(lsq - hebb_white)))


def capacity_facts(rng: np.random.Generator, d: int) -> dict:
    """Exact recall with orthonormal keys; least squares exact up to d random pairs and not
    beyond (smallest achievable summed squared error at m = d and at m = d + 1). First-principles
    lines 746-751 and 788."""
    Q, _ = np.linalg.qr(rng.standard_normal((d, d)))
    V = unit_rows(rng, (d, d))
    hebb = reads(hebbian_store(Q.T, V), Q.T)
    out = {"orthonormal_recall_error": float(np.max(np.abs(hebb - V)))}
    for name, m in (("at_d", d), ("past_d", d + 1)):
        K = unit_rows(rng, (m, d))
        Vm = unit_rows(rng, (m, d))
        resid = reads(least_squares_store(K, Vm), K) - Vm
        out[f"lsq_min_sse_{name}"] = float(np.sum(resid**2))
        # the same least error found by a generic solver (no closed form), same pairs
        out[f"lsq_solver_min_sse_{name}"] = float(np.sum((reads(solver_store(K, Vm), K) - Vm) ** 2))
    out["store_numbers"] = float(d * d)
    return out


@experiment(
    params={
        "d_edit": integer(min=2, doc="key dimension of the edit"),
        "unevenness_check": real(min=0, doc="decay of the Check's spectrum", max=300),
        "unevenness_max": real(gt=0, doc="end of the sweep", work=True, memory=True, max=300),
        "unevenness_step": real(gt=0, doc="sweep step", work=-1, memory=-1),
        "n_typical": integer(min=1, doc="typical keys drawn in the figure"),
        "n_perturb": integer(min=1, doc="feasible perturbations tried", memory=True),
        "n_random": integer(min=1, doc="random (Sigma, k*) pairs"),
        "grad_rows": integer(min=1),
        "grad_cols": integer(min=1),
        "fd_step": real(gt=0, doc="finite-difference step"),
        "mlp_d": integer(min=1, doc="width of the example MLP"),
        "mlp_hidden": integer(min=1, doc="hidden units of the example MLP"),
        "d_model": integer(min=3, doc="width for the parameter counts"),
    },
    outputs=(
        Output("three_hebb_store", "Hebbian store of the three printed pairs", dims=("axis",)),
        Output("three_hebb_reads", "its reads of the three keys", dims=("pair3",)),
        Output("three_hebb_extra_k1", "v3 (k3 . k1), the extra in the read of k1"),
        Output("three_hebb_sse", "Hebbian summed squared error, three pairs"),
        Output("three_gram", "K^T K of the three keys", dims=("axis", "axis2")),
        Output("three_lsq_store", "least-squares store of the three pairs", dims=("axis",)),
        Output("three_lsq_reads", "its reads of the three keys", dims=("pair3",)),
        Output("three_lsq_sse", "least-squares summed squared error, three pairs"),
        Output("three_hebb_over_lsq", "Hebbian over least-squares summed error"),
        Output("grad_sq_gap", "finite differences vs e x^T, squared-error loss"),
        Output("grad_hebb_gap", "finite differences vs -v k^T, Hebbian loss"),
        Output("grad_general_gap", "finite differences vs ybar x^T, cross-entropy loss"),
        Output("delta_step_gap", "gradient step minus delta write"),
        Output("mlp_keys", "MLP example: rows of W1 (keys)", dims=("unit", "feature")),
        Output("mlp_values", "MLP example: columns of W2 (values)", dims=("unit", "feature")),
        Output("mlp_x", "MLP example: input", dims=("feature",)),
        Output("mlp_scores", "MLP example: similarity of the input to each key", dims=("unit",)),
        Output("mlp_weights", "MLP example: ReLU of each similarity", dims=("unit",)),
        Output("mlp_out", "MLP example: output W2 relu(W1 x)", dims=("feature",)),
        Output("mlp_sum_gap", "W2 relu(W1 x) minus sum_i v_i relu(k_i . x)"),
        Output("mlp_linear_gap", "W2 W1 x minus sum_i v_i (k_i . x)"),
        Output("mlp_numbers_per_unit", "numbers per hidden unit, in units of d"),
        Output("mlp_share_of_block", "MLP share of a block's matrices (width 4d)"),
        Output("mlp_over_d2", "numbers in a width-4d MLP over d^2"),
        Output("attn_over_d2", "numbers in attention's four matrices over d^2"),
        Output("gated_hidden_over_d", "hidden width of the equal-size gated MLP over d"),
        Output("gated_over_two_matrix", "gated three-matrix MLP over two-matrix MLP numbers"),
        Output("gated_over_d2", "numbers in the gated MLP of width 8d/3 over d^2"),
        Output("prompt_next_position", "position of the word after the D1 prompt", "tokens"),
        Output("prompt_words_between", "words between position 0 and that position", "tokens"),
        Output("edit_objective_gap", "mean |Delta k|^2 over keys minus tr(Delta C Delta^T)"),
        Output("gate_identity_gap", "largest |ReLU(s)^2 - ReLU(s) s| on [-1, 1]"),
        Output("relu2_of_tenth", "ReLU(0.1)^2"),
        Output("relu2_of_one", "ReLU(1)^2, the stored key's own overlap squared"),
        Output("edit_ratio_check", "naive over preconditioned edit cost, the note's Check"),
        Output("edit_ratio_identity", "the same ratio with Sigma = I"),
        Output("edit_identity_same", "largest difference of the two edit keys at Sigma = I"),
        Output("edit_hits_target", "largest |W' k* - v*|, preconditioned edit"),
        Output("naive_hits_target", "largest |W' k* - v*|, naive edit"),
        Output("edit_rank", "rank of the preconditioned edit"),
        Output("edit_opt_cost_gap", "cost minus |r|^2/(k*^T Sigma^-1 k*)"),
        Output("edit_naive_cost_gap", "naive cost minus its closed form"),
        Output("edit_cost_over_ratio_gap", "cost ratio minus the closed-form ratio"),
        Output("edit_perturbed_min_excess", "least cost increase over feasible perturbations"),
        Output("edit_stationarity_gap", "residual of Delta Sigma = lambda k*^T"),
        Output("cs_min_ratio", "smallest naive/optimal ratio over random Sigma and k*"),
        Output("cs_eigen_ratio", "the ratio when k* is an eigenvector of Sigma"),
        Output("second_moment_rank_few", "rank of a second-moment matrix from d-1 samples"),
        Output("second_moment_rank_more", "rank of a second-moment matrix from d+1 samples"),
        Output("sweep_ratio", "naive over preconditioned cost", dims=("unevenness",)),
        Output(
            "sweep_naive_cost", "expected squared change of a key, naive edit", dims=("unevenness",)
        ),
        Output(
            "sweep_opt_cost",
            "expected squared change of a key, preconditioned",
            dims=("unevenness",),
        ),
        Output(
            "sweep_angle",
            "long axis of the cloud vs the edit's null line",
            "degrees",
            ("unevenness",),
        ),
        Output(
            "sweep_keys_plane",
            "typical keys in the edit plane",
            dims=("unevenness", "key", "plane_axis"),
        ),
        Output(
            "sweep_naive_change",
            "change of each typical key, naive edit",
            dims=("unevenness", "key"),
        ),
        Output(
            "sweep_opt_change",
            "change of each typical key, preconditioned",
            dims=("unevenness", "key"),
        ),
        Output(
            "sweep_violet_dir",
            "preconditioned key direction in the plane",
            dims=("unevenness", "plane_axis"),
        ),
        Output(
            "sweep_naive_total", "total change over the typical keys, naive", dims=("unevenness",)
        ),
        Output(
            "sweep_opt_total",
            "total change over the typical keys, preconditioned",
            dims=("unevenness",),
        ),
        Output("angle_within_10_from", "unevenness from which the angle stays under 10 degrees"),
        Output("naive_cost_spread", "range of the naive expected cost over the sweep"),
        Output("opt_cost_decreasing", "1 if the preconditioned cost falls along the sweep"),
        Output("orthonormal_recall_error", "largest Hebbian read error, d orthonormal keys"),
        Output("lsq_min_sse_at_d", "least summed squared error of d random pairs"),
        Output("lsq_min_sse_past_d", "least summed squared error of d+1 random pairs"),
        Output(
            "lsq_solver_min_sse_at_d", "least summed squared error of d random pairs, numpy lstsq"
        ),
        Output(
            "lsq_solver_min_sse_past_d",
            "least summed squared error of d+1 random pairs, numpy lstsq",
        ),
        Output("store_numbers", "numbers in a d x d store"),
        Output(
            "edit_mc_sq_change_over_trace",
            "mean |Delta k|^2 over fresh keys with second moment Sigma over tr(Delta Sigma "
            "Delta^T), random Delta and Sigma",
            dims=("edit_rep",),
        ),
        Output(
            "edit_mc_opt_over_closed",
            "mean |Delta k|^2 of the preconditioned edit over |r|^2/(k*^T Sigma^-1 k*)",
            dims=("edit_rep",),
        ),
        Output(
            "edit_mc_naive_over_closed",
            "mean |Delta k|^2 of the naive edit over |r|^2 k*^T Sigma k*/(k*^T k*)^2",
            dims=("edit_rep",),
        ),
        Output("whitened_query_gap", "least-squares read minus Hebbian read of a whitened query"),
    ),
    coords={
        "key": coord("typical key of the sweep (0 first)"),
        "feature": coord("input feature of the example MLP (0 first)"),
        "unit": coord("hidden unit of the example MLP (0 first)"),
        "unevenness": coord(
            "decay rate u of the key covariance spectrum, eigenvalues exp(-u i/(d-1))",
            lambda **p: unevenness_levels(p["unevenness_max"], p["unevenness_step"]),
        ),
        "axis": coord("coordinate of the two-dimensional keys (1 first)", [1, 2]),
        "axis2": coord("second coordinate of the Gram matrix (1 first)", [1, 2]),
        "pair3": coord("one of the three printed pairs (1 first)", [1, 2, 3]),
        "plane_axis": coord("axis of the plane of the edit", ["along_kstar", "across"]),
        "edit_rep": coord(
            "independent replicate of the Monte Carlo edit check", list(range(EDIT_MC_REPS))
        ),
    },
    replicates=("edit_rep",),
    sections=(
        "first-principles D1: worked example, capacity bound, gradient Check (lines 784-802)",
        "first-principles D2: MLP as memory, the rank-one edit, Check and figure (804-860)",
        "memory-math ch5 (lines 20-26), D14, D17 (line 68)",
    ),
)
def memory_edit_checks(
    d_edit: int,
    unevenness_check: float,
    unevenness_max: float,
    unevenness_step: float,
    n_typical: int,
    n_perturb: int,
    n_random: int,
    grad_rows: int,
    grad_cols: int,
    fd_step: float,
    mlp_d: int,
    mlp_hidden: int,
    d_model: int,
    rng,
) -> dict:
    """Every exact check of the slice that needs no grid, and the edit figure's sweep. The parts
    draw from ``rng`` in this order."""
    levels = unevenness_levels(unevenness_max, unevenness_step)
    out = {}
    out.update(three_pairs())
    out.update(prompt_positions())
    out.update(gradient_checks(rng, grad_rows, grad_cols, fd_step))
    out.update(mlp_lookup(rng, mlp_d, mlp_hidden))
    out.update(parameter_counts(d_model))
    out.update(gating_facts())
    case = check_edit_case(d_edit, unevenness_check, rng)
    out.update(edit_closed_forms(case))
    out.update(edit_perturbations(case, n_perturb, rng))
    out.update(cauchy_schwarz_ratios(d_edit, n_random, rng))
    out.update(edit_objective(case, rng))
    out.update(second_moment_ranks(d_edit, rng))
    out.update(edit_sweep(d_edit, levels, n_typical, rng))
    out.update(capacity_facts(rng, d_edit))
    out["whitened_query_gap"] = whitened_query_gap(rng, d_edit, 3 * d_edit)
    # drawn last, so that every value above keeps its draws
    out.update(edit_cost_monte_carlo(rng, d_edit, unevenness_check))
    return out


def edit_cost_monte_carlo(
    rng, d: int, unevenness: float, reps: int = EDIT_MC_REPS, n_keys: int = EDIT_MC_KEYS
) -> dict:
    """Mean |Delta k|^2 over fresh Gaussian keys k drawn with second moment Sigma (not the
    keys of any matrix used in the formulas), per replicate, over (i) tr(Delta Sigma Delta^T)
    for a random Delta and a random symmetric positive definite Sigma in R^d, and over the
    closed-form costs of Step 5 at the Check's Sigma = diag(e^{-u i/(d-1)}), k* = (1, ..., 1)
    and a random r: (ii) |r|^2 / (k*^T Sigma^-1 k*) for the preconditioned edit, (iii)
    |r|^2 k*^T Sigma k* / (k*^T k*)^2 for the naive one. Each ratio should be 1. First-principles
    lines 813-817 and 849-853, memory-math D17 (line 68)."""
    A = rng.standard_normal((d, d))
    sigma_g = A @ A.T / d + 0.1 * np.eye(d)
    delta_g = rng.standard_normal((d, d))
    trace_g = float(np.trace(delta_g @ sigma_g @ delta_g.T))
    chol_g = np.linalg.cholesky(sigma_g)
    lam = np.exp(-unevenness * np.arange(d) / (d - 1))
    kstar = np.ones(d)
    r = rng.standard_normal(d)
    pre, naive = edit_directions(np.diag(lam), kstar)
    opt_closed = (r @ r) / np.sum(kstar**2 / lam)
    naive_closed = (r @ r) * np.sum(lam * kstar**2) / (kstar @ kstar) ** 2
    ratios = {"trace": [], "opt": [], "naive": []}
    for _ in range(reps):
        kg = rng.standard_normal((n_keys, d)) @ chol_g.T
        ratios["trace"].append(np.mean(np.sum((kg @ delta_g.T) ** 2, axis=1)) / trace_g)
        kc = rng.standard_normal((n_keys, d)) * np.sqrt(lam)
        ratios["opt"].append(np.mean(np.sum((kc @ np.outer(r, pre).T) ** 2, axis=1)) / opt_closed)
        ratios["naive"].append(
            np.mean(np.sum((kc @ np.outer(r, naive).T) ** 2, axis=1)) / naive_closed
        )
    return {
        "edit_mc_sq_change_over_trace": np.array(ratios["trace"]),
        "edit_mc_opt_over_closed": np.array(ratios["opt"]),
        "edit_mc_naive_over_closed": np.array(ratios["naive"]),
    }


def unevenness_levels(unevenness_max: float, unevenness_step: float) -> list[float]:
    """Positions of the edit figure's handle."""
    n = int(round(unevenness_max / unevenness_step))
    return [round(i * unevenness_step, 10) for i in range(n + 1)]
