"""The softmax and the quantities read off a row of attention shares (shared by all topics)."""

from __future__ import annotations

import numpy as np


def softmax(scores: np.ndarray, axis: int = -1) -> np.ndarray:
    """Shares that are positive and sum to one along ``axis``; the row maximum is subtracted
    first, which cancels exactly and keeps ``exp`` from overflowing on huge scores."""
    scores = np.asarray(scores, dtype=float)
    shifted = scores - np.max(scores, axis=axis, keepdims=True)
    e = np.exp(shifted)
    return e / np.sum(e, axis=axis, keepdims=True)


def naive_softmax(scores: np.ndarray, axis: int = -1) -> np.ndarray:
    """The textbook formula without the shift, kept to show what the shift prevents."""
    with np.errstate(over="ignore", invalid="ignore"):
        e = np.exp(np.asarray(scores, dtype=float))
        return e / np.sum(e, axis=axis, keepdims=True)


def entropy_nats(shares: np.ndarray, axis: int = -1) -> np.ndarray:
    """Entropy of each row of shares, in nats (0 ln 0 taken as 0)."""
    p = np.asarray(shares, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(p > 0, -p * np.log(p), 0.0)
    return terms.sum(axis=axis)


def softmax_jacobian(shares: np.ndarray) -> np.ndarray:
    """d share_i / d score_j = share_i (delta_ij - share_j), for one row of shares (multiply by
    beta when the scores are scaled by beta)."""
    return np.diag(shares) - np.outer(shares, shares)
