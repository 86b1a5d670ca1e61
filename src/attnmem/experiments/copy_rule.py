"""A rule instead of a table: predict the final name by copying the token at offset d back.

first-principles A4 (lines 301-308): with the offsets d = 1..L+8 as hypotheses, one sentence of
ToyLang leaves exactly one of them, d = L+8. Checked on every sentence of small enumerated
languages and on one drawn sentence per gap where the language is too large to list.
"""

from __future__ import annotations

import numpy as np

from ..spec import Output, coord, experiment, integer, ints
from . import toylang as tl


def surviving_offsets(sentences: np.ndarray, gap: int) -> np.ndarray:
    """Boolean (S, L+8): whether offset d = column+1 is consistent with each sentence, i.e. the
    token d places before the final name equals it."""
    final = tl.copy_positions(gap)["X"]
    d = np.arange(1, final + 1)
    return sentences[:, final - d] == sentences[:, final][:, None]


def check_gap(sentences: np.ndarray, gap: int) -> dict:
    """How many offsets survive each sentence, and which one when a single one does."""
    alive = surviving_offsets(sentences, gap)
    n_alive = alive.sum(axis=1)
    single = n_alive == 1
    survivor = np.where(single, alive.argmax(axis=1) + 1, -1)
    all_source = bool(np.all(single) and np.all(survivor == gap + 8))
    return {
        "n_candidates": alive.shape[1],
        "n_survivors_max": int(n_alive.max()),
        "n_survivors_min": int(n_alive.min()),
        "survivor": float(gap + 8) if all_source else float("nan"),
        "all_source": float(all_source),
    }


def _gaps(L_max: int, **_) -> range:
    return range(L_max + 1)


@experiment(
    grid={
        "N": ints(min=2, ranges=False, doc="number of names X, Y can be drawn from in ToyLang"),
        "F": ints(doc="number of filler words in ToyLang's vocabulary"),
    },
    params={
        "L_max": integer(min=0, doc="longest gap", work=True),
        "max_enumerated": integer(min=0, doc="largest language enumerated", memory=True),
    },
    outputs=(
        Output("n_candidates", "offsets the rule could point at (L+8)", dims=("L",)),
        Output("n_survivors_max", "most offsets consistent with one sentence", dims=("L",)),
        Output("n_survivors_min", "fewest offsets consistent with one sentence", dims=("L",)),
        Output(
            "survivor",
            "the offset that alone survives every sentence checked (NaN if none)",
            "tokens",
            ("L",),
        ),
        Output(
            "all_source", "1 if every sentence checked leaves exactly the offset L+8", dims=("L",)
        ),
        Output("n_checked", "sentences checked", dims=("L",)),
        Output("exhaustive", "1 if every sentence of the language was checked", dims=("L",)),
        Output("all_gaps_ok", "1 if the survivor is L+8 at every gap"),
    ),
    coords={
        "L": coord("gap L: filler tokens between the thing and 'then' in a ToyLang sentence", _gaps)
    },
    sections=("first-principles A4: one sentence identifies the copy rule (lines 301-308)",),
)
def copy_rule(N: int, F: int, L_max: int, max_enumerated: int, rng: np.random.Generator) -> dict:
    """For every gap L = 0..L_max: every sentence when the language has at most
    ``max_enumerated`` of them, otherwise one sentence drawn from this point's generator (one
    draw per gap, in order of L, so widening L_max keeps the earlier draws)."""
    keys = ("n_candidates", "n_survivors_max", "n_survivors_min", "survivor", "all_source")
    out = {k: np.empty(L_max + 1) for k in (*keys, "n_checked", "exhaustive")}
    for gap in range(L_max + 1):
        drawn = tl.sample_sentences(rng, N, F, gap, 1)
        exhaustive = tl.n_sentences(N, F, gap) <= max_enumerated
        s = tl.enumerate_sentences(N, F, gap) if exhaustive else drawn
        res = check_gap(s, gap)
        for k in keys:
            out[k][gap] = res[k]
        out["n_checked"][gap] = len(s)
        out["exhaustive"][gap] = float(exhaustive)
    out["all_gaps_ok"] = float(np.all(out["all_source"] == 1.0))
    return out
