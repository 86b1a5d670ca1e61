"""Science of memory-math chapters 6-8: soft dictionary, matrix views, gradients, scale."""

from __future__ import annotations

import numpy as np

from attnmem.experiments import attention_dictionary as ad


def test_circle_limits_and_nearest_key_at_every_angle():
    for angle in range(0, 360, 15):
        out = ad.soft_dictionary_circle(4.0, float(angle))
        assert out["nearest_is_top"] == 1.0
        assert abs(out["row_sum"] - 1) < 1e-12 and out["in_hull"] == 1.0
    assert ad.soft_dictionary_circle(0.0, 30.0)["uniform_gap"] == 0.0
    assert ad.soft_dictionary_circle(1000.0, 30.0)["hard_gap"] < 1e-9


def test_gaussian_smoother_needs_unit_keys():
    out = ad.soft_dictionary_circle(3.0, 50.0)
    assert out["gaussian_gap"] < 1e-12
    assert out["gaussian_gap_long_keys"] > 1e-3
    assert np.isclose(out["long_key_ratio"], out["long_key_ratio_formula"])
    assert np.isclose(out["gaussian_pair_ratio"], 1.0)


def test_attention_grads_match_finite_differences_and_a_wrong_formula_does_not():
    rng = np.random.default_rng(0)
    q, k, v, t = (
        rng.standard_normal(3),
        rng.standard_normal((4, 3)),
        rng.standard_normal((4, 2)),
        rng.standard_normal(2),
    )

    def loss(k_):
        return 0.5 * float(np.sum((ad.softmax(0.9 * k_ @ q) @ v - t) ** 2))

    a = ad.softmax(0.9 * k @ q)
    g = ad.attention_grads(q, k, v, 0.9, a @ v - t)
    num = ad.central_difference(loss, k)
    assert ad.rel_error(g["k"], num) < 1e-8
    assert ad.rel_error(g["k"] / 0.9, num) > 0.05  # dropping beta is caught


def test_estimator_variance_matches_sampling():
    rng = np.random.default_rng(1)
    a, r = ad.softmax(rng.standard_normal(4)), rng.standard_normal(4)
    exact = ad.exact_estimator_variance(a, r, 0.3)[0]
    idx = rng.choice(4, size=200_000, p=a)
    samples = (r[idx] - 0.3)[:, None] * (np.eye(4)[idx] - a)
    assert abs(samples.var(axis=0).sum() - exact) < 0.02 * exact


def test_gauge_and_heads():
    out = ad.attention_gradients(0, np.random.default_rng(2), 0.7, 0.5, 5, 3.0, (0.003, 30.0))
    assert out["gauge_gap"] < 1e-12 and out["gauge_gap_qknorm"] > 1e-3
    assert out["rank_b"] == 3 and out["rank_wvwo"] == 2
    assert out["energy_max_rise"] <= 1e-12
    fp = out["fixed_point_patterns"]
    assert np.isclose(fp[0], 6, atol=0.01) and np.isclose(fp[-1], 1, atol=0.01)
    views = ad.attention_matrix_views(
        10, 2, 20, 64, (0.0, 1.0, 100.0), (1, 4, 16), np.random.default_rng(3)
    )
    assert views["heads_sum_gap"] < 1e-12 and views["kv_cache_gap"] < 1e-12
    assert views["score_rank_max"] == 2
    assert np.all(views["total_params_per_d2"] == 12)


def test_parameter_counts_do_not_depend_on_heads():
    counts = {h: ad.parameter_counts(256, h) for h in (1, 4, 16)}
    assert {c["attention"] for c in counts.values()} == {4 * 256**2}
    assert counts[4]["mlp"] == 8 * 256**2


def test_qk_variance_is_dk():
    out = ad.dot_product_scale(64, 0, 4000, (4, 16), np.random.default_rng(4))
    assert abs(out["qk_variance_over_dk"] - 1) < 0.1
    assert abs(out["unit_overlap_sq_times_d"] - 1) < 0.1


def test_finite_difference_cross_derivatives_are_negative_and_match_the_jacobian():
    from attnmem.experiments import attention_dictionary as ad

    logits = np.array([0.3, -1.2, 2.0, 0.1])
    a = np.exp(logits) / np.exp(logits).sum()
    out = ad._fd_cross_derivatives(logits, a)
    assert out["fd_max_cross_derivative"] < 0
    assert out["fd_cross_gap"] < 1e-9


def test_steepness_and_independence_by_sampling():
    from attnmem.experiments import attention_dictionary as ad

    out = ad.attention_gradients(0, np.random.default_rng(0), 0.7, 0.5, 5, 3.0, (0.003, 30.0))
    assert 0.9 < out["fd_steepest_over_gradient_slope"] <= 1.0
    assert abs(out["fd_gradient_slope_over_norm"] - 1.0) < 1e-6
    assert abs(np.mean(out["sampled_product_mean"])) < 0.02
    assert out["sampled_product_mean"].shape == (20,)
