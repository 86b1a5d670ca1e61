"""The linear algebra under attention (memory-math prologue, chapters 0-2, D4, D20, appendix A
and exercise 2 of chapter 17).

Three experiments, each one random draw per seed:

- ``matrix_readings``: a matrix times a vector by rows and by columns, a matrix times a matrix
  in its four readings (entry, row, column, outer), the partial sums of outer products, where
  attention uses each reading, the one-equation form of an MLP and of attention, and the share of
  a layer's parameters in its MLP.
- ``eckart_young``: the truncated SVD against random rank-r competitors, the discarded-energy
  identity, Weyl's inequality and the steps of the D4 proof, the energy kept by the first terms
  of a structured 8 x 8 pattern, and how many independent pairs a rank-r matrix can hold.
- ``linalg_toolkit``: the facts of appendix A and the eight facts of D20 on random matrices,
  each with a case where a stated condition fails, so the check can fail.

The notes print none of these matrices; every draw is ours (see the registry's readings).
"""

from __future__ import annotations

import itertools

import numpy as np

from ..spec import Output, coord, experiment, integer, require, seeds
from .softmax import softmax

RTOL = 1e-9  # relative singular-value cut for a numerical rank


# ----------------------------------------------------------------------------- helpers


def rank(a: np.ndarray) -> int:
    """Numerical rank: singular values above RTOL times the largest."""
    s = np.linalg.svd(np.atleast_2d(a), compute_uv=False)
    return int(np.sum(s > RTOL * max(float(s[0]) if s.size else 0.0, 1e-300)))


def rel_gap(a, b) -> float:
    """Largest entry of |a - b| relative to the largest entry of |b| (0 when equal)."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    return float(np.max(np.abs(a - b)) / max(1.0, float(np.max(np.abs(b)))))


def low_rank(rng, m: int, n: int, r: int) -> np.ndarray:
    """A random m x n matrix of rank r (product of Gaussian factors)."""
    return rng.standard_normal((m, r)) @ rng.standard_normal((r, n))


def truncate(a: np.ndarray, r: int) -> np.ndarray:
    """The first r terms of the SVD of a."""
    u, s, vt = np.linalg.svd(a, full_matrices=False)
    return (u[:, :r] * s[:r]) @ vt[:r]


# ----------------------------------------------------------------------------- chapter 1


def matvec_readings(w: np.ndarray, x: np.ndarray) -> dict:
    """y = W x three ways: directly, one row against x at a time, and as a sum of the columns
    weighted by the coordinates of x."""
    by_rows = np.array([float(row @ x) for row in w])
    contributions = w * x[None, :]  # column j scaled by x_j
    return {
        "y": w @ x,
        "rows": by_rows,
        "columns": contributions.sum(axis=1),
        "parts": contributions,
    }


def x1_sweep(w: np.ndarray, x: np.ndarray, values: np.ndarray) -> dict:
    """The chapter-1 widget as a sweep: move the first coordinate of x over ``values``."""
    ys, parts = [], []
    for v in values:
        xv = x.copy()
        xv[0] = v
        out = matvec_readings(w, xv)
        ys.append(out["rows"])
        parts.append(out["parts"])
    return {"y": np.array(ys), "parts": np.array(parts)}  # (value, row), (value, row, column)


# ----------------------------------------------------------------------------- chapter 2


def four_readings(a: np.ndarray, b: np.ndarray) -> dict:
    """C = A B computed as the note's four groupings of the same triple sum."""
    m, r = a.shape
    n = b.shape[1]
    entry = np.array([[a[i] @ b[:, j] for j in range(n)] for i in range(m)])
    row = np.array([sum(a[i, k] * b[k] for k in range(r)) for i in range(m)])
    column = np.array([sum(b[k, j] * a[:, k] for k in range(r)) for j in range(n)]).T
    terms = np.array([np.outer(a[:, k], b[k]) for k in range(r)])
    return {"entry": entry, "row": row, "column": column, "outer": terms.sum(0), "terms": terms}


def attention_readings(rng, n: int = 6, d_k: int = 3, d_v: int = 2, heads: int = 3) -> dict:
    """Where attention uses each reading: scores Q K^T (entry), output A V (row), a memory
    V^T K (outer), and an output projection that adds the heads (column)."""
    q, k = rng.standard_normal((n, d_k)), rng.standard_normal((n, d_k))
    v = rng.standard_normal((n, d_v))
    scores = q @ k.T
    entry = np.array([[q[i] @ k[j] for j in range(n)] for i in range(n)])
    att = np.exp(scores - scores.max(1, keepdims=True))
    att /= att.sum(1, keepdims=True)
    mix = np.array([sum(att[i, j] * v[j] for j in range(n)) for i in range(n)])
    memory = sum(np.outer(v[i], k[i]) for i in range(n))
    # One token's concatenated head outputs o (heads * d_v) through W_O (d x heads*d_v).
    d = 5
    o = rng.standard_normal(heads * d_v)
    w_o = rng.standard_normal((d, heads * d_v))
    by_head = sum(
        w_o[:, h * d_v : (h + 1) * d_v] @ o[h * d_v : (h + 1) * d_v] for h in range(heads)
    )
    by_column = sum(o[c] * w_o[:, c] for c in range(heads * d_v))
    return {
        "score_entry_gap": rel_gap(entry, scores),
        "output_row_gap": rel_gap(mix, att @ v),
        "memory_outer_gap": rel_gap(memory, v.T @ k),
        "heads_column_gap": max(rel_gap(by_head, w_o @ o), rel_gap(by_column, w_o @ o)),
    }


def one_equation(rng, d: int = 6, m: int = 10, n: int = 7, d_v: int = 4) -> dict:
    """The prologue's one equation, a score-weighted sum of values: an MLP when the pairs are
    the rows of W_in and the columns of W_out (ReLU scores), attention when they are the tokens'
    keys and values (softmax over the scores)."""
    w_in, w_out = rng.standard_normal((m, d)), rng.standard_normal((d, m))
    q = rng.standard_normal(d)
    mlp = w_out @ np.maximum(w_in @ q, 0.0)
    pairs = sum(w_out[:, i] * max(float(w_in[i] @ q), 0.0) for i in range(m))
    keys, values = rng.standard_normal((n, d)), rng.standard_normal((n, d_v))
    weights = softmax(keys @ q)
    attention = weights @ values
    pairs_att = sum(values[i] * weights[i] for i in range(n))
    # Attention forgets the order of its pairs: permuting tokens permutes nothing in f(q).
    perm = rng.permutation(n)
    permuted = softmax(keys[perm] @ q) @ values[perm]
    return {
        "mlp_sum_gap": rel_gap(pairs, mlp),
        "attention_sum_gap": rel_gap(pairs_att, attention),
        "order_gap": rel_gap(permuted, attention),
    }


def mlp_parameter_share(width: int, expansion: int) -> dict:
    """Share of one layer's weights in its MLP, for a block with four d x d attention matrices
    and an MLP of hidden width expansion * d; without and with biases and two layer norms."""
    d, m = width, expansion * width
    attn, mlp = 4 * d * d, 2 * d * m
    attn_b, mlp_b = attn + 4 * d + 2 * d, mlp + m + d  # attention biases + its layer norm
    mlp_b += 2 * d  # the MLP's layer norm
    return {"mlp_share": mlp / (attn + mlp), "mlp_share_biases": mlp_b / (attn_b + mlp_b)}


def sum_of_outer_products(rng, size: int, r: int) -> dict:
    """Exercise 2: r outer products alpha_k rho_k^T equal A B (alpha_k the columns of A, rho_k
    the rows of B), have rank at most r, and every column of the sum lies in the column space
    of A."""
    alphas = rng.standard_normal((r, size))
    rhos = rng.standard_normal((r, size))
    total = sum(np.outer(alphas[k], rhos[k]) for k in range(r))
    a, b = alphas.T, rhos  # size x r and r x size
    coef, *_ = np.linalg.lstsq(a, total, rcond=None)
    return {
        "gap": rel_gap(total, a @ b),
        "rank": float(rank(total)),
        "column_space_residual": rel_gap(a @ coef, total),
    }


def small_integers(rng, shape) -> np.ndarray:
    return rng.integers(-3, 4, size=shape).astype(float)


MATVEC_SHAPE = (3, 4)  # our W of the chapter-1 figure
X1_VALUES = np.round(np.linspace(-3.0, 3.0, 13), 10)  # the range of our integer entries
PRODUCT_SHAPE = (3, 4, 3)  # A is 3 x 4, B is 4 x 3: four outer products, as in line 9
OUTER_RANKS = tuple(range(1, 9))  # r outer products of size 8 (exercise 2)


@experiment(
    grid={"seed": seeds()},
    params={
        "width": integer(min=1),
        "expansion": integer(min=1),
    },
    outputs=(
        Output("matvec_row_gap", "W x by rows minus W x (relative)"),
        Output("matvec_column_gap", "W x as a sum of columns minus W x (relative)"),
        Output("w", "the matrix W of the chapter-1 figure", dims=("row", "column")),
        Output("x", "the vector x of the chapter-1 figure", dims=("column",)),
        Output("sweep_y", "W x as x_1 sweeps", dims=("x1_value", "row")),
        Output(
            "sweep_parts", "x_j times column j as x_1 sweeps", dims=("x1_value", "row", "column")
        ),
        Output("sweep_reading_gap", "rows minus summed columns over the sweep"),
        Output("sweep_outputs_moved", "share of outputs that change as x_1 moves"),
        Output("sweep_other_columns_moved", "largest change of x_j c_j, j > 1, as x_1 moves"),
        Output("a", "the matrix A of the chapter-2 figures", dims=("i", "k")),
        Output("b", "the matrix B of the chapter-2 figures", dims=("k", "j")),
        Output("c", "C = A B", dims=("i", "j")),
        Output("entry_gap", "entry reading minus A B (relative)"),
        Output("row_gap", "row reading minus A B (relative)"),
        Output("column_gap", "column reading minus A B (relative)"),
        Output("outer_gap", "outer reading minus A B (relative)"),
        Output("partial_sum", "sum of the first t outer products", dims=("terms", "i", "j")),
        Output("partial_residual", "Frobenius norm of A B minus the partial sum", dims=("terms",)),
        Output(
            "partial_rank_gaussian", "rank of the first t terms (Gaussian A, B)", dims=("terms",)
        ),
        Output("rank_one_rank", "rank of u v^T"),
        Output("rank_one_row_ratio_spread", "spread of the ratios row/v and column/u"),
        Output("svd_reconstruct_gap", "sum of SVD terms minus the matrix (relative)"),
        Output("svd_ordered", "1 if singular values are non-negative and descending"),
        Output("svd_orthonormal_gap", "U^T U - I and V^T V - I (largest entry)"),
        Output("score_entry_gap", "q_i . k_j minus (Q K^T)_ij"),
        Output("output_row_gap", "sum_j A_ij v_j minus (A V)_i"),
        Output("memory_outer_gap", "sum_i v_i k_i^T minus V^T K"),
        Output("heads_column_gap", "per-head sum and column sum minus W_O o"),
        Output("mlp_sum_gap", "sum_i v_i relu(k_i.q) minus W_out relu(W_in q)"),
        Output("attention_sum_gap", "sum_i v_i a_i minus softmax(K q)^T V"),
        Output("order_gap", "attention output change when the pairs are permuted"),
        Output("mlp_share", "MLP share of a layer's weight matrices"),
        Output("mlp_share_biases", "MLP share with biases and layer norms"),
        Output("outer_sum_gap", "r outer products minus A B (relative)", dims=("r",)),
        Output("outer_sum_rank", "rank of a sum of r random outer products (8 x 8)", dims=("r",)),
        Output(
            "outer_sum_column_residual",
            "part of the sum outside the column space of A",
            dims=("r",),
        ),
    ),
    coords={
        "j": coord("column of B and of C = A B (0 first)"),
        "k": coord("column of A, row of B (0 first)"),
        "i": coord("row of A and of C = A B (0 first)"),
        "column": coord("column of W, entry of x (0 first)"),
        "row": coord("row of the matrix W (0 first)"),
        "x1_value": coord("value of the first coordinate x_1 as it sweeps", X1_VALUES.tolist()),
        "r": coord("number of random outer products summed", list(OUTER_RANKS)),
        "terms": coord("outer products summed so far", [1, 2, 3, 4]),
    },
    sections=(
        "memory-math prologue: the one equation and the MLP share of parameters (lines 1-3)",
        "memory-math ch1: a matrix times a vector by rows and by columns (lines 5-7)",
        "memory-math ch2: four readings, rank, where attention uses each (lines 7-13)",
        "memory-math ch17 exercise 2 (lines 60-61)",
    ),
)
def matrix_readings(rng, seed: int, width: float, expansion: float) -> dict:
    """One draw of every reading of chapters 1-2 and the prologue."""
    w = small_integers(rng, MATVEC_SHAPE)
    w[w == 0] = 1.0  # every entry of the first column nonzero, so every output moves with x_1
    x = small_integers(rng, MATVEC_SHAPE[1])
    mv = matvec_readings(w, x)
    sweep = x1_sweep(w, x, X1_VALUES)
    moved = sweep["parts"] - sweep["parts"][X1_VALUES.size // 2]
    m, r, n = PRODUCT_SHAPE
    a, b = small_integers(rng, (m, r)), small_integers(rng, (r, n))
    ab = a @ b
    fr = four_readings(a, b)
    partial = np.cumsum(fr["terms"], axis=0)
    ga, gb = rng.standard_normal((m, r)), rng.standard_normal((r, n))
    gpartial = np.cumsum(np.array([np.outer(ga[:, k], gb[k]) for k in range(r)]), axis=0)
    ex2 = [sum_of_outer_products(rng, 8, k) for k in OUTER_RANKS]
    u, v = rng.standard_normal(5), rng.standard_normal(4)
    one = np.outer(u, v)
    g = rng.standard_normal((6, 4))
    uu, s, vt = np.linalg.svd(g, full_matrices=False)
    return {
        # chapter 1
        "matvec_row_gap": rel_gap(mv["rows"], mv["y"]),
        "matvec_column_gap": rel_gap(mv["columns"], mv["y"]),
        "w": w,
        "x": x,
        "sweep_y": sweep["y"],
        "sweep_parts": sweep["parts"],
        "sweep_reading_gap": rel_gap(sweep["parts"].sum(-1), sweep["y"]),
        "sweep_outputs_moved": float(np.mean(np.ptp(sweep["y"], axis=0) > 0)),
        "sweep_other_columns_moved": float(np.max(np.abs(moved[:, :, 1:]))),
        # chapter 2
        "a": a,
        "b": b,
        "c": ab,
        "entry_gap": rel_gap(fr["entry"], ab),
        "row_gap": rel_gap(fr["row"], ab),
        "column_gap": rel_gap(fr["column"], ab),
        "outer_gap": rel_gap(fr["outer"], ab),
        "partial_sum": partial,
        "partial_residual": np.linalg.norm(partial - ab, axis=(1, 2)),
        "partial_rank_gaussian": np.array([float(rank(p)) for p in gpartial]),
        "rank_one_rank": float(rank(one)),
        "rank_one_row_ratio_spread": float(np.ptp(one[:, 0] / u) + np.ptp(one[0] / v)),
        "svd_reconstruct_gap": rel_gap((uu * s) @ vt, g),
        "svd_ordered": float(np.all(np.diff(s) <= 0) and np.all(s >= 0)),
        "svd_orthonormal_gap": max(rel_gap(uu.T @ uu, np.eye(4)), rel_gap(vt @ vt.T, np.eye(4))),
        # where attention uses each reading
        **attention_readings(rng),
        # prologue
        **one_equation(rng),
        **mlp_parameter_share(int(width), int(expansion)),
        # exercise 2
        "outer_sum_gap": np.array([e["gap"] for e in ex2]),
        "outer_sum_rank": np.array([e["rank"] for e in ex2]),
        "outer_sum_column_residual": np.array([e["column_space_residual"] for e in ex2]),
    }


# ----------------------------------------------------------------------------- Eckart-Young


def pattern(size: int = 8, length: float = 2.0) -> np.ndarray:
    """Our structured pattern for the singular-value figure: a smooth Gaussian band."""
    i = np.arange(size)
    return np.exp(-((i[:, None] - i[None, :]) ** 2) / (2 * length**2))


def energy_kept(a: np.ndarray) -> np.ndarray:
    """Share of the squared Frobenius norm in the first k SVD terms, k = 0..min(shape)."""
    s2 = np.linalg.svd(a, compute_uv=False) ** 2
    return np.concatenate([[0.0], np.cumsum(s2) / s2.sum()])


def weyl_violation(rng, size: int, trials: int) -> float:
    """Largest mu_{i+j-1}(X+Y) - mu_i(X) - mu_j(Y) over random X, Y and all valid i, j (<= 0 if
    Weyl's inequality holds)."""
    worst = -np.inf
    for _ in range(trials):
        x, y = rng.standard_normal((2, size, size))
        sx, sy = np.linalg.svd(x, compute_uv=False), np.linalg.svd(y, compute_uv=False)
        sxy = np.linalg.svd(x + y, compute_uv=False)
        for i, j in itertools.product(range(size), repeat=2):
            if i + j < size:
                worst = max(worst, sxy[i + j] - sx[i] - sy[j])
    return float(worst)


@experiment(
    grid={"seed": seeds()},
    params={
        "size": integer(min=2, max=64, work=True, memory=2),
        "r": integer(min=1),
        "competitors": integer(min=1, work=True, memory=True),
    },
    constraints=(
        require(
            "r <= size",
            "the rank r of the truncation must be at most the matrix size",
            "r",
            "size",
        ),
    ),
    outputs=(
        Output("sv", "singular values of the random A", dims=("k",)),
        Output("energy_gap", "|A - A_k|_F^2 minus discarded energy (relative)", dims=("kept",)),
        Output("svd_error", "squared error of the truncated SVD"),
        Output("random_beats", "random rank-r competitors beating the truncated SVD"),
        Output("random_best_ratio", "best competitor error over the SVD error"),
        Output(
            "competitor_error", "squared errors of the random competitors", dims=("rank_order",)
        ),
        Output("local_beats", "perturbed SVD factors beating the truncated SVD"),
        Output("weyl_violation", "max of mu_{i+j-1}(X+Y) - mu_i(X) - mu_j(Y)"),
        Output("interlace_violation", "max of mu_{k+r}(A) - mu_k(A - B)"),
        Output("bound_slack", "min of |A - B|_F^2 minus the discarded energy"),
        Output("recall_error", "recall error of the best rank-r memory", dims=("pairs",)),
        Output("random_energy_kept", "energy share of the first terms (random A)", dims=("kept",)),
        Output("pattern_energy_kept", "energy share of the first terms (pattern)", dims=("kept",)),
        Output("pattern_sv", "singular values of the pattern", dims=("k",)),
        Output("pattern", "our structured 8 x 8 pattern", dims=("i", "j")),
        Output("pattern_truncated", "the pattern from its first terms", dims=("kept", "i", "j")),
    ),
    coords={
        "j": coord("column of the 8 x 8 pattern (0 first)"),
        "i": coord("row of the 8 x 8 pattern (0 first)"),
        "rank_order": coord("random competitor matrix of the same rank"),
        "kept": coord(
            "singular terms kept in the truncated matrix",
            lambda size, r, competitors: range(size + 1),
        ),
        "k": coord(
            "index of a singular value, largest first (1 first)",
            lambda size, r, competitors: range(1, size + 1),
        ),
        "pairs": coord(
            "number of key-value pairs stored", lambda size, r, competitors: range(1, size + 1)
        ),
    },
    sections=(
        "memory-math ch2: the SVD, Eckart-Young and its check, the figure (lines 10-13)",
        "memory-math D4 (line 11, line 68)",
    ),
)
def eckart_young(rng, seed: int, size: int, r: int, competitors: int) -> dict:
    """Truncated SVD against random rank-r matrices, and the steps of the D4 proof."""
    a = rng.standard_normal((size, size))
    s = np.linalg.svd(a, compute_uv=False)
    best = truncate(a, r)
    best_err = float(np.sum((a - best) ** 2))
    energy_gap = [
        abs(float(np.sum((a - truncate(a, k)) ** 2)) - float(np.sum(s[k:] ** 2))) / np.sum(s**2)
        for k in range(size + 1)
    ]
    # The note's competitors: products of random Gaussian factors, scaled to A's size by least
    # squares (the best multiple of each). Ours also perturb the SVD factors slightly.
    left = rng.standard_normal((competitors, size, r))
    right = rng.standard_normal((competitors, r, size))
    cand = left @ right
    scale = np.einsum("cij,ij->c", cand, a) / np.einsum("cij,cij->c", cand, cand)
    err_random = np.sum((a - scale[:, None, None] * cand) ** 2, axis=(1, 2))
    u, sv, vt = np.linalg.svd(a)
    lu = (u[:, :r] * sv[:r])[None] + 0.01 * rng.standard_normal((competitors, size, r))
    rv = vt[:r][None] + 0.01 * rng.standard_normal((competitors, r, size))
    err_local = np.sum((a - lu @ rv) ** 2, axis=(1, 2))
    # Proof steps: for random B of rank <= r, mu_{k+r}(A) <= mu_k(A - B), and the error bound.
    bs = rng.standard_normal((competitors, size, r)) @ rng.standard_normal((competitors, r, size))
    s_diff = np.linalg.svd(a[None] - bs, compute_uv=False)
    interlace = np.max(s[None, r:] - s_diff[:, : size - r])
    bound_slack = np.min(np.sum((a[None] - bs) ** 2, axis=(1, 2)) - np.sum(s[r:] ** 2))
    # How many independent pairs a rank-r matrix holds: orthonormal keys, random values; the
    # best rank-r W leaves the discarded energy of the values as recall error.
    keys = np.linalg.qr(rng.standard_normal((size, size)))[0]
    values = rng.standard_normal((size, size))
    recall = []
    for pairs in range(1, size + 1):
        target = values[:pairs].T  # d_v x pairs, W k_i = v_i for i < pairs
        w = truncate(target, r) @ keys[:, :pairs].T
        recall.append(float(np.sum((w @ keys[:, :pairs] - target) ** 2)))
    random_energy = energy_kept(a)
    return {
        "sv": s,
        "energy_gap": np.array(energy_gap),
        "svd_error": best_err,
        "random_beats": float(np.sum(err_random < best_err)),
        "random_best_ratio": float(np.min(err_random) / best_err),
        "competitor_error": np.sort(err_random),
        "local_beats": float(np.sum(err_local < best_err)),
        "weyl_violation": weyl_violation(rng, 6, 20),
        "interlace_violation": float(interlace),
        "bound_slack": float(bound_slack),
        "recall_error": np.array(recall),
        "random_energy_kept": random_energy,
        "pattern_energy_kept": energy_kept(pattern(size)),
        "pattern_sv": np.linalg.svd(pattern(size), compute_uv=False),
        "pattern": pattern(size),
        "pattern_truncated": np.array([truncate(pattern(size), k) for k in range(size + 1)]),
    }


# ----------------------------------------------------------------------------- appendix A, D20


def unit_vector_cosines(rng) -> dict:
    """Unit vectors: the dot product is the cosine of the angle; +1, 0, -1 at 0, 90, 180 deg."""
    theta = rng.uniform(0, 2 * np.pi, size=(2, 50))
    x = np.stack([np.cos(theta[0]), np.sin(theta[0])], -1)
    y = np.stack([np.cos(theta[1]), np.sin(theta[1])], -1)
    dots = np.sum(x * y, -1)
    e = np.array([1.0, 0.0])
    special = [e @ np.array([np.cos(t), np.sin(t)]) for t in (0.0, np.pi / 2, np.pi)]
    return {"cosine_gap": rel_gap(dots, np.cos(theta[0] - theta[1])), "special_dots": special}


def orthonormal_count(rng, n: int) -> float:
    """How many orthonormal vectors Gram-Schmidt extracts from n + 3 random vectors in R^n."""
    q, r_ = np.linalg.qr(rng.standard_normal((n, n + 3)))
    return float(rank(r_))


def projection_facts(rng, n: int = 7, k: int = 3) -> dict:
    """P = A (A^T A)^-1 A^T: symmetric, idempotent, trace = rank, nearest point of the column
    space; D20 (iv)-(v) on it and on an oblique projection (idempotent, not symmetric)."""
    a = rng.standard_normal((n, k))
    p = a @ np.linalg.solve(a.T @ a, a.T)
    b = rng.standard_normal(n)
    others = a @ rng.standard_normal((k, 500))  # random points of the column space
    closer = np.sum(np.linalg.norm(b[:, None] - others, axis=0) < np.linalg.norm(b - p @ b))
    c = rng.standard_normal((n, k))  # oblique: onto col(A) along the complement of col(C)
    q = a @ np.linalg.solve(c.T @ a, c.T)
    return {
        "proj_symmetric_gap": rel_gap(p, p.T),
        "proj_idempotent_gap": rel_gap(p @ p, p),
        "proj_trace": float(np.trace(p)),
        "proj_rank": float(rank(p)),
        "proj_closer_points": float(closer),
        "proj_residual_orthogonal": rel_gap(a.T @ (b - p @ b), np.zeros(k)),
        "proj_row_square_gap": rel_gap(np.sum(p**2, axis=1), np.diag(p)),
        "oblique_idempotent_gap": rel_gap(q @ q, q),
        "oblique_trace": float(np.trace(q)),
        "oblique_row_square_gap": rel_gap(np.sum(q**2, axis=1), np.diag(q)),
        "oblique_symmetric_gap": rel_gap(q, q.T),
    }


def solve_facts(rng) -> dict:
    """Inverse, least squares (normal equations), minimum-norm solutions, ridge."""
    n = 5
    a = rng.standard_normal((n, n))
    inv = np.linalg.inv(a)
    b = rng.standard_normal(n)
    singular = low_rank(rng, n, n, n - 1)
    tall, y = rng.standard_normal((9, 4)), rng.standard_normal(9)
    x_ls = np.linalg.solve(tall.T @ tall, tall.T @ y)
    wide, z = rng.standard_normal((4, 9)), rng.standard_normal(4)
    x_mn = wide.T @ np.linalg.solve(wide @ wide.T, z)
    null = np.eye(9) - np.linalg.pinv(wide) @ wide
    alts = x_mn[:, None] + null @ rng.standard_normal((9, 200))
    lam = 0.3
    x_ridge = np.linalg.solve(wide.T @ wide + lam * np.eye(9), wide.T @ z)
    ridge_grad = wide.T @ (wide @ x_ridge - z) + lam * x_ridge
    return {
        "inverse_gap": max(rel_gap(a @ inv, np.eye(n)), rel_gap(inv @ a, np.eye(n))),
        "solve_gap": rel_gap(a @ (inv @ b), b),
        "full_rank": float(rank(a)),
        "singular_rank": float(rank(singular)),
        "singular_min_sv": float(np.linalg.svd(singular, compute_uv=False)[-1]),
        "ls_gradient": rel_gap(tall.T @ (tall @ x_ls - y), np.zeros(4)),
        "ls_pinv_gap": rel_gap(x_ls, np.linalg.pinv(tall) @ y),
        # the minimiser found by an SVD least-squares solver, not by the normal equations
        "ls_lstsq_gradient": rel_gap(
            tall.T @ (tall @ np.linalg.lstsq(tall, y, rcond=None)[0] - y), np.zeros(4)
        ),
        "minnorm_solves_gap": rel_gap(wide @ x_mn, z),
        "minnorm_pinv_gap": rel_gap(x_mn, np.linalg.pinv(wide) @ z),
        "minnorm_beaten": float(
            np.sum(np.linalg.norm(alts, axis=0) < np.linalg.norm(x_mn) - 1e-12)
        ),
        "ridge_singular_rank": float(rank(wide.T @ wide)),
        "ridge_min_eig_over_lambda": float(np.linalg.eigvalsh(wide.T @ wide + lam * np.eye(9))[0])
        / lam,
        "ridge_gradient": rel_gap(ridge_grad, np.zeros(9)),
    }


def whitening_facts(rng, d: int = 4, n: int = 400) -> dict:
    """C^{-1/2} makes the second moment the identity; one factor C^{-1} inside an inner product
    equals the inner product of whitened vectors; C^{-1} alone on the vectors does not whiten."""
    mix = rng.standard_normal((d, d))
    x = rng.standard_normal((n, d)) @ mix.T
    c = x.T @ x / n
    evals, evecs = np.linalg.eigh(c)
    c_half_inv = (evecs / np.sqrt(evals)) @ evecs.T
    white = x @ c_half_inv
    k, q = x[:5], x[5:10]
    return {
        "whitened_moment_gap": rel_gap(white.T @ white / n, np.eye(d)),
        "one_factor_gap": rel_gap(
            k @ np.linalg.solve(c, q.T), (k @ c_half_inv) @ (q @ c_half_inv).T
        ),
        "inverse_only_moment_gap": rel_gap(
            np.linalg.solve(c, x.T) @ np.linalg.solve(c, x.T).T / n, np.eye(d)
        ),
    }


def expected_interference(coefs: np.ndarray, d: int, mean_shift: float) -> float:
    """E || sum_i c_i v_i ||^2 - sum_i c_i^2, exactly, for v_i independent and uniform on the
    2d signed basis vectors (unit norm, zero mean), optionally shifted towards e_1 and
    renormalised (unit norm, nonzero mean): enumeration of all (2d)^n draws."""
    basis = np.concatenate([np.eye(d), -np.eye(d)])
    if mean_shift:
        basis = basis + mean_shift * np.eye(d)[0]
        basis /= np.linalg.norm(basis, axis=1, keepdims=True)
    n = coefs.size
    idx = np.array(list(itertools.product(range(2 * d), repeat=n)))  # (2d)^n draws
    total = np.einsum("i,sij->sj", coefs, basis[idx])
    return float(np.mean(np.sum(total**2, axis=1)) - np.sum(coefs**2))


def edit_objective_facts(rng, d: int = 8, n_keys: int = 20000) -> dict:
    """D17 on a random instance: the rank-one edit Delta = r (C^-1 k*)^T / (k*^T C^-1 k*) for a
    random symmetric positive definite C; the mean squared change E|Delta k|^2 over fresh keys
    drawn with second moment C (an independent sample, not the keys C is made from), over the
    note's objective (1/2) tr(Delta C Delta^T) and over tr(Delta C Delta^T); and the rank of the
    second-moment matrix of exactly d random keys (is d samples enough for an invertible C?)."""
    g = rng.standard_normal((d, d))
    c = g @ g.T / d + 0.1 * np.eye(d)
    kstar, r = rng.standard_normal(d), rng.standard_normal(d)
    cinv_k = np.linalg.solve(c, kstar)
    delta = np.outer(r, cinv_k) / (kstar @ cinv_k)
    keys = rng.standard_normal((n_keys, d)) @ np.linalg.cholesky(c).T  # E[k k^T] = C
    mean_sq = float(np.mean(np.sum((keys @ delta.T) ** 2, axis=1)))
    trace = float(np.trace(delta @ c @ delta.T))
    samples = rng.standard_normal((d, d))
    return {
        "edit_sq_change_over_objective": mean_sq / (0.5 * trace),
        "edit_sq_change_over_trace": mean_sq / trace,
        "second_moment_rank_at_d": float(rank(samples.T @ samples)),
    }


@experiment(
    grid={"seed": seeds()},
    outputs=(
        Output("cosine_gap", "x.y minus cos(angle) for unit vectors"),
        Output("special_dots", "x.y at 0, 90 and 180 degrees", dims=("angle",)),
        Output("orthonormal_count", "orthonormal vectors from n + 3 vectors in R^6"),
        Output("transpose_gap", "(AB)^T minus B^T A^T"),
        Output("trace_cyclic_gap", "tr(AB) minus tr(BA)"),
        Output("frobenius_trace_gap", "|A|_F minus sqrt(tr A^T A)"),
        Output("row_column_rank", "rank of A and of A^T (rank 3)", dims=("side",)),
        Output("factor_gap", "B C minus A for the rank-3 factorisation"),
        Output("factor_outer_gap", "three outer products minus A"),
        Output("inverse_gap", "A A^-1 - I and A^-1 A - I"),
        Output("solve_gap", "A (A^-1 b) minus b"),
        Output("full_rank", "rank of a random 5 x 5 matrix"),
        Output("singular_rank", "rank of a 5 x 5 matrix of rank 4"),
        Output("singular_min_sv", "its smallest singular value"),
        Output("ls_gradient", "gradient of |Ax-b|^2 at the normal-equation solution"),
        Output("ls_pinv_gap", "normal-equation solution minus pinv(A) b"),
        Output(
            "edit_sq_change_over_objective",
            "D17: sampled E|Delta k|^2 over (1/2) tr(Delta C Delta^T)",
        ),
        Output("edit_sq_change_over_trace", "D17: sampled E|Delta k|^2 over tr(Delta C Delta^T)"),
        Output("second_moment_rank_at_d", "rank of the second moment of d keys in R^d"),
        Output("ls_lstsq_gradient", "gradient of |Ax-b|^2 at the SVD least-squares minimiser"),
        Output("minnorm_solves_gap", "A x_mn minus b"),
        Output("minnorm_pinv_gap", "A^T (A A^T)^-1 b minus pinv(A) b"),
        Output("minnorm_beaten", "other exact solutions with a smaller norm"),
        Output("ridge_singular_rank", "rank of A^T A for a 4 x 9 A"),
        Output("ridge_min_eig_over_lambda", "smallest eigenvalue of A^T A + lambda I, / lambda"),
        Output("ridge_gradient", "gradient of the ridge objective at its solution"),
        Output("proj_symmetric_gap", "P - P^T"),
        Output("proj_idempotent_gap", "P^2 - P"),
        Output("proj_trace", "trace of P (A is 7 x 3)"),
        Output("proj_rank", "rank of P"),
        Output("proj_closer_points", "points of the column space closer to b than P b"),
        Output("proj_residual_orthogonal", "A^T (b - P b)"),
        Output("proj_row_square_gap", "sum_j P_ij^2 minus P_ii"),
        Output("oblique_idempotent_gap", "Q^2 - Q (oblique projection)"),
        Output("oblique_trace", "trace of the oblique projection"),
        Output("oblique_row_square_gap", "sum_j Q_ij^2 minus Q_ii"),
        Output("oblique_symmetric_gap", "Q - Q^T"),
        Output("svd_nonzero", "nonzero singular values of a rank-3 matrix"),
        Output("svd_rank", "rank of that matrix"),
        Output("energy_gap", "sum mu_k^2 minus |A|_F^2"),
        Output("sherman_morrison_gap", "Sherman-Morrison minus the direct inverse"),
        Output("whitened_moment_gap", "second moment of C^-1/2 x minus I"),
        Output("one_factor_gap", "k^T C^-1 q minus (C^-1/2 k).(C^-1/2 q)"),
        Output("inverse_only_moment_gap", "second moment of C^-1 x minus I"),
        Output("product_rank_excess", "rank(AB) - min(rank A, rank B)"),
        Output("product_rank", "rank(AB), A of rank 3, B of rank 4"),
        Output("qk_rank", "rank of Q K^T, n = 10, d_k = 4"),
        Output("wqwk_rank", "rank of W_Q W_K^T, d = 16, d_k = 4"),
        Output("frobenius_orthogonal_gap", "|Q A R|_F and |U A|_F minus |A|_F"),
        Output(
            "frobenius_wide_orthonormal_change",
            "norm change under a matrix with orthonormal rows (5 x 9)",
        ),
        Output("interference_gap_zero_mean", "E|sum c_i v_i|^2 - sum c_i^2, zero mean"),
        Output("interference_gap_shifted", "the same with values of nonzero mean"),
        Output("interference_sum_c2", "sum c_i^2 of our coefficients"),
    ),
    coords={
        "angle": coord("angle between the two unit vectors", [0, 90, 180], units="degrees"),
        "side": coord("rows or columns of the matrix", ["rows", "columns"]),
    },
    sections=(
        "memory-math appendix A: the linear algebra toolkit (line 68)",
        "memory-math D20: eight facts about rank and projections (line 68)",
    ),
)
def linalg_toolkit(rng, seed: int) -> dict:
    """Appendix A and D20 on one random draw."""
    m, n = 5, 7
    a, b = rng.standard_normal((m, n)), rng.standard_normal((n, m))
    lr = low_rank(rng, 6, 8, 3)
    u, s, vt = np.linalg.svd(lr)
    factor_b, factor_c = u[:, :3] * s[:3], vt[:3]
    q_orth = np.linalg.qr(rng.standard_normal((m, m)))[0]
    r_orth = np.linalg.qr(rng.standard_normal((n, n)))[0]
    tall_orth = np.linalg.qr(rng.standard_normal((9, m)))[0]  # 9 x 5 orthonormal columns
    wide_in = rng.standard_normal((9, 4))  # multiplied by tall_orth^T (orthonormal rows)
    # Sherman-Morrison: (R^-1 + k k^T)^-1 = R - R k k^T R / (1 + k^T R k), R symmetric pos. def.
    g = rng.standard_normal((5, 5))
    big_r = np.linalg.inv(g @ g.T + np.eye(5))
    kvec = rng.standard_normal(5)
    sm = big_r - np.outer(big_r @ kvec, kvec @ big_r) / (1 + kvec @ big_r @ kvec)
    # D20 (i), (iii)
    ra, rb = low_rank(rng, 8, 6, 3), low_rank(rng, 6, 8, 4)
    qq, kk = rng.standard_normal((10, 4)), rng.standard_normal((10, 4))
    wq, wk = rng.standard_normal((16, 4)), rng.standard_normal((16, 4))
    coefs = np.array([1.0, -0.5, 2.0])
    return {
        **unit_vector_cosines(rng),
        "orthonormal_count": orthonormal_count(rng, 6),
        "transpose_gap": rel_gap((a @ b).T, b.T @ a.T),
        "trace_cyclic_gap": rel_gap(np.trace(a @ b), np.trace(b @ a)),
        "frobenius_trace_gap": rel_gap(np.linalg.norm(a, "fro"), np.sqrt(np.trace(a.T @ a))),
        "row_column_rank": np.array([rank(lr), rank(lr.T)], float),
        "factor_gap": rel_gap(factor_b @ factor_c, lr),
        "factor_outer_gap": rel_gap(
            sum(np.outer(factor_b[:, k], factor_c[k]) for k in range(3)), lr
        ),
        **solve_facts(rng),
        **projection_facts(rng),
        "svd_nonzero": float(np.sum(s > RTOL * s[0])),
        "svd_rank": float(rank(lr)),
        "energy_gap": rel_gap(np.sum(s**2), np.linalg.norm(lr, "fro") ** 2),
        "sherman_morrison_gap": rel_gap(
            sm, np.linalg.inv(np.linalg.inv(big_r) + np.outer(kvec, kvec))
        ),
        **whitening_facts(rng),
        # D20
        "product_rank_excess": float(rank(ra @ rb) - min(rank(ra), rank(rb))),
        "product_rank": float(rank(ra @ rb)),
        "qk_rank": float(rank(qq @ kk.T)),
        "wqwk_rank": float(rank(wq @ wk.T)),
        "frobenius_orthogonal_gap": max(
            rel_gap(np.linalg.norm(q_orth @ a @ r_orth), np.linalg.norm(a)),
            rel_gap(np.linalg.norm(tall_orth @ a), np.linalg.norm(a)),
        ),
        "frobenius_wide_orthonormal_change": abs(
            float(np.linalg.norm(tall_orth.T @ wide_in)) - float(np.linalg.norm(wide_in))
        ),
        "interference_gap_zero_mean": expected_interference(coefs, 2, 0.0),
        "interference_gap_shifted": expected_interference(coefs, 2, 0.5),
        "interference_sum_c2": float(np.sum(coefs**2)),
        **edit_objective_facts(rng),  # drawn last, so the draws above are unchanged
    }
