"""The hand-built two-layer program that solves ToyLang at every gap (first-principles E1-E2,
lines 1081-1218), its sharpness bound, its ablations and two one-layer machines.

The residual stream at a position is four blocks, TOK | POS | PREV | OUT, of sizes |V|, n_max,
|V|, |V| (|V| = N + 15: ToyLang's words plus 'met' for the clause in front; n_max = 64). Every
weight matrix is built as the sum of outer products of unit vectors the note writes down
(lines 1118-1138), and the forward pass multiplies by those matrices: attention is the causal
softmax of q_t . k_j over j <= t (or its hard limit, or the plain dot product of the linear
version), and each head adds W_O sum_j a_tj v_j to the stream. The unembedding reads OUT with
the scale kappa = 10.

Token ids: those of ``toylang`` (names first) and 'met' last, with F = 6 fillers.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np
from scipy.optimize import brentq

from ..spec import Output, coord, experiment, integer, ints, real, reals, require, seeds
from . import ngram
from . import toylang as tl
from .softmax import softmax

N_MAX = 64  # positions the one-hot code can address (line 1111)
KAPPA = 10.0  # readout scale of the unembedding (line 1138)
F = 6  # fillers of ToyLang
MACHINES = ("program", "no_position", "no_layer1", "one_layer_slots", "one_layer_recency", "linear")
LAYOUTS = ("plain", "clause")
COPIES = ("Y", "X")  # the second Y (predicted at 'then'), the final X (predicted at 'thanked')
CLAUSE_NAMES = ("independent", "distinct")


# ----------------------------------------------------------------------------- vocabulary


def vocabulary(n_names: int) -> list[str]:
    """ToyLang's words (names first) and 'met': N + 15 tokens."""
    return tl.vocabulary(n_names, F) + ["met"]


def word_ids(n_names: int) -> dict[str, int]:
    ids = {w: i for i, w in enumerate(vocabulary(n_names)) if i >= n_names}
    return ids


@functools.lru_cache(maxsize=16)
def _ids(n_names: int) -> MappingProxyType:
    """word_ids, built once per vocabulary and read-only (the forward pass asks at every run)."""
    return MappingProxyType(word_ids(n_names))


def encode(words: str, n_names: int) -> np.ndarray:
    index = {w: i for i, w in enumerate(vocabulary(n_names))}
    return np.array([index[w] for w in words.split()], dtype=np.int64)


# Sentences the note prints (first-principles line 1105, line 1140 and the lemma of line 1203).
PRINTED_PROMPT = "Ann met Ben . Cy gave Di a pen and so and so then Di thanked Cy ."
LEMMA_A = "{0} met {1} . {2} gave {3} a pen and so then"
LEMMA_B = "{0} gave {1} . {2} met {3} a pen and so then"


def with_clause(sentences: np.ndarray, first: np.ndarray, second: np.ndarray, n_names: int):
    """Sentences with the clause 'A met B .' in front (four tokens)."""
    ids = _ids(n_names)
    s = np.asarray(sentences)
    head = np.stack([first, np.full(len(s), ids["met"]), second, np.full(len(s), ids["."])], axis=1)
    return np.hstack([head.astype(np.int64), s])


def clause_names(rng, x, y, n_names: int, rule: str):
    """Names of the clause: a fresh ordered pair of distinct names, drawn either independently of
    the sentence's pair ('independent') or among the names other than X and Y ('distinct', as in
    the printed prompt)."""
    size = len(x)
    if rule == "independent":
        a = rng.integers(n_names, size=size)
        b = (a + 1 + rng.integers(n_names - 1, size=size)) % n_names
        return a, b
    a = _draw_skipping(rng, n_names, np.stack([x, y], axis=1))
    b = _draw_skipping(rng, n_names, np.stack([x, y, a], axis=1))
    return a, b


def _draw_skipping(rng, n_names: int, excluded: np.ndarray) -> np.ndarray:
    """One name per row, uniform over the names not in that row of ``excluded`` (distinct)."""
    v = rng.integers(n_names - excluded.shape[1], size=len(excluded))
    for e in np.sort(excluded, axis=1).T:  # skip the excluded names in increasing order
        v = v + (v >= e)
    return v


# ----------------------------------------------------------------------------- the program


@dataclass(frozen=True)
class Blocks:
    """Where the four registers sit in the residual stream."""

    V: int
    n_max: int = N_MAX

    @property
    def d(self) -> int:
        return 3 * self.V + self.n_max

    def tok(self, w):
        return w

    def pos(self, t):
        return self.V + t

    def prev(self, w):
        return self.V + self.n_max + w

    def out(self, w):
        return 2 * self.V + self.n_max + w


def unit(size: int, i: int) -> np.ndarray:
    e = np.zeros(size)
    e[i] = 1.0
    return e


@functools.lru_cache(maxsize=64)
def build_program(n_names: int, beta: float, kappa: float = KAPPA, n_max: int = N_MAX) -> dict:
    """The matrices of lines 1118-1138, each a sum of outer products of unit vectors.

    Layer 1 keys live in a space of n_max coordinates (one per position), its values in a space
    of |V| (one per token); layer 2 keys in a space of two (at, aft). Returns a dict of arrays
    W1Q, W1K, W1V, W1O, W2Q, W2K, W2V, W2O, WU and the Blocks. The queries are beta times
    sums that do not depend on beta; those sums and the other matrices are built once."""
    m = dict(_program_sums(n_names, kappa, n_max))
    m["W1Q"], m["W2Q"] = beta * m["W1Q"], beta * m["W2Q"]
    return _frozen(m)


@functools.lru_cache(maxsize=16)
def _program_sums(n_names: int, kappa: float, n_max: int) -> dict:
    """build_program's matrices with the queries' factor beta left out."""
    V = len(vocabulary(n_names))
    b = Blocks(V, n_max)
    d, ids = b.d, word_ids(n_names)
    key, val = (lambda j: unit(n_max, j)), (lambda w: unit(V, w))
    e = lambda i: unit(d, i)  # noqa: E731 - a unit vector of the residual stream
    m = {}
    m["W1Q"] = sum(np.outer(key(t - 1), e(b.pos(t))) for t in range(1, n_max))
    m["W1K"] = sum(np.outer(key(j), e(b.pos(j))) for j in range(n_max))
    m["W1V"] = sum(np.outer(val(w), e(b.tok(w))) for w in range(V))
    m["W1O"] = sum(np.outer(e(b.prev(w)), val(w)) for w in range(V))
    at, aft = unit(2, 0), unit(2, 1)
    m["W2K"] = np.outer(at, e(b.tok(ids["gave"]))) + np.outer(aft, e(b.prev(ids["gave"])))
    m["W2Q"] = np.outer(at, e(b.tok(ids["thanked"]))) + np.outer(aft, e(b.tok(ids["then"])))
    m["W2V"] = sum(np.outer(val(i), e(b.tok(i)) + e(b.prev(i))) for i in range(n_names))
    m["W2O"] = sum(np.outer(e(b.out(w)), val(w)) for w in range(V))
    m["WU"] = kappa * sum(np.outer(unit(V, w), e(b.out(w))) for w in range(V))
    m["blocks"] = b
    return _frozen(m)


@functools.lru_cache(maxsize=64)
def one_layer_machine(n_names: int, beta: float, kind: str, kappa: float = KAPPA) -> dict:
    """A single head that follows the template instead of the rule (line 1197), writing the
    name part of TOK into OUT.

    'slots': keys are one-hot positions; the query at then points at position 2 and the query
    at thanked at position 0 (absolute positions). 'recency': keys are (is a name, position as a
    number); the query at then scores beta (n_max [name] + j), the nearest name, and the query at
    thanked beta (n_max [name] - j), the farthest name. The query is beta times a sum built
    once, as are the other matrices."""
    m = dict(_one_layer_sums(n_names, kind, kappa))
    m["WQ"] = beta * m["WQ"]
    return _frozen(m)


@functools.lru_cache(maxsize=16)
def _one_layer_sums(n_names: int, kind: str, kappa: float) -> dict:
    """one_layer_machine's matrices with the query's factor beta left out."""
    V = len(vocabulary(n_names))
    b = Blocks(V)
    d, ids = b.d, word_ids(n_names)
    e = lambda i: unit(d, i)  # noqa: E731
    if kind == "slots":
        key = lambda j: unit(N_MAX, j)  # noqa: E731
        wq = np.outer(key(2), e(b.tok(ids["then"]))) + np.outer(key(0), e(b.tok(ids["thanked"])))
        wk = sum(np.outer(key(j), e(b.pos(j))) for j in range(N_MAX))
    elif kind == "recency":
        name, ramp = unit(2, 0), unit(2, 1)
        wk = sum(np.outer(name, e(b.tok(i))) for i in range(n_names))
        wk = wk + sum(j * np.outer(ramp, e(b.pos(j))) for j in range(N_MAX))
        wq = (
            N_MAX * np.outer(name, e(b.tok(ids["then"])))
            + np.outer(ramp, e(b.tok(ids["then"])))
            + N_MAX * np.outer(name, e(b.tok(ids["thanked"])))
            - np.outer(ramp, e(b.tok(ids["thanked"])))
        )
    else:
        raise ValueError(f"unknown one-layer machine {kind!r}")
    wv = sum(np.outer(unit(V, i), e(b.tok(i))) for i in range(n_names))
    wo = sum(np.outer(e(b.out(w)), unit(V, w)) for w in range(V))
    wu = kappa * sum(np.outer(unit(V, w), e(b.out(w))) for w in range(V))
    return _frozen({"WQ": wq, "WK": wk, "WV": wv, "WO": wo, "WU": wu, "blocks": b})


def nonzero_counts(m: dict) -> dict:
    """Nonzero entries of each layer (query, key, value, output) and of the unembedding."""
    nz = {k: int(np.count_nonzero(v)) for k, v in m.items() if isinstance(v, np.ndarray)}
    layer1 = nz["W1Q"] + nz["W1K"] + nz["W1V"] + nz["W1O"]
    layer2 = nz["W2Q"] + nz["W2K"] + nz["W2V"] + nz["W2O"]
    return {**nz, "layer1": layer1, "layer2": layer2, "total": layer1 + layer2 + nz["WU"]}


# ----------------------------------------------------------------------------- forward pass


def embed(sentences: np.ndarray, blocks: Blocks, zero_pos: bool = False) -> np.ndarray:
    """(S, T, d) residual streams with TOK and POS filled (POS left empty when ablated)."""
    s = np.atleast_2d(sentences)
    n, length = s.shape
    if length > blocks.n_max:
        raise ValueError(f"a sentence of {length} tokens has no position code past {blocks.n_max}")
    x = np.zeros((n, length, blocks.d))
    rows, cols = np.indices(s.shape)
    x[rows, cols, blocks.tok(s)] = 1.0
    if not zero_pos:
        x[rows, cols, blocks.pos(cols)] = 1.0
    return x


def attention_weights(scores: np.ndarray, mode: str, allowed: np.ndarray) -> np.ndarray:
    """Attention from scores over the positions ``allowed`` (the causal mask, j <= t): softmax,
    its hard limit (the weight split evenly over the largest scores), or the plain dot product
    (linear attention, no normalisation)."""
    if mode == "linear":
        return np.where(allowed, scores, 0.0)
    masked = np.where(allowed, scores, -np.inf)
    top = masked.max(axis=-1, keepdims=True)
    if mode == "hard":
        a = (masked == top).astype(float)
    elif mode == "softmax":
        a = np.exp(masked - top)
    else:
        raise ValueError(f"unknown attention mode {mode!r}")
    return a / a.sum(axis=-1, keepdims=True)


@functools.lru_cache(maxsize=256)
def _entries_cached(key: bytes, shape: tuple) -> list:
    w = np.frombuffer(key).reshape(shape)
    r, c = np.nonzero(w)  # row-major order: grouped by row
    rows, starts, counts = np.unique(r, return_index=True, return_counts=True)
    layers = []  # the k-th entry of every row that has more than k entries
    for k in range(int(counts.max()) if len(r) else 0):
        sel = counts > k
        idx = starts[sel] + k
        vals = w[r[idx], c[idx]]
        ones = np.all(vals == 1)
        layers.append((_as_slice(rows[sel]), _as_slice(c[idx]), None if ones else vals))
    return layers


def _as_slice(index: np.ndarray):
    """A run of consecutive indices as a slice (a view instead of a gather)."""
    if len(index) and np.array_equal(index, np.arange(index[0], index[0] + len(index))):
        return slice(int(index[0]), int(index[0]) + len(index))
    return index


_FROZEN_ENTRIES: dict = {}  # id of a frozen matrix -> (the matrix, its entries)


def _entries(w: np.ndarray) -> list:
    """The nonzero entries of W as (rows, cols, values) layers, one entry per row in each
    (values None where they are all 1). A
    matrix is known by its bytes; the machines' own matrices (built once by the cached builders
    and frozen, see ``_frozen``) by identity, which spares copying and hashing them at every
    product (a third of the time of a short sentence's run)."""
    frozen = not w.flags.writeable and w.base is None
    if frozen and w.flags.c_contiguous and w.dtype == float:
        known = _FROZEN_ENTRIES.get(id(w))
        if known is None or known[0] is not w:
            known = _FROZEN_ENTRIES[id(w)] = (w, _entries_cached(w.tobytes(), w.shape))
        return known[1]
    w = np.ascontiguousarray(w, dtype=float)
    return _entries_cached(w.tobytes(), w.shape)


def _frozen(m: dict) -> dict:
    """The matrices of a cached builder made read-only: every caller shares them."""
    for v in m.values():
        if isinstance(v, np.ndarray):
            v.setflags(write=False)
    return m


def apply(w: np.ndarray, x: np.ndarray) -> np.ndarray:
    """W x_t at every position of a (S, T, d) stream, as the sum over W's nonzero entries
    w_rc x_c (the matrices are sums of a few outer products of unit vectors, so this is the
    same product with far less work than a dense multiply)."""
    layers = _entries(w)
    if not layers or not _is_slice(layers[0][0], 0, w.shape[0]):
        return add_into(np.zeros((*x.shape[:-1], w.shape[0])), w, x)
    _, cols, vals = layers[0]  # an entry in every row: the first layer is the product so far
    first = x[..., cols]
    if vals is not None:
        first = first * vals
    elif isinstance(cols, slice):
        first = first.copy()
    return _add_layers(first, layers[1:], x)


def _is_slice(index, start: int, stop: int) -> bool:
    return isinstance(index, slice) and (index.start, index.stop) == (start, stop)


def add_into(x: np.ndarray, w: np.ndarray, y: np.ndarray) -> np.ndarray:
    """x + W y, in place, touching only the rows of W that hold a nonzero entry (for W_O the
    register the head writes: PREV or OUT)."""
    return _add_layers(x, _entries(w), y)


def _add_layers(x: np.ndarray, layers: list, y: np.ndarray) -> np.ndarray:
    for rows, cols, vals in layers:
        x[..., rows] += y[..., cols] if vals is None else y[..., cols] * vals
    return x


def head(x, wq, wk, wv, wo, mode, sites=None, copy=True):
    """One attention head: q = W_Q x, k = W_K x, v = W_V x; adds W_O sum_j a_tj v_j to the
    stream. ``sites`` (S, Q) restricts the queries to those positions (the copy positions),
    and then the stream returned is the one at those positions only; ``copy=False`` writes into
    ``x`` itself. Returns the stream, the weights and the values.

    When every query position is asked and the coordinates W_Q and W_K read are the same in
    every sentence (layer 1 reads only POS), the weights are the same for every sentence: they
    are computed once, on the first, and shared (the same numbers, not an approximation)."""
    length = x.shape[1]
    v = apply(wv, x)
    if sites is None:
        xq = x.copy() if copy else x
        shared = len(x) > 1 and _same_in_every_row(x, _columns_read(wq, wk))
        qpos = np.broadcast_to(np.arange(length), (1 if shared else len(x), length))
        xk = x[:1] if shared else x
    else:
        xq, qpos, xk = x[np.arange(len(x))[:, None], sites], sites, x
    q, k = apply(wq, xk if sites is None else xq), apply(wk, xk)
    allowed = np.arange(length)[None, None, :] <= qpos[..., None]
    a = attention_weights(q @ np.swapaxes(k, -1, -2), mode, allowed)
    a = np.broadcast_to(a, (len(x), *a.shape[1:]))
    return add_into(xq, wo, a @ v), a, v


def _columns_read(*ws: np.ndarray) -> np.ndarray:
    """The coordinates of the stream that the matrices ``ws`` read (their nonzero columns)."""
    cols = [np.arange(w.shape[1])[c] for w in ws for _, c, _ in _entries(w)]
    return np.unique(np.concatenate(cols)) if cols else np.zeros(0, dtype=np.int64)


def _same_in_every_row(x: np.ndarray, cols: np.ndarray) -> bool:
    """Whether the coordinates ``cols`` of the (S, T, d) stream are equal in every sentence."""
    part = x[..., _as_slice(cols)]
    return bool(np.all(part == part[:1]))


def run_program(
    sentences, n_names: int, beta: float, mode: str = "softmax", ablation=None, sites=None
):
    """The two-layer program on a batch of sentences of one length. ``mode`` 'hard' is the limit
    beta -> infinity (weights built at beta = 1, attention on the largest scores); 'linear' the
    plain dot product with scores of size 1. ``ablation``: None, 'no_position' (POS zeroed) or
    'no_layer1' (layer 1 skipped). ``sites`` restricts layer 2's queries to those positions.
    Returns the stream after layer 1 and at the end, both layers' weights, layer 2's values and
    the logits."""
    m = build_program(n_names, 1.0 if mode in ("hard", "linear") else beta)
    x = embed(sentences, m["blocks"], zero_pos=ablation == "no_position")
    a1 = np.zeros(x.shape[:2] + x.shape[1:2])
    if ablation != "no_layer1":
        x, a1, _ = head(x, m["W1Q"], m["W1K"], m["W1V"], m["W1O"], mode, copy=False)
    x2, a2, v2 = head(x, m["W2Q"], m["W2K"], m["W2V"], m["W2O"], mode, sites)
    return {
        "x1": x,
        "x": x2,
        "a1": a1,
        "a2": a2,
        "v2": v2,
        "logits": apply(m["WU"], x2),
        "blocks": m["blocks"],
    }


def run_one_layer(sentences, n_names: int, beta: float, kind: str, sites=None):
    m = one_layer_machine(n_names, beta, kind)
    x = embed(sentences, m["blocks"])
    x, a, _ = head(x, m["WQ"], m["WK"], m["WV"], m["WO"], "softmax", sites)
    return {"x": x, "a": a, "logits": apply(m["WU"], x), "blocks": m["blocks"]}


def run_machine(machine: str, sentences, n_names: int, beta: float, sites=None) -> dict:
    """Any of the six machines of the ablation figure (line 1215) on a batch of sentences."""
    if machine == "program":
        return run_program(sentences, n_names, beta, sites=sites)
    if machine in ("no_position", "no_layer1"):
        return run_program(sentences, n_names, beta, ablation=machine, sites=sites)
    if machine == "linear":
        return run_program(sentences, n_names, beta, mode="linear", sites=sites)
    return run_one_layer(sentences, n_names, beta, machine.removeprefix("one_layer_"), sites)


def copy_sites(sentences: np.ndarray, n_names: int) -> dict:
    """Per sentence: the positions of 'then' and 'thanked' and the names the rule answers there
    (the token after each), and the position of 'gave'."""
    s = np.atleast_2d(sentences)
    ids = _ids(n_names)
    rows = np.arange(len(s))
    then = np.argmax(s == ids["then"], axis=1)
    thanked = np.argmax(s == ids["thanked"], axis=1)
    gave = np.argmax(s == ids["gave"], axis=1)
    return {
        "then": then,
        "thanked": thanked,
        "gave": gave,
        "Y": s[rows, gave + 1],
        "X": s[rows, gave - 1],
    }


def site_array(sentences, n_names: int) -> np.ndarray:
    """(S, 2) positions of 'then' and 'thanked', where the two copies are predicted."""
    site = copy_sites(sentences, n_names)
    return np.stack([site["then"], site["thanked"]], axis=1)


def score_copies(run: dict, sentences, n_names: int, sites: bool = False) -> dict:
    """Per sentence and copy: whether the argmax of the logits (ties to the lowest token index)
    is the rule's answer, the probability of the answer, and the l1 distance of OUT from the
    answer's one-hot. ``sites``: the run was restricted to the copy positions."""
    s = np.atleast_2d(sentences)
    site = copy_sites(s, n_names)
    rows = np.arange(len(s))
    b = run["blocks"]
    out = {}
    for column, (copy, where) in enumerate((("Y", "then"), ("X", "thanked"))):
        at = column if sites else site[where]
        logits = run["logits"][rows, at]
        answer = site[copy]
        reg = run["x"][rows, at, b.out(0) : b.out(0) + b.V]
        target = np.zeros_like(reg)
        target[rows, answer] = 1.0
        out[copy] = {
            "right": np.argmax(logits, axis=1) == answer,
            "prob": softmax(logits)[rows, answer],
            "l1": np.abs(reg - target).sum(axis=1),
        }
    return out


# ----------------------------------------------------------------------------- the bound


def sharpness_bound(n: float, beta: float) -> dict:
    """Lines 1172-1196: eps = n e^-beta, delta = n e^-beta(1-2 eps), Delta = 2 eps + 3 delta;
    the bound is valid when eps <= 1/4 and certifies the argmax when also Delta < 1."""
    eps = n * math.exp(-beta)
    delta = n * math.exp(-beta * (1 - 2 * eps))
    bound = 2 * eps + 3 * delta
    return {
        "eps": eps,
        "delta": delta,
        "Delta": bound,
        "valid": eps <= 0.25,
        "certifies": eps <= 0.25 and bound < 1,
    }


@functools.lru_cache(maxsize=256)
def smallest_certified_beta(n: float) -> float:
    """The smallest beta at which eps <= 1/4 and 2 eps + 3 delta < 1 (the bound falls in beta
    once eps <= 1/4, so the root of Delta = 1 there is the threshold)."""
    beta_valid = math.log(4 * n)  # eps = 1/4
    if sharpness_bound(n, beta_valid)["Delta"] < 1:
        return beta_valid
    return brentq(lambda b: sharpness_bound(n, b)["Delta"] - 1.0, beta_valid, 60.0, xtol=1e-12)


# ----------------------------------------------------------------------------- sentences


# The plain sentence's template slots, the fillers as one (the attention maps of line 1141).
SLOTS = ("X", "gave", "Y", "a", "pen", "fillers", "then", "Y'", "thanked", "X'", ".")


def slot_attention(att: np.ndarray, gap: int) -> np.ndarray:
    """Attention between the slots of the plain sentence with ``gap`` fillers: the filler rows
    averaged into one, the filler columns summed (NaN in the fillers' row and column when there
    are none)."""
    fill = slice(5, 5 + gap)
    single = np.r_[0:5, 5 + gap : 10 + gap]  # the ten one-token slots, in order
    cols = np.full((att.shape[0], len(SLOTS)), np.nan)  # per row: the slots' summed columns
    cols[:, np.r_[0:5, 6:11]] = att[:, single]
    out = np.full((len(SLOTS), len(SLOTS)), np.nan)
    if gap:  # else the fillers' row and column stay NaN
        cols[:, 5] = att[:, fill].sum(axis=1)
        out[5] = np.ascontiguousarray(cols[fill].T).mean(axis=1)  # the filler rows' mean
    out[np.r_[0:5, 6:11]] = cols[single]
    return out


def example_sentence(n_names: int, gap: int, clause: bool) -> np.ndarray:
    """The sentences the figures run: 'Ann gave Ben a pen' with L fillers ('and so' repeated)
    before 'then Ben thanked Ann .' (the L = 8 readings of line 1141), and with the clause, the
    printed prompt of line 1105 stretched to L fillers ('Ann met Ben . Cy gave Di ...')."""
    fillers = " ".join(("and", "so")[i % 2] for i in range(gap))
    body = "{x} gave {y} a pen " + (fillers + " " if gap else "") + "then {y} thanked {x} ."
    if clause:
        text = "Ann met Ben . " + body.format(x="Cy", y="Di")
    else:
        text = body.format(x="Ann", y="Ben")
    return encode(text, n_names)


def lemma_sentences(n_names: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sentences (a) and (b) of the lemma (line 1203) for every assignment of four distinct
    names to the slots 0, 2, 4, 6; and the rule's answers (n6 for (a), n2 for (b))."""
    names = vocabulary(n_names)[:n_names]
    combos = [
        (a, b, c, d)
        for a in range(n_names)
        for b in range(n_names)
        for c in range(n_names)
        for d in range(n_names)
        if len({a, b, c, d}) == 4
    ]
    sa = np.array([encode(LEMMA_A.format(*(names[i] for i in q)), n_names) for q in combos])
    sb = np.array([encode(LEMMA_B.format(*(names[i] for i in q)), n_names) for q in combos])
    return sa, sb, np.array(combos)


def clause_layouts(rng, base: np.ndarray, n_names: int) -> dict:
    """The plain sentences and the two readings of the clause in front (see clause_names)."""
    out = {"plain": base}
    for rule in CLAUSE_NAMES:
        a, b = clause_names(rng, base[:, 0], base[:, 2], n_names, rule)
        out[f"clause_{rule}"] = with_clause(base, a, b, n_names)
    return out


ABLATION_LAYOUTS = ("plain", "clause_independent", "clause_distinct")


# ----------------------------------------------------------------------------- experiments


DRAW_CASES = (("no_layer1", "plain"), ("no_position", "clause_independent"))

DRAWS = 200

_ABLATION_OUTPUTS = (
    Output("right", "copies right", "sentences", ("machine", "layout", "copy")),
    Output(
        "right_caption",
        "copies right among the first caption_sentences",
        "sentences",
        ("machine", "layout", "copy"),
    ),
    Output("prob_answer", "mean probability of the answer", dims=("machine", "layout", "copy")),
    Output(
        "prob_mean_copies",
        "probability of the answer averaged over sentences and both copies",
        dims=("machine", "layout"),
    ),
    Output(
        "lemma_right",
        "assignments answered right in sentence (a), (b)",
        "assignments",
        ("machine", "lemma_sentence"),
    ),
    Output("lemma_assignments", "assignments of four distinct names", "assignments"),
    Output(
        "right_draws",
        "copies right in one draw of `sentences` sentences (beta 12 only)",
        "sentences",
        ("draw", "case", "copy"),
    ),
    Output(
        "right_draws_caption",
        "copies right among the first caption_sentences of one draw (beta 12 only)",
        "sentences",
        ("draw", "case", "copy"),
    ),
)

_ABLATION_COORDS = {
    "machine": coord("machine run: the program, or the program with a part removed", MACHINES),
    "layout": coord("layout of the test sentences", ABLATION_LAYOUTS),
    "copy": coord("which name is copied: Y at 'thanked' or X at the end", COPIES),
    "lemma_sentence": coord("example sentence of the lemma", ("a", "b")),
    "draw": coord("draw of test sentences (a replicate)", tuple(range(DRAWS))),
    "case": coord(
        "machine and layout of the repeated draws", tuple(f"{m}.{lay}" for m, lay in DRAW_CASES)
    ),
}

BOUND_N = (40, 44, 64, 100)  # positions seen: plain L = 30, with the clause, n_max, Exercise 2

NONZERO_PARTS = (
    "W1Q",
    "W1K",
    "W1V",
    "W1O",
    "W2Q",
    "W2K",
    "W2V",
    "W2O",
    "WU",
    "layer1",
    "layer2",
    "total",
)


def _gaps(L_max: int, **_) -> range:
    return range(L_max + 1)


_ABLATION_RULES = (
    require(
        "L + 10 <= 64",
        "a sentence of 10 + L tokens must fit the program's 64 position codes: L <= 54",
        "L",
    ),
)

_ABLATION_PARAMS = {  # the ablation and its replicated twin take the same parameters
    "N": integer(min=4, doc="names"),
    "L": integer(min=0, doc="gap of the drawn sentences"),
    "sentences": integer(min=1, doc="sentences drawn per grid point", work=True, memory=True),
    "caption_sentences": integer(min=1, doc="the first ones, counted apart"),
    "lemma_names": integer(min=0, doc="names for the lemma's enumeration (0 skips it)"),
    "shared_draw": integer(
        min=-1,
        doc=(
            "seed of one set of sentences shared by every grid point (-1: each point draws its own)"
        ),
    ),
}


@experiment(
    grid={"beta": reals(gt=0, doc="inverse temperature beta multiplying the attention scores")},
    params=_ABLATION_PARAMS,
    outputs=_ABLATION_OUTPUTS,
    coords=_ABLATION_COORDS,
    replicates=("draw",),
    constraints=_ABLATION_RULES,
    sections=(
        "first-principles E2: ablations, one-layer machines and the lemma's sentences "
        "over the sharpness (lines 1197-1216)",
    ),
)
@experiment(
    name="program_replicates",
    grid={
        "beta": reals(gt=0, doc="inverse temperature beta multiplying the attention scores"),
        "seed": seeds(),
    },
    params=_ABLATION_PARAMS,
    outputs=_ABLATION_OUTPUTS,
    coords=_ABLATION_COORDS,
    replicates=("draw",),
    constraints=_ABLATION_RULES,
    sections=(
        "first-principles E2: the ablation counts at the chosen sharpness, replicated "
        "(lines 1211-1216)",
    ),
)
def program_ablation(
    beta: float,
    rng,
    N: int,
    L: int,
    sentences: int,
    caption_sentences: int,
    lemma_names: int,
    shared_draw: int,
    seed: int = 0,
) -> dict:
    """The six machines of line 1215 on ``sentences`` drawn ToyLang sentences (N names, gap L),
    plain and with a clause in front (both readings of its names): right copies counted over all
    of them and over the first ``caption_sentences`` (the caption's reading), and the mean
    probability of the answer. With ``lemma_names`` > 0 also the lemma's sentences (a), (b) for
    every assignment of four distinct names out of that many. ``shared_draw`` >= 0 seeds one
    set of sentences shared by every grid point (the same sentences at every beta, as a sweep of
    one prompt set); -1 draws from the point's own generator. ``seed`` only labels a replicate."""
    if shared_draw >= 0:
        rng = np.random.default_rng(shared_draw)
    base = tl.sample_sentences(rng, N, F, L, sentences)
    layouts = clause_layouts(rng, base, N)
    shape = (len(MACHINES), len(ABLATION_LAYOUTS), len(COPIES))
    right, right_cap, prob = np.zeros(shape), np.zeros(shape), np.zeros(shape)
    for i, machine in enumerate(MACHINES):
        for j, layout in enumerate(ABLATION_LAYOUTS):
            s = layouts[layout]
            run = run_machine(machine, s, N, beta, site_array(s, N))
            sc = score_copies(run, s, N, sites=True)
            for k, copy in enumerate(COPIES):
                right[i, j, k] = sc[copy]["right"].sum()
                right_cap[i, j, k] = sc[copy]["right"][:caption_sentences].sum()
                prob[i, j, k] = sc[copy]["prob"].mean()
    lemma = np.full((len(MACHINES), 2), np.nan)
    n_assign = np.nan
    if lemma_names:
        sa, sb, combos = lemma_sentences(lemma_names)
        n_assign = len(combos)
        for i, machine in enumerate(MACHINES):
            for j, (s, answer) in enumerate(((sa, combos[:, 3]), (sb, combos[:, 1]))):
                site = np.argmax(s == word_ids(lemma_names)["then"], axis=1)
                run = run_machine(machine, s, lemma_names, beta, site[:, None])
                lemma[i, j] = np.sum(np.argmax(run["logits"][:, 0], axis=1) == answer)
    draws = np.full((DRAWS, len(DRAW_CASES), len(COPIES)), np.nan)
    draws_caption = np.full_like(draws, np.nan)
    if shared_draw >= 0 and beta in DRAW_BETAS:
        draws, draws_caption = ablation_draws(beta, N, L, sentences, caption_sentences, shared_draw)
    return {
        "right": right,
        "right_caption": right_cap,
        "prob_answer": prob,
        "prob_mean_copies": prob.mean(axis=2),
        "lemma_right": lemma,
        "lemma_assignments": n_assign,
        "right_draws": draws,
        "right_draws_caption": draws_caption,
    }


# The ablation counts the text prints at beta = 12 (line 1212-1213) are single draws of a random
# count of ``sentences`` sentences; DRAWS independent draws give their distribution, so that a
# printed count is judged by its quantile. Drawn only at the text's chosen sharpness.
DRAW_BETAS = (12.0,)
# The two ablations whose printed counts vary from draw to draw (the others are the same on
# every draw and are read from the shared draw).
DRAW_CHUNK = 25  # draws run as one batch


def ablation_draws(
    beta: float, N: int, L: int, sentences: int, caption_sentences: int, seed: int, draws=DRAWS
) -> tuple[np.ndarray, np.ndarray]:
    """(DRAWS, case, copy) counts of right copies over ``sentences`` fresh sentences per draw
    (and over its first ``caption_sentences``), for the ablated machines of DRAW_CASES; the
    draws come from their own generator, seeded from ``seed``."""
    rng = np.random.default_rng([seed, 1212])
    right = np.zeros((draws, len(DRAW_CASES), len(COPIES)))
    caption = np.zeros_like(right)
    for start in range(0, draws, DRAW_CHUNK):
        n = min(DRAW_CHUNK, draws - start)
        base = tl.sample_sentences(rng, N, F, L, n * sentences)
        layouts = clause_layouts(rng, base, N)
        for c, (machine, layout) in enumerate(DRAW_CASES):
            right_copies = copies_right(machine, layouts[layout], N, beta)
            for k, copy in enumerate(COPIES):
                ok = right_copies[copy].reshape(n, sentences)
                right[start : start + n, c, k] = ok.sum(axis=1)
                caption[start : start + n, c, k] = ok[:, :caption_sentences].sum(axis=1)
    return right, caption


RUN_BATCH = 100  # sentences run through a machine at once by copies_right (streams of about 7 MB)


def copies_right(machine: str, sentences: np.ndarray, n_names: int, beta: float) -> dict:
    """Per copy, whether the machine's argmax is the rule's answer, for every sentence. Run
    RUN_BATCH sentences at a time: each sentence's run is its own (the batch only stacks them),
    and streams of a few thousand sentences (S x T x 253) are slower to run in one piece."""
    right = {copy: [] for copy in COPIES}
    for start in range(0, len(sentences), RUN_BATCH):
        s = sentences[start : start + RUN_BATCH]
        sc = score_copies(
            run_machine(machine, s, n_names, beta, site_array(s, n_names)), s, n_names, True
        )
        for copy in COPIES:
            right[copy].append(sc[copy]["right"])
    return {copy: np.concatenate(parts) for copy, parts in right.items()}


def _register_tops(x: np.ndarray, start: int, size: int) -> tuple[np.ndarray, np.ndarray]:
    block = x[..., start : start + size]
    return block.argmax(axis=-1).astype(float), block.max(axis=-1)


@experiment(
    grid={
        "beta": reals(
            gt=0, max=300, doc="inverse temperature beta multiplying the attention scores"
        ),
        "L": ints(
            min=0, doc="gap L: filler tokens between the thing and 'then' in a ToyLang sentence"
        ),
    },
    params={
        "N": integer(min=4, doc="names (the printed sentences use four)"),
    },
    constraints=(
        require(
            "max(L) + 10 <= 64",
            "a sentence of 10 + L tokens must fit the program's 64 position codes: L <= 54",
            "L",
        ),
    ),
    outputs=(
        Output("prob", "probability of the answer at its copy position", dims=("layout", "copy")),
        Output("right", "1 if the argmax of the logits is the answer", dims=("layout", "copy")),
        Output("l1", "l1 distance of OUT from the answer's one-hot", dims=("layout", "copy")),
        Output("prob_hard", "probability of the answer, hard attention", dims=("layout", "copy")),
        Output(
            "l1_hard", "l1 distance of OUT from the answer, hard attention", dims=("layout", "copy")
        ),
        Output(
            "prob_linear", "probability of the answer, linear attention", dims=("layout", "copy")
        ),
        Output("l1_linear", "l1 distance of OUT from the answer, linear", dims=("layout", "copy")),
        Output(
            "prev_left_match",
            "share of positions whose PREV holds the left token",
            dims=("layout",),
        ),
        Output("layer1_weight_gap", "largest |a_t,t-1 - e^beta/(e^beta+t)|", dims=("layout",)),
        Output(
            "layer2_keys_exact",
            "1 if the hard-limit layer-2 keys are (1,0) at gave, (0,1) after it, else 0",
            dims=("layout",),
        ),
        Output(
            "value_l1_max_rest",
            "largest l1 norm of a layer-2 value past position 0",
            dims=("layout",),
        ),
        Output(
            "layer2_target_offset",
            "position layer 2 reads most at the copy, minus that of gave",
            "positions",
            ("layout", "copy"),
        ),
        Output("n_max", "positions the one-hot code addresses", "positions"),
        Output("state_numbers", "numbers in the layer-1 fast-weight state |V| n_max"),
        Output(
            "attention",
            "attention weight of query position on key position",
            dims=("layout", "layer", "query", "key"),
        ),
        # the interactive page embeds these, far smaller than the maps over every position
        Output(
            "attention_slots",
            "attention between the plain sentence's slots (filler rows averaged, columns summed)",
            dims=("layer", "slot_q", "slot_k"),
        ),
        Output("token", "token id at each position", dims=("layout", "position")),
        Output("prev_top", "token id with the largest weight in PREV", dims=("layout", "position")),
        Output("prev_weight", "that largest weight in PREV", dims=("layout", "position")),
        Output("out_top", "token id with the largest weight in OUT", dims=("layout", "position")),
        Output("out_weight", "that largest weight in OUT", dims=("layout", "position")),
        Output("value_l1", "l1 norm of the layer-2 value vector", dims=("layout", "position")),
        Output("bound_n", "positions of the clause sentence (n of the bound)", "positions"),
        Output("bound_eps", "eps = n exp(-beta)"),
        Output("bound_delta", "delta = n exp(-beta (1 - 2 eps))"),
        Output("bound_Delta", "bound 2 eps + 3 delta on the l1 error of OUT"),
        Output("bound_certifies", "1 if eps <= 1/4 and the bound is below 1"),
        Output("certified_beta", "smallest beta the bound certifies at this n"),
        Output("certified_beta_n", "smallest beta the bound certifies", dims=("n_positions",)),
        Output("hard_limit_formula", "exp(kappa) / (exp(kappa) + |V| - 1)"),
        Output("exp_kappa", "exp(kappa)"),
        Output("vocab", "vocabulary size |V| = N + 15", "tokens"),
        Output("d_model", "width of the residual stream 3|V| + n_max"),
        Output("nonzeros", "nonzero entries of each matrix and in all", dims=("part",)),
    ),
    coords={
        "position": coord("position in the sentence (0 first)"),
        "key": coord("key position of the sentence (0 first)"),
        "query": coord("query position of the sentence (0 first)"),
        "layout": coord("layout of the test sentence", ("plain", "clause")),
        "copy": coord("which name is copied: Y at 'thanked' or X at the end", COPIES),
        "layer": coord("which layer of the program (1: nearest the input)", (1, 2)),
        "slot_q": coord("query slot of the plain sentence", SLOTS),
        "slot_k": coord("key slot of the plain sentence", SLOTS),
        "n_positions": coord("sequence length n the bound is evaluated at", BOUND_N),
        "part": coord("weight matrix of the program", NONZERO_PARTS),
    },
    sections=(
        "first-principles E2: the two-layer program, its sizes, its runs at finite and "
        "infinite sharpness, the maps and registers figures, the sharpness bound "
        "(lines 1103-1196)",
    ),
)
def toylang_program(beta: float, L: int, N: int) -> dict:
    """The program on the sentences the text runs at sharpness beta and gap L: the plain example
    and the clause-first prompt. Per layout: probability of each answer, argmax right, l1 gap of
    OUT to the answer, the same in the hard limit and with linear attention, the attention maps
    of both layers, the registers (top token and its weight in PREV and OUT) and layer 2's value
    norms; the sharpness bound at n = the clause sentence's length. Also the machine's sizes."""
    T = 14 + L  # the longest of the two sentences (the clause adds four tokens)
    out = {k: np.full((2, 2), np.nan) for k in ("prob", "right", "l1", "prob_hard", "l1_hard")}
    out["prob_linear"] = np.full((2, 2), np.nan)
    out["l1_linear"] = np.full((2, 2), np.nan)
    checks = {k: np.full(2, np.nan) for k in ("prev_left_match", "layer1_weight_gap")}
    checks.update({k: np.full(2, np.nan) for k in ("layer2_keys_exact", "value_l1_max_rest")})
    offsets = np.full((2, 2), np.nan)
    maps = np.full((2, 2, T, T), np.nan)
    regs = {k: np.full((2, T), np.nan) for k in ("token", "prev_top", "prev_weight")}
    regs.update({k: np.full((2, T), np.nan) for k in ("out_top", "out_weight", "value_l1")})
    for i, clause in enumerate((False, True)):
        s = example_sentence(N, L, clause)[None]
        n = s.shape[1]
        for mode, tag in (("softmax", ""), ("hard", "_hard"), ("linear", "_linear")):
            run = run_program(s, N, beta, mode=mode)
            sc = score_copies(run, s, N)
            for k, copy in enumerate(COPIES):
                out[f"prob{tag}"][i, k] = sc[copy]["prob"][0]
                if mode == "softmax":
                    out["right"][i, k] = sc[copy]["right"][0]
                out[f"l1{tag}"][i, k] = sc[copy]["l1"][0]
            if mode == "hard":
                m = build_program(N, 1.0)
                keys = apply(m["W2K"], run["x1"])[0]
                site = copy_sites(s, N)
                want = np.zeros_like(keys)
                want[site["gave"][0], 0] = want[site["gave"][0] + 1, 1] = 1.0
                checks["layer2_keys_exact"][i] = float(np.array_equal(keys, want))
            if mode == "softmax":
                b = run["blocks"]
                site = copy_sites(s, N)
                for k, where in enumerate(("then", "thanked")):
                    t = site[where][0]
                    offsets[i, k] = np.argmax(run["a2"][0, t]) - site["gave"][0]
                left = np.concatenate([s[0, :1], s[0, :-1]])  # position 0 reads itself
                prev = run["x1"][0, :, b.prev(0) : b.prev(0) + b.V].argmax(axis=-1)
                checks["prev_left_match"][i] = float(np.mean(prev == left))
                t_idx = np.arange(1, n)
                exact = np.exp(beta) / (np.exp(beta) + t_idx)
                checks["layer1_weight_gap"][i] = np.max(
                    np.abs(run["a1"][0, t_idx, t_idx - 1] - exact)
                )
                checks["value_l1_max_rest"][i] = np.abs(run["v2"][0, 1:]).sum(axis=-1).max()
                maps[i, 0, :n, :n], maps[i, 1, :n, :n] = run["a1"][0], run["a2"][0]
                regs["token"][i, :n] = s[0]
                regs["prev_top"][i, :n], regs["prev_weight"][i, :n] = _register_tops(
                    run["x"][0], b.prev(0), b.V
                )
                regs["out_top"][i, :n], regs["out_weight"][i, :n] = _register_tops(
                    run["x"][0], b.out(0), b.V
                )
                regs["value_l1"][i, :n] = np.abs(run["v2"][0]).sum(axis=-1)
    n_clause = L + 14
    bound = sharpness_bound(n_clause, beta)
    sizes = nonzero_counts(build_program(N, beta))
    return {
        **out,
        **checks,
        "layer2_target_offset": offsets,
        "n_max": float(N_MAX),
        "state_numbers": float(len(vocabulary(N)) * N_MAX),
        "attention": maps,
        "attention_slots": np.stack([slot_attention(maps[0, k], L) for k in range(2)]),
        **regs,
        "bound_n": float(n_clause),
        "bound_eps": bound["eps"],
        "bound_delta": bound["delta"],
        "bound_Delta": bound["Delta"],
        "bound_certifies": float(bound["certifies"]),
        "certified_beta": smallest_certified_beta(n_clause),
        "certified_beta_n": np.array([smallest_certified_beta(n) for n in BOUND_N]),
        "hard_limit_formula": math.exp(KAPPA) / (math.exp(KAPPA) + len(vocabulary(N)) - 1),
        "exp_kappa": math.exp(KAPPA),
        "vocab": float(len(vocabulary(N))),
        "d_model": float(build_program(N, beta)["blocks"].d),
        "nonzeros": np.array([sizes[k] for k in NONZERO_PARTS], dtype=float),
    }


def gap_sentences(rng, n_names: int, gap: int, max_pairs: int) -> np.ndarray:
    """Sentences at one gap: one per ordered pair of names when there are at most ``max_pairs``
    pairs, else N sentences in which every name is X once and Y once (pairs (i, i+k) for a shift
    k that moves with the gap, so that the gaps together run many pairs); thing and fillers
    drawn."""
    if n_names * (n_names - 1) <= max_pairs:
        x, y = np.array([(i, j) for i in range(n_names) for j in range(n_names) if i != j]).T
    else:
        x = np.arange(n_names)
        y = (x + 1 + gap % (n_names - 1)) % n_names
    t = rng.integers(len(tl.THINGS), size=len(x))
    fillers = rng.integers(F, size=(len(x), gap))
    return tl.assemble(x, y, t, fillers, n_names)


@experiment(
    grid={"N": ints(min=2, ranges=False, doc="number of names X, Y can be drawn from in ToyLang")},
    params={
        "L_max": integer(
            min=0, doc="longest gap (gaps too long for the position code are skipped)"
        ),
        "beta": real(gt=0, doc="sharpness of the finite run"),
        "max_pairs": integer(min=2, doc="run every ordered pair up to this many"),
    },
    constraints=(
        require(
            "L_max + 10 <= 64",
            "a sentence of 10 + L tokens must fit the program's 64 position codes: L_max <= 54",
            "L_max",
        ),
    ),
    outputs=(
        Output(
            "fraction_right", "fraction of copies right", dims=("L", "layout", "attention", "copy")
        ),
        Output(
            "all_right",
            "smallest fraction right over every gap run",
            dims=("layout", "attention", "copy"),
        ),
        Output(
            "min_prob",
            "smallest probability of the answer",
            dims=("L", "layout", "attention", "copy"),
        ),
        Output(
            "n_sentences",
            "sentences run (NaN: too long for the position code)",
            dims=("L", "layout"),
        ),
        Output(
            "longest_gap_run", "longest gap that fits the position code", "fillers", ("layout",)
        ),
        Output("names_covered", "distinct names run as X, as Y", dims=("role",)),
        Output("y_distance", "tokens from the first Y to the second", "tokens", ("L",)),
        Output("x_distance", "tokens from X to the final X", "tokens", ("L",)),
        Output("bag_copy_nats", "bag-of-words cost of a copied name", "nats", ("L",)),
        Output("bag_copy_ratio", "(10+L)N/4, whose log is that cost", dims=("L",)),
        Output(
            "short_window_nats", "cost of X for a window one short of its source", "nats", ("L",)
        ),
        Output("one_token_window_nats", "cost of X for a window of one token", "nats", ("L",)),
        Output("source_window_nats", "cost of X for a window reaching its source", "nats", ("L",)),
        Output("table_contexts", "contexts a table needs to pay 0 on X", dims=("L",)),
        Output("ordered_pairs", "ordered pairs of distinct names N(N-1)", dims=("L",)),
        Output(
            "all_pairs_right",
            "copies right over every ordered pair at L = 0, 17, 30 (plain, beta)",
            "predictions",
        ),
        Output(
            "all_pairs_predictions",
            "copies asked over every ordered pair at L = 0, 17, 30",
            "predictions",
        ),
    ),
    coords={
        "L": coord(
            "gap L: filler tokens between the thing and 'then' in a ToyLang sentence", _gaps
        ),
        "layout": coord("layout of the test sentences", ("plain", "clause")),
        "attention": coord("attention of the program: hard or softmax", ("hard", "softmax")),
        "copy": coord("which name is copied: Y at 'thanked' or X at the end", COPIES),
        "role": coord("name role", ("X", "Y")),
    },
    sections=(
        "first-principles E1 opening numbers (line 1084) and E2: the program at every gap "
        "and for every name (lines 1104, 1142)",
    ),
)
def program_gaps(N: int, L_max: int, rng, beta: float, max_pairs: int) -> dict:
    """Every gap L = 0..L_max (up to what the 64-slot position code holds): the program in the
    hard limit and at ``beta`` on the sentences of gap_sentences, plain and with a clause in
    front (names drawn independently); and the numbers of E1's opening paragraph at each L."""
    gaps = range(L_max + 1)
    right = np.full((len(gaps), 2, 2, 2), np.nan)  # L, layout, mode (hard, beta), copy
    min_prob = np.full((len(gaps), 2, 2, 2), np.nan)
    n_run = np.full((len(gaps), 2), np.nan)
    covered = np.zeros((N, 2), dtype=bool)  # names run as X, as Y
    for g in gaps:
        base = gap_sentences(rng, N, g, max_pairs)
        covered[base[:, 0], 0] = covered[base[:, 2], 1] = True
        a, b = clause_names(rng, base[:, 0], base[:, 2], N, "independent")
        for i, s in enumerate((base, with_clause(base, a, b, N))):
            if s.shape[1] > N_MAX:
                continue
            n_run[g, i] = len(s)
            for j, mode in enumerate(("hard", "softmax")):
                run = run_program(s, N, beta, mode=mode, sites=site_array(s, N))
                sc = score_copies(run, s, N, sites=True)
                for k, copy in enumerate(COPIES):
                    right[g, i, j, k] = sc[copy]["right"].mean()
                    min_prob[g, i, j, k] = sc[copy]["prob"].min()
    dist = [tl.copy_positions(g) for g in gaps]
    r3_right, r3_made = all_pairs_right(N, beta, [g for g in R3_GAPS if g in gaps])
    return {
        "all_pairs_right": r3_right,
        "all_pairs_predictions": r3_made,
        "fraction_right": right,
        "all_right": np.nanmin(right, axis=0),
        "min_prob": min_prob,
        "n_sentences": n_run,
        "longest_gap_run": np.array([max(g for g in gaps if n_run[g, i] > 0) for i in range(2)]),
        "names_covered": covered.sum(axis=0).astype(float),
        "y_distance": np.array([d["Y"] - d["Y_source"] for d in dist], dtype=float),
        "x_distance": np.array([d["X"] - d["X_source"] for d in dist], dtype=float),
        "bag_copy_nats": np.array([ngram.bag_copy_cost(N, g) for g in gaps]),
        "bag_copy_ratio": np.array([(10 + g) * N / 4 for g in gaps], dtype=float),
        "short_window_nats": np.array([ngram.staircase_x(N, g, g + 7) for g in gaps]),
        "one_token_window_nats": np.array([ngram.staircase_x(N, g, 1) for g in gaps]),
        "source_window_nats": np.array([ngram.staircase_x(N, g, g + 8) for g in gaps]),
        "table_contexts": np.array([float(ngram.contexts_to_zero(N, F, g)) for g in gaps]),
        "ordered_pairs": np.full(len(gaps), float(N * (N - 1))),
    }


R3_GAPS = (0, 17, 30)  # first-principles line 1326: every ordered pair at these gaps
R3_CHUNK = RUN_BATCH  # sentences run at once


def all_pairs_right(n_names: int, beta: float, gaps) -> tuple[float, float]:
    """Copies answered right (argmax) by the program at ``beta`` over every ordered pair of
    names at each gap (plain sentences, thing and fillers drawn from their own generator),
    and the number of copies asked: both copies of N(N-1) sentences per gap."""
    rng = np.random.default_rng([n_names, 1326])
    x, y = np.array([(i, j) for i in range(n_names) for j in range(n_names) if i != j]).T
    right = made = 0
    for g in gaps:
        t = rng.integers(len(tl.THINGS), size=len(x))
        fillers = rng.integers(F, size=(len(x), g))
        s_all = tl.assemble(x, y, t, fillers, n_names)
        for start in range(0, len(s_all), R3_CHUNK):
            s = s_all[start : start + R3_CHUNK]
            sc = score_copies(
                run_program(s, n_names, beta, sites=site_array(s, n_names)), s, n_names, True
            )
            for copy in COPIES:
                right += int(sc[copy]["right"].sum())
                made += len(s)
    return float(right), float(made)
