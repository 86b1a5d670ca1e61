"""One attention head over four hand-typed tokens (every-word, lines 23-286 and Exercise 1).

The note's inputs are typed here as data: the four tokens' byte strings and the chronicle line
they come from (lines 29-34), the four numbers each token arrives with (lines 36-40) and the
three 4 x 4 projection matrices (lines 67-79). A matrix is stored flat, one run of ``D`` numbers
per output slot (line 49), so printed row ``j`` holds the weights of output slot ``j`` and a
projection is ``W @ x``.

The head exists twice: ``attend_counting`` runs the note's explicit loops and increments a
counter at every multiply-add (used for the cost measurements), and ``attend`` is the same
arithmetic vectorised with numpy (used for the values). A unit test checks they agree.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import numpy as np

from ..spec import Output, choices, coord, experiment, reals
from .softmax import naive_softmax, softmax

# every-word lines 31-34: the bytes each of the first four tokens stands for, and their ids in
# the note's tokenizer table (which the note does not print, so the ids cannot be recomputed).
TOKEN_TEXT = ("year 4", "0", ": 235 hobbs standing in The Hollow, 17", "7")
TOKEN_IDS = (331, 48, 383, 55)
# every-word line 29: the chronicle entry those tokens are taken from.
CHRONICLE = "year 40: 235 hobbs standing in The Hollow, 1773 born and 1567 gone"

# every-word lines 36-40: the four typed numbers of each token (rows = tokens 1-4; slots: a
# bare-digit flag, a year flag, a count flag, and how much of a sentence the token covers).
X = np.array(
    [
        [0.0, 1.0, 0.0, 0.5],
        [1.0, 0.0, 0.0, 0.0],
        [0.0, 0.0, 1.0, 1.0],
        [1.0, 0.0, 0.0, 0.0],
    ]
)

# every-word lines 68-79: the three matrices, printed row j = weights of output slot j.
WQ = np.array(
    [
        [0.0, 0.0, 2.0, 0.0],
        [3.0, 0.0, 0.0, 0.0],
        [0.5, 0.0, 0.0, 0.0],
        [0.0, 0.5, 0.0, 0.0],
    ]
)
WK = np.array(
    [
        [1.0, 0.0, 0.0, 0.0],
        [0.0, 1.0, 0.0, 0.0],
        [0.0, 0.0, 1.0, 0.5],
        [0.0, 0.0, 0.0, 1.0],
    ]
)
WV = np.array(
    [
        [1.0, 0.0, 0.0, 0.0],
        [0.0, 1.0, 0.0, 0.0],
        [0.0, 0.0, 1.0, 0.0],
        [0.5, 0.0, 0.0, 1.0],
    ]
)

MATRICES = ("Wq", "Wk", "Wv")
TOKENS = (1, 2, 3, 4)
SLOTS = (1, 2, 3, 4)


# ----------------------------------------------------------------------------- the head


@dataclass(frozen=True)
class Head:
    """Three flat projection matrices (``D * dk`` numbers each, one run of ``D`` per output
    slot) and whether scores are divided by the square root of ``dk``. Refuses a matrix of the
    wrong size when built."""

    D: int
    dk: int
    wq: tuple
    wk: tuple
    wv: tuple
    scale: bool = True

    def __post_init__(self):
        want = self.D * self.dk
        for name, m in zip(MATRICES, (self.wq, self.wk, self.wv), strict=True):
            if len(m) != want:
                raise ValueError(
                    f"matrix {name} has {len(m)} numbers, but a {self.dk} by {self.D} "
                    f"matrix needs {want}"
                )

    @property
    def divisor(self) -> float:
        return math.sqrt(self.dk) if self.scale else 1.0

    def matrix(self, name: str) -> np.ndarray:
        """A stored matrix as a (dk, D) array: row j = weights of output slot j."""
        flat = {"Wq": self.wq, "Wk": self.wk, "Wv": self.wv}[name]
        return np.asarray(flat, dtype=float).reshape(self.dk, self.D)


def make_head(wq=WQ, wk=WK, wv=WV, scale: bool = True) -> Head:
    """A head from (dk, D) arrays, flattened run by run as the note stores them."""
    dk, d = np.shape(wq)
    return Head(d, dk, tuple(np.ravel(wq)), tuple(np.ravel(wk)), tuple(np.ravel(wv)), bool(scale))


def check_tokens(head: Head, x) -> None:
    """Refuse a token whose width is not the head's ``D``."""
    n = len(x)
    for t, token in enumerate(x, start=1):
        if len(token) != head.D:
            raise ValueError(
                f"token {t} of {n} has {len(token)} numbers, but this head reads {head.D}"
            )


@dataclass
class Cost:
    """Multiply-adds of one run, counted where they happen."""

    tokens: int = 0
    project: int = 0
    score: int = 0
    mix: int = 0
    adds: int = 0  # additions of a product onto a running sum that already held one

    @property
    def total(self) -> int:
        return self.project + self.score + self.mix

    @property
    def pairs(self) -> int:
        return self.score + self.mix


@dataclass
class Work:
    """Everything one run of a head produced, including its cost."""

    q: np.ndarray
    k: np.ndarray
    v: np.ndarray
    raw: np.ndarray
    scaled: np.ndarray
    shares: np.ndarray
    out: np.ndarray
    cost: Cost = field(default_factory=Cost)


def attend_counting(head: Head, x) -> Work:
    """The head as explicit loops over tokens, slots and pairs, with a counter incremented at
    every multiply-add (the note's Attend, lines 100-119 and 179-203)."""
    check_tokens(head, x)
    x = [list(map(float, token)) for token in x]
    n, d, dk = len(x), head.D, head.dk
    cost = Cost(tokens=n)

    def project(flat):
        out = []
        for token in x:
            row_out = []
            for j in range(dk):
                weights = flat[j * d : (j + 1) * d]
                total = 0.0
                for i in range(d):
                    if i:
                        cost.adds += 1
                    total += weights[i] * token[i]
                    cost.project += 1
                row_out.append(total)
            out.append(row_out)
        return out

    q, k, v = project(head.wq), project(head.wk), project(head.wv)
    div = head.divisor
    raw = [[0.0] * n for _ in range(n)]
    shares = []
    score_count = 0
    for i in range(n):
        qi = q[i]
        row = raw[i]
        for j in range(n):
            kj = k[j]
            total = 0.0
            for c in range(dk):
                total += qi[c] * kj[c]
                score_count += 1
            row[j] = total
        shares.append(softmax(np.array(row) / div).tolist())
    mix_count = 0
    out = []
    for i in range(n):
        acc = [0.0] * dk
        for j in range(n):
            share, vj = shares[i][j], v[j]
            for c in range(dk):
                acc[c] += share * vj[c]
                mix_count += 1
        out.append(acc)
    cost.score, cost.mix = score_count, mix_count
    raw_a = np.array(raw)
    return Work(
        np.array(q), np.array(k), np.array(v), raw_a, raw_a / div, np.array(shares),
        np.array(out), cost,
    )  # fmt: skip


def attend(head: Head, x) -> Work:
    """The same head vectorised: projections, score square, shares, mixed values."""
    check_tokens(head, x)
    x = np.asarray(x, dtype=float)
    q, k, v = (x @ head.matrix(name).T for name in MATRICES)
    raw = q @ k.T
    scaled = raw / head.divisor
    shares = softmax(scaled, axis=-1)
    return Work(q, k, v, raw, scaled, shares, shares @ v)


def layer(weights: np.ndarray, biases: np.ndarray, x: np.ndarray) -> np.ndarray:
    """A row of neurons as volume 5 of the book builds one: each output is the weighted sum of
    the inputs plus a bias (lines 13 and 133-136)."""
    return np.array([float(np.dot(w, x)) + b for w, b in zip(weights, biases, strict=True)])


def sinusoid_positions(n: int, d: int) -> np.ndarray:
    """The sine/cosine position code of Vaswani et al. (2017), one row per position."""
    pos = np.arange(n)[:, None]
    rate = 10000.0 ** (-(np.arange(d) // 2 * 2) / d)
    angle = pos * rate[None, :]
    return np.where(np.arange(d) % 2 == 0, np.sin(angle), np.cos(angle))


def order_error(head: Head, x: np.ndarray) -> float:
    """Largest change of any token's output over every reordering of the row (0: the head
    cannot tell where a token sits)."""
    base = attend(head, x).out
    worst = 0.0
    for perm in itertools.permutations(range(len(x))):
        p = list(perm)
        worst = max(worst, float(np.max(np.abs(attend(head, x[p]).out - base[p]))))
    return worst


def refusal(build) -> tuple[float, str]:
    """1 and the message if ``build()`` raises ValueError, else 0 and an empty message."""
    try:
        build()
    except ValueError as err:
        return 1.0, str(err)
    return 0.0, ""


# ----------------------------------------------------------------------------- text facts


def text_facts() -> dict:
    """Byte counts and spelling facts of the typed tokens and the chronicle line (lines 2-34)."""
    joined = "".join(TOKEN_TEXT)
    line = CHRONICLE.encode()
    # The number the fourth token sits inside: the run of digits around its position.
    start = len("".join(TOKEN_TEXT[:3]))
    lo, hi = start, start + len(TOKEN_TEXT[3])
    while lo > 0 and CHRONICLE[lo - 1].isdigit():
        lo -= 1
    while hi < len(CHRONICLE) and CHRONICLE[hi].isdigit():
        hi += 1
    year_digits = "".join(ch for ch in TOKEN_TEXT[0] + TOKEN_TEXT[1] if ch.isdigit())
    t3 = TOKEN_TEXT[2]
    return {
        "token_bytes": np.array([len(t.encode()) for t in TOKEN_TEXT], dtype=float),
        "line_bytes": float(len(line)),
        "tokens_are_prefix": float(CHRONICLE.startswith(joined)),
        "year_of_tokens_1_2": float(year_digits),
        "split_number": float(CHRONICLE[lo:hi]),
        "split_number_digits": float(hi - lo),
        "split_number_is_born_count": float(CHRONICLE[hi:].split()[0] == "born"),
        "single_digit_tokens": float(sum(len(t) == 1 and t.isdigit() for t in TOKEN_TEXT)),
        "token3_from_colon_to_mid_number": float(
            t3.startswith(":") and t3[-1].isdigit() and CHRONICLE[start].isdigit()
        ),
        "id_ratio_3_over_4": TOKEN_IDS[2] / TOKEN_IDS[3],
    }


# ----------------------------------------------------------------------------- the parts


def stored_numbers(head: Head, wq: np.ndarray) -> dict:
    """The typed numbers and the three stored matrices, and how many numbers they hold
    (lines 36-79)."""
    return {
        "x": X,
        "weights": np.stack([wq, WK, WV]),
        "numbers_per_matrix": float(len(head.wq)),
        "numbers_all_matrices": float(len(head.wq) + len(head.wk) + len(head.wv)),
    }


def projections(head: Head, w: Work, wq: np.ndarray) -> dict:
    """Each token's query, key and value, the pencil's count for one token through one matrix,
    and the same queries from each token projected alone (lines 80-132)."""
    one = attend_counting(make_head(wq, WK, WV), X[1:2])
    alone = np.array([attend(head, X[t : t + 1]).q[0] for t in range(len(X))])
    return {
        "q": w.q,
        "k": w.k,
        "v": w.v,
        "numbers_per_token_out": float(w.q.shape[1] + w.k.shape[1] + w.v.shape[1]),
        "mults_per_projection": one.cost.project / 3,
        "adds_per_projection": one.cost.adds / 3,
        "isolation_gap": float(np.max(np.abs(alone - w.q))),
        "q2_first_column_gap": float(np.max(np.abs(w.q[1] - wq[:, 0]))),
    }


def neuron_layer(head: Head, w: Work) -> dict:
    """Volume 5's row of neurons with zero biases gives the same projections (lines 133-145)."""
    by_layer = {
        name: np.array([layer(head.matrix(name), np.zeros(head.dk), X[t]) for t in range(len(X))])
        for name in MATRICES
    }
    layer_gap = max(
        float(np.max(np.abs(by_layer[name] - got)))
        for name, got in zip(MATRICES, (w.q, w.k, w.v), strict=True)
    )
    return {
        "layer_gap": layer_gap,
        "layer_matches": float(layer_gap == 0.0),
        "layer_query_2": by_layer["Wq"][1],
    }


def score_square(head: Head, w: Work) -> dict:
    """The square of raw and divided scores, and e to each score of row 2 (lines 147-175)."""
    powers = np.exp(w.scaled[1])
    return {
        "divisor": head.divisor,
        "raw": w.raw,
        "scaled": w.scaled,
        "n_scores": float(w.raw.size),
        "symmetric": float(np.array_equal(w.raw, w.raw.T)),
        "e": math.exp(1.0),
        "row2_powers": powers,
        "row2_power_total": float(powers.sum()),
    }


def share_rows(w: Work) -> dict:
    """The rows of shares: their sums, their largest and smallest shares, and row 2's ratios
    (lines 200-239, 267-271)."""
    row_max = w.shares.max(axis=1)
    row_min = w.shares.min(axis=1)
    return {
        "shares": w.shares,
        "row_sum": w.shares.sum(axis=1),
        "row_sum_gap": float(np.max(np.abs(w.shares.sum(axis=1) - 1.0))),
        "rounded_row_sum": np.round(w.shares, 4).sum(axis=1),
        "top_share": row_max,
        "min_share": float(w.shares.min()),
        "row_evenness": row_min / row_max,
        "row2_ratio_1_to_2": float(w.shares[1, 0] / w.shares[1, 1]),
        "row2_reciprocal_shares": 1.0 / w.shares[1],
    }


def mixed_values(w: Work) -> dict:
    """The values mixed in each row's shares, and where token 2's year slot comes from
    (lines 217-243)."""
    return {
        "mixed": w.out,
        "mix_gap": float(np.max(np.abs(w.out - w.shares @ w.v))),
        "row2_slot2_parts": w.shares[1] * w.v[:, 1],
    }


def position_blindness(head: Head, w: Work) -> dict:
    """Tokens 2 and 4 get the same row until a position code is added, and no reordering of the
    row changes any output (lines 244-253, 335-337)."""
    placed = attend(head, X + sinusoid_positions(len(X), head.D)).shares
    return {
        "rows_2_4_identical": float(np.array_equal(w.shares[1], w.shares[3])),
        "outputs_2_4_identical": float(np.array_equal(w.out[1], w.out[3])),
        "rows_2_4_identical_with_positions": float(np.array_equal(placed[1], placed[3])),
        "order_error": order_error(head, X),
    }


def square_root_divide(wq: np.ndarray) -> dict:
    """Without the divide every score the softmax sees is exactly twice as large
    (lines 256-271)."""
    undivided = attend(make_head(wq, WK, WV, scale=False), X).scaled
    divided = attend(make_head(wq, WK, WV, scale=True), X).scaled
    return {"undivided_double_gap": float(np.max(np.abs(undivided - 2.0 * divided)))}


def softmax_shift(w: Work) -> dict:
    """A constant added to every score leaves the shares alone, so subtracting the row's
    largest score changes nothing (line 286)."""
    return {
        "shift_gap": float(np.max(np.abs(softmax(w.scaled + 7.0, axis=-1) - w.shares))),
        # The same shift through the textbook softmax, which subtracts nothing: invariance is
        # then a property of e^(s + c) / sum e^(s + c), not forced by the code's own shift.
        "shift_gap_naive": float(
            np.max(np.abs(naive_softmax(w.scaled + 7.0) - naive_softmax(w.scaled)))
        ),
        # The max-shifted softmax against the unshifted formula on the head's own rows: the
        # subtraction cancels exactly.
        "shift_cancels_gap": float(np.max(np.abs(w.shares - naive_softmax(w.scaled)))),
    }


def overflow() -> dict:
    """A score of 800 overflows e^s and breaks the unshifted softmax, not the shifted one
    (lines 286, 340-341)."""
    huge = np.array([800.0, 0.0, 1.0, -3.0])
    with np.errstate(over="ignore"):
        exp_800 = np.exp(800.0)
    shifted = np.exp(huge - huge.max())
    return {
        "exp_800_infinite": float(np.isinf(exp_800)),
        "naive_800_nan": float(np.isnan(naive_softmax(huge)).any()),
        "softmax_800_finite": float(np.all(np.isfinite(softmax(huge)))),
        "softmax_800_sum": float(softmax(huge).sum()),
        "shifted_top_power": float(shifted.max()),
    }


def weights_are_data(head: Head, w: Work) -> dict:
    """How the shares move: a bias on the queries moves them, a bias on the keys does not, and
    other numbers on token 1 change token 2's row (lines 145, 351-352)."""
    bias = 0.5
    shares_qbias = softmax((w.q + bias) @ w.k.T / head.divisor, axis=-1)
    shares_kbias = softmax(w.q @ (w.k + bias).T / head.divisor, axis=-1)
    other = X.copy()
    other[0] = X[2]
    shares_other = attend(head, other).shares
    return {
        "query_bias_share_change": float(np.max(np.abs(shares_qbias - w.shares))),
        "key_bias_share_change": float(np.max(np.abs(shares_kbias - w.shares))),
        "other_row_share_change": float(np.max(np.abs(shares_other[1] - w.shares[1]))),
    }


def counted_cost(head: Head, w: Work) -> dict:
    """The loop head's multiply-adds against 3nDdk + 2n^2dk, and its values against the numpy
    head's (lines 179-227, 287-327, 338-339)."""
    counted = attend_counting(head, X)
    n, dk = X.shape[0], head.dk
    return {
        "count_vs_numpy_gap": float(
            max(
                np.max(np.abs(counted.q - w.q)),
                np.max(np.abs(counted.raw - w.raw)),
                np.max(np.abs(counted.shares - w.shares)),
                np.max(np.abs(counted.out - w.out)),
            )
        ),
        "cost_project": float(counted.cost.project),
        "cost_score": float(counted.cost.score),
        "cost_mix": float(counted.cost.mix),
        "cost_total": float(counted.cost.total),
        "cost_formula_gap": float(counted.cost.total - (3 * n * head.D * dk + 2 * n * n * dk)),
    }


def refusal_checks(head: Head) -> dict:
    """A matrix of the wrong size and a token of the wrong width are refused, by messages that
    name them (lines 342-347)."""
    refused_matrix, msg_matrix = refusal(
        lambda: Head(2, 2, (1.0, 0.0, 0.0, 1.0), (1.0, 0.0, 0.0, 1.0), (1.0, 0.0, 0.0))
    )
    bad = [X[0], X[1][:2], X[2], X[3]]
    refused_width, msg_width = refusal(lambda: attend(head, bad))
    refused_width_counting, _ = refusal(lambda: attend_counting(head, bad))
    return {
        "refused_wrong_matrix": refused_matrix,
        "wrong_matrix_message_names_it": float(
            "Wv" in msg_matrix and " 3 " in msg_matrix and "needs 4" in msg_matrix
        ),
        "refused_wrong_width": refused_width * refused_width_counting,
        "wrong_width_message_names_it": float(
            "token 2 of 4" in msg_width and "2 numbers" in msg_width and "reads 4" in msg_width
        ),
    }


def exercise_one(scale: int, w: Work) -> dict:
    """What Exercise 1's changed weight moved: token 2's raw score on token 1 against the
    printed head's, and its output's count slot against its year slot (lines 370-386)."""
    printed = attend(make_head(WQ, WK, WV, scale=bool(scale)), X)
    return {
        "row2_token1_gain": float(w.raw[1, 0] - printed.raw[1, 0]),
        "out2_count_minus_year": float(w.out[1, 2] - w.out[1, 1]),
    }


# ----------------------------------------------------------------------------- experiment


@experiment(
    grid={
        "scale": choices(
            0, 1, doc="1: scores divided by sqrt(d_k) before the softmax; 0: not divided"
        ),
        "wq_3_1": reals(min=-300, max=300, doc="entry (3, 1) of the query matrix W_Q"),
    },
    outputs=(
        Output("token_bytes", "bytes each typed token stands for", "bytes", ("token",)),
        Output("line_bytes", "bytes of the chronicle line", "bytes"),
        Output("tokens_are_prefix", "1 if the four tokens spell the start of the line"),
        Output("year_of_tokens_1_2", "the number spelled by the digits of tokens 1 and 2"),
        Output("split_number", "the number of the line that token 4 sits inside"),
        Output("split_number_digits", "digits of the number token 4 sits inside"),
        Output("split_number_is_born_count", "1 if that number is followed by the word born"),
        Output("single_digit_tokens", "tokens that are one digit alone"),
        Output(
            "token3_from_colon_to_mid_number",
            "1 if token 3 starts at a colon and stops inside a number",
        ),
        Output("id_ratio_3_over_4", "id of token 3 divided by id of token 4"),
        Output("x", "typed numbers of each token", dims=("token", "slot")),
        Output("weights", "stored projection matrices", dims=("matrix", "slot", "in_slot")),
        Output("numbers_per_matrix", "numbers stored in one matrix"),
        Output("numbers_all_matrices", "numbers stored in the three matrices"),
        Output("q", "query of each token", dims=("token", "slot")),
        Output("k", "key of each token", dims=("token", "slot")),
        Output("v", "value of each token", dims=("token", "slot")),
        Output("numbers_per_token_out", "numbers a token has after the three projections"),
        Output("mults_per_projection", "multiplications to push one token through one matrix"),
        Output("adds_per_projection", "additions to push one token through one matrix"),
        Output("isolation_gap", "largest change of a query when its token is projected alone"),
        Output(
            "layer_gap", "largest difference between the projections and a zero-bias neuron layer"
        ),
        Output("layer_matches", "1 if a zero-bias neuron layer gives the same projections"),
        Output("q2_first_column_gap", "largest gap between token 2's query and Wq's column 1"),
        Output("row2_token1_gain", "token 2's raw score on token 1 minus the printed head's"),
        Output("order_error", "largest change of a token's output over every reordering"),
        Output("layer_query_2", "query of token 2 from a zero-bias neuron layer", dims=("slot",)),
        Output("divisor", "number every score is divided by"),
        Output("raw", "query dotted with key", dims=("token", "key")),
        Output("scaled", "score fed to the softmax", dims=("token", "key")),
        Output("n_scores", "scores in the square"),
        Output("symmetric", "1 if the raw score square equals its transpose"),
        Output(
            "undivided_double_gap",
            "largest gap between undivided scores and twice the divided ones",
        ),
        Output("e", "e, the base of the softmax"),
        Output("row2_powers", "e to each score of token 2's row, unshifted", dims=("key",)),
        Output("row2_power_total", "total of those powers"),
        Output("shares", "attention share of key for query token", dims=("token", "key")),
        Output("row_sum", "sum of a row of shares", dims=("token",)),
        Output("row_sum_gap", "largest distance of a row sum from 1"),
        Output("rounded_row_sum", "sum of a row's shares rounded to 4 places", dims=("token",)),
        Output("top_share", "largest share of a row", dims=("token",)),
        Output("min_share", "smallest share in the square"),
        Output("row_evenness", "smallest over largest share of a row", dims=("token",)),
        Output("row2_ratio_1_to_2", "share of token 1 over share of token 2 in row 2"),
        Output("row2_reciprocal_shares", "one over each share of row 2", dims=("key",)),
        Output("mixed", "values mixed in a row's shares", dims=("token", "slot")),
        Output("mix_gap", "largest gap between the output and the share-weighted value sum"),
        Output("row2_slot2_parts", "each token's part of token 2's output slot 2", dims=("key",)),
        Output("out2_count_minus_year", "token 2's output slot 3 minus its slot 2"),
        Output("rows_2_4_identical", "1 if the share square's second and fourth rows are equal"),
        Output("outputs_2_4_identical", "1 if the outputs of tokens 2 and 4 are equal"),
        Output(
            "rows_2_4_identical_with_positions",
            "1 if rows 2 and 4 are still equal after a position code is added",
        ),
        Output("shift_gap", "largest share change when a constant is added to every score"),
        Output(
            "shift_gap_naive",
            "largest change of the unshifted softmax when 7 is added to every score",
        ),
        Output(
            "shift_cancels_gap",
            "largest gap between the max-shifted and the unshifted softmax of the rows",
        ),
        Output("query_bias_share_change", "largest share change when 0.5 is added to queries"),
        Output("key_bias_share_change", "largest share change when 0.5 is added to keys"),
        Output(
            "other_row_share_change",
            "largest change of token 2's shares when token 1 carries other numbers",
        ),
        Output("count_vs_numpy_gap", "largest gap between the counting and the numpy head"),
        Output("cost_project", "multiply-adds of the projections", "multiply-adds"),
        Output("cost_score", "multiply-adds of the score square", "multiply-adds"),
        Output("cost_mix", "multiply-adds of the mixing", "multiply-adds"),
        Output("cost_total", "multiply-adds of the whole run", "multiply-adds"),
        Output("cost_formula_gap", "counted total minus 3nDdk + 2n^2dk", "multiply-adds"),
        Output("exp_800_infinite", "1 if e to the 800 overflows a float64"),
        Output("naive_800_nan", "1 if the unshifted softmax of a row with 800 gives NaN"),
        Output("softmax_800_finite", "1 if the shifted softmax of that row is finite"),
        Output("softmax_800_sum", "sum of the shifted softmax of that row"),
        Output("shifted_top_power", "largest power of e after the row maximum is subtracted"),
        Output("refused_wrong_matrix", "1 if a matrix of the wrong size is refused"),
        Output(
            "wrong_matrix_message_names_it",
            "1 if the refusal names the matrix, its count and the count wanted",
        ),
        Output("refused_wrong_width", "1 if a token of the wrong width is refused (both heads)"),
        Output(
            "wrong_width_message_names_it",
            "1 if the refusal names the token, its width and the width wanted",
        ),
    ),
    coords={
        "token": coord("typed token (1 first)", TOKENS),
        "key": coord("key token (1 first)", TOKENS),
        "slot": coord("slot of a token's typed vector (1 first)", SLOTS),
        "in_slot": coord("input slot of a projection matrix (1 first)", SLOTS),
        "matrix": coord("projection matrix of the head", MATRICES),
    },
    sections=(
        "every-word: the bare digit token (lines 2-22)",
        "every-word: three matrices over four tokens (lines 23-145)",
        "every-word: the attention score square (lines 146-255)",
        "every-word: the square-root divide, four-token part and softmax (lines 256-271, 286)",
        "every-word: the eight tests (lines 328-350), Exercise 1 (lines 370-386)",
    ),
)
def single_head(scale: int, wq_3_1: float) -> dict:
    """The four-token head, with (``scale`` 1) or without (0) the divide by sqrt(dk), and with
    Wq's third row, first entry set to ``wq_3_1`` (0.5 as printed, 2.5 in Exercise 1)."""
    wq = WQ.copy()
    wq[2, 0] = wq_3_1
    head = make_head(wq, WK, WV, scale=bool(scale))
    w = attend(head, X)
    out = text_facts()
    out.update(stored_numbers(head, wq))
    out.update(projections(head, w, wq))
    out.update(neuron_layer(head, w))
    out.update(score_square(head, w))
    out.update(share_rows(w))
    out.update(mixed_values(w))
    out.update(position_blindness(head, w))
    out.update(square_root_divide(wq))
    out.update(softmax_shift(w))
    out.update(overflow())
    out.update(weights_are_data(head, w))
    out.update(counted_cost(head, w))
    out.update(refusal_checks(head))
    out.update(exercise_one(scale, w))
    return out
