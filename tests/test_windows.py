"""Science of first-principles A3: window models on ToyLang, the fitted n-gram table, the size
of the neural window."""

from __future__ import annotations

import math

import numpy as np
import pytest

from attnmem.experiments import ngram
from attnmem.experiments import toylang as tl


@pytest.mark.parametrize("n_names,n_fillers,gap", [(3, 2, 0), (3, 2, 2), (4, 2, 1), (8, 6, 1)])
def test_staircase_closed_form_equals_enumeration(n_names, n_fillers, gap):
    s = tl.enumerate_sentences(n_names, n_fillers, gap)
    pos = tl.copy_positions(gap)
    for r in range(1, gap + 12):
        assert ngram.enumerated_window_cost(s, pos["X"], r) == pytest.approx(
            ngram.staircase_x(n_names, gap, r), abs=1e-12
        )
        assert ngram.enumerated_window_cost(s, pos["Y"], r) == pytest.approx(
            ngram.staircase_y(n_names, gap, r), abs=1e-12
        )


def test_fast_window_cost_matches_the_core_conditional_entropy():
    s = tl.enumerate_sentences(3, 2, 2)
    for position in (4, 8, 10):
        for r in range(1, position + 3):
            assert ngram.enumerated_window_cost(s, position, r) == pytest.approx(
                tl.conditional_entropy(s, position, r), abs=1e-12
            )


@pytest.mark.parametrize("n_names,n_fillers,gap", [(3, 2, 0), (3, 2, 3), (8, 6, 1), (4, 2, 5)])
def test_incremental_window_costs_equal_the_window_by_window_costs_exactly(n_names, n_fillers, gap):
    """The fast sweep over r (windows grown one token at a time) gives the same numbers bit for
    bit as enumerated_window_cost, including r past the start of the sentence and r_max short
    of it; and it can tell two different positions apart."""
    s = tl.enumerate_sentences(n_names, n_fillers, gap)
    pos = tl.copy_positions(gap)
    for position in (pos["X"], pos["Y"], 3):
        for r_max in (2, position + 1, position + 6):
            fast = ngram.enumerated_window_costs(s, position, r_max)
            slow = [ngram.enumerated_window_cost(s, position, r) for r in range(1, len(fast) + 1)]
            assert len(fast) == min(r_max, position + 1)
            assert np.array_equal(fast, np.array(slow))
    assert not np.array_equal(
        ngram.enumerated_window_costs(s, pos["X"], 3), ngram.enumerated_window_costs(s, 3, 3)
    )


def test_pooled_table_at_the_copies_is_the_positional_law():
    """The fitted table pools every position; before the copies it equals the conditional law."""
    n_names, n_fillers, gap = 3, 2, 2
    s = tl.enumerate_sentences(n_names, n_fillers, gap)
    pos = tl.copy_positions(gap)
    for r in (0, 1, 2, 5, gap + 8):
        probs = ngram.window_probs(ngram.fit_window(s, r), s)
        for who, where in (("X", pos["X"]), ("Y", pos["Y"])):
            pooled = -np.mean(np.log(probs[:, where]))
            if r == 0:
                expected = ngram.bag_copy_cost(n_names, gap)
            else:
                expected = (ngram.staircase_x if who == "X" else ngram.staircase_y)(n_names, gap, r)
            assert pooled == pytest.approx(expected, abs=1e-12)


def test_window_probs_are_relative_frequencies_and_nan_when_unseen():
    corpus = np.array([[0, 1, 0, 1, 1]])
    model = ngram.fit_window(corpus, 1)
    p = ngram.window_probs(model, np.array([[0, 1, 1, 2]]))
    # window (start) -> 0 once; 0 -> 1 twice of 2; 1 -> 1 once of 2 (1 is followed by 0 and 1);
    assert p[0, 0] == 1.0 and p[0, 1] == 1.0 and p[0, 2] == 0.5
    assert p[0, 3] == 0.0  # 1 never followed by 2
    assert np.isnan(ngram.window_probs(model, np.array([[2, 0]]))[0, 1])  # window 2 unseen


def test_table_sizes_and_coupon_collector():
    assert ngram.contexts_to_zero(8, 6, 3) == 36_288
    assert ngram.contexts_to_zero(8, 6, 10) == 10_158_317_568
    assert ngram.contexts_to_zero(8, 6, 11) == 6 * ngram.contexts_to_zero(8, 6, 10)
    # R H_R for small R against the harmonic sum
    assert ngram.coupon_collector(5) == pytest.approx(5 * sum(1 / k for k in range(1, 6)))
    big = ngram.coupon_collector(10_158_317_568)
    assert 2.35e11 < big < 2.45e11
    assert 10_158_317_568 * math.log(10_158_317_568) < 2.35e11


def test_staircase_experiment_at_the_default_ruler():
    out = ngram.window_staircase(8, 6, 3, 20, 40_000)
    assert out["enumerated"] == 1.0 and out["closed_form_gap"] < 1e-12
    assert out["zero_window_X"] == out["zero_window_X_enumerated"] == 11
    assert out["zero_window_Y"] == out["zero_window_Y_enumerated"] == 7
    assert out["window_rows"][1] == 22 and out["window_rows"][2] == 484
    assert out["contexts_enumerated"] == 36_288


def test_neural_window_size_is_linear_in_r():
    assert ngram.neural_window_params(22, 8, 32, 18) == 5542
    out = ngram.neural_window(22, 8, 32, 5)
    assert out["increment_per_r"] == 8 * 32 and out["second_difference"] == 0


def test_relative_frequencies_beat_other_tables():
    out = ngram.ngram_mle(2, 3, 40, 500, np.random.default_rng(1))
    assert out["mle_gap_min"] > 0 and out["mle_rows_sum"] < 1e-12
