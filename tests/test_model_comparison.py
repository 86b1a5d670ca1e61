"""Science of first-principles A5: the comparison table and the requirements."""

from __future__ import annotations

import numpy as np

from attnmem.experiments import model_comparison as mc


def label(grades, model):
    row = grades[mc.MODELS.index(model)]
    return mc.GRADES[int(np.argmax(row))]


def test_table_at_L10_and_the_tie():
    out = mc.model_comparison(8, 6, 12, 8, 32, 4, np.random.default_rng(0))
    at10 = dict(zip(mc.MODELS, out["copy_nats"][10], strict=True))
    assert round(at10["bag"], 3) == 7.378 and round(at10["pair_mixture"], 3) == 4.605
    assert round(at10["window_1"], 3) == 4.159 and round(at10["window_2"], 3) == 4.025
    assert at10["window_L+8"] == 0 and abs(at10["hmm_by_hand"]) < 1e-12
    stores = dict(zip(mc.MODELS, out["stores"][10], strict=True))
    assert stores["window_L+8"] == 10_158_317_568 and stores["neural_window"] == 5542
    assert out["tie_L"] == 6 and out["mixture_better_then_worse"] == 1
    grades = [label(out["reach_grade"], m) for m in mc.MODELS[:6]]
    assert grades == ["no", "no", "no", "no", "part", "yes"]


def test_order_grades_and_held_out_name_on_a_small_language():
    out = mc.requirements(4, 2, 2, 20, np.random.default_rng(0))
    grades = [label(out["order_grade"], m) for m in mc.MODELS[:6]]
    assert grades == ["no", "no", "part", "part", "yes", "yes"]
    assert np.all(out["held_out_copy_prob"][:6] == 0)
    assert out["orderings"] == mc.multiset_orderings(np.array([0, 1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9]))


def test_orderings_of_the_a2_sentence():
    # 13 tokens, two names twice each, everything else once: 13!/(2!2!)
    text = np.array([0, 10, 1, 11, 12, 13, 14, 15, 16, 1, 17, 0, 18])
    assert mc.multiset_orderings(text) == 1_556_755_200
