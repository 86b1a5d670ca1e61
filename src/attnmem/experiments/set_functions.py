"""A transformer layer as a function on sets (first-principles C2, lines 553-625).

One experiment, ``set_equivariance``: random two-layer models (attention, residual add and a
tanh MLP per layer, no layer norm) of a given width, run on the ToyLang sentences the note
prints. It measures how far the outputs are from following a reordering of the tokens (zero
without positions, by equivariance), what a sinusoidal position code and a causal mask change,
the ln 2 floor a position-free model pays on the second name, the attention over names that
attains it, and the shift of the sinusoidal code as a rotation.
"""

from __future__ import annotations

import math

import numpy as np

from ..spec import Output, coord, experiment, integer, ints, real
from . import toylang as tl
from .softmax import softmax

N_NAMES, N_FILLERS = 8, 6
SHUFFLED = "Flo gave Ann a pen then Ann thanked Flo ."  # line 579
COPIES = {"Flo": (0, 8), "Ann": (2, 6)}  # positions of the two copies of each name in it
# The prefix xi of lines 584 and 624 at L = 2; names, thing and fillers are our choice.
XI_WORDS = "Ann gave Ben a pen so now then"
MASKS = ("none", "layer2", "one_layer", "layer1", "both")
CODES = ("none", "sinusoidal")
STRIP_SWAPS = tuple(range(6))
STRIP_TOKENS = ("Flo@0", "Flo@8", "Ann@2", "Ann@6")


# ----------------------------------------------------------------------------- the model


def random_model(rng: np.random.Generator, vocab: int, d: int, n_layers: int = 2) -> dict:
    """Embeddings N(0, 1); every weight matrix N(0, 1/d); score scale 1/sqrt(d)."""
    s = 1.0 / math.sqrt(d)
    layers = [
        {k: rng.normal(scale=s, size=(d, d)) for k in ("WQ", "WK", "WV", "W1", "W2")}
        for _ in range(n_layers)
    ]
    return {"E": rng.normal(size=(vocab, d)), "layers": layers, "beta": s}


def attention_weights(x: np.ndarray, layer: dict, beta: float, causal: bool) -> np.ndarray:
    scores = beta * (x @ layer["WQ"]) @ (x @ layer["WK"]).T
    if causal:
        scores = np.where(np.tril(np.ones(scores.shape, dtype=bool)), scores, -np.inf)
    return softmax(scores, axis=-1)


def forward(model: dict, x: np.ndarray, masks=(False, False), n_layers: int | None = None):
    """Rows in, rows out: per layer x + A x W_V, then x + tanh(x W_1) W_2."""
    for layer, causal in list(zip(model["layers"], masks, strict=True))[:n_layers]:
        a = attention_weights(x, layer, model["beta"], causal)
        x = x + a @ x @ layer["WV"]
        x = x + np.tanh(x @ layer["W1"]) @ layer["W2"]
    return x


def sinusoidal(n: int, d: int) -> np.ndarray:
    """pe[t, 2j] = sin(t / 10000^(2j/d)), pe[t, 2j+1] = cos(same), positions t = 0..n-1."""
    omega = 10000.0 ** (-np.arange(0, d, 2) / d)
    angle = np.arange(n)[:, None] * omega[None, :]
    pe = np.empty((n, d))
    pe[:, 0::2], pe[:, 1::2] = np.sin(angle), np.cos(angle)
    return pe


def embed(model: dict, tokens: np.ndarray, code: str) -> np.ndarray:
    x = model["E"][tokens]
    return x + sinusoidal(len(tokens), x.shape[1]) if code == "sinusoidal" else x


def random_swaps(rng: np.random.Generator, n: int, k: int) -> np.ndarray:
    """An ordering of n items after k random swaps of two distinct places."""
    order = np.arange(n)
    for _ in range(k):
        i, j = rng.choice(n, size=2, replace=False)
        order[[i, j]] = order[[j, i]]
    return order


def mask_config(name: str):
    """(masks per layer, number of layers) of each configuration of line 624."""
    return {
        "none": ((False, False), 2),
        "layer2": ((False, True), 2),
        "one_layer": ((True, False), 1),
        "layer1": ((True, False), 2),
        "both": ((True, True), 2),
    }[name]


# ----------------------------------------------------------------------------- one model's checks


def model_checks(model: dict, rng: np.random.Generator, swaps: int) -> dict:
    """Everything measured on one random model."""
    tokens = tl.encode(SHUFFLED, N_NAMES, N_FILLERS)
    n = len(tokens)
    order = random_swaps(rng, n, swaps)
    out = {}
    for code in CODES:
        y = forward(model, embed(model, tokens, code))
        y_moved = forward(model, embed(model, tokens[order], code))
        # Row k of the moved run belongs to token order[k]: compare it with that token's row.
        out[f"follow_{code}"] = float(np.max(np.abs(y_moved - y[order])))
        for name, (i, j) in COPIES.items():
            out[f"gap_{name}_{code}"] = float(np.linalg.norm(y[i] - y[j]))
    x = embed(model, tokens, "none")
    y = forward(model, x)
    y_moved = forward(model, x[order])
    layer = model["layers"][0]
    a, a_moved = (attention_weights(z, layer, model["beta"], False) for z in (x, x[order]))
    out["attention_perm_gap"] = float(np.max(np.abs(a_moved - a[np.ix_(order, order)])))
    out["not_invariant"] = float(np.max(np.abs(y_moved - y)))
    out["pooled_gap"] = float(np.max(np.abs(y_moved.sum(axis=0) - y.sum(axis=0))))
    q = rng.normal(size=x.shape[1])  # a query held outside the set
    v = x @ layer["WV"]
    lookup = softmax(model["beta"] * (x @ layer["WK"]) @ q) @ v
    lookup_moved = softmax(model["beta"] * (x[order] @ layer["WK"]) @ q) @ v[order]
    out["external_query_gap"] = float(np.max(np.abs(lookup_moved - lookup)))
    # One masked layer reads the past as a bag: reorder everything before the last token.
    past = np.r_[rng.permutation(n - 1), n - 1]
    last = forward(model, x, (True, False), 1)[-1]
    out["masked_past_gap"] = float(
        np.max(np.abs(forward(model, x[past], (True, False), 1)[-1] - last))
    )
    # The prefixes xi and xi' (first two names exchanged) read at 'then'.
    xi = tl.encode(XI_WORDS, N_NAMES, N_FILLERS)
    xi2 = xi.copy()
    xi2[[0, 2]] = xi[[2, 0]]
    gaps = np.empty((len(CODES), len(MASKS)))
    for c, code in enumerate(CODES):
        for m, mask in enumerate(MASKS):
            masks, depth = mask_config(mask)
            o1 = forward(model, embed(model, xi, code), masks, depth)[-1]
            o2 = forward(model, embed(model, xi2, code), masks, depth)[-1]
            gaps[c, m] = np.linalg.norm(o1 - o2)
    out["prefix_gap"] = gaps
    return out


def strips(model: dict, rng: np.random.Generator) -> np.ndarray:
    """Output rows of the two Flo and two Ann tokens after 0..5 random swaps, found again
    wherever the swaps moved them (code x swaps x token x feature)."""
    tokens = tl.encode(SHUFFLED, N_NAMES, N_FILLERS)
    d = model["E"].shape[1]
    out = np.empty((len(CODES), len(STRIP_SWAPS), len(STRIP_TOKENS), d))
    tracked = [p for name in COPIES for p in COPIES[name]]
    order = np.arange(len(tokens))
    for k in STRIP_SWAPS:
        if k:
            order = order[random_swaps(rng, len(tokens), 1)]
        where = np.argsort(order)  # where each original token now sits
        for c, code in enumerate(CODES):
            y = forward(model, embed(model, tokens[order], code))
            out[c, k] = y[where[tracked]]
    return out


# ----------------------------------------------------------------------------- model-free checks


def names_lookup_cost(beta: float, gap: int, renormalise: bool = True) -> tuple[float, float]:
    """Attention over names at 'then' (keys 1 on names, 0 elsewhere, query 1, one-hot values):
    the cost of the right second name on xi and on xi' (first two names swapped). Read on the
    name coordinates only, renormalised to a distribution over names (``renormalise``), or as
    the raw weight the blend puts on the right name."""
    fillers = np.zeros((1, gap), dtype=np.int64)
    xi = tl.assemble([0], [1], [0], fillers, N_NAMES)[0][: gap + 6]
    xi2 = xi.copy()
    xi2[[0, 2]] = xi[[2, 0]]
    costs = []
    for prefix, right in ((xi, xi[2]), (xi2, xi2[2])):
        keys = (prefix < N_NAMES).astype(float)
        w = softmax(beta * keys)
        names = w[prefix < N_NAMES].sum() if renormalise else 1.0
        costs.append(-math.log(float(w[prefix == right].sum() / names)))
    return costs[0], costs[1]


def rotation(b: int, d: int) -> np.ndarray:
    """The block-diagonal rotation R_b with pe[t + b] = R_b pe[t]."""
    omega = 10000.0 ** (-np.arange(0, d, 2) / d)
    r = np.zeros((d, d))
    for i, w in enumerate(omega):
        c, s = math.cos(w * b), math.sin(w * b)
        r[2 * i : 2 * i + 2, 2 * i : 2 * i + 2] = [[c, s], [-s, c]]
    return r


def rotation_checks(rng: np.random.Generator, d: int) -> dict:
    pe = sinusoidal(64, d)
    check = float(np.max(np.abs(rotation(4, d) @ pe[3] - pe[7])))
    worst = max(float(np.max(np.abs(pe[: 64 - b] @ rotation(b, d).T - pe[b:]))) for b in range(20))
    half = d // 2
    alpha, eta = rng.normal(size=half), rng.normal(size=half)
    quarter = np.array([[0.0, 1.0], [-1.0, 0.0]])
    structured = np.zeros((d, d))
    for i in range(half):
        structured[2 * i : 2 * i + 2, 2 * i : 2 * i + 2] = alpha[i] * np.eye(2) + eta[i] * quarter
    general = rng.normal(size=(d, d))
    omega = 10000.0 ** (-np.arange(0, d, 2) / d)
    spread_s, spread_g, formula_gap = 0.0, 0.0, 0.0
    for b in range(1, 20):
        s_s = np.einsum("ti,ij,tj->t", pe[: 64 - b], structured, pe[b:])
        s_g = np.einsum("ti,ij,tj->t", pe[: 64 - b], general, pe[b:])
        spread_s = max(spread_s, float(np.ptp(s_s)))
        spread_g = max(spread_g, float(np.ptp(s_g)))
        formula = float(np.sum(alpha * np.cos(omega * b) - eta * np.sin(omega * b)))
        formula_gap = max(formula_gap, float(np.max(np.abs(s_s - formula))))
    return {
        "rotation_gap": check,
        "rotation_gap_all": worst,
        "offset_spread_structured": spread_s,
        "offset_spread_general": spread_g,
        "offset_formula_gap": formula_gap,
    }


@experiment(
    grid={
        "width": ints(
            min=2,
            multiple_of=2,
            ranges=False,
            doc="width of the models (even: the sinusoidal code pairs coordinates)",
            memory=True,
        )
    },
    params={
        "n_models": integer(min=1, doc="random models per width", work=True),
        "swaps": integer(min=0, doc="random swaps of two tokens"),
        "names_beta": real(min=0, doc="sharpness of attention over names"),
        "names_gap": integer(min=0, doc="gap L of the prefix read"),
    },
    outputs=(
        Output(
            "follow_none",
            "largest change of a token's output after the swaps, no positions",
            dims=("model",),
        ),
        Output("follow_sinusoidal", "the same with sinusoidal positions", dims=("model",)),
        Output("follow_none_max", "worst over models, no positions"),
        Output("follow_sinusoidal_max", "worst over models, with positions"),
        Output(
            "gap_Flo_none", "distance between the two Flo outputs, no positions", dims=("model",)
        ),
        Output(
            "gap_Ann_none", "distance between the two Ann outputs, no positions", dims=("model",)
        ),
        Output(
            "gap_Flo_sinusoidal", "distance between the two Flo outputs, positions", dims=("model",)
        ),
        Output(
            "gap_Ann_sinusoidal", "distance between the two Ann outputs, positions", dims=("model",)
        ),
        Output("attention_perm_gap", "largest |A(PX) - P A(X) P^T| in layer 1", dims=("model",)),
        Output("not_invariant", "largest change of the output at a fixed row", dims=("model",)),
        Output("pooled_gap", "largest change of the sum of the output rows", dims=("model",)),
        Output("external_query_gap", "change of a lookup by an outside query", dims=("model",)),
        Output(
            "masked_past_gap",
            "change of the last row of one masked layer when the past is reordered",
            dims=("model",),
        ),
        Output(
            "prefix_gap",
            "distance of the outputs at 'then' for xi and xi'",
            dims=("model", "code", "mask"),
        ),
        Output(
            "layer1_vs_both",
            "largest difference between masking layer 1 only and masking both layers",
        ),
        Output("prefix_gap_max", "worst over models", dims=("code", "mask")),
        Output(
            "strips",
            "outputs of the four name tokens after k swaps (model 0)",
            dims=("code", "swap", "token", "feature"),
        ),
        Output("floor_min", "least average cost of one distribution on xi and xi'", "nats"),
        Output("floor_argmin", "p(Y) at that least cost"),
        Output(
            "names_cost",
            "cost of the second name, attention over names, xi and xi'",
            "nats",
            ("prefix",),
        ),
        Output(
            "names_cost_raw",
            "the same, raw weight on the right name (no renormalising)",
            "nats",
            ("prefix",),
        ),
        Output("names_cost_worst", "largest |cost - ln 2| over beta and L", "nats"),
        Output(
            "final_prefix_counts", "occurrences of X and Y before the final name", dims=("name",)
        ),
        Output("rotation_gap", "|R_4 pe_3 - pe_7| (d = width)"),
        Output("rotation_gap_all", "largest |R_b pe_t - pe_t+b|, t < 44, b < 20"),
        Output("offset_spread_structured", "spread over t of a score with B of rotation blocks"),
        Output("offset_spread_general", "spread over t of a score with a general B"),
        Output("offset_formula_gap", "score minus sum of alpha cos(w b) - eta sin(w b)"),
    ),
    coords={
        "feature": coord("feature of a token's output (0 first)"),
        "model": coord("random model drawn (0 first)"),
        "code": coord("position code added to the tokens", CODES),
        "mask": coord("which layers are causally masked", MASKS),
        "swap": coord("swaps of two tokens applied so far", STRIP_SWAPS),
        "token": coord("name token and its position", STRIP_TOKENS),
        "prefix": coord(
            "prefix read: the sentence, or the one with its names swapped", ("xi", "xi_swapped")
        ),
        "name": coord("name role", ("X", "Y")),
    },
    sections=("first-principles C2: equivariance, its price, positions and masks (lines 553-625)",),
)
def set_equivariance(
    width: int,
    rng: np.random.Generator,
    n_models: int,
    swaps: int,
    names_beta: float,
    names_gap: int,
) -> dict:
    """Every C2 check, on ``n_models`` random models of the given width."""
    vocab = tl.vocab_size(N_NAMES, N_FILLERS)
    models = [random_model(rng, vocab, width) for _ in range(n_models)]
    per_model = [model_checks(m, rng, swaps) for m in models]
    out = {k: np.array([pm[k] for pm in per_model]) for k in per_model[0]}
    for key in ("follow_none", "follow_sinusoidal", "prefix_gap"):
        out[f"{key}_max"] = out[key].max(axis=0)
    gaps = out["prefix_gap"]
    out["layer1_vs_both"] = float(
        np.max(np.abs(gaps[:, :, MASKS.index("layer1")] - gaps[:, :, MASKS.index("both")]))
    )
    out["strips"] = strips(models[0], rng)
    # The ln 2 floor: one distribution for both prefixes, searched on a grid of p(Y).
    p = np.arange(1, 10000) / 10000
    avg = -0.5 * (np.log(p) + np.log(1 - p))
    out["floor_min"] = float(avg.min())
    out["floor_argmin"] = float(p[np.argmin(avg)])
    out["names_cost"] = np.array(names_lookup_cost(names_beta, names_gap))
    out["names_cost_raw"] = np.array(names_lookup_cost(names_beta, names_gap, False))
    out["names_cost_worst"] = max(
        abs(c - math.log(2))
        for b in (0.0, 1.0, 5.0, 50.0)
        for g in range(0, 41)
        for c in names_lookup_cost(b, g)
    )
    thanked = tl.assemble([0], [1], [0], np.zeros((1, names_gap), dtype=np.int64), N_NAMES)[0]
    prefix = thanked[: names_gap + 8]
    out["final_prefix_counts"] = np.array([np.sum(prefix == 0), np.sum(prefix == 1)], dtype=float)
    out.update(rotation_checks(rng, width))
    return out
