"""The ToyLang core: enumeration counts, the true costs, exact conditional entropies of the
copies, and the sentence test."""

from __future__ import annotations

import math

import numpy as np
import pytest

from attnmem.experiments import toylang as tl


@pytest.mark.parametrize(("n", "f", "gap"), [(2, 1, 0), (3, 2, 2), (4, 6, 1), (8, 6, 3)])
def test_enumeration_counts_every_sentence_once(n, f, gap):
    s = tl.enumerate_sentences(n, f, gap)
    assert s.shape == (n * (n - 1) * 3 * f**gap, 10 + gap)
    assert len(np.unique(s, axis=0)) == len(s) == tl.n_sentences(n, f, gap)
    assert tl.sentence_mask(s, n, f).all()


def test_costs_of_the_default_ruler():
    costs = tl.true_position_costs(8, 6, 3)
    assert costs.shape == (13,)
    assert costs[[0, 2, 4]] == pytest.approx([math.log(8), math.log(7), math.log(3)])
    assert costs[5:8] == pytest.approx([math.log(6)] * 3)
    assert np.all(costs[[1, 3, 8, 9, 10, 11, 12]] == 0)
    assert tl.sentence_entropy(8, 6, 3) == pytest.approx(math.log(36288))


def test_copies_cost_nothing_given_the_whole_prefix_but_not_given_a_short_window():
    s = tl.enumerate_sentences(4, 2, 2)
    pos = tl.copy_positions(2)
    assert tl.conditional_entropy(s, pos["Y"], None) == pytest.approx(0, abs=1e-12)
    assert tl.conditional_entropy(s, pos["X"], None) == pytest.approx(0, abs=1e-12)
    # seeing 'thanked' only: any of the 4 names; seeing 'Y thanked': any of the other 3
    assert tl.conditional_entropy(s, pos["X"], 1) == pytest.approx(math.log(4))
    assert tl.conditional_entropy(s, pos["X"], 2) == pytest.approx(math.log(3))
    # the first name is uniform over the names, the second over the others
    assert tl.conditional_entropy(s, 0, None) == pytest.approx(math.log(4))
    assert tl.conditional_entropy(s, 2, None) == pytest.approx(math.log(3))


def test_sentence_test_rejects_a_broken_copy_and_accepts_the_printed_example():
    ok = tl.encode("Ann gave Ben a book and so well then Ben thanked Ann .", 8, 6)
    assert tl.is_sentence(ok, 8, 6)
    bad = ok.copy()
    bad[-2] = ok[2]  # thank the receiver instead of the giver
    assert not tl.is_sentence(bad, 8, 6)
    assert list(tl.sentence_mask(np.stack([ok, bad]), 8, 6)) == [True, False]


def test_sampling_draws_sentences_with_uniform_names():
    rng = np.random.default_rng(1)
    s = tl.sample_sentences(rng, 8, 6, 3, 4000)
    assert tl.sentence_mask(s, 8, 6).all()
    share = np.bincount(s[:, 0], minlength=8) / len(s)
    assert np.abs(share - 1 / 8).max() < 0.03
