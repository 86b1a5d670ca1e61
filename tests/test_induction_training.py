"""The induction-training code on tiny settings: data layout, scores, determinism, learning."""

import numpy as np

from attnmem.experiments import induction_training as it

TINY = dict(
    vocab=8,
    length=12,
    segment_min=3,
    d_model=8,
    heads=1,
    steps=40,
    batch=8,
    lr=0.02,
    eval_every=20,
    eval_size=16,
    window=2,
)


def test_second_copy_repeats_the_first():
    seqs, seg, start = it.repeated_sequences(np.random.default_rng(0), 20, 8, 12, 3)
    for s, n, a in zip(seqs, seg, start, strict=True):
        assert np.array_equal(s[a : a + n], s[a + n : a + 2 * n])


def test_prefix_matching_of_a_perfect_induction_map_is_one():
    seqs, seg, start = it.repeated_sequences(np.random.default_rng(1), 4, 8, 12, 3)
    maps = np.zeros((1, 4, 1, 11, 11))
    maps[..., 0] = 1.0
    for b, (n, a) in enumerate(zip(seg, start, strict=True)):
        for q in range(a + n, min(a + 2 * n, 11)):
            maps[0, b, 0, q] = 0.0
            maps[0, b, 0, q, q - n + 1] = 1.0
    assert it.head_scores(maps, seg, start)["prefix"][0, 0] == 1.0


def test_transition_of_a_step_curve():
    steps = np.arange(0, 110, 10)
    curve = np.where(steps < 50, 0.0, -1.0)
    half, rise, drop = it.transition(steps, curve)
    assert (half, rise, drop) == (50.0, 0.0, 1.0)


def test_deterministic_and_learns():
    a = it.induction_training(layers=2, seed=0, rng=np.random.default_rng(3), **TINY)
    b = it.induction_training(layers=2, seed=0, rng=np.random.default_rng(3), **TINY)
    assert np.array_equal(a["icl_score"], b["icl_score"])
    assert np.array_equal(a["second_copy_loss"], b["second_copy_loss"])
    # the loss on second-copy tokens falls below the untrained model's
    assert a["second_copy_loss"][-1] < a["second_copy_loss"][0]
    assert np.isnan(
        it.induction_training(layers=1, seed=0, rng=np.random.default_rng(3), **TINY)["copying"][
            -1, 1
        ]
    ).all()
