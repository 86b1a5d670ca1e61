"""How many stored pairs a read can tell apart: the softmax read against the linear and the
polynomial ones, computed exactly, checked by simulation, and the classical Hopfield threshold.

Serves first-principles D5 (lines 1014-1068), memory-math chapter 6's capacity passage and D7,
D15 and the Hopfield item of its reading list (lines 30-32, 68), and every-layer-a-store's
answers on attention as a store, the two recall criteria and long context (lines 27-41, 82-88).

The yardstick (first-principles line 1023): ask for stored pair j with a unit query q = k_j,
unit random keys, independent random unit values. The mean squared interference over the
squared signal is (m - 1) E[sigma(s)^2] / sigma(1)^2 for a read that weighs pair i by
sigma(k_i . q), with s the dot product of two independent random unit vectors in R^d. The
capacity m* is where that mean is 1: m* = 1 + sigma(1)^2 / E[sigma(s)^2].

Exact moments: the density of s is a constant times (1 - s^2)^((d-3)/2) on [-1, 1]; E[e^{t s}] is
integrated numerically (scipy quad, in the angle, as the note's Step 4 writes it); the
closed form Gamma(d/2) (2/t)^(d/2-1) I_(d/2-1)(t) is used by the tests to check the integral.
Even moments are exact products: E[s^(2p)] = prod_(k<p) (2k+1)/(d+2k).
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from scipy import integrate, optimize, special

from ..spec import Output, coord, experiment, integer, ints, real, seeds
from .softmax import softmax

SCORES = ("hebbian", "least_squares", "relu", "relu2", "relu3", "softmax_sqrt_d")
THRESHOLDS = (0.5, 0.6)
# The two counts every-layer-a-store prints at its recall thresholds (line 41), typed as data.
PRINTED_N = (350, 1160)


# ----------------------------------------------------------------------------- exact moments


def log_sphere_norm(d: int) -> float:
    """log of the integral of sin^(d-2) over [0, pi], the normaliser of the overlap density."""
    return 0.5 * math.log(math.pi) + math.lgamma((d - 1) / 2) - math.lgamma(d / 2)


def overlap_density(s, d: int):
    """Density of the dot product of two independent uniform unit vectors in R^d (d >= 2)."""
    s = np.asarray(s, dtype=float)
    return np.exp((d - 3) / 2 * np.log1p(-(s**2)) - log_sphere_norm(d))


@lru_cache(maxsize=4096)
def shifted_mgf(t: float, d: int) -> float:
    """E[exp(t (s - 1))] by numerical integration over the angle (t >= 0). The shift by the
    signal's own score keeps the integrand in [0, 1] at any t."""
    if t == 0:
        return 1.0
    log_norm = log_sphere_norm(d)

    def integrand(theta):
        return math.exp(
            t * (math.cos(theta) - 1.0) + (d - 2) * math.log(math.sin(theta)) - log_norm
        )

    # The mass sits near theta = 0 when t is large: split there so quad sees it.
    peak = min(math.pi / 2, math.sqrt(max(d - 2, 1) / max(t, 1e-9)))
    points = [x for x in (0.25 * peak, peak, 4 * peak) if 0.0 < x < math.pi]
    value, _ = integrate.quad(
        integrand, 0.0, math.pi, points=points, limit=400, epsabs=0.0, epsrel=1e-12
    )
    return value


def shifted_mgf_many(ts, d: int, theta_max: float = math.pi) -> np.ndarray:
    """E[exp(t (s - 1)) ; theta < theta_max] for an array of t >= 0 at once (scipy quad_vec
    over the angle theta = arccos s; theta_max = pi gives the full moment)."""
    ts = np.asarray(ts, dtype=float)
    log_norm = log_sphere_norm(d)

    def integrand(theta):
        log_sin = (d - 2) * math.log(math.sin(theta)) if 0.0 < theta < math.pi else -np.inf
        return np.exp(ts * (math.cos(theta) - 1.0) + log_sin - log_norm)

    value, _ = integrate.quad_vec(integrand, 0.0, theta_max, epsabs=0.0, epsrel=1e-11, limit=2000)
    return value


def shifted_mgf_bessel(t: float, d: int) -> float:
    """The same moment in closed form, Gamma(d/2) (2/t)^nu I_nu(t) e^{-t} with nu = d/2 - 1."""
    if t == 0:
        return 1.0
    nu = d / 2 - 1
    return math.exp(math.lgamma(d / 2) + nu * math.log(2 / t)) * special.ive(nu, t)


def even_moment(p: int, d: int) -> float:
    """E[s^(2p)] exactly."""
    return math.prod((2 * k + 1) / (d + 2 * k) for k in range(p))


def softmax_capacity_exact(beta: float, d: int) -> float:
    """m* = 1 + e^{2 beta} / E[e^{2 beta s}], with the moment integrated exactly."""
    return 1.0 + 1.0 / shifted_mgf(2.0 * beta, d)


def softmax_capacity_gauss(beta: float, d: float) -> float:
    """The Gaussian form 1 + e^{2 beta (1 - beta/d)} (s taken as N(0, 1/d))."""
    return 1.0 + math.exp(2.0 * beta * (1.0 - beta / d))


def tail_shares(betas, d: int, threshold: float) -> tuple[float, np.ndarray]:
    """Probability that an overlap exceeds ``threshold``, and the share of E[e^{2 beta (s-1)}]
    carried by those overlaps, for each beta."""
    ts = 2.0 * np.asarray(betas, dtype=float)
    theta = math.acos(threshold)
    part = shifted_mgf_many(np.concatenate([[0.0], ts]), d, theta)
    full = shifted_mgf_many(ts, d)
    return float(part[0]), part[1:] / full


def score_capacities(d: int) -> dict:
    """Exact capacity of each read at width d under the unit-ratio yardstick, and the
    leading-order forms the notes print (Hebbian d, least squares 2d, ReLU^p 2/E_gauss[s^2p],
    softmax at beta = sqrt(d) e^{2 beta (1 - beta/d)})."""
    beta = math.sqrt(d)
    exact = {
        "hebbian": 1.0 + 1.0 / even_moment(1, d),
        # Least-squares write: ratio^2 = M/d - 1 (first-principles D1 / memory-math ch. 4).
        "least_squares": 2.0 * d,
        "relu": 1.0 + 1.0 / (0.5 * even_moment(1, d)),
        "relu2": 1.0 + 1.0 / (0.5 * even_moment(2, d)),
        "relu3": 1.0 + 1.0 / (0.5 * even_moment(3, d)),
        "softmax_sqrt_d": softmax_capacity_exact(beta, d),
    }
    gauss_moment = {p: math.prod(range(1, 2 * p, 2)) / d**p for p in (1, 2, 3)}
    leading = {
        "hebbian": float(d),
        "least_squares": 2.0 * d,
        "relu": 2.0 / gauss_moment[1],
        "relu2": 2.0 / gauss_moment[2],
        "relu3": 2.0 / gauss_moment[3],
        "softmax_sqrt_d": math.exp(2.0 * beta * (1.0 - beta / d)),
    }
    return {"exact": [exact[k] for k in SCORES], "leading": [leading[k] for k in SCORES]}


def n_log_n_root(x: float) -> float:
    """The n with n ln n = x (x > 0), through the Lambert W function."""
    return float(x / special.lambertw(x).real)


def beta_ladder(beta_step: float, beta_max: float) -> list[float]:
    """Inverse temperatures 0, beta_step, ..., beta_max."""
    n = int(round(beta_max / beta_step))
    return [round(i * beta_step, 10) for i in range(n + 1)]


@experiment(
    grid={"d": ints(doc="key width d")},
    params={
        "beta_step": real(gt=0, work=-1),
        "beta_max": real(gt=0, work=True, max=100),
    },
    outputs=(
        Output("capacity_exact", "capacity of the softmax read, exact moment", "pairs", ("beta",)),
        Output("capacity_gauss", "capacity of the softmax read, Gaussian form", "pairs", ("beta",)),
        Output("exact_over_gauss", "exact capacity over the Gaussian form", dims=("beta",)),
        Output("gauss_shortfall", "1 - Gaussian form / exact capacity", dims=("beta",)),
        Output("mgf_exact", "E[exp(2 beta s)], exact", dims=("beta",)),
        Output("mgf_gauss", "E[exp(2 beta s)], Gaussian form exp(2 beta^2/d)", dims=("beta",)),
        Output("exact_increasing", "1 if the exact capacity rises along the beta ladder"),
        Output("gauss_peak_beta", "beta at which the Gaussian form peaks"),
        Output(
            "tail_prob",
            "probability that an overlap exceeds the threshold",
            dims=("beta", "threshold"),
        ),
        Output(
            "tail_share",
            "share of E[exp(2 beta (s - 1))] from overlaps above the threshold",
            dims=("beta", "threshold"),
        ),
        Output("score_capacity", "capacity of each read, exact yardstick", "pairs", ("score",)),
        Output(
            "score_capacity_leading",
            "capacity of each read, leading-order form of the notes",
            "pairs",
            ("score",),
        ),
        Output("gauss_exponent_sqrt_d", "2 beta (1 - beta/d) at beta = sqrt(d)"),
        Output(
            "softmax_beats_polynomials",
            "1 if softmax at beta = sqrt(d) holds more than every ReLU^p read",
        ),
        Output("d_squared", "d^2"),
        Output("win_outer_n", "n with d^2/(n ln n) = 8", "pairs"),
        Output("win_ls_n", "n with d^2/(n ln n) = 2", "pairs"),
        Output("win_outer_nlogn", "d^2 / 8"),
        Output("win_ls_nlogn", "d^2 / 2"),
        Output("win_ls_log_n", "ln n at the least-squares threshold"),
        Output(
            "angle_at_capacity_deg",
            "angle of the read from the value when |noise| = |signal|",
            "degrees",
        ),
    ),
    coords={
        "beta": coord(
            "inverse temperature beta multiplying the attention scores",
            lambda **p: beta_ladder(p["beta_step"], p["beta_max"]),
        ),
        "threshold": coord("overlap threshold of the tail", THRESHOLDS),
        "score": coord("read of the store", SCORES),
    },
    sections=(
        "first-principles D5 (lines 1023-1049)",
        "memory-math ch. 6 capacity, D7 (lines 30-32)",
        "every-layer-a-store: attention as a store, one head two criteria (lines 27-41)",
    ),
)
def softmax_capacity(d: int, beta_step: float, beta_max: float) -> dict:
    """Exact and Gaussian capacities over the beta ladder at width d, the tail shares of the
    moment, every score's capacity, and the two recall-criterion thresholds of n ln n."""
    betas = beta_ladder(beta_step, beta_max)
    mgf = shifted_mgf_many(2.0 * np.asarray(betas), d)
    exact = 1.0 + 1.0 / mgf
    gauss = np.array([softmax_capacity_gauss(b, d) for b in betas])
    tails = [tail_shares(betas, d, th) for th in THRESHOLDS]
    tail_prob = np.array([[p for p, _ in tails]] * len(betas))
    tail_share = np.stack([share for _, share in tails], axis=1)
    scores = score_capacities(d)
    win_outer = n_log_n_root(d * d / 8.0)
    win_ls = n_log_n_root(d * d / 2.0)
    # Gaussian form's peak over beta, found numerically (not from the formula's vertex).
    peak = optimize.minimize_scalar(
        lambda b: -2.0 * b * (1.0 - b / d), bounds=(0.0, 2.0 * d), method="bounded"
    ).x
    return {
        "capacity_exact": exact,
        "capacity_gauss": gauss,
        "exact_over_gauss": exact / gauss,
        "gauss_shortfall": 1.0 - gauss / exact,
        "mgf_exact": mgf * np.exp(2.0 * np.asarray(betas)),
        "mgf_gauss": np.exp(2.0 * np.array(betas) ** 2 / d),
        "exact_increasing": float(np.all(np.diff(exact) > 0)),
        "gauss_peak_beta": float(peak),
        "tail_prob": tail_prob,
        "tail_share": tail_share,
        "score_capacity": np.array(scores["exact"]),
        "score_capacity_leading": np.array(scores["leading"]),
        "gauss_exponent_sqrt_d": 2.0 * math.sqrt(d) * (1.0 - math.sqrt(d) / d),
        "softmax_beats_polynomials": float(
            scores["exact"][SCORES.index("softmax_sqrt_d")] > max(scores["exact"][2:5])
        ),
        "d_squared": float(d * d),
        "win_outer_n": win_outer,
        "win_ls_n": win_ls,
        "win_outer_nlogn": d * d / 8.0,
        "win_ls_nlogn": d * d / 2.0,
        "win_ls_log_n": math.log(win_ls),
        "angle_at_capacity_deg": math.degrees(math.atan2(1.0, 1.0)),
    }


# ----------------------------------------------------------------------------- simulation


def unit_rows(rng: np.random.Generator, shape: tuple[int, ...], dtype=np.float64) -> np.ndarray:
    """Independent uniform unit vectors along the last axis."""
    x = rng.standard_normal(shape, dtype=dtype)
    return x / np.linalg.norm(x, axis=-1, keepdims=True)


def pairs_ladder(m_max: int) -> list[int]:
    """Stored pairs 2, 4, ..., m_max (powers of two)."""
    return [2**k for k in range(1, int(math.log2(m_max)) + 1)]


def mc_betas(beta_max: float) -> list[float]:
    """Inverse temperatures of the simulation: 0 and the powers of two up to beta_max."""
    return [0.0] + [float(2**k) for k in range(int(math.log2(beta_max)) + 1)]


def interference_ratios(values: np.ndarray, weights: np.ndarray, ladder) -> np.ndarray:
    """Squared interference over squared signal of the read of pair 0, for every prefix of
    m pairs in ``ladder``: |sum_{0<i<m} w_i v_i|^2 / (w_0^2 |v_0|^2), averaged over trials.

    ``weights`` is (reads, trials, m_max) (several reads of the same draws at once) and
    ``values`` (trials, m_max, d) with unit rows. A normalised read (softmax) has the same
    ratio as its unnormalised weights: Z cancels. The interference of each block of pairs
    between consecutive ladder entries is one batched matrix product; the prefixes are
    running sums of the blocks."""
    edges = [1, *ladder]
    blocks = [
        np.matmul(weights[:, :, None, lo:hi], values[None, :, lo:hi, :])[:, :, 0, :]
        for lo, hi in zip(edges[:-1], edges[1:], strict=True)
    ]
    interference = np.cumsum(np.stack(blocks, axis=2), axis=2)  # (reads, trials, m, d)
    sq = np.einsum("rtmd,rtmd->rtm", interference, interference)
    return (sq / weights[:, :, :1] ** 2).mean(axis=1)


@experiment(
    grid={"d": ints(doc="key width d"), "seed": seeds()},
    params={
        "trials": integer(min=1, memory=True),
        "m_max": integer(min=2),
        "beta_max": real(min=1, max=1000),
    },
    outputs=(
        Output(
            "ratio_softmax", "mean squared interference / signal, softmax read", dims=("beta", "m")
        ),
        Output("ratio_softmax_exact", "(m - 1) E[exp(2 beta (s - 1))], exact", dims=("beta", "m")),
        Output("ratio_hebbian", "mean squared interference / signal, linear read", dims=("m",)),
        Output("slope_softmax", "log-log slope of the root ratio, last two steps", dims=("beta",)),
        Output("slope_hebbian", "log-log slope of the root ratio, linear read"),
        Output("ratio_hebbian_exact", "(m - 1) / d", dims=("m",)),
        Output(
            "ratio_softmax_gap", "simulated over exact softmax ratio, minus 1", dims=("beta", "m")
        ),
        Output("ratio_hebbian_gap", "simulated over (m - 1)/d, minus 1", dims=("m",)),
    ),
    coords={
        "beta": coord(
            "inverse temperature beta multiplying the attention scores",
            lambda **p: mc_betas(p["beta_max"]),
        ),
        "m": coord("number of key-value pairs stored", lambda **p: pairs_ladder(p["m_max"])),
    },
    sections=(
        "first-principles D5 (lines 1023-1050)",
        "memory-math D7 (line 31)",
    ),
)
def softmax_interference_mc(d: int, seed: int, trials: int, m_max: int, beta_max: float, rng):
    """One replicate: ``trials`` draws of m_max unit keys and values in R^d; query = key 0.
    Mean squared interference-to-signal ratio of the softmax read at each beta and of the
    Hebbian (linear) read, for every m in the ladder, next to the exact expectations."""
    del seed
    ladder = pairs_ladder(m_max)
    betas = mc_betas(beta_max)
    keys = unit_rows(rng, (trials, m_max, d), np.float32)
    values = unit_rows(rng, (trials, m_max, d), np.float32)
    s = np.einsum("tmd,td->tm", keys, keys[:, 0, :]).astype(np.float64)
    s[:, 0] = 1.0  # the query is key 0 (exactly, not up to float32 rounding)
    m_arr = np.asarray(ladder, dtype=float)
    # Softmax weights, unnormalised and shifted by the signal's score: e^{beta (s - 1)}.
    soft_w = np.exp(np.asarray(betas)[:, None, None] * (s[None] - 1.0))
    weights = np.concatenate([soft_w, s[None]], axis=0)
    ratios = interference_ratios(values.astype(np.float64), weights, ladder)
    soft_exact = [(m_arr - 1) * shifted_mgf(2 * b, d) for b in betas]
    # Log-log slope of the root ratio over the last two ladder steps (1/2 for a square root).
    root = 0.5 * np.log(ratios[:, -1] / ratios[:, -3]) / math.log(m_arr[-1] / m_arr[-3])
    return {
        "slope_softmax": root[:-1],
        "slope_hebbian": float(root[-1]),
        "ratio_softmax": ratios[:-1],
        "ratio_softmax_exact": np.array(soft_exact),
        "ratio_hebbian": ratios[-1],
        "ratio_hebbian_exact": (m_arr - 1) / d,
        # Simulation over the formula it should follow, minus one (0 when they agree).
        "ratio_softmax_gap": ratios[:-1] / np.array(soft_exact) - 1.0,
        "ratio_hebbian_gap": ratios[-1] / ((m_arr - 1) / d) - 1.0,
    }


# ----------------------------------------------------------------------------- small checks


def kernel_and_energy(rng, n_keys: int, dim: int, beta: float, scale_low: float, scale_high: float):
    """first-principles D5 second Check (line 1067): softmax read against the Gaussian-kernel
    smoother with unit keys and with rescaled keys, and the Hopfield energy gradient against a
    central finite difference (one draw of ``kernel_and_energy_draws``)."""
    return kernel_and_energy_draws(rng, n_keys, dim, beta, scale_low, scale_high, 1)[0]


def kernel_and_energy_draws(
    rng, n_keys: int, dim: int, beta: float, scale_low: float, scale_high: float, draws: int
) -> list[dict]:
    """``draws`` independent draws of the check of ``kernel_and_energy``: every draw is drawn
    first (in the order one draw at a time would draw them), then the 500-step fixed-point
    iterations of all draws run as one batch (the slow part when run draw by draw)."""
    drawn = [kernel_energy_draw(rng, n_keys, dim, scale_low, scale_high) for _ in range(draws)]
    x = np.stack([d["keys"] for d in drawn])
    fixed = hopfield_fixed_points(x, np.stack([d["xi"] for d in drawn]), beta, FIXED_POINT_STEPS)
    return [kernel_energy_checks(d, f, beta) for d, f in zip(drawn, fixed, strict=True)]


FIXED_POINT_STEPS = 500  # iterations of the Hopfield update towards its fixed point


def kernel_energy_draw(rng, n_keys: int, dim: int, scale_low: float, scale_high: float) -> dict:
    """One draw of the check: unit keys and values, a unit query, the keys rescaled by factors
    uniform in [scale_low, scale_high], and a start xi for the energy."""
    keys = unit_rows(rng, (n_keys, dim))
    values = unit_rows(rng, (n_keys, dim))
    q = unit_rows(rng, (dim,))
    scaled = keys * rng.uniform(scale_low, scale_high, (n_keys, 1))
    xi = rng.standard_normal(dim) * 0.5
    return {"keys": keys, "values": values, "q": q, "scaled": scaled, "xi": xi}


def hopfield_fixed_points(x: np.ndarray, xi: np.ndarray, beta: float, steps: int) -> np.ndarray:
    """The update xi <- X^T softmax(beta X xi) iterated ``steps`` times from ``xi``, for a batch
    of stored patterns x (draws, keys, dim) and starts xi (draws, dim). Each draw's products are
    the matrix-vector products of a single draw and the softmax is taken row by row, so a draw's
    result does not depend on the batch it runs in."""
    xt = np.swapaxes(x, -1, -2)
    fixed = xi.copy()
    for _ in range(steps):
        a = softmax((beta * x @ fixed[..., None])[..., 0])
        fixed = (xt @ a[..., None])[..., 0]
    return fixed


def kernel_energy_checks(draw: dict, fixed: np.ndarray, beta: float) -> dict:
    """The readings of one draw, given its iterated fixed point ``fixed``."""
    keys, values, q, scaled, xi = (draw[k] for k in ("keys", "values", "q", "scaled", "xi"))

    def soft_read(k):
        return softmax(beta * k @ q) @ values

    def kernel_read(k):
        w = np.exp(-beta * np.sum((q - k) ** 2, axis=-1) / 2)
        return (w / w.sum()) @ values

    read = soft_read(scaled)

    x = keys  # stored patterns

    def energy(xi):
        z = beta * x @ xi
        top = z.max()
        return -(top + math.log(np.exp(z - top).sum())) / beta + 0.5 * xi @ xi

    grad = xi - x.T @ softmax(beta * x @ xi)
    h = 1e-5
    eye = np.eye(len(xi))
    fd = np.array([(energy(xi + h * e) - energy(xi - h * e)) / (2 * h) for e in eye])
    # At the fixed point of the update xi <- X^T softmax(beta X xi) the gradient vanishes.
    grad_fixed = fixed - x.T @ softmax(beta * x @ fixed)
    return {
        "kernel_gap": float(np.max(np.abs(soft_read(keys) - kernel_read(keys)))),
        "scaled_gap": float(np.linalg.norm(read - kernel_read(scaled))),
        "scaled_read_norm": float(np.linalg.norm(read)),
        "energy_grad_gap": float(np.max(np.abs(fd - grad))),
        "fixed_point_grad": float(np.max(np.abs(grad_fixed))),
    }


def softmax_jacobian_checks(rng, n: int, beta: float, beta_hard: float) -> dict:
    """The softmax Jacobian beta (diag(a) - a a^T) against finite differences; the largest entry
    of that Jacobian at a saturating beta; and the two limits of the read (beta = 0: the mean
    of the values; large beta: the value of the best key)."""
    s = rng.uniform(-1, 1, n)
    a = softmax(beta * s)
    jac = beta * (np.diag(a) - np.outer(a, a))
    h = 1e-6
    fd = np.stack(
        [(softmax(beta * (s + h * e)) - softmax(beta * (s - h * e))) / (2 * h) for e in np.eye(n)],
        axis=1,
    )
    # A row whose best score (1, a query equal to its key) leads the others by at least 0.1.
    led = np.concatenate([[1.0], rng.uniform(-1.0, 0.9, n - 1)])
    a_hard = softmax(beta_hard * led)
    jac_hard = beta_hard * (np.diag(a_hard) - np.outer(a_hard, a_hard))
    values = rng.standard_normal((n, 3))
    return {
        "jacobian_gap": float(np.max(np.abs(jac - fd))),
        "jacobian_saturated": float(np.max(np.abs(jac_hard))),
        "beta0_gap": float(np.max(np.abs(softmax(0 * s) @ values - values.mean(axis=0)))),
        "hard_gap": float(np.max(np.abs(a_hard @ values - values[0]))),
    }


def tensor_power(x: np.ndarray, p: int) -> np.ndarray:
    """The p-fold tensor power of x, flattened (length d^p)."""
    out = np.ones(1)
    for _ in range(p):
        out = np.multiply.outer(out, x).ravel()
    return out


def exp_features(x: np.ndarray, beta: float, degree: int) -> np.ndarray:
    """Phi(x) truncated at ``degree``: blocks sqrt(beta^p / p!) x^{(x) p} for p <= degree."""
    return np.concatenate(
        [math.sqrt(beta**p / math.factorial(p)) * tensor_power(x, p) for p in range(degree + 1)]
    )


def feature_checks(rng, dim: int, beta: float, max_degree: int) -> dict:
    """memory-math D15: tensor powers turn (q.k)^p into an inner product; the truncated feature
    map approaches e^{beta q.k} as the degree grows and has sum_p d^p coordinates."""
    q, k = unit_rows(rng, (2, dim))
    dot = float(q @ k)
    gaps = [abs(dot**p - tensor_power(q, p) @ tensor_power(k, p)) for p in range(max_degree + 1)]
    err, size = [], []
    for deg in range(max_degree + 1):
        fq, fk = exp_features(q, beta, deg), exp_features(k, beta, deg)
        err.append(abs(math.exp(beta * dot) - fq @ fk))
        size.append(fq.size)
    return {
        "tensor_gap": float(max(gaps)),
        "truncation_error": np.array(err),
        "feature_size": np.array(size, dtype=float),
    }


SERIES_BETA = 8.0  # every-layer-a-store line 33: beta = sqrt(d) at d = 64


def exp_series_gap(beta: float = SERIES_BETA, terms: int = 80) -> float:
    """e^{beta s} as the sum of all powers (beta s)^p / p! (every-layer-a-store line 33): the
    largest gap between the series summed to ``terms`` terms and np.exp over s in [-1, 1], in
    units of e^{beta |s|} (the size of the largest term, so the gap is pure rounding)."""
    x = beta * np.linspace(-1.0, 1.0, 401)
    term, total = np.ones_like(x), np.ones_like(x)
    for p in range(1, terms):
        term = term * x / p
        total = total + term
    return float(np.max(np.abs(total - np.exp(x)) / np.exp(np.abs(x))))


def ags_threshold() -> tuple[float, float]:
    """Zero-temperature replica-symmetric storage threshold of the Hebbian Hopfield network
    (Amit, Gutfreund and Sompolinsky 1985): with y = m / sqrt(2 alpha r) the retrieval
    solution exists while sqrt(2 alpha) = erf(y)/y - (2/sqrt(pi)) e^{-y^2} has a root, so
    alpha_c is the maximum over y of half the square of the right side. Returns (alpha_c,
    the retrieval overlap there)."""

    def alpha_of(y):
        return 0.5 * (special.erf(y) / y - 2 / math.sqrt(math.pi) * math.exp(-y * y)) ** 2

    res = optimize.minimize_scalar(
        lambda y: -alpha_of(y), bounds=(0.5, 3.0), method="bounded", options={"xatol": 1e-12}
    )
    return float(alpha_of(res.x)), float(special.erf(res.x))


def alpha_ladder(alpha_step: float, alpha_max: float) -> list[float]:
    """Loads alpha = patterns / neurons: alpha_step, 2 alpha_step, ..., alpha_max."""
    n = int(round(alpha_max / alpha_step))
    return [round(i * alpha_step, 10) for i in range(1, n + 1)]


def hopfield_overlaps(rng, neurons: int, alphas, networks: int, steps: int) -> np.ndarray:
    """Mean final overlap with the starting pattern of a Hebbian Hopfield network started on a
    stored pattern and run with parallel zero-temperature updates, per load (networks of one
    load batched). Couplings J = X^T X / N with zero diagonal, applied as two products."""
    out = []
    for alpha in alphas:
        p = max(1, int(round(alpha * neurons)))
        x = (2 * rng.integers(0, 2, size=(networks, p, neurons), dtype=np.int8) - 1).astype(
            np.float32
        )
        xt = np.ascontiguousarray(x.transpose(0, 2, 1))
        state = x[:, 0, :].copy()
        for _ in range(steps):
            overlaps = np.matmul(x, state[:, :, None])  # (networks, patterns, 1)
            field = np.matmul(xt, overlaps)[:, :, 0] / neurons
            field -= (p / neurons) * state  # remove the self-coupling
            new = np.where(field >= 0, 1.0, -1.0).astype(np.float32)
            if np.array_equal(new, state):
                break  # every network is at a fixed point
            state = new
        out.append(float((state * x[:, 0, :]).mean()))
    return np.array(out)


def win_ladder(d_win: int) -> list[int]:
    """Numbers of pairs the recall-by-winning simulation is run at: d, 2d (the clean-vector
    counts) and the two n where d^2/(n ln n) is 8 and 2 (rounded to the nearest integer)."""
    return [
        d_win,
        2 * d_win,
        round(n_log_n_root(d_win * d_win / 8.0)),
        round(n_log_n_root(d_win * d_win / 2.0)),
    ]


def win_recall(rng, d: int, ladder, queries: int = 256) -> np.ndarray:
    """Share of pairs whose own value scores highest among all stored values, for the
    outer-product map W = sum v k^T and the least-squares map, per number of pairs. The share
    is estimated on ``queries`` of the stored pairs (the first ones: the pairs are exchangeable)."""
    out = np.zeros((2, len(ladder)))
    for j, n in enumerate(ladder):
        k = rng.standard_normal((n, d)) / math.sqrt(d)
        v = rng.standard_normal((n, d)) / math.sqrt(d)
        w_outer = v.T @ k
        # Least squares: W = V^T K (K^T K)^{-1} (n >= d, so K^T K is invertible).
        w_ls = np.linalg.solve(k.T @ k, k.T @ v).T
        for i, w in enumerate((w_outer, w_ls)):
            asked = min(n, queries)
            scores = v @ (w @ k[:asked].T)  # (candidate, query)
            out[i, j] = float(np.mean(scores.argmax(axis=0) == np.arange(asked)))
    return out


SCALED_DRAWS = 50  # draws per seed of the rescaled-keys Check (first-principles line 1067)


@experiment(
    grid={"seed": seeds()},
    params={
        "n_keys": integer(min=2),
        "dim": integer(min=2),
        "beta": real(gt=0, max=1000),
        "scale_low": real(gt=0),
        "scale_high": real(gt=0, max=50),
        "beta_hard": real(gt=0),
        "feature_dim": integer(min=1),
        "feature_beta": real(gt=0, max=1000),
        "max_degree": integer(min=0, max=12),
        "neurons": integer(min=10),
        "networks": integer(min=1),
        "steps": integer(min=1),
        "alpha_step": real(gt=0, work=-1),
        "alpha_max": real(gt=0, work=True),
        "d_win": integer(min=2),
    },
    outputs=(
        Output("kernel_gap", "largest gap, softmax read vs Gaussian-kernel smoother"),
        Output("scaled_gap", "|softmax read - kernel smoother| with rescaled keys"),
        Output("scaled_read_norm", "|softmax read| with rescaled keys"),
        Output(
            "scaled_gap_draws",
            "|softmax read - kernel smoother| with rescaled keys, one per draw",
            dims=("draw",),
        ),
        Output(
            "scaled_read_norm_draws",
            "|softmax read| with rescaled keys, one per draw",
            dims=("draw",),
        ),
        Output("energy_grad_gap", "largest gap, finite difference vs xi - X^T a"),
        Output("fixed_point_grad", "largest energy gradient at the iterated fixed point"),
        Output("jacobian_gap", "largest gap, softmax Jacobian formula vs finite difference"),
        Output("jacobian_saturated", "largest softmax Jacobian entry at beta_hard"),
        Output("beta0_gap", "largest gap, read at beta = 0 vs mean of the values"),
        Output("hard_gap", "largest gap, read at beta_hard vs value of the best key"),
        Output("tensor_gap", "largest gap, (q.k)^p vs tensor-power inner product"),
        Output("truncation_error", "|e^{beta q.k} - <Phi_P(q), Phi_P(k)>|", dims=("degree",)),
        Output("exp_series_gap", "power series of e^{8 s} minus e^{8 s}, on [-1, 1]"),
        Output(
            "feature_size", "coordinates of the feature map truncated at degree P", dims=("degree",)
        ),
        Output("alpha_c", "Hopfield storage threshold, zero-temperature replica theory"),
        Output("overlap_at_alpha_c", "retrieval overlap at the threshold"),
        Output("hopfield_overlap", "mean final overlap with the stored pattern", dims=("alpha",)),
        Output("win_recall", "share of pairs whose own value wins", dims=("map", "pairs")),
        Output("win_nlogn_printed", "n ln n at the printed counts", dims=("printed_n",)),
    ),
    coords={
        "degree": coord(
            "degree P of the truncated feature map", lambda **p: list(range(p["max_degree"] + 1))
        ),
        "alpha": coord(
            "load alpha: stored patterns per dimension",
            lambda **p: alpha_ladder(p["alpha_step"], p["alpha_max"]),
        ),
        "map": coord(
            "linear store the winning read is made from", ("outer_product", "least_squares")
        ),
        "pairs": coord("number of key-value pairs stored", lambda **p: win_ladder(p["d_win"])),
        "printed_n": coord("pair count printed in the note", PRINTED_N),
        "draw": coord("random draw (a replicate)", lambda **p: list(range(SCALED_DRAWS))),
    },
    replicates=("draw",),
    sections=(
        "first-principles D5 (lines 1051-1067)",
        "memory-math D15 and the reading list's Hopfield item (line 68)",
        "every-layer-a-store: one head, two criteria (lines 35-41)",
    ),
)
def capacity_checks(
    seed: int,
    n_keys: int,
    dim: int,
    beta: float,
    scale_low: float,
    scale_high: float,
    beta_hard: float,
    feature_dim: int,
    feature_beta: float,
    max_degree: int,
    neurons: int,
    networks: int,
    steps: int,
    alpha_step: float,
    alpha_max: float,
    d_win: int,
    rng,
) -> dict:
    """One replicate of the small checks of D5 (kernel smoother, energy gradient, softmax
    Jacobian and limits), D15's feature map, the Hopfield threshold and the win criterion."""
    del seed
    out = {}
    out.update(kernel_and_energy(rng, n_keys, dim, beta, scale_low, scale_high))
    out.update(softmax_jacobian_checks(rng, n_keys, beta, beta_hard))
    out.update(feature_checks(rng, feature_dim, feature_beta, max_degree))
    out["exp_series_gap"] = exp_series_gap()
    alpha_c, m_c = ags_threshold()
    out["alpha_c"] = alpha_c
    out["overlap_at_alpha_c"] = m_c
    out["hopfield_overlap"] = hopfield_overlaps(
        rng, neurons, alpha_ladder(alpha_step, alpha_max), networks, steps
    )
    out["win_recall"] = win_recall(rng, d_win, win_ladder(d_win))
    n = np.asarray(PRINTED_N, dtype=float)
    out["win_nlogn_printed"] = n * np.log(n)
    # More draws of the rescaled-keys Check (one printed draw is judged by its quantile among
    # them), drawn last so that every output above keeps its value.
    draws = kernel_and_energy_draws(rng, n_keys, dim, beta, scale_low, scale_high, SCALED_DRAWS)
    out["scaled_gap_draws"] = np.array([r["scaled_gap"] for r in draws])
    out["scaled_read_norm_draws"] = np.array([r["scaled_read_norm"] for r in draws])
    return out
