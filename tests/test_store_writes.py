"""Science of one-matrix memories, score capacities and the rank-one edit (first-principles
D1-D2, memory-math chapters 4-5, every-layer-a-store)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from attnmem.experiments import score_capacity as sc
from attnmem.experiments import store_writes as sw


def test_three_pairs_worked_example():
    out = sw.three_pairs()
    assert np.allclose(out["three_hebb_store"], [3 + math.sqrt(2), 5 + math.sqrt(2)])
    assert out["three_hebb_sse"] == pytest.approx(36.0)
    assert np.allclose(out["three_gram"], [[1.5, 0.5], [0.5, 1.5]])
    assert out["three_lsq_sse"] == pytest.approx(6.686291501, rel=1e-9)


def test_least_squares_exact_up_to_d_and_not_beyond():
    rng = np.random.default_rng(0)
    K = sw.unit_rows(rng, (8, 8))
    V = sw.unit_rows(rng, (8, 8))
    assert np.allclose(sw.reads(sw.least_squares_store(K, V), K), V)
    K9 = sw.unit_rows(rng, (9, 8))
    V9 = sw.unit_rows(rng, (9, 8))
    assert np.sum((sw.reads(sw.least_squares_store(K9, V9), K9) - V9) ** 2) > 1e-3


def test_least_squares_is_the_minimiser():
    """Perturbing the least-squares store never lowers the summed error."""
    rng = np.random.default_rng(1)
    K = sw.unit_rows(rng, (20, 6))
    V = sw.unit_rows(rng, (20, 6))
    S = sw.least_squares_store(K, V)
    base = np.sum((sw.reads(S, K) - V) ** 2)
    for _ in range(50):
        T = S + 1e-2 * rng.standard_normal(S.shape)
        assert np.sum((sw.reads(T, K) - V) ** 2) >= base


def test_leverages_sum_to_rank_and_match_projection():
    rng = np.random.default_rng(2)
    K = sw.unit_rows(rng, (3, 30, 5))
    lev = sw.leverages(K)
    assert np.allclose(lev.sum(-1), 5)
    assert np.allclose(lev[0], np.diag(sw.projection(K[0])))


def test_hebbian_error_law_and_it_can_fail():
    """The simulated Hebbian error matches (m-1)/d, and not (m-1)/(d+4)."""
    rng = np.random.default_rng(3)
    out = sw.linear_store_errors(8, 17, 0, 2000, rng)
    assert out["hebb_err"] == pytest.approx(2.0, abs=0.06)
    assert abs(out["hebb_err"] - 16 / 12) > 0.3
    assert out["lsq_err"] == pytest.approx(1 - 8 / 17, abs=0.02)


def test_edit_ratio_check_and_cauchy_schwarz():
    d = 8
    Sigma = np.diag(np.exp(-4 * np.arange(d) / 7))
    assert sw.naive_over_optimal(Sigma, np.ones(d)) == pytest.approx(4.40987, abs=1e-5)
    assert sw.naive_over_optimal(np.eye(d), np.ones(d)) == pytest.approx(1.0)
    # A rescaled Sigma gives the same ratio (the figure's trace normalisation).
    assert sw.naive_over_optimal(sw.uneven_sigma(d, 4.0), np.ones(d)) == pytest.approx(
        4.40987, abs=1e-5
    )


def test_edit_hits_target_and_beats_naive():
    rng = np.random.default_rng(4)
    case = sw.check_edit_case(8, 4.0, rng)
    out = {**sw.edit_closed_forms(case), **sw.edit_perturbations(case, 500, rng)}
    out.update(sw.cauchy_schwarz_ratios(8, 500, rng))
    assert out["edit_hits_target"] < 1e-9
    assert out["edit_perturbed_min_excess"] >= 0
    assert out["cs_min_ratio"] >= 1
    assert out["cs_eigen_ratio"] == pytest.approx(1.0)


def test_edit_sweep_angle_threshold():
    levels = np.array(sw.unevenness_levels(6, 0.25))
    out = sw.edit_sweep(8, levels, 10, np.random.default_rng(5))
    assert 2.5 < out["angle_within_10_from"] < 3.0
    assert np.ptp(out["sweep_naive_cost"]) < 1e-12
    assert out["sweep_ratio"][0] == pytest.approx(1.0)


def test_gradient_checks_are_tight_and_can_fail():
    out = sw.gradient_checks(np.random.default_rng(6), 4, 5, 1e-6)
    assert max(out["grad_sq_gap"], out["grad_hebb_gap"], out["grad_general_gap"]) < 1e-8
    S = np.ones((2, 2))
    wrong = sw.central_difference(lambda M: np.sum(M**3), S, 1e-6)
    assert np.max(np.abs(wrong - 2 * S)) > 0.5


def test_parameter_counts():
    out = sw.parameter_counts(768)
    assert out["mlp_share_of_block"] == pytest.approx(2 / 3)
    assert out["gated_over_d2"] == pytest.approx(8.0)


@pytest.mark.parametrize("d", [8, 32, 1024])
def test_moments_exact_three_ways(d):
    for p in (1, 2, 3, 4):
        beta = sc.beta_moment(d, p)
        assert sc.double_factorial_moment(d, p) == pytest.approx(beta, rel=1e-14)
        assert sc.expect(lambda s, p=p: s ** (2 * p), d) == pytest.approx(beta, rel=1e-10)
    assert sc.expect(lambda s: np.ones_like(s), d) == pytest.approx(1.0, rel=1e-10)


def test_capacity_exact_closed_forms():
    out = sc.score_capacity(32)
    assert np.allclose(
        out["capacity_exact"], [33, 65, 1 + 2 * 32 * 34 / 3, 1 + 2 * 32 * 34 * 36 / 15]
    )
    assert np.allclose(out["capacity_leading"], [32, 64, 2 * 32**2 / 3, 2 * 32**3 / 15])


def test_sphere_dot_shortcut_matches_full_vectors_and_can_fail():
    a = sc.sphere_dots(np.random.default_rng(7), 20000, 16)
    b = sc.sphere_dots_direct(np.random.default_rng(8), 20000, 16)
    assert stats.ks_2samp(a, b).pvalue > 1e-3
    c = sc.sphere_dots(np.random.default_rng(9), 20000, 24)
    assert stats.ks_2samp(c, b).pvalue < 1e-6


def test_score_interference_matches_exact():
    out = sc.score_interference(16, 0, 40000, 4000, 2, 2, 64, np.random.default_rng(10))
    assert np.allclose(out["mc_isr2_full"], out["expected_isr2_full"], rtol=0.1)
    assert out["sharper_leaks_less"] == 1.0
    assert np.all(np.abs(out["mc_isr2_gap"]) < 0.1)
    assert np.all(np.abs(out["mc_moment_gap"][:3]) < 0.05)


def test_hebbian_prefix_interference_is_m_minus_one_over_d():
    d, reads = 8, 20000
    rng = np.random.default_rng(11)
    keys_s = sc.sphere_dots(rng, reads * 2 * d, d).reshape(reads, 2 * d)
    values = rng.standard_normal((reads, 2 * d, d))
    values /= np.linalg.norm(values, axis=-1, keepdims=True)
    got = sc.hebbian_prefix_isr2(keys_s, values, d)
    want = np.array([round(x * d) - 1 for x in sc.HEBBIAN_LOADS]) / d
    assert np.allclose(got, want, rtol=0.05)
    # keys twice as long would quadruple the interference: the test can fail
    assert not np.allclose(sc.hebbian_prefix_isr2(2 * keys_s, values, d), want, rtol=0.05)


def test_generic_solver_agrees_with_the_closed_forms_and_can_fail():
    """The lstsq minimiser recalls exactly up to d and not beyond; the SVD projection matches
    the store's recall matrix, and would not match the Hebbian one."""
    rng = np.random.default_rng(5)
    few = sw.linear_store_errors(8, 8, 0, 3, rng)
    assert few["lsq_solver_max_error"] < 1e-8 and few["lsq_solver_read_gap"] < 1e-6
    assert few["lsq_solver_offweight_max"] < 1e-8
    many = sw.linear_store_errors(8, 24, 0, 3, rng)
    assert many["lsq_solver_max_error"] > 0.1 and many["lsq_solver_offweight_max"] > 0.01
    assert many["lsq_solver_store_gap"] < 1e-10
    assert many["recall_svd_gap"] < 1e-10 and many["recall_trace_minus_rank"] < 1e-10
    K = sw.unit_rows(rng, (24, 8))
    hebb = sw.reads(sw.hebbian_store(K, np.eye(24)), K)
    U = np.linalg.svd(K, full_matrices=False)[0]
    assert np.max(np.abs(hebb - U @ U.T)) > 0.1


def test_edit_cost_monte_carlo_follows_the_trace_not_half_of_it():
    out = sw.edit_cost_monte_carlo(np.random.default_rng(6), 8, 4.0, reps=5, n_keys=20000)
    for key in ("edit_mc_sq_change_over_trace", "edit_mc_opt_over_closed"):
        assert np.mean(out[key]) == pytest.approx(1.0, abs=0.03)
        assert abs(np.mean(out[key]) - 2.0) > 0.5
    assert np.mean(out["edit_mc_naive_over_closed"]) == pytest.approx(1.0, abs=0.03)


def test_one_store_least_squares_ratio_samples_the_reads_like_the_hebbian_one():
    """Exercise 1's least-squares ratio, like its Hebbian twin, is measured on the drawn
    values: each read minus its signal H_jj v_j, summed in a plain loop here, against the
    vectorised measure; its mean over values is the value-averaged (1 - H_jj)/H_jj."""
    rng = np.random.default_rng(3)
    K = sw.unit_rows(rng, (12, 4))
    V = sw.unit_rows(rng, (12, 4))
    H = K @ np.linalg.inv(K.T @ K) @ K.T
    ratios = []
    for j in range(12):
        interference = sum(H[j, i] * V[i] for i in range(12) if i != j)
        ratios.append(interference @ interference / H[j, j] ** 2)
    read = sw.reads(sw.least_squares_store(K, V), K)
    assert sw._sampled_isr(read, V, np.diag(H)) == pytest.approx(np.sqrt(np.mean(ratios)))
    many = [
        sw._sampled_isr(H @ W, W, np.diag(H)) ** 2
        for W in sw.unit_rows(np.random.default_rng(4), (4000, 12, 4))
    ]
    averaged = np.mean((1 - np.diag(H)) / np.diag(H))
    assert np.mean(many) == pytest.approx(averaged, rel=0.03)


def _solver_facts_by_lstsq(K, V, closed, lsq_reads):
    """The solver facts the old way: one numpy lstsq per draw, with the m unit values as extra
    right-hand sides for the weights of read 0."""
    m, d = K.shape[-2:]
    err = store_gap = read_gap = off = 0.0
    for t in range(K.shape[0]):
        X = np.linalg.lstsq(K[t], np.concatenate([V[t], np.eye(m)], axis=1), rcond=None)[0]
        S, unit = X[:, :d].T, X[:, d:].T
        read = K[t] @ S.T
        err = max(err, np.max(np.abs(read - V[t])))
        store_gap = max(store_gap, np.max(np.abs(S - closed[t])))
        read_gap = max(read_gap, np.max(np.abs(read - lsq_reads[t])))
        w = K[t][0] @ unit.T
        off = max(off, np.max(np.abs(w[1:])) if m > 1 else 0.0)
    return {
        "lsq_solver_max_error": err,
        "lsq_solver_store_gap": store_gap,
        "lsq_solver_read_gap": read_gap,
        "lsq_solver_offweight_max": off,
    }


@pytest.mark.parametrize(("d", "m"), [(1, 2), (8, 1), (8, 5), (8, 8), (8, 9), (6, 40)])
def test_batched_pinv_solver_facts_match_a_loop_of_lstsq(d, m):
    """The batched pseudo-inverse gives the facts one lstsq per draw gives; the closed-form
    store is perturbed so that the gaps compared are not all rounding noise."""
    rng = np.random.default_rng(12)
    K = sw.unit_rows(rng, (7, m, d))
    V = sw.unit_rows(rng, (7, m, d))
    closed = sw.least_squares_store(K, V) + 1e-3 * rng.standard_normal((7, d, d))
    lsq_reads = sw.reads(closed, K)
    got = sw._solver_facts(K, V, closed, lsq_reads)
    want = _solver_facts_by_lstsq(K, V, closed, lsq_reads)
    for key, value in want.items():
        assert got[key] == pytest.approx(value, rel=1e-9, abs=1e-12), key


def test_pinv_solver_keeps_lstsq_cut_on_an_ill_conditioned_key_matrix():
    """With two equal key columns (a zero singular value, cut) and two nearly equal ones (a
    small genuine one, kept) the minimum-norm store is still the lstsq one: the same cut."""
    rng = np.random.default_rng(13)
    K = rng.standard_normal((2, 10, 5))
    K[..., 4] = K[..., 3]
    K[..., 2] = K[..., 1] + 1e-4 * rng.standard_normal((2, 10))
    V = rng.standard_normal((2, 10, 5))
    S = np.swapaxes(sw.solver_pseudo_inverses(K) @ V, -1, -2)
    for t in range(2):
        assert np.allclose(S[t], sw.solver_store(K[t], V[t]), rtol=1e-6, atol=1e-9)
