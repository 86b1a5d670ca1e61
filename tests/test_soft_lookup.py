"""Science of soft-dictionary: the hand-set lookup, its limits, and order-blindness."""

from __future__ import annotations

import numpy as np

from attnmem.experiments import soft_lookup as sl
from attnmem.experiments.softmax import naive_softmax, softmax


def test_softmax_rows_are_shares_and_survive_huge_scores():
    s = softmax(np.array([[800.0, 0.0, -5.0], [1.0, 1.0, 1.0]]))
    assert np.allclose(s.sum(axis=1), 1)
    assert np.all(np.isfinite(s)) and s[0, 0] == 1.0
    assert np.allclose(s[1], 1 / 3)
    assert np.isnan(naive_softmax(np.array([800.0, 0.0]))).any()


def test_scores_are_dot_products():
    scores, shares, mixed = sl.attention_table(sl.QUERIES, sl.KEYS, sl.VALUES, 1.0)
    assert scores[2, 1] == 1.5 * 1.8
    assert np.allclose(mixed, shares @ sl.VALUES)


def test_order_blind_without_positions_and_not_with_them():
    assert sl.permutation_error(sl.plain) < 1e-12
    assert sl.permutation_error(sl.with_positions(8.0)) > 0.1
    out = sl.position_lookup(8.0, 1.0)
    assert out["looks_back"] == 1.0
    assert np.all(out["previous_share"][1:] > 0.99)


def test_finite_difference_gradient_matches_formula_and_argmax_has_none():
    scores, shares, _ = sl.attention_table(sl.QUERIES, sl.KEYS, sl.VALUES, 1.0)
    fd = sl.finite_difference_self_gradient(scores, 1.0)
    assert np.allclose(fd, shares * (1 - shares), atol=1e-8)
    assert fd.min() > 0
    assert sl.argmax_finite_difference(scores) == 0.0
