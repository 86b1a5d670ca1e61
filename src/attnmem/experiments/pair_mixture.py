"""The pair mixture: a hidden topic (which two names the sentence is about), then a bag.

first-principles, the chapter on a hidden class that the text lost (A4), reconstructed from what
A5 states about it (lines 316, 322, 328-331): one bag of words per unordered pair of names, the
pair drawn first and every token then drawn from that pair's bag. Fitted on an enumerated
ToyLang (each sentence's pair is its class), it predicts a copied name from the posterior over
pairs given the prefix. The prefix always holds both names, so the posterior sits on the right
pair, whose bag gives each of its two names 2 of the 10+L tokens of a sentence: each copy costs
ln((10+L)/2), whatever the fillers, and it cannot tell X from Y.
"""

from __future__ import annotations

import math

import numpy as np

from ..spec import Output, experiment, integer, ints
from . import toylang as tl


def copy_cost_closed(gap: int) -> float:
    """Closed form of what the mixture pays on one copied name, in nats: ln((10+L)/2)."""
    return math.log((10 + gap) / 2)


def n_bags(n_names: int) -> int:
    """One bag per unordered pair of names: N(N-1)/2."""
    return n_names * (n_names - 1) // 2


def pair_index(x: np.ndarray, y: np.ndarray, n_names: int) -> np.ndarray:
    """Index of the unordered pair {x, y} (the same for (x, y) and (y, x))."""
    lo, hi = np.minimum(x, y), np.maximum(x, y)
    return lo * n_names + hi


def token_counts(texts: np.ndarray, vocab: int) -> np.ndarray:
    """Count vector of every text, shape (S, vocab)."""
    texts = np.atleast_2d(texts)
    rows = np.repeat(np.arange(len(texts)), texts.shape[1])
    out = np.zeros((len(texts), vocab))
    np.add.at(out, (rows, texts.ravel()), 1.0)
    return out


def fit_pair_mixture(corpus: np.ndarray, n_names: int, vocab: int) -> dict:
    """Maximum-likelihood mixture with the pair of every training sentence known: the weight of
    a pair is its share of the sentences, its bag the relative frequencies of its tokens."""
    z = pair_index(corpus[:, 0], corpus[:, 2], n_names)
    classes, z = np.unique(z, return_inverse=True)
    counts = np.zeros((len(classes), vocab))
    np.add.at(counts, z, token_counts(corpus, vocab))
    weights = np.bincount(z) / len(z)
    return {
        "classes": classes,
        "log_weight": np.log(weights),
        "theta": counts / counts.sum(1)[:, None],
    }


def _log_joint(model: dict, counts: np.ndarray) -> np.ndarray:
    """ln pi_z + sum_w c_w ln theta_zw for every text and pair, shape (S, Z); -inf where the pair's
    bag cannot produce a token of the text."""
    theta = model["theta"]
    safe = np.where(theta > 0, np.log(np.where(theta > 0, theta, 1.0)), 0.0)
    impossible = counts @ (theta == 0).T.astype(float) > 0
    out = counts @ safe.T + model["log_weight"][None, :]
    return np.where(impossible, -np.inf, out)


def _logsumexp(a: np.ndarray, axis: int) -> np.ndarray:
    top = np.max(a, axis=axis, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        return np.squeeze(top, axis) + np.log(np.sum(np.exp(a - top), axis=axis))


def mixture_logprob(model: dict, texts: np.ndarray) -> np.ndarray:
    """ln p(text) under the mixture: the pairs' joint probabilities added up."""
    return _logsumexp(_log_joint(model, token_counts(texts, model["theta"].shape[1])), axis=1)


def predictive(model: dict, texts: np.ndarray, position: int) -> np.ndarray:
    """The mixture's law of the token at ``position`` given the tokens before it, for every text,
    shape (S, vocab): the bags averaged with the posterior over pairs (NaN if no pair can have
    produced the prefix)."""
    counts = token_counts(texts[:, :position], model["theta"].shape[1])
    log_joint = _log_joint(model, counts)
    norm = _logsumexp(log_joint, axis=1)
    with np.errstate(invalid="ignore"):
        post = np.exp(log_joint - norm[:, None])
    return post @ model["theta"]


@experiment(
    grid={
        "N": ints(min=2, ranges=False, doc="number of names X, Y can be drawn from in ToyLang"),
        "F": ints(doc="number of filler words in ToyLang's vocabulary"),
        "L": ints(
            min=0, doc="gap L: filler tokens between the thing and 'then' in a ToyLang sentence"
        ),
    },
    params={
        "max_enumerated": integer(min=0, doc="largest language enumerated"),
    },
    outputs=(
        Output("n_bags", "bags of the mixture, one per unordered pair of names"),
        Output("copy_nats", "cost of the two copies, closed form 2 ln((10+L)/2)", "nats"),
        Output("cost_per_copy", "cost of one copy, closed form ln((10+L)/2)", "nats"),
        Output("enumerated", "1 if the mixture was fitted on the enumerated language"),
        Output("n_bags_fitted", "pairs with a bag in the fitted mixture"),
        Output("copy_nats_enumerated", "cost of the two copies, fitted mixture", "nats"),
        Output("cost_X_enumerated", "cost of the final name, fitted mixture", "nats"),
        Output("cost_Y_enumerated", "cost of the second Y, fitted mixture", "nats"),
        Output("role_gap", "largest |p(X) - p(Y)| the fitted mixture gives at the final name"),
        Output("prefix_X_min", "fewest occurrences of X before the final name"),
        Output("prefix_X_max", "most occurrences of X before the final name"),
        Output("prefix_Y_min", "fewest occurrences of Y before the final name"),
        Output("prefix_Y_max", "most occurrences of Y before the final name"),
    ),
    sections=(
        "first-principles A4 (lost, reconstructed): the pair mixture",
        "first-principles A5: the mixture's row, the caveat on counts, the ranks "
        "(lines 316, 322, 328-331)",
    ),
)
def pair_mixture(N: int, F: int, L: int, max_enumerated: int) -> dict:
    """What the mixture pays on the two copies, as the closed form and, where the language has
    at most ``max_enumerated`` sentences, exactly from a mixture fitted on all of them; and the
    facts about the prefix at the final name that the caveat on counts rests on."""
    nan = float("nan")
    out = {
        "n_bags": float(n_bags(N)),
        "copy_nats": 2 * copy_cost_closed(L),
        "cost_per_copy": copy_cost_closed(L),
        "enumerated": 0.0,
        "n_bags_fitted": nan,
        "copy_nats_enumerated": nan,
        "cost_X_enumerated": nan,
        "cost_Y_enumerated": nan,
        "role_gap": nan,
        "prefix_X_min": nan,
        "prefix_X_max": nan,
        "prefix_Y_min": nan,
        "prefix_Y_max": nan,
    }
    if tl.n_sentences(N, F, L) > max_enumerated:
        return out
    s = tl.enumerate_sentences(N, F, L)
    model = fit_pair_mixture(s, N, tl.vocab_size(N, F))
    pos = tl.copy_positions(L)
    rows = np.arange(len(s))
    law_x = predictive(model, s, pos["X"])
    law_y = predictive(model, s, pos["Y"])
    cost_x = float(np.mean(-np.log(law_x[rows, s[:, pos["X"]]])))
    cost_y = float(np.mean(-np.log(law_y[rows, s[:, pos["Y"]]])))
    before = s[:, : pos["X"]]
    count_x = (before == s[:, [0]]).sum(axis=1)
    count_y = (before == s[:, [2]]).sum(axis=1)
    out.update(
        {
            "enumerated": 1.0,
            "n_bags_fitted": float(len(model["classes"])),
            "copy_nats_enumerated": cost_x + cost_y,
            "cost_X_enumerated": cost_x,
            "cost_Y_enumerated": cost_y,
            "role_gap": float(np.max(np.abs(law_x[rows, s[:, 0]] - law_x[rows, s[:, 2]]))),
            "prefix_X_min": float(count_x.min()),
            "prefix_X_max": float(count_x.max()),
            "prefix_Y_min": float(count_y.min()),
            "prefix_Y_max": float(count_y.max()),
        }
    )
    return out
