"""The arithmetic behind every-layer-a-store's recall answers about programs and limits.

Four small computations (every-layer-a-store lines 43-140):

- the entries one layer holds and the positions the next token attends to in a long prompt,
  for the six ways of keeping the past that the notes list (full cache, window, block
  selection, pooled selection, heavy pooling, recurrent state);
- two stores over depth: a doubly stochastic mix of two scalar residual streams followed by a
  block, and attention over earlier layers' outputs (the notes' hand-set inputs);
- combining a long run of affine state updates in a balanced tree, against the running product;
- how keys that share structure raise the interference of an outer-product store above the
  random-key count, and how a careful (least-squares) write holds a small dictionary exactly.
"""

from __future__ import annotations

import math

import numpy as np

from ..spec import Output, coord, experiment, integer, ints, reals, seeds
from .softmax import softmax

SCHEMES = ("full", "window", "block_select", "pooled_select", "heavy_pool", "recurrent")


def _kept_and_read(n_context: int, s: dict) -> tuple[np.ndarray, np.ndarray]:
    """Entries kept by one layer and positions read by the next token, per scheme, with the
    layer sizes ``s`` (window, blocks, block_size, pool, top_k, recent, heavy_pool).

    The recurrent layer keeps one fixed-size matrix per head, counted here as one entry whose
    size does not depend on ``n_context``."""
    pooled = math.ceil(n_context / s["pool"])
    heavy = math.ceil(n_context / s["heavy_pool"])
    window = min(s["window"], n_context)
    kept = np.array([n_context, window, n_context, pooled, heavy, 1], dtype=float)
    read = np.array(
        [
            n_context,
            window,
            min(s["blocks"] * s["block_size"], n_context),
            min(s["top_k"], pooled) + min(s["recent"], n_context),
            heavy,
            1,
        ],
        dtype=float,
    )
    return kept, read


@experiment(
    grid={"n_context": ints(doc="context length in tokens")},
    params={
        "window": integer(min=1, doc="tokens in the rolling window"),
        "blocks": integer(min=1, doc="blocks read per group of heads"),
        "block_size": integer(min=1, doc="tokens per block"),
        "pool": integer(min=1, doc="tokens pooled into one indexed entry"),
        "top_k": integer(min=1, doc="entries the indexer selects"),
        "recent": integer(min=0, doc="newest tokens read uncompressed"),
        "heavy_pool": integer(min=1, doc="tokens per heavily pooled entry"),
    },
    outputs=(
        Output("kept", "entries one layer keeps", "entries", ("scheme",)),
        Output("read", "positions the next token reads", "positions", ("scheme",)),
        Output(
            "kept_growth", "kept entries at twice the prompt over at the prompt", dims=("scheme",)
        ),
        Output(
            "read_growth", "read positions at twice the prompt over at the prompt", dims=("scheme",)
        ),
        Output(
            "fixed_size", "what is kept does not grow with the prompt (1 yes)", dims=("scheme",)
        ),
        Output("pooled_select_uncompressed", "recent tokens read uncompressed", "tokens"),
        Output("pooled_select_indexed", "pooled entries the indexer selects", "entries"),
    ),
    coords={"scheme": coord("what a layer keeps of the context and reads", SCHEMES)},
    sections=("every-layer-a-store/million-tokens",),
)
def context_reads(n_context: int, **sizes) -> dict:
    """Entries kept and positions read per scheme at ``n_context`` tokens, and how both grow when
    the prompt doubles (1: they do not grow). ``sizes`` are the block's layer sizes."""
    kept, read = _kept_and_read(n_context, sizes)
    kept2, read2 = _kept_and_read(2 * n_context, sizes)
    return {
        "kept": kept,
        "read": read,
        "kept_growth": kept2 / kept,
        "read_growth": read2 / read,
        "fixed_size": (kept2 == kept).astype(float),
        "pooled_select_uncompressed": float(min(sizes["recent"], n_context)),
        "pooled_select_indexed": float(min(sizes["top_k"], math.ceil(n_context / sizes["pool"]))),
    }


# Inputs of every-layer-a-store line 92: the two streams, and the two earlier layer outputs with
# the scores a later query gives them (0 and ln 3).
STREAMS = np.array([2.0, 4.0])
EARLIER_OUTPUTS = np.array([[1.0, 0.0], [0.0, 2.0]])
EARLIER_SCORES = np.array([0.0, math.log(3.0)])


def doubly_stochastic(mix: float) -> np.ndarray:
    """The 2x2 mix whose rows and columns each sum to one, with ``mix`` off the diagonal."""
    return np.array([[1.0 - mix, mix], [mix, 1.0 - mix]])


@experiment(
    grid={
        "mix": reals(min=0, max=1, doc="off-diagonal weight of the doubly stochastic mix (0 to 1)")
    },
    outputs=(
        Output("mixed_streams", "streams after the mix", dims=("stream",)),
        Output("mixed_total", "total of the mixed streams"),
        Output("old_total", "total of the streams before the mix"),
        Output("block_input", "what the block reads (stream average)"),
        Output("block_output", "what the block computes"),
        Output("streams_after", "streams after the block adds its half", dims=("stream",)),
        Output("difference_ratio", "stream difference after over before the mix"),
        Output("column_sums", "column sums of the mix", dims=("stream",)),
        Output("depth_weights", "softmax weights on the earlier outputs", dims=("earlier",)),
        Output("depth_input", "the layer's input read over depth", dims=("component",)),
    ),
    coords={
        "stream": coord("residual stream (1 first)", (1, 2)),
        "earlier": coord("earlier layer output read over depth (1 first)", (1, 2)),
        "component": coord("coordinate of the layer's input (1 first)", (1, 2)),
    },
    sections=("every-layer-a-store/two-stores-over-depth",),
)
def depth_stores(mix: float) -> dict:
    """Mix the two streams, let a block read their average, double it, and add half of the result
    to each stream; and read the earlier layers' outputs by a softmax over their scores."""
    mixed = doubly_stochastic(mix) @ STREAMS
    block_in = mixed.mean()
    block_out = 2.0 * block_in
    after = mixed + block_out / 2.0
    weights = softmax(EARLIER_SCORES)
    return {
        "mixed_streams": mixed,
        "mixed_total": float(mixed.sum()),
        "old_total": float(STREAMS.sum()),
        "block_input": float(block_in),
        "block_output": float(block_out),
        "streams_after": after,
        # the difference of the two streams shrinks by |1 - 2 mix| at every mix
        "difference_ratio": float(abs(mixed[1] - mixed[0]) / abs(STREAMS[1] - STREAMS[0])),
        "column_sums": doubly_stochastic(mix).sum(axis=0),
        "depth_weights": weights,
        "depth_input": weights @ EARLIER_OUTPUTS,
    }


def compose(first, second):
    """The affine map ``x -> a2 (a1 x + b1) + b2`` as (a2 a1, a2 b1 + b2), elementwise so that a
    complex scalar stands for a 2x2 rotation-and-scale matrix."""
    a1, b1 = first
    a2, b2 = second
    return a2 * a1, a2 * b1 + b2


def tree_combine(a: np.ndarray, b: np.ndarray) -> tuple[complex, complex, int]:
    """Combine updates (a_t, b_t), applied in order t = 0, 1, ..., by pairing neighbours in a
    balanced tree. Returns the combined map and the number of rounds."""
    rounds = 0
    while a.size > 1:
        if a.size % 2:  # an odd one out waits for the next round as the identity's partner
            a = np.append(a, 1.0 + 0j)
            b = np.append(b, 0.0 + 0j)
        a, b = compose((a[0::2], b[0::2]), (a[1::2], b[1::2]))
        rounds += 1
    return complex(a[0]), complex(b[0]), rounds


def running_combine(a: np.ndarray, b: np.ndarray) -> tuple[complex, complex]:
    """The same combined map, from the sequential recursion written in closed form for unit
    complex ``a``: x_T = A x_0 + sum_t b_t prod_{s>t} a_s with A = prod a_t."""
    phase = np.cumsum(np.angle(a))
    total = phase[-1]
    return complex(np.exp(1j * total)), complex(np.sum(b * np.exp(1j * (total - phase))))


@experiment(
    grid={"n_updates": ints(doc="affine updates composed by the scan")},
    outputs=(
        Output("tree_rounds", "rounds of the balanced-tree combination", "rounds"),
        Output("log2_updates", "log2 of the number of updates"),
        Output("combine_gap", "relative gap between tree and running combination"),
    ),
    sections=("every-layer-a-store/depth-and-the-monitor",),
)
def affine_scan(n_updates: int, rng) -> dict:
    """Random rotations with random offsets, combined by a tree and by the running product."""
    a = np.exp(1j * rng.uniform(-np.pi, np.pi, n_updates))
    b = rng.normal(size=n_updates) + 1j * rng.normal(size=n_updates)
    ta, tb, rounds = tree_combine(a, b)
    ra, rb = running_combine(a, b)
    return {
        "tree_rounds": float(rounds),
        "log2_updates": math.log2(n_updates),
        "combine_gap": max(abs(ta - ra), abs(tb - rb)) / max(1.0, abs(rb)),
    }


def unit_rows(x: np.ndarray) -> np.ndarray:
    return x / np.linalg.norm(x, axis=-1, keepdims=True)


def structured_keys(rng, trials: int, m: int, d: int, shared: float) -> np.ndarray:
    """Unit keys with a common direction: each is sqrt(shared) u + sqrt(1 - shared) g, normalised,
    with one random u per trial (shared = 0 gives independent random keys)."""
    u = unit_rows(rng.normal(size=(trials, 1, d)))
    g = unit_rows(rng.normal(size=(trials, m, d)))
    return unit_rows(math.sqrt(shared) * u + math.sqrt(1.0 - shared) * g)


def hebbian_noise_ratio(keys: np.ndarray, values: np.ndarray) -> float:
    """Root-mean-square interference over signal when every key reads W = sum_i v_i k_i^T."""
    gram = keys @ keys.transpose(0, 2, 1)
    recall = gram @ values  # row j: sum_i (k_j . k_i) v_i
    signal = np.diagonal(gram, axis1=1, axis2=2)[..., None] * values
    return float(np.sqrt(np.mean((recall - signal) ** 2) / np.mean(signal**2)))


def least_squares_error(keys: np.ndarray, values: np.ndarray) -> float:
    """Largest recall error of the least-squares store over every stored key. With m <= d
    independent keys the store is W = V^T (K K^T)^{-1} K, so key j reads row j of
    (K K^T)(K K^T)^{-1} V."""
    gram = keys @ keys.transpose(0, 2, 1)
    recall = gram @ np.linalg.solve(gram, values)
    return float(np.max(np.abs(recall - values)))


@experiment(
    grid={
        "d": ints(doc="key width d"),
        "m": ints(doc="number of key-value pairs stored"),
        "shared": reals(min=0, lt=1, doc="weight of the direction all keys share (0 to below 1)"),
        "seed": seeds(),
    },
    params={
        "trials": integer(min=1, doc="stores per seed"),
    },
    outputs=(
        Output("hebbian_ratio", "interference over signal, structured keys"),
        Output("random_key_ratio", "interference over signal, random keys"),
        Output("random_key_closed_form", "sqrt((m-1)/d)"),
        Output("structure_raises", "structured keys interfere more (1 yes)"),
        Output("least_squares_error", "largest least-squares recall error"),
    ),
    sections=(
        "every-layer-a-store/where-the-numbers-stop",
        "every-layer-a-store/content-and-settings",
    ),
)
def store_limits(d: int, m: int, shared: float, seed: int, trials: int, rng) -> dict:
    """Outer-product interference with random and with structured keys (same values), and the
    least-squares recall error, over ``trials`` stores of ``m`` pairs in ``d`` dimensions."""
    values = unit_rows(rng.normal(size=(trials, m, d)))
    random_ratio = hebbian_noise_ratio(structured_keys(rng, trials, m, d, 0.0), values)
    keys = structured_keys(rng, trials, m, d, shared)
    ratio = hebbian_noise_ratio(keys, values)
    return {
        "hebbian_ratio": ratio,
        "random_key_ratio": random_ratio,
        "random_key_closed_form": math.sqrt((m - 1) / d),
        "structure_raises": float(ratio > random_ratio),
        "least_squares_error": least_squares_error(keys, values) if m <= d else math.nan,
    }


def top_k_weights(scores: np.ndarray, top_k: int) -> np.ndarray:
    """Softmax weights over only the ``top_k`` highest-scoring entries of each row (a hard
    selection); entries left out get weight zero."""
    keep = np.argsort(-scores, axis=-1)[..., :top_k]
    masked = np.full_like(scores, -np.inf)
    np.put_along_axis(masked, keep, np.take_along_axis(scores, keep, axis=-1), axis=-1)
    return softmax(masked, axis=-1)


def top_k_read(scores: np.ndarray, values: np.ndarray, top_k: int) -> np.ndarray:
    """The values mixed in the top-k weights."""
    return np.einsum("tk,tkv->tv", top_k_weights(scores, top_k), values)


@experiment(
    grid={"top_k": ints(doc="keys the selector keeps, k"), "seed": seeds()},
    params={
        "n_keys": integer(min=2, doc="entries the selector scores"),
        "trials": integer(min=1, doc="score rows per seed", memory=True),
    },
    outputs=(
        Output("unselected_gradient", "largest |d read / d score| of a left-out entry"),
        Output("selected_gradient", "mean |d read / d score| of the best kept entry"),
        Output("missed_weight", "weight the selected read gives the left-out entry"),
        Output("missed_weight_full_read", "weight a full read gives that entry"),
        Output("miss_error", "distance from the read to the left-out answer"),
        Output("full_read_error", "same distance for a read of every entry"),
    ),
    sections=("every-layer-a-store/selector",),
)
def selector_miss(top_k: int, n_keys: int, seed: int, trials: int, rng) -> dict:
    """A hard top-k selector in front of a softmax read, over ``trials`` random score rows.

    - the derivative of the read with respect to the score of an entry that was not selected is
      zero (central finite differences): no gradient reaches the selector through the task loss;
    - when the entry that holds the answer is pushed just out of the top k, the read gives it no
      weight at all, however close its score was: the miss."""
    scores = rng.normal(size=(trials, n_keys))
    values = rng.normal(size=(trials, n_keys, 4))
    order = np.argsort(-scores, axis=-1)
    out_idx = order[:, min(top_k, n_keys - 1)]  # the best entry left out
    in_idx = order[:, 0]  # the best entry kept
    eps = 1e-6
    rows = np.arange(trials)

    def nudged(idx, delta):
        s = scores.copy()
        s[rows, idx] += delta
        return top_k_read(s, values, top_k)

    grad_out = (nudged(out_idx, eps) - nudged(out_idx, -eps)) / (2 * eps)
    grad_in = (nudged(in_idx, eps) - nudged(in_idx, -eps)) / (2 * eps)
    # the answer sits in the entry just left out: the read cannot reach it
    target = values[rows, out_idx]
    read = top_k_read(scores, values, top_k)
    full = np.einsum("tk,tkv->tv", softmax(scores, axis=-1), values)
    weight_full = softmax(scores, axis=-1)[rows, out_idx]
    return {
        "unselected_gradient": float(np.max(np.abs(grad_out))),
        "selected_gradient": float(np.mean(np.abs(grad_in))),
        "missed_weight": float(np.max(top_k_weights(scores, top_k)[rows, out_idx])),
        "missed_weight_full_read": float(np.mean(weight_full)),
        "miss_error": float(np.mean(np.linalg.norm(read - target, axis=-1))),
        "full_read_error": float(np.mean(np.linalg.norm(full - target, axis=-1))),
    }
