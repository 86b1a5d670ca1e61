"""Science of memory-math ch3 and ch5: the Hebbian read's prefixes (the rest of score_capacity
is tested with the store writes, tests/test_store_writes.py)."""

from __future__ import annotations

import numpy as np

from attnmem.experiments import score_capacity as sc


def test_hebbian_prefixes_are_the_running_sums_bit_for_bit():
    """Each prefix is summed on its own; the numbers are those of a running (cumulative) sum
    read at the prefix."""
    rng = np.random.default_rng(3)
    for d in (4, 8, 32):
        keys_s = rng.standard_normal((50, 2 * d + 3))
        values = rng.standard_normal((50, 2 * d + 3, d))
        running = np.cumsum(keys_s[..., None] * values, axis=1)
        others = [int(round(load * d)) - 1 for load in sc.HEBBIAN_LOADS]
        want = [np.mean(np.sum(running[:, n - 1] ** 2, axis=-1)) for n in others]
        assert np.array_equal(sc.hebbian_prefix_isr2(keys_s, values, d), want)
