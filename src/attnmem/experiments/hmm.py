"""Hidden Markov models: the forward algorithm, and a hand-built machine that holds the binding.

first-principles A4 (lines 264-294): the forward recursion checked on the note's two-state
example against the sum over every state path; the HMM whose state is the ordered pair of names
and the phase inside the sentence, run on every sentence of small enumerated ToyLangs (or on
drawn sentences where the language is too large to list); and the count of situations a
zero-cost predictor must tell apart just after 'then'.
"""

from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp

from ..spec import Output, coord, experiment, integer, ints
from . import toylang as tl
from .ngram import row_keys

# The note's two-state check (first-principles line 289): start law, transition rows, and the
# token probabilities of each state over the tokens (a, b); the text is a b a.
CHECK_PI = np.array([0.6, 0.4])
CHECK_T = np.array([[0.7, 0.3], [0.4, 0.6]])
CHECK_E = np.array([[0.9, 0.1], [0.2, 0.8]])
CHECK_TEXT = np.array([0, 1, 0])


def _transposed(T):
    """T transposed, in a layout whose product with a (J, S) array is fast (dense or CSR)."""
    return sp.csr_matrix(T.T) if sp.issparse(T) else np.ascontiguousarray(T.T)


def _emitted(E: np.ndarray, tokens: np.ndarray) -> np.ndarray:
    """o_j(w) of every state j (rows) for the token w of every text (columns): shape (J, S), in
    C order like the forward variable after its first step (multiplying it by a transposed
    (S, J) gather instead was 4x slower)."""
    return np.take(E, tokens, axis=1)


def forward(pi: np.ndarray, T, E: np.ndarray, texts: np.ndarray, keep: bool = False) -> dict:
    """The forward algorithm on a batch of texts of equal length (shape (S, n)), vectorised over
    texts and states. pi is the start law, T the transitions (dense or sparse), E[j] the token
    law o_j of state j (the note's o_j(w) is E[j, w]). It carries the normalised
    vector rho_t / p(w_1..w_t) (so long texts do not underflow) and returns the probability of
    every token given the tokens before it (``cond``, shape (S, n)), the log probability of each
    text, and how many states have positive probability after each token (``live``). With
    ``keep`` it also returns the unnormalised rho_t (shape (S, n, J)).

    With sparse T and several texts, the steps after the first carry only the states that the
    start law's support can have reached (``_reachable``): the other rows of rho are zeros in
    every text, and leaving them out changes no sum (see ``_reachable``)."""
    texts = np.atleast_2d(texts)
    s, n = texts.shape
    TT = _transposed(T)
    cond = np.empty((s, n))
    live = np.empty((s, n))
    rhos = np.zeros((s, n, len(pi))) if keep else None
    scale = np.ones(s)
    steps = _reachable(TT, pi, n) if sp.issparse(TT) and s > 1 else None
    rows = slice(None)
    # (J, S). The first step is laid out in F order (a transposed gather), the later ones in C
    # order: a column sum adds in a different order in each, so keep both as they are.
    rho = pi[:, None] * np.ascontiguousarray(E.T)[texts[:, 0]].T
    for t in range(n):
        if t and steps is None:
            rho = np.asarray(TT @ rho) * _emitted(E, texts[:, t])
        elif t:
            rows, layers, _ = steps[t - 1]
            rho = _restricted_product(layers, rho, len(rows)) * _emitted(E[rows], texts[:, t])
        total = rho.sum(axis=0)
        cond[:, t] = total
        live[:, t] = np.count_nonzero(rho > 0, axis=0)
        rho = np.divide(rho, total, out=np.zeros_like(rho), where=total > 0)
        if keep:
            scale = scale * total
            rhos[:, t, rows] = (rho * scale).T
        if t == 0 and steps:
            rho = np.ascontiguousarray(rho[steps[0][2]])
    with np.errstate(divide="ignore"):
        log_p = np.log(cond).sum(axis=1)
    return {"cond": cond, "log_p": log_p, "live": live, "rho": rhos}


def _reachable(TT: sp.csr_matrix, pi: np.ndarray, n: int) -> list:
    """For steps 1..n-1 of a recursion rho_t = (TT rho_{t-1}) * o, the product restricted to the
    states the start law's support can reach: per step, the states reached, the layers of the
    restricted product (see ``_restricted_product``) and the states it reads (those of the step
    before). A row of rho outside these is zero in every text, so the restricted product adds
    the same products in the same order (each row of TT keeps its entries' order), and a C-order
    sum over the states adds the same numbers in the same order, less some zeros. (A column of
    F-order or a single text's rho is summed pairwise, where zeros move the partial sums: hence
    step 0 in full, and several texts.)"""
    indptr, indices, data = TT.indptr, TT.indices, TT.data
    row_of = np.repeat(np.arange(TT.shape[0]), np.diff(indptr))  # the row of every entry
    rows = np.flatnonzero(pi)
    out = []
    for _ in range(1, n):
        is_read = np.zeros(TT.shape[1], dtype=bool)
        is_read[rows] = True
        kept = np.flatnonzero(is_read[indices])  # entries from the states read, in CSR order
        entry_row = row_of[kept]
        reached = np.unique(entry_row)
        first = np.r_[True, entry_row[1:] != entry_row[:-1]]
        rank = np.arange(len(kept)) - np.flatnonzero(first)[np.cumsum(first) - 1]
        to = np.searchsorted(reached, entry_row)
        frm = np.searchsorted(rows, indices[kept])
        layers = [
            (to[rank == k], frm[rank == k], data[kept][rank == k])
            for k in range(int(rank.max()) + 1 if len(rank) else 0)
        ]
        out.append((reached, layers, rows))
        rows = reached
    return out


def _restricted_product(layers: list, x: np.ndarray, n_out: int) -> np.ndarray:
    """TT x restricted to the reached states: for each row, its k-th entry times the state it
    reads is added in layer k, so each row adds its products in TT's order, from zero, as the
    sparse product does."""
    y = np.zeros((n_out, x.shape[1]))
    for to, frm, vals in layers:
        y[to] += vals[:, None] * x[frm]
    return y


def brute_force(pi: np.ndarray, T: np.ndarray, E: np.ndarray, text: np.ndarray) -> float:
    """p(text) by listing all J**n state paths and adding up their joint probabilities."""
    n, J = len(text), len(pi)
    paths = np.indices((J,) * n).reshape(n, -1).T  # (J**n, n)
    p = pi[paths[:, 0]] * E[paths[:, 0], text[0]]
    for t in range(1, n):
        p = p * T[paths[:, t - 1], paths[:, t]] * E[paths[:, t], text[t]]
    return float(p.sum())


def count_paths(pi, T, E, texts: np.ndarray) -> np.ndarray:
    """Number of state paths of positive probability for each text: the forward recursion run
    on the 0/1 patterns of pi, T and E, so that it counts paths instead of weighing them."""
    texts = np.atleast_2d(texts)
    TT = _transposed((T > 0).astype(float))
    E01 = (E > 0).astype(float)
    count = (pi > 0).astype(float)[:, None] * np.ascontiguousarray(E01.T)[texts[:, 0]].T  # F order
    if sp.issparse(TT) and len(texts) > 1:  # only the reachable states, as in forward
        steps = _reachable(TT, pi, texts.shape[1])
        if steps:
            count = count[steps[0][2]]
        for t, (rows, layers, _) in enumerate(steps, start=1):
            count = _restricted_product(layers, count, len(rows)) * _emitted(E01[rows], texts[:, t])
        return count.sum(axis=0)
    for t in range(1, texts.shape[1]):
        count = np.asarray(TT @ count) * _emitted(E01, texts[:, t])
    return count.sum(axis=0)


def random_hmm(rng: np.random.Generator, J: int, V: int) -> tuple:
    """A random HMM: start law, transition rows and token laws drawn from flat Dirichlets."""
    return (
        rng.dirichlet(np.ones(J)),
        rng.dirichlet(np.ones(J), size=J),
        rng.dirichlet(np.ones(V), size=J),
    )


@experiment(
    outputs=(
        Output("rho", "forward variable rho_t(j) = Pr(w_1..w_t, s_t = j)", dims=("t", "state")),
        Output("p_forward", "probability of the text by the forward recursion"),
        Output("p_paths", "probability of the text summed over every state path"),
        Output("n_paths", "number of state paths summed"),
        Output("random_gap", "largest relative gap between recursion and path sum on random HMMs"),
    ),
    coords={
        "t": coord("time step t of the forward recursion", (1, 2, 3)),
        "state": coord("hidden state j of the two-state HMM", (0, 1)),
    },
    sections=("first-principles A4: the forward algorithm and its Check (lines 264-289)",),
)
def hmm_forward_check(rng: np.random.Generator) -> dict:
    """The note's two-state example: rho_1..rho_3, p(a b a) by the recursion and by the sum over
    all 2**3 state paths; and the largest relative gap between the two on random HMMs (2 to 4
    states, 2 or 3 tokens, texts of 1 to 5 tokens)."""
    out = forward(CHECK_PI, CHECK_T, CHECK_E, CHECK_TEXT[None, :], keep=True)
    J, n = len(CHECK_PI), len(CHECK_TEXT)
    gaps = []
    for J_r in (2, 3, 4):
        for n_r in range(1, 6):
            pi, T, E = random_hmm(rng, J_r, 3)
            text = rng.integers(3, size=n_r)
            p_f = float(np.exp(forward(pi, T, E, text[None, :])["log_p"][0]))
            p_b = brute_force(pi, T, E, text)
            gaps.append(abs(p_f - p_b) / p_b)
    return {
        "rho": out["rho"][0],
        "p_forward": float(np.exp(out["log_p"][0])),
        "p_paths": brute_force(CHECK_PI, CHECK_T, CHECK_E, CHECK_TEXT),
        "n_paths": float(J**n),
        "random_gap": max(gaps),
    }


# ----------------------------------------------------------------------------- the binding HMM


def ordered_pairs(n_names: int) -> np.ndarray:
    return np.array([(x, y) for x in range(n_names) for y in range(n_names) if x != y])


def binding_model(
    n_names: int, n_fillers: int, gap: int
) -> tuple[np.ndarray, sp.csr_matrix, np.ndarray]:
    """The hand-built machine: a state is (ordered pair (x, y), phase), the phase moves on by one
    at every token, and each state emits what the template puts at its phase: x at phases 0 and
    L+8, y at 2 and L+6, the template word, or a uniform thing or filler. It starts uniformly
    over the pairs at phase 0; the last phase (the full stop) stays where it is."""
    pairs = ordered_pairs(n_names)
    P = tl.length(gap)
    J = len(pairs) * P
    V = tl.vocab_size(n_names, n_fillers)
    ids = tl.token_ids(n_names)
    pi = np.zeros(J)
    pi[np.arange(len(pairs)) * P] = 1.0 / len(pairs)
    state = np.arange(J)
    phase = state % P
    nxt = np.where(phase < P - 1, state + 1, state)
    T = sp.csr_matrix((np.ones(J), (state, nxt)), shape=(J, J))
    # Emission law of each phase, written through one template sentence with x, y as markers.
    E = np.zeros((J, V))
    pair_of = state // P
    x, y = pairs[pair_of, 0], pairs[pair_of, 1]
    fixed = {1: ids["gave"], 3: ids["a"], gap + 5: ids["then"], gap + 7: ids["thanked"]}
    fixed[gap + 9] = ids["."]
    for ph, tok in fixed.items():
        E[phase == ph, tok] = 1.0
    for ph, who in ((0, x), (gap + 8, x), (2, y), (gap + 6, y)):
        rows = np.flatnonzero(phase == ph)
        E[rows, who[rows]] = 1.0
    E[np.ix_(phase == 4, ids["thing0"] + np.arange(len(tl.THINGS)))] = 1.0 / len(tl.THINGS)
    filler_rows = (phase >= 5) & (phase < 5 + gap)
    E[np.ix_(filler_rows, ids["filler0"] + np.arange(n_fillers))] = 1.0 / n_fillers
    return pi, T, E


def binding_futures(sentences: np.ndarray, gap: int) -> dict:
    """What a predictor must tell apart just after 'then': the distinct (second Y, final X)
    futures of the prefixes ending there, whether each prefix fixes its future, and how many
    distinct next tokens (second Y alone) there are."""
    pos = tl.copy_positions(gap)
    prefix = row_keys(sentences[:, : gap + 6])
    future = row_keys(sentences[:, [pos["Y"], pos["X"]]])
    both = row_keys(sentences[:, list(range(gap + 6)) + [pos["Y"], pos["X"]]])
    return {
        "futures": len(np.unique(future)),
        "next_tokens": len(np.unique(sentences[:, pos["Y"]])),
        "future_determined": float(len(np.unique(both)) == len(np.unique(prefix))),
    }


def run_binding_hmm(sentences: np.ndarray, n_names: int, n_fillers: int, gap: int) -> dict:
    """The binding machine on a batch of sentences: the probability it gives each sentence, the
    number of state paths, the live states after 'thanked', and its cost on the two copies."""
    pi, T, E = binding_model(n_names, n_fillers, gap)
    pos = tl.copy_positions(gap)
    out = forward(pi, T, E, sentences)
    log_gen = -math.log(tl.n_sentences(n_names, n_fillers, gap))
    with np.errstate(divide="ignore"):
        cost = -np.log(out["cond"])
    return {
        "n_states": len(pi),
        "logp_error": float(np.max(np.abs(out["log_p"] - log_gen))),
        "paths": count_paths(pi, T, E, sentences),
        "live_after_thanked": out["live"][:, gap + 7],
        "cost_X": cost[:, pos["X"]],
        "cost_Y": cost[:, pos["Y"]],
    }


@experiment(
    grid={
        "N": ints(
            min=2,
            ranges=False,
            work=2,
            memory=2,
            doc="number of names X, Y can be drawn from in ToyLang",
        ),
        "F": ints(doc="number of filler words in ToyLang's vocabulary"),
        "L": ints(
            min=0, doc="gap L: filler tokens between the thing and 'then' in a ToyLang sentence"
        ),
    },
    params={
        "max_enumerated": integer(min=0, doc="largest language enumerated"),
        "n_sampled": integer(min=1, doc="drawn sentences otherwise"),
        "max_states": integer(min=1, doc="largest machine run"),
    },
    outputs=(
        Output("enumerated", "1 if every sentence was run, 0 if drawn ones"),
        Output("n_run", "sentences run through the machine"),
        Output("n_states", "states of the hand-built machine (as built when it is run)"),
        Output("n_pairs", "ordered pairs of names"),
        Output("table_rows", "rows of the table that pays 0 on the final name"),
        Output("rows_per_state", "table rows per state of the machine"),
        Output(
            "logp_error", "largest |ln p(machine) - ln p(generator)| over the sentences run", "nats"
        ),
        Output("paths_min", "fewest state paths of positive probability"),
        Output("paths_max", "most state paths of positive probability"),
        Output("live_after_thanked_min", "fewest live states after 'thanked'"),
        Output("live_after_thanked_max", "most live states after 'thanked'"),
        Output("cost_X_max", "largest cost of the final name", "nats"),
        Output("cost_Y_max", "largest cost of the second Y", "nats"),
        Output(
            "futures_after_then",
            "distinct (second Y, final X) futures of the prefixes ending in 'then'",
        ),
        Output("next_tokens_after_then", "distinct next tokens after 'then'"),
        Output("future_determined", "1 if every such prefix fixes its future"),
        Output("binding_nats", "ln(N(N-1)), the information in the binding", "nats"),
        Output("ln_N", "ln N", "nats"),
        Output("ln_N_minus_1", "ln(N-1)", "nats"),
    ),
    sections=(
        "first-principles A4: the hand-built binding HMM and the bound on states "
        "(lines 290-294, 309)",
        "first-principles A5: the HMM row of the comparison table (line 326)",
    ),
)
def binding_hmm(
    N: int,
    F: int,
    L: int,
    max_enumerated: int,
    n_sampled: int,
    max_states: int,
    rng: np.random.Generator,
) -> dict:
    """The binding machine run on every sentence of the language when it has at most
    ``max_enumerated`` sentences, otherwise on ``n_sampled`` drawn ones (and not run at all when
    it has more than ``max_states`` states: its size is still counted); its size against the
    table's; and the lower bound on states read off the enumeration."""
    enumerated = tl.n_sentences(N, F, L) <= max_enumerated
    if enumerated:
        s = tl.enumerate_sentences(N, F, L)
    else:
        s = tl.sample_sentences(rng, N, F, L, n_sampled)
    n_states = len(ordered_pairs(N)) * tl.length(L)
    run = n_states <= max_states
    nan = float("nan")
    stats = dict.fromkeys(
        (
            "logp_error",
            "paths_min",
            "paths_max",
            "live_after_thanked_min",
            "live_after_thanked_max",
            "cost_X_max",
            "cost_Y_max",
        ),
        nan,
    )
    if run:
        chunks = [run_binding_hmm(s[i : i + 4096], N, F, L) for i in range(0, len(s), 4096)]
        n_states = chunks[0]["n_states"]  # the machine as built, not the formula

        def gather(key):
            return np.concatenate([c[key] for c in chunks])

        stats = {
            "logp_error": max(c["logp_error"] for c in chunks),
            "paths_min": float(gather("paths").min()),
            "paths_max": float(gather("paths").max()),
            "live_after_thanked_min": float(gather("live_after_thanked").min()),
            "live_after_thanked_max": float(gather("live_after_thanked").max()),
            "cost_X_max": float(gather("cost_X").max()),
            "cost_Y_max": float(gather("cost_Y").max()),
        }
    futures = binding_futures(s, L) if enumerated else {}
    table_rows = tl.n_sentences(N, F, L)
    return {
        "enumerated": float(enumerated),
        "n_run": float(len(s)) if run else 0.0,
        "n_states": float(n_states),
        "n_pairs": float(len(ordered_pairs(N))),
        "table_rows": float(table_rows),
        "rows_per_state": table_rows / n_states,
        **stats,
        "futures_after_then": float(futures.get("futures", nan)),
        "next_tokens_after_then": float(futures.get("next_tokens", nan)),
        "future_determined": float(futures.get("future_determined", nan)),
        "binding_nats": math.log(N * (N - 1)),
        "ln_N": math.log(N),
        "ln_N_minus_1": math.log(N - 1),
    }
