"""The 1/sqrt(d_k) scale measured on one query against ``keys`` random keys (first-principles
C3, lines 639-659).

A replicate is one run of the note's size: ``draws`` queries, each against ``keys`` keys with
independent standard normal entries, read with the raw scores q.k and with q.k / sqrt(d_k); and
``pairs`` independent (q, k) pairs for the sample variance of a score. Rows are drawn with the
exact chi-square shortcut of ``score_scale`` (given q, the scores are iid N(0, |q|^2)), which is
tested there against direct sampling; the (q, k) pairs of the variance check are drawn directly.
Exact companions: Var(q.k) = d_k, the expected gap between
the best and the second-best raw score, E|q| times the expected gap of ``keys`` standard normals.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from scipy import integrate, special

from ..spec import Output, coord, experiment, integer, ints, seeds
from .score_scale import mean_chi
from .softmax import entropy_nats, softmax


@lru_cache(maxsize=8)
def expected_top_gap(m: int) -> float:
    """E[largest - second largest] of m standard normals: the integral of
    P(exactly one of them exceeds x) = m F(x)^(m-1) (1 - F(x))."""

    def integrand(x):
        cdf = special.ndtr(x)  # the normal CDF, as scipy.stats.norm.cdf (a 0.4 s import) has it
        return m * cdf ** (m - 1) * (1.0 - cdf)

    return integrate.quad(integrand, -np.inf, np.inf)[0]


def row_scores(rng: np.random.Generator, d_k: int, rows: int, tokens: int) -> np.ndarray:
    """Raw scores of ``rows`` queries against ``tokens`` keys each: sqrt(chi2(d_k)) times
    standard normals, the law of ``score_scale.shortcut_scores`` with a scalar width (faster)."""
    return np.sqrt(rng.chisquare(d_k, rows))[:, None] * rng.standard_normal((rows, tokens))


def read_weights(scores: np.ndarray) -> dict:
    """Per-draw readings of a block of score rows (draws, keys)."""
    a = softmax(scores, axis=-1)
    return {
        "spread_out": 1.0 - np.sum(a**2, axis=-1),  # trace of the softmax Jacobian
        "top": a.max(axis=-1),
        "entropy": entropy_nats(a, axis=-1),
        "weights": a,
    }


@experiment(
    grid={"d_k": ints(doc="key and query width d_k"), "seed": seeds()},
    params={
        "keys": integer(min=2, memory=True),
        "draws": integer(min=1, memory=True, work=True),
        "pairs": integer(min=2, memory=True, work=True),
        "pair_max_width": integer(min=1),
    },
    outputs=(
        Output("trace_raw", "mean 1 - sum a^2, raw scores"),
        Output("trace_scaled", "mean 1 - sum a^2, scores over sqrt(d_k)"),
        Output("trace_max", "largest possible 1 - sum a^2, 1 - 1/keys"),
        Output("top_raw", "mean largest weight, raw scores"),
        Output("top_scaled", "mean largest weight, scaled scores"),
        Output("entropy_raw", "mean entropy of the weights, raw scores", "nats"),
        Output("entropy_scaled", "mean entropy of the weights, scaled scores", "nats"),
        Output("entropy_raw_first", "entropy of the run's first draw, raw scores", "nats"),
        Output(
            "entropy_raw_first_2dp",
            "the same, rounded to two decimals as the note prints it",
            "nats",
        ),
        Output("entropy_uniform", "ln(keys), the entropy of uniform weights", "nats"),
        Output("weights_raw_first", "weights of the first draw, raw", dims=("key",)),
        Output("weights_scaled_first", "weights of the first draw, scaled", dims=("key",)),
        Output("score_mean", "sample mean of q.k over the pairs"),
        Output("score_var", "sample variance of q.k over the pairs"),
        Output("scaled_var", "sample variance of q.k / sqrt(d_k) over the pairs"),
        Output("gap_raw", "mean gap between the best and second-best raw score"),
        Output("gap_exact", "expected gap, exact (E|q| times the normal top gap)"),
        Output("gap_growth_exponent", "log2 of the expected gap at 2 d_k over that at d_k"),
    ),
    coords={
        "key": coord("key of the example draw (1 first)", lambda keys, **_: range(1, keys + 1))
    },
    sections=("first-principles C3: the scale, its check and its figure (lines 639-659)",),
)
def score_saturation(
    d_k: int, seed: int, keys: int, draws: int, pairs: int, pair_max_width: int, rng
) -> dict:
    """One run of the note's size at key size ``d_k`` (the pairs only up to ``pair_max_width``,
    NaN beyond: they are the slow part and the note reads them at 4 and 64)."""
    del seed  # a replicate index: it only selects this point's generator
    raw = row_scores(rng, d_k, draws, keys)
    scaled = raw / math.sqrt(d_k)
    r, s = read_weights(raw), read_weights(scaled)
    if d_k <= pair_max_width:
        # Drawn directly, q and k with independent standard normal entries and the score their
        # dot product: the law of the sum is not assumed (the shortcut above builds in its
        # variance, which is what these pairs test).
        q, k = rng.standard_normal((2, pairs, d_k))
        pair_scores = np.einsum("ij,ij->i", q, k)
    else:
        pair_scores = np.full(2, np.nan)
    srt = np.sort(raw, axis=-1)
    gap = srt[:, -1] - srt[:, -2]
    gap_exact = expected_top_gap(keys) * mean_chi(d_k)
    gap_exact_2x = expected_top_gap(keys) * mean_chi(2 * d_k)
    return {
        "trace_raw": float(r["spread_out"].mean()),
        "trace_scaled": float(s["spread_out"].mean()),
        "trace_max": 1.0 - 1.0 / keys,
        "top_raw": float(r["top"].mean()),
        "top_scaled": float(s["top"].mean()),
        "entropy_raw": float(r["entropy"].mean()),
        "entropy_scaled": float(s["entropy"].mean()),
        "entropy_raw_first": float(r["entropy"][0]),
        "entropy_raw_first_2dp": round(float(r["entropy"][0]), 2),
        "entropy_uniform": math.log(keys),
        "weights_raw_first": r["weights"][0],
        "weights_scaled_first": s["weights"][0],
        "score_mean": float(pair_scores.mean()),
        "score_var": float(pair_scores.var(ddof=1)),
        "scaled_var": float(pair_scores.var(ddof=1) / d_k),
        "gap_raw": float(gap.mean()),
        "gap_exact": gap_exact,
        "gap_growth_exponent": math.log2(gap_exact_2x / gap_exact),
    }
