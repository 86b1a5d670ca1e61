"""The bag of words (static unigram) on ToyLang, and what a bag is good for (naive Bayes).

first-principles A2 (lines 119-231): the unigram fitted to ToyLang, both by counting an enumerated
language and in closed form; what it charges a copied name and a whole sentence; its blindness to
order (shuffles, the orderings of one sentence's tokens); the multinomial maximum-likelihood
estimate; naive Bayes on the note's six documents and on ToyLang's two gift directions; and what
the fitted bag generates when run forwards.
"""

from __future__ import annotations

import math

import numpy as np

from ..spec import Output, coord, experiment, integer, ints, reals, require, seeds
from . import toylang as tl
from .softmax import entropy_nats
from .true_process import PRINTED, printed_sentences

KINDS = ("names", "thing", "fillers", "template words")
KEPT_DRAWS = 400  # single draws kept per seed, to place one printed draw among them


# ----------------------------------------------------------------------------- the fitted bag


def kind_of_tokens(n_names: int, n_fillers: int) -> np.ndarray:
    """Kind index (position in KINDS) of every token id."""
    ids = tl.token_ids(n_names)
    kind = np.empty(tl.vocab_size(n_names, n_fillers), dtype=np.int64)
    kind[:n_names] = 0
    kind[n_names : ids["thing0"]] = 3
    kind[ids["thing0"] : ids["filler0"]] = 1
    kind[ids["filler0"] :] = 2
    return kind


def closed_form_bag(n_names: int, n_fillers: int, gap: int) -> np.ndarray:
    """The long-run token frequencies of ToyLang (A2 Step 1): 4/(nN) per name, 1/(3n) per
    thing, L/(Fn) per filler and 1/n per template word, n = 10 + L."""
    n = tl.length(gap)
    per_kind = np.array([4.0 / (n * n_names), 1.0 / (3 * n), gap / (n_fillers * n), 1.0 / n])
    return per_kind[kind_of_tokens(n_names, n_fillers)]


def fit_unigram(tokens: np.ndarray, vocab: int) -> np.ndarray:
    """Maximum-likelihood unigram: the relative frequency of every token id."""
    counts = np.bincount(np.asarray(tokens).ravel(), minlength=vocab).astype(float)
    return counts / counts.sum()


def bag_cost(sentences: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """What a bag with frequencies ``theta`` charges each row, in nats (inf if a token has
    frequency zero)."""
    with np.errstate(divide="ignore"):
        return -np.log(theta)[np.asarray(sentences)].sum(axis=-1)


def generic_sentence(n_names: int, n_fillers: int, gap: int) -> np.ndarray:
    """One sentence with distinct fillers where possible: Ann gave Ben a book f_1..f_L ... (the
    example of A1, line 55, when L = 3)."""
    fillers = np.arange(gap) % n_fillers
    return tl.assemble([0], [1], [0], fillers[None, :], n_names)[0]


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
        Output("theta_name", "fitted frequency of one name, 4/(nN)"),
        Output("theta_thing", "fitted frequency of one thing, 1/(3n)"),
        Output("theta_filler", "fitted frequency of one filler, L/(Fn)"),
        Output("theta_template", "fitted frequency of one template word, 1/n"),
        Output("theta_sum", "sum of the fitted frequencies over the vocabulary"),
        Output("copy_nats", "bag cost of one copied name, ln((10+L)N/4)", "nats"),
        Output("both_copies_nats", "bag cost of the two copied names", "nats"),
        Output("copy_step_nats", "growth of the copy cost for one more filler", "nats"),
        Output("sentence_terms", "bag cost of a sentence by kind of token", "nats", ("kind",)),
        Output("sentence_nats", "bag cost of a whole sentence", "nats"),
        Output("per_token_nats", "bag cost of a sentence per token", "nats"),
        Output("entropy_per_token", "entropy of the fitted frequencies", "nats"),
        Output("n_times_entropy", "sentence length times that entropy", "nats"),
        Output("true_sentence_nats", "true-process cost of a sentence", "nats"),
        Output("gap_to_true_nats", "bag cost minus true cost of a sentence", "nats"),
        Output("vocab_size", "token types of ToyLang, N + 8 + F", "types"),
        Output("uniform_nats", "cost of a uniform guess over the vocabulary, ln V", "nats"),
        Output("copy_minus_uniform", "bag copy cost minus the uniform guess", "nats"),
        Output("template_nats", "bag cost of the template word 'gave'", "nats"),
        Output("log_n", "ln of the sentence length", "nats"),
        Output("template_is_ln_n", "1 if every template word costs exactly ln n"),
    ),
    coords={"kind": coord("kind of token in a ToyLang sentence", KINDS)},
    sections=(
        "first-principles: The ruler (line 18)",
        "first-principles: A2, what the bag pays (lines 120, 162-183, 231)",
    ),
)
def bag_costs(N: int, L: int, F: int) -> dict:
    """Closed form: what the bag fitted to ToyLang charges a copied name, each kind of token and
    a whole sentence, against the true process and against a uniform guess over the vocabulary."""
    theta = closed_form_bag(N, F, L)
    n = tl.length(L)
    s = generic_sentence(N, F, L)
    kind = kind_of_tokens(N, F)[s]
    with np.errstate(divide="ignore"):
        token_costs = -np.log(theta[s])
    terms = np.array([token_costs[kind == k].sum() for k in range(len(KINDS))])
    ids = tl.token_ids(N)
    copy = -math.log(theta[0])
    true = tl.sentence_entropy(N, F, L)
    vocab = tl.vocab_size(N, F)
    total = float(token_costs.sum())
    return {
        "theta_name": float(theta[0]),
        "theta_thing": float(theta[ids["thing0"]]),
        "theta_filler": float(theta[ids["filler0"]]),
        "theta_template": float(theta[ids["gave"]]),
        "theta_sum": float(theta.sum()),
        "copy_nats": copy,
        "both_copies_nats": 2 * copy,
        "copy_step_nats": -math.log(closed_form_bag(N, F, L + 1)[0]) - copy,
        "sentence_terms": terms,
        "sentence_nats": total,
        "per_token_nats": total / n,
        "entropy_per_token": float(entropy_nats(theta)),
        "n_times_entropy": n * float(entropy_nats(theta)),
        "true_sentence_nats": true,
        "gap_to_true_nats": total - true,
        "vocab_size": float(vocab),
        "uniform_nats": math.log(vocab),
        "copy_minus_uniform": copy - math.log(vocab),
        "template_nats": float(-np.log(theta[ids["gave"]])),
        "log_n": math.log(n),
        "template_is_ln_n": float(
            np.allclose(-np.log(theta[N : ids["thing0"]]), math.log(n), rtol=0, atol=1e-12)
        ),
    }


# ----------------------------------------------------------------------------- enumeration


def multinomial_coefficient(tokens: np.ndarray) -> int:
    """Distinct orderings of a multiset of tokens, n! / prod(c_w!) (exact integer)."""
    _, counts = np.unique(tokens, return_counts=True)
    out = math.factorial(len(tokens))
    for c in counts:
        out //= math.factorial(int(c))
    return out


def direction_classes(sentences: np.ndarray, n_names: int, vocab: int) -> dict:
    """Naive Bayes with class A (giver earlier in the name list than the receiver) and class B
    (later), fitted on equally likely sentences: how far apart the two class bags are, the
    posterior of class A on every sentence, and the name-token counts per class."""
    s = np.asarray(sentences)
    in_a = s[:, 0] < s[:, 2]
    counts = np.stack([np.bincount(c.ravel(), minlength=vocab) for c in (s[in_a], s[~in_a])])
    theta = counts / counts.sum(axis=1, keepdims=True)
    prior = np.array([in_a.mean(), 1 - in_a.mean()])
    per_sentence = (s[:, :, None] == np.arange(vocab)).sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):  # 0 * log 0 is taken as 0 below
        log_theta = np.where(theta > 0, np.log(theta), -np.inf)
        loglik = np.where(per_sentence[:, None, :] > 0, per_sentence[:, None, :] * log_theta, 0.0)
    score = np.log(prior) + loglik.sum(axis=2)
    post_a = 1.0 / (1.0 + np.exp(score[:, 1] - score[:, 0]))
    per_pair = len(s) / (n_names * (n_names - 1))  # sentences sharing one ordered pair
    name_tokens = counts[:, :n_names] / per_pair
    return {
        "class_bag_gap": float(np.max(np.abs(theta[0] - theta[1]))),
        "class_prior_a": float(prior[0]),
        "posterior_a_min": float(post_a.min()),
        "posterior_a_max": float(post_a.max()),
        "log_ratio_max": float(np.max(np.abs(score[:, 1] - score[:, 0]))),
        "name_tokens_a": float(name_tokens[0, 0]),
        "name_tokens_b": float(name_tokens[1, 0]),
        "name_tokens_spread": float(name_tokens.max() - name_tokens.min()),
    }


@experiment(
    grid={
        "N": ints(min=2, ranges=False, doc="number of names X, Y can be drawn from in ToyLang"),
        "L": ints(
            min=0, doc="gap L: filler tokens between the thing and 'then' in a ToyLang sentence"
        ),
        "F": ints(doc="number of filler words in ToyLang's vocabulary"),
    },
    constraints=(tl.ENUMERATION_RULE,),
    outputs=(
        Output("theta_gap", "largest |counted - closed-form| frequency"),
        Output("theta_sum", "sum of the counted frequencies"),
        Output(
            "template_cost_is_ln_n",
            "1 if the counted bag charges every template word ln of the sentence length",
        ),
        Output("copy_nats", "counted bag's cost of a copied name", "nats"),
        Output("copy_formula_gap", "largest |counted copy cost - ln((10+L)N/4)|", "nats"),
        Output("sentence_nats_min", "smallest bag cost over all sentences", "nats"),
        Output("sentence_nats_max", "largest bag cost over all sentences", "nats"),
        Output("entropy_per_token", "entropy of the counted frequencies", "nats"),
        Output("n_entropy_gap", "largest |sentence cost - n H(theta)|", "nats"),
        Output("composition", "tokens of each kind in a sentence", "tokens", ("kind",)),
        Output("composition_constant", "1 if every sentence has the same composition"),
        Output("n_orderings", "distinct orderings of the tokens of one sentence", "orderings"),
        Output("n_orderings_sentences", "sentences with exactly those tokens", "sentences"),
        Output("class_bag_gap", "largest |theta_A - theta_B| of the direction classes"),
        Output("class_prior_a", "fraction of sentences in class A"),
        Output("posterior_a_min", "smallest posterior of class A over sentences"),
        Output("posterior_a_max", "largest posterior of class A over sentences"),
        Output("log_ratio_max", "largest |log-likelihood ratio| over sentences", "nats"),
        Output("name_tokens_a", "tokens of the first name in class A per ordered pair", "tokens"),
        Output("name_tokens_b", "tokens of the first name in class B per ordered pair", "tokens"),
        Output("name_tokens_spread", "max - min of those counts over names and classes", "tokens"),
    ),
    coords={"kind": coord("kind of token in a ToyLang sentence", KINDS)},
    sections=(
        "first-principles: A2, the bag counted on an enumerated ToyLang "
        "(lines 160, 162-183, 223-227)",
    ),
)
def bag_enumeration(N: int, L: int, F: int) -> dict:
    """The unigram fitted by counting every sentence of a small ToyLang, compared with the closed
    form; what it charges every sentence; the orderings of one sentence's tokens and how many of
    them are sentences; and the two gift-direction classes."""
    s = tl.enumerate_sentences(N, F, L)
    vocab = tl.vocab_size(N, F)
    theta = fit_unigram(s, vocab)
    closed = closed_form_bag(N, F, L)
    costs = bag_cost(s, theta)
    kind = kind_of_tokens(N, F)[s]
    composition = np.stack([(kind == k).sum(axis=1) for k in range(len(KINDS))], axis=1)
    template = np.array([tl.token_ids(N)[w] for w in tl.TEMPLATE])
    out = {
        "theta_gap": float(np.max(np.abs(theta - closed))),
        "template_cost_is_ln_n": float(
            np.allclose(-np.log(theta[template]), math.log(s.shape[1]), rtol=0, atol=1e-12)
        ),
        "theta_sum": float(theta.sum()),
        "copy_nats": float(np.mean(-np.log(theta[:N]))),
        "copy_formula_gap": float(
            np.max(np.abs(-np.log(theta[:N]) - math.log(tl.length(L) * N / 4)))
        ),
        "sentence_nats_min": float(costs.min()),
        "sentence_nats_max": float(costs.max()),
        "entropy_per_token": float(entropy_nats(theta)),
        "n_entropy_gap": float(np.max(np.abs(costs - s.shape[1] * entropy_nats(theta)))),
        "composition": composition[0].astype(float),
        "composition_constant": float(np.all(composition == composition[0])),
        "n_orderings": np.nan,
        "n_orderings_sentences": np.nan,
    }
    if F >= L:  # a sentence whose fillers are all different words exists
        chosen = generic_sentence(N, F, L)
        same_bag = np.all(np.sort(s, axis=1) == np.sort(chosen), axis=1)
        out["n_orderings"] = float(multinomial_coefficient(chosen))
        out["n_orderings_sentences"] = float(same_bag.sum())
    out.update(direction_classes(s, N, vocab))
    return out


# ----------------------------------------------------------------------------- shuffles


def random_swaps(rng: np.random.Generator, rows: np.ndarray, k: int) -> np.ndarray:
    """Each row after ``k`` swaps of two distinct positions chosen uniformly at random."""
    out = np.array(rows, copy=True)
    trials, n = out.shape
    idx = np.arange(trials)
    for _ in range(k):
        i = rng.integers(n, size=trials)
        j = (i + 1 + rng.integers(n - 1, size=trials)) % n
        out[idx, i], out[idx, j] = out[idx, j], out[idx, i]
    return out


def row_codes(rows: np.ndarray, base: int) -> np.ndarray:
    """Each row as one integer in base ``base`` (exact while base**width < 2**63)."""
    rows = np.asarray(rows, dtype=np.int64)
    if base ** rows.shape[1] >= 2**63:
        raise ValueError("rows too long to encode exactly")
    return rows @ (base ** np.arange(rows.shape[1], dtype=np.int64))


@experiment(
    grid={"swaps": ints(min=0, doc="random swaps of two tokens applied to a sentence")},
    params={
        "N": integer(min=2),
        "F": integer(min=1),
        "L": integer(min=0, max=3),
        "trials": integer(min=1, memory=True, work=True),
    },
    constraints=(
        require(
            "N * (N - 1) * 3 * F ** L <= 10**7",
            "the enumerated language (N (N-1) 3 F^L sentences) must hold at most 10^7 sentences",
            "N",
            "F",
            "L",
        ),
        require(
            "(N + F + 8) ** (10 + L) < 2**63",
            "a sentence must fit one int64 code: (N + F + 8)^(10 + L) < 2^63 (the vocabulary "
            "to the sentence length)",
            "N",
            "F",
            "L",
        ),
    ),
    outputs=(
        Output("bag_nats", "mean bag cost of the shuffled sequence", "nats"),
        Output("bag_change_max", "largest change of the bag cost from the sentence's", "nats"),
        Output("true_nats_sentence", "true cost of the shuffles that are still sentences", "nats"),
        Output("fraction_sentence", "fraction of shuffles that are still sentences"),
        Output(
            "impossible_when_not",
            "1 if every shuffle that is not a sentence has true probability 0",
        ),
        Output(
            "membership_agrees",
            "1 if membership of the enumerated language equals the sentence test",
        ),
        Output("moved_mean", "mean number of positions whose token changed", "positions"),
        Output("example_tokens", "token ids of one shuffle", dims=("position",)),
        Output("example_moved", "1 where that shuffle changed the token", dims=("position",)),
        Output("example_true_nats", "true cost of that shuffle (inf if impossible)", "nats"),
    ),
    coords={"position": coord("token position in the example sentence (0 first)")},
    sections=("first-principles: A2, the shuffle figure (lines 159-161)",),
)
def bag_shuffle(swaps: int, rng: np.random.Generator, N: int, F: int, L: int, trials: int) -> dict:
    """The sentence of line 55 (for L = 3) after ``swaps`` random swaps, ``trials`` times: what the
    fitted bag and the true process charge it, and how often it is still a sentence."""
    vocab = tl.vocab_size(N, F)
    language = tl.enumerate_sentences(N, F, L)
    theta = fit_unigram(language, vocab)
    sentence = generic_sentence(N, F, L)
    rows = random_swaps(rng, np.tile(sentence, (trials, 1)), swaps)
    bag = bag_cost(rows, theta)
    p_true = np.isin(row_codes(rows, vocab), row_codes(language, vocab)) / len(language)
    with np.errstate(divide="ignore"):
        true = -np.log(p_true)
    mask = tl.sentence_mask(rows, N, F)
    moved = rows != sentence
    return {
        "bag_nats": float(bag.mean()),
        "bag_change_max": float(np.max(np.abs(bag - bag_cost(sentence, theta)))),
        "true_nats_sentence": float(true[mask].mean()) if mask.any() else np.nan,
        "fraction_sentence": float(mask.mean()),
        "impossible_when_not": float(np.all(p_true[~mask] == 0)) if (~mask).any() else np.nan,
        "membership_agrees": float(np.all((p_true > 0) == mask)),
        "moved_mean": float(moved.sum(axis=1).mean()),
        "example_tokens": rows[0].astype(float),
        "example_moved": moved[0].astype(float),
        "example_true_nats": float(true[0]),
    }


# ----------------------------------------------------------------------------- sampling


@experiment(
    grid={
        "M": ints(work=True, memory=True, doc="sentences sampled to fit the bag-of-words model"),
        "L": ints(
            min=0,
            work=True,
            memory=True,
            doc="gap L: filler tokens between the thing and 'then' in a ToyLang sentence",
        ),
        "seed": seeds(),
    },
    params={
        "N": integer(min=2),
        "F": integer(min=1),
    },
    outputs=(
        Output("copy_nats", "copied-name cost of a bag fitted on M sampled sentences", "nats"),
        Output("theta_max_dev", "largest |fitted - long-run| frequency"),
    ),
    sections=("first-principles: A2, more data does not help (lines 166, 231)",),
)
def bag_convergence(M: int, L: int, seed: int, rng: np.random.Generator, N: int, F: int) -> dict:
    """A bag fitted on M sampled sentences: its cost on a copied name (averaged over the names)
    and the largest distance of its frequencies from the closed form."""
    s = tl.sample_sentences(rng, N, F, L, M)
    theta = fit_unigram(s, tl.vocab_size(N, F))
    with np.errstate(divide="ignore"):
        copy = float(np.mean(-np.log(theta[:N])))
    return {
        "copy_nats": copy,
        "theta_max_dev": float(np.max(np.abs(theta - closed_form_bag(N, F, L)))),
    }


@experiment(
    grid={"seed": seeds()},
    params={
        "N": integer(min=2),
        "F": integer(min=1),
        "L": integer(min=0),
        "draws": integer(min=1, memory=True),
        "repeats": integer(min=1, memory=True),
    },
    outputs=(
        Output("kind_count", "tokens of each kind in one draw", "tokens", ("kind",)),
        Output(
            "kind_mean", "tokens of each kind per draw, mean over the repeats", "tokens", ("kind",)
        ),
        Output("kind_expected", "expected drawn tokens of each kind", "tokens", ("kind",)),
        Output("template_count", "each template word in one draw", "tokens", ("template",)),
        Output(
            "template_mean",
            "each template word per draw, mean over the repeats",
            "tokens",
            ("template",),
        ),
        Output(
            "template_expected", "expected draws of each template word", "tokens", ("template",)
        ),
        Output("fraction_sentence", "fraction of the draws that are ToyLang sentences"),
        Output(
            "kind_count_draws",
            "tokens of each kind in each of the first draws",
            "tokens",
            ("draw", "kind"),
        ),
        Output(
            "template_count_draws",
            "each template word in each of the first draws",
            "tokens",
            ("draw", "template"),
        ),
    ),
    coords={
        "draw": coord("one of the first bag draws kept (a replicate)"),
        "kind": coord("kind of token in a ToyLang sentence", KINDS),
        "template": coord("template word of the ToyLang sentence", tl.TEMPLATE),
    },
    replicates=("draw",),
    sections=("first-principles: A2, what the bag generates (lines 228-230)",),
)
def bag_generate(
    seed: int, rng: np.random.Generator, N: int, F: int, L: int, draws: int, repeats: int
) -> dict:
    """Run the fitted bag forwards ``repeats`` times for ``draws`` tokens each: how many names,
    fillers, things and template words one draw holds, the same counts averaged over the
    repeats, the exact expected counts, and the fraction of draws that are sentences."""
    theta = closed_form_bag(N, F, L)
    tokens = rng.choice(len(theta), size=(repeats, draws), p=theta)
    kind = kind_of_tokens(N, F)
    ids = tl.token_ids(N)
    template = np.array([ids[w] for w in tl.TEMPLATE])
    kinds = (kind[tokens][:, :, None] == np.arange(len(KINDS))).sum(axis=1)
    words = (tokens[:, :, None] == template).sum(axis=1)
    sentences = tl.sentence_mask(tokens, N, F) if draws == tl.length(L) else np.zeros(repeats)
    kept = min(repeats, KEPT_DRAWS)
    return {
        "kind_count_draws": kinds[:kept].astype(float),
        "template_count_draws": words[:kept].astype(float),
        "kind_count": kinds[0].astype(float),
        "kind_mean": kinds.mean(axis=0),
        "kind_expected": np.array([draws * theta[kind == k].sum() for k in range(len(KINDS))]),
        "template_count": words[0].astype(float),
        "template_mean": words.mean(axis=0),
        "template_expected": draws * theta[template],
        "fraction_sentence": float(np.mean(sentences)),
    }


# first-principles line 229: the 13 tokens the note's fitted bag drew for one seed (data), and
# the gap of the bag it was drawn from (line 228).
PRINTED_DRAW = "now then Flo well Cy so yes a thanked Flo then ok now"
PRINTED_DRAW_GAP = 3


def thanked_name_seen(tokens: np.ndarray, n_names: int) -> bool:
    """Whether some 'thanked' in the text is followed by a name that already occurred before
    that 'thanked'."""
    t = np.asarray(tokens)
    for p in np.flatnonzero(t[:-1] == tl.token_ids(n_names)["thanked"]):
        name = t[p + 1]
        if name < n_names and np.any(t[:p] == name):
            return True
    return False


@experiment(
    grid={"N": ints(min=8, ranges=False, doc="number of names X, Y can be drawn from in ToyLang")},
    params={
        "F": integer(min=6),
    },
    outputs=(
        Output(
            "printed_is_sentence", "1 if the printed text is a ToyLang sentence", dims=("example",)
        ),
        Output("printed_length", "tokens in the printed sentence", "tokens", ("example",)),
        Output(
            "printed_final_reach",
            "tokens from the final name back to its first occurrence",
            "tokens",
            ("example",),
        ),
        Output(
            "draw_kind_count", "tokens of each kind in the printed bag draw", "tokens", ("kind",)
        ),
        Output(
            "draw_template_count",
            "each template word in the printed bag draw",
            "tokens",
            ("template",),
        ),
        Output("draw_length", "tokens in the printed bag draw", "tokens"),
        Output("draw_is_sentence", "1 if the printed bag draw is a sentence"),
        Output(
            "draw_possible",
            "1 if every token of the printed draw has positive frequency in the L = 3 bag",
        ),
        Output("draw_has_gave", "1 if the printed bag draw contains 'gave'"),
        Output(
            "draw_thanked_name_seen",
            "1 if a 'thanked' in the printed draw is followed by a name seen before it",
        ),
    ),
    coords={
        "example": coord(
            "printed example text of the note, by the line it is printed on", tuple(PRINTED)
        ),
        "kind": coord("kind of token in a ToyLang sentence", KINDS),
        "template": coord("template word of the ToyLang sentence", tl.TEMPLATE),
    },
    sections=(
        "first-principles: opening (lines 3-4), ruler (9-15), A1 (55-56), A2 (229), C2 (554)",
    ),
)
def printed_text(N: int, F: int) -> dict:
    """The sentences the note prints (are they sentences, how long, how far the final copy
    reaches) and the composition of its printed draw from the bag (is it a sentence)."""
    tokens = tl.encode(PRINTED_DRAW, N, F)
    kind = kind_of_tokens(N, F)
    ids = tl.token_ids(N)
    template = np.array([ids[w] for w in tl.TEMPLATE])
    return {
        **{f"printed_{k}": v for k, v in printed_sentences(N, F).items()},
        "draw_kind_count": np.bincount(kind[tokens], minlength=len(KINDS)).astype(float),
        "draw_template_count": (tokens[:, None] == template).sum(axis=0).astype(float),
        "draw_length": float(len(tokens)),
        "draw_is_sentence": float(tl.sentence_mask(tokens[None, :], N, F)[0]),
        "draw_possible": float(np.all(closed_form_bag(N, F, PRINTED_DRAW_GAP)[tokens] > 0)),
        "draw_has_gave": float(np.any(tokens == ids["gave"])),
        "draw_thanked_name_seen": float(thanked_name_seen(tokens, N)),
    }


# ----------------------------------------------------------------------------- the MLE


# first-principles line 158: the Check of the multinomial estimate (data).
CHECK_COUNTS = np.array([3.0, 1.0])
CHECK_ALTERNATIVE = np.array([0.7, 0.3])


def log_likelihood(counts: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """sum_w c_w ln theta_w along the last axis (0 ln 0 = 0; -inf if a seen token has 0)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(counts > 0, counts * np.log(theta), 0.0)
    return terms.sum(axis=-1)


@experiment(
    grid={
        "K": ints(
            min=2, ranges=False, work=True, memory=True, doc="vocabulary size K of the multinomial"
        ),
        "seed": seeds(),
    },
    params={
        "tokens": integer(min=1, memory=True),
        "thetas": integer(min=1, memory=True, work=True),
    },
    outputs=(
        Output("max_gain", "largest l(theta) - l(theta_hat) over random theta", "nats"),
        Output("multiplier_gap", "largest |c_w / theta_hat_w - n| over seen words"),
        Output("zero_counts", "words never seen in the training text", "words"),
        Output("unseen_impossible", "1 if a text with an unseen word gets log-lik -inf"),
        Output("check_theta", "estimate for the counts (3, 1)", dims=("word",)),
        Output("check_ll_hat", "log-likelihood of (3, 1) at the estimate", "nats"),
        Output("check_ll_alternative", "log-likelihood of (3, 1) at (0.7, 0.3)", "nats"),
    ),
    coords={"word": coord("word of the two-word count check (0 first)")},
    sections=("first-principles: A2, the multinomial estimate (lines 126-158)",),
)
def multinomial_mle(K: int, seed: int, rng: np.random.Generator, tokens: int, thetas: int) -> dict:
    """Counts of ``tokens`` draws over K words (zeros allowed): no point of the simplex among
    ``thetas`` random ones beats the relative frequency; the multiplier equals n; an unseen word
    makes a text impossible. Plus the printed (3, 1) Check."""
    counts = rng.multinomial(tokens, rng.dirichlet(np.full(K, 0.5))).astype(float)
    hat = counts / counts.sum()
    others = rng.dirichlet(np.ones(K), size=thetas)
    gain = log_likelihood(counts, others) - log_likelihood(counts, hat)
    seen = counts > 0
    unseen = np.flatnonzero(~seen)
    impossible = np.nan
    if len(unseen):
        text = counts.copy()
        text[unseen[0]] += 1  # a text with one token the training text never had
        impossible = float(log_likelihood(text, hat) == -np.inf)
    check_hat = CHECK_COUNTS / CHECK_COUNTS.sum()
    return {
        "max_gain": float(gain.max()),
        "multiplier_gap": float(np.max(np.abs(counts[seen] / hat[seen] - counts.sum()))),
        "zero_counts": float((~seen).sum()),
        "unseen_impossible": impossible,
        "check_theta": check_hat,
        "check_ll_hat": float(log_likelihood(CHECK_COUNTS, check_hat)),
        "check_ll_alternative": float(log_likelihood(CHECK_COUNTS, CHECK_ALTERNATIVE)),
    }


# ----------------------------------------------------------------------------- naive Bayes

# first-principles line 215: the six training documents and the test document (data).
DOCUMENTS = {
    "sports": ("goal match team win goal", "team coach match goal", "win match team team"),
    "cooking": ("bake oven flour sugar bake", "sugar flour butter bake", "oven butter bake sugar"),
}
TEST_DOCUMENT = "coach bake bake bake"
CLASSES = tuple(DOCUMENTS)


@experiment(
    grid={
        "alpha": reals(
            min=0, doc="pseudo-count alpha added to every word count (additive smoothing)"
        )
    },
    outputs=(
        Output("vocab_size", "distinct words of the six documents", "words"),
        Output("class_tokens", "tokens per class", "tokens", ("cls",)),
        Output("class_prior", "fitted class prior", dims=("cls",)),
        Output("goal_count_sports", "occurrences of 'goal' in the sports documents", "tokens"),
        Output("theta_goal_sports", "unsmoothed frequency of 'goal' in sports"),
        Output(
            "raw_zero_counts",
            "training counts of coach in cooking, bake in sports",
            "tokens",
            ("pair",),
        ),
        Output("likelihood", "prior times likelihood of the test document", dims=("cls",)),
        Output("posterior_undefined", "1 if the posterior is 0/0"),
        Output(
            "smoothed_test_counts",
            "smoothed counts of coach and bake (sports, then cooking)",
            "tokens",
            ("entry",),
        ),
        Output("smoothed_total", "smoothed token total per class", "tokens", ("cls",)),
        Output("odds_cooking", "cooking over sports, prior times likelihood"),
        Output("posterior_cooking", "multinomial posterior of cooking"),
        Output("linear_gap", "|log-odds as a linear map of the counts - direct log-odds|", "nats"),
        Output("bernoulli_posterior_cooking", "Bernoulli posterior of cooking"),
        Output("absent_words", "vocabulary words absent from the test document", "words"),
        Output(
            "test_tokens_cooking_only",
            "test tokens seen only in cooking training documents",
            "tokens",
        ),
        Output("test_tokens", "tokens of the test document", "tokens"),
    ),
    coords={
        "cls": coord("class of the naive Bayes example", CLASSES),
        "pair": coord(
            "word and class whose raw training count is zero", ("cooking:coach", "sports:bake")
        ),
        "entry": coord(
            "class and word of a smoothed count",
            ("sports:coach", "sports:bake", "cooking:coach", "cooking:bake"),
        ),
    },
    sections=("first-principles: A2, naive Bayes (lines 184-222)",),
)
def naive_bayes(alpha: float) -> dict:
    """Multinomial and Bernoulli naive Bayes on the note's six documents with ``alpha``
    pseudo-counts (0: the unsmoothed estimate), scored on the test document."""
    vocab = sorted({w for docs in DOCUMENTS.values() for d in docs for w in d.split()})
    index = {w: i for i, w in enumerate(vocab)}
    V = len(vocab)

    def count(text):
        return np.bincount([index[w] for w in text.split()], minlength=V).astype(float)

    C = np.array([sum(count(d) for d in DOCUMENTS[z]) for z in CLASSES])  # class x word
    present = np.array([sum(count(d) > 0 for d in DOCUMENTS[z]) for z in CLASSES], dtype=float)
    n_docs = np.array([len(DOCUMENTS[z]) for z in CLASSES], dtype=float)
    prior = n_docs / n_docs.sum()
    c = count(TEST_DOCUMENT)

    smoothed = C + alpha
    theta = smoothed / smoothed.sum(axis=1, keepdims=True)
    sports, cooking = CLASSES.index("sports"), CLASSES.index("cooking")
    with np.errstate(divide="ignore", invalid="ignore"):
        likelihood = prior * np.prod(theta**c, axis=1)
        post = likelihood / likelihood.sum()
        # the log-odds as a linear function of the count vector: weights ln(theta_c/theta_s)
        weights = np.log(theta[cooking]) - np.log(theta[sports])
        linear = np.log(prior[cooking] / prior[sports]) + c @ weights
        direct = np.log(likelihood[cooking] / likelihood[sports])
        phi = (present + alpha) / (n_docs[:, None] + 2 * alpha)
        on = c > 0
        bern = prior * np.prod(np.where(on, phi, 1 - phi), axis=1)
        bern_post = bern / bern.sum()
    goal, coach, bake = index["goal"], index["coach"], index["bake"]
    only_cooking = (C[cooking] > 0) & (C[sports] == 0)
    return {
        "vocab_size": float(V),
        "class_tokens": C.sum(axis=1),
        "class_prior": prior,
        "goal_count_sports": C[sports, goal],
        "theta_goal_sports": float(C[sports, goal] / C[sports].sum()),
        "raw_zero_counts": np.array([C[cooking, coach], C[sports, bake]]),
        "likelihood": likelihood,
        "posterior_undefined": float(not np.all(np.isfinite(post))),
        "smoothed_test_counts": np.array(
            [
                smoothed[sports, coach],
                smoothed[sports, bake],
                smoothed[cooking, coach],
                smoothed[cooking, bake],
            ]
        ),
        "smoothed_total": smoothed.sum(axis=1),
        "odds_cooking": float(likelihood[cooking] / likelihood[sports])
        if likelihood[sports] > 0
        else np.nan,
        "posterior_cooking": float(post[cooking]),
        "linear_gap": float(abs(linear - direct)) if np.isfinite(direct) else np.nan,
        "bernoulli_posterior_cooking": float(bern_post[cooking]),
        "absent_words": float(V - on.sum()),
        "test_tokens_cooking_only": float(c[only_cooking].sum()),
        "test_tokens": float(c.sum()),
    }
