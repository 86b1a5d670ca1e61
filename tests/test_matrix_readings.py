"""Science of memory-math's prologue, chapters 1-2, D4, D20, appendix A and exercise 2."""

from __future__ import annotations

import numpy as np

from attnmem.experiments import matrix_readings as mr


def test_four_readings_agree_and_a_wrong_grouping_does_not():
    a = np.array([[1.0, 2, 0, -1], [0, 1, 3, 2], [2, -1, 1, 0]])
    b = np.array([[1.0, 0, 2], [0, 1, -1], [3, 1, 0], [1, 1, 1]])
    out = mr.four_readings(a, b)
    for name in ("entry", "row", "column", "outer"):
        assert np.array_equal(out[name], a @ b)
    assert out["terms"].shape == (4, 3, 3)
    # Summing over the wrong index (rows of A times columns of B, elementwise) is not AB.
    assert not np.allclose(out["terms"][:3].sum(0), a @ b)


def test_matvec_readings_and_sweep_only_move_the_first_column():
    w = np.array([[1.0, 2, 3], [4, 5, 6]])
    x = np.array([1.0, -1, 2])
    out = mr.matvec_readings(w, x)
    assert np.array_equal(out["rows"], w @ x) and np.array_equal(out["columns"], w @ x)
    sweep = mr.x1_sweep(w, x, np.array([-1.0, 0.0, 2.0]))
    assert np.ptp(sweep["parts"][:, :, 1:], axis=0).max() == 0
    assert (np.ptp(sweep["y"], axis=0) > 0).all()


def test_outer_sum_rank_and_column_space():
    rng = np.random.default_rng(1)
    for r in (1, 3, 5):
        out = mr.sum_of_outer_products(rng, 8, r)
        assert out["rank"] == r and out["gap"] < 1e-12 and out["column_space_residual"] < 1e-12


def test_truncated_svd_beats_competitors_and_energy_identity():
    rng = np.random.default_rng(2)
    out = mr.eckart_young(rng, 0, 8, 3, 200)
    assert out["random_beats"] == 0 and out["local_beats"] == 0
    assert np.max(out["energy_gap"]) < 1e-12
    assert out["weyl_violation"] <= 1e-12 and out["interlace_violation"] <= 1e-12
    assert out["bound_slack"] >= 0
    assert np.all(out["recall_error"][:3] < 1e-20) and np.all(out["recall_error"][3:] > 0)
    # Keeping fewer than all terms leaves energy behind.
    assert out["pattern_energy_kept"][3] < 1 and out["pattern_energy_kept"][-1] == 1


def test_rank_helper_and_projection_conditions():
    assert mr.rank(np.outer([1.0, 2], [3.0, 4, 5])) == 1
    assert mr.rank(np.eye(4)) == 4
    out = mr.projection_facts(np.random.default_rng(3))
    assert out["proj_row_square_gap"] < 1e-12 and out["oblique_row_square_gap"] > 1e-3
    assert abs(out["proj_trace"] - 3) < 1e-12 and abs(out["oblique_trace"] - 3) < 1e-12


def test_interference_identity_needs_zero_mean():
    c = np.array([1.0, -0.5, 2.0])
    assert abs(mr.expected_interference(c, 2, 0.0)) < 1e-12
    assert mr.expected_interference(c, 2, 0.5) > 1e-3


def test_mlp_share_is_two_thirds_at_width_four():
    out = mr.mlp_parameter_share(768, 4)
    assert abs(out["mlp_share"] - 2 / 3) < 1e-12
    assert abs(mr.mlp_parameter_share(768, 8)["mlp_share"] - 0.8) < 1e-12


def test_one_equation_and_whitening():
    rng = np.random.default_rng(4)
    out = mr.one_equation(rng)
    assert max(out.values()) < 1e-12
    white = mr.whitening_facts(rng)
    assert white["whitened_moment_gap"] < 1e-10 and white["one_factor_gap"] < 1e-10
    assert white["inverse_only_moment_gap"] > 1e-3


def test_edit_objective_is_half_the_mean_squared_change():
    """D17: fresh keys with second moment C give E|Delta k|^2 = tr(Delta C Delta^T), twice
    the note's objective (1/2) tr(Delta C Delta^T); d random keys already give a full-rank C."""
    out = mr.edit_objective_facts(np.random.default_rng(0), d=6, n_keys=200_000)
    assert abs(out["edit_sq_change_over_trace"] - 1) < 0.02
    assert abs(out["edit_sq_change_over_objective"] - 2) < 0.04
    assert out["second_moment_rank_at_d"] == 6


def test_least_squares_minimiser_meets_the_normal_equations():
    out = mr.solve_facts(np.random.default_rng(1))
    assert out["ls_lstsq_gradient"] < 1e-12
