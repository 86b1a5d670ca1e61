"""Science of the capacity of a read (first-principles D5, memory-math ch. 6, D15 and the
Hopfield threshold, every-layer-a-store's two criteria)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from attnmem.experiments import softmax_capacity as sc


@pytest.mark.parametrize("d", [3, 4, 16, 64])
@pytest.mark.parametrize("t", [0.5, 4.0, 16.0, 32.0])
def test_integrated_moment_matches_bessel_closed_form(d, t):
    assert math.isclose(sc.shifted_mgf(t, d), sc.shifted_mgf_bessel(t, d), rel_tol=1e-9)
    assert math.isclose(sc.shifted_mgf_many([t], d)[0], sc.shifted_mgf_bessel(t, d), rel_tol=1e-8)


@pytest.mark.parametrize("d", [3, 5, 16])
def test_density_is_normalised_and_has_variance_one_over_d(d):
    from scipy import integrate

    total = integrate.quad(lambda s: sc.overlap_density(s, d), -1, 1)[0]
    var = integrate.quad(lambda s: s * s * sc.overlap_density(s, d), -1, 1)[0]
    assert math.isclose(total, 1.0, rel_tol=1e-9)
    assert math.isclose(var, 1.0 / d, rel_tol=1e-9)
    assert math.isclose(sc.even_moment(1, d), 1.0 / d)


def test_d3_moment_is_sinh_over_t():
    """At d = 3 the overlap is uniform on [-1, 1], so E[e^{ts}] = sinh(t)/t."""
    t = 3.0
    assert math.isclose(sc.shifted_mgf(t, 3) * math.exp(t), math.sinh(t) / t, rel_tol=1e-10)


def test_capacities_at_printed_points_and_a_wrong_width_fails():
    assert round(sc.softmax_capacity_exact(8.0, 16)) == 19591
    assert round(sc.softmax_capacity_gauss(8.0, 16)) == 2982
    assert round(sc.softmax_capacity_exact(8.0, 17)) != 19591


def test_simulated_ratio_matches_exact_mean():
    rng = np.random.default_rng(0)
    out = sc.softmax_interference_mc(16, 0, 400, 64, 4, rng)
    sim, exact = out["ratio_softmax"][:, -1], out["ratio_softmax_exact"][:, -1]
    assert np.allclose(sim, exact, rtol=0.08)
    assert abs(out["ratio_hebbian"][-1] / out["ratio_hebbian_exact"][-1] - 1) < 0.08


def test_score_capacities_leading_order_match_chapter5_numbers():
    caps = dict(zip(sc.SCORES, sc.score_capacities(64)["leading"], strict=True))
    assert round(caps["relu"]) == 128 and round(caps["relu2"]) == 2731
    assert round(caps["relu3"]) == 34953
    assert math.isclose(caps["softmax_sqrt_d"], math.exp(14))


def test_feature_map_identities():
    rng = np.random.default_rng(1)
    out = sc.feature_checks(rng, 2, 1.0, 8)
    assert out["tensor_gap"] < 1e-13
    assert list(out["feature_size"][:4]) == [1, 3, 7, 15]
    assert out["truncation_error"][-1] < 1e-5 < out["truncation_error"][1]


def test_kernel_equality_breaks_with_unequal_norms():
    out = sc.kernel_and_energy(np.random.default_rng(2), 20, 6, 3.0, 0.7, 1.24)
    assert out["kernel_gap"] < 1e-14
    assert out["scaled_gap"] > 1e-3
    assert out["energy_grad_gap"] < 1e-8


def test_batched_draws_equal_draws_one_at_a_time_exactly():
    """Drawing the rescaled-keys Check in one batch gives every draw the numbers it has when it
    is drawn and run alone, bit for bit (the fixed-point iterations run batched)."""
    batch = sc.kernel_and_energy_draws(np.random.default_rng(4), 20, 6, 3.0, 0.7, 1.24, 5)
    g = np.random.default_rng(4)
    alone = [sc.kernel_and_energy(g, 20, 6, 3.0, 0.7, 1.24) for _ in range(5)]
    assert batch == alone
    assert len({d["scaled_gap"] for d in batch}) == 5


def test_hopfield_threshold_and_retrieval():
    alpha_c, m_c = sc.ags_threshold()
    assert abs(alpha_c - 0.1379) < 5e-4 and abs(m_c - 0.967) < 1e-3
    over = sc.hopfield_overlaps(np.random.default_rng(3), 400, [0.05, 0.3], 4, 20)
    assert over[0] > 0.98 and over[1] < 0.8


def test_n_log_n_root():
    n = sc.n_log_n_root(2048.0)
    assert math.isclose(n * math.log(n), 2048.0, rel_tol=1e-12)


def test_exp_series_gap_is_rounding_and_a_short_series_is_not():
    assert sc.exp_series_gap(8.0, 80) < 1e-13
    assert sc.exp_series_gap(8.0, 10) > 1e-3


def test_capacity_checks_scaled_draws_are_extra_draws_of_the_check():
    """The per-seed draws of the rescaled-keys Check come after every other output, so adding
    them leaves the single-draw outputs unchanged; each draw is a fresh instance of the Check."""
    args = (20, 6, 3.0, 0.7, 1.24, 1000.0, 3, 1.0, 4, 50, 2, 5, 0.1, 0.2, 16)
    out = sc.capacity_checks(0, *args, np.random.default_rng(3))
    assert out["scaled_gap_draws"].shape == (sc.SCALED_DRAWS,)
    g = np.random.default_rng(3)
    first = sc.kernel_and_energy(g, 20, 6, 3.0, 0.7, 1.24)
    assert out["scaled_gap"] == first["scaled_gap"]
    assert np.all(out["scaled_gap_draws"] > 0) and np.ptp(out["scaled_gap_draws"]) > 0
    assert np.all(out["scaled_read_norm_draws"] > 0)
