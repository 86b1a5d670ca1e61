"""Order-r window (n-gram) models: the size of their tables and what they pay.

A model that conditions on the last ``r`` tokens keeps one row per distinct window; over a
vocabulary of ``V`` words there can be ``V**r`` of them (soft-dictionary line 21). How far
back the clue of the Journal's example entry sits (soft-dictionary lines 17-19) is counted on
the entry itself, spelt word for word below.

On ToyLang (first-principles A3, lines 232-263, and A4, lines 295-301): what a window of ``r``
tokens with unlimited data pays on the two copied names, as closed forms over (N, L, r) and
exactly from an enumerated language; how many contexts a table must hold to pay 0 on the final name;
the fitted (maximum-likelihood) table of relative frequencies, pooled over all positions; and
the size of the neural window of Bengio et al. (2003) as the note counts it.
"""

from __future__ import annotations

import math
import re

import numpy as np
from scipy.special import digamma

from ..spec import Output, coord, experiment, integer, ints, require
from . import toylang as tl


def _r_coords(r_max: int, **_) -> range:
    return range(r_max + 1)


# The Journal entry with a word missing (soft-dictionary line 17), as the note spells it; the
# blank is the run of underscores. The word that settles the blank is named at line 19.
JOURNAL_ENTRY = (
    "The unlabeled bento from Monday \u2014 the heavy one in the blue furoshiki, the one the "
    "trainee carried around all afternoon \u2014 turned out to be ______."
)
SETTLING_WORD = "heavy"
_WORD = re.compile(r"[A-Za-z0-9'\u2019]+|_+")


def words_of(text: str) -> list[str]:
    """The words of a text in order: runs of letters, digits and apostrophes, and a run of
    underscores as one word (the blank); dashes and other punctuation are not words."""
    return _WORD.findall(text)


def clue_distance(text: str = JOURNAL_ENTRY, clue: str = SETTLING_WORD) -> int:
    """How many words back from the blank the clue sits: the blank's position in the text's
    words minus the clue's (1 for the word just before the blank)."""
    w = words_of(text)
    blanks = [i for i, x in enumerate(w) if set(x) == {"_"}]
    if len(blanks) != 1:
        raise ValueError(f"the text has {len(blanks)} blanks, not one")
    return blanks[0] - w.index(clue)


@experiment(
    grid={
        "vocab": ints(doc="vocabulary size"),
        "context": ints(doc="context length of the Markov table in tokens"),
    },
    outputs=(
        Output("log10_rows", "log10 of the rows of a table over every window"),
        Output("growth_per_token", "factor by which one more token of window multiplies the rows"),
        Output(
            "clue_distance",
            "words back from the blank of the example entry to the word that settles it",
            "words",
        ),
    ),
    sections=("soft-dictionary: The Journal Wants an Autocomplete (lines 17-21)",),
)
def markov_table(vocab: int, context: int) -> dict:
    """log10 of the number of rows of a table over every window of ``context`` tokens; and, the
    same at every point, how far back the example entry's clue sits."""
    return {
        "log10_rows": context * math.log10(vocab),
        "growth_per_token": float(vocab),
        "clue_distance": float(clue_distance()),
    }


# ----------------------------------------------------------------------------- ToyLang windows


def bag_copy_cost(n_names: int, gap: int) -> float:
    """What the fitted unigram pays on one copied name: a name is 4/(nN) of all tokens
    (first-principles A2, line 164); it is also the window of r = 0."""
    return math.log((10 + gap) * n_names / 4)


def staircase_x(n_names: int, gap: int, r: int) -> float:
    """Cost (nats) of the final name X for a window of r tokens with unlimited data: the bag at
    r = 0, ln N when the window is 'thanked' alone, ln(N-1) once it also holds the second Y,
    and 0 once it reaches the source at position 0 (r >= L+8)."""
    if r == 0:
        return bag_copy_cost(n_names, gap)
    if r >= gap + 8:
        return 0.0
    return math.log(n_names) if r == 1 else math.log(n_names - 1)


def staircase_y(n_names: int, gap: int, r: int) -> float:
    """Cost (nats) of the second Y for a window of r tokens: the bag at r = 0, ln N while the
    window holds only 'then', fillers, the thing and 'a' (nothing about Y), and 0 once it reaches
    the first Y at position 2 (r >= L+4)."""
    if r == 0:
        return bag_copy_cost(n_names, gap)
    return 0.0 if r >= gap + 4 else math.log(n_names)


def contexts_to_zero(n_names: int, n_fillers: int, gap: int) -> int:
    """Distinct windows a table must hold to pay 0 on the final name: the window must reach
    position 0, so it is the whole prefix, and there is one prefix per sentence."""
    return tl.n_sentences(n_names, n_fillers, gap)


def coupon_collector(rows: float) -> float:
    """Expected uniform draws until each of ``rows`` equally likely rows has been seen once:
    rows times the harmonic number H_rows (= digamma(rows+1) + Euler's gamma)."""
    return float(rows * (digamma(rows + 1.0) + np.euler_gamma))


def row_keys(rows: np.ndarray) -> np.ndarray:
    """Each row of an integer array as one sortable key (its bytes)."""
    rows = np.ascontiguousarray(rows, dtype=np.int64)
    return rows.view(np.dtype((np.void, 8 * rows.shape[1]))).ravel()


def _entropy_of_counts(counts: np.ndarray, total: int) -> float:
    q = counts / total
    return float(-np.sum(q * np.log(q)))


def enumerated_window_cost(sentences: np.ndarray, position: int, r: int) -> float:
    """Exact cost at ``position`` of a window of r >= 1 tokens with unlimited data, from an
    enumeration of equally likely sentences: H(token | window) = H(window, token) - H(window).
    The same number as ``toylang.conditional_entropy`` (tests check it), computed on row keys
    because that is much faster. The copies follow 'then' and 'thanked', words that occur once
    per sentence at a fixed place, so the pooled table's row for such a window is the law at
    that position (tests check this against ``fit_window``)."""
    w = min(r, position + 1)  # a longer window only adds more start markers
    pad = np.full((len(sentences), max(0, w - position)), -1, dtype=np.int64)
    ctx = np.hstack([pad, sentences[:, max(0, position - w) : position]])
    joint = np.hstack([ctx, sentences[:, position : position + 1]])
    total = len(sentences)
    h_ctx = _entropy_of_counts(np.unique(row_keys(ctx), return_counts=True)[1], total)
    h_joint = _entropy_of_counts(np.unique(row_keys(joint), return_counts=True)[1], total)
    return h_joint - h_ctx


def enumerated_window_costs(sentences: np.ndarray, position: int, r_max: int) -> np.ndarray:
    """``enumerated_window_cost`` at r = 1..min(r_max, position + 1), equal to it bit for bit
    and much faster: the window grows one token to the left at a time, and a window is held as
    its rank among the distinct windows of its length, ranked as ``np.unique`` sorts their row
    keys (the bytes of little-endian int64 tokens: token by token from the left, small ids in
    numeric order). So the counts come out in the order the row keys give them and the entropies
    are summed in the same order. A longer window only adds the start marker, a column equal in
    every row, which changes neither the counts nor their order."""
    if sentences.size and not 0 <= sentences.min() <= sentences.max() < 255:
        raise ValueError("token ids must lie in 0..254 for the byte order of the row keys")
    total = len(sentences)
    token = sentences[:, position].astype(np.int64)
    rank, n_windows, ctx_counts = np.zeros(total, dtype=np.int64), 1, np.array([total])
    costs = []
    for w in range(1, min(r_max, position + 1) + 1):
        if w <= position:  # the token w places to the left leads the sort of the longer window
            codes = sentences[:, position - w].astype(np.int64) * n_windows + rank
            windows, rank, ctx_counts = np.unique(codes, return_inverse=True, return_counts=True)
            n_windows = len(windows)
        joint_counts = np.unique(rank * 255 + token, return_counts=True)[1]
        costs.append(
            _entropy_of_counts(joint_counts, total) - _entropy_of_counts(ctx_counts, total)
        )
    return np.array(costs)


def window_contexts(texts: np.ndarray, r: int) -> np.ndarray:
    """The window in front of every position, shape (S, n, r+1): a leading 0 column (so r = 0
    is an empty context), then r tokens, with -1 as the start marker before the text."""
    texts = np.atleast_2d(texts)
    s, n = texts.shape
    padded = np.hstack([np.full((s, r), -1, dtype=np.int64), texts])
    idx = np.arange(n)[:, None] + np.arange(r)[None, :]
    return np.concatenate([np.zeros((s, n, 1), dtype=np.int64), padded[:, idx]], axis=2)


def fit_window(corpus: np.ndarray, r: int) -> dict:
    """The maximum-likelihood window model, p(w | u) = c(u, w) / c(u), as sorted count tables
    over every position of every text of ``corpus`` (each text counted once)."""
    ctx = window_contexts(corpus, r).reshape(-1, r + 1)
    joint = np.hstack([ctx, corpus.reshape(-1, 1)])
    return {"r": r, "ctx": unique_rows(ctx), "joint": unique_rows(joint)}


def unique_rows(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(row_keys(rows), return_counts=True)``: the distinct rows' keys in the keys'
    order, and how often each occurs. For entries in -1..254 (token ids and the start marker)
    each int64 key compares by its first byte alone, the entry's low byte (-1 is 255), so the
    rows sort as those bytes packed eight to an unsigned word, first byte highest: a sort of
    one or two integers per row, where numpy sorts the byte strings of the keys far slower."""
    rows = np.ascontiguousarray(rows, dtype=np.int64)
    if rows.size == 0 or rows.min() < -1 or rows.max() > 254:
        return np.unique(row_keys(rows), return_counts=True)
    n, c = rows.shape
    low = np.zeros((n, -(-c // 8) * 8), dtype=np.uint8)
    low[:, :c] = rows & 0xFF
    words = low.view(">u8").astype(np.uint64)  # (n, words), the first byte most significant
    order = np.lexsort(words.T[::-1])
    ranked = words[order]
    first = np.r_[True, np.any(ranked[1:] != ranked[:-1], axis=1)]
    starts = np.flatnonzero(first)
    return row_keys(rows[order[starts]]), np.diff(np.r_[starts, n])


def _lookup(table: tuple, keys: np.ndarray) -> np.ndarray:
    known, counts = table
    i = np.minimum(np.searchsorted(known, keys), len(known) - 1)
    return np.where(known[i] == keys, counts[i], 0).astype(float)


def window_probs(model: dict, texts: np.ndarray) -> np.ndarray:
    """p(w_t | window) at every position of every text, shape (S, n); NaN where the window was
    never seen in training (the relative frequency is 0/0 there)."""
    texts = np.atleast_2d(texts)
    ctx = window_contexts(texts, model["r"])
    joint = np.concatenate([ctx, texts[:, :, None]], axis=2)
    c_u = _lookup(model["ctx"], row_keys(ctx.reshape(-1, ctx.shape[2])))
    c_uw = _lookup(model["joint"], row_keys(joint.reshape(-1, joint.shape[2])))
    with np.errstate(invalid="ignore", divide="ignore"):
        return (c_uw / c_u).reshape(texts.shape)


@experiment(
    grid={
        "N": ints(min=2, ranges=False, doc="number of names X, Y can be drawn from in ToyLang"),
        "F": ints(doc="number of filler words in ToyLang's vocabulary"),
        "L": ints(
            min=0, doc="gap L: filler tokens between the thing and 'then' in a ToyLang sentence"
        ),
    },
    params={
        "r_max": integer(min=2, doc="longest window"),
        "max_enumerated": integer(min=0, doc="largest language enumerated"),
    },
    constraints=(
        require(
            "max(L) + 8 <= r_max",
            "the longest sentence needs windows up to its length: max(L) + 8 <= r_max",
            "L",
            "r_max",
        ),
    ),
    outputs=(
        Output("cost_X", "cost of the final name for a window of r tokens", "nats", ("r",)),
        Output("cost_Y", "cost of the second Y for a window of r tokens", "nats", ("r",)),
        Output(
            "cost_X_enumerated",
            "cost of the final name from the enumerated language (NaN if too large)",
            "nats",
            ("r",),
        ),
        Output(
            "cost_Y_enumerated",
            "cost of the second Y from the enumerated language (NaN if too large)",
            "nats",
            ("r",),
        ),
        Output("copy_cost", "cost of the two copies together", "nats", ("r",)),
        Output("enumerated", "1 if the language was enumerated"),
        Output(
            "window0_bag_gap",
            "|pooled window-0 cost on X minus the bag's closed form| (enumerated)",
            "nats",
        ),
        Output(
            "closed_form_gap",
            "largest |closed form - enumeration| over r and both copies (enumerated)",
            "nats",
        ),
        Output(
            "zero_window_X_enumerated",
            "smallest window with cost 0 on the final name, from the enumeration",
            "tokens",
        ),
        Output(
            "zero_window_Y_enumerated",
            "smallest window with cost 0 on the second Y, from the enumeration",
            "tokens",
        ),
        Output("zero_window_X", "smallest window with cost 0 on the final name", "tokens"),
        Output("zero_window_Y", "smallest window with cost 0 on the second Y", "tokens"),
        Output("contexts_to_zero", "windows a table needs to pay 0 on the final name"),
        Output(
            "contexts_enumerated",
            "distinct prefixes before the final name in the enumeration (NaN if too large)",
        ),
        Output("log10_contexts", "log10 of the windows needed to pay 0 on X"),
        Output("context_growth", "factor by which one more filler multiplies them"),
        Output(
            "context_growth_enumerated",
            "the same factor, counted as distinct prefixes in the languages with L and L+1 "
            "fillers (NaN where the longer one is too large to enumerate)",
        ),
        Output("vocab", "token types of the language"),
        Output("window_rows", "rows of a table over every window of r tokens", dims=("r",)),
        Output(
            "sentences_to_cover",
            "expected uniform sentences until every needed window has been seen",
            "sentences",
        ),
        Output("rows_ln_rows", "rows times ln(rows), the leading term of that", "sentences"),
    ),
    coords={"r": coord("window: tokens of context the model sees", _r_coords)},
    sections=(
        "first-principles A3-A4: window staircase and table sizes (lines 233, 257-263, 301)",
        "first-principles A5: windows in the comparison table (lines 315, 323-325)",
    ),
)
def window_staircase(N: int, F: int, L: int, r_max: int, max_enumerated: int) -> dict:
    """Closed-form staircase of the two copies over r = 0..r_max, the same costs from an
    enumeration of the language when it has at most ``max_enumerated`` sentences, and the size
    of the table that reaches 0 on the final name."""
    rs = range(r_max + 1)
    cost_x = np.array([staircase_x(N, L, r) for r in rs])
    cost_y = np.array([staircase_y(N, L, r) for r in rs])
    pos = tl.copy_positions(L)
    enum_x = np.full(r_max + 1, np.nan)
    enum_y = np.full(r_max + 1, np.nan)
    pooled_gap = closed_gap = zero_x = zero_y = n_distinct = np.nan
    enumerated = tl.n_sentences(N, F, L) <= max_enumerated
    if enumerated:
        s = tl.enumerate_sentences(N, F, L)
        freq = np.bincount(s.ravel(), minlength=tl.vocab_size(N, F)) / s.size
        enum_x[0] = -np.mean(np.log(freq[s[:, pos["X"]]]))
        enum_y[0] = -np.mean(np.log(freq[s[:, pos["Y"]]]))
        for out, where in ((enum_x, pos["X"]), (enum_y, pos["Y"])):
            out[1 : min(r_max, where + 1) + 1] = enumerated_window_costs(s, where, r_max)
            out[where + 2 :] = out[min(r_max, where + 1)]  # longer: only more start markers
        pooled_gap = abs(enum_x[0] - bag_copy_cost(N, L))
        n_distinct = len(np.unique(row_keys(s[:, : pos["X"]])))
        closed_gap = float(max(np.max(np.abs(enum_x - cost_x)), np.max(np.abs(enum_y - cost_y))))
        zero_x = float(np.flatnonzero(enum_x[1:] < 1e-12)[0] + 1)
        zero_y = float(np.flatnonzero(enum_y[1:] < 1e-12)[0] + 1)
    rows = contexts_to_zero(N, F, L)
    vocab = tl.vocab_size(N, F)
    growth_enumerated = np.nan
    if enumerated and tl.n_sentences(N, F, L + 1) <= max_enumerated:
        # distinct prefixes in front of X, counted in the languages with L and L+1 fillers
        longer = tl.enumerate_sentences(N, F, L + 1)
        more = len(np.unique(row_keys(longer[:, : tl.copy_positions(L + 1)["X"]])))
        growth_enumerated = more / n_distinct
    return {
        "cost_X": cost_x,
        "cost_Y": cost_y,
        "cost_X_enumerated": enum_x,
        "cost_Y_enumerated": enum_y,
        "copy_cost": cost_x + cost_y,
        "enumerated": float(enumerated),
        "window0_bag_gap": pooled_gap,
        "closed_form_gap": closed_gap,
        "zero_window_X_enumerated": zero_x,
        "zero_window_Y_enumerated": zero_y,
        "zero_window_X": float(next(r for r in rs[1:] if staircase_x(N, L, r) == 0.0)),
        "zero_window_Y": float(next(r for r in rs[1:] if staircase_y(N, L, r) == 0.0)),
        "contexts_to_zero": float(rows),
        "contexts_enumerated": float(n_distinct),
        "log10_contexts": math.log10(rows),
        "context_growth": contexts_to_zero(N, F, L + 1) / rows,
        "context_growth_enumerated": float(growth_enumerated),
        "vocab": float(vocab),
        "window_rows": np.array([float(vocab) ** r for r in rs]),
        "sentences_to_cover": coupon_collector(rows),
        "rows_ln_rows": rows * math.log(rows),
    }


@experiment(
    grid={
        "r": ints(min=0, doc="order r of the n-gram model: tokens of context"),
        "K": ints(min=2, ranges=False, work=True, memory=True, doc="vocabulary size K"),
    },
    params={
        "tokens": integer(min=1, doc="length of the random text", memory=True),
        "alternatives": integer(min=1, doc="other tables per point", memory=True, work=True),
    },
    outputs=(
        Output(
            "mle_gap_min",
            "smallest log-likelihood lead of the relative frequencies over another table",
            "nats",
        ),
        Output("mle_rows_sum", "largest |row sum - 1| of the relative-frequency table"),
        Output("n_windows", "distinct windows in the text"),
    ),
    sections=("first-principles A3: the maximum-likelihood n-gram (lines 239-255)",),
)
def ngram_mle(r: int, K: int, tokens: int, alternatives: int, rng: np.random.Generator) -> dict:
    """The relative-frequency table against random other tables on one random text of
    ``tokens`` tokens over K words: ``alternatives`` tables, each the MLE moved a random share
    (0.001 to 1) of the way towards rows drawn from a flat Dirichlet, all give the text a lower
    likelihood (the smallest lead is positive)."""
    corpus = rng.integers(K, size=(1, tokens))
    model = fit_window(corpus, r)
    ctx = window_contexts(corpus, r).reshape(-1, r + 1)
    seen, row = np.unique(row_keys(ctx), return_inverse=True)
    probs = window_probs(model, corpus).ravel()
    best = float(np.sum(np.log(probs)))
    # The MLE as a matrix over (seen window, next word), to perturb it row by row.
    mle = np.zeros((len(seen), K))
    np.add.at(mle, (row, corpus.ravel()), 1.0)
    mle /= mle.sum(axis=1, keepdims=True)
    other = rng.dirichlet(np.ones(K), size=(alternatives, len(seen)))
    mix = 10.0 ** rng.uniform(-3.0, 0.0, size=(alternatives, 1, 1))  # some close to the MLE
    law = (1 - mix) * mle[None] + mix * other
    with np.errstate(divide="ignore"):
        gaps = best - np.log(law[:, row, corpus.ravel()]).sum(axis=1)
    return {
        "mle_gap_min": float(gaps.min()),
        "mle_rows_sum": float(np.max(np.abs(mle.sum(axis=1) - 1.0))),
        "n_windows": float(len(seen)),
    }


def neural_window_params(vocab: int, d: int, d_h: int, r: int) -> int:
    """Weights of the neural window: an embedding per token, a hidden layer on the r
    concatenated embeddings (with biases), and a softmax layer back to the vocabulary."""
    return vocab * d + (r * d + 1) * d_h + (d_h + 1) * vocab


@experiment(
    grid={
        "vocab": ints(doc="vocabulary size"),
        "d": ints(doc="embedding width d"),
        "d_h": ints(doc="hidden width of the window network"),
        "r": ints(doc="window: tokens the network sees"),
    },
    outputs=(
        Output("n_params", "weights of the neural window"),
        Output("increment_per_r", "weights added by one more token of window"),
        Output("second_difference", "second difference of the weights in r"),
    ),
    sections=("first-principles A4: the neural window size (lines 295-299)",),
)
def neural_window(vocab: int, d: int, d_h: int, r: int) -> dict:
    """The parameter count at one window, and its first and second differences in r (a
    constant first difference and a zero second difference: linear growth)."""
    n = [neural_window_params(vocab, d, d_h, r + k) for k in range(3)]
    return {
        "n_params": float(n[0]),
        "increment_per_r": float(n[1] - n[0]),
        "second_difference": float(n[2] - 2 * n[1] + n[0]),
    }
