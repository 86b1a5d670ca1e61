"""Science of in-context regression as gradient steps and of the hand-set induction circuit."""

from __future__ import annotations

import numpy as np
import pytest

from attnmem.experiments import in_context_regression as icr
from attnmem.experiments import induction_circuit as ic


def test_check_line_matches_the_hand_computation():
    out = icr.check_line(0.3)
    assert out["check_sigma"] == pytest.approx(2.0)
    assert out["check_g"] == pytest.approx(8 / 3)
    assert np.allclose(out["check_theta"], [0.0, 0.8, 1.12])
    assert out["check_theta_gap"] < 1e-14


def test_exercise_five_and_its_tuned_step():
    out = icr.exercise_five(0.1, 1.0)
    assert out["ex5_one_layer"] == pytest.approx(0.8)
    assert out["ex5_least_squares"] == pytest.approx(4 / 3)
    assert out["ex5_tuned_gap"] < 1e-14
    # A different step gives a different answer: the check can fail.
    assert icr.exercise_five(0.2, 1.0)["ex5_one_layer"] == pytest.approx(1.6)


def test_stack_follows_gradient_descent_and_query_as_key_breaks_it():
    rng = np.random.default_rng(3)
    x, y, xq = rng.standard_normal((6, 3)), rng.standard_normal((6, 1)), rng.standard_normal(3)
    z = icr.tokens(x, y, xq)
    stack = icr.run_stack(z, 4, 0.1 / 6, d=3)
    theta = icr.gd_weights(x, y, 4, 0.1 / 6)
    assert np.allclose(-stack[:, -1, 3], theta[:, 0] @ xq, atol=1e-13)
    assert np.allclose(icr.closed_form(x, y, 4, 0.1), theta, atol=1e-13)
    leaky = icr.run_stack(z, 4, 0.1 / 6, d=3, query_is_key=True)
    assert np.allclose(leaky[1], stack[1])
    assert np.abs(leaky[2] - stack[2]).max() > 1e-6


def test_a_wrong_value_matrix_does_not_follow_descent():
    rng = np.random.default_rng(4)
    x, y, xq = rng.standard_normal((5, 2)), rng.standard_normal((5, 1)), rng.standard_normal(2)
    z = icr.tokens(x, y, xq)
    w_k, w_q, w_v = icr.construction(2)
    wrong = icr.attention_layer(z, w_k, w_q, -w_v, 0.2)
    theta = icr.gd_weights(x, y, 1, 0.2)
    assert not np.allclose(-wrong[-1, 2], theta[1, 0] @ xq)


def test_figure_readings_fit_one_data_set_only_in_one_pairing():
    out = icr.figure_consistency()
    assert out["fig_worst_miss"][0] < 1.0 < out["fig_worst_miss"][1]
    assert out["fig_pairing_a_only"] == 1.0


def test_induction_copies_after_the_earlier_occurrence():
    seq = np.array([[ic.INDEX[w] for w in ic.SENTENCE]])
    x1, _, _, a2, probs = ic.run(seq, 12.0)
    assert ic.VOCAB[int(x1[0, 3, ic.PREV].argmax())] == "gave"
    targets = ic.induction_targets(seq, ic.SECOND_COPY)[0]
    assert list(targets) == [2, 3, 4, 5, 6]
    assert np.all(a2[0, list(ic.SECOND_COPY), targets] > 0.999)
    assert probs[0, 6, ic.INDEX["gave"]] == pytest.approx(np.exp(10) / (np.exp(10) + 62), 1e-4)


def test_linear_induction_is_exact_and_the_full_stop_matters():
    rng = np.random.default_rng(0)
    seqs = ic.random_repeats(rng, 5, 10)
    _, x2, _, _, _ = ic.run(seqs, 1.0, linear=True)
    pos = np.arange(11, 21)
    ans = np.take_along_axis(seqs, ic.induction_targets(seqs, pos), axis=1)
    assert np.array_equal(x2[:, pos][..., ic.OUT].argmax(-1), ans)
    assert np.allclose(x2[:, pos][..., ic.OUT].sum(-1), 1.0)
    bare = np.array([[ic.INDEX[w] for w in ic.SENTENCE[1:]]])
    _, _, _, a2, _ = ic.run(bare, 12.0)
    assert a2[0, 5, 0] == pytest.approx(0.5, abs=1e-3)


def test_low_sharpness_loses_the_copy():
    out = ic.induction_circuit(1.0, np.random.default_rng(0), 10.0, 5, 10)
    assert out["answer_is_argmax"] == 0.0
    assert out["random_accuracy"] < 0.5
