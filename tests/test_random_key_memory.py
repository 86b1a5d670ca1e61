"""Science of first-principles Part B and memory-math chapter 3: futures of ToyLang prefixes,
gradients through recurrent nets, the parallel scan, and the random-key memory."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from attnmem.experiments import random_key_memory as rk
from attnmem.experiments import recurrent_state as rs
from attnmem.experiments import toylang as tl


@pytest.mark.parametrize(
    "n_names,n_fillers,gap", [(3, 2, 1), (3, 2, 2), (4, 2, 2), (3, 3, 1), (5, 2, 0)]
)
def test_enumerated_futures_match_the_closed_form(n_names, n_fillers, gap):
    counted = rs.future_counts_enumerated(tl.enumerate_sentences(n_names, n_fillers, gap))
    assert np.array_equal(counted, rs.future_counts_formula(n_names, gap))


def test_futures_see_a_name_that_matters():
    # Make the thing T decide the final name: then T must be remembered and the count grows.
    s = tl.enumerate_sentences(3, 2, 1)
    ids = tl.token_ids(3)
    s = s[s[:, 4] - ids["thing0"] < 2]  # keep two things
    s[:, 9] = np.where(s[:, 4] == ids["thing0"], s[:, 0], s[:, 2])
    counted = rs.future_counts_enumerated(s)
    assert counted[5] > rs.future_counts_formula(3, 1)[5]
    assert rs._flat(counted[3:7]) == 0.0  # the enumerated flatness can fail


def test_enumerated_plateau_is_flat_where_enumerated():
    assert rs.future_states(3, 2, 2, 3000, 32)["plateau_flat_enumerated"] == 1.0
    assert np.isnan(rs.future_states(8, 6, 40, 10, 32)["plateau_flat_enumerated"])


def test_counts_parameters_and_bound():
    assert rs.rnn_parameters(32, 22) == 2486
    assert rs.counting_bound(16, 32, 8) == 170 and rs.counting_bound(32, 32, 8) == 341
    out = rs.future_states(8, 6, 40, 10, 32)
    assert out["copy_distance"] == 48 and out["enumerated"] == 0
    assert out["ngram_contexts"] == pytest.approx(56 * 3 * 6.0**40)


def test_linear_gradient_is_exactly_the_power_and_tanh_stays_below():
    out = rs.gradient_through_time(0.9, 0, 16, 5, 30, 0.1, 20, np.random.default_rng(1))
    assert out["linear_rel_error"] < 1e-12
    assert out["tanh_over_bound_max"] <= 1 + 1e-12
    assert out["tanh_over_bound_far"] < 1.0
    assert out["power_over_rho_min"] >= 1 - 1e-9 and out["power_over_cond_rho_max"] <= 1 + 1e-9
    assert out["far_power"] == pytest.approx(0.9**20)
    assert out["unroll_gap"] < 1e-12 and out["input_grad_gap"] < 1e-6
    assert out["spectral_bounds_hold"] == 1


def test_nonnormal_ratios_see_a_wrong_bound():
    lower, upper = rs.nonnormal_power_ratios(np.random.default_rng(3), 0.9, 6, 30)
    assert lower > 1.0  # a non-normal matrix sits strictly above rho^D somewhere
    assert upper < 1.0


def test_tanh_backprop_matches_finite_differences():
    rng = np.random.default_rng(2)
    d, n = 4, 6
    w = 0.9 * rs.random_orthogonal(rng, 1, d)
    x = 0.3 * rng.standard_normal((1, n, d))
    grad = rng.standard_normal((1, d))

    def final(h0):
        h = h0
        for t in range(1, n):
            h = np.tanh(w[0] @ h + x[0, t])
        return h

    h1 = np.tanh(x[0, 0])
    jac = np.empty((d, d))
    for i in range(d):
        e = np.zeros(d)
        e[i] = 1e-6
        jac[:, i] = (final(h1 + e) - final(h1 - e)) / 2e-6
    expected = np.linalg.norm(jac.T @ grad[0])
    assert rs.tanh_backprop(w, x, grad)[0, n - 1] == pytest.approx(expected, rel=1e-6)


@pytest.mark.parametrize("n", [1, 2, 7, 8, 9, 50])
def test_parallel_scan_equals_the_loop_in_log_rounds(n):
    rng = np.random.default_rng(n)
    lam, nu = rng.uniform(-1, 1, n), rng.standard_normal(n)
    scanned, rounds = rs.parallel_scan(lam, nu)
    assert np.allclose(scanned, rs.sequential_scan(lam, nu), atol=1e-12)
    assert rounds == (math.ceil(math.log2(n)) if n > 1 else 0)


@pytest.mark.parametrize("n", [1, 2, 3, 8, 50, 64])
def test_rounds_needed_is_ceil_log2(n):
    rng = np.random.default_rng(n)
    assert rs.rounds_needed(rng, n) == (math.ceil(math.log2(n)) if n > 1 else 0)


def test_lookback_jacobian_form():
    assert rs.lookback_jacobian_gap(np.random.default_rng(3), 4, 3) < 1e-6


def test_shortcut_overlaps_match_direct_sampling_in_distribution():
    rng = np.random.default_rng(4)
    d, m, q, trials = 16, 12, 8, 4000
    fast, slow = (
        rk.shortcut_overlaps(rng, d, m, q, trials),
        rk.direct_overlaps(rng, d, m, q, trials),
    )
    assert fast.shape == slow.shape == (trials, m, q)
    own = np.arange(q)
    assert np.allclose(fast[:, own, own], 1.0)
    off = ~np.eye(q, dtype=bool)
    for a, b in ((fast[:, :q][:, off], slow[:, :q][:, off]), (fast[:, q:], slow[:, q:])):
        assert stats.ks_2samp(a.ravel()[::7], b.ravel()[::7]).pvalue > 1e-3
    assert np.mean(fast[:, q:] ** 2) * d == pytest.approx(1.0, abs=0.03)


def test_gaussian_form_and_moments():
    assert rk.gaussian_correct(0.0, 8) == 1.0
    assert rk.gaussian_correct(1e4, 8) == pytest.approx(1 / 8, abs=1e-3)  # pure noise: a guess
    assert rk.gaussian_correct(math.sqrt(31 / 256), 8) == pytest.approx(0.9007, abs=1e-4)
    for d in (4, 8, 32):
        assert rk.overlap_second_moment(d) == pytest.approx(1 / d, rel=1e-9)


def test_memory_reads_and_least_squares():
    rng = np.random.default_rng(5)
    out = rk.read_memory(rng, 32, 32, 8, 400, 8, 8)
    assert out["lookback"] == 1.0
    assert out["noise_sq"] == pytest.approx(31 / 32, rel=0.05)
    assert 0.85 < out["accuracy"] < 0.95
    ls = rk.least_squares_reads(rng, 16, 16, 8, 20, 8)
    assert ls["error"] < 1e-8 and ls["ratio"] < 1e-8
    assert rk.least_squares_reads(rng, 16, 48, 8, 50, 8)["ratio"] == pytest.approx(
        math.sqrt(32 / 18), rel=0.15
    )
    ids = rk.small_identities(rng)
    assert ids["update_rank"] == 1 and max(ids["write_gap"], ids["read_gap"]) < 1e-12
    assert max(ids["sgd_grad_gap"], ids["hebb_grad_gap"]) < 1e-6


def test_crossing_interpolates():
    x, y = np.array([1.0, 2.0, 3.0]), np.array([0.5, 0.9, 1.3])
    assert rk.crossing(x, y) == pytest.approx(2.25)
    assert math.isnan(rk.crossing(x, y, level=2.0))


def test_mean_squared_interference_is_m_minus_one_over_d():
    d, m = 16, 32
    out = rk.read_memory(np.random.default_rng(4), d, m, 8, 4000, 10, 0)
    assert out["noise_sq"] / ((m - 1) / d) - 1 == pytest.approx(0.0, abs=0.03)


def test_leak_grows_with_the_number_of_memories():
    """The summed |overlap| of the other keys rises from each figure load to the next."""
    out = rk.random_key_memory(
        seed=0,
        N=8,
        trials=50,
        queries=4,
        d_min=8,
        n_widths=2,
        ratio_step=0.5,
        figure_ratio_max=2,
        far_step=1,
        ratio_max=3,
        ls_width=8,
        value_dim=4,
        moment_samples=100,
        shown_m=[4],
        rng=np.random.default_rng(0),
    )
    assert out["leak_growth_min"].shape == (2,)
    assert np.all(out["leak_growth_min"] > 0)
