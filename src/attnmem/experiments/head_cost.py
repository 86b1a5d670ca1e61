"""What one head costs as its row grows (every-word, lines 287-327 and Exercise 3, 397-399).

A head over ``n`` tokens, ``D`` numbers a token and keys ``dk`` wide does ``3 n D dk``
multiply-adds of projection and ``n^2 dk`` each for the score square and for the mixing. The
multiply-adds are counted by running the explicit-loop head of ``single_head`` on a row of
``n`` tokens (its counters sit where the multiply-adds happen), as long as the run is within
``count_budget`` multiply-adds; beyond that the formula stands in and ``counted`` says so.
The row's numbers are the four typed tokens repeated, since the counts do not depend on them.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..spec import Output, experiment, integer, ints, real
from .single_head import WK, WQ, WV, X, attend_counting, make_head


def formula(n: int, D: int, dk: int) -> tuple[int, int, int]:
    """Projection, score and mixing multiply-adds by the closed form."""
    return 3 * n * D * dk, n * n * dk, n * n * dk


def _row(n: int, D: int) -> np.ndarray:
    """``n`` tokens of width ``D``: the typed tokens repeated (padded or cut to width D)."""
    base = np.zeros((4, D))
    base[:, : min(4, D)] = X[:, : min(4, D)]
    return np.resize(base, (n, D))


def _weights(D: int, dk: int) -> list[np.ndarray]:
    """The typed matrices, padded or cut to a (dk, D) shape."""
    out = []
    for w in (WQ, WK, WV):
        m = np.zeros((dk, D))
        m[: min(4, dk), : min(4, D)] = w[: min(4, dk), : min(4, D)]
        out.append(m)
    return out


@lru_cache(maxsize=64)
def counted(n: int, D: int, dk: int) -> tuple[int, int, int]:
    """Projection, score and mixing multiply-adds counted by the explicit-loop head."""
    head = make_head(*_weights(D, dk))
    cost = attend_counting(head, _row(n, D)).cost
    return cost.project, cost.score, cost.mix


def cost_of(n: int, D: int, dk: int, budget: float) -> tuple[tuple[int, int, int], bool]:
    """The three costs, counted when the run fits in ``budget`` multiply-adds."""
    by_formula = formula(n, D, dk)
    if sum(by_formula) <= budget:
        return counted(n, D, dk), True
    return by_formula, False


def crossover(D: int, dk: int) -> int:
    """Smallest row length at which the pairs' multiply-adds exceed the projections'."""
    n = np.arange(1, 3 * D + 3)
    pairs = 2 * n * n * dk
    proj = 3 * n * D * dk
    return int(n[np.argmax(pairs > proj)])


@experiment(
    grid={"n": ints(doc="context length n in tokens")},
    params={
        "D": integer(min=1),
        "d_k": integer(min=1),
        "wide_D": integer(min=1, memory=True),
        "count_budget": real(min=0, work=True, max=1e12),
    },
    outputs=(
        Output("project", "multiply-adds of the three projections", "multiply-adds"),
        Output("score", "multiply-adds of the score square", "multiply-adds"),
        Output("mix", "multiply-adds of the mixing", "multiply-adds"),
        Output("pairs", "multiply-adds of scores and mixing", "multiply-adds"),
        Output("total", "multiply-adds of the whole run", "multiply-adds"),
        Output("counted", "1 if counted by the loop head, 0 if by the formula"),
        Output("formula_project", "3 n D dk", "multiply-adds"),
        Output("formula_pairs", "2 n^2 dk", "multiply-adds"),
        Output("formula_total", "3 n D dk + 2 n^2 dk", "multiply-adds"),
        Output(
            "formula_gap", "counted total minus the formula (NaN if not counted)", "multiply-adds"
        ),
        Output("formula_agrees", "1 if the counted total equals the formula"),
        Output("project_per_token", "projection multiply-adds per token", "multiply-adds"),
        Output("score_equals_mix", "1 if the score and mixing counts are equal"),
        Output("pair_share", "share of the total spent on pairs"),
        Output("pairs_exceed", "1 if the pairs cost more than the projections"),
        Output("x_half", "total over the total at n/2"),
        Output("project_x_half", "projections over the projections at n/2"),
        Output("pairs_x_half", "pairs over the pairs at n/2"),
        Output("x_double", "total at 2n over the total at n"),
        Output("crossover", "smallest n at which the pairs cost more (this head)", "tokens"),
        Output(
            "crossover_threshold_over_D",
            "largest n at which the projections still cost at least as much, over D",
        ),
        Output("crossover_wide", "smallest n at which the pairs cost more (wide head)", "tokens"),
        Output("wide_pair_share", "share spent on pairs by the wide head"),
        Output("wide_x_double", "total at 2n over the total at n (wide head)"),
    ),
    sections=(
        "every-word: longer rows cost squares (lines 287-327)",
        "every-word: the cost test (line 339), Exercise 3 (lines 397-399)",
    ),
)
def head_cost(n: int, D: int, d_k: int, wide_D: int, count_budget: float) -> dict:
    """The cost table's row for ``n`` tokens, its ratios to the rows at n/2 and 2n, the
    crossover of this head and of a head ``wide_D`` numbers a token wide."""
    (proj, score, mix), was_counted = cost_of(n, D, d_k, count_budget)
    total = proj + score + mix
    pairs = score + mix
    if n % 2 == 0:
        (p_half, s_half, m_half), _ = cost_of(n // 2, D, d_k, count_budget)
        x_half = total / (p_half + s_half + m_half)
        proj_x_half = proj / p_half
        pairs_x_half = pairs / (s_half + m_half)
    else:
        x_half = proj_x_half = pairs_x_half = float("nan")
    (p2, s2, m2), _ = cost_of(2 * n, D, d_k, count_budget)
    f_proj, f_score, f_mix = formula(n, D, d_k)
    w_proj, w_score, w_mix = formula(n, wide_D, d_k)
    w2 = sum(formula(2 * n, wide_D, d_k))
    cross = crossover(D, d_k)
    cross_wide = crossover(wide_D, d_k)
    return {
        "project": float(proj),
        "score": float(score),
        "mix": float(mix),
        "pairs": float(pairs),
        "total": float(total),
        "counted": float(was_counted),
        "formula_project": float(f_proj),
        "formula_pairs": float(f_score + f_mix),
        "formula_total": float(f_proj + f_score + f_mix),
        "formula_gap": float(total - (f_proj + f_score + f_mix)) if was_counted else np.nan,
        "formula_agrees": float(total == f_proj + f_score + f_mix) if was_counted else np.nan,
        "project_per_token": proj / n,
        "score_equals_mix": float(score == mix),
        "pair_share": pairs / total,
        "pairs_exceed": float(pairs > proj),
        "x_half": x_half,
        "project_x_half": proj_x_half,
        "pairs_x_half": pairs_x_half,
        "x_double": (p2 + s2 + m2) / total,
        "crossover": float(cross),
        "crossover_threshold_over_D": (cross - 1) / D,
        "crossover_wide": float(cross_wide),
        "wide_pair_share": (w_score + w_mix) / (w_proj + w_score + w_mix),
        "wide_x_double": w2 / (w_proj + w_score + w_mix),
    }


MA = "multiply-adds"
