"""Attention as a soft dictionary lookup with hand-set vectors (soft-dictionary, lines 29-188).

Five tokens carry a hand-set 4-d query and key and a 2-d value (the note's inputs, typed here
as data). A query is scored against every key by a dot product, the scores are multiplied by a
sharpness ``beta`` and turned into shares by a softmax, and the values are mixed in those shares.
"""

from __future__ import annotations

import itertools

import numpy as np

from ..spec import Output, coord, experiment, reals
from .softmax import entropy_nats, naive_softmax, softmax

TOKENS = ("the", "cat", "sat", "on", "mat")
# The classic test sentence the example is named after (it appears whole at line 188).
CLASSIC_SENTENCE = ("the", "cat", "sat", "on", "the", "mat")

# Inputs stated in soft-dictionary lines 91-106: rows follow TOKENS.
KEYS = np.array(
    [
        [0.0, 0.0, 0.0, 2.0],
        [1.8, 0.0, 0.0, 0.0],
        [0.0, 1.8, 0.0, 0.0],
        [0.0, 0.0, 0.8, 0.0],
        [1.4, 0.0, 0.6, 0.0],
    ]
)
QUERIES = np.array(
    [
        [1.2, 0.0, 0.0, 0.3],
        [0.2, 1.5, 0.0, 0.0],
        [1.5, 0.2, 0.0, 0.0],
        [0.6, 0.0, 1.6, 0.0],
        [0.0, 0.0, 1.5, 0.8],
    ]
)
VALUES = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 0.0], [0.0, 0.5], [0.0, 1.0]])


def attention_table(queries, keys, values, beta: float = 1.0):
    """Scores, shares and mixed values of every query against every key."""
    scores = queries @ keys.T
    shares = softmax(beta * scores, axis=-1)
    return scores, shares, shares @ values


def plain(order):
    """Queries, keys and values of the hand-set tokens, in the given order."""
    return QUERIES[order], KEYS[order], VALUES[order]


def permutation_error(build=plain, beta: float = 1.0) -> float:
    """Largest change, over all orderings of the tokens, between what a token receives when the
    sentence is reordered and what it receives in the original order (0: order-blind).
    ``build(order)`` gives the queries, keys and values of the tokens in that order."""
    n = len(TOKENS)
    _, _, mixed = attention_table(*build(list(range(n))), beta)
    worst = 0.0
    for perm in itertools.permutations(range(n)):
        p = list(perm)
        _, _, mixed_p = attention_table(*build(p), beta)
        # Row i of the reordered run belongs to token p[i].
        worst = max(worst, float(np.max(np.abs(mixed_p - mixed[p]))))
    return worst


def single_lookup(query, keys, values, beta: float = 1.0):
    """One query against every key, one dot product at a time (the note's first cell)."""
    scores = np.array([float(np.dot(query, k)) for k in keys])
    shares = softmax(beta * scores)
    return scores, shares, shares @ values


def causal_shares(scores: np.ndarray, beta: float = 1.0) -> np.ndarray:
    """Shares when each token may only look at itself and earlier tokens (the causal mask)."""
    masked = np.where(np.tril(np.ones_like(scores, dtype=bool)), beta * scores, -np.inf)
    return softmax(masked, axis=-1)


def finite_difference_self_gradient(scores, beta: float, h: float = 1e-5) -> np.ndarray:
    """d share_j / d score_j of every query and key by a central finite difference of the
    softmax itself (no derivative formula used), at sharpness ``beta``."""
    scores = np.asarray(scores, dtype=float)
    n_q, n_k = scores.shape
    out = np.empty_like(scores)
    for j in range(n_k):
        bump = np.zeros(n_k)
        bump[j] = h
        up = softmax(beta * (scores + bump), axis=-1)[:, j]
        down = softmax(beta * (scores - bump), axis=-1)[:, j]
        out[:, j] = (up - down) / (2 * h)
    return out


def argmax_finite_difference(scores, h: float = 1e-5) -> float:
    """Largest |finite-difference derivative| of a hard one-hot argmax read with respect to any
    score (0 away from ties: the hard lookup gives no score a gradient)."""
    scores = np.asarray(scores, dtype=float)
    n_k = scores.shape[1]

    def onehot(s):
        return np.eye(n_k)[np.argmax(s, axis=-1)]

    worst = 0.0
    for j in range(n_k):
        bump = np.zeros(n_k)
        bump[j] = h
        worst = max(worst, float(np.max(np.abs(onehot(scores + bump) - onehot(scores - bump)))))
    return worst / (2 * h)


@experiment(
    grid={"beta": reals(gt=0, doc="inverse temperature beta multiplying the attention scores")},
    outputs=(
        Output("score", "dot product of query and key", dims=("query", "key")),
        Output("weight", "attention share of key for query", dims=("query", "key")),
        Output("mixed", "values mixed in the shares of a query", dims=("query", "value_dim")),
        Output("n_scores", "number of query-key scores in the table"),
        Output("classic_tokens", "tokens in the classic test sentence"),
        Output(
            "causal_weight",
            "share of key for query when later keys are masked",
            dims=("query", "key"),
        ),
        Output("causal_future_mass", "share a query puts on later tokens, masked", dims=("query",)),
        Output("causal_row_sum", "sum of a query's masked shares", dims=("query",)),
        Output(
            "self_gradient",
            "derivative of a key's share with respect to its own score",
            dims=("query", "key"),
        ),
        Output(
            "fd_self_gradient_min",
            "smallest finite-difference derivative of a share with respect to its own score",
        ),
        Output(
            "argmax_fd_gradient",
            "largest finite-difference derivative of a hard argmax read by a score",
        ),
        Output("row_sum", "sum of a query's shares", dims=("query",)),
        Output("top_weight", "largest share of a query", dims=("query",)),
        Output("entropy", "entropy of a query's shares", "nats", ("query",)),
        Output("uniform_gap", "largest distance of a share from 1/5", dims=("query",)),
        Output(
            "single_gap",
            "largest difference between the one-query lookup and the table's row",
            dims=("query",),
        ),
        Output(
            "shift_gap",
            "largest difference between the softmax with and without the max subtracted",
            dims=("query",),
        ),
        Output(
            "order_error",
            "largest change of any token's output over all 120 reorderings of the tokens",
        ),
    ),
    coords={
        "query": coord("query token of the sentence", TOKENS),
        "key": coord("key token of the sentence", TOKENS),
        "value_dim": coord("coordinate of the value vectors (1 first)", (1, 2)),
    },
    sections=(
        "soft-dictionary: Attention Is a Soft Dictionary Lookup (lines 29-153)",
        "soft-dictionary: Self-Attention: Every Token Asks Every Token (lines 155-188)",
    ),
)
def soft_lookup(beta: float) -> dict:
    """Every query of the hand-set sentence against every key, at sharpness ``beta``."""
    scores, shares, mixed = attention_table(QUERIES, KEYS, VALUES, beta)
    single = [single_lookup(q, KEYS, VALUES, beta)[1] for q in QUERIES]
    causal = causal_shares(scores, beta)
    return {
        "classic_tokens": float(len(CLASSIC_SENTENCE)),
        "causal_weight": causal,
        "causal_future_mass": np.triu(causal, k=1).sum(axis=1),
        "causal_row_sum": causal.sum(axis=1),
        # d share_j / d score_j = beta * w_j (1 - w_j): positive for every key, unlike argmax.
        "self_gradient": beta * shares * (1.0 - shares),
        "fd_self_gradient_min": float(finite_difference_self_gradient(scores, beta).min()),
        "argmax_fd_gradient": argmax_finite_difference(scores),
        "score": scores,
        "weight": shares,
        "mixed": mixed,
        "n_scores": float(scores.size),
        "row_sum": shares.sum(axis=1),
        "top_weight": shares.max(axis=1),
        "entropy": entropy_nats(shares, axis=1),
        "uniform_gap": np.abs(shares - 1.0 / len(KEYS)).max(axis=1),
        "single_gap": np.abs(np.array(single) - shares).max(axis=1),
        "shift_gap": np.abs(softmax(beta * scores) - naive_softmax(beta * scores)).max(axis=1),
        "order_error": permutation_error(plain, beta),
    }


def with_positions(strength: float):
    """A builder of the patched sentence: the tokens in a given order, each with a one-hot code
    of the slot it sits in, and a query that asks for the slot just before its own (strength
    scales that question). Keys carry only the position, so content cannot compete."""
    n = len(TOKENS)
    pos = np.eye(n)
    shift = np.eye(n, k=-1)  # row i has a 1 at column i-1

    def build(order):
        queries = np.hstack([QUERIES[order], strength * shift])
        keys = np.hstack([np.zeros_like(KEYS), pos])
        return queries, keys, VALUES[order]

    return build


@experiment(
    grid={
        "strength": reals(gt=0, doc="strength of the position signal in the keys"),
        "beta": reals(gt=0, doc="inverse temperature beta multiplying the attention scores"),
    },
    outputs=(
        Output("weight", "attention share of key for query", dims=("query", "key")),
        Output("previous_share", "share a token puts on the token before it", dims=("query",)),
        Output("looks_back", "1 if every token but the first puts its top share one back"),
        Output(
            "order_error",
            "largest change of any token's output over all 120 reorderings of the tokens",
        ),
    ),
    coords={
        "query": coord("query token of the sentence", TOKENS),
        "key": coord("key token of the sentence", TOKENS),
    },
    sections=("soft-dictionary: the position patch for order-blindness (line 188)",),
)
def position_lookup(strength: float, beta: float) -> dict:
    """The order-blindness patch: with positions in the keys, each token can look one back."""
    build = with_positions(strength)
    _, shares, _ = attention_table(*build(list(range(len(TOKENS)))), beta)
    previous = np.arange(len(TOKENS)) - 1
    looks_back = np.argmax(shares[1:], axis=1) == previous[1:]
    return {
        "weight": shares,
        "previous_share": np.array([np.nan, *shares[np.arange(1, 5), previous[1:]]]),
        "looks_back": float(np.all(looks_back)),
        "order_error": permutation_error(build, beta),
    }
