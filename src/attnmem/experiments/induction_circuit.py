"""The hand-set induction circuit (first-principles E4, lines 1267-1281; memory-math ch. 11,
line 54): a previous-token head writes each token's left neighbour into a PREV register, and a
second head (key from PREV, query from the token itself) looks at the position right after an
earlier instance of the current token and writes that position's token into OUT.

The residual stream follows first-principles E2 (lines 1137-1160): blocks TOK, POS, PREV, OUT
of sizes |V|, n_max, |V|, |V|, one-hot unit vectors, the same layer-1 head, and the readout
kappa * OUT. Attention is causal (j <= t) and softmax, or plain dot products (``linear``).
"""

from __future__ import annotations

import numpy as np

from ..spec import Output, coord, experiment, integer, real, reals
from .softmax import softmax

# The vocabulary of E2 (line 1137): 48 names plus 15 other tokens (gave, a, 3 things, 6
# fillers, then, thanked, '.', met), |V| = 63. Ann, Ben, Cy, Di, pen, and, so are the note's
# spellings; the other names, things and fillers are our labels (only their count matters).
NAMES = ("Ann", "Ben", "Cy", "Di", *(f"name{i}" for i in range(5, 49)))
THINGS = ("pen", "book", "cup")
FILLERS = ("and", "so", "well", "oh", "um", "yes")
VOCAB = (*NAMES, "gave", "a", *THINGS, *FILLERS, "then", "thanked", ".", "met")
INDEX = {w: i for i, w in enumerate(VOCAB)}
V = len(VOCAB)
N_MAX = 64

# first-principles E4 (line 1270 and the figure at line 1276): the sentence read twice, after a
# full stop that never recurs.
SENTENCE = (".", "Ann", "gave", "Ben", "a", "pen", "Ann", "gave", "Ben", "a", "pen")
SECOND_COPY = tuple(range(6, 11))
# first-principles E2 (line 1124): the sentence with a clause in front, asked at its last token.
E2_SENTENCE = (
    "Ann",
    "met",
    "Ben",
    ".",
    "Cy",
    "gave",
    "Di",
    "a",
    "pen",
    "and",
    "so",
    "and",
    "so",
    "then",
)

# Residual-stream layout.
TOK = slice(0, V)
POS = slice(V, V + N_MAX)
PREV = slice(V + N_MAX, 2 * V + N_MAX)
OUT = slice(2 * V + N_MAX, 3 * V + N_MAX)
WIDTH = 3 * V + N_MAX


def embed(seqs: np.ndarray) -> np.ndarray:
    """One-hot TOK and POS blocks of a batch of token-index sequences (batch, n, WIDTH)."""
    b, n = seqs.shape
    x = np.zeros((b, n, WIDTH))
    x[np.arange(b)[:, None], np.arange(n)[None], seqs] = 1.0
    x[:, np.arange(n), V + np.arange(n)] = 1.0
    return x


def layer_one(beta: float) -> dict:
    """The previous-token head of E2 (line 1141): key = position, query = beta * (position - 1),
    value = token, output into PREV. Matrices act on columns: q = W_Q x."""
    w_q = np.zeros((N_MAX, WIDTH))
    w_q[np.arange(N_MAX - 1), V + np.arange(1, N_MAX)] = beta
    w_k = np.zeros((N_MAX, WIDTH))
    w_k[np.arange(N_MAX), V + np.arange(N_MAX)] = 1.0
    w_v = np.zeros((V, WIDTH))
    w_v[np.arange(V), np.arange(V)] = 1.0
    w_o = np.zeros((WIDTH, V))
    w_o[PREV.start + np.arange(V), np.arange(V)] = 1.0
    return {"q": w_q, "k": w_k, "v": w_v, "o": w_o}


def _unit_rows(src: slice, scale: float = 1.0) -> np.ndarray:
    """sum_w e_w (block unit vector of w)^T: a V x WIDTH matrix reading one block."""
    w = np.zeros((V, WIDTH))
    w[np.arange(V), src.start + np.arange(V)] = scale
    return w


def layer_two(beta: float, mode: str = "induction", anchor: str = "gave") -> dict:
    """The second head. ``induction`` (line 1272): key reads PREV, query reads the current
    token, value reads TOK. ``anchor``: the query is fixed to the anchor token at every
    position (E2's second-Y copy). ``mirror``: the key reads TOK and the value reads PREV, with
    the fixed anchor query (E2's final-X copy). Output into OUT."""
    w_o = np.zeros((WIDTH, V))
    w_o[OUT.start + np.arange(V), np.arange(V)] = 1.0
    if mode == "induction":
        return {"q": _unit_rows(TOK, beta), "k": _unit_rows(PREV), "v": _unit_rows(TOK), "o": w_o}
    # A fixed query: every position asks for the anchor (read off the POS-free constant by
    # routing each position's one-hot POS entry to key_anchor).
    w_q = np.zeros((V, WIDTH))
    w_q[INDEX[anchor], POS] = beta
    if mode == "anchor":
        return {"q": w_q, "k": _unit_rows(PREV), "v": _unit_rows(TOK), "o": w_o}
    if mode == "mirror":
        return {"q": w_q, "k": _unit_rows(TOK), "v": _unit_rows(PREV), "o": w_o}
    raise ValueError(mode)


def attend(x: np.ndarray, head: dict, linear: bool = False):
    """One causal head added to the stream: returns the new stream and the weights."""
    q = _project(x, head["q"])
    k = _project(x, head["k"])
    scores = q @ np.swapaxes(k, 1, 2)
    n = x.shape[1]
    causal = np.tril(np.ones((n, n), dtype=bool))
    if linear:
        weights = np.where(causal, scores, 0.0)
    else:
        weights = softmax(np.where(causal, scores, -np.inf), axis=-1)
    v = _project(x, head["v"])
    return x + _project(weights @ v, head["o"]), weights


def _project(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """w applied to every position's column vector (x @ w.T, done as one 2-D product)."""
    return (x.reshape(-1, x.shape[-1]) @ w.T).reshape(*x.shape[:-1], w.shape[0])


def run(
    seqs: np.ndarray,
    beta: float,
    mode: str = "induction",
    linear: bool = False,
    kappa: float = 10.0,
):
    """Both layers on a batch of sequences: stream after layer 1 and 2, weights, probabilities
    of the next token (softmax of kappa * OUT over the vocabulary)."""
    x0 = embed(seqs)
    b1 = 1.0 if linear else beta
    x1, a1 = attend(x0, layer_one(b1), linear)
    x2, a2 = attend(x1, layer_two(b1, mode), linear)
    probs = softmax(kappa * x2[..., OUT], axis=-1)
    return x1, x2, a1, a2, probs


def induction_targets(seqs: np.ndarray, positions) -> np.ndarray:
    """For each query position p, the position j <= p whose left neighbour is the token at p
    (the first such j; with distinct earlier tokens there is exactly one)."""
    b = seqs.shape[0]
    out = np.full((b, len(positions)), -1)
    for c, p in enumerate(positions):
        match = seqs[:, :p] == seqs[:, [p]]  # earlier occurrences at i; target i + 1
        first = np.argmax(match, axis=1)
        out[:, c] = np.where(match.any(axis=1), first + 1, -1)
    return out


def _ids(words) -> np.ndarray:
    return np.array([[INDEX[w] for w in words]])


def random_repeats(rng, count: int, length: int) -> np.ndarray:
    """``count`` sequences: a full stop, then ``length`` distinct tokens (never the full stop)
    drawn at random, then the same tokens again."""
    pool = np.array([i for i in range(V) if VOCAB[i] != "."])
    keys = rng.random((count, len(pool)))
    body = pool[np.argsort(keys, axis=1)[:, :length]]
    stop = np.full((count, 1), INDEX["."])
    return np.hstack([stop, body, body])


@experiment(
    grid={"beta": reals(gt=0, doc="inverse temperature beta multiplying the attention scores")},
    params={
        "kappa": real(gt=0, max=300),
        "sequences": integer(min=1, work=True, memory=True),
        "length": integer(min=1, max=31),
    },
    outputs=(
        Output("attention1", "layer-1 weight of key j for query t", dims=("query", "key")),
        Output("attention2", "layer-2 weight of key j for query t", dims=("query", "key")),
        Output("prev_token", "vocabulary index of the largest PREV entry", dims=("position",)),
        Output("prev_is_left_neighbour", "PREV holds the left neighbour (0/1)"),
        Output("target_position", "position after the earlier occurrence", dims=("second_copy",)),
        Output("target_weight", "layer-2 weight on that position", dims=("second_copy",)),
        Output("answer_prob", "probability of the token found there", dims=("second_copy",)),
        Output("answer_is_argmax", "the induction answer is the top token everywhere (0/1)"),
        Output("score_is_match", "largest |score/beta - [prev_j = w_p]| (hard PREV)"),
        Output("bare_target_weight", "weight on the right position, no full stop"),
        Output("bare_self_weight", "weight on position 0, no full stop"),
        Output("bare_answer_prob", "probability of the right token, no full stop"),
        Output("random_accuracy", "share of second-copy positions answered right"),
        Output("random_min_prob", "smallest answer probability, random repeats"),
        Output("linear_exact_gap", "largest |OUT - one-hot answer|, linear attention"),
        Output("anchor_weight", "weight on the E2 target position", dims=("anchor_mode",)),
        Output("anchor_correct", "the E2 read returns the right name (0/1)", dims=("anchor_mode",)),
        Output("exact_prob", "e^kappa / (e^kappa + |V| - 1)"),
    ),
    coords={
        "query": coord(
            "query position and its token in the example sentence",
            [f"{i} {w}" for i, w in enumerate(SENTENCE)],
        ),
        "key": coord(
            "key position and its token in the example sentence",
            [f"{i} {w}" for i, w in enumerate(SENTENCE)],
        ),
        "position": coord(
            "position and its token in the example sentence",
            [f"{i} {w}" for i, w in enumerate(SENTENCE)],
        ),
        "second_copy": coord(
            "position and token of the second copy of the repeated segment",
            [f"{i} {SENTENCE[i]}" for i in SECOND_COPY],
        ),
        "anchor_mode": coord(
            "where the layer-2 read is anchored: the second Y, or the final X",
            ["second_y", "final_x"],
        ),
    },
    sections=(
        "first-principles E4 (lines 1267-1281)",
        "memory-math ch. 11 induction heads (line 54)",
    ),
)
def induction_circuit(beta: float, rng, kappa: float, sequences: int, length: int) -> dict:
    """The circuit on the note's repeated sentence, without its leading full stop, on random
    repeated sequences of distinct tokens, and E2's two copies read as fixed-anchor heads."""
    seq = _ids(SENTENCE)
    x1, x2, a1, a2, probs = run(seq, beta, kappa=kappa)
    targets = induction_targets(seq, SECOND_COPY)[0]
    rows = np.array(SECOND_COPY)
    answer = seq[0, targets]
    prev_top = x1[0, :, PREV].argmax(axis=1)
    left = np.r_[seq[0, 0], seq[0, :-1]]

    # Without the full stop the first token's own PREV (itself) also matches its repeat.
    bare = _ids(SENTENCE[1:])
    _, _, _, a2b, pb = run(bare, beta, kappa=kappa)
    q_bare = 5  # the second "Ann"
    t_bare = 1  # "gave", the position after the first "Ann" (position 0)

    # Random repeats, second copy: soft attention at beta, and the linear (hard) version.
    seqs = random_repeats(rng, sequences, length)
    pos = np.arange(length + 1, 2 * length + 1)
    tg = induction_targets(seqs, pos)
    ans = np.take_along_axis(seqs, tg, axis=1)
    _, _, _, _, pr = run(seqs, beta, kappa=kappa)
    pr = pr[:, pos]
    right = pr.argmax(axis=-1) == ans
    p_ans = np.take_along_axis(pr, ans[..., None], axis=-1)[..., 0]
    _, xl, _, _, _ = run(seqs, beta, linear=True)
    exact = np.zeros((sequences, length, V))
    np.put_along_axis(exact, ans[..., None], 1.0, axis=-1)
    linear_gap = np.abs(xl[:, pos][..., OUT] - exact).max()

    # E2's sentence: the fixed-anchor head (second Y) and its mirror (final X), read at "then".
    e2 = _ids(E2_SENTENCE)
    last = len(E2_SENTENCE) - 1
    anchor_w, anchor_ok = [], []
    for mode, want_pos, want in (("anchor", 6, "Di"), ("mirror", 5, "Cy")):
        _, _, _, a, p = run(e2, beta, mode=mode, kappa=kappa)
        anchor_w.append(a[0, last, want_pos])
        anchor_ok.append(float(p[0, last].argmax() == INDEX[want]))

    return {
        "attention1": a1[0],
        "attention2": a2[0],
        "prev_token": prev_top.astype(float),
        "prev_is_left_neighbour": float(np.all(prev_top == left)),
        "target_position": targets.astype(float),
        "target_weight": a2[0, rows, targets],
        "answer_prob": probs[0, rows, answer],
        "answer_is_argmax": float(np.all(probs[0, rows].argmax(axis=1) == answer)),
        "score_is_match": _score_is_match(x1[0], seq[0], beta),
        "bare_target_weight": a2b[0, q_bare, t_bare],
        "bare_self_weight": a2b[0, q_bare, 0],
        "bare_answer_prob": pb[0, q_bare, INDEX["gave"]],
        "random_accuracy": float(right.mean()),
        "random_min_prob": float(p_ans.min()),
        "linear_exact_gap": float(linear_gap),
        "anchor_weight": np.array(anchor_w),
        "anchor_correct": np.array(anchor_ok),
        "exact_prob": float(np.exp(kappa) / (np.exp(kappa) + V - 1)),
    }


def _score_is_match(x1: np.ndarray, seq: np.ndarray, beta: float) -> float:
    """Largest gap between the layer-2 scores and beta * [left neighbour of j = token at p],
    with PREV rounded to its one-hot (the hard reading of line 1274), in units of beta."""
    hard = np.zeros_like(x1)
    hard[:, TOK] = x1[:, TOK]
    hard[np.arange(len(seq)), PREV.start + x1[:, PREV].argmax(axis=1)] = 1.0
    head = layer_two(beta)
    scores = (hard @ head["q"].T) @ (hard @ head["k"].T).T
    left = np.r_[seq[0], seq[:-1]]
    want = beta * (left[None, :] == seq[:, None])
    return float(np.abs(scores - want).max() / beta)
