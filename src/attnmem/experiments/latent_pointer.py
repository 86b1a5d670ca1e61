"""Attention as a latent pointer (first-principles C1, lines 455-552).

Three pieces, one experiment each:

- ``circle_lookup`` (lines 458-463): six unit keys on a circle with one scalar value each, read
  by a unit query at 60 degrees, and an 8 x 8 attention matrix of two-dimensional arrows (its
  causal variant and its ranks). The note prints only some of these inputs; the rest are our
  choice (see CIRCLE_* and MATRIX_* below) and the claims judge what does not depend on it.
- ``latent_pointer`` (lines 464-529): the hand-set pointer on a ToyLang sentence (subject and
  object tags as keys), its weight and cost on the copied name at any gap, against a window of
  8 tokens and the fitted bag of words.
- ``pointer_gradient`` (lines 478-550): the maximum-entropy reading of the softmax, its numeric
  check, and the gradient of the log-probability of a target as responsibility minus weight,
  against central finite differences.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.optimize import brentq, minimize
from scipy.special import logsumexp

from ..spec import Output, coord, experiment, from_param, integer, ints, real, reals
from . import toylang as tl
from .bag_of_words import closed_form_bag
from .softmax import entropy_nats, softmax

# ----------------------------------------------------------------------------- the circle

QUERY_DEG = 60.0  # printed (line 460)
# Keys in degrees and their scalar values. Printed (line 460): the key at 85 degrees with value
# -0.5 and the key at 20 degrees. Our choice: the value 0.8 of the 20-degree key and the other
# four keys and values, picked so that the note's readings at beta = 8 and 1 are attained.
CIRCLE_KEYS_DEG = np.array([20.0, 85.0, 155.0, 210.0, 270.0, 330.0])
CIRCLE_VALUES = np.array([0.8, -0.5, -0.5, -0.3, 0.1, 0.5])

# The 8 x 8 matrix (lines 461-463): one unit query arrow per row, one unit key arrow per column,
# one scalar value per key. None is printed; these were chosen so that the printed readings at
# beta = 3 (rows 2, 3 and 6, masked and unmasked) are attained.
MATRIX_Q_DEG = np.array([138.0, 338.0, 82.0, 101.0, 3.0, 177.0, 90.0, 243.0])
MATRIX_K_DEG = np.array([341.0, 260.0, 26.0, 114.0, 171.0, 209.0, 267.0, 22.0])
MATRIX_VALUES = np.array([0.47, 0.17, 0.89, 0.16, -0.22, 0.74, 0.92, 0.92])


def unit(deg) -> np.ndarray:
    """Unit arrows at the given angles (degrees), one per row."""
    rad = np.deg2rad(np.asarray(deg, dtype=float))
    return np.stack([np.cos(rad), np.sin(rad)], axis=-1)


def causal_softmax(scores: np.ndarray) -> np.ndarray:
    """Row-wise softmax with every entry above the diagonal set to minus infinity."""
    keep = np.tril(np.ones(scores.shape, dtype=bool))
    return softmax(np.where(keep, scores, -np.inf), axis=-1)


def taylor_rank(scores: np.ndarray, beta: float, order: int) -> int:
    """Rank of the exponential's series cut after ``order`` terms, sum_k (beta s)^k / k!,
    taken entrywise: each power adds one angular frequency, that is two to the rank."""
    total = sum((beta * scores) ** k / math.factorial(k) for k in range(order + 1))
    return int(np.linalg.matrix_rank(total))


def circle_reads(beta: float) -> dict:
    """The six keys on the circle read by the query at 60 degrees: weights, blend, hard answer
    and the least weight any key can get (lines 458-460)."""
    keys = unit(CIRCLE_KEYS_DEG)
    scores = keys @ unit(QUERY_DEG)
    w = softmax(beta * scores)
    best = int(np.argmax(scores))
    i20, i85 = (
        int(np.argmin(np.abs(CIRCLE_KEYS_DEG - 20))),
        int(np.argmin(np.abs(CIRCLE_KEYS_DEG - 85))),
    )
    return {
        "circle_weight": w,
        "circle_value": CIRCLE_VALUES,
        "circle_answer": float(w @ CIRCLE_VALUES),
        "circle_mean_value": float(CIRCLE_VALUES.mean()),
        "circle_hard_answer": float(CIRCLE_VALUES[best]),
        "circle_best_angle": float(CIRCLE_KEYS_DEG[best]),
        "circle_best_over_20": float(w[i85] / w[i20]),
        "circle_min_weight": float(w.min()),
        # Whatever the angles: scores lie in [-1, 1], so a key gets at least this much.
        "circle_min_weight_bound": 1.0 / (1.0 + (len(keys) - 1) * math.exp(2 * beta)),
    }


def sweep_angles(angle_step: int, **_) -> np.ndarray:
    """Query angles of the sweep round the circle: 0 up to 360 degrees, ``angle_step`` apart."""
    return np.arange(0.0, 360.0, angle_step)


def circle_sweep(beta: float, angles: np.ndarray) -> dict:
    """The soft blend and the hard lookup as the query moves round the circle (line 459)."""
    sweep_scores = unit(angles) @ unit(CIRCLE_KEYS_DEG).T
    return {
        "circle_answer_sweep": softmax(beta * sweep_scores, axis=-1) @ CIRCLE_VALUES,
        "circle_hard_sweep": CIRCLE_VALUES[np.argmax(sweep_scores, axis=1)],
    }


def matrix_scores() -> np.ndarray:
    """The raw scores q_i . k_j of the 8 x 8 matrix's unit arrows (line 461)."""
    return unit(MATRIX_Q_DEG) @ unit(MATRIX_K_DEG).T


def matrix_reads(beta: float, s: np.ndarray) -> dict:
    """The attention matrix's rows: weights, sums, blends, top weights and how the top weight
    grows with beta (lines 461-463)."""
    a = softmax(beta * s, axis=-1)
    h = 1e-6
    top_up = softmax((beta + h) * s, axis=-1).max(axis=1).mean()
    top_down = softmax(max(beta - h, 0.0) * s, axis=-1).max(axis=1).mean()
    angle = (MATRIX_Q_DEG[:, None] - MATRIX_K_DEG[None, :] + 180.0) % 360.0 - 180.0
    return {
        "matrix_score": s,
        "matrix_weight": a,
        "matrix_row_sum": a.sum(axis=1),
        "matrix_col_sum": a.sum(axis=0),
        "matrix_answer": a @ MATRIX_VALUES,
        "matrix_rest_weight": 1.0 - np.sort(a, axis=1)[:, -2:].sum(axis=1),
        "matrix_top_weight": a.max(axis=1),
        "matrix_row_spread": float(np.max(np.ptp(a, axis=0))),
        "matrix_col_sum_spread": float(np.max(np.abs(a.sum(axis=0) - 1.0))),
        "matrix_top_is_closest": float(
            np.all(np.argmax(a, axis=1) == np.argmin(np.abs(angle), axis=1))
        ),
        "matrix_top_weight_slope": float((top_up - top_down) / (beta + h - max(beta - h, 0.0))),
        "n_queries": float(len(MATRIX_Q_DEG)),
    }


def causal_reads(beta: float, s: np.ndarray) -> dict:
    """The matrix with later columns masked: no weight on the future, rows still sum to one,
    and the same as the unmasked weights renormalised on the past (lines 462-463)."""
    a = softmax(beta * s, axis=-1)
    c = causal_softmax(beta * s)
    allowed = np.tril(np.ones(a.shape, dtype=bool))
    renorm = np.where(allowed, a, 0.0) / np.where(allowed, a, 0.0).sum(axis=1, keepdims=True)
    return {
        "matrix_causal_weight": c,
        "matrix_causal_answer": c @ MATRIX_VALUES,
        "matrix_causal_future_mass": float(np.max(np.triu(c, k=1).sum(axis=1))),
        "matrix_causal_rowsum_gap": float(np.max(np.abs(c.sum(axis=1) - 1.0))),
        "causal_renorm_gap": float(np.max(np.abs(renorm - c))),
    }


def matrix_ranks(beta: float, s: np.ndarray, rank_arrows, taylor_max_order: int) -> dict:
    """Ranks of the weights, the masked weights and the scores; of the scores of more arrows
    evenly spread (``rank_arrows`` of them); and of the exponential's series cut after each
    order up to ``taylor_max_order`` (line 463)."""
    score_ranks = []
    for size in rank_arrows:  # more arrows, evenly spread, offset from the keys
        qq = unit(np.linspace(0, 360, size, endpoint=False) + 7.0)
        kk = unit(np.linspace(0, 360, size, endpoint=False))
        score_ranks.append(np.linalg.matrix_rank(qq @ kk.T))
    orders = range(taylor_max_order + 1)
    return {
        "rank_weight": float(np.linalg.matrix_rank(softmax(beta * s, axis=-1))),
        "rank_causal_weight": float(np.linalg.matrix_rank(causal_softmax(beta * s))),
        "rank_score": float(np.linalg.matrix_rank(s)),
        "rank_score_n": np.array(score_ranks, dtype=float),
        "rank_taylor": np.array([taylor_rank(s, beta, o) for o in orders], dtype=float),
    }


@experiment(
    grid={"beta": reals(min=0, doc="inverse temperature beta multiplying the attention scores")},
    params={
        "angle_step": integer(min=1, max=180, doc="degrees between query angles of the sweep"),
        "rank_arrows": ints(
            min=1, ranges=False, doc="arrow counts n of the score-rank check", work=True, memory=2
        ),
        "taylor_max_order": integer(min=0, doc="last order of the series whose rank is read"),
    },
    outputs=(
        Output(
            "circle_weight", "weight of each key on the circle (query at 60 deg)", dims=("key",)
        ),
        # the values the interactive page blends itself as the query is dragged round
        Output("circle_value", "scalar value stored under each key", dims=("key",)),
        Output("circle_answer", "blend of the values in the weights"),
        Output("circle_mean_value", "plain average of the six values"),
        Output("circle_hard_answer", "value of the best-scoring key (beta infinite)"),
        Output("circle_best_angle", "angle of the best-scoring key", "degrees"),
        Output("circle_best_over_20", "weight of the 85 deg key over the 20 deg key"),
        Output("circle_min_weight", "smallest weight of a key"),
        Output(
            "circle_min_weight_bound",
            "smallest weight any six unit keys can get, 1/(1+5 exp(2 beta))",
        ),
        Output("circle_answer_sweep", "blend as the query moves round", dims=("angle",)),
        Output("circle_hard_sweep", "hard lookup as the query moves round", dims=("angle",)),
        Output("matrix_score", "dot product q_i . k_j", dims=("row", "col")),
        Output("matrix_weight", "attention weight of row on column", dims=("row", "col")),
        Output("matrix_causal_weight", "weight with later columns masked", dims=("row", "col")),
        Output("matrix_row_sum", "sum of a row's weights", dims=("row",)),
        Output("matrix_col_sum", "sum of a column's weights", dims=("col",)),
        Output("matrix_answer", "blend of the values read by a row", dims=("row",)),
        Output("matrix_causal_answer", "blend read by a row under the mask", dims=("row",)),
        Output("matrix_rest_weight", "weight a row leaves off its top two keys", dims=("row",)),
        Output("matrix_top_weight", "largest weight of a row", dims=("row",)),
        Output("matrix_row_spread", "largest difference between two rows' weights"),
        Output("matrix_col_sum_spread", "largest distance of a column sum from 1"),
        Output(
            "matrix_top_is_closest",
            "1 if every row's largest weight is on the key at the smallest angle",
        ),
        Output("matrix_top_weight_slope", "d/d beta of the mean largest weight of a row"),
        Output("matrix_causal_future_mass", "largest masked weight above the diagonal"),
        Output("matrix_causal_rowsum_gap", "largest |row sum - 1| under the mask"),
        Output(
            "causal_renorm_gap",
            "largest gap between masked weights and unmasked ones renormalised on the past",
        ),
        Output("rank_weight", "rank of the weight matrix"),
        Output("rank_causal_weight", "rank of the masked weight matrix"),
        Output("rank_score", "rank of the score matrix QK^T"),
        Output("rank_score_n", "rank of QK^T for n evenly spread arrows", dims=("n",)),
        Output(
            "rank_taylor",
            "rank of the exponential's series of the scores cut after this order",
            dims=("order",),
        ),
        Output("n_queries", "rows of the matrix"),
    ),
    coords={
        "key": coord(
            "angle of each stored key on the circle",
            tuple(int(a) for a in CIRCLE_KEYS_DEG),
            units="degrees",
        ),
        "angle": coord(
            "angle of the query as it moves round the circle", sweep_angles, units="degrees"
        ),
        "row": coord("query position of the score matrix (1 first)", tuple(range(1, 9))),
        "col": coord("key position of the score matrix (1 first)", tuple(range(1, 9))),
        "n": from_param("rank_arrows"),
        "order": coord(
            "order at which the exponential's Taylor series is cut",
            lambda **p: list(range(p["taylor_max_order"] + 1)),
        ),
    },
    sections=(
        "first-principles C1: the soft dictionary on a circle (lines 458-460)",
        "first-principles C1: the attention matrix and its ranks (lines 461-463)",
    ),
)
def circle_lookup(beta: float, angle_step: int, rank_arrows, taylor_max_order: int) -> dict:
    """The soft dictionary on a circle and the 8 x 8 attention matrix at sharpness ``beta``."""
    out = circle_reads(beta)
    out.update(circle_sweep(beta, sweep_angles(angle_step)))
    s = matrix_scores()
    out.update(matrix_reads(beta, s))
    out.update(causal_reads(beta, s))
    out.update(matrix_ranks(beta, s, rank_arrows, taylor_max_order))
    return out


# ----------------------------------------------------------------------------- the ToyLang pointer

N_NAMES, N_FILLERS = 8, 6  # the note's ruler
# The prompt of line 465 (gap 10): its fillers, reused cyclically at other gaps (our choice; the
# pointer never reads a filler).
PROMPT = "Ann gave Ben a pen so so so now ok yes and yes so and then Ben thanked Ann ."
PROMPT_FILLERS = PROMPT.split()[5:15]


def toylang_sentence(gap: int) -> np.ndarray:
    """Token ids of the prompt's sentence with ``gap`` fillers (the prompt itself at 10)."""
    words = PROMPT.split()
    fillers = [PROMPT_FILLERS[i % len(PROMPT_FILLERS)] for i in range(gap)]
    return tl.encode(" ".join(words[:5] + fillers + words[15:]), N_NAMES, N_FILLERS)


def slot_keys(length: int) -> np.ndarray:
    """Hand-set keys (line 516): (1, 0) at the subject slot 0, (0, 1) at the object slot 2."""
    keys = np.zeros((length, 2))
    keys[0, 0] = 1.0
    keys[2, 1] = 1.0
    return keys


def pointer_read(tokens, keys, query, beta: float, vocab: int):
    """Weights of the pointer over the items and the distribution it gives over the vocabulary
    (the values are the one-hot tokens, so the output is a mixture of them)."""
    w = softmax(beta * (keys @ query))
    dist = np.bincount(tokens, weights=w, minlength=vocab)
    return w, dist


def window_cost(gap: int, window: int) -> float:
    """Exact cost (nats) of the final name for a table over the ``window`` tokens before it,
    with unlimited data: the conditional entropy over the enumerated language with one filler
    word (the fillers are independent of the names, so their number does not matter)."""
    pairs = np.array([(x, y) for x in range(N_NAMES) for y in range(N_NAMES) if x != y])
    x = np.repeat(pairs[:, 0], len(tl.THINGS))
    y = np.repeat(pairs[:, 1], len(tl.THINGS))
    t = np.tile(np.arange(len(tl.THINGS)), len(pairs))
    s = tl.assemble(x, y, t, np.zeros((len(x), gap), dtype=np.int64), N_NAMES)
    return tl.conditional_entropy(s, tl.copy_positions(gap)["X"], window)


SUBJECT_QUERY = np.array([1.0, 0.0])  # asked at 'thanked': the final name is the subject
OBJECT_QUERY = np.array([0.0, 1.0])  # asked at 'then': the second name is the object


def final_read(tokens, pos, beta: float):
    """The pointer read from 'thanked' over the m = L + 8 positions before it: its weights,
    its distribution over words and the final name's id."""
    m = pos["X"]
    vocab = tl.vocab_size(N_NAMES, N_FILLERS)
    w, dist = pointer_read(tokens[:m], slot_keys(m), SUBJECT_QUERY, beta, vocab)
    return w, dist, int(tokens[pos["X_source"]])


def final_cost(tokens, pos, beta: float) -> float:
    """Cost (nats) of the final name under the pointer at sharpness ``beta``."""
    _, dist, x = final_read(tokens, pos, beta)
    return -math.log(dist[x])


def prompt_layout(tokens, pos) -> dict:
    """Where the names sit in the prompt and how many items the final name's query sees
    (lines 464-466)."""
    ids = tl.token_ids(N_NAMES)
    m, m2 = pos["X"], pos["Y"]
    return {
        "n_items": float(m),
        "tokens_back": float(m - pos["X_source"]),
        "final_at": float(m),
        "second_at": float(m2),
        "template_ok": float(tokens[m - 1] == ids["thanked"] and tokens[m2 - 1] == ids["then"]),
    }


def pointer_reads(tokens, pos, beta: float) -> dict:
    """The pointer's weights, its distribution over words, the cost of both copied names and
    the posterior of the source given the answer (lines 467-477)."""
    w, dist, x = final_read(tokens, pos, beta)
    p = float(dist[x])
    m2 = pos["Y"]
    vocab = tl.vocab_size(N_NAMES, N_FILLERS)
    _, dist2 = pointer_read(tokens[:m2], slot_keys(m2), OBJECT_QUERY, beta, vocab)
    holders = (tokens[: pos["X"]] == x).astype(float)
    return {
        "weight": w,
        "source_weight": float(w[0]),
        "p_final": p,
        "cost_final": -math.log(p),
        "cost_second": -math.log(float(dist2[int(tokens[pos["Y_source"]])])),
        "output_sum": float(dist.sum()),
        "posterior_source": float((w * holders / p)[0]),
    }


def closed_form_checks(tokens, pos, beta: float) -> dict:
    """The source's weight 1/(1+(m-1)e^-beta) and cost ln(1+(m-1)e^-beta) against the
    pointer's own (lines 516-523)."""
    w, dist, x = final_read(tokens, pos, beta)
    p, m = float(dist[x]), pos["X"]
    return {
        "closed_form_weight": 1.0 / (1.0 + (m - 1) * math.exp(-beta)),
        "closed_form_cost": math.log1p((m - 1) * math.exp(-beta)),
        "closed_form_gap": max(
            abs(float(w[0]) - 1.0 / (1.0 + (m - 1) * math.exp(-beta))),
            abs(-math.log(p) - math.log1p((m - 1) * math.exp(-beta))),
        ),
    }


def reorder_check(tokens, pos, beta: float, rng: np.random.Generator) -> dict:
    """The cost does not move when the items are reordered, key and value together, twenty
    times (line 524)."""
    _, dist, x = final_read(tokens, pos, beta)
    p, m = float(dist[x]), pos["X"]
    prefix, keys = tokens[:m], slot_keys(m)
    vocab = tl.vocab_size(N_NAMES, N_FILLERS)
    moved = 0.0
    for _ in range(20):
        order = rng.permutation(m)
        _, d = pointer_read(prefix[order], keys[order], SUBJECT_QUERY, beta, vocab)
        moved = max(moved, abs(-math.log(d[x]) + math.log(p)))
    return {"reorder_change": moved}


def sharpness_needed(tokens, pos, beta: float, epsilon: float) -> dict:
    """The slope of the cost in beta, and the beta that brings the cost down to ``epsilon``:
    the note's bound and the root of the pointer's own cost (lines 525-528)."""
    m, h = pos["X"], 1e-6
    # d cost / d beta of the pointer itself, by a central difference
    slope = (final_cost(tokens, pos, beta + h) - final_cost(tokens, pos, beta - h)) / 2e-6
    return {
        "cost_slope": slope,
        "beta_needed": math.log((m - 1) / math.expm1(epsilon)),
        "beta_needed_solved": brentq(
            lambda b: final_cost(tokens, pos, b) - epsilon, 0.0, 100.0, xtol=1e-12
        ),
    }


def rival_costs(L: int, window: int, x: int) -> dict:
    """What a window table and the fitted bag pay for the final name, and how many contexts a
    table must hold (lines 466, 523, 529)."""
    return {
        "window_cost": window_cost(L, window),
        "bag_cost": float(-math.log(closed_form_bag(N_NAMES, N_FILLERS, L)[x])),
        "table_contexts": float(tl.n_sentences(N_NAMES, N_FILLERS, L)),
    }


@experiment(
    grid={
        "L": ints(
            min=0,
            max=300,
            ranges=False,
            doc="gap L: filler tokens between the thing and 'then' in a ToyLang sentence",
        ),
        "beta": reals(min=0, doc="inverse temperature beta multiplying the attention scores"),
    },
    params={
        "epsilon": real(gt=0, doc="target cost in nats"),
        "window": integer(min=1, doc="tokens a window table sees"),
    },
    outputs=(
        Output("weight", "pointer weight on each earlier position", dims=("position",)),
        Output("source_weight", "weight on the first name's position"),
        Output("p_final", "probability the pointer gives the final name"),
        Output("cost_final", "cost of the final name", "nats"),
        Output("closed_form_weight", "1/(1+(m-1)exp(-beta))"),
        Output("closed_form_cost", "ln(1+(m-1)exp(-beta))", "nats"),
        Output("closed_form_gap", "largest gap between the pointer and its closed form"),
        Output("cost_slope", "d cost / d beta of the final name", "nats"),
        Output("cost_second", "cost of the second name, read at 'then'", "nats"),
        Output("output_sum", "total of the pointer's distribution over words"),
        Output("n_items", "items the final name's query sees (m)"),
        Output("tokens_back", "distance from the final name back to its source", "tokens"),
        Output("final_at", "position of the final name"),
        Output("second_at", "position of the second name"),
        Output("template_ok", "1 if 'thanked' and 'then' sit just before the names"),
        Output("beta_needed", "smallest beta with cost below epsilon"),
        Output(
            "beta_needed_solved",
            "beta at which the pointer's own cost equals epsilon (root of the cost)",
        ),
        Output("reorder_change", "largest change of the cost over reorderings", "nats"),
        Output("posterior_source", "posterior weight of the source given the answer"),
        Output("window_cost", "cost of the final name for a window table", "nats"),
        Output("bag_cost", "cost of the final name for the fitted bag", "nats"),
        Output("table_contexts", "distinct prefixes a table must hold, N(N-1)3F^L"),
    ),
    coords={"position": coord("earlier position the pointer can weigh (0 first)")},
    sections=("first-principles C1: the pointer on ToyLang (lines 464-477, 516-529)",),
)
def latent_pointer(L: int, beta: float, rng: np.random.Generator, epsilon: float, window: int):
    """The hand-set pointer on the prompt with gap ``L`` at sharpness ``beta``."""
    tokens = toylang_sentence(L)
    pos = tl.copy_positions(L)
    out = prompt_layout(tokens, pos)
    out.update(pointer_reads(tokens, pos, beta))
    out.update(closed_form_checks(tokens, pos, beta))
    out.update(reorder_check(tokens, pos, beta, rng))
    out.update(sharpness_needed(tokens, pos, beta, epsilon))
    out.update(rival_costs(L, window, int(tokens[pos["X_source"]])))
    return out


# ------------------------------------------------------------------ max entropy and gradients

MAXENT_SCORES = np.array([1.0, 0.0, 0.0])  # line 514
MAXENT_MEAN = 0.5
MAXENT_ALTERNATIVE = np.array([0.5, 0.3, 0.2])
GRAD_SCORES = np.array([1.0, 0.0, 0.0, 0.0, 0.5, 0.0, 0.0])  # line 550
GRAD_HOLDERS = np.array([0, 1, 0, 0, 1, 0, 0], dtype=float)  # the second and the fifth
FD_STEP = 1e-5  # our choice of step for the central differences


def mean_score(scores, beta: float) -> float:
    return float(softmax(beta * scores) @ scores)


def solve_beta(scores, target: float) -> float:
    """The beta whose softmax has expected score ``target`` (min < target < max)."""
    return brentq(lambda b: mean_score(scores, b) - target, -200.0, 200.0, xtol=1e-14)


def max_entropy(scores, target: float) -> np.ndarray:
    """The distribution of largest entropy with expected score ``target``, found numerically
    (SLSQP), without using the softmax form."""
    m = len(scores)
    cons = (
        {"type": "eq", "fun": lambda a: a.sum() - 1.0},
        {"type": "eq", "fun": lambda a: a @ scores - target},
    )
    res = minimize(
        lambda a: -entropy_nats(a),
        np.full(m, 1.0 / m),
        method="SLSQP",
        bounds=[(1e-12, 1.0)] * m,
        constraints=cons,
        options={"ftol": 1e-14, "maxiter": 500},
    )
    return res.x


def log_target_prob(scores, holders, beta: float) -> float:
    return math.log(float(softmax(beta * scores) @ holders))


def central_gradient(f, x, h: float = FD_STEP) -> np.ndarray:
    """Central finite differences of a scalar function, one coordinate at a time."""
    out = np.empty(len(x))
    for i in range(len(x)):
        e = np.zeros(len(x))
        e[i] = h
        out[i] = (f(x + e) - f(x - e)) / (2 * h)
    return out


def maxent_on_scores(s: np.ndarray, beta: float) -> dict:
    """The softmax of random scores is the optimiser's maximum-entropy distribution with the
    same expected score, which lies between the smallest and largest score (lines 478-498)."""
    a = softmax(beta * s)
    sbar = float(a @ s)
    # Past beta = 50 the target sits at the top score (a point mass): no optimiser check there.
    maxent_gap = float(np.max(np.abs(max_entropy(s, sbar) - a))) if beta < 50 else float("nan")
    log_z = float(logsumexp(beta * s))
    return {
        "maxent_gap": maxent_gap,
        "sbar": sbar,
        "sbar_minus_mean": sbar - float(s.mean()),
        "sbar_inside": float(s.min() < sbar < s.max()),
        "sbar_gap_to_max": float(s.max() - sbar),
        "score_min": float(s.min()),
        "score_max": float(s.max()),
        "entropy": float(entropy_nats(a)),
        "log_m": math.log(len(s)),
        "entropy_identity_gap": abs(float(entropy_nats(a)) - (log_z - beta * sbar)),
    }


def entropy_derivatives(s: np.ndarray, beta: float) -> dict:
    """d sbar / d beta is the variance of the scores and dH / d sbar is -beta, by central
    differences in beta (lines 496-505)."""
    a = softmax(beta * s)
    sbar = float(a @ s)
    var = float(a @ (s - sbar) ** 2)
    h = 1e-5
    a_plus, a_minus = softmax((beta + h) * s), softmax((beta - h) * s)
    dsbar = (a_plus @ s - a_minus @ s) / (2 * h)
    dh = (entropy_nats(a_plus) - entropy_nats(a_minus)) / (2 * h)
    return {
        "dsbar_minus_var": abs(dsbar - var),
        "dh_dsbar": dh / dsbar if dsbar > 1e-9 else float("nan"),
        "dh_plus_beta_var": abs(dh + beta * var),
        "variance": var,
    }


def softmax_invariances(s: np.ndarray, shift: float, beta: float) -> dict:
    """A shift of every score changes nothing, odds are exp(beta) per unit of score, beta = 0 is
    uniform and tied scores tie (lines 506-515)."""
    a = softmax(beta * s)
    return {
        "shift_gap": float(np.max(np.abs(softmax(beta * (s + shift)) - a))),
        "odds_gap": float(np.max(np.abs(np.diff(np.log(a)) - beta * np.diff(s)))),
        "uniform_gap": float(np.max(np.abs(a - 1.0 / len(s)))),
        "tie_weights": softmax(beta * np.array([1.0, 1.0, 0.0])),
    }


def maxent_three_scores() -> dict:
    """The note's check on scores (1, 0, 0) with mean score 1/2: beta = ln 2, its weights and
    entropy, against the entropy of (1/2, 0.3, 0.2) with the same mean (line 514)."""
    beta_star = solve_beta(MAXENT_SCORES, MAXENT_MEAN)
    a_star = softmax(beta_star * MAXENT_SCORES)
    return {
        "maxent_beta": beta_star,
        "maxent_weights": a_star,
        "maxent_entropy": float(entropy_nats(a_star)),
        "alternative_entropy": float(entropy_nats(MAXENT_ALTERNATIVE)),
        "alternative_mean": float(MAXENT_ALTERNATIVE @ MAXENT_SCORES),
    }


def target_gradient(beta: float) -> dict:
    """The gradient of ln P(target) on the note's seven scores is beta (r - a), against
    finite differences, the softmax Jacobian and Fisher's identity (lines 530-548, 550-551)."""
    g = GRAD_SCORES
    w = softmax(beta * g)
    p = float(w @ GRAD_HOLDERS)
    r = w * GRAD_HOLDERS / p
    formula = beta * (r - w)
    fd = central_gradient(lambda x: log_target_prob(x, GRAD_HOLDERS, beta), g)
    jac = beta * (np.diag(w) - np.outer(w, w))  # d a_j / d s_i = beta a_j (delta_ij - a_i)
    jac_fd = np.stack(
        [central_gradient(lambda x, j=j: softmax(beta * x)[j], g) for j in range(len(g))]
    )
    # Fisher's identity: the complete-data gradient beta (delta_iJ - a_i) averaged over J ~ r.
    fisher = beta * (r - w * r.sum())
    return {
        "grad_p": p,
        "grad_weight": w,
        "responsibility": r,
        "grad_formula": formula,
        "grad_fd_gap": float(np.max(np.abs(fd - formula))),
        "jacobian_fd_gap": float(np.max(np.abs(jac_fd - jac.T))),
        "fisher_gap": float(np.max(np.abs(fisher - formula))),
        "holders_raised": float(np.all(formula[GRAD_HOLDERS == 1] >= 0)),
        "others_lowered": float(np.all(formula[GRAD_HOLDERS == 0] < 0)),
        # Fisher's identity by a second route: the complete-data gradient beta (e_J - a) of
        # each position J, averaged under the posterior r, against the finite differences.
        "fisher_fd_gap": float(np.max(np.abs(r @ (beta * (np.eye(len(g)) - w)) - fd))),
        # The signs of the gradient read from the finite differences, not from the formula.
        "holders_raised_fd": float(np.all(fd[GRAD_HOLDERS == 1] > 0)),
        "others_lowered_fd": float(np.all(fd[GRAD_HOLDERS == 0] < 0)),
    }


def vector_gradient(beta: float, rng: np.random.Generator) -> dict:
    """With vector values read through a direction g, d(g.o)/ds_i = beta a_i (v_i - o).g,
    against finite differences on the seven scores (line 549)."""
    s = GRAD_SCORES
    w = softmax(beta * s)
    v, gvec = rng.normal(size=(len(s), 3)), rng.normal(size=3)
    o = w @ v
    vec_formula = beta * w * ((v - o) @ gvec)
    vec_fd = central_gradient(lambda x: float(softmax(beta * x) @ v @ gvec), s)
    return {"vector_fd_gap": float(np.max(np.abs(vec_fd - vec_formula)))}


@experiment(
    grid={"beta": reals(min=0, doc="inverse temperature beta multiplying the attention scores")},
    params={
        "m": integer(min=2, doc="positions of the random scores", work=2),
    },
    outputs=(
        Output("maxent_gap", "largest gap, maximum-entropy optimiser vs softmax"),
        Output("sbar", "expected score under the softmax"),
        Output("sbar_minus_mean", "expected score minus the plain mean score"),
        Output("sbar_inside", "1 if min score < expected score < max score"),
        Output("sbar_gap_to_max", "largest score minus the expected score"),
        Output("score_min", "smallest random score"),
        Output("score_max", "largest random score"),
        Output("entropy", "entropy of the softmax", "nats"),
        Output("log_m", "ln m", "nats"),
        Output("entropy_identity_gap", "|H - (ln Z - beta sbar)|", "nats"),
        Output("dsbar_minus_var", "|d sbar/d beta - Var_a(s)| (finite differences)"),
        Output("dh_dsbar", "dH/d sbar (finite differences)", "nats"),
        Output("dh_plus_beta_var", "|dH/d beta + beta Var_a(s)|", "nats"),
        Output("variance", "Var_a(s)"),
        Output("shift_gap", "largest weight change when a constant is added"),
        Output("odds_gap", "largest |ln(a_j/a_i) - beta(s_j - s_i)|"),
        Output("uniform_gap", "largest |a_j - 1/m|"),
        Output("tie_weights", "weights of the scores (1, 1, 0)", dims=("tie_item",)),
        Output("maxent_beta", "beta giving mean score 1/2 on scores (1,0,0)"),
        Output("maxent_weights", "softmax at that beta", dims=("item3",)),
        Output("maxent_entropy", "its entropy", "nats"),
        Output("alternative_entropy", "entropy of (1/2, 0.3, 0.2)", "nats"),
        Output("alternative_mean", "mean score of (1/2, 0.3, 0.2)"),
        Output("grad_p", "probability of the target on the seven scores"),
        Output("grad_weight", "weights of the seven positions", dims=("item7",)),
        Output("responsibility", "posterior of each position given the target", dims=("item7",)),
        Output("grad_formula", "beta (r - a)", dims=("item7",)),
        Output("grad_fd_gap", "largest |finite difference - beta (r - a)|"),
        Output("jacobian_fd_gap", "largest error of d a_j/d s_i = beta a_j(delta-a_i)"),
        Output("fisher_gap", "posterior-averaged complete-data gradient minus formula"),
        Output("vector_fd_gap", "largest error of beta a_i (v_i - o).g"),
        Output("holders_raised", "1 if every holder's gradient is >= 0"),
        Output("others_lowered", "1 if every other position's gradient is < 0"),
        Output(
            "fisher_fd_gap",
            "posterior average of beta (e_J - a) minus the finite-difference gradient",
        ),
        Output("holders_raised_fd", "1 if every holder's finite-difference gradient > 0"),
        Output("others_lowered_fd", "1 if every other finite-difference gradient is < 0"),
    ),
    coords={
        "tie_item": coord("position of the tied-scores example (1 first)", (1, 2, 3)),
        "item3": coord("position of the three-score example (1 first)", (1, 2, 3)),
        "item7": coord("position of the seven-score example (1 first)", tuple(range(1, 8))),
    },
    sections=(
        "first-principles C1: softmax as maximum entropy (lines 478-515)",
        "first-principles C1: the gradient of the pointer (lines 530-551)",
    ),
)
def pointer_gradient(beta: float, rng: np.random.Generator, m: int) -> dict:
    """Checks of the softmax derivations at sharpness ``beta``: the maximum-entropy reading on
    random scores of ``m`` positions and on the note's three scores, and the gradient of the
    log-probability of a target on the note's seven scores."""
    s = rng.normal(size=m)
    shift = rng.normal()
    out = maxent_on_scores(s, beta)
    out.update(entropy_derivatives(s, beta))
    out.update(softmax_invariances(s, shift, beta))
    out.update(maxent_three_scores())
    out.update(target_gradient(beta))
    out.update(vector_gradient(beta, rng))  # draws after the scores and the shift
    return out
