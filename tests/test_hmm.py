"""Science of first-principles A3: the forward algorithm and the hand-built binding HMM."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.sparse as sp

from attnmem.experiments import hmm
from attnmem.experiments import toylang as tl


def test_forward_equals_brute_force_on_random_hmms():
    rng = np.random.default_rng(0)
    for J in (1, 2, 3, 4):
        for n in (1, 2, 5):
            pi, T, E = hmm.random_hmm(rng, J, 3)
            texts = rng.integers(3, size=(4, n))
            got = np.exp(hmm.forward(pi, T, E, texts)["log_p"])
            want = [hmm.brute_force(pi, T, E, t) for t in texts]
            assert np.allclose(got, want, rtol=1e-12)
            # the same with a sparse transition matrix
            got_sparse = np.exp(hmm.forward(pi, sp.csr_matrix(T), E, texts)["log_p"])
            assert np.allclose(got_sparse, want, rtol=1e-12)


def test_the_notes_check():
    out = hmm.hmm_forward_check(np.random.default_rng(0))
    assert np.allclose(out["rho"], [[0.54, 0.08], [0.041, 0.168], [0.08631, 0.02262]])
    assert out["p_forward"] == pytest.approx(0.10893) and out["p_paths"] == pytest.approx(0.10893)
    assert out["n_paths"] == 8 and out["random_gap"] < 1e-12


def test_count_paths_counts_every_path_of_a_full_support_hmm():
    pi, T, E = hmm.random_hmm(np.random.default_rng(2), 3, 2)
    assert hmm.count_paths(pi, T, E, np.array([[0, 1, 1, 0]]))[0] == 3**4


@pytest.mark.parametrize("n_names,n_fillers,gap", [(3, 2, 0), (3, 2, 2), (4, 2, 1)])
def test_binding_hmm_is_the_generator(n_names, n_fillers, gap):
    s = tl.enumerate_sentences(n_names, n_fillers, gap)
    out = hmm.run_binding_hmm(s, n_names, n_fillers, gap)
    assert out["n_states"] == n_names * (n_names - 1) * (10 + gap)
    assert out["logp_error"] < 1e-12
    assert np.all(out["paths"] == 1) and np.all(out["live_after_thanked"] == 1)
    assert np.all(np.abs(out["cost_X"]) < 1e-12) and np.all(np.abs(out["cost_Y"]) < 1e-12)
    pi, T, E = hmm.binding_model(n_names, n_fillers, gap)
    assert np.allclose(np.asarray(T.sum(axis=1)).ravel(), 1) and np.allclose(E.sum(axis=1), 1)


def test_binding_hmm_rejects_a_non_sentence():
    s = tl.enumerate_sentences(3, 2, 1)[:1].copy()
    s[0, -2] = s[0, 2]  # final name = receiver
    out = hmm.forward(*hmm.binding_model(3, 2, 1), s)
    assert out["log_p"][0] == -math.inf


def test_bound_futures_and_sizes():
    out = hmm.binding_hmm(4, 2, 1, 5000, 4, 5000, np.random.default_rng(0))
    assert out["futures_after_then"] == 12 and out["next_tokens_after_then"] == 4
    assert out["future_determined"] == 1
    big = hmm.binding_hmm(8, 6, 10, 5000, 4, 5000, np.random.default_rng(0))
    assert big["n_states"] == 1120 and round(big["rows_per_state"]) == 9_069_926
    assert big["enumerated"] == 0 and big["cost_X_max"] < 1e-12
    assert hmm.binding_hmm(48, 6, 0, 10, 4, 100, np.random.default_rng(0))["n_pairs"] == 2256


def test_changing_a_printed_transition_turns_the_check_red(monkeypatch):
    from conftest import REGISTRY, ROOT

    from attnmem import claims
    from attnmem.config import load_yaml
    from attnmem.cube import run_experiment
    from attnmem.experiments import registry

    config = load_yaml(ROOT / "config" / "config.yaml")
    exp = registry()["hmm_forward_check"]
    entries = [
        e
        for e in claims.load_registry(REGISTRY / "first-principles")
        if e["id"].startswith("first-principles/A4/forward-check")
    ]

    def verdicts():
        cube = run_experiment(exp, config["experiments"]["hmm_forward_check"], config["seed"])
        return {e["id"]: claims.judge(e, {"hmm_forward_check": cube}).verdict for e in entries}

    assert set(verdicts().values()) == {"reproduced"}
    monkeypatch.setattr(hmm, "CHECK_T", np.array([[0.8, 0.2], [0.4, 0.6]]))  # 0.7 in the note
    after = verdicts()
    assert after["first-principles/A4/forward-check-p"] == "discrepant"
    assert after["first-principles/A4/forward-check-brute-force"] == "discrepant"


def _forward_every_state(pi, T, E, texts):
    """The forward recursion over every state at every step (no restriction to reachable
    states): cond, live and the unnormalised rho, as forward computed them before."""
    TT = sp.csr_matrix(T.T)
    s, n = texts.shape
    cond, live, rhos = np.empty((s, n)), np.empty((s, n)), np.empty((s, n, len(pi)))
    scale = np.ones(s)
    rho = pi[:, None] * np.ascontiguousarray(E.T)[texts[:, 0]].T
    for t in range(n):
        if t:
            rho = np.asarray(TT @ rho) * np.take(E, texts[:, t], axis=1)
        total = rho.sum(axis=0)
        cond[:, t], live[:, t] = total, np.count_nonzero(rho > 0, axis=0)
        rho = np.divide(rho, total, out=np.zeros_like(rho), where=total > 0)
        scale = scale * total
        rhos[:, t] = (rho * scale).T
    return cond, live, rhos


def _sparse_hmm(rng, J: int, V: int, per_row: int):
    """A random HMM with a sparse start law, ``per_row`` successors per state and sparse token
    laws, so that few states are reachable at first and rows of TT have several entries."""
    pi = np.zeros(J)
    pi[rng.choice(J, 2, replace=False)] = [0.3, 0.7]
    T = np.zeros((J, J))
    for j in range(J):
        T[j, rng.choice(J, per_row, replace=False)] = rng.dirichlet(np.ones(per_row))
    E = rng.dirichlet(np.ones(V), size=J) * (rng.random((J, V)) < 0.6)
    E[:, 0] += 0.05
    return pi, sp.csr_matrix(T), E / E.sum(axis=1, keepdims=True)


def test_forward_on_reachable_states_is_the_full_recursion_bit_for_bit():
    """forward and count_paths carry only the states reachable from the start law's support
    (sparse T, several texts): the numbers are those of the recursion over every state."""
    rng = np.random.default_rng(11)
    for J, per_row, n in ((12, 1, 9), (30, 3, 7), (40, 2, 12)):
        pi, T, E = _sparse_hmm(rng, J, 4, per_row)
        texts = rng.integers(4, size=(25, n))
        cond, live, rhos = _forward_every_state(pi, T, E, texts)
        got = hmm.forward(pi, T, E, texts, keep=True)
        assert np.array_equal(got["cond"], cond) and np.array_equal(got["live"], live)
        assert np.array_equal(got["rho"], rhos)
        counts = hmm.count_paths(pi, T, E, texts)
        one_by_one = [hmm.count_paths(pi, T, E, t[None])[0] for t in texts]  # every state
        assert np.array_equal(counts, one_by_one)
