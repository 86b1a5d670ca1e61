"""Unit tests of the unified-view science (first-principles E5, memory-math ch12-16, appendix E)."""

import math

import numpy as np
import pytest

from attnmem.experiments import unified_view as uv


def test_certified_beta_matches_bound_threshold():
    from attnmem.experiments import toylang_machine as tm

    for n in (44, 100, 1000):  # E5 reads n = 1000 through the E2 program's bound
        beta = tm.smallest_certified_beta(n)
        bound = tm.sharpness_bound(n, beta)
        assert bound["eps"] <= 0.25 and bound["Delta"] == pytest.approx(1.0, abs=1e-9)
        assert tm.sharpness_bound(n, beta - 0.01)["Delta"] > 1
    assert tm.smallest_certified_beta(100) == pytest.approx(7.0800, abs=1e-3)


def test_exercise_three_steps_and_closed_form():
    out = uv.exercise_three(0.3, 3)
    np.testing.assert_allclose(out["ex3_prediction"], [0.8, 1.12, 1.248], atol=1e-12)
    np.testing.assert_allclose(out["ex3_closed_form"], out["ex3_prediction"], atol=1e-12)
    np.testing.assert_allclose(out["ex3_residuals_after_one"], [0.2, 0.4, 2.2], atol=1e-12)
    assert out["ex3_least_squares"] == pytest.approx(4 / 3)


def test_induction_split_and_circuit():
    split = uv.induction_split(10.0, 63)
    assert split["ex4_two_way"] == pytest.approx(math.exp(5) / (2 * math.exp(5) + 61))
    assert split["ex4_two_way_rest"] == pytest.approx(1 - 2 * split["ex4_two_way"])
    bare = uv.induction_read(uv.EX4_BARE, 12.0, 10.0, 63)
    assert bare[0] > bare[1] > bare[2]  # Ann (exact self match) > gave > pen
    np.testing.assert_allclose(bare, split["ex4_three_way"], atol=1e-4)
    stop = uv.induction_read(uv.EX4_STOP, 12.0, 10.0, 63)
    assert stop[0] < 0.01  # with the full stop Ann is no longer a candidate
    # In the hard limit the circuit is exactly the closed-form split.
    hard = uv.induction_read(uv.EX4_STOP, 60.0, 10.0, 63)
    np.testing.assert_allclose(hard[1:], split["ex4_two_way"], atol=1e-9)


def test_rank_one_edit_hits_target_and_moves_as_predicted():
    out = uv.rank_one_edit(np.random.default_rng(3), 6, 5, 100, 3.0, 200)
    assert out["edit_new_value_gap"] < 1e-10
    assert out["edit_rank"] == 1
    assert out["edit_moved_gap"] < 1e-10
    assert out["edit_mean_sq_gap"] < 1e-10
    assert out["edit_min_excess"] >= 0
    assert out["edit_naive_over_preconditioned"] >= 1


def test_dpfp_dimension_and_compression():
    x = np.random.default_rng(0).standard_normal((3, 5))
    assert uv.dpfp(x, 3).shape == (3, 2 * 5 * 3)
    out = uv.feature_map_state(np.random.default_rng(1), 5, 2, 9, 2)
    assert out["dpfp_dim"] == 20 and out["dpfp_state_numbers"] == 2 * 20 + 20
    assert out["dpfp_state_gap"] < 1e-12


def test_identities_are_exact_and_nontrivial_checks_fail_when_they_should():
    rng = np.random.default_rng(2)
    gl = uv.glossary_checks(rng, 6, 20)
    assert gl["gl_softmax_entrywise"] == 0
    assert gl["gl_whiten_cross_gap"] < 1e-10 and gl["gl_whiten_self_offdiag"] > 1e-3
    assert gl["gl_rank_of_three_outer"] == 3
    k = uv.kernel_gaps(np.random.default_rng(4), 6, 20, 4, 4.0)
    assert k["nw_softmax_gap"] < 1e-12 and k["nw_distance_kernel_gap"] < 1e-12
    assert uv.decay_gap(np.random.default_rng(5), 4, 3, 10, 0.8) < 1e-12


def test_state_costs_and_layer_sizes():
    costs = uv.state_costs(64, 4096, 4096, 32)
    assert costs["state_flops_total"] == 67_108_864 and costs["state_madds_total"] == 33_554_432
    assert costs["cache_crossing_over_d"] == 6
    contexts = [2**p for p in range(17)]
    sizes = uv.layer_state_numbers(64, contexts)
    assert sizes.shape == (7, len(contexts))
    i = uv.SEVEN_LAYERS.index("softmax attention")
    assert sizes[i, contexts.index(4096)] == 2 * 64 * 4096
