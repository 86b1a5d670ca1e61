"""Capacity of a memory read through a score function: f(q) = sum_i v_i sigma(k_i . q).

Serves memory-math chapter 5 (lines 20-25: moments of a unit-vector dot product, the capacity
of ReLU^p scores, the figure of four score functions at d = 32) with derivation D2 (line 68),
and every-layer-a-store "What a nonlinearity buys" (lines 19-25).

With the query equal to key 0 and the other keys uniform on the unit sphere of R^d, each other
memory adds sigma(s) v_i with s = k_i . q, whose exact law has density
c_d (1 - s^2)^{(d-3)/2} on [-1, 1]. The target weighs sigma(1) = 1, and with independent unit
values the squared interference-to-signal ratio has mean (M - 1) E[sigma(s)^2]; it reaches one
at M = 1 + 1/E[sigma(s)^2] exactly. ``score_capacity`` computes these by numerical integration
over the exact law (and the Beta moments in closed form); ``score_interference`` simulates them.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import integrate, special

from ..spec import Output, coord, experiment, integer, ints, require, seeds

SCORES = ("linear", "relu", "relu2", "relu3")
POWERS = (1, 2, 3, 4)


def score(name: str, s):
    """The score functions: identity and ReLU raised to the power 1, 2 or 3."""
    if name == "linear":
        return s
    p = {"relu": 1, "relu2": 2, "relu3": 3}[name]
    return np.maximum(s, 0.0) ** p


def score_power(name: str) -> int:
    """The power p of d in the score's capacity (1 for the linear score)."""
    return {"linear": 1, "relu": 1, "relu2": 2, "relu3": 3}[name]


def log_density(s, d: int):
    """Log density of the dot product of a uniform unit vector in R^d with a fixed one."""
    c = special.gammaln(d / 2) - 0.5 * math.log(math.pi) - special.gammaln((d - 1) / 2)
    return c + 0.5 * (d - 3) * np.log1p(-(s**2))


def expect(g, d: int) -> float:
    """E[g(s)] by adaptive quadrature over the exact law of s, in the scaled variable
    t = s sqrt(d) (the law concentrates at width 1/sqrt(d)); tails beyond |t| = 60 are below
    e^-1700 of the total and are dropped."""
    root = math.sqrt(d)
    edge = min(root, 60.0) * (1 - 1e-15)

    def integrand(t):
        s = t / root
        return g(s) * math.exp(log_density(s, d)) / root

    total = 0.0
    for lo, hi in ((-edge, 0.0), (0.0, edge)):
        total += integrate.quad(integrand, lo, hi, epsabs=0.0, epsrel=1e-12, limit=400)[0]
    return total


def beta_moment(d: int, p: int) -> float:
    """E[s^{2p}] from the Beta(1/2, (d-1)/2) law of s^2: prod_j (1/2 + j)/(d/2 + j)."""
    return math.prod((0.5 + j) / (d / 2 + j) for j in range(p))


def double_factorial_moment(d: int, p: int) -> float:
    """The same written 1*3*...*(2p-1) / (d (d+2) ... (d+2p-2))."""
    return math.prod(2 * j + 1 for j in range(p)) / math.prod(d + 2 * j for j in range(p))


def leading_capacity(name: str, d: int) -> float:
    """Leading order in d of the crossing: d for the linear score, 2 d^p/(2p-1)!! for ReLU^p."""
    if name == "linear":
        return float(d)
    p = score_power(name)
    return 2.0 * d**p / math.prod(2 * j + 1 for j in range(p))


@experiment(
    grid={"d": ints(doc="key width d")},
    outputs=(
        Output("moment_integral", "E[s^2p] by integration over the exact law", dims=("p",)),
        Output("moment_beta", "E[s^2p] from the Beta(1/2, (d-1)/2) moments", dims=("p",)),
        Output("moment_closed", "E[s^2p] as (2p-1)!!/(d(d+2)...(d+2p-2))", dims=("p",)),
        Output("moment_rel_gap", "largest relative gap among the three forms"),
        Output("sigma2", "E[sigma(s)^2] by integration", dims=("score",)),
        Output("relu_half_rel_gap", "largest |E[ReLU^p(s)^2]/(E[s^2p]/2) - 1|"),
        Output("capacity_exact", "M where (M-1) E[sigma^2] = 1 (exact)", "pairs", ("score",)),
        Output(
            "capacity_rule",
            "the note's rule 2/E[s^2p] (d for the linear score)",
            "pairs",
            ("score",),
        ),
        Output("capacity_leading", "leading order in d of the crossing", "pairs", ("score",)),
        Output("capacity_coeff", "exact crossing over d^p", dims=("score",)),
        Output("exact_over_leading", "exact crossing over its leading order", dims=("score",)),
        Output("relu_gain_exact", "ReLU crossing over linear crossing (exact)"),
    ),
    coords={
        "p": coord("power p of the moment E[s^2p]", list(POWERS)),
        "score": coord("score function of the read", list(SCORES)),
    },
    sections=(
        "memory-math ch5: moments and the capacity of each score (lines 22-24), D2 (line 68)",
        "every-layer-a-store: what a nonlinearity buys (lines 19-25)",
    ),
)
def score_capacity(d: int) -> dict:
    """Exact moments, E[sigma^2] per score, and the capacity of each score at width d."""
    integral = np.array([expect(lambda s, p=p: s ** (2 * p), d) for p in POWERS])
    beta = np.array([beta_moment(d, p) for p in POWERS])
    closed = np.array([double_factorial_moment(d, p) for p in POWERS])
    sigma2 = np.array([expect(lambda s, n=n: score(n, s) ** 2, d) for n in SCORES])
    half = np.array([sigma2[i] / (0.5 * beta[p - 1]) for i, p in ((1, 1), (2, 2), (3, 3))])
    exact = 1.0 + 1.0 / sigma2
    rule = np.array([1.0 / beta[0]] + [2.0 / beta[p - 1] for p in (1, 2, 3)])
    leading = np.array([leading_capacity(n, d) for n in SCORES])
    powers = np.array([score_power(n) for n in SCORES], dtype=float)
    return {
        "moment_integral": integral,
        "moment_beta": beta,
        "moment_closed": closed,
        "moment_rel_gap": float(
            max(np.max(np.abs(integral / beta - 1)), np.max(np.abs(closed / beta - 1)))
        ),
        "sigma2": sigma2,
        "relu_half_rel_gap": float(np.max(np.abs(half - 1))),
        "capacity_exact": exact,
        "capacity_rule": rule,
        "capacity_leading": leading,
        "capacity_coeff": exact / float(d) ** powers,
        "exact_over_leading": exact / leading,
        "relu_gain_exact": float(exact[1] / exact[0]),
    }


# ----------------------------------------------------------------------------- simulation


def sphere_dots(rng: np.random.Generator, n: int, d: int) -> np.ndarray:
    """Dot products of n uniform unit vectors in R^d with the query e_1.

    Exact shortcut: a unit vector is g/|g| with g standard normal, and its first coordinate is
    g_1 / sqrt(g_1^2 + chi2(d-1)), so only two numbers are drawn per key (tests compare it with
    full vectors)."""
    g1 = rng.standard_normal(n)
    return g1 / np.sqrt(g1**2 + rng.chisquare(d - 1, n))


def sphere_dots_direct(rng: np.random.Generator, n: int, d: int) -> np.ndarray:
    """The same drawn the long way, from full vectors (for the tests)."""
    g = rng.standard_normal((n, d))
    return g[:, 0] / np.linalg.norm(g, axis=1)


def memory_ladder(m_min: int, m_max: int) -> list[int]:
    """Numbers of stored memories shown by the figure: powers of two from m_min to m_max."""
    out, m = [], m_min
    while m <= m_max:
        out.append(m)
        m *= 2
    return out


HEBBIAN_LOADS = (0.5, 1.0, 2.0)  # M/d at which the linear read's prefixes are measured


def hebbian_prefix_isr2(keys_s: np.ndarray, values: np.ndarray, d: int) -> np.ndarray:
    """Mean squared interference of the linear (Hebbian) read when only the first M - 1 other
    memories are stored, M = load * d for each of HEBBIAN_LOADS (memory-math ch3, line 13: with
    unit keys and independent zero-mean unit values its expectation is (M - 1)/d). Each prefix
    is summed on its own, in memory order (the running sum's value at that prefix, bit for bit,
    without a cumulative sum over every prefix: numpy's along a middle axis is slow)."""
    terms = keys_s[..., None] * values  # (reads, others, d)
    others = [int(round(load * d)) - 1 for load in HEBBIAN_LOADS]
    if max(others) > keys_s.shape[1]:
        raise ValueError("the full memory is too small for the largest load (m_over_d >= 2)")
    return np.array([np.mean(np.sum(terms[:, :n].sum(axis=1) ** 2, axis=-1)) for n in others])


@experiment(
    grid={"d": ints(work=2, memory=2, doc="key width d"), "seed": seeds()},
    params={
        "samples": integer(min=1, memory=True),
        "reads": integer(min=1, work=True, memory=True),
        "m_over_d": integer(min=1, work=True, memory=True),
        "m_min": integer(min=2),
        "m_max": integer(min=2),
    },
    constraints=(
        require(
            "m_over_d >= 2",
            "the linear read is measured with up to 2 d pairs stored (HEBBIAN_LOADS), which a "
            "full memory of m_over_d d + 1 pairs holds only for m_over_d >= 2",
            "m_over_d",
        ),
    ),
    outputs=(
        Output("mc_moment", "Monte Carlo mean of s^2p", dims=("p",)),
        Output("mc_moment_gap", "Monte Carlo mean of s^2p over the Beta moment, - 1", dims=("p",)),
        Output("mc_sigma2", "Monte Carlo mean of sigma(s)^2", dims=("score",)),
        Output("mc_isr2_full", "mean squared interference, M = m_over_d d + 1", dims=("score",)),
        Output("expected_isr2_full", "(M-1) E[sigma^2] from the exact moments", dims=("score",)),
        Output("mc_isr2_gap", "mc_isr2_full / expected_isr2_full - 1", dims=("score",)),
        Output(
            "hebbian_isr2",
            "linear read, mean squared interference with M = load d pairs stored",
            dims=("load",),
        ),
        Output("hebbian_isr2_gap", "hebbian_isr2 / ((M-1)/d) - 1", dims=("load",)),
        Output(
            "draw_dots", "one draw: overlaps of the other keys with the query", dims=("memory",)
        ),
        Output("draw_isr", "one draw: interference-to-signal ratio", dims=("score", "M")),
        Output("sharper_leaks_less", "1 if the ratio falls with sharper scores at every M"),
    ),
    coords={
        "memory": coord("other stored key of the example draw (0 first)"),
        "p": coord("power p of the moment E[s^2p]", list(POWERS)),
        "score": coord("score function of the read", list(SCORES)),
        "load": coord("stored pairs per key dimension, M / d", list(HEBBIAN_LOADS)),
        "M": coord("number of stored pairs M", lambda **p: memory_ladder(p["m_min"], p["m_max"])),
    },
    sections=(
        "memory-math ch5: the Monte Carlo of the moments and the four-score figure (22-25)",
        "memory-math ch3: the Hebbian interference (M-1)/d at M = d/2, d, 2d (line 13)",
    ),
)
def score_interference(
    d: int, seed: int, samples: int, reads: int, m_over_d: int, m_min: int, m_max: int, rng
) -> dict:
    """One replicate: Monte Carlo moments of s, E[sigma(s)^2] per score, and the squared
    interference of a full memory (M = m_over_d * d + 1 pairs, unit values) per score; plus one
    draw of m_max keys read at a ladder of M for the figure. The *_gap outputs are each
    simulation over the exact value it should follow, minus one (zero in expectation)."""
    del seed
    s = sphere_dots(rng, samples, d)
    moments = np.array([np.mean(s ** (2 * p)) for p in POWERS])
    sigma2 = np.array([np.mean(score(n, s) ** 2) for n in SCORES])
    M = m_over_d * d + 1
    keys_s = sphere_dots(rng, reads * (M - 1), d).reshape(reads, M - 1)
    values = rng.standard_normal((reads, M - 1, d))
    values /= np.linalg.norm(values, axis=-1, keepdims=True)
    isr2 = []
    for n in SCORES:  # four scores over the same keys and values
        interference = np.einsum("rm,rmd->rd", score(n, keys_s), values)
        isr2.append(np.mean(np.sum(interference**2, axis=-1)))
    expected = (M - 1) * np.array(
        [beta_moment(d, 1)] + [0.5 * beta_moment(d, p) for p in (1, 2, 3)]
    )
    others = np.array([round(load * d) - 1 for load in HEBBIAN_LOADS], dtype=float)
    hebbian = hebbian_prefix_isr2(keys_s, values, d)
    draw = sphere_dots(rng, m_max - 1, d)
    ladder = memory_ladder(m_min, m_max)
    draw_isr = np.array(
        [[math.sqrt(np.sum(score(n, draw[: m - 1]) ** 2)) for m in ladder] for n in SCORES]
    )
    monotone = float(np.all(np.diff(draw_isr, axis=0) <= 1e-15))
    return {
        "mc_moment": moments,
        "mc_sigma2": sigma2,
        "mc_moment_gap": moments / np.array([beta_moment(d, p) for p in POWERS]) - 1.0,
        "mc_isr2_full": np.array(isr2),
        "expected_isr2_full": expected,
        "mc_isr2_gap": np.array(isr2) / expected - 1.0,
        "hebbian_isr2": hebbian,
        "hebbian_isr2_gap": hebbian / (others / d) - 1.0,
        "draw_dots": draw,
        "draw_isr": draw_isr,
        "sharper_leaks_less": monotone,
    }
