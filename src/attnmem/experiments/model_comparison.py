"""Every model of Part A against the ruler: the comparison table of first-principles A5.

``model_comparison`` (lines 318-330): what each model pays on the two copied names with
unlimited data and what it stores, over a sweep of the gap L, with the requirement "reach back
far" (R2) graded from the sweep. ``requirements`` (lines 314-317): the requirement "order
matters" (R1) graded by reordering a sentence, and the count of orderings of its bag; and
whether any model can copy a name that never occurred in its training text (R3).
"""

from __future__ import annotations

import math

import numpy as np

from ..spec import Output, coord, experiment, integer, ints
from . import hmm
from . import ngram as ng
from . import pair_mixture as pm
from . import toylang as tl

MODELS = (
    "bag",
    "pair_mixture",
    "window_1",
    "window_2",
    "window_L+8",
    "hmm_by_hand",
    "neural_window",
)
GRADES = ("no", "part", "yes")


def window_copy_nats(n_names: int, gap: int, r: int) -> float:
    """Both copies together for a window of r tokens (the staircase of A3)."""
    return ng.staircase_x(n_names, gap, r) + ng.staircase_y(n_names, gap, r)


def hmm_copy_nats(n_names: int, n_fillers: int, gap: int, sentences: np.ndarray) -> float:
    """Mean cost of the two copies for the hand-built machine on the given sentences."""
    out = hmm.run_binding_hmm(sentences, n_names, n_fillers, gap)
    return float(np.mean(out["cost_X"] + out["cost_Y"]))


def copy_and_stores(N, F, L, d, d_h, sentences) -> tuple[list, list]:
    """Copy nats and stores of every model at one gap (NaN where not computed)."""
    vocab = tl.vocab_size(N, F)
    copy = [
        2 * ng.bag_copy_cost(N, L),
        2 * pm.copy_cost_closed(L),
        window_copy_nats(N, L, 1),
        window_copy_nats(N, L, 2),
        window_copy_nats(N, L, L + 8),
        hmm_copy_nats(N, F, L, sentences),
        float("nan"),  # the note does not compute it
    ]
    stores = [
        vocab,
        pm.n_bags(N),
        vocab,
        vocab**2,
        ng.contexts_to_zero(N, F, L),
        len(hmm.ordered_pairs(N)) * tl.length(L),
        ng.neural_window_params(vocab, d, d_h, L + 8),
    ]
    return copy, [float(s) for s in stores]


def grade_reach(copy: np.ndarray, stores: np.ndarray, n_fillers: int) -> np.ndarray:
    """R2 graded from a sweep over L (rows) for each model (columns), one-hot over GRADES:
    'no' if the copies cost more than 0 at some L, 'part' if they cost 0 at every L but the
    store grows by a factor of F per filler (F^L), 'yes' if they cost 0 with a store that grows
    slower. All NaN where the copy cost is not computed."""
    out = np.full((copy.shape[1], len(GRADES)), np.nan)
    growth = stores[-1] / stores[-2]
    for m in range(copy.shape[1]):
        if np.any(np.isnan(copy[:, m])):
            continue
        reaches = bool(np.all(np.abs(copy[:, m]) < 1e-12))
        exponential = growth[m] >= n_fillers - 1e-9
        grade = "no" if not reaches else ("part" if exponential else "yes")
        out[m] = [g == grade for g in GRADES]
    return out


@experiment(
    grid={
        "N": ints(
            min=2,
            ranges=False,
            work=2,
            memory=2.5,
            doc="number of names X, Y can be drawn from in ToyLang",
        ),
        "F": ints(doc="number of filler words in ToyLang's vocabulary"),
    },
    params={
        "L_max": integer(min=1, doc="longest gap of the sweep", work=1.5, memory=True),
        "d": integer(min=1, doc="embedding width of the neural window"),
        "d_h": integer(min=1, doc="hidden units of the neural window"),
        "n_sampled": integer(min=1, doc="drawn sentences per gap"),
    },
    outputs=(
        Output(
            "copy_nats",
            "cost of the two copied names together, unlimited data (NaN: not computed)",
            "nats",
            ("L", "model"),
        ),
        Output("stores", "rows, bags, states or weights the model keeps", dims=("L", "model")),
        Output("mixture_minus_window1", "mixture's copy cost minus window 1's", "nats", ("L",)),
        Output("tie_L", "first gap at which the mixture and window 1 tie", "tokens"),
        Output(
            "mixture_better_then_worse",
            "1 if the mixture is better than window 1 below the tie and worse above it",
        ),
        Output("copy_growth", "copy cost at L_max minus at L = 0", "nats", ("model",)),
        Output("store_growth", "stores at L_max over stores at L_max - 1", dims=("model",)),
        Output(
            "reach_grade",
            "R2 graded from the sweep (one-hot over no, part, yes)",
            dims=("model", "grade"),
        ),
    ),
    coords={
        "L": coord(
            "gap L: filler tokens between the thing and 'then' in a ToyLang sentence",
            lambda L_max, **_: range(L_max + 1),
        ),
        "model": coord("sequence model compared", MODELS),
        "grade": coord("grade of how well a model meets a requirement", GRADES),
    },
    sections=(
        "first-principles A5: the comparison table, the ranks and the figure (lines 315, 318-331)",
    ),
)
def model_comparison(
    N: int, F: int, L_max: int, d: int, d_h: int, n_sampled: int, rng: np.random.Generator
) -> dict:
    """Copy nats and stores of every model for L = 0..L_max, the mixture against the window of
    one token, and R2 graded from the sweep. The machine's cost is read off ``n_sampled``
    drawn sentences per gap."""
    copy, stores = [], []
    for gap in range(L_max + 1):
        sentences = tl.sample_sentences(rng, N, F, gap, n_sampled)
        c, s = copy_and_stores(N, F, gap, d, d_h, sentences)
        copy.append(c)
        stores.append(s)
    copy, stores = np.array(copy), np.array(stores)
    diff = copy[:, MODELS.index("pair_mixture")] - copy[:, MODELS.index("window_1")]
    ties = np.flatnonzero(np.abs(diff) < 1e-12)
    tie = float(ties[0]) if len(ties) else float("nan")
    ordered = (
        float(len(ties) == 1 and np.all(diff[: ties[0]] < 0) and np.all(diff[ties[0] + 1 :] > 0))
        if len(ties)
        else 0.0
    )
    return {
        "copy_nats": copy,
        "stores": stores,
        "mixture_minus_window1": diff,
        "tie_L": tie,
        "mixture_better_then_worse": ordered,
        "copy_growth": copy[-1] - copy[0],
        "store_growth": stores[-1] / stores[-2],
        "reach_grade": grade_reach(copy, stores, F),
    }


# ----------------------------------------------------------------------------- R1 and R3


def multiset_orderings(text: np.ndarray) -> int:
    """Distinct orderings of a text's tokens: n! over the product of the repeats' factorials."""
    counts = np.unique(text, return_counts=True)[1]
    return math.factorial(len(text)) // math.prod(math.factorial(int(c)) for c in counts)


def role_swap(sentence: np.ndarray, gap: int) -> np.ndarray:
    """The sentence with the two copies exchanged (X after 'then', Y at the end): the same
    tokens, no longer a sentence of the language."""
    pos = tl.copy_positions(gap)
    out = sentence.copy()
    out[[pos["Y"], pos["X"]]] = out[[pos["X"], pos["Y"]]]
    return out


def fitted_models(corpus: np.ndarray, N: int, F: int, L: int, names: np.ndarray) -> dict:
    """Every computable model of the table fitted on ``corpus`` (the HMM is built, with its
    start spread over the pairs of the allowed ``names``), as functions from texts to the
    probability of each token given the tokens before it, shape (S, n)."""
    vocab = tl.vocab_size(N, F)
    freq = np.bincount(corpus.ravel(), minlength=vocab) / corpus.size
    mixture = pm.fit_pair_mixture(corpus, N, vocab)
    windows = {r: ng.fit_window(corpus, r) for r in (1, 2, L + 8)}
    pi, T, E = hmm.binding_model(N, F, L)
    pairs = hmm.ordered_pairs(N)
    allowed = np.isin(pairs, names).all(axis=1)
    pi = pi * np.repeat(allowed, tl.length(L))
    pi = pi / pi.sum()

    def mixture_cond(texts):
        n = texts.shape[1]
        rows = np.arange(len(texts))
        return np.stack(
            [pm.predictive(mixture, texts, t)[rows, texts[:, t]] for t in range(n)], axis=1
        )

    return {
        "bag": lambda texts: freq[texts],
        "pair_mixture": mixture_cond,
        "window_1": lambda texts: ng.window_probs(windows[1], texts),
        "window_2": lambda texts: ng.window_probs(windows[2], texts),
        "window_L+8": lambda texts: ng.window_probs(windows[L + 8], texts),
        "hmm_by_hand": lambda texts: hmm.forward(pi, T, E, texts)["cond"],
    }


def _log_prob(cond: np.ndarray) -> np.ndarray:
    """ln p(text) from per-token probabilities; NaN if some token's law is undefined."""
    with np.errstate(divide="ignore"):
        return np.log(cond).sum(axis=1)


@experiment(
    grid={
        "N": ints(min=2, ranges=False, doc="number of names X, Y can be drawn from in ToyLang"),
        "F": ints(doc="number of filler words in ToyLang's vocabulary"),
        "L": ints(
            min=0, doc="gap L: filler tokens between the thing and 'then' in a ToyLang sentence"
        ),
    },
    params={
        "n_shuffles": integer(min=1, doc="random reorderings"),
    },
    constraints=(tl.ENUMERATION_RULE,),
    outputs=(
        Output(
            "order_grade",
            "R1 graded by reordering a sentence (one-hot over no, part, yes)",
            dims=("model", "grade"),
        ),
        Output(
            "shuffle_logp_spread",
            "largest change of ln p over the random reorderings (inf: became impossible)",
            "nats",
            ("model",),
        ),
        Output("orderings", "distinct orderings of the test sentence's tokens"),
        Output(
            "held_out_copy_prob",
            "probability of a final name never seen in training (0 if undefined)",
            dims=("model",),
        ),
    ),
    coords={
        "model": coord("sequence model compared", MODELS),
        "grade": coord("grade of how well a model meets a requirement", GRADES),
    },
    sections=("first-principles A5: requirements R1 and R3 (lines 314, 316)",),
)
def requirements(N: int, F: int, L: int, n_shuffles: int, rng: np.random.Generator) -> dict:
    """R1: each model fitted on the enumerated language scores a sentence, ``n_shuffles``
    random reorderings of it and the reordering that exchanges the two copies; 'no' if none of
    them changes its probability, 'part' if the shuffles do but the exchange does not (a
    non-sentence priced like the sentence), 'yes' if both do. R3: the probability each model,
    fitted without the sentences that use the last name, gives that name as a final copy."""
    corpus = tl.enumerate_sentences(N, F, L)
    # A test sentence with the first names, first thing and distinct fillers where possible.
    sentence = tl.assemble([0], [1], [0], [np.arange(L) % F], N)[0]
    shuffles = np.array([rng.permutation(sentence) for _ in range(n_shuffles)])
    texts = np.vstack([sentence, shuffles, role_swap(sentence, L)])
    models = fitted_models(corpus, N, F, L, np.arange(N))
    r1 = np.full((len(MODELS), len(GRADES)), np.nan)
    spread = np.full(len(MODELS), np.nan)
    for m, name in enumerate(MODELS):
        if name not in models:
            continue
        logp = _log_prob(models[name](texts))
        same = np.isfinite(logp) & (np.abs(logp - logp[0]) < 1e-9)
        by_shuffle, by_swap = not np.all(same[1:-1]), not same[-1]
        grade = (
            "yes" if by_shuffle and by_swap else ("no" if not (by_shuffle or by_swap) else "part")
        )
        r1[m] = [g == grade for g in GRADES]
        spread[m] = float(np.max(np.abs(logp[1:-1] - logp[0])))
    # R3: train without the last name, test a sentence whose giver is that name.
    held = N - 1
    keep = (corpus[:, 0] != held) & (corpus[:, 2] != held)
    unseen = tl.assemble([held], [0], [0], [np.zeros(L, dtype=int)], N)
    train = fitted_models(corpus[keep], N, F, L, np.arange(N - 1))
    final = tl.copy_positions(L)["X"]
    held_out = np.full(len(MODELS), np.nan)
    for m, name in enumerate(MODELS):
        if name in train:
            p = train[name](unseen)[0, final]
            held_out[m] = float(p) if np.isfinite(p) else 0.0
    return {
        "order_grade": r1,
        "shuffle_logp_spread": spread,
        "orderings": float(multiset_orderings(sentence)),
        "held_out_copy_prob": held_out,
    }
