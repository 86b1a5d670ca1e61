"""The bag of words on ToyLang and naive Bayes (first-principles A2)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from attnmem.experiments import bag_of_words as bw
from attnmem.experiments import toylang as tl


def test_counted_bag_equals_the_closed_form():
    for n, gap, f in [(2, 0, 2), (3, 2, 2), (8, 3, 6)]:
        s = tl.enumerate_sentences(n, f, gap)
        theta = bw.fit_unigram(s, tl.vocab_size(n, f))
        assert np.allclose(theta, bw.closed_form_bag(n, f, gap), atol=1e-15)


def test_printed_bag_numbers():
    out = bw.bag_costs(8, 3, 6)
    assert out["copy_nats"] == pytest.approx(math.log(26))
    assert out["sentence_nats"] == pytest.approx(39.295, abs=1e-3)
    assert out["sentence_nats"] == pytest.approx(out["n_times_entropy"])
    ten = bw.bag_costs(8, 10, 6)
    assert ten["copy_nats"] == pytest.approx(math.log(40))
    assert ten["sentence_nats"] == pytest.approx(58.678, abs=1e-3)


def test_orderings_and_direction_classes():
    out = bw.bag_enumeration(8, 3, 6)
    assert out["n_orderings"] == math.factorial(13) // 4
    assert out["n_orderings_sentences"] == 12
    assert out["class_bag_gap"] == 0 and out["posterior_a_min"] == out["posterior_a_max"] == 0.5
    assert out["name_tokens_a"] == out["name_tokens_b"] == 14


def test_direction_classes_see_a_difference_when_bags_differ():
    s = tl.enumerate_sentences(4, 2, 1)
    keep = ~((s[:, 0] == 0) & (s[:, 2] == 3))  # drop one ordered pair from class A
    out = bw.direction_classes(s[keep], 4, tl.vocab_size(4, 2))
    assert out["class_bag_gap"] > 0 and out["log_ratio_max"] > 0


def test_shuffles_leave_the_bag_alone_and_break_the_sentence():
    out = bw.bag_shuffle(6, np.random.default_rng(0), 8, 6, 3, 500)
    assert out["bag_change_max"] < 1e-9
    assert out["fraction_sentence"] < 0.05 and out["impossible_when_not"] == 1
    assert out["membership_agrees"] == 1
    none = bw.bag_shuffle(0, np.random.default_rng(0), 8, 6, 3, 10)
    assert none["fraction_sentence"] == 1 and none["true_nats_sentence"] == pytest.approx(
        tl.sentence_entropy(8, 6, 3)
    )


def test_mle_beats_random_points_and_the_check():
    out = bw.multinomial_mle(5, 0, np.random.default_rng(3), 20, 2000)
    assert out["max_gain"] <= 0 and out["multiplier_gap"] < 1e-9
    assert out["check_ll_hat"] == pytest.approx(-2.2493, abs=1e-4)
    assert out["check_ll_alternative"] < out["check_ll_hat"]


def test_naive_bayes_worked_example():
    raw = bw.naive_bayes(0.0)
    assert raw["posterior_undefined"] == 1 and np.all(raw["likelihood"] == 0)
    one = bw.naive_bayes(1.0)
    assert one["odds_cooking"] == pytest.approx(62.5)
    assert one["posterior_cooking"] == pytest.approx(62.5 / 63.5)
    assert one["bernoulli_posterior_cooking"] == pytest.approx(0.8)


def test_generated_composition_and_the_printed_draw():
    out = bw.bag_generate(0, np.random.default_rng(2), 8, 6, 3, 13, 2000)
    assert np.allclose(out["kind_expected"], [4, 1, 3, 5])
    assert np.abs(out["kind_mean"] - [4, 1, 3, 5]).max() < 0.2
    printed = bw.printed_text(8, 6)
    assert list(printed["draw_kind_count"]) == [3, 0, 6, 4]
    assert printed["draw_is_sentence"] == 0 and printed["draw_thanked_name_seen"] == 1


def test_a_changed_document_turns_the_naive_bayes_claims_red(monkeypatch):
    from conftest import REGISTRY, ROOT

    from attnmem import claims
    from attnmem.config import load_yaml
    from attnmem.cube import run_experiment
    from attnmem.experiments import registry

    config = load_yaml(ROOT / "config" / "config.yaml")
    exp, block = registry()["naive_bayes"], config["experiments"]["naive_bayes"]
    entries = [
        e
        for e in claims.load_registry([REGISTRY / "first-principles" / "A2.yaml"])
        if any(c["cube"] == "naive_bayes" for c in claims.checks_of(e))
    ]

    def verdicts():
        cubes = {"naive_bayes": run_experiment(exp, block, config["seed"])}
        return {e["id"]: claims.judge(e, cubes).verdict for e in entries}

    before = verdicts()
    docs = dict(bw.DOCUMENTS)
    docs["sports"] = ("goal match team win goal bake", *docs["sports"][1:])
    monkeypatch.setattr(bw, "DOCUMENTS", docs)
    after = verdicts()
    flipped = {i for i in before if before[i] == "reproduced" and after[i] == "discrepant"}
    assert "first-principles/A2/nb-posterior" in flipped
    assert "first-principles/A2/nb-odds" in flipped


def test_printed_draw_is_possible_and_draws_are_kept():
    out = bw.printed_text(8, 6)
    assert out["draw_possible"] == 1.0
    gen = bw.bag_generate(0, np.random.default_rng(0), 8, 6, 3, 13, 50)
    assert gen["kind_count_draws"].shape == (50, 4)
    assert np.all(gen["kind_count_draws"].sum(axis=1) == 13)
    assert np.array_equal(gen["kind_count_draws"][0], gen["kind_count"])


def test_counted_template_cost_is_ln_n():
    assert bw.bag_enumeration(3, 2, 2)["template_cost_is_ln_n"] == 1.0
