"""What one transformer layer costs, and what a key-value cache holds (first-principles C4 line
691 and C5, lines 711-734).

Multiply-adds are counted by running the layer's forward pass on shape-only stand-ins for its
matrices: every matrix product records rows x inner x columns, so the count comes from the same
code that computes the layer on real arrays (tests/test_residual_block.py runs both and checks
the real output against a plain implementation). The cache is counted the same way, from the
keys and values the pass keeps; the causal score count adds up the entries j <= i row by row.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..spec import Output, experiment, integer, ints
from .softmax import softmax


@dataclass(frozen=True)
class Shape:
    """A matrix known only by its shape; products with it are counted, not computed."""

    rows: int
    cols: int

    @property
    def T(self) -> Shape:
        return Shape(self.cols, self.rows)


class Counter:
    """Multiply-adds by part, and the numbers kept in the cache."""

    def __init__(self):
        self.parts: dict[str, int] = {}

    def matmul(self, part: str, a, b):
        ra, ca = _shape(a)
        rb, cb = _shape(b)
        if ca != rb:
            raise ValueError(f"{part}: inner sizes {ca} and {rb} differ")
        self.parts[part] = self.parts.get(part, 0) + ra * ca * cb
        if isinstance(a, Shape) or isinstance(b, Shape):
            return Shape(ra, cb)
        return a @ b


def _shape(a) -> tuple[int, int]:
    return (a.rows, a.cols) if isinstance(a, Shape) else a.shape


def _cols(a, sl: slice):
    if isinstance(a, Shape):
        return Shape(a.rows, len(range(*sl.indices(a.cols))))
    return a[:, sl]


def _hstack(parts):
    if isinstance(parts[0], Shape):
        return Shape(parts[0].rows, sum(p.cols for p in parts))
    return np.hstack(parts)


def _causal_softmax(s):
    if isinstance(s, Shape):
        return s
    n = s.shape[0]
    return softmax(np.where(np.tril(np.ones((n, n), dtype=bool)), s, -np.inf), axis=-1)


def _relu(h):
    return h if isinstance(h, Shape) else np.maximum(h, 0.0)


def layer(X, W: dict, n_h: int, count: Counter, cache: list | None = None):
    """One causal layer (normalisation and residual adds left out: they are not products).
    ``W`` holds WQ, WK, WV, WO (d x d) and W1 (d x d_ff), W2 (d_ff x d)."""
    d = _shape(W["WQ"])[1]
    d_k = d // n_h
    Q, K, V = (count.matmul("projections", X, W[k]) for k in ("WQ", "WK", "WV"))
    if cache is not None:
        cache.append((K, V))
    heads = []
    for u in range(n_h):
        sl = slice(u * d_k, (u + 1) * d_k)
        s = count.matmul("scores", _cols(Q, sl), _cols(K, sl).T)
        if not isinstance(s, Shape):
            s = s / np.sqrt(d_k)
        heads.append(count.matmul("weighted_sum", _causal_softmax(s), _cols(V, sl)))
    write = count.matmul("projections", _hstack(heads), W["WO"])
    H = write if isinstance(write, Shape) else X + write
    hidden = _relu(count.matmul("mlp", H, W["W1"]))
    return count.matmul("mlp", hidden, W["W2"])


def shape_weights(d: int, d_ff: int) -> dict:
    return {
        "WQ": Shape(d, d),
        "WK": Shape(d, d),
        "WV": Shape(d, d),
        "WO": Shape(d, d),
        "W1": Shape(d, d_ff),
        "W2": Shape(d_ff, d),
    }


def count_layer(n: int, d: int, n_h: int, d_ff: int) -> tuple[dict, int]:
    """Multiply-adds by part for one layer on n tokens, and the numbers of its K and V."""
    count, cache = Counter(), []
    layer(Shape(n, d), shape_weights(d, d_ff), n_h, count, cache)
    k, v = cache[0]
    return count.parts, k.rows * k.cols + v.rows * v.cols


def count_step(n: int, d: int, n_h: int, d_ff: int) -> int:
    """Multiply-adds of one layer for one new token that reads n cached keys and values (its
    own key and value included): its projections, one score row, one weighted sum, its MLP."""
    count = Counter()
    W = shape_weights(d, d_ff)
    x = Shape(1, d)
    q = count.matmul("projections", x, W["WQ"])
    count.matmul("projections", x, W["WK"])
    count.matmul("projections", x, W["WV"])
    d_k = d // n_h
    heads = []
    for u in range(n_h):
        sl = slice(u * d_k, (u + 1) * d_k)
        count.matmul("scores", _cols(q, sl), Shape(d_k, n))
        heads.append(count.matmul("weighted_sum", Shape(1, n), Shape(n, d_k)))
    h = count.matmul("projections", _hstack(heads), W["WO"])
    count.matmul("mlp", count.matmul("mlp", h, W["W1"]), W["W2"])
    return sum(count.parts.values())


def first_n(condition, n_max: int) -> float:
    """Smallest n in 1..n_max where ``condition(n)`` holds (NaN if none)."""
    for n in range(1, n_max + 1):
        if condition(n):
            return float(n)
    return float("nan")


def bisect_first(condition, n_max: int) -> float:
    """The same for a condition that stays true once it holds, by bisection."""
    if not condition(n_max):
        return float("nan")
    lo, hi = 0, n_max  # condition(lo) false (or lo = 0), condition(hi) true
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if condition(mid):
            hi = mid
        else:
            lo = mid
    return float(hi)


@experiment(
    grid={"n": ints(doc="context length n in tokens")},
    params={
        "d": integer(min=1, memory=True),
        "n_h": integer(min=1),
        "layers": integer(min=1, memory=True),
        "d_ff": integer(min=1),
        "rnn_width": integer(min=1),
    },
    outputs=(
        Output("projections", "Q, K, V and O projections of one layer", "multiply-adds"),
        Output("scores", "scores QK^T, all heads", "multiply-adds"),
        Output("weighted_sum", "weighted sum AV, all heads", "multiply-adds"),
        Output("mlp", "the MLP", "multiply-adds"),
        Output("linear", "the terms linear in n (projections and MLP)", "multiply-adds"),
        Output("quadratic", "the attention matrix (scores and weighted sum)", "multiply-adds"),
        Output("quadratic_exceeds", "1 if the attention matrix costs more"),
        Output("projections_over_nd2", "projections over n d^2"),
        Output("scores_over_n2d", "scores over n^2 d"),
        Output("weighted_sum_over_n2d", "weighted sum over n^2 d"),
        Output("mlp_over_nd2", "MLP over n d^2"),
        Output("linear_over_nd2", "linear terms over n d^2"),
        Output("quadratic_over_n2d", "attention matrix over n^2 d"),
        Output("equal_cost_n", "smallest n where the attention matrix costs as much", "tokens"),
        Output("equal_cost_n_over_d", "that n over d"),
        Output("causal_entries", "entries j <= i of one head's score matrix"),
        Output("kv_per_layer", "numbers of keys and values kept by one layer"),
        Output("kv_cache", "numbers in the cache of all layers"),
        Output("scores_exceed_cache", "1 if one head's causal scores outnumber the cache"),
        Output("cache_equal_n", "smallest n where the scores reach the cache size", "tokens"),
        Output("cache_equal_value", "the causal score count there"),
        Output("cache_equal_value_cache", "the cache size there"),
        Output("cache_exceed_n", "smallest n where the scores exceed the cache", "tokens"),
        Output("step_cost", "one new token with a cache, one layer", "multiply-adds"),
        Output("recompute_cost", "the whole layer on n tokens", "multiply-adds"),
        Output("step_over_nd_d2", "cached step over (n d + d^2)"),
        Output("rnn_steps", "sequential steps of a recurrent net", "steps"),
        Output("transformer_steps", "sequential steps of the stack", "steps"),
        Output("rnn_state", "numbers a recurrent net carries"),
        Output("attn_params", "entries of W_Q, W_K, W_V, W_O"),
        Output("mlp_params", "entries of W_1, W_2"),
        Output("layer_params", "entries of one layer's matrices"),
        Output("mlp_share", "the MLP's share of them"),
        Output("d_k", "key size per head"),
    ),
    sections=(
        "first-principles C4: the base model's layer (line 691)",
        "first-principles C5: the cost table, the crossover, steps, the cache (711-734)",
    ),
)
def layer_cost(n: int, d: int, n_h: int, layers: int, d_ff: int, rnn_width: int) -> dict:
    """The cost table at n tokens, the crossovers, the cache and the sequential steps."""
    parts, kv = count_layer(n, d, n_h, d_ff)
    linear = parts["projections"] + parts["mlp"]
    quadratic = parts["scores"] + parts["weighted_sum"]

    def lin(m):
        p, _ = count_layer(m, d, n_h, d_ff)
        return p["projections"] + p["mlp"]

    def quad(m):
        p, _ = count_layer(m, d, n_h, d_ff)
        return p["scores"] + p["weighted_sum"]

    def causal_entries(m):  # row i of a causal score matrix has i + 1 entries
        return int(np.arange(1, m + 1, dtype=np.int64).sum())

    def cache_numbers(m):
        return layers * count_layer(m, d, n_h, d_ff)[1]

    equal_cost = bisect_first(lambda m: quad(m) >= lin(m), 100 * d)
    equal_cache = bisect_first(lambda m: causal_entries(m) >= cache_numbers(m), 100 * d * layers)
    exceed_cache = bisect_first(lambda m: causal_entries(m) > cache_numbers(m), 100 * d * layers)
    # sequential steps: longest chain of dependent computations
    depth = np.zeros(n)
    for _ in range(layers):  # a layer's row i waits for rows j <= i of the layer below
        depth = np.maximum.accumulate(depth) + 1
    weights = shape_weights(d, d_ff)
    attn_params = sum(weights[k].rows * weights[k].cols for k in ("WQ", "WK", "WV", "WO"))
    mlp_params = sum(weights[k].rows * weights[k].cols for k in ("W1", "W2"))
    return {
        "projections": float(parts["projections"]),
        "scores": float(parts["scores"]),
        "weighted_sum": float(parts["weighted_sum"]),
        "mlp": float(parts["mlp"]),
        "linear": float(linear),
        "quadratic": float(quadratic),
        "quadratic_exceeds": float(quadratic > linear),
        "projections_over_nd2": parts["projections"] / (n * d * d),
        "scores_over_n2d": parts["scores"] / (n * n * d),
        "weighted_sum_over_n2d": parts["weighted_sum"] / (n * n * d),
        "mlp_over_nd2": parts["mlp"] / (n * d * d),
        "linear_over_nd2": linear / (n * d * d),
        "quadratic_over_n2d": quadratic / (n * n * d),
        "equal_cost_n": equal_cost,
        "equal_cost_n_over_d": equal_cost / d,
        "causal_entries": float(causal_entries(n)),
        "kv_per_layer": float(kv),
        "kv_cache": float(kv * layers),
        "scores_exceed_cache": float(causal_entries(n) > kv * layers),
        "cache_equal_n": equal_cache,
        "cache_equal_value": float(causal_entries(int(equal_cache))),
        "cache_equal_value_cache": float(cache_numbers(int(equal_cache))),
        "cache_exceed_n": exceed_cache,
        "step_cost": float(count_step(n, d, n_h, d_ff)),
        "recompute_cost": float(sum(parts.values())),
        "step_over_nd_d2": count_step(n, d, n_h, d_ff) / (n * d + d * d),
        "rnn_steps": float(n),  # h_t waits for h_(t-1): a chain as long as the text
        "transformer_steps": float(depth.max()),
        "rnn_state": float(rnn_width),
        "attn_params": float(attn_params),
        "mlp_params": float(mlp_params),
        "layer_params": float(attn_params + mlp_params),
        "mlp_share": mlp_params / (attn_params + mlp_params),
        "d_k": float(d // n_h),
    }


MA = "multiply-adds"
