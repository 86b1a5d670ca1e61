"""A sum of outer products as a memory, with random unit keys (first-principles B3 ii and B4,
lines 392-439; memory-math chapter 3 and derivations D1, D13; every-layer-a-store, the
outer-product store, lines 11-17).

Each replicate (one ``seed``) stores m pairs in S = sum_i v_i k_i^T, ``trials`` times at every
width d and load m/d, and reads back ``queries`` of the stored pairs per trial (all of them when
m is smaller), with one-hot values naming one of N names (repeats allowed). It records the
interference-to-signal ratio sqrt(E|eps|^2), the chance that the largest score names the right
name, the same chance in the Gaussian closed form (numerical integration), the look-back that
returns the value of the most similar stored key, and the least-squares store at one width.

Sampling shortcut (exact in distribution, not an approximation): a read only needs the overlaps
of every stored key with the queried ones. Take the queried keys directly (Gaussian, normalised)
and write them as Q R with Q an orthonormal basis of their span. Any other key is uniform on the
sphere and independent of them, so its coordinates in that basis are the first q coordinates of
a uniform unit vector, g / sqrt(|g|^2 + chi2(d - q)) with g standard normal in R^q; its overlaps
with the queries are those coordinates times R. This costs O(m q) per trial instead of O(m d).
tests/test_random_key_memory.py checks it against direct sampling in distribution.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from scipy import integrate, special

from ..spec import Output, coord, experiment, from_param, integer, ints, real, require, seeds

_SQRT_2PI = math.sqrt(2 * math.pi)


def widths(d_min: int, n_widths: int) -> list[int]:
    """Key widths d_min, 2 d_min, 4 d_min, ... (8, 16, 32, 64 by default)."""
    return [int(d_min) * 2**i for i in range(int(n_widths))]


def loads(ratio_step: float, figure_ratio_max: float, far_step: float, ratio_max: float) -> list:
    """The loads m/d of the sweep: ratio_step, 2 ratio_step, ..., figure_ratio_max (the note's
    figure, at every width), then far_step apart up to ratio_max (the look-back figure, at
    ls_width only)."""
    n = int(round(figure_ratio_max / ratio_step))
    near = [round(ratio_step * (i + 1), 10) for i in range(n)]
    n_far = int(round((ratio_max - figure_ratio_max) / far_step))
    return near + [round(figure_ratio_max + far_step * (i + 1), 10) for i in range(n_far)]


def unit_rows(rng: np.random.Generator, shape: tuple) -> np.ndarray:
    """Independent uniform unit vectors along the last axis."""
    x = rng.standard_normal(shape)
    x /= np.sqrt(np.sum(x * x, axis=-1, keepdims=True))  # np.linalg.norm's sum, without its copy
    return x


def direct_overlaps(rng: np.random.Generator, d: int, m: int, q: int, trials: int) -> np.ndarray:
    """Overlaps k_i . k_b of m stored unit keys with the first q of them, the long way."""
    keys = unit_rows(rng, (trials, m, d))
    return keys @ keys[:, :q].transpose(0, 2, 1)


def query_factor(rng: np.random.Generator, d: int, q: int, trials: int) -> np.ndarray:
    """R of q independent uniform unit keys in R^d written as Q R (Q with orthonormal columns),
    shape (trials, q, q), without drawing the keys: the R factor of a d x q standard normal
    matrix has independent entries, chi(d - i) on the diagonal (row i from 0) and standard
    normal above it (Bartlett), and normalising a key divides its column of R by its norm."""
    r = np.triu(rng.standard_normal((trials, q, q)), 1)
    idx = np.arange(q)
    r[:, idx, idx] = np.sqrt(rng.chisquare(d - idx, (trials, q)))
    return r / np.linalg.norm(r, axis=1, keepdims=True)


def shortcut_overlaps(rng: np.random.Generator, d: int, m: int, q: int, trials: int) -> np.ndarray:
    """The same overlaps, shape (trials, m, q), drawn in O(m q) (see the module docstring)."""
    r = query_factor(rng, d, q, trials)
    g = rng.standard_normal((trials, m - q, q))
    rest = rng.chisquare(d - q, (trials, m - q)) if d > q else np.zeros((trials, m - q))
    coords = g / np.sqrt(np.einsum("tmq,tmq->tm", g, g) + rest)[..., None]
    over = np.empty((trials, m, q))  # the queried keys' own Gram matrix, then the other keys
    np.matmul(r.transpose(0, 2, 1), r, out=over[:, :q])
    np.matmul(coords, r, out=over[:, q:])
    return over


@lru_cache(maxsize=4096)
def gaussian_correct(s: float, n_names: int) -> float:
    """Chance that the right name has the largest of N scores when each score carries
    independent N(0, s^2) noise: the integral of phi(z) Phi(z + 1/s)^(N-1) (B3, line 416)."""
    if s == 0:
        return 1.0

    shift, power = 1.0 / s, n_names - 1

    def f(z):
        return math.exp(-0.5 * z * z) / _SQRT_2PI * special.ndtr(z + shift) ** power

    return integrate.quad(f, -np.inf, np.inf, epsabs=1e-12, epsrel=1e-10)[0]


def overlap_second_moment(d: int) -> float:
    """E[(k . k')^2] for independent uniform unit keys in R^d, integrated from the density of
    one overlap, proportional to (1 - t^2)^((d-3)/2) on [-1, 1] (B3, line 413; D1)."""

    def dens(t):
        return (1.0 - t * t) ** ((d - 3) / 2)

    num = integrate.quad(lambda t: t * t * dens(t), -1, 1, epsabs=1e-14)[0]
    return num / integrate.quad(dens, -1, 1, epsabs=1e-14)[0]


def read_memory(rng, d: int, m: int, queries: int, trials: int, n_names: int, value_dim: int):
    """One load: the reads of a Hebbian store with one-hot values and the look-back's reads;
    with ``value_dim`` > 0 also the interference with random unit values (memory-math's
    zero-mean values) stored under the same keys."""
    q = min(queries, m)
    over = shortcut_overlaps(rng, d, m, q, trials)  # (trials, m, q)
    names = rng.integers(n_names, size=(trials, m))
    onehot = np.eye(n_names)[names]  # (trials, m, N)
    scores = (onehot.transpose(0, 2, 1) @ over).transpose(0, 2, 1)  # (trials, q, N)
    noise = scores - onehot[:, :q]
    own = np.arange(q)
    out = {
        "noise_sq": float(np.mean(np.sum(noise**2, axis=-1))),
        "accuracy": float(np.mean(scores.argmax(axis=-1) == names[:, :q])),
        "lookback": float(np.mean(over.argmax(axis=1) == own)),
        "leak": float(np.mean(np.abs(over).sum(axis=1) - np.abs(over[:, own, own]))),
        "noise_sq_unit": float("nan"),
    }
    if value_dim > 0:
        vals = unit_rows(rng, (trials, m, value_dim))
        noise_unit = (vals.transpose(0, 2, 1) @ over).transpose(0, 2, 1) - vals[:, :q]
        out["noise_sq_unit"] = float(np.mean(np.sum(noise_unit**2, axis=-1)))
    return out


def least_squares_reads(rng, d: int, m: int, queries: int, trials: int, n_names: int) -> dict:
    """The least-squares store reads key b as sum_i P_ib v_i, with P = K pinv(K) the projection
    onto the span of the keys: signal P_bb v_b, interference the rest. The queried columns of P
    come from one small solve: K (K^T K)^-1 K_q^T when m >= d, (K K^T)(K K^T)^-1 when m < d."""
    q = min(queries, m)
    keys = unit_rows(rng, (trials, m, d))
    if m >= d:
        proj = keys @ np.linalg.solve(
            keys.transpose(0, 2, 1) @ keys, keys[:, :q].transpose(0, 2, 1)
        )
    else:
        gram = keys @ keys.transpose(0, 2, 1)
        proj = gram @ np.linalg.solve(gram, np.broadcast_to(np.eye(m)[:, :q], (trials, m, q)))
    names = rng.integers(n_names, size=(trials, m))
    onehot = np.eye(n_names)[names]
    own = np.arange(q)
    diag = proj[:, own, own]  # (trials, q)
    recall = (onehot.transpose(0, 2, 1) @ proj).transpose(0, 2, 1)
    signal = diag[..., None] * onehot[:, :q]
    interference = recall - signal
    return {
        "ratio": math.sqrt(np.mean(np.sum(interference**2, -1)) / np.mean(np.sum(signal**2, -1))),
        "error": float(np.max(np.abs(recall - onehot[:, :q]))),
    }


def crossing(x: np.ndarray, y: np.ndarray, level: float = 1.0) -> float:
    """Where y (increasing in x) first reaches ``level``, linearly interpolated (NaN if never)."""
    above = np.flatnonzero(y >= level)
    if above.size == 0:
        return float("nan")
    i = int(above[0])
    if i == 0:
        return float(x[0])
    return float(x[i - 1] + (level - y[i - 1]) * (x[i] - x[i - 1]) / (y[i] - y[i - 1]))


def small_identities(rng: np.random.Generator, d: int = 5, d_v: int = 4, m: int = 6) -> dict:
    """memory-math chapter 3 (line 13, line 15) on one small random instance: the write as a sum
    of outer products equals V^T K, the read W x equals sum_i v_i (k_i . x), adding a pair is a
    rank-one change, the gradient of a linear layer's loss is ybar x^T, and the gradient of the
    correlation v^T W k is v k^T (the last two by central finite differences)."""
    keys, vals, x = (
        rng.standard_normal((m, d)),
        rng.standard_normal((m, d_v)),
        rng.standard_normal(d),
    )
    w = sum(np.outer(vals[i], keys[i]) for i in range(m))
    read = sum(vals[i] * (keys[i] @ x) for i in range(m))
    k_new, v_new = rng.standard_normal(d), rng.standard_normal(d_v)
    change = (w + np.outer(v_new, k_new)) - w
    y = rng.standard_normal(d_v)
    eps = 1e-6

    def fd(fun):
        out = np.empty_like(w)
        for a in range(d_v):
            for b in range(d):
                e = np.zeros_like(w)
                e[a, b] = eps
                out[a, b] = (fun(w + e) - fun(w - e)) / (2 * eps)
        return out

    def sq_loss(mat):
        return 0.5 * float(np.sum((mat @ x - y) ** 2))

    def correlation(mat):
        return float(v_new @ mat @ k_new)

    ybar = w @ x - y
    return {
        "write_gap": float(np.max(np.abs(w - vals.T @ keys))),
        "read_gap": float(np.max(np.abs(w @ x - read))),
        "update_rank": float(np.linalg.matrix_rank(change)),
        "sgd_grad_gap": float(np.max(np.abs(fd(sq_loss) - np.outer(ybar, x)))),
        "hebb_grad_gap": float(np.max(np.abs(fd(correlation) - np.outer(v_new, k_new)))),
    }


def _grid_coords(**p):
    return widths(p["d_min"], p["n_widths"])


@experiment(
    grid={"seed": seeds()},
    params={
        "N": integer(min=2),
        "trials": integer(min=1, memory=True, work=True),
        "queries": integer(min=1),
        "d_min": integer(min=1, work=True, memory=True),
        "n_widths": integer(min=1, max=40, doc="key widths d_min, 2 d_min, 4 d_min, ..."),
        "ratio_step": real(gt=0, work=-1, memory=-1),
        "figure_ratio_max": real(gt=0, work=True, memory=True),
        "far_step": real(gt=0, work=-1),
        "ratio_max": real(gt=0, work=True, memory=True),
        "ls_width": integer(min=1, doc="must be one of the widths", work=True, memory=2),
        "value_dim": integer(min=1),
        "moment_samples": integer(min=2),
        "shown_m": ints(min=1, ranges=False, doc="memories whose recall weights are drawn"),
    },
    constraints=(
        require(
            "queries <= N",
            "a trial reads back at most N of its stored pairs: queries must be at most N",
            "queries",
            "N",
        ),
        require(
            "d_min * 2 ** (n_widths - 1) <= 16384",
            "the widest key, d_min 2^(n_widths - 1), must be at most 16384",
            "n_widths",
            "d_min",
        ),
        require(
            "ls_width in [d_min * 2**i for i in range(n_widths)]",
            "must be one of the widths d_min, 2 d_min, 4 d_min, ... (n_widths of them)",
            "ls_width",
            "d_min",
            "n_widths",
        ),
    ),
    outputs=(
        Output("m_pairs", "stored pairs m", "pairs", ("d", "load")),
        Output("noise_sq", "mean squared interference of a read", dims=("d", "load")),
        Output("noise_ratio", "measured interference-to-signal ratio", dims=("d", "load")),
        Output("noise_ratio_formula", "sqrt((m-1)/d)", dims=("d", "load")),
        Output("noise_sq_formula", "(m-1)/d", dims=("d", "load")),
        Output(
            "noise_sq_gap", "mean squared interference over (m-1)/d, minus 1", dims=("d", "load")
        ),
        Output(
            "noise_ratio_unit_values",
            "measured ratio with random unit values (at ls_width)",
            dims=("d", "load"),
        ),
        Output(
            "accuracy",
            "chance the right name scores highest (far loads at ls_width only)",
            dims=("d", "load"),
        ),
        Output("accuracy_gaussian", "the same, Gaussian closed form", dims=("d", "load")),
        Output(
            "lookback_accuracy", "chance the look-back returns the right pair", dims=("d", "load")
        ),
        Output("lookback_min", "smallest look-back accuracy over every simulated point"),
        Output("guess_accuracy", "chance of a uniform guess, 1/N"),
        Output(
            "gaussian_at_unit_ratio",
            "Gaussian closed form where interference equals signal, (m-1)/d = 1",
        ),
        Output(
            "leak_total",
            "mean total |overlap| of the other keys with the query",
            dims=("d", "load"),
        ),
        Output(
            "leak_growth_min",
            "smallest rise of leak_total from one figure load to the next",
            dims=("d",),
        ),
        Output("max_rel_dev", "largest |measured / formula - 1| over the figure's points"),
        Output("width_spread", "largest minus smallest accuracy over the widths", dims=("load",)),
        Output("width_spread_max", "largest width spread over the figure's loads"),
        Output("hebbian_crossing", "m/d where the measured ratio reaches 1", dims=("d",)),
        Output("hebbian_crossing_formula", "(d+1)/d, where sqrt((m-1)/d) = 1", dims=("d",)),
        Output(
            "ls_ratio", "least-squares store: interference over signal at ls_width", dims=("load",)
        ),
        Output("ls_exact_error", "least-squares store: largest recall error for m <= d"),
        Output("ls_crossing", "least-squares store: m/d where its ratio reaches 1"),
        Output("state_numbers", "numbers in the fixed state, N d", dims=("d",)),
        Output("kept_numbers", "numbers kept by keeping every pair, m (d + N)", dims=("d", "load")),
        Output("orthonormal_error", "largest recall error with d orthonormal keys", dims=("d",)),
        Output(
            "recall_weights",
            "overlaps k_i . k_1 of one draw (own key first)",
            dims=("shown_m", "pair"),
        ),
        Output("overlap_sq", "mean (k . k')^2 of random unit keys, sampled", dims=("d",)),
        Output("overlap_sq_exact", "E (k . k')^2 from the overlap's density", dims=("d",)),
        Output("overlap_sq_gap", "sampled mean (k . k')^2 times d, minus 1", dims=("d",)),
        Output("dot_var_gauss", "variance of q . k, standard normal entries", dims=("d",)),
        Output("dot_var_sign", "variance of q . k, random sign entries", dims=("d",)),
        Output("write_gap", "largest |sum of outer products - V^T K|"),
        Output("read_gap", "largest |W x - sum_i v_i (k_i . x)|"),
        Output("update_rank", "rank of the change made by adding one pair"),
        Output("sgd_grad_gap", "largest |finite-difference gradient - ybar x^T|"),
        Output("hebb_grad_gap", "largest |finite-difference gradient of v^T W k - v k^T|"),
    ),
    coords={
        "pair": coord("stored pair whose key overlaps the query key (own key first)"),
        "d": coord("key width d", _grid_coords),
        "load": coord(
            "stored pairs per key dimension, m / d",
            lambda **p: loads(
                p["ratio_step"], p["figure_ratio_max"], p["far_step"], p["ratio_max"]
            ),
        ),
        "shown_m": from_param("shown_m"),
    },
    sections=(
        "first-principles B3 (ii) and B4: the random-key memory and the look-back (lines 392-439)",
        "memory-math chapter 3 (lines 13-15), D1 and D13 (line 68)",
        "every-layer-a-store: the outer-product store (lines 11-17)",
    ),
)
def random_key_memory(
    seed: int,
    N: int,
    trials: int,
    queries: int,
    d_min: int,
    n_widths: int,
    ratio_step: float,
    figure_ratio_max: float,
    far_step: float,
    ratio_max: float,
    ls_width: int,
    value_dim: int,
    moment_samples: int,
    shown_m: list[int],
    rng,
) -> dict:
    """One replicate of the whole sweep over widths d and loads m/d (see the module docstring).
    The parts draw from ``rng`` in this order."""
    del seed  # a replicate index: it only selects this point's generator
    ds = widths(d_min, n_widths)
    rs = np.array(loads(ratio_step, figure_ratio_max, far_step, ratio_max))
    in_figure = rs <= figure_ratio_max + 1e-9
    m_pairs = np.rint(rs[None, :] * np.array(ds)[:, None])
    res = simulate_reads(rng, ds, m_pairs, in_figure, N, queries, trials, ls_width, value_dim)
    out = {"m_pairs": m_pairs}
    out.update(hebbian_interference(res, ds, rs, m_pairs, in_figure))
    out.update(name_accuracy(res, ds, m_pairs, in_figure, N))
    out.update(lookback_reads(res, in_figure))
    out.update(least_squares_interference(rng, ls_width, rs, in_figure, queries, trials, N))
    out.update(storage_counts(ds, m_pairs, N))
    out.update(key_moments(rng, ds, moment_samples))
    out.update(orthonormal_recall(rng, ds, N))
    out.update(recall_bars(rng, shown_m, ls_width))
    out.update(small_identities(rng))
    return out


def simulate_reads(rng, ds, m_pairs, in_figure, N, queries, trials, ls_width, value_dim) -> dict:
    """Mean reads of the Hebbian store at every (d, load), far loads at ls_width only (B3, B4)."""
    keys = ("noise_sq", "accuracy", "noise_sq_unit", "lookback", "leak")
    res = {k: np.full(m_pairs.shape, np.nan) for k in keys}
    for a, d in enumerate(ds):
        for b in range(m_pairs.shape[1]):
            if not in_figure[b] and d != ls_width:
                continue  # the far loads are read at ls_width only
            dv = value_dim if (d == ls_width and in_figure[b]) else 0
            for k, v in read_memory(rng, d, int(m_pairs[a, b]), queries, trials, N, dv).items():
                res[k][a, b] = v
    return res


def hebbian_interference(res, ds, rs, m_pairs, in_figure) -> dict:
    """Measured interference vs sqrt((m-1)/d), and where it reaches 1 (first-principles 397-413)."""
    formula = np.sqrt((m_pairs - 1) / np.array(ds)[:, None])
    ratio = np.sqrt(res["noise_sq"])
    return {
        "noise_sq": res["noise_sq"],
        "noise_ratio": ratio,
        "noise_ratio_formula": formula,
        "noise_sq_formula": formula**2,
        "noise_sq_gap": res["noise_sq"] / formula**2 - 1.0,
        "noise_ratio_unit_values": np.sqrt(res["noise_sq_unit"]),
        "max_rel_dev": float(np.max(np.abs(ratio[:, in_figure] / formula[:, in_figure] - 1))),
        "hebbian_crossing": np.array(
            [crossing(rs[in_figure], ratio[a, in_figure]) for a in range(len(ds))]
        ),
        "hebbian_crossing_formula": np.array([(d + 1) / d for d in ds], dtype=float),
    }


def name_accuracy(res, ds, m_pairs, in_figure, N) -> dict:
    """Chance of the right name, simulated and in Gaussian form (first-principles 414-420)."""
    gauss = np.vectorize(lambda m, d: gaussian_correct(math.sqrt((m - 1) / (N * d)), N))(
        m_pairs, np.array(ds)[:, None]
    )
    spread = res["accuracy"].max(axis=0) - res["accuracy"].min(axis=0)
    return {
        "accuracy": res["accuracy"],
        "accuracy_gaussian": gauss,
        "guess_accuracy": 1.0 / N,
        "gaussian_at_unit_ratio": gaussian_correct(math.sqrt(1.0 / N), N),
        "width_spread": spread,
        "width_spread_max": float(np.max(spread[in_figure])),
    }


def lookback_reads(res, in_figure) -> dict:
    """The look-back's accuracy and the other keys' growing leak (first-principles 436-439)."""
    return {
        "lookback_accuracy": res["lookback"],
        "lookback_min": float(np.nanmin(res["lookback"])),
        "leak_total": res["leak"],
        "leak_growth_min": np.min(np.diff(res["leak"][:, in_figure], axis=1), axis=1),
    }


def least_squares_interference(rng, ls_width, rs, in_figure, queries, trials, N) -> dict:
    """The least-squares store's interference at ls_width, figure loads (memory-math 15-16)."""
    ls_rs = rs[in_figure]
    ls = [
        least_squares_reads(rng, ls_width, int(round(r * ls_width)), queries, trials, N)
        for r in ls_rs
    ]
    ls_ratio = np.full(len(rs), np.nan)
    ls_ratio[in_figure] = [x["ratio"] for x in ls]
    exact_loads = ls_rs <= 1 + 1e-9
    return {
        "ls_ratio": ls_ratio,
        "ls_exact_error": max(x["error"] for x, ok in zip(ls, exact_loads, strict=True) if ok),
        "ls_crossing": crossing(ls_rs, ls_ratio[in_figure]),
    }


def storage_counts(ds, m_pairs, N) -> dict:
    """Numbers in the fixed state against keeping every pair (first-principles lines 396, 439)."""
    return {
        "state_numbers": np.array([N * d for d in ds], dtype=float),
        "kept_numbers": m_pairs * (np.array(ds)[:, None] + N),
    }


def key_moments(rng, ds, moment_samples: int) -> dict:
    """E (k . k')^2 = 1/d sampled and integrated; q . k variances (first-principles 399-401, D1)."""
    moments = {"overlap_sq": [], "overlap_sq_exact": [], "dot_var_gauss": [], "dot_var_sign": []}
    for d in ds:
        k1, k2 = unit_rows(rng, (2, moment_samples, d))
        moments["overlap_sq"].append(float(np.mean(np.sum(k1 * k2, -1) ** 2)))
        moments["overlap_sq_exact"].append(overlap_second_moment(d))
        qg, kg = rng.standard_normal((2, moment_samples, d))
        moments["dot_var_gauss"].append(float(np.var(np.sum(qg * kg, -1), ddof=1)))
        qs, ks = rng.choice([-1.0, 1.0], size=(2, moment_samples, d))
        moments["dot_var_sign"].append(float(np.var(np.sum(qs * ks, -1), ddof=1)))
    out = {k: np.array(v) for k, v in moments.items()}
    out["overlap_sq_gap"] = np.array(moments["overlap_sq"]) * np.array(ds) - 1.0
    return out


def orthonormal_recall(rng, ds, N) -> dict:
    """d orthonormal keys recall their one-hot values exactly (first-principles lines 746-750)."""
    orth_err = []
    for d in ds:
        basis = np.linalg.qr(rng.standard_normal((d, d)))[0]  # rows: d orthonormal keys
        vals = np.eye(N)[rng.integers(N, size=d)]
        store = vals.T @ basis
        orth_err.append(float(np.max(np.abs(basis @ store.T - vals))))
    return {"orthonormal_error": np.array(orth_err)}


def recall_bars(rng, shown_m, ls_width: int) -> dict:
    """Overlaps of one draw's keys with the first, per shown m (memory-math figure, line 14)."""
    weights = np.full((len(shown_m), max(shown_m)), np.nan)
    for a, m in enumerate(shown_m):
        k = unit_rows(rng, (m, ls_width))
        weights[a, :m] = k @ k[0]
    return {"recall_weights": weights}
