"""The true ToyLang process: closed forms against the enumeration, and the identities of A1."""

from __future__ import annotations

import math

import numpy as np
import pytest

from attnmem.experiments import toylang as tl
from attnmem.experiments import true_process as tp


def test_closed_form_ruler_at_the_printed_settings():
    out = tp.ruler_costs(8, 3, 6)
    assert out["sentence_nats"] == pytest.approx(10.4992, abs=1e-4)
    assert out["n_contexts"] == 36288
    assert out["min_zero_window"] == 11
    assert out["n_copies"] == 2 and out["n_random_positions"] == 6
    ten = tp.ruler_costs(8, 10, 6)
    assert ten["sentence_nats"] == pytest.approx(23.0416, abs=1e-4)
    assert ten["n_contexts"] > 1e10


@pytest.mark.parametrize(("n", "gap", "f"), [(2, 0, 2), (3, 2, 2), (4, 1, 6), (8, 2, 6)])
def test_enumeration_agrees_with_the_closed_form(n, gap, f):
    out = tp.ruler_enumeration(n, gap, f)
    assert out["n_sentences"] == tl.n_sentences(n, f, gap)
    assert out["position_cost_gap"] < 1e-12
    assert out["chain_rule_gap"] < 1e-12
    assert out["uniform_conditionals"] == 1.0
    closed = [tp.final_window_cost(n, gap, w) for w in range(gap + 9)]
    assert np.allclose(out["final_window_cost"], closed, atol=1e-12)


def test_uniformity_check_can_fail():
    s = tl.enumerate_sentences(3, 2, 1)
    skewed = np.vstack([s, s[:1]])  # one sentence twice: no longer uniform after its prefix
    _, uniform = tp.prefix_probabilities(skewed, tl.vocab_size(3, 2))
    assert not np.all(uniform)


def test_identities_and_the_printed_check():
    out = tp.probability_identities(3, 0, np.random.default_rng(0), 500, 3)
    assert out["min_gap"] >= 0 and out["min_bound_slack"] >= 0
    assert np.all(out["chain_gap"] < 1e-12)
    assert out["check_cross_entropy"] == pytest.approx(0.5 * math.log(4) + 0.5 * math.log(4 / 3))
    assert out["check_gap"] == pytest.approx(0.1438, abs=1e-4)


def test_chain_rule_gap_detects_a_wrong_joint():
    joint = np.full((2, 2), 0.25)
    assert tp.chain_rule_gap(joint) < 1e-15
    assert tp.chain_rule_gap(joint * 2) > 0.1  # not normalised: the conditionals no longer match


def test_printed_sentences():
    out = tp.printed_sentences(8, 6)
    assert np.all(out["is_sentence"] == 1)
    # the final name's first occurrence is the giver at position 0, L + 8 tokens back
    assert np.all(out["final_reach"] == out["length"] - 2)
    plain = list(tp.PRINTED).index("line554")  # C2's plain sentence, L = 0 (line 554)
    assert out["length"][plain] == 10 and out["final_reach"][plain] == 8


def test_copy_reaches_are_counted_on_a_sentence():
    for gap in (0, 3, 10):
        assert list(tp.measured_copy_reaches(8, 6, gap)) == [gap + 4, gap + 8]
    out = tp.ruler_enumeration(8, 3, 6)
    assert out["n_free_names"] == 2 and out["n_random_positions"] == 6


def test_copy_positions_found_and_enumerated_costs():
    out = tp.ruler_costs(8, 30, 6)
    assert (out["y_copy_found_at"], out["x_copy_found_at"]) == (36, 38)
    assert out["y_copy_cost_enumerated"] < 1e-12 and out["x_copy_cost_enumerated"] < 1e-12
