"""Science of first-principles B2: the gradient sent back through linear and tanh nets."""

from __future__ import annotations

import numpy as np

from attnmem.experiments import recurrent_state as rs


def test_backprop_norms_are_each_steps_own():
    """The gradients are kept and normed together at the end; the numbers are those of a norm
    taken at every step, bit for bit."""
    rng = np.random.default_rng(4)
    w = 1.05 * rs.random_orthogonal(rng, 5, 6)
    grad = rng.standard_normal((5, 6))
    inputs = 0.1 * rng.standard_normal((5, 9, 6))
    v, want = grad.copy(), []
    for _ in range(9):
        want.append(np.linalg.norm(v, axis=1))
        v = np.einsum("bji,bj->bi", w, v)
    assert np.array_equal(rs.linear_backprop(w, grad, 9), np.stack(want, axis=1))
    h, states = np.zeros((5, 6)), []
    for t in range(9):
        h = np.tanh(np.einsum("bij,bj->bi", w, h) + inputs[:, t])
        states.append(h)
    v, want = grad.copy(), [np.linalg.norm(grad, axis=1)]
    for dist in range(1, 9):
        v = np.einsum("bji,bj->bi", w, (1.0 - states[9 - dist] ** 2) * v)
        want.append(np.linalg.norm(v, axis=1))
    assert np.array_equal(rs.tanh_backprop(w, inputs, grad), np.stack(want, axis=1))


def test_future_counts_are_the_distinct_completion_sets():
    """Distinct futures after t tokens, against the direct count: the set of completion sets
    of the distinct prefixes."""
    rng = np.random.default_rng(5)
    for rows, width, alphabet in ((40, 4, 2), (200, 6, 3), (1, 3, 2)):
        s = rng.integers(alphabet, size=(rows, width))
        want = []
        for t in range(width + 1):
            groups: dict = {}
            for row in s:
                groups.setdefault(tuple(row[:t]), set()).add(tuple(row[t:]))
            want.append(len({frozenset(g) for g in groups.values()}))
        assert np.array_equal(rs.future_counts_enumerated(np.unique(s, axis=0)), want)
