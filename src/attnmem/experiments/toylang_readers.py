"""ToyLang readers that write a fixed-size state token by token, against a cache that keeps every
pair (first-principles D3, lines 904-906, and D4's gated write, lines 1011-1012).

The program is the note's fixed rule: every token is written under a fresh random unit key that
stands for its position, with the word's embedding (a random unit vector, one table per run) as
the value; after 'thanked' the readers are asked for the key of position 0 and name the first word
by the largest cosine among the N name embeddings. Four stores read the pairs written so far: the
Hebbian sum, the one-pass delta rule (strength 1), the least-squares map and a softmax cache. The
gate writes only the names and the thing (strength 1) and skips the other words (strength 0).
"""

from __future__ import annotations

import numpy as np

from ..spec import Output, coord, experiment, integer, real, seeds
from . import toylang
from .fast_weights import (
    delta_read,
    least_squares_read,
    outer_sum,
    read,
    softmax_cache_read,
    unit_vectors,
)

READERS = ("hebbian", "delta", "least_squares", "softmax")
GATES = ("every_word", "gated")


def content_gate(sentences: np.ndarray, n_names: int) -> np.ndarray:
    """1 on the names and the thing, 0 on the template words and the fillers (read off the
    token ids, i.e. off the template)."""
    thing0 = toylang.token_ids(n_names)["thing0"]
    is_thing = (sentences >= thing0) & (sentences < thing0 + len(toylang.THINGS))
    return ((sentences < n_names) | is_thing).astype(float)


def first_name_answers(K, V, gates, beta: float) -> np.ndarray:
    """Each reader's answer to the query k_0 after the stream (K, V), for each pattern of write
    strengths in ``gates`` (pattern, sentence, position): shape (pattern, reader, sentence, d).
    The delta rule's read, a loop over the positions, runs every pattern at once."""
    q = K[:, 0]
    deltas = delta_read(K, V, q, gate=gates)
    answers = []
    for gate, delta in zip(gates, deltas, strict=True):
        hebb = read(outer_sum(K, V, gate), q)
        ls = written_least_squares_read(K, V, q, gate > 0)
        soft = softmax_cache_read(K, V, q, beta, mask=gate)
        answers.append(np.stack([hebb, delta, ls, soft]))
    return np.stack(answers)


def written_least_squares_read(K, V, q, kept) -> np.ndarray:
    """The least-squares read at q of each stream's written pairs (``kept`` true), the streams
    grouped by how many pairs they wrote; a stream that wrote every pair is read as it is."""
    counts = kept.sum(-1)
    out = np.empty((*q.shape[:-1], V.shape[-1]))
    for n in np.unique(counts):
        rows = np.flatnonzero(counts == n)
        if n == kept.shape[-1]:
            Kw, Vw = (K, V) if len(rows) == len(counts) else (K[rows], V[rows])
        else:
            pos = np.nonzero(kept[rows])[1].reshape(len(rows), n)
            Kw, Vw = K[rows[:, None], pos], V[rows[:, None], pos]
        out[rows] = least_squares_read(Kw, Vw, q[rows])
    return out


@experiment(
    grid={"seed": seeds()},
    params={
        "N": integer(min=2),
        "F": integer(min=1),
        "d": integer(min=1),
        "sentences": integer(min=1, memory=True),
        "L_max": integer(min=0),
        "L_step": integer(min=1),
        "beta": real(gt=0),
    },
    outputs=(
        Output(
            "accuracy",
            "share of sentences whose first word the reader names",
            dims=("gate", "reader", "L"),
        ),
        Output(
            "wrong_share",
            "share of sentences whose first word the reader gets wrong",
            dims=("gate", "reader", "L"),
        ),
        Output("accuracy_min", "lowest share over the gaps", dims=("gate", "reader")),
        Output("accuracy_max", "highest share over the gaps", dims=("gate", "reader")),
        Output(
            "accuracy_change", "share at the largest gap minus at L = 0", dims=("gate", "reader")
        ),
        Output(
            "delta_minus_hebbian", "delta rule's share minus the Hebbian share", dims=("gate", "L")
        ),
        Output("pairs_written", "pairs written per sentence (mean)", "pairs", ("gate", "L")),
        Output("state_numbers", "numbers the state holds", "numbers"),
        Output("cache_numbers", "numbers the cache holds when asked", "numbers", ("L",)),
        Output("chance", "share named by guessing a name"),
    ),
    coords={
        "gate": coord("which words the reader writes: every word, or gated", list(GATES)),
        "reader": coord("write rule of the reader", list(READERS)),
        "L": coord(
            "gap L: filler tokens between the thing and 'then' in a ToyLang sentence",
            lambda **p: list(range(0, p["L_max"] + 1, p["L_step"])),
        ),
    },
    sections=("first-principles D3 (lines 904-906) and D4's gated write (lines 1011-1012)",),
)
def toylang_readers(
    seed: int,
    N: int,
    F: int,
    d: int,
    sentences: int,
    L_max: int,
    L_step: int,
    beta: float,
    rng,
) -> dict:
    """Share of ``sentences`` random sentences at each gap L = 0, L_step, .., L_max in which each
    reader names the first word, with every word written and with the gate; one embedding table
    per seed (the note's run), fresh keys per sentence."""
    del seed
    vocab = toylang.vocab_size(N, F)
    E = unit_vectors(rng, vocab, d)
    names = E[:N]
    gaps = list(range(0, L_max + 1, L_step))
    acc = np.empty((len(GATES), len(READERS), len(gaps)))
    writes = np.empty((len(GATES), len(gaps)))
    for j, gap in enumerate(gaps):
        s = toylang.sample_sentences(rng, N, F, gap, sentences)
        prompt = s[:, : toylang.copy_positions(gap)["X"]]  # every token before the copied X
        K = unit_vectors(rng, sentences, prompt.shape[1], d)
        V = E[prompt]
        gates = np.stack([np.ones(prompt.shape), content_gate(prompt, N)])
        answered = first_name_answers(K, V, gates, beta)
        for g, (gate, answers) in enumerate(zip(gates, answered, strict=True)):
            named = np.argmax(np.einsum("rsd,nd->rsn", answers, names), axis=-1)
            acc[g, :, j] = (named == s[:, 0]).mean(axis=-1)
            writes[g, j] = gate.sum(1).mean()
    return {
        "accuracy": acc,
        "wrong_share": 1.0 - acc,
        "accuracy_min": acc.min(axis=-1),
        "accuracy_max": acc.max(axis=-1),
        "accuracy_change": acc[..., -1] - acc[..., 0],
        "delta_minus_hebbian": acc[:, 1] - acc[:, 0],
        "pairs_written": writes,
        "state_numbers": float(d * d),
        "cache_numbers": 2.0 * d * (np.array(gaps) + 8),
        "chance": 1.0 / N,
    }
