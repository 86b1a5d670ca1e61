"""Bits stored by small MLPs trained on random facts: counts, determinism, a real gain."""

from __future__ import annotations

import math

import numpy as np
import pytest

from attnmem.experiments import memorisation as mem

TINY = dict(widths=[2, 6], d_in=8, vocab=8, data_bits_per_param=4, steps=200, lr=0.02)


def test_parameter_and_fact_counts():
    assert mem.mlp_params(32, 2, 32) == 162
    assert mem.fact_count(162, 32, 8) == math.ceil(8 * 162 / 5)


def test_bits_stored_is_capped_both_ways():
    assert mem.bits_stored(0.0, 10, 4) == 20.0
    assert mem.bits_stored(1e9, 10, 4) == 0.0
    assert mem.bits_stored(10 * math.log(4), 10, 4) == pytest.approx(0.0)


def test_training_is_deterministic_and_stores_bits():
    a = mem.fact_capacity(seed=0, rng=np.random.default_rng(0), **TINY)
    b = mem.fact_capacity(seed=0, rng=np.random.default_rng(0), **TINY)
    for key in a:
        assert np.array_equal(a[key], b[key])
    # An untrained model stores nothing; a working loop stores a good share of a bit per param,
    # more with more parameters, and never more than the facts hold.
    assert np.all(a["bits_per_param"] > 0.5)
    assert a["bits"][1] > a["bits"][0]
    assert np.all(a["stored_fraction"] < 1.0)
    assert np.all(a["accuracy"] > 1 / 8)


# ----------------------------------------------------------------------------- sequences

SEQ = dict(
    d_models=[2, 8],
    layers=1,
    heads=1,
    mlp_ratio=2,
    vocab=8,
    length=6,
    data_bits_per_param=4,
    steps=150,
    lr=0.05,
)


def test_sequence_count_holds_the_bits():
    # 5 predicted tokens of 3 bits each per sequence: 15 bits a sequence
    assert mem.sequence_count(100, 8, 6, 4) == math.ceil(400 / 15)
    n = mem.sequence_count(777, 16, 8, 4)
    assert (n - 1) * 7 * 4 < 4 * 777 <= n * 7 * 4


def test_bits_stored_counts_the_tokens_it_is_given():
    # a uniform predictor leaves every bit unstored; a perfect one stores them all
    assert mem.bits_stored(35 * math.log(16), 35, 16) == pytest.approx(0.0)
    assert mem.bits_stored(0.0, 35, 16) == 140.0
    # half a bit of cross-entropy left per token of 4 bits: 3.5 bits stored per token
    assert mem.bits_stored(35 * 0.5 * math.log(2), 35, 16) == pytest.approx(35 * 3.5)


def _sequences(seed=0, n=40, length=6, vocab=8):
    return np.random.default_rng(seed).integers(vocab, size=(n, length))


def test_sequence_training_lowers_the_loss_and_stores_what_the_code_length_saves():
    from attnmem.experiments import _transformer as tf
    from attnmem.experiments._torch import seeded_torch

    torch = seeded_torch(np.random.default_rng(1))
    seqs = _sequences()
    model = tf.build(torch, 8, 5, 8, 1, 1, 16)
    out = mem.memorise_sequences(torch, model, seqs, 200, 0.05)
    assert out["losses"][-20:].mean() < 0.8 * out["losses"][:20].mean()
    assert out["losses"][-1] < 0.9 * math.log(8)  # below the uniform code: it memorised
    # A second route to the bits stored: the uniform code of the predicted tokens (3 bits
    # each, the first token of a sequence never predicted) minus the trained model's code
    # length, -log2 p(token), summed over them.
    with torch.no_grad():
        logits = tf.forward(torch, model, torch.from_numpy(seqs[:, :-1])).double()
        p = torch.softmax(logits, -1).gather(-1, torch.from_numpy(seqs[:, 1:, None]))
    saved = float((3.0 + torch.log2(p)).sum())
    assert 0 < saved < seqs[:, 1:].size * 3
    assert out["bits"] == pytest.approx(saved, rel=1e-5)


def test_sequence_capacity_is_deterministic_and_bounded():
    a = mem.sequence_capacity(seed=0, rng=np.random.default_rng(0), **SEQ)
    b = mem.sequence_capacity(seed=0, rng=np.random.default_rng(0), **SEQ)
    for key in a:
        assert np.array_equal(a[key], b[key])
    assert np.all((a["stored_fraction"] > 0) & (a["stored_fraction"] < 1))
    assert np.all(a["accuracy"] > 1 / 8)  # better than guessing
    data_bits = a["n_sequences"] * 5 * 3  # 5 predicted tokens of 3 bits per sequence
    assert np.all(data_bits >= SEQ["data_bits_per_param"] * a["n_params"])
    assert np.allclose(a["bits"], a["stored_fraction"] * data_bits)  # the same tokens counted
    # a model with four times the width stores more
    assert a["bits"][1] > 1.5 * a["bits"][0]
