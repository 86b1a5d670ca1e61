"""Science of the fast memory: linear attention as a recurrence, the write rules, recursive
least squares, the closed forms and the ToyLang readers (first-principles D3-D4)."""

from __future__ import annotations

import numpy as np
import pytest

from attnmem.experiments import fast_weights as fw
from attnmem.experiments import toylang
from attnmem.experiments import toylang_readers as tr


def test_recurrence_equals_explicit_attention():
    gaps = fw.linear_attention_gaps(np.random.default_rng(0), 12, 5, 4)
    assert gaps["identity"] < 1e-10 and gaps["elu+1"] < 1e-10


def test_rls_matches_batch_ridge_and_a_wrong_step_does_not():
    rng = np.random.default_rng(1)
    assert fw.rls_batch_gap(rng, 20, 6, 6, 0.5) < 1e-12
    K, V = rng.standard_normal((20, 6)), rng.standard_normal((20, 6))
    plain_delta = fw.delta_states(K / np.linalg.norm(K, axis=1, keepdims=True), V)[-1]
    assert np.linalg.norm(plain_delta - fw.ridge_memory(K, V, 0.5)) > 0.1


def test_worked_examples_are_exact():
    ex = {**fw.ann_then_cy(), **fw.neighbour_write(), **fw.decayed_row_writes()}
    assert ex["hebbian_read_ann_cy"] == 8 and ex["delta_read_cy"] == 5
    assert ex["delta_repeat_error"] == 0
    assert np.allclose(ex["neighbour_state_after"], [3, 5.6])
    assert ex["neighbour_read_kprime"] == pytest.approx(6.28)
    assert ex["neighbour_shift"] == pytest.approx(ex["overlap_times_error"]) == pytest.approx(-0.72)
    assert np.allclose(ex["gdn_row"], [2, 0.5]) and np.allclose(ex["kda_row"], [2, 1])


def test_decay_closed_form_values_and_monte_carlo():
    closed = fw.decay_error_closed(8, 24, [0.9, 1.0], np.array([0, 4, 12, 23]))
    assert np.allclose(closed[0], [0.5287, 0.7182, 1.1586, 1.4833], atol=5e-5)
    assert np.allclose(closed[1], 23 / 8)
    mc = fw.age_streams(np.random.default_rng(2), 4000, 8, 24, (0.9,), 8.0)
    assert np.allclose(mc["decay"][0, [0, 4, 12, 23]], closed[0], atol=0.05)
    assert mc["delta"][0] < 1e-20 and mc["delta"][-1] > 1


def test_stores_hebbian_and_least_squares_follow_their_closed_forms():
    out = fw.store_streams(np.random.default_rng(3), 200, 16, 24, 8.0)
    err = out["error"].mean(-1)
    m = np.arange(1, 25)
    assert np.allclose(err[0], (m - 1) / 16, atol=0.05)
    assert np.all(err[1, :16] < 1e-12) and err[1, 16] > 0.02
    assert np.all(out["margin"] > -1e-12)


def test_feature_map_counts_and_reproduces_truncated_read():
    out = fw.feature_state_gap(np.random.default_rng(4), 12, 3, 4, 3, 0.5)
    assert out["count"] == 40 and out["gap"] < 1e-10
    assert fw.exp_gram(np.random.default_rng(5), 10, 3)["rank"] == 10


def test_costs_and_cache_against_weights():
    ex = fw.fast_memory_exact(64, 4096, 4096, 32, 2, [256], 8, 24, [0.9, 1.0], 0.9, 16, 40, 4, 10)
    assert ex["state_madds_total"] == 33_554_432 and ex["cache_madds_total"] == 1_074_003_968
    assert ex["loop_cache_total"] == ex["cache_madds_total"]
    assert ex["n_star"] == 24_576 and ex["decay_first_above_one"] == 9


def test_flo_prompt_tokens_and_gate():
    s = fw.flo_tokens()
    assert len(s) == 16 and s[0] == s[14] == toylang.NAMES.index("Flo")
    gate = tr.content_gate(s[None, :14], 8)[0]
    assert gate.sum() == 4 and list(np.flatnonzero(gate)) == [0, 2, 4, 12]


def test_toylang_readers_gate_and_cache():
    out = tr.toylang_readers(0, 8, 6, 8, 300, 40, 20, 8.0, np.random.default_rng(6))
    acc = out["accuracy"]  # (gate, reader, L)
    assert np.all(out["pairs_written"][1] == 4)
    assert np.all(acc[1, 2] == 1.0)  # gated least squares, 4 pairs in 8 dimensions
    assert acc[0, 0, -1] < acc[0, 0, 0] - 0.2  # every word written: the state forgets
    assert np.all(acc[0, 3] > 0.98)  # the softmax cache keeps the first word
    assert np.allclose(out["wrong_share"], 1.0 - acc)


def test_a_small_cache_beta_loses_the_first_word():
    """The cache's claims depend on a large beta; a tiny one blurs the read and fails them."""
    out = tr.toylang_readers(0, 8, 6, 8, 300, 40, 40, 0.1, np.random.default_rng(6))
    assert out["accuracy"][0, 3, -1] < 0.9


def test_repeated_delta_pass_power_matches_the_write_loop_and_converges():
    d, pairs, n = 8, 6, 7
    dist = fw.repeated_delta_distance(np.random.default_rng(5), d, pairs, (n, 10**6))
    # the same draw, written pair by pair n times
    g = np.random.default_rng(5)
    K, V = fw.unit_vectors(g, pairs, d), g.standard_normal((pairs, d))
    S = np.zeros((d, d))
    for _ in range(n):
        for t in range(pairs):
            S = S + np.outer(V[t] - S @ K[t], K[t])
    target = fw.least_squares_memory(K, V)
    assert dist[0] == pytest.approx(np.linalg.norm(S - target) / np.linalg.norm(target), rel=1e-9)
    assert dist[1] < 1e-8 < dist[0]


def test_delta_write_overwrites_and_additive_write_does_not():
    out = fw.overwrite_errors(np.random.default_rng(0), 8)
    assert out["l2"] < 1e-20
    assert out["additive"] > 1e-3


def test_batch_ttt_by_finite_differences_is_linear_attention():
    from attnmem.experiments import fast_weights as fw_

    assert fw_.ttt_batch_fd_gap(np.random.default_rng(0), 6, 4) < 1e-8


@pytest.mark.parametrize("eta, gamma", [(1.0, 1.0), (0.6, 0.85)])
def test_delta_read_is_the_read_of_the_last_delta_state(eta, gamma):
    """The backward recursion on vectors gives S_T q of the forward recursion on matrices, with
    gates in [0, 1] on a leading axis of their own, keys not of unit length and d_v != d_k."""
    rng = np.random.default_rng(7)
    K, V = rng.standard_normal((5, 9, 4)), rng.standard_normal((5, 9, 3))
    q, gate = rng.standard_normal((5, 4)), rng.uniform(0, 1, (2, 5, 9))
    gate[1, :, ::3] = 0.0  # some writes skipped
    for g in (gate, None):
        states = fw.delta_states(K, V, eta, gamma, gate=g)
        direct = fw.read(states[..., -1, :, :], q)
        assert np.allclose(fw.delta_read(K, V, q, eta, gamma, gate=g), direct, rtol=0, atol=1e-12)
    assert np.abs(direct).max() > 0.1  # not a comparison of two near-zero reads


def test_written_least_squares_read_matches_the_pseudo_inverse_row_by_row():
    """Streams grouped by their number of written pairs (fewer and more than d, and all of
    them) read as the minimum-norm least-squares map of each stream's own written pairs."""
    rng = np.random.default_rng(8)
    K, V, q = (
        rng.standard_normal((12, 10, 4)),
        rng.standard_normal((12, 10, 3)),
        rng.standard_normal((12, 4)),
    )
    kept = rng.uniform(size=(12, 10)) < np.linspace(0.2, 1.0, 12)[:, None]
    kept[:, 0], kept[-2:] = True, True
    out = tr.written_least_squares_read(K, V, q, kept)
    for i in range(12):
        W = fw.least_squares_memory(K[i][kept[i]], V[i][kept[i]])
        assert np.allclose(out[i], W @ q[i], rtol=0, atol=1e-10)
    assert len(np.unique(kept.sum(1))) > 3
    every = np.ones((12, 10), bool)
    assert np.allclose(
        tr.written_least_squares_read(K, V, q, every), fw.least_squares_read(K, V, q)
    )


def test_hebbian_reads_without_states_match_the_state_reads():
    """store_streams reads the Hebbian store as (K K^T) V and first_value_errors as a running
    sum; both equal the reads of the states sum_j v_j k_j^T on the same draws."""
    draws, d, pairs = 30, 6, 10
    err = fw.store_streams(np.random.default_rng(9), draws, d, pairs, 8.0)["error"][0]
    g = np.random.default_rng(9)
    K, V = fw.unit_vectors(g, draws, pairs, d), fw.unit_vectors(g, draws, pairs, d)
    states = fw.hebbian_states(K, V)
    for m in range(1, pairs + 1):
        direct = fw.squared_error(fw.read_all(states[:, m - 1], K[:, :m]), V[:, :m]).mean(-1)
        assert np.allclose(err[m - 1], direct, rtol=1e-12, atol=1e-12)
    first = fw.first_value_errors(np.random.default_rng(10), draws, pairs, d, 8.0)[0]
    g = np.random.default_rng(10)
    K, V = fw.unit_vectors(g, draws, pairs, d), fw.unit_vectors(g, draws, pairs, d)
    reads = fw.read(fw.hebbian_states(K, V), K[:, None, 0])
    direct = fw.squared_error(reads, V[:, None, 0]).mean(0)
    assert np.allclose(first, direct, rtol=1e-12, atol=1e-12)
