"""What the square-root divide is for: rows of random scores at several key widths
(every-word, lines 256-285 and Exercise 2, lines 387-396).

A row is one query scored against the keys of ``tokens`` tokens; every entry of the query and
the keys is an independent standard normal number. Each row is read with the scores divided by
sqrt(d_k) and, from the same draws, with the divide left off: its spread (largest score minus
smallest), its biggest share after the softmax, and whether that share exceeds ``threshold``
(the row is "pinned" on one token).

Sampling shortcut (exact, not an approximation): given the query q, the scores q.k_j against
independent standard normal keys are independent N(0, |q|^2) numbers, and |q|^2 is chi-square
with d_k degrees of freedom. So a row is drawn as ``sqrt(chi2(d_k)) * z`` with ``z`` standard
normal of length ``tokens``, which costs O(tokens) instead of O(tokens * d_k) and makes d_k =
4096 cheap. tests/test_score_scale.py checks it against direct sampling in distribution.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from ..spec import Output, coord, experiment, integer, ints, real, seeds


def direct_scores(rng: np.random.Generator, d_k: int, rows: int, tokens: int) -> np.ndarray:
    """Undivided scores drawn the long way: a query and ``tokens`` keys, entry by entry."""
    q = rng.standard_normal((rows, d_k))
    k = rng.standard_normal((rows, tokens, d_k))
    return np.einsum("rd,rtd->rt", q, k)


def shortcut_scores(rng: np.random.Generator, d_k, rows: int, tokens: int) -> np.ndarray:
    """Undivided scores with the same distribution: sqrt(chi2(d_k)) times standard normals.
    ``d_k`` may be an array of widths (one leading axis per width)."""
    d_k = np.asarray(d_k)
    norm = np.sqrt(rng.chisquare(d_k[..., None], size=(*d_k.shape, rows)))
    return norm[..., None] * rng.standard_normal((*d_k.shape, rows, tokens))


def uniform_scores(
    rng: np.random.Generator, d_k: int, rows: int, tokens: int, low: float, high: float
) -> np.ndarray:
    """Undivided scores with every entry uniform on [low, high): a rejected candidate law."""
    q = rng.uniform(low, high, (rows, d_k))
    k = rng.uniform(low, high, (rows, tokens, d_k))
    return np.einsum("rd,rtd->rt", q, k)


def by_token(scores: np.ndarray) -> np.ndarray:
    """The scores with the token axis first, in contiguous memory: a reduction over tokens is
    then a few elementwise operations over every row at once, where over a last axis of four
    numpy loops row by row (most of a point's time). Sums over the tokens are taken in token
    order, which for fewer than eight tokens is the order numpy's own last-axis sum takes."""
    return np.ascontiguousarray(np.moveaxis(scores, -1, 0))


def top_share(scores: np.ndarray, tokens_first: bool = False) -> np.ndarray:
    """The biggest softmax share of each row (last axis, or the first if ``tokens_first``),
    1 / sum_j exp(s_j - max s): the same number as ``softmax(scores).max(axis=-1)`` bit for bit
    (the top score's exp is exactly 1, and dividing the smaller ones by the same sum cannot
    round above 1 / sum), without forming and searching the other shares."""
    s = scores if tokens_first else by_token(scores)
    return 1.0 / np.sum(np.exp(s - np.max(s, axis=0)), axis=0)


def read_rows(scores: np.ndarray, threshold: float) -> dict:
    """Mean spread, mean biggest share and the count of pinned rows of a block of rows."""
    s = by_token(scores)
    spread = s.max(axis=0) - s.min(axis=0)
    top = top_share(s, tokens_first=True)
    return {
        "spread": spread.mean(axis=-1),
        "top": top.mean(axis=-1),
        "pinned": (top > threshold).sum(axis=-1).astype(float),
    }


@lru_cache(maxsize=16)
def expected_range(tokens: int) -> float:
    """Mean of the largest minus the smallest of ``tokens`` standard normals."""
    # Imported here: pinned_width, a job of its own, needs no scipy (0.5 s of imports).
    from scipy import integrate, special

    def integrand(x):
        cdf = special.ndtr(x)  # the standard normal CDF, as scipy.stats.norm.cdf computes it
        return 1.0 - cdf**tokens - (1.0 - cdf) ** tokens

    return integrate.quad(integrand, -np.inf, np.inf)[0]


def mean_chi(k: int) -> float:
    """Mean length of a vector of ``k`` standard normals."""
    return math.sqrt(2.0) * math.exp(math.lgamma((k + 1) / 2) - math.lgamma(k / 2))


@experiment(
    grid={"d_k": ints(work=True, memory=True, doc="key and query width d_k"), "seed": seeds()},
    params={
        "rows": integer(min=1, memory=True, work=True),
        "tokens": integer(min=2, memory=True, work=True),
        "threshold": real(gt=0, lt=1),
    },
    outputs=(
        Output("spread_div", "mean spread of a row, divided scores"),
        Output("spread_raw", "mean spread of a row, undivided scores"),
        Output("top_div", "mean biggest share of a row, divided scores"),
        Output("top_raw", "mean biggest share of a row, undivided scores"),
        Output("pinned_div", "rows whose biggest share passes the threshold, divided", "rows"),
        Output("pinned_raw", "rows whose biggest share passes the threshold, undivided", "rows"),
        Output("raw_over_div_spread", "undivided mean spread over divided mean spread"),
        Output("score_var_div", "mean square of a divided score"),
        Output("spread_expected_div", "expected spread of a row, divided (exact)"),
        Output("spread_expected_raw", "expected spread of a row, undivided (exact)"),
        Output("growth_4x", "expected undivided spread at 4 d_k over that at d_k (exact)"),
    ),
    sections=(
        "every-word: the square-root divide, the scale measurement (lines 272-285)",
        "every-word: Exercise 2 (lines 387-396)",
    ),
)
def score_scale(d_k: int, seed: int, rows: int, tokens: int, threshold: float, rng) -> dict:
    """One run of ``rows`` rows at key width ``d_k``, read divided and undivided."""
    del seed  # a replicate index: it only selects this point's generator
    raw = shortcut_scores(rng, d_k, rows, tokens)
    divided = raw / math.sqrt(d_k)
    div = read_rows(divided, threshold)
    und = read_rows(raw, threshold)
    spread_unit = expected_range(tokens)
    return {
        "spread_div": div["spread"],
        "spread_raw": und["spread"],
        "top_div": div["top"],
        "top_raw": und["top"],
        "pinned_div": div["pinned"],
        "pinned_raw": und["pinned"],
        "raw_over_div_spread": und["spread"] / div["spread"],
        "score_var_div": float(np.mean(divided**2)),
        "spread_expected_div": spread_unit * mean_chi(d_k) / math.sqrt(d_k),
        "spread_expected_raw": spread_unit * mean_chi(d_k),
        "growth_4x": mean_chi(4 * d_k) / mean_chi(d_k),
    }


def ladder(width_step: int, width_max: int) -> list[int]:
    """The key widths the crossing is searched over."""
    return list(range(width_step, width_max + 1, width_step))


def first_crossing(widths: np.ndarray, fraction: np.ndarray, level: float = 0.5) -> float:
    """Width at which ``fraction`` first exceeds ``level``, linearly interpolated between
    ladder points (the first width if it starts above, NaN if it never gets there)."""
    above = np.flatnonzero(fraction > level)
    if above.size == 0:
        return float("nan")
    i = int(above[0])
    if i == 0:
        return float(widths[0])
    w0, w1, f0, f1 = widths[i - 1], widths[i], fraction[i - 1], fraction[i]
    return float(w0 + (level - f0) * (w1 - w0) / (f1 - f0))


@experiment(
    grid={"seed": seeds()},
    params={
        "rows": integer(min=1, memory=True, work=True),
        "small_rows": integer(min=1),
        "tokens": integer(min=2, memory=True, work=True),
        "threshold": real(gt=0, lt=1),
        "width_step": integer(min=1, work=-1, memory=-1),
        "width_max": integer(min=1, work=True, memory=True),
        "bracket_low": real(gt=0),
        "bracket_high": real(gt=0),
    },
    outputs=(
        Output("pinned", "fraction of undivided rows pinned", dims=("width",)),
        Output("pinned_small", "the same over the short run", dims=("width",)),
        Output("crossing", "key width where over half the rows are pinned"),
        Output("crossing_small", "the same read off the short run"),
        Output("small_outside", "1 if the short run's crossing misses the bracket"),
    ),
    coords={
        "width": coord(
            "key and query width d_k", lambda **p: ladder(p["width_step"], p["width_max"])
        )
    },
    sections=("every-word: Exercise 2 (lines 387-396)",),
)
def pinned_width(
    seed: int,
    rows: int,
    small_rows: int,
    tokens: int,
    threshold: float,
    width_step: int,
    width_max: int,
    bracket_low: float,
    bracket_high: float,
    rng,
) -> dict:
    """One run over a ladder of widths: the fraction of undivided rows pinned at each, the
    width where that fraction first passes one half, and the same read off the first
    ``small_rows`` rows only (a short run)."""
    del seed
    widths = np.array(ladder(width_step, width_max))
    raw = shortcut_scores(rng, widths, rows, tokens)  # (width, row, token)
    top = top_share(raw)
    pinned = (top > threshold).mean(axis=-1)
    pinned_small = (top[:, :small_rows] > threshold).mean(axis=-1)
    crossing = first_crossing(widths, pinned)
    crossing_small = first_crossing(widths, pinned_small)
    inside = bracket_low <= crossing_small <= bracket_high
    return {
        "pinned": pinned,
        "pinned_small": pinned_small,
        "crossing": crossing,
        "crossing_small": crossing_small,
        "small_outside": float(not inside),
    }
