"""The hand-built block that solves ToyLang (first-principles C4, lines 692-701), the C1 pointer
it contains (its cost quoted in C5, lines 712, 732 and 734) and the C1 keys and query written as
projections of a stream (C3, line 638).

The stream of a token is four subspaces: a word one-hot (N + 14 entries), a one-hot over the
positions 0 to 4 (later positions get the zero code), a subject copy and an object copy (N each).
Head 1 is asked by "thanked" (query beta e_0 against keys that read the position code) and head 2
by "then" (query beta e_2); their values are the name coordinates and they write the subject and
the object copy. The MLP has 2N ReLU units, copy_n + token - 1, and the logit of name n is kappa
times its two units; the prediction is a softmax over the names. Only the rows of the two query
positions are computed (the mask makes each row depend on its prefix alone), so long gaps and
every pair of names stay cheap.
"""

from __future__ import annotations

import math

import numpy as np

from ..spec import Output, coord, experiment, ints, reals, require
from . import toylang
from .softmax import softmax

POSITIONS = 5  # the position code covers positions 0..4 (line 692)
STAGES = ("embed", "read", "write", "gate", "predict")
BARS = ("first name", "second name", "six others")
AT = ("thanked", "then")
PRINTED_X, PRINTED_Y = 5, 6  # Flo and Gus (line 698)


def layout(n_names: int) -> dict:
    """Where each subspace of the stream sits."""
    vocab = toylang.vocab_size(n_names, len(toylang.FILLERS))
    pos = vocab
    sub = pos + POSITIONS
    obj = sub + n_names
    return {"vocab": vocab, "pos": pos, "sub": sub, "obj": obj, "d": obj + n_names}


def embed(sentences: np.ndarray, n_names: int) -> np.ndarray:
    """Streams (S, n, d): token one-hot plus the truncated position one-hot; copies empty."""
    lay = layout(n_names)
    S, n = sentences.shape
    X = np.zeros((S, n, lay["d"]))
    X[np.arange(S)[:, None], np.arange(n)[None, :], sentences] = 1.0
    for p in range(min(POSITIONS, n)):
        X[:, p, lay["pos"] + p] = 1.0
    return X


def weights(n_names: int, beta: float, kappa: float) -> dict:
    """The block's matrices."""
    lay = layout(n_names)
    ids = toylang.token_ids(n_names)
    d, N = lay["d"], n_names
    heads = []
    for trigger, target, copy in (("thanked", 0, "sub"), ("then", 2, "obj")):
        WQ = np.zeros((d, POSITIONS))
        WQ[ids[trigger], target] = beta
        WK = np.zeros((d, POSITIONS))
        WK[lay["pos"] : lay["pos"] + POSITIONS] = np.eye(POSITIONS)
        WV = np.zeros((d, N))
        WV[:N] = np.eye(N)
        WO = np.zeros((N, d))
        WO[:, lay[copy] : lay[copy] + N] = np.eye(N)
        heads.append({"WQ": WQ, "WK": WK, "WV": WV, "WO": WO})
    W1 = np.zeros((d, 2 * N))
    W1[lay["sub"] : lay["sub"] + N, :N] = np.eye(N)
    W1[lay["obj"] : lay["obj"] + N, N:] = np.eye(N)
    W1[ids["thanked"], :N] = 1.0
    W1[ids["then"], N:] = 1.0
    W2 = kappa * np.vstack([np.eye(N), np.eye(N)])  # hidden units -> name logits
    return {"heads": heads, "W1": W1, "b1": -np.ones(2 * N), "W2": W2}


def block_at(X: np.ndarray, row: int, w: dict) -> dict:
    """The block read at one position of every sentence (causal: the row sees 0..row)."""
    seen = X[:, : row + 1]
    x = X[:, row]
    out = {"scores": [], "weights": [], "writes": []}
    stream = x.copy()
    for h in w["heads"]:
        q = x @ h["WQ"]  # (S, d_k)
        k = seen @ h["WK"]  # (S, row+1, d_k)
        scores = np.einsum("sk,snk->sn", q, k)
        a = softmax(scores, axis=-1)
        out["scores"].append(scores)
        write = np.einsum("sn,snv->sv", a, seen @ h["WV"]) @ h["WO"]
        out["weights"].append(a)
        out["writes"].append(write)
        stream = stream + write
    hidden = np.maximum(stream @ w["W1"] + w["b1"], 0.0)
    logits = hidden @ w["W2"]
    out.update(stream=stream, hidden=hidden, logits=logits, probs=softmax(logits, axis=-1))
    return out


def printed_sentence(gap: int, n_names: int) -> np.ndarray:
    """Flo gave Gus a book (fillers) then Gus thanked Flo . with fillers cycling through the six
    filler words (they carry no name and no position code, so which ones does not matter)."""
    fillers = np.arange(gap)[None, :] % len(toylang.FILLERS)
    return toylang.assemble([PRINTED_X], [PRINTED_Y], [0], fillers, n_names)


def all_pairs(gap: int, n_names: int) -> np.ndarray:
    """One sentence per ordered pair of distinct names."""
    pairs = np.array([(x, y) for x in range(n_names) for y in range(n_names) if x != y])
    fillers = np.tile(np.arange(gap) % len(toylang.FILLERS), (len(pairs), 1))
    return toylang.assemble(pairs[:, 0], pairs[:, 1], np.zeros(len(pairs)), fillers, n_names)


def stage_bars(r: dict, head: int, x: int, y: int, n_names: int) -> np.ndarray:
    """Bars (first name, second name, the other names) at each stage, for one sentence."""
    lay = layout(n_names)
    copy = lay["sub"] if head == 0 else lay["obj"]

    def three(v):
        return [v[x], v[y], float(np.sum(v)) - v[x] - v[y]]

    sent_names = r["names_at"]  # name id per visible position (-1 if none)
    a = r["weights"][head][0]
    mass = np.array([a[sent_names == i].sum() for i in range(n_names)])
    hidden = r["hidden"][0]
    return np.array(
        [
            three(np.full(n_names, 1.0 / n_names)),  # a names-only readout of the bare stream
            three(mass),
            three(r["stream"][0, copy : copy + n_names]),
            three(hidden[:n_names] + hidden[n_names:]),
            three(r["probs"][0]),
        ]
    )


def c1_as_projections(n_names: int, gap: int, rng: np.random.Generator) -> tuple[float, float]:
    """C1's hand-set keys ((1,0) at position 0, (0,1) at position 2, zero elsewhere) and queries
    ((1,0) at "thanked", (0,1) at "then") rebuilt as W_K reading two position coordinates and W_Q
    reading the token; largest score gap to the hand-set scores, and after W_Q G, W_K G^-T."""
    lay = layout(n_names)
    ids = toylang.token_ids(n_names)
    s = printed_sentence(gap, n_names)
    X = embed(s, n_names)[0]
    n = X.shape[0]
    WK = np.zeros((lay["d"], 2))
    WK[lay["pos"] + 0, 0] = WK[lay["pos"] + 2, 1] = 1.0
    WQ = np.zeros((lay["d"], 2))
    WQ[ids["thanked"], 0] = WQ[ids["then"], 1] = 1.0
    keys = np.zeros((n, 2))
    keys[0], keys[2] = (1, 0), (0, 1)
    queries = np.zeros((n, 2))
    queries[s[0] == ids["thanked"]] = (1, 0)
    queries[s[0] == ids["then"]] = (0, 1)
    hand = queries @ keys.T
    G = rng.standard_normal((2, 2)) + 2 * np.eye(2)
    proj = (X @ WQ) @ (X @ WK).T
    gauge = (X @ WQ @ G) @ (X @ WK @ np.linalg.inv(G).T).T
    return float(np.max(np.abs(proj - hand))), float(np.max(np.abs(gauge - hand)))


def keys_read_content(n_names: int, gap: int, w: dict) -> float:
    """Largest change of any key of either head when every name of the sentence is replaced by a
    filler word (0: the keys read the position alone)."""
    s = printed_sentence(gap, n_names)
    t = s.copy()
    t[t < n_names] = toylang.token_ids(n_names)["filler0"]
    X, Y = embed(s, n_names)[0], embed(t, n_names)[0]
    return float(max(np.max(np.abs(X @ h["WK"] - Y @ h["WK"])) for h in w["heads"]))


@experiment(
    grid={
        "N": ints(min=2, ranges=False, doc="number of names X, Y can be drawn from in ToyLang"),
        "L": ints(
            min=0,
            work=True,
            memory=2,
            doc="gap L: filler tokens between the thing and 'then' in a ToyLang sentence",
        ),
        "beta": reals(gt=0, doc="inverse temperature beta multiplying the attention scores"),
        "kappa": reals(gt=0, doc="sharpness kappa of the gate"),
    },
    constraints=(
        require(
            "N == [8]",
            "the hand-built block has the 8 names of toylang.NAMES: N must be [8]",
            "N",
        ),
    ),
    outputs=(
        Output(
            "thanked_score_source",
            "at 'thanked': score of the asked head at the name's source position",
        ),
        Output(
            "thanked_score_other_max", "at 'thanked': largest |score| of the asked head elsewhere"
        ),
        Output(
            "thanked_w_source",
            "at 'thanked': weight of the asked head on the name's source position",
        ),
        Output("thanked_w_other_max", "at 'thanked': largest weight of the asked head elsewhere"),
        Output("thanked_w_other_min", "at 'thanked': smallest weight of the asked head elsewhere"),
        Output("thanked_idle_weight_max", "at 'thanked': largest weight of the other (idle) head"),
        Output("thanked_idle_weight_min", "at 'thanked': smallest weight of the idle head"),
        Output("thanked_sub_copy", "at 'thanked': subject copy after the heads", dims=("name",)),
        Output("thanked_obj_copy", "at 'thanked': object copy after the heads", dims=("name",)),
        Output("thanked_gate_sub", "at 'thanked': subject-group hidden units", dims=("name",)),
        Output("thanked_gate_obj", "at 'thanked': object-group hidden units", dims=("name",)),
        Output("thanked_logits", "at 'thanked': name logits", dims=("name",)),
        Output("thanked_probs", "at 'thanked': softmax over the names", dims=("name",)),
        Output("thanked_p_correct", "at 'thanked': probability of the right name"),
        Output("thanked_visible", "at 'thanked': tokens the position sees", "tokens"),
        Output(
            "then_score_source", "at 'then': score of the asked head at the name's source position"
        ),
        Output("then_score_other_max", "at 'then': largest |score| of the asked head elsewhere"),
        Output(
            "then_w_source", "at 'then': weight of the asked head on the name's source position"
        ),
        Output("then_w_other_max", "at 'then': largest weight of the asked head elsewhere"),
        Output("then_w_other_min", "at 'then': smallest weight of the asked head elsewhere"),
        Output("then_idle_weight_max", "at 'then': largest weight of the other (idle) head"),
        Output("then_idle_weight_min", "at 'then': smallest weight of the idle head"),
        Output("then_sub_copy", "at 'then': subject copy after the heads", dims=("name",)),
        Output("then_obj_copy", "at 'then': object copy after the heads", dims=("name",)),
        Output("then_gate_sub", "at 'then': subject-group hidden units", dims=("name",)),
        Output("then_gate_obj", "at 'then': object-group hidden units", dims=("name",)),
        Output("then_logits", "at 'then': name logits", dims=("name",)),
        Output("then_probs", "at 'then': softmax over the names", dims=("name",)),
        Output("then_p_correct", "at 'then': probability of the right name"),
        Output("then_visible", "at 'then': tokens the position sees", "tokens"),
        Output(
            "stage_bars",
            "first name, second name, other names at each stage",
            dims=("at", "stage", "bar"),
        ),
        Output("p_min_all_pairs", "least probability of the right name, all pairs"),
        Output("all_pairs_correct", "1 if every pair is predicted right at both"),
        Output("pointer_cost", "-ln of head 1's weight on position 0 at 'thanked'", "nats"),
        Output("pointer_cost_closed", "ln(1 + (L+7) e^-beta)", "nats"),
        Output("n_tokens", "tokens in the sentence", "tokens"),
        Output("vocab", "words of the token one-hot"),
        Output("vocab_minus_names", "words of the one-hot minus N"),
        Output("stream_width", "width d of the stream"),
        Output("head_dk", "key size of a head"),
        Output("head_dv", "value size of a head"),
        Output("mlp_hidden", "hidden units of the MLP"),
        Output("c1_projection_gap", "C1 scores as projections minus the hand-set ones"),
        Output("c1_gauge_gap", "the same after W_Q G, W_K G^-T"),
        Output("keys_change_with_content", "key change when the names are replaced"),
        Output("keys_read_content", "1 if the keys change with the token content"),
    ),
    coords={
        "name": coord("name of ToyLang", lambda **_: list(toylang.NAMES)),
        "at": coord("position of the sentence read", AT),
        "stage": coord("stage of the residual block", STAGES),
        "bar": coord("group of names whose share is drawn", BARS),
    },
    sections=(
        "first-principles C3: the C1 keys and query as projections (line 638)",
        "first-principles C4: the hand-built block and its worked example (lines 692-701)",
        "first-principles C5: the pointer's cost at L = 10 and L = 100 (lines 712, 732, 734)",
    ),
)
def toylang_block(N: int, L: int, beta: float, kappa: float, rng) -> dict:
    """The worked example at gap L, the C1 pointer cost, and every pair of names."""
    w = weights(N, beta, kappa)
    lay = layout(N)
    rows = {"thanked": L + 7, "then": L + 5}
    target = {"thanked": PRINTED_X, "then": PRINTED_Y}
    s = printed_sentence(L, N)
    X = embed(s, N)
    out: dict = {}
    bars = []
    for at, row in rows.items():
        r = block_at(X, row, w)
        r["names_at"] = np.where(s[0, : row + 1] < N, s[0, : row + 1], -1)
        head = 0 if at == "thanked" else 1
        a_on, a_off = r["weights"][head][0], r["weights"][1 - head][0]
        src = 0 if at == "thanked" else 2
        others = np.delete(a_on, src)
        s_on = r["scores"][head][0]
        out[f"{at}_score_source"] = float(s_on[src])
        out[f"{at}_score_other_max"] = float(np.max(np.abs(np.delete(s_on, src))))
        out[f"{at}_w_source"] = float(a_on[src])
        out[f"{at}_w_other_max"] = float(others.max())
        out[f"{at}_w_other_min"] = float(others.min())
        out[f"{at}_idle_weight_max"] = float(a_off.max())
        out[f"{at}_idle_weight_min"] = float(a_off.min())
        out[f"{at}_sub_copy"] = r["stream"][0, lay["sub"] : lay["sub"] + N]
        out[f"{at}_obj_copy"] = r["stream"][0, lay["obj"] : lay["obj"] + N]
        out[f"{at}_gate_sub"] = r["hidden"][0, :N]
        out[f"{at}_gate_obj"] = r["hidden"][0, N:]
        out[f"{at}_logits"] = r["logits"][0]
        out[f"{at}_probs"] = r["probs"][0]
        out[f"{at}_p_correct"] = float(r["probs"][0, target[at]])
        out[f"{at}_visible"] = float(row + 1)
        bars.append(stage_bars(r, head, PRINTED_X, PRINTED_Y, N))
    out["stage_bars"] = np.stack(bars)  # (at, stage, bar)
    # every ordered pair of names
    pairs = all_pairs(L, N)
    Xp = embed(pairs, N)
    p_min, all_right = 1.0, True
    for at, row in rows.items():
        probs = block_at(Xp, row, w)["probs"]
        want = pairs[:, 0] if at == "thanked" else pairs[:, 2]
        p_min = min(p_min, float(probs[np.arange(len(pairs)), want].min()))
        all_right &= bool(np.all(probs.argmax(axis=1) == want))
    out["p_min_all_pairs"] = p_min
    out["all_pairs_correct"] = float(all_right)
    out["pointer_cost"] = -math.log(out["thanked_w_source"])
    out["pointer_cost_closed"] = math.log1p((L + 7) * math.exp(-beta))
    out["n_tokens"] = float(s.shape[1])
    out["vocab"] = float(lay["vocab"])
    out["vocab_minus_names"] = float(lay["vocab"] - N)
    out["stream_width"] = float(lay["d"])
    out["head_dk"] = float(w["heads"][0]["WQ"].shape[1])
    out["head_dv"] = float(w["heads"][0]["WV"].shape[1])
    out["mlp_hidden"] = float(w["W1"].shape[1])
    out["c1_projection_gap"], out["c1_gauge_gap"] = c1_as_projections(N, L, rng)
    out["keys_change_with_content"] = keys_read_content(N, L, w)
    out["keys_read_content"] = float(out["keys_change_with_content"] > 0)
    return out


_PER_AT = (
    ("score_source", "score of the asked head at the name's source position", ()),
    ("score_other_max", "largest |score| of the asked head elsewhere", ()),
    ("w_source", "weight of the asked head on the name's source position", ()),
    ("w_other_max", "largest weight of the asked head elsewhere", ()),
    ("w_other_min", "smallest weight of the asked head elsewhere", ()),
    ("idle_weight_max", "largest weight of the other (idle) head", ()),
    ("idle_weight_min", "smallest weight of the idle head", ()),
    ("sub_copy", "subject copy after the heads", ("name",)),
    ("obj_copy", "object copy after the heads", ("name",)),
    ("gate_sub", "subject-group hidden units", ("name",)),
    ("gate_obj", "object-group hidden units", ("name",)),
    ("logits", "name logits", ("name",)),
    ("probs", "softmax over the names", ("name",)),
    ("p_correct", "probability of the right name", ()),
    ("visible", "tokens the position sees", ()),
)
