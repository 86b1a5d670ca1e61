"""Science of first-principles C1 and C2: the soft dictionary on a circle, the latent pointer,
softmax as maximum entropy, the pointer's gradient, and equivariance of random models."""

from __future__ import annotations

import math

import numpy as np

from attnmem.experiments import latent_pointer as lp
from attnmem.experiments import set_functions as sf

# circle_lookup's sweep settings, as in config/config.yaml
CIRCLE = {"angle_step": 2, "rank_arrows": [8, 32, 128], "taylor_max_order": 7}


def test_weight_ratio_of_two_keys_depends_only_on_their_angles():
    out = lp.circle_lookup(8, **CIRCLE)
    assert math.isclose(
        out["circle_best_over_20"],
        math.exp(8 * (math.cos(math.radians(25)) - math.cos(math.radians(40)))),
        rel_tol=1e-12,
    )
    assert out["circle_best_angle"] == 85 and out["circle_hard_answer"] == -0.5


def test_ranks_of_scores_and_weights():
    assert lp.circle_lookup(0, **CIRCLE)["rank_weight"] == 1
    out = lp.circle_lookup(3, **CIRCLE)
    assert out["rank_score"] == 2 and out["rank_weight"] == 8
    assert list(out["rank_taylor"][:5]) == [1, 3, 5, 7, 8]
    assert (
        np.all(out["matrix_causal_weight"][0, 1:] == 0) and out["matrix_causal_weight"][0, 0] == 1
    )


def test_pointer_matches_its_closed_form_and_the_printed_values():
    out = lp.latent_pointer(10, 6.0, np.random.default_rng(0), 0.01, 8)
    assert out["n_items"] == 18 and out["tokens_back"] == 18
    assert abs(out["source_weight"] - 1 / (1 + 17 * math.exp(-6))) < 1e-14
    assert round(out["cost_final"], 3) == 0.041
    assert round(out["window_cost"], 3) == round(math.log(7), 3)
    assert round(out["bag_cost"], 3) == 3.689
    assert round(out["beta_needed"], 2) == 7.43
    assert abs(out["beta_needed_solved"] - out["beta_needed"]) < 1e-9
    assert out["reorder_change"] < 1e-12


def test_window_sees_the_source_only_without_fillers():
    assert lp.window_cost(0, 8) == 0.0
    assert math.isclose(lp.window_cost(1, 8), math.log(7), rel_tol=1e-12)


def test_max_entropy_check_and_gradient_check():
    out = lp.pointer_gradient(3.0, np.random.default_rng(1), 6)
    assert math.isclose(out["maxent_beta"], math.log(2), rel_tol=1e-12)
    assert (
        round(out["maxent_entropy"], 4) == 1.0397 and round(out["alternative_entropy"], 4) == 1.0297
    )
    assert out["maxent_gap"] < 1e-6
    assert round(out["grad_p"], 3) == 0.185
    assert np.allclose(out["responsibility"][[1, 4]], [0.182, 0.818], atol=5e-4)
    assert out["grad_fd_gap"] < 1e-6 and out["fisher_gap"] < 1e-12
    assert math.isclose(out["dh_dsbar"], -3.0, rel_tol=1e-6)
    assert out["fisher_fd_gap"] < 1e-6
    assert out["holders_raised_fd"] == 1 and out["others_lowered_fd"] == 1


def test_wrong_gradient_formula_is_caught():
    """A check that can fail: dropping the minus a_i term is far from the finite differences."""
    g, holders = lp.GRAD_SCORES, lp.GRAD_HOLDERS
    w = lp.softmax(3 * g)
    r = w * holders / (w @ holders)
    fd = lp.central_gradient(lambda x: lp.log_target_prob(x, holders, 3.0), g)
    assert np.max(np.abs(fd - 3 * r)) > 0.1


def test_equivariance_without_positions_and_its_loss_with_them():
    rng = np.random.default_rng(2)
    model = sf.random_model(rng, 22, 8)
    out = sf.model_checks(model, rng, 5)
    assert out["follow_none"] < 1e-13 and out["gap_Ann_none"] == 0.0
    assert out["follow_sinusoidal"] > 0.01 and out["gap_Ann_sinusoidal"] > 0.01
    gaps = dict(zip(sf.MASKS, out["prefix_gap"][0], strict=True))
    assert gaps["none"] < 1e-13 and gaps["layer2"] < 1e-13 and gaps["one_layer"] < 1e-13
    assert gaps["layer1"] > 1e-3 and gaps["layer1"] == gaps["both"]


def test_ln2_floor_and_sinusoid_rotation():
    for beta in (0.0, 5.0):
        assert all(abs(c - math.log(2)) < 1e-12 for c in sf.names_lookup_cost(beta, 10))
    raw = sf.names_lookup_cost(5.0, 10, renormalise=False)
    assert raw[0] > math.log(2) + 0.01
    pe = sf.sinusoidal(10, 8)
    assert np.max(np.abs(sf.rotation(4, 8) @ pe[3] - pe[7])) < 1e-12
