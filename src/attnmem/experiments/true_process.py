"""What the true ToyLang process pays, and the probability identities it is measured with.

first-principles, the opening and A1 (lines 4-19, 53-118): the ruler's cost per position and per
sentence as closed forms over N, F and L; the same numbers read off an exact enumeration of a
small language (the chain rule, a uniform next-token law at every position, the window a
predictor of the final name needs); the sentences the note prints; and the identities A1 uses
(chain rule on any distribution, cross-entropy never below entropy, ln u <= u - 1).
"""

from __future__ import annotations

import math

import numpy as np

from ..spec import Output, coord, experiment, integer, ints, seeds
from . import toylang as tl
from .softmax import entropy_nats

TERMS = ("ln N", "ln(N-1)", "ln 3", "L ln F")


# ----------------------------------------------------------------------------- closed forms


def final_window_cost(n_names: int, gap: int, window: int) -> float:
    """What a predictor that sees only the last ``window`` tokens pays on the final name (the
    copy of X at position L+8), in nats: the word 'thanked' alone leaves all N names open, a
    window that reaches the second Y (window >= 2) rules that one out, and only a window that
    reaches position 0 (window >= L+8) pins the name down."""
    if window >= gap + 8:
        return 0.0
    if window >= 2:
        return math.log(n_names - 1)
    return math.log(n_names)


def context_count(n_names: int, n_fillers: int, gap: int) -> int:
    """Distinct full prefixes in front of the final name: one per sentence, since every random
    choice is made before it (an exact integer)."""
    return n_names * (n_names - 1) * len(tl.THINGS) * n_fillers**gap


def role_counts(n_names: int, n_fillers: int, gap: int) -> dict:
    """How the positions of a sentence split into random choices, copies and fixed words, read
    off the per-position costs (a name position that costs nothing is a copy)."""
    costs = tl.true_position_costs(n_names, n_fillers, gap)
    names = np.array([0, 2, gap + 6, gap + 8])
    is_name = np.zeros(len(costs), dtype=bool)
    is_name[names] = True
    fillers = np.zeros(len(costs), dtype=bool)
    fillers[5 : 5 + gap] = True
    random = costs > 0
    return {
        "n_random_positions": float(random.sum()),
        "n_copies": float((is_name & ~random).sum()),
        "n_fixed": float((~is_name & ~random).sum()),
        # single-token choices before the gap, plus the filler block as one choice
        "n_choice_groups": float((random & ~fillers).sum() + (gap > 0 and n_fillers > 1)),
    }


def measured_copies(n_names: int, n_fillers: int, gap: int) -> tuple[np.ndarray, np.ndarray]:
    """Where the repeated names of an assembled sentence sit and how far back each lies from
    its first occurrence, in order of position (the copied Y, then the copied X): counted token
    by token on a sentence built by the generator, not read from ``copy_positions``."""
    fillers = (np.arange(gap) % n_fillers)[None, :]
    s = tl.assemble([0], [1], [0], fillers, n_names)[0]
    found = [p for p in range(len(s)) if s[p] < n_names and np.any(s[:p] == s[p])]
    reaches = [p - int(np.flatnonzero(s[:p] == s[p])[0]) for p in found]
    return np.array(found, dtype=float), np.array(reaches, dtype=float)


def measured_copy_reaches(n_names: int, n_fillers: int, gap: int) -> np.ndarray:
    """How far back each repeated name lies from its first occurrence (see measured_copies)."""
    return measured_copies(n_names, n_fillers, gap)[1]


def copy_costs_one_filler(n_names: int, gap: int) -> np.ndarray:
    """Exact conditional entropies of the copied Y and the copied X given their whole prefix,
    from an enumeration of the language with a single filler word (N(N-1)3 sentences, small at
    any gap): whether the prefix fixes each copy does not depend on how many fillers there are,
    so this reaches gaps too long to enumerate with F words."""
    s = tl.enumerate_sentences(n_names, 1, gap)
    found, _ = measured_copies(n_names, 1, gap)
    return np.array([tl.conditional_entropy(s, int(p), None) for p in found])


@experiment(
    grid={
        "N": ints(min=2, ranges=False, doc="number of names X, Y can be drawn from in ToyLang"),
        "L": ints(
            min=0, doc="gap L: filler tokens between the thing and 'then' in a ToyLang sentence"
        ),
    },
    params={
        "F": integer(min=1, doc="filler words"),
    },
    outputs=(
        Output(
            "position_cost",
            "true-process cost of the token at each position",
            "nats",
            ("position",),
        ),
        Output("choice_terms", "the four terms of the sentence cost", "nats", ("term",)),
        Output("sentence_nats", "true-process cost of a sentence (its entropy)", "nats"),
        Output("sentence_count", "number of sentences N(N-1)3F^L", "sentences"),
        Output("log_sentence_count", "natural log of the number of sentences", "nats"),
        Output("entropy_count_gap", "|summed position costs - ln(number of sentences)|", "nats"),
        Output("per_token_nats", "sentence cost divided by its 10+L tokens", "nats"),
        Output("perplexity", "exp of the per-token cost"),
        Output("bits_per_nat", "bits in one nat, 1/ln 2", "bits"),
        Output("sentence_bits", "true-process cost of a sentence in bits", "bits"),
        Output("filler_step_nats", "growth of the sentence cost for one more filler", "nats"),
        Output("sentence_length", "tokens in a sentence", "tokens"),
        Output("y_copy_position", "position of the copied Y", "position"),
        Output("y_copy_distance", "tokens between the copied Y and its source", "tokens"),
        Output("x_copy_position", "position of the copied X", "position"),
        Output("x_copy_distance", "tokens between the copied X and its source", "tokens"),
        Output(
            "y_copy_reach",
            "tokens from the repeated Y back to its first occurrence, counted on a sentence",
            "tokens",
        ),
        Output(
            "x_copy_reach",
            "tokens from the repeated X back to its first occurrence, counted on a sentence",
            "tokens",
        ),
        Output("y_copy_found_at", "position of the repeated Y, found on a sentence", "position"),
        Output("x_copy_found_at", "position of the repeated X, found on a sentence", "position"),
        Output(
            "y_copy_cost_enumerated",
            "exact cost of the copied Y, enumerated with one filler word",
            "nats",
        ),
        Output(
            "x_copy_cost_enumerated",
            "exact cost of the copied X, enumerated with one filler word",
            "nats",
        ),
        Output("y_copy_cost", "true-process cost of the copied Y", "nats"),
        Output("x_copy_cost", "true-process cost of the copied X", "nats"),
        Output("final_cost_previous_word", "cost of the final name seeing one token back", "nats"),
        Output("final_cost_previous_two", "cost of the final name seeing two tokens back", "nats"),
        Output("final_cost_full_prefix", "cost of the final name seeing the whole prefix", "nats"),
        Output("min_zero_window", "smallest window that makes the final name free", "tokens"),
        Output("n_contexts", "distinct full prefixes in front of the final name", "contexts"),
        Output("n_random_positions", "positions with a random token", "positions"),
        Output("n_copies", "name positions the true process gets for free", "positions"),
        Output("n_fixed", "positions fixed by the template", "positions"),
        Output("n_choice_groups", "random choices, counting the filler block as one"),
    ),
    coords={
        "position": coord("position in the sentence (0 first)"),
        "term": coord("term of the sentence cost", TERMS),
    },
    sections=(
        "first-principles: The ruler (lines 16-18)",
        "first-principles: A1, the ruler and its cost per position (lines 96-117)",
    ),
)
def ruler_costs(N: int, L: int, F: int) -> dict:
    """The true process on a sentence with N names, F fillers and a gap of L: its cost at every
    position, per sentence, per token, in bits and as a perplexity, the copies' positions and
    costs, and what windowed predictors pay on the final name."""
    costs = tl.true_position_costs(N, F, L)
    total = float(costs.sum())
    n = tl.length(L)
    count = context_count(N, F, L)
    pos = tl.copy_positions(L)
    windows = range(0, L + 9)
    zero = [w for w in windows if final_window_cost(N, L, w) == 0.0]
    per_token = total / n
    found, reach = measured_copies(N, F, L)
    copy_enum = copy_costs_one_filler(N, L)
    return {
        "position_cost": costs,
        "choice_terms": np.array([math.log(N), math.log(N - 1), math.log(3), L * math.log(F)]),
        "sentence_nats": total,
        "sentence_count": float(count),
        "log_sentence_count": math.log(count),
        "entropy_count_gap": abs(total - math.log(count)),
        "per_token_nats": per_token,
        "perplexity": math.exp(per_token),
        "bits_per_nat": 1.0 / math.log(2.0),
        "sentence_bits": total / math.log(2.0),
        "filler_step_nats": tl.sentence_entropy(N, F, L + 1) - total,
        "sentence_length": float(n),
        "y_copy_position": float(pos["Y"]),
        "y_copy_distance": float(pos["Y"] - pos["Y_source"]),
        "x_copy_position": float(pos["X"]),
        "x_copy_distance": float(pos["X"] - pos["X_source"]),
        "y_copy_reach": float(reach[0]),
        "x_copy_reach": float(reach[1]),
        "y_copy_found_at": float(found[0]),
        "x_copy_found_at": float(found[1]),
        "y_copy_cost_enumerated": float(copy_enum[0]),
        "x_copy_cost_enumerated": float(copy_enum[1]),
        "y_copy_cost": float(costs[pos["Y"]]),
        "x_copy_cost": float(costs[pos["X"]]),
        "final_cost_previous_word": final_window_cost(N, L, 1),
        "final_cost_previous_two": final_window_cost(N, L, 2),
        "final_cost_full_prefix": final_window_cost(N, L, L + 8),
        "min_zero_window": float(min(zero)),
        "n_contexts": float(count),
        **role_counts(N, F, L),
    }


# ----------------------------------------------------------------------------- enumeration


def prefix_codes(sentences: np.ndarray, base: int) -> np.ndarray:
    """Column t holds the first t tokens of each row as one integer (exact while base**width
    fits in 63 bits); column 0 is the empty prefix."""
    s = np.asarray(sentences, dtype=np.int64)
    if float(base) ** s.shape[1] >= 2.0**63:
        raise ValueError("sentences too long to encode prefixes exactly")
    codes = np.zeros((len(s), s.shape[1] + 1), dtype=np.int64)
    for t in range(s.shape[1]):
        codes[:, t + 1] = codes[:, t] * base + s[:, t]
    return codes


def _group(codes: np.ndarray):
    """Index of each code's group of equal codes, and the size of every group."""
    _, inverse, counts = np.unique(codes, return_inverse=True, return_counts=True)
    return inverse.ravel(), counts


def prefix_probabilities(sentences: np.ndarray, base: int) -> tuple[np.ndarray, np.ndarray]:
    """For equally likely sentences: p(w_t | w_<t) for every sentence and position, counted
    from the enumeration, and per position whether that law is uniform over its support for
    every prefix (1) or not (0)."""
    s = np.asarray(sentences)
    codes = prefix_codes(s, base)
    probs = np.empty(s.shape)
    uniform = np.empty(s.shape[1])
    for t in range(s.shape[1]):
        pre, pre_counts = _group(codes[:, t])
        joint, joint_counts = _group(codes[:, t + 1])
        probs[:, t] = joint_counts[joint] / pre_counts[pre]
        # the prefix group of each joint group, then how many next tokens each prefix allows
        owner = np.empty(len(joint_counts), dtype=np.int64)
        owner[joint] = pre
        support = np.bincount(owner, minlength=len(pre_counts))
        uniform[t] = float(np.all(joint_counts * support[owner] == pre_counts[owner]))
    return probs, uniform


@experiment(
    grid={
        "N": ints(min=2, ranges=False, doc="number of names X, Y can be drawn from in ToyLang"),
        "L": ints(
            min=0, doc="gap L: filler tokens between the thing and 'then' in a ToyLang sentence"
        ),
        "F": ints(doc="number of filler words in ToyLang's vocabulary"),
    },
    outputs=(
        Output("n_sentences", "distinct sentences in the enumeration", "sentences"),
        Output("n_rows", "rows the enumeration produced", "sentences"),
        Output("n_closed_form", "N(N-1)3F^L", "sentences"),
        Output("count_gap", "|enumerated count - N(N-1)3F^L|", "sentences"),
        Output("all_distinct", "1 if no sentence is enumerated twice"),
        Output("log_count", "natural log of the number of sentences", "nats"),
        Output("sentence_length", "tokens per enumerated sentence", "tokens"),
        Output(
            "position_cost",
            "exact conditional entropy of each position given its prefix",
            "nats",
            ("position",),
        ),
        Output("position_cost_gap", "largest gap between enumerated and closed-form costs", "nats"),
        Output("entropy_sum", "sum of the per-position conditional entropies", "nats"),
        Output(
            "entropy_formula_gap", "|enumerated entropy - (ln N + ln(N-1) + ln 3 + L ln F)|", "nats"
        ),
        Output(
            "chain_rule_gap",
            "largest gap, over sentences, between the summed next-token costs and ln count",
            "nats",
        ),
        Output("uniform_conditionals", "1 if every next-token law is uniform over its support"),
        Output(
            "final_window_cost",
            "exact cost of the final name seeing the last w tokens",
            "nats",
            ("window",),
        ),
        Output("min_zero_window", "smallest window that makes the final name free", "tokens"),
        Output("n_contexts", "distinct prefixes in front of the final name", "contexts"),
        Output("y_copy_cost", "exact cost of the copied Y", "nats"),
        Output("x_copy_cost", "exact cost of the copied X", "nats"),
        Output(
            "n_free_names",
            "name positions with zero enumerated conditional entropy (copies)",
            "positions",
        ),
        Output(
            "n_random_positions",
            "positions with positive enumerated conditional entropy",
            "positions",
        ),
    ),
    coords={
        "window": coord("tokens before the final name a window sees"),
        "position": coord("position in the sentence (0 first)"),
    },
    sections=(
        "first-principles: The ruler (lines 16-18)",
        "first-principles: A1, the chain rule and the ruler (lines 58-117)",
    ),
)
def ruler_enumeration(N: int, L: int, F: int) -> dict:
    """The same ruler read off every sentence of a small language: the count, each position's
    exact conditional entropy, the chain rule sentence by sentence, and what a predictor of the
    final name pays with each window."""
    s = tl.enumerate_sentences(N, F, L)
    base = tl.vocab_size(N, F)
    codes = prefix_codes(s, base)
    count = len(np.unique(codes[:, -1]))
    n = s.shape[1]
    closed = tl.true_position_costs(N, F, L)
    enum_costs = np.array([tl.conditional_entropy(s, t, None) for t in range(n)])
    probs, uniform = prefix_probabilities(s, base)
    per_sentence = -np.log(probs).sum(axis=1)
    final = tl.copy_positions(L)["X"]
    windows = np.array([tl.conditional_entropy(s, final, w) for w in range(final + 1)])
    zero = np.flatnonzero(np.abs(windows) < 1e-12)
    pos = tl.copy_positions(L)
    # name positions (a name in every sentence) whose token the prefix fixes: counted from the
    # enumerated conditional entropies, not from the template
    is_name = np.all(s < N, axis=0)
    free = np.abs(enum_costs) < 1e-12
    return {
        "n_sentences": float(count),
        "n_rows": float(len(s)),
        "n_closed_form": float(tl.n_sentences(N, F, L)),
        "count_gap": float(abs(count - tl.n_sentences(N, F, L))),
        "all_distinct": float(count == len(s)),
        "log_count": math.log(count),
        "sentence_length": float(n),
        "position_cost": enum_costs,
        "position_cost_gap": float(np.max(np.abs(enum_costs - closed))),
        "entropy_sum": float(enum_costs.sum()),
        "entropy_formula_gap": abs(float(enum_costs.sum()) - tl.sentence_entropy(N, F, L)),
        "chain_rule_gap": float(np.max(np.abs(per_sentence - math.log(count)))),
        "uniform_conditionals": float(np.all(uniform)),
        "final_window_cost": windows,
        "min_zero_window": float(zero.min()),
        "n_contexts": float(len(np.unique(codes[:, final]))),
        "y_copy_cost": float(enum_costs[pos["Y"]]),
        "x_copy_cost": float(enum_costs[pos["X"]]),
        "n_free_names": float(np.sum(is_name & free)),
        "n_random_positions": float(np.sum(~free)),
    }


# ----------------------------------------------------------------------------- printed text

# The sentences first-principles prints, typed as data: lines 11-14 (four draws of the generator
# at N=8, L=3), the prompt of line 3 completed with its answer, the example of line 55, and the
# plain sentence (L = 0) whose ten tokens C2 shuffles (line 554).
PRINTED = {
    "line11": "Flo gave Ann a pen and yes well then Ann thanked Flo .",
    "line12": "Di gave Ben a book now so and then Ben thanked Di .",
    "line13": "Flo gave Di a cup ok so yes then Di thanked Flo .",
    "line14": "Cy gave Flo a pen yes now and then Flo thanked Cy .",
    "line3": "Flo gave Ann a pen and yes well then Ann thanked Flo .",
    "line55": "Ann gave Ben a book and so well then Ben thanked Ann .",
    "line554": "Ann gave Ben a pen then Ben thanked Ann .",
}


def printed_sentences(N: int, F: int) -> dict:
    """Whether each printed sentence belongs to ToyLang, its length, and how far back the last
    token's first occurrence lies (the distance the final copy has to reach)."""
    valid, lengths, reach = [], [], []
    for text in PRINTED.values():
        ids = tl.encode(text, N, F)
        valid.append(float(tl.is_sentence(ids, N, F)))
        lengths.append(float(len(ids)))
        last = len(ids) - 2  # the final name, before the full stop
        reach.append(float(last - np.flatnonzero(ids == ids[last])[0]))
    return {
        "is_sentence": np.array(valid),
        "length": np.array(lengths),
        "final_reach": np.array(reach),
    }


# ----------------------------------------------------------------------------- identities


# first-principles line 95: the Check of the cross-entropy bound, P = (1/2, 1/2), p = (1/4, 3/4).
CHECK_P = np.array([0.5, 0.5])
CHECK_Q = np.array([0.25, 0.75])


def cross_entropy(p_true: np.ndarray, p_model: np.ndarray, axis: int = -1) -> np.ndarray:
    """H(P, p) = -sum P ln p in nats (terms with P = 0 contribute nothing)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(p_true > 0, -p_true * np.log(p_model), 0.0)
    return terms.sum(axis=axis)


def chain_rule_gap(joint: np.ndarray) -> float:
    """Largest |ln p(w) - sum_t ln p(w_t | w_<t)| over all sequences of a joint law given as an
    array with one axis per position; the conditionals come from the marginals of prefixes."""
    n = joint.ndim
    log_sum = np.zeros(joint.shape)
    for t in range(n):
        upto = joint.sum(axis=tuple(range(t + 1, n)), keepdims=True)
        before = upto.sum(axis=t, keepdims=True)
        log_sum = log_sum + np.log(upto / before)
    return float(np.max(np.abs(np.log(joint) - log_sum)))


@experiment(
    grid={"K": ints(min=2, ranges=False, doc="vocabulary size K"), "seed": seeds()},
    params={
        "pairs": integer(min=1, memory=True),
        "max_length": integer(min=1, max=6),
    },
    outputs=(
        Output("min_gap", "smallest H(P,p) - H(P) over random pairs", "nats"),
        Output("self_gap", "largest |H(P,P) - H(P)|", "nats"),
        Output(
            "min_bound_slack", "smallest H(P,p) - H(P) - (1 - sum p) over sub-normalised p", "nats"
        ),
        Output("log_bound_max", "largest ln u - (u - 1) over a grid of u"),
        Output("log_bound_at_one", "ln u - (u - 1) at u = 1"),
        Output(
            "chain_gap",
            "largest |ln p(w) - sum ln p(w_t|w_<t)| for random laws",
            "nats",
            ("length",),
        ),
        Output("check_cross_entropy", "H(P,p) of the printed Check", "nats"),
        Output("check_entropy", "H(P) of the printed Check", "nats"),
        Output("check_gap", "H(P,p) - H(P) of the printed Check", "nats"),
    ),
    coords={
        "length": coord(
            "sequence length in tokens", lambda pairs, max_length: range(1, max_length + 1)
        )
    },
    sections=("first-principles: A1, chain rule and cross-entropy (lines 58-95)",),
)
def probability_identities(
    K: int, seed: int, rng: np.random.Generator, pairs: int, max_length: int
) -> dict:
    """Random distributions over K outcomes: the cross-entropy gap is never negative and is zero
    at p = P, the sub-normalised bound of the derivation holds, ln u <= u - 1, and the chain rule
    reproduces the joint law of sequences of each length; plus the printed Check."""
    P = rng.dirichlet(np.ones(K), size=pairs)
    p = rng.dirichlet(np.ones(K), size=pairs)
    gap = cross_entropy(P, p) - cross_entropy(P, P)
    mass = rng.uniform(0.2, 1.0, size=(pairs, 1))
    sub = p * mass  # a model that sums to less than one
    slack = cross_entropy(P, sub) - cross_entropy(P, P) - (1.0 - sub.sum(axis=1))
    u = np.concatenate([np.geomspace(1e-6, 1e6, 2001), [1.0]])
    chain = [
        chain_rule_gap(rng.dirichlet(np.ones(K**n)).reshape((K,) * n))
        for n in range(1, max_length + 1)
    ]
    h_pq = float(cross_entropy(CHECK_P, CHECK_Q))
    h_p = float(entropy_nats(CHECK_P))
    return {
        "min_gap": float(gap.min()),
        "self_gap": float(np.max(np.abs(cross_entropy(P, P) - entropy_nats(P, axis=1)))),
        "min_bound_slack": float(slack.min()),
        "log_bound_max": float(np.max(np.log(u) - (u - 1.0))),
        "log_bound_at_one": float(np.log(1.0) - 0.0),
        "chain_gap": np.array(chain),
        "check_cross_entropy": h_pq,
        "check_entropy": h_p,
        "check_gap": h_pq - h_p,
    }
