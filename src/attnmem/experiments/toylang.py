"""ToyLang, the ruler language of first-principles (lines 6-15 and A1, lines 96-103).

A sentence is ``X gave Y a T f_1 .. f_L then Y thanked X .`` with X != Y two of N names, T one of
3 things and each filler one of F words. Sentences are integer arrays of token ids, so whole
languages can be enumerated and sampled with numpy. Token ids: names 0..N-1, then the five
template words, the three things and the F fillers (``vocab_size`` = N + 8 + F, 22 at N=8, F=6).

Positions: 0 X, 1 gave, 2 Y, 3 a, 4 T, 5..4+L fillers, 5+L then, 6+L Y, 7+L thanked, 8+L X,
9+L full stop; a sentence has 10 + L tokens.
"""

from __future__ import annotations

import math

import numpy as np

from ..spec import require

THINGS = ("book", "pen", "cup")
TEMPLATE = ("gave", "a", "then", "thanked", ".")
FILLERS = ("and", "so", "well", "now", "yes", "ok")  # the six filler words of the note
NAMES = ("Ann", "Ben", "Cy", "Di", "Eve", "Flo", "Gus", "Hal")  # display only


# The rule every experiment that enumerates ToyLang over a grid of N, F and L declares: its
# largest language (N (N-1) 3 F^L sentences, n_sentences) is enumerated in memory.
ENUMERATION_RULE = require(
    "max(N) * (max(N) - 1) * 3 * max(F) ** max(L) <= 10**7",
    "the enumerated language (N (N-1) 3 F^L sentences at the largest grid values) "
    "must hold at most 10^7 sentences",
    "L",
    "N",
    "F",
)


def vocab_size(n_names: int, n_fillers: int) -> int:
    return n_names + len(TEMPLATE) + len(THINGS) + n_fillers


def token_ids(n_names: int) -> dict[str, int]:
    """Ids of the template words and of the first thing and filler."""
    base = {w: n_names + i for i, w in enumerate(TEMPLATE)}
    base["thing0"] = n_names + len(TEMPLATE)
    base["filler0"] = n_names + len(TEMPLATE) + len(THINGS)
    return base


def vocabulary(n_names: int, n_fillers: int) -> list[str]:
    """Token labels by id (generic names beyond the eight of the note)."""
    names = [NAMES[i] if i < len(NAMES) else f"name{i}" for i in range(n_names)]
    fillers = [FILLERS[i] if i < len(FILLERS) else f"filler{i}" for i in range(n_fillers)]
    return names + list(TEMPLATE) + list(THINGS) + fillers


def length(gap: int) -> int:
    return 10 + gap


def copy_positions(gap: int) -> dict[str, int]:
    """Positions of the two copies and of their sources."""
    return {"Y": gap + 6, "Y_source": 2, "X": gap + 8, "X_source": 0}


def assemble(x, y, t, fillers, n_names: int) -> np.ndarray:
    """Sentences from arrays of choices: x, y, t of shape (S,), fillers of shape (S, L)."""
    ids = token_ids(n_names)
    x, y, t = (np.asarray(a, dtype=np.int64) for a in (x, y, t))
    fillers = np.asarray(fillers, dtype=np.int64).reshape(len(x), -1)
    gap = fillers.shape[1]
    out = np.empty((len(x), length(gap)), dtype=np.int64)
    out[:, 0], out[:, 1], out[:, 2], out[:, 3] = x, ids["gave"], y, ids["a"]
    out[:, 4] = ids["thing0"] + t
    out[:, 5 : 5 + gap] = ids["filler0"] + fillers
    out[:, 5 + gap], out[:, 6 + gap], out[:, 7 + gap] = ids["then"], y, ids["thanked"]
    out[:, 8 + gap], out[:, 9 + gap] = x, ids["."]
    return out


def n_sentences(n_names: int, n_fillers: int, gap: int) -> int:
    return n_names * (n_names - 1) * len(THINGS) * n_fillers**gap


def enumerate_sentences(n_names: int, n_fillers: int, gap: int) -> np.ndarray:
    """Every sentence of the language, once each (all are equally likely)."""
    pairs = np.array([(x, y) for x in range(n_names) for y in range(n_names) if x != y])
    grids = np.indices((len(pairs), len(THINGS)) + (n_fillers,) * gap).reshape(2 + gap, -1)
    pair, t, fillers = grids[0], grids[1], grids[2:].T
    return assemble(pairs[pair, 0], pairs[pair, 1], t, fillers, n_names)


def sample_sentences(rng: np.random.Generator, n_names, n_fillers, gap, size) -> np.ndarray:
    """Sentences drawn from the generator: X uniform, Y uniform among the others, T and fillers
    uniform."""
    x = rng.integers(n_names, size=size)
    y = (x + 1 + rng.integers(n_names - 1, size=size)) % n_names
    t = rng.integers(len(THINGS), size=size)
    fillers = rng.integers(n_fillers, size=(size, gap))
    return assemble(x, y, t, fillers, n_names)


def true_position_costs(n_names: int, n_fillers: int, gap: int) -> np.ndarray:
    """What the true process pays at each position, in nats: the log of the number of choices
    left there (ln N, 0, ln(N-1), 0, ln 3, ln F for each filler, then five zeros)."""
    costs = np.zeros(length(gap))
    costs[0], costs[2], costs[4] = math.log(n_names), math.log(n_names - 1), math.log(3)
    costs[5 : 5 + gap] = math.log(n_fillers)
    return costs


def sentence_entropy(n_names: int, n_fillers: int, gap: int) -> float:
    """ln N + ln(N-1) + ln 3 + L ln F nats: the cost of a sentence under the true process."""
    return float(true_position_costs(n_names, n_fillers, gap).sum())


def conditional_entropy(sentences: np.ndarray, position: int, window: int | None) -> float:
    """Entropy (nats) of the token at ``position`` given the ``window`` tokens before it, when the
    sentences are equally likely. ``window=None`` conditions on the whole prefix. A window that
    reaches before the start sees start markers (-1). Exact: computed from the enumeration."""
    s = np.asarray(sentences)
    start = 0 if window is None else position - window
    pad = max(0, -start)
    ctx = s[:, max(start, 0) : position]
    if pad:
        ctx = np.hstack([np.full((len(s), pad), -1, dtype=s.dtype), ctx])
    joint = np.hstack([ctx, s[:, position : position + 1]])
    h_joint = _entropy_of_rows(joint)
    h_ctx = _entropy_of_rows(ctx) if ctx.shape[1] else 0.0
    return h_joint - h_ctx


def _entropy_of_rows(rows: np.ndarray) -> float:
    """Entropy (nats) of the empirical law of the distinct rows of a 2-d integer array; rows
    are viewed as single byte strings so that np.unique sorts them fast."""
    rows = np.ascontiguousarray(rows, dtype=np.int64)
    keys = rows.view(np.dtype((np.void, rows.dtype.itemsize * rows.shape[1]))).ravel()
    _, counts = np.unique(keys, return_counts=True)
    q = counts / len(rows)
    return float(-np.sum(q * np.log(q)))


def is_sentence(tokens: np.ndarray, n_names: int, n_fillers: int) -> bool:
    """Whether a token sequence is a sentence of the language."""
    t = np.asarray(tokens)
    gap = len(t) - 10
    if gap < 0:
        return False
    ids = token_ids(n_names)
    x, y = int(t[0]), int(t[2])
    fillers = t[5 : 5 + gap] - ids["filler0"]
    return bool(
        0 <= x < n_names
        and 0 <= y < n_names
        and x != y
        and t[1] == ids["gave"]
        and t[3] == ids["a"]
        and 0 <= t[4] - ids["thing0"] < len(THINGS)
        and np.all((fillers >= 0) & (fillers < n_fillers))
        and t[5 + gap] == ids["then"]
        and t[6 + gap] == y
        and t[7 + gap] == ids["thanked"]
        and t[8 + gap] == x
        and t[9 + gap] == ids["."]
    )


def sentence_mask(tokens: np.ndarray, n_names: int, n_fillers: int) -> np.ndarray:
    """``is_sentence`` for every row of a (S, 10+L) array at once (True where a row is a
    sentence of the language)."""
    t = np.asarray(tokens)
    gap = t.shape[1] - 10
    if gap < 0:
        return np.zeros(len(t), dtype=bool)
    ids = token_ids(n_names)
    x, y = t[:, 0], t[:, 2]
    fillers = t[:, 5 : 5 + gap] - ids["filler0"]
    thing = t[:, 4] - ids["thing0"]
    return (
        (x >= 0)
        & (x < n_names)
        & (y >= 0)
        & (y < n_names)
        & (x != y)
        & (t[:, 1] == ids["gave"])
        & (t[:, 3] == ids["a"])
        & (thing >= 0)
        & (thing < len(THINGS))
        & np.all((fillers >= 0) & (fillers < n_fillers), axis=1)
        & (t[:, 5 + gap] == ids["then"])
        & (t[:, 6 + gap] == y)
        & (t[:, 7 + gap] == ids["thanked"])
        & (t[:, 8 + gap] == x)
        & (t[:, 9 + gap] == ids["."])
    )


def encode(words: str, n_names: int, n_fillers: int) -> np.ndarray:
    """Token ids of a whitespace-separated text written in ToyLang's words (for the sentences
    the notes print)."""
    index = {w: i for i, w in enumerate(vocabulary(n_names, n_fillers))}
    return np.array([index[w] for w in words.split()], dtype=np.int64)
