"""A state carried from token to token (first-principles Part B, B1, B2 and B3 iii).

Three experiments:

- ``future_states`` (B1, lines 336-356; B3 i, lines 387-391): how many distinct futures the
  prefixes of a ToyLang sentence have at each length, counted exactly by grouping the prefixes of
  an enumerated language by their sets of completions, against the closed form of the note;
  with the sizes the note compares it to (n-gram contexts, the recurrent net's parameters, the
  counting bound on a state of d numbers of b bits).
- ``gradient_through_time`` (B2, lines 358-383): the size of a unit gradient sent back D steps
  through a 16-unit recurrent net with W_h = g Q (Q random orthogonal), linear and tanh, a batch
  of networks per replicate; the forget-gate path f^D; the unrolled linear state.
- ``recurrence_scan`` (B3 iii, lines 423-434; B4, line 446): a linear recurrence evaluated by a
  parallel scan in rounds, against the sequential loop; and the direct path of a soft look-back.
"""

from __future__ import annotations

import math

import numpy as np

from ..spec import Output, coord, experiment, integer, ints, real, reals, seeds
from . import toylang as tl
from .softmax import softmax

# --------------------------------------------------------------------------- B1: futures


def future_counts_formula(n_names: int, gap: int) -> np.ndarray:
    """Distinct futures after t = 0..10+L tokens, as the note's derivation counts them (B1,
    line 339): 1, N, N, then N(N-1) up to t = 6+L, N at 7+L and 8+L, 1 at 9+L and 10+L."""
    counts = np.ones(tl.length(gap) + 1)
    counts[1:3] = n_names
    counts[3 : 7 + gap] = n_names * (n_names - 1)
    counts[7 + gap : 9 + gap] = n_names
    return counts


def future_counts_enumerated(sentences: np.ndarray) -> np.ndarray:
    """Distinct futures after t = 0..T tokens, counted exactly: group the (equally likely)
    sentences by their first t tokens; a prefix's future is the set of its completions, so two
    prefixes share a future when those sets are equal. Suffixes and prefixes are given integer
    ids with np.unique, and each prefix's sorted list of suffix ids is its future."""
    s = np.ascontiguousarray(sentences, dtype=np.int64)
    total = s.shape[1]
    out = np.empty(total + 1)
    for t in range(total + 1):
        prefix = _row_ids(s[:, :t])
        suffix = _row_ids(s[:, t:])
        order = np.lexsort((suffix, prefix))
        p, q = prefix[order], suffix[order].tobytes()  # each group's ids, as bytes
        ends = (np.r_[np.flatnonzero(np.diff(p)) + 1, len(p)] * 8).tolist()
        futures = {q[a:b] for a, b in zip([0, *ends[:-1]], ends, strict=True)}
        out[t] = len(futures)
    return out


def _row_ids(rows: np.ndarray) -> np.ndarray:
    """An integer id per row, equal ids for equal rows (an empty row has id 0)."""
    if rows.shape[1] == 0:
        return np.zeros(len(rows), dtype=np.int64)
    rows = np.ascontiguousarray(rows)
    keys = rows.view(np.dtype((np.void, rows.dtype.itemsize * rows.shape[1]))).ravel()
    return np.unique(keys, return_inverse=True)[1].astype(np.int64)


def rnn_parameters(d: int, vocab: int) -> int:
    """Weights of the one-hot recurrent net: d^2 + 2 d |V| + d + |V| (B1, line 354)."""
    return d * d + 2 * d * vocab + d + vocab


def counting_bound(bits: int, d: int, n_names: int) -> float:
    """The most independent N-way answers a state of d numbers of b bits can determine:
    floor(b d / log2 N) (B3 i, line 389)."""
    return float(math.floor(bits * d / math.log2(n_names) + 1e-12))


BITS = (16, 32)


def _flat(counts: np.ndarray) -> float:
    """1 if every count is the same (the enumerated futures through the gap), else 0."""
    return float(np.all(counts == counts[0]))


@experiment(
    grid={
        "N": ints(min=2, ranges=False, doc="number of names X, Y can be drawn from in ToyLang"),
        "F": ints(doc="number of filler words in ToyLang's vocabulary"),
        "L": ints(
            min=0, doc="gap L: filler tokens between the thing and 'then' in a ToyLang sentence"
        ),
    },
    params={
        "max_enumerated": integer(min=1),
        "d_state": integer(min=1, doc="width of the recurrent state"),
    },
    outputs=(
        Output("futures", "distinct futures after t tokens, enumerated", dims=("t",)),
        Output("futures_formula", "distinct futures after t tokens, closed form", dims=("t",)),
        Output("state_nats", "log of the number of distinct futures", "nats", ("t",)),
        Output("enumerated", "1 where the language was enumerated"),
        Output("formula_gap", "largest |enumerated - closed form| over t"),
        Output("plateau_nats", "log of the futures inside the gap", "nats"),
        Output("plateau_bits", "log2 of the futures inside the gap", "bits"),
        Output("plateau_flat", "1 if the count is the same at every t of the gap"),
        Output(
            "plateau_flat_enumerated",
            "1 if the enumerated count is the same at every t from the second name to 'then'",
        ),
        Output("first_name_nats", "log of the futures after the first name", "nats"),
        Output("position_nats", "log of the number of prefix lengths, ln(11+L)", "nats"),
        Output("copy_distance", "tokens from the first name to its copy", "tokens"),
        Output("sentence_tokens", "tokens in a sentence", "tokens"),
        Output("ngram_contexts", "contexts of a table that answers the final name"),
        Output("vocab", "words in the vocabulary", "words"),
        Output("rnn_params", "weights of the one-hot recurrent net of width d_state"),
        Output(
            "bound_pairs", "most N-way answers a state of d b-bit numbers fixes", "pairs", ("bits",)
        ),
    ),
    coords={
        "t": coord("tokens of the sentence read so far"),
        "bits": coord("bits of each number in the state", BITS),
    },
    sections=(
        "first-principles B1: the state a prediction needs, the recurrent net (lines 336-357)",
        "first-principles B3 (i): the counting bound (lines 387-391)",
    ),
)
def future_states(N: int, F: int, L: int, max_enumerated: int, d_state: int) -> dict:
    """Futures per prefix length (closed form, and exact by enumeration where the language has
    at most ``max_enumerated`` sentences), with the sizes B1 and B3 i compare them to."""
    formula = future_counts_formula(N, L)
    enumerable = tl.n_sentences(N, F, L) <= max_enumerated
    if enumerable:
        counted = future_counts_enumerated(tl.enumerate_sentences(N, F, L))
        gap = float(np.max(np.abs(counted - formula)))
    else:
        counted = np.full_like(formula, np.nan)
        gap = float("nan")
    plateau = formula[3 : 7 + L]
    vocab = tl.vocab_size(N, F)
    return {
        "futures": counted,
        "futures_formula": formula,
        "state_nats": np.log(formula),
        "enumerated": float(enumerable),
        "formula_gap": gap,
        "plateau_nats": float(np.log(plateau.max())),
        "plateau_bits": float(np.log2(plateau.max())),
        "plateau_flat": float(np.all(plateau == plateau[0])),
        "plateau_flat_enumerated": _flat(counted[3 : 7 + L]) if enumerable else float("nan"),
        "first_name_nats": float(np.log(formula[1])),
        "position_nats": math.log(tl.length(L) + 1),
        "copy_distance": float(tl.copy_positions(L)["X"] - tl.copy_positions(L)["X_source"]),
        "sentence_tokens": float(tl.length(L)),
        "ngram_contexts": float(N * (N - 1) * len(tl.THINGS)) * float(F) ** L,
        "vocab": float(vocab),
        "rnn_params": float(rnn_parameters(d_state, vocab)),
        "bound_pairs": np.array([counting_bound(b, d_state, N) for b in BITS]),
    }


# --------------------------------------------------------------------------- B2: gradients


FORGET = (0.98, 0.99, 1.0)


def random_orthogonal(rng: np.random.Generator, batch: int, d: int) -> np.ndarray:
    """``batch`` Haar-random orthogonal d x d matrices (QR of Gaussians, signs fixed)."""
    q, r = np.linalg.qr(rng.standard_normal((batch, d, d)))
    return q * np.sign(np.diagonal(r, axis1=1, axis2=2))[:, None, :]


def tanh_backprop(w: np.ndarray, inputs: np.ndarray, grad: np.ndarray) -> np.ndarray:
    """Norm of dl/dh_{n-D} for D = 0..n-1 in a batch of tanh nets h_t = tanh(W h_{t-1} + x_t),
    h_0 = 0, given dl/dh_n = ``grad``: each step back multiplies by J^T = W^T diag(1 - h^2)."""
    batch, n, d = inputs.shape
    h = np.zeros((batch, d))
    states = np.empty((batch, n, d))
    for t in range(n):
        h = np.tanh(np.einsum("bij,bj->bi", w, h) + inputs[:, t])
        states[:, t] = h
    back = np.empty((batch, n, d))  # dl/dh_{n-D}, normed together at the end
    back[:, 0] = v = grad
    for dist in range(1, n):
        back[:, dist] = v = np.einsum("bji,bj->bi", w, (1.0 - states[:, n - dist] ** 2) * v)
    return np.linalg.norm(back, axis=-1)


def linear_backprop(w: np.ndarray, grad: np.ndarray, steps: int) -> np.ndarray:
    """Norm of (W^T)^D grad for D = 0..steps-1 (the linear net's Jacobian product)."""
    back = np.empty((*grad.shape[:1], steps, grad.shape[1]))  # (W^T)^D grad, normed at the end
    back[:, 0] = v = grad
    for dist in range(1, steps):
        back[:, dist] = v = np.einsum("bji,bj->bi", w, v)
    return np.linalg.norm(back, axis=-1)


def unrolled_gaps(rng: np.random.Generator, g: float, d: int, n: int) -> tuple[float, float]:
    """B2 derivation (lines 370-377) on one linear net: the largest gap between the recurrence
    and the unrolled sum of W^(n-s) W_x e(w_s), and between the gradient of a loss of h_n with
    respect to the input at s, taken by finite differences, and (W^(n-s))^T dl/dh_n."""
    w = g * random_orthogonal(rng, 1, d)[0]
    x = rng.standard_normal((n, d))  # the inputs W_x e(w_s)
    h = np.zeros(d)
    for t in range(n):
        h = w @ h + x[t]
    unrolled = sum(np.linalg.matrix_power(w, n - 1 - s) @ x[s] for s in range(n))
    a = rng.standard_normal(d)

    def loss(xs):
        hh = np.zeros(d)
        for t in range(n):
            hh = w @ hh + xs[t]
        return 0.5 * float(np.sum((hh - a) ** 2))

    s = n // 2
    dl_dh = h - a
    predicted = np.linalg.matrix_power(w, n - 1 - s).T @ dl_dh
    eps = 1e-6
    fd = np.empty(d)
    for i in range(d):
        up, down = x.copy(), x.copy()
        up[s, i] += eps
        down[s, i] -= eps
        fd[i] = (loss(up) - loss(down)) / (2 * eps)
    scale = max(1.0, float(np.max(np.abs(predicted))))
    return float(np.max(np.abs(h - unrolled))), float(np.max(np.abs(fd - predicted)) / scale)


def nonnormal_power_ratios(
    rng: np.random.Generator, g: float, d: int, steps: int
) -> tuple[float, float]:
    """B2, line 365, on a random diagonalizable, non-normal W = Z diag(lambda) Z^-1 with
    spectral radius g: the smallest ||W^D||_2 / rho^D and the largest ||W^D||_2 / (cond(Z)
    rho^D) over D = 1..steps-1 (D = 0 is 1 on both sides and is left out). The norms come from
    singular values of the computed powers, the bounds from the eigenvalues and cond(Z); the
    note's bounds say the first is at least 1 and the second at most 1."""
    z = rng.standard_normal((d, d))
    lam = rng.uniform(-1.0, 1.0, d)
    lam *= g / np.max(np.abs(lam))
    w = z @ np.diag(lam) @ np.linalg.inv(z)
    cond = np.linalg.cond(z)
    powers = np.empty((steps, d, d))
    powers[0] = np.eye(d)
    for dist in range(1, steps):
        powers[dist] = w @ powers[dist - 1]
    size = np.linalg.svd(powers, compute_uv=False)[1:, 0]
    rho = g ** np.arange(1, steps)
    return float(np.min(size / rho)), float(np.max(size / (cond * rho)))


def nonnormal_bounds_hold(rng: np.random.Generator, g: float, d: int, steps: int) -> float:
    """1 if rho^D <= ||W^D||_2 <= cond(Z) rho^D for D = 0..steps-1 (see nonnormal_power_ratios)."""
    lower, upper = nonnormal_power_ratios(rng, g, d, steps)
    return float(lower >= 1 - 1e-9 and upper <= 1 + 1e-9)


@experiment(
    grid={"g": reals(gt=0, max=50, doc="gain g of the recurrent weight"), "seed": seeds()},
    params={
        "units": integer(min=1, memory=2),
        "nets": integer(min=2, doc="networks per replicate", work=True, memory=True),
        "steps": integer(min=2, doc="tokens per run", work=True, memory=True),
        "input_scale": real(min=0),
        "far": integer(min=1, doc="distance of the final name"),
    },
    outputs=(
        Output("linear_exact", "g^D, the linear net's gradient size", dims=("D",)),
        Output("linear_measured", "linear net's gradient size, one network", dims=("D",)),
        Output("linear_rel_error", "largest |measured / g^D - 1| over D and networks"),
        Output("tanh_median", "tanh nets' gradient size, median over the batch", dims=("D",)),
        Output("tanh_min", "tanh nets' gradient size, smallest in the batch", dims=("D",)),
        Output("tanh_max", "tanh nets' gradient size, largest in the batch", dims=("D",)),
        Output("tanh_first", "tanh gradient size of the batch's first network", dims=("D",)),
        Output("tanh_over_bound_max", "largest tanh size over g^D"),
        Output("tanh_over_bound_far", "largest tanh size over g^D for D >= 1"),
        Output("gate_path", "gradient along the forget-gate path, f^D", dims=("forget", "D")),
        Output("far_power", "g^far, the linear size at the far distance"),
        Output("lost_in_single", "1 if 1 + g^far rounds to 1 in single precision"),
        Output("lost_in_double", "1 if 1 + g^far rounds to 1 in double precision"),
        Output("over_double_resolution", "g^far over the double-precision epsilon"),
        Output("single_resolution", "single-precision machine epsilon"),
        Output("double_resolution", "double-precision machine epsilon"),
        Output("unroll_gap", "largest |recurrence - unrolled sum| in a linear net"),
        Output("input_grad_gap", "largest relative gap, finite differences vs W^D^T g"),
        Output("spectral_bounds_hold", "1 if rho^D <= |W^D| <= cond(Z) rho^D"),
        Output("power_over_rho_min", "smallest |W^D|_2 / rho^D over D >= 1, random non-normal W"),
        Output(
            "power_over_cond_rho_max",
            "largest |W^D|_2 / (cond(Z) rho^D) over D >= 1, random non-normal W",
        ),
    ),
    coords={
        "D": coord("steps back in time the gradient travels", lambda **p: range(int(p["steps"]))),
        "forget": coord("forget-gate value f", FORGET),
    },
    sections=("first-principles B2: the gradient through time (lines 358-383)",),
)
def gradient_through_time(
    g: float,
    seed: int,
    units: int,
    nets: int,
    steps: int,
    input_scale: float,
    far: int,
    rng,
) -> dict:
    """One replicate: ``nets`` networks with W_h = g Q, a run of ``steps`` tokens each with
    inputs ``input_scale`` times standard normal vectors, and a unit gradient sent back from the
    last state. Reports the linear net's size against g^D and the tanh nets' median, smallest,
    largest and first-network sizes at each distance D."""
    del seed  # a replicate index: it only selects this point's generator
    w = g * random_orthogonal(rng, nets, units)
    grad = rng.standard_normal((nets, units))
    grad /= np.linalg.norm(grad, axis=1, keepdims=True)
    inputs = input_scale * rng.standard_normal((nets, steps, units))
    dist = np.arange(steps)
    exact = g**dist
    lin = linear_backprop(w, grad, steps)
    tanh = tanh_backprop(w, inputs, grad)
    unroll_gap, grad_gap = unrolled_gaps(rng, g, 6, 12)
    lower, upper = nonnormal_power_ratios(rng, g, 6, steps)
    power = g**far
    return {
        "linear_exact": exact,
        "linear_measured": lin[0],
        "linear_rel_error": float(np.max(np.abs(lin / exact - 1.0))),
        "tanh_median": np.median(tanh, axis=0),
        "tanh_min": tanh.min(axis=0),
        "tanh_max": tanh.max(axis=0),
        "tanh_first": tanh[0],
        "tanh_over_bound_max": float(np.max(tanh / exact)),
        "tanh_over_bound_far": float(np.max(tanh[:, 1:] / exact[1:])),
        "gate_path": np.array(FORGET)[:, None] ** dist[None, :],
        "far_power": power,
        "lost_in_single": float(np.float32(1.0) + np.float32(power) == np.float32(1.0)),
        "lost_in_double": float(1.0 + power == 1.0),
        "over_double_resolution": power / float(np.finfo(np.float64).eps),
        "single_resolution": float(np.finfo(np.float32).eps),
        "double_resolution": float(np.finfo(np.float64).eps),
        "unroll_gap": unroll_gap,
        "input_grad_gap": grad_gap,
        "spectral_bounds_hold": float(lower >= 1 - 1e-9 and upper <= 1 + 1e-9),
        "power_over_rho_min": lower,
        "power_over_cond_rho_max": upper,
    }


# --------------------------------------------------------------------------- B3 iii: the scan


def compose(later: tuple, earlier: tuple) -> tuple:
    """(lambda2, nu2) o (lambda1, nu1) = (lambda2 lambda1, lambda2 nu1 + nu2) (line 431)."""
    return later[0] * earlier[0], later[0] * earlier[1] + later[1]


def parallel_scan(
    lam: np.ndarray, nu: np.ndarray, max_rounds: int | None = None
) -> tuple[np.ndarray, int]:
    """Every h_t of h_t = lambda_t h_{t-1} + nu_t (h_0 = 0) by rounds of a parallel scan: in each
    round every position combines its run with the run ending 2^(r-1) positions earlier, all at
    once (one vectorised operation per round). Returns the states and the rounds used; with
    ``max_rounds`` it stops early (the states are then those of the runs reached so far)."""
    run = (np.asarray(lam, dtype=float).copy(), np.asarray(nu, dtype=float).copy())
    n = len(run[0])
    offset, rounds = 1, 0
    while offset < n and (max_rounds is None or rounds < max_rounds):
        earlier = (
            np.concatenate([np.ones(offset), run[0][:-offset]]),
            np.concatenate([np.zeros(offset), run[1][:-offset]]),
        )
        run = compose(run, earlier)
        offset *= 2
        rounds += 1
    return run[1], rounds  # the map of steps 1..t evaluated at h_0 = 0


def sequential_scan(lam: np.ndarray, nu: np.ndarray) -> np.ndarray:
    """The same states by the loop the recurrence prescribes (n steps in series)."""
    h, out = 0.0, np.empty(len(lam))
    for t in range(len(lam)):
        h = lam[t] * h + nu[t]
        out[t] = h
    return out


def rounds_needed(rng: np.random.Generator, n: int) -> float:
    """The fewest rounds of the scan, stopped early, whose states all agree with the sequential
    loop (relative gap below 1e-9), on a recurrence with lambda uniform on [0.9, 1] (so that
    the products a missing round would add are not below rounding). Counted by running the
    scan with 0, 1, 2, .. rounds, independently of the stopping rule of parallel_scan."""
    lam = rng.uniform(0.9, 1.0, n)
    nu = rng.standard_normal(n)
    looped = sequential_scan(lam, nu)
    scale = max(1.0, float(np.max(np.abs(looped))))
    for r in range(n + 1):
        states, _ = parallel_scan(lam, nu, max_rounds=r)
        if np.max(np.abs(states - looped)) <= 1e-9 * scale:
            return float(r)
    return float("nan")


def lookback_jacobian_gap(rng: np.random.Generator, n: int, d: int) -> float:
    """B4 (line 446): for g = sum_j a_j h_j with a = softmax(q . h_j), the Jacobian dg/dh_j is
    a_j I + a_j (h_j - g) q^T, so its diagonal part a_j I reaches h_j in one step whatever the
    distance. Largest gap between finite differences and that form, over every j."""
    h = rng.standard_normal((n, d))
    q = rng.standard_normal(d)

    def read(states):
        return softmax(states @ q) @ states

    a = softmax(h @ q)
    g0 = read(h)
    worst, eps = 0.0, 1e-6
    for j in range(n):
        predicted = a[j] * np.eye(d) + a[j] * np.outer(h[j] - g0, q)
        fd = np.empty((d, d))
        for i in range(d):
            up, down = h.copy(), h.copy()
            up[j, i] += eps
            down[j, i] -= eps
            fd[:, i] = (read(up) - read(down)) / (2 * eps)
        worst = max(worst, float(np.max(np.abs(fd - predicted))))
    return worst


@experiment(
    grid={"n": ints(doc="sequence length n in tokens")},
    params={
        "d_state": integer(min=1),
    },
    outputs=(
        Output("rounds", "rounds of the parallel scan", "rounds"),
        Output(
            "rounds_needed",
            "fewest scan rounds whose states all match the sequential loop",
            "rounds",
        ),
        Output("ceil_log2", "ceil(log2 n)", "rounds"),
        Output("sequential_steps", "steps of the sequential loop", "steps"),
        Output("scan_error", "largest |scan - loop| over the states"),
        Output("bptt_numbers", "states kept by backpropagation through time, n d"),
        Output("lookback_jacobian_gap", "largest gap of dg/dh_j from a_j I + a_j (h_j - g) q^T"),
    ),
    sections=(
        "first-principles B3 (iii): the linear recurrence in logarithmic depth (lines 423-434)",
        "first-principles B4: the look-back's direct gradient path (line 446)",
    ),
)
def recurrence_scan(n: int, d_state: int, rng) -> dict:
    """A random linear recurrence of length n solved by the scan and by the loop."""
    lam = rng.uniform(-1.0, 1.0, n)
    nu = rng.standard_normal(n)
    scanned, rounds = parallel_scan(lam, nu)
    looped = sequential_scan(lam, nu)
    return {
        "rounds": float(rounds),
        "ceil_log2": float(math.ceil(math.log2(n))) if n > 1 else 0.0,
        "sequential_steps": float(n),
        "scan_error": float(np.max(np.abs(scanned - looped))),
        "bptt_numbers": float(n * d_state),
        "lookback_jacobian_gap": lookback_jacobian_gap(rng, 5, 3),
        "rounds_needed": rounds_needed(rng, n),
    }
