"""Science of first-principles E1-E2: the hand-built two-layer ToyLang program."""

from __future__ import annotations

import math

import numpy as np
import pytest

from attnmem.experiments import toylang as tl
from attnmem.experiments import toylang_machine as tm

N = 48


def _run_with(m: dict, sentences, mode="hard"):
    """The program's forward pass with a given (possibly edited) set of matrices."""
    x = tm.embed(sentences, m["blocks"])
    x, _, _ = tm.head(x, m["W1Q"], m["W1K"], m["W1V"], m["W1O"], mode)
    x, _, _ = tm.head(x, m["W2Q"], m["W2K"], m["W2V"], m["W2O"], mode)
    return {"x": x, "logits": tm.apply(m["WU"], x), "blocks": m["blocks"]}


def _copies_right(run, sentences, n_names=N):
    sc = tm.score_copies(run, sentences, n_names)
    return sc["Y"]["right"].mean(), sc["X"]["right"].mean()


def test_sizes_and_entries_of_the_program():
    m = tm.build_program(N, 12.0)
    nz = tm.nonzero_counts(m)
    assert (nz["layer1"], nz["layer2"], nz["WU"], nz["total"]) == (253, 163, 63, 479)
    assert m["blocks"].V == 63 and m["blocks"].d == 253
    for key in ("W1K", "W1V", "W1O", "W2K", "W2V", "W2O"):
        assert set(np.unique(m[key])) <= {0.0, 1.0}
    assert set(np.unique(m["W1Q"])) == {0.0, 12.0} and set(np.unique(m["WU"])) == {0.0, 10.0}


def test_apply_is_the_dense_product():
    rng = np.random.default_rng(0)
    m = tm.build_program(8, 3.0)
    x = rng.normal(size=(2, 5, m["blocks"].d))
    for key in ("W1Q", "W1V", "W2K", "W2V", "WU"):
        assert np.allclose(tm.apply(m[key], x), x @ m[key].T)
    y = rng.normal(size=(2, 5, m["blocks"].V))
    assert np.allclose(tm.add_into(x.copy(), m["W2O"], y), x + y @ m["W2O"].T)


def test_printed_prompt_and_every_sentence_of_a_small_language():
    s = tm.encode(tm.PRINTED_PROMPT, N)[None]
    run = tm.run_program(s, N, 12.0)
    sc = tm.score_copies(run, s, N)
    vocab = tm.vocabulary(N)
    site = tm.copy_sites(s, N)
    assert vocab[int(site["Y"][0])] == "Di" and vocab[int(site["X"][0])] == "Cy"
    assert sc["Y"]["right"][0] and sc["X"]["right"][0]
    every = tl.enumerate_sentences(4, tm.F, 1)  # 216 sentences
    assert _copies_right(tm.run_program(every, 4, 1.0, mode="hard"), every, 4) == (1.0, 1.0)


def test_hard_limit_probability_and_exact_one_hot():
    s = tm.example_sentence(N, 30, clause=True)[None]
    sc = tm.score_copies(tm.run_program(s, N, 1.0, mode="hard"), s, N)
    want = math.exp(10) / (math.exp(10) + 62)
    for copy in tm.COPIES:
        assert sc[copy]["l1"][0] == 0.0
        assert sc[copy]["prob"][0] == pytest.approx(want, rel=1e-12)


def test_linear_attention_equals_the_hard_limit():
    s = tm.example_sentence(N, 12, clause=True)[None]
    hard = tm.run_program(s, N, 1.0, mode="hard")["logits"]
    lin = tm.run_program(s, N, 1.0, mode="linear")["logits"]
    sites = tm.site_array(s, N)[0]
    assert np.array_equal(hard[0, sites], lin[0, sites])


def test_restricted_queries_match_the_full_run():
    rng = np.random.default_rng(1)
    s = tl.sample_sentences(rng, N, tm.F, 6, 5)
    for machine in tm.MACHINES:
        full = tm.score_copies(tm.run_machine(machine, s, N, 2.0), s, N)
        part = tm.score_copies(tm.run_machine(machine, s, N, 2.0, tm.site_array(s, N)), s, N, True)
        for copy in tm.COPIES:
            assert np.array_equal(full[copy]["right"], part[copy]["right"])
            assert np.allclose(full[copy]["prob"], part[copy]["prob"], rtol=1e-12, atol=0)


def test_runs_in_batches_equal_one_run():
    """copies_right runs the sentences RUN_BATCH at a time; the answers are those of one run
    over all of them, sentence by sentence."""
    s = tl.sample_sentences(np.random.default_rng(5), N, tm.F, 4, tm.RUN_BATCH + 37)
    for machine in ("program", "no_position"):
        whole = tm.score_copies(tm.run_machine(machine, s, N, 2.0, tm.site_array(s, N)), s, N, True)
        batched = tm.copies_right(machine, s, N, 2.0)
        for copy in tm.COPIES:
            assert np.array_equal(batched[copy], whole[copy]["right"])


def _edited(edit) -> dict:
    m = dict(tm.build_program(N, 1.0))
    m = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in m.items()}
    edit(m)
    return m


def test_changed_registers_break_the_machine():
    rng = np.random.default_rng(2)
    s = tl.sample_sentences(rng, N, tm.F, 5, 40)
    assert _copies_right(_run_with(_edited(lambda m: None), s), s) == (1.0, 1.0)

    def swap_keys(m):  # 'at' reads PREV and 'aft' reads TOK: the two questions swap
        m["W2K"] = m["W2K"][::-1].copy()

    def layer1_into_out(m):  # layer 1 writes the left token into OUT instead of PREV
        b = m["blocks"]
        wo = np.zeros_like(m["W1O"])
        wo[b.out(0) : b.out(0) + b.V] = np.eye(b.V)
        m["W1O"] = wo

    def next_token_head(m):  # layer 1 queries point at t+1 (masked) instead of t-1
        m["W1Q"] = np.roll(m["W1Q"], 2, axis=0)

    for edit in (swap_keys, layer1_into_out, next_token_head):
        y, x = _copies_right(_run_with(_edited(edit), s), s)
        assert y < 1.0 or x < 1.0, edit.__name__


def test_ablations_fail_where_the_note_says():
    rng = np.random.default_rng(3)
    s = tl.sample_sentences(rng, N, tm.F, 20, 30)
    no_pos = _copies_right(tm.run_machine("no_position", s, N, 12.0), s)
    no_l1 = _copies_right(tm.run_machine("no_layer1", s, N, 12.0), s)
    assert no_pos == (0.0, 1.0)
    assert no_l1[1] == 0.0
    # the tie at 'then' goes to the lower token index: right exactly when Y < X
    sc = tm.score_copies(tm.run_machine("no_layer1", s, N, 12.0), s, N)
    assert np.array_equal(sc["Y"]["right"], s[:, 2] < s[:, 0])


def test_one_layer_machines_and_the_lemma():
    sa, sb, combos = tm.lemma_sentences(5)
    assert len(combos) == 120
    then = tm.word_ids(5)["then"]
    for machine, want in (("program", (120, 120)), ("one_layer_slots", (0, 120))):
        got = []
        for s, answer in ((sa, combos[:, 3]), (sb, combos[:, 1])):
            site = np.argmax(s == then, axis=1)[:, None]
            run = tm.run_machine(machine, s, 5, 12.0, site)
            got.append(int(np.sum(np.argmax(run["logits"][:, 0], axis=1) == answer)))
        assert tuple(got) == want


def test_sharpness_bound_values():
    deltas = [tm.sharpness_bound(44, b)["Delta"] for b in (12, 8, 6)]
    assert [round(d, 4) for d in deltas[:2]] == [0.0014, 0.0856] and round(deltas[2], 2) == 1.43
    b44 = tm.smallest_certified_beta(44)
    assert round(b44, 2) == 6.19 and round(tm.smallest_certified_beta(100), 2) == 7.08
    assert tm.sharpness_bound(44, b44)["Delta"] == pytest.approx(1.0)
    assert not tm.sharpness_bound(44, b44 - 0.01)["certifies"]


def test_clause_names_distinct_rule():
    rng = np.random.default_rng(4)
    x = rng.integers(6, size=500)
    y = (x + 1 + rng.integers(5, size=500)) % 6
    a, b = tm.clause_names(rng, x, y, 6, "distinct")
    names = np.stack([x, y, a, b], axis=1)
    assert all(len(set(row)) == 4 for row in names.tolist())
    assert set(a.tolist()) == set(range(6))


def test_ablation_draws_counts():
    right, caption = tm.ablation_draws(12.0, 48, 20, 50, 30, seed=1, draws=24)
    assert right.shape == (24, len(tm.DRAW_CASES), 2)
    case = {c: i for i, c in enumerate(tm.DRAW_CASES)}
    clause = right[:, case[("no_position", "clause_independent")]]
    assert np.all(clause <= 50) and clause[:, 0].mean() > 40 > clause[:, 1].mean()
    coin = right[:, case[("no_layer1", "plain")], 0]
    assert coin.min() > 0 and coin.max() < 50 and abs(coin.mean() - 25) < 6
    assert np.all(caption <= right) and np.all(caption <= 30)


def test_all_pairs_right_counts_every_pair():
    right, made = tm.all_pairs_right(5, 12.0, (0, 3))
    assert made == 5 * 4 * 2 * 2
    assert right == made
    low, _ = tm.all_pairs_right(5, 0.5, (3,))
    assert low < 5 * 4 * 2


def _dense_head(x, wq, wk, wv, wo):
    """One softmax head computed the direct way: dense products, each sentence its own scores."""
    q, k, v = x @ wq.T, x @ wk.T, x @ wv.T
    length = x.shape[1]
    allowed = np.tril(np.ones((length, length), dtype=bool))
    scores = np.where(allowed, q @ np.swapaxes(k, -1, -2), -np.inf)
    a = np.exp(scores - scores.max(axis=-1, keepdims=True))
    a /= a.sum(axis=-1, keepdims=True)
    return x + (a @ v) @ wo.T, a


def test_shared_layer1_weights_equal_each_sentences_own():
    """Layer 1 reads only POS, the same in every sentence, so head() computes its weights once
    and shares them; on random streams (POS shared, or not) they are each sentence's own."""
    rng = np.random.default_rng(7)
    m = tm.build_program(8, 2.5)
    b = m["blocks"]
    pos = slice(b.pos(0), b.pos(0) + b.n_max)
    for shared_pos in (True, False):
        x = rng.normal(size=(5, 9, b.d))
        if shared_pos:
            x[:, :, pos] = x[:1, :, pos]
        assert tm._same_in_every_row(x, tm._columns_read(m["W1Q"], m["W1K"])) == shared_pos
        got, a, _ = tm.head(x, m["W1Q"], m["W1K"], m["W1V"], m["W1O"], "softmax")
        want, a_want = _dense_head(x, m["W1Q"], m["W1K"], m["W1V"], m["W1O"])
        assert np.allclose(a, a_want, rtol=1e-12, atol=1e-15)
        assert np.allclose(got, want, rtol=1e-12, atol=1e-12)


def test_apply_of_every_machine_is_the_dense_product():
    """apply's shortcuts (a first layer filling every row, unit values) give W x exactly."""
    rng = np.random.default_rng(8)
    mats = dict(tm.build_program(8, 3.0))
    for kind in ("slots", "recency"):
        mats.update({f"{kind}_{k}": v for k, v in tm.one_layer_machine(8, 3.0, kind).items()})
    for key, w in mats.items():
        if isinstance(w, np.ndarray):
            x = rng.normal(size=(3, 6, w.shape[1]))
            assert np.allclose(tm.apply(w, x), x @ w.T, rtol=1e-13, atol=1e-13), key


def test_query_matrices_are_beta_times_their_sums():
    """The builders scale cached sums by beta: the entries are those of lines 1118-1138."""
    for beta in (0.5, 12.0):
        m = tm.build_program(8, beta)
        b = m["blocks"]
        w1q = np.zeros((b.n_max, b.d))
        w1q[np.arange(b.n_max - 1), b.pos(np.arange(1, b.n_max))] = beta
        assert np.array_equal(m["W1Q"], w1q)
        ids = tm.word_ids(8)
        w2q = np.zeros((2, b.d))
        w2q[0, b.tok(ids["thanked"])] = w2q[1, b.tok(ids["then"])] = beta
        assert np.array_equal(m["W2Q"], w2q)
        slots = tm.one_layer_machine(8, beta, "slots")["WQ"]
        assert slots[2, b.tok(ids["then"])] == slots[0, b.tok(ids["thanked"])] == beta
        assert np.count_nonzero(slots) == 2


def test_slot_attention_sums_columns_and_averages_rows():
    """slot_attention against the direct loop over pairs of slot groups, on random maps."""
    rng = np.random.default_rng(9)
    for gap in (0, 1, 7, 8, 9, 30):
        att = rng.random((12 + gap, 12 + gap))
        groups = [[0], [1], [2], [3], [4], list(range(5, 5 + gap))]
        groups += [[5 + gap + k] for k in range(5)]
        want = np.full((11, 11), np.nan)
        for i, rows in enumerate(groups):
            for j, cols in enumerate(groups):
                if rows and cols:
                    want[i, j] = att[np.ix_(rows, cols)].sum(axis=1).mean()
        assert np.array_equal(tm.slot_attention(att, gap), want, equal_nan=True)
