"""In-context regression run by stacked linear-attention layers (first-principles E3, lines
1219-1266; memory-math ch. 11, line 52 from char 350 to line 54, D11-D12 and exercise 5).

Each example is a token z = (x, y) and the query is (x_q, 0). A linear-attention layer whose
keys and queries read the x part and whose value is minus the label slot, summed over the
example tokens only and written with size ``scale``, turns every label slot into the residual
of one more gradient step on the in-context squared loss. ``scale`` is eta/m for the mean loss
of first-principles and eta for the summed loss of memory-math.
"""

from __future__ import annotations

import numpy as np

from ..spec import Output, coord, experiment, integer, ints, real, seeds

# first-principles E3 Check (line 1262) and memory-math exercise 5 (line 66): three 1-D
# examples (x, y), typed as data.
CHECK_X = np.array([1.0, 2.0, 1.0])
CHECK_Y = np.array([1.0, 2.0, 3.0])

# first-principles E3 line 1265: the printed readings of the figure's eight examples (their
# data are not printed). Slopes after 1, 3 and 10 layers and least squares; losses as printed,
# in printed order, then the least-squares floor. Used only to test their mutual consistency.
FIGURE_SLOPES = ("0.215", "0.512", "0.890", "0.970")
FIGURE_LOSSES = ("0.210", "0.128", "0.048", "0.0033", "0.0019")
FIGURE_LAYERS = (1, 3, 10)
# The two ways to attach the four losses to layer counts: the first loss before any layer
# (pairing A: 0, 1, 3, 10 layers) or after one layer (pairing B: 1, 3, 10 layers, 0.0033 left
# without a layer count and judged only against the floor ordering).
PAIRINGS = ("losses_at_0_1_3_10", "losses_at_1_3_10")


# ----------------------------------------------------------------------------- the machinery


def tokens(x: np.ndarray, y: np.ndarray, x_q: np.ndarray) -> np.ndarray:
    """Rows are tokens: m example tokens (x_i, y_i) and the query token (x_q, 0) last."""
    x = np.atleast_2d(x.T).T if x.ndim == 1 else x
    y = y[:, None] if y.ndim == 1 else y
    x_q = np.atleast_1d(x_q)
    query = np.concatenate([x_q, np.zeros(y.shape[1])])
    return np.vstack([np.hstack([x, y]), query])


def construction(d: int, d_out: int = 1) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """W_K = W_Q read the x part, W_V reads minus the label part (first-principles line 1235)."""
    w_k = np.diag(np.r_[np.ones(d), np.zeros(d_out)])
    w_v = np.diag(np.r_[np.zeros(d), -np.ones(d_out)])
    return w_k, w_k.copy(), w_v


def attention_layer(z, w_k, w_q, w_v, scale: float, query_is_key: bool = False):
    """One linear self-attention layer added to every token. The sum runs over the example
    tokens (all rows but the last) unless the query token is allowed to be a key too."""
    src = z if query_is_key else z[:-1]
    scores = (z @ w_q.T) @ (src @ w_k.T).T  # [token j, source i] = W_K z_i . W_Q z_j
    return z + scale * scores @ (src @ w_v.T)


def run_stack(z, layers: int, scale: float, d: int, d_out: int = 1, query_is_key=False):
    """Tokens after 0, 1, ..., layers identical layers (shape layers+1, tokens, width)."""
    w_k, w_q, w_v = construction(d, d_out)
    out = [z]
    for _ in range(layers):
        out.append(attention_layer(out[-1], w_k, w_q, w_v, scale, query_is_key))
    return np.stack(out)


def gd_weights(x, y, layers: int, scale: float) -> np.ndarray:
    """Theta_0 = 0 and Theta_l = Theta_(l-1) - scale * sum_i (Theta x_i - y_i) x_i^T, for
    l = 0..layers (shape layers+1, d_out, d). ``scale`` is eta/m (mean loss) or eta (sum)."""
    x = x[:, None] if x.ndim == 1 else x
    y = y[:, None] if y.ndim == 1 else y
    theta = np.zeros((y.shape[1], x.shape[1]))
    out = [theta]
    for _ in range(layers):
        theta = theta - scale * (theta @ x.T - y.T) @ x
        out.append(theta)
    return np.stack(out)


def closed_form(x, y, layers: int, eta: float, last_only: bool = False) -> np.ndarray:
    """Theta_l = (I - (I - eta Sigma)^l) Sigma^-1 g with the mean moments (line 1259), for
    l = 0..layers (or only l = layers)."""
    x = x[:, None] if x.ndim == 1 else x
    y = y[:, None] if y.ndim == 1 else y
    m, d = x.shape
    sigma = x.T @ x / m
    g = y.T @ x / m  # (d_out, d): rows are g^T per output
    star = np.linalg.solve(sigma, g.T).T
    step = np.eye(d) - eta * sigma
    ells = [layers] if last_only else range(layers + 1)
    out = [star @ (np.eye(d) - np.linalg.matrix_power(step, ell)) for ell in ells]
    return np.stack(out)


def mean_loss(theta, x, y) -> np.ndarray:
    """(1/2m) sum_i |Theta x_i - y_i|^2 for each Theta of a stack (shape layers+1)."""
    x = x[:, None] if x.ndim == 1 else x
    y = y[:, None] if y.ndim == 1 else y
    res = np.einsum("lod,md->lmo", theta, x) - y[None]
    return 0.5 * (res**2).sum(axis=(1, 2)) / x.shape[0]


# ----------------------------------------------------------------------------- the worked line


def check_line(eta: float) -> dict:
    """The three-example Check of first-principles E3 with the mean loss and step eta."""
    x, y = CHECK_X, CHECK_Y
    m = len(x)
    z = tokens(x[:, None], y, np.array([1.0]))
    stack = run_stack(z, 2, eta / m, d=1)
    sigma, g = float(x @ x / m), float(x @ y / m)
    star = g / sigma
    theta_gd = gd_weights(x, y, 2, eta / m)[:, 0, 0]
    theta_cf = closed_form(x, y, 2, eta)[:, 0, 0]
    # The query slot after l layers is -Theta_l x_q with x_q = 1.
    theta_stack = -stack[:, -1, 1]
    return {
        "check_sigma": sigma,
        "check_g": g,
        "check_contraction": 1.0 - eta * sigma,
        "check_theta_star": star,
        "check_theta": theta_stack,
        "check_theta_gap": float(
            max(np.abs(theta_stack - theta_gd).max(), np.abs(theta_cf - theta_gd).max())
        ),
    }


def exercise_five(eta: float, x_q: float) -> dict:
    """memory-math exercise 5: one summed-loss step (the linear-attention readout) at eta and
    at eta = 1/sum x^2, against the least-squares slope through the origin."""
    x, y = CHECK_X, CHECK_Y
    readout = eta * float(np.sum(y * x * x_q))
    step = gd_weights(x, y, 1, eta)[1, 0, 0] * x_q
    tuned = 1.0 / float(x @ x)
    return {
        "ex5_one_layer": readout,
        "ex5_readout_gap": abs(readout - step),
        "ex5_least_squares": float(x @ y / (x @ x)) * x_q,
        "ex5_tuned_eta": tuned,
        "ex5_tuned_one_layer": tuned * float(np.sum(y * x * x_q)),
        "ex5_tuned_gap": abs(tuned * float(np.sum(y * x)) - float(x @ y / (x @ x))),
    }


def _figure_model(params, layers):
    """Slopes and mean losses of the 1-D closed form: Theta_l = t*(1 - (1-a)^l) and
    loss_l = floor + (s/2) (Theta_l - t*)^2 (s = Sigma, a = eta Sigma)."""
    t_star, floor, a, s = params
    theta = t_star * (1.0 - (1.0 - a) ** np.asarray(layers, dtype=float))
    return theta, floor + 0.5 * s * (theta - t_star) ** 2


def _half_units(texts) -> np.ndarray:
    return np.array([0.5 * 10.0 ** -len(t.partition(".")[2]) for t in texts])


def figure_consistency() -> dict:
    """Whether one 1-D data set and step can produce all the printed figure readings at once.

    The figure's examples are not printed, so we fit the four numbers the closed form needs
    (least-squares slope, loss floor, eta*Sigma, Sigma) to the printed readings, minimising the
    largest miss in units of each number's printed half unit. A best miss below 1 means a data
    set exists that prints every number as the note does. Done for both loss pairings."""
    from scipy.optimize import least_squares, minimize

    slopes = np.array([float(t) for t in FIGURE_SLOPES])
    losses = np.array([float(t) for t in FIGURE_LOSSES])
    h_s, h_l = _half_units(FIGURE_SLOPES), _half_units(FIGURE_LOSSES)
    out: dict = {}
    fits = []
    for pairing in PAIRINGS:
        if pairing == "losses_at_0_1_3_10":
            loss_layers, used = (0, *FIGURE_LAYERS), slice(0, 4)
        else:
            loss_layers, used = FIGURE_LAYERS, slice(0, 3)

        def miss(p, loss_layers=loss_layers, used=used):
            th, _ = _figure_model(p, FIGURE_LAYERS)
            _, ls = _figure_model(p, loss_layers)
            return np.r_[
                (th - slopes[:3]) / h_s[:3],
                (p[0] - slopes[3]) / h_s[3],
                (ls - losses[used]) / h_l[used],
                (p[1] - losses[4]) / h_l[4],
            ]

        start = least_squares(miss, [slopes[3], losses[4], 0.2, 0.4]).x
        best = minimize(
            lambda p, f=miss: np.abs(f(p)).max(),
            start,
            method="Nelder-Mead",
            options={"xatol": 1e-10, "fatol": 1e-10, "maxiter": 6000},
        )
        fits.append((best.x, float(np.abs(miss(best.x)).max())))
    (p_a, worst_a), (_, worst_b) = fits
    th, _ = _figure_model(p_a, FIGURE_LAYERS)
    _, ls = _figure_model(p_a, (0, *FIGURE_LAYERS))
    out["fig_slope_fit"] = np.r_[th, p_a[0]]
    out["fig_loss_fit"] = np.r_[ls, p_a[1]]
    out["fig_worst_miss"] = np.array([worst_a, worst_b])
    out["fig_eta_sigma"] = p_a[2]
    out["fig_sigma_mean_loss"] = p_a[3]
    # eta implied when the printed loss is the mean loss (1/2m) sum r^2, or the plain mean
    # squared error (1/m) sum r^2 (then Sigma is half as large).
    out["fig_eta_half_mse"] = p_a[2] / p_a[3]
    out["fig_eta_mse"] = p_a[2] / (p_a[3] / 2.0)
    out["fig_pairing_a_only"] = float(worst_a <= 1.0 < worst_b)
    layers = np.arange(0, 21)
    th_curve, ls_curve = _figure_model(p_a, layers)
    out["fig_slope_curve"] = th_curve
    out["fig_loss_curve"] = ls_curve
    return out


@experiment(
    params={
        "check_eta": real(gt=0),
        "ex5_eta": real(gt=0),
        "ex5_query": real(),
    },
    outputs=(
        Output("check_sigma", "mean of x^2 over the three examples"),
        Output("check_g", "mean of x*y over the three examples"),
        Output("check_contraction", "1 - eta*Sigma"),
        Output("check_theta_star", "least-squares slope of the three examples"),
        Output(
            "check_theta", "slope after l layers (read from the query slot)", dims=("check_layer",)
        ),
        Output("check_theta_gap", "largest gap between stack, descent and closed form"),
        Output("ex5_one_layer", "one-layer prediction at x_q (summed loss)"),
        Output("ex5_readout_gap", "|readout - one gradient step| at x_q"),
        Output("ex5_least_squares", "least-squares prediction at x_q"),
        Output("ex5_tuned_eta", "the step 1/sum x^2"),
        Output("ex5_tuned_one_layer", "one-layer prediction at the step 1/sum x^2"),
        Output("ex5_tuned_gap", "|one step at 1/sum x^2 - least-squares slope|"),
        Output("fig_slope_fit", "slopes of the best consistent 1-D data set", dims=("fig_slope",)),
        Output("fig_loss_fit", "losses of the best consistent 1-D data set", dims=("fig_loss",)),
        Output(
            "fig_worst_miss",
            "largest miss of the best fit, in printed half units",
            dims=("pairing",),
        ),
        Output("fig_eta_sigma", "eta*Sigma of the best consistent data set"),
        Output("fig_sigma_mean_loss", "Sigma of the best fit, loss (1/2m) sum r^2"),
        Output("fig_eta_half_mse", "implied eta if the loss is (1/2m) sum r^2"),
        Output("fig_eta_mse", "implied eta if the loss is (1/m) sum r^2"),
        Output("fig_pairing_a_only", "only the pairing 0, 1, 3, 10 layers fits (0/1)"),
        Output(
            "fig_slope_curve", "slope after l layers, best consistent data set", dims=("fig_layer",)
        ),
        Output(
            "fig_loss_curve", "loss after l layers, best consistent data set", dims=("fig_layer",)
        ),
    ),
    coords={
        "check_layer": coord(
            "linear-attention layers applied so far (each one gradient step)", [0, 1, 2]
        ),
        "fig_slope": coord(
            "curve of the slope figure: layers applied, or the least-squares slope",
            ["1", "3", "10", "least_squares"],
        ),
        "fig_loss": coord(
            "curve of the loss figure: layers applied, or the noise floor",
            ["0", "1", "3", "10", "floor"],
        ),
        "pairing": coord(
            "which printed losses the consistent data set is fitted to", list(PAIRINGS)
        ),
        "fig_layer": coord(
            "linear-attention layers applied so far (each one gradient step)", list(range(21))
        ),
    },
    sections=(
        "first-principles E3 (lines 1258-1265)",
        "memory-math exercise 5 (lines 66-67)",
    ),
)
def icl_worked_line(check_eta: float, ex5_eta: float, ex5_query: float) -> dict:
    """The 1-D Check (first-principles E3), exercise 5 (memory-math) and the consistency of
    the printed figure readings (first-principles E3 line 1265)."""
    return {**check_line(check_eta), **exercise_five(ex5_eta, ex5_query), **figure_consistency()}


# ----------------------------------------------------------------------------- random tasks


def _fd_gradient(f, theta, h=1e-6):
    """Central finite-difference gradient of a scalar function of a matrix."""
    grad = np.zeros_like(theta)
    for idx in np.ndindex(theta.shape):
        e = np.zeros_like(theta)
        e[idx] = h
        grad[idx] = (f(theta + e) - f(theta - e)) / (2 * h)
    return grad


def three_gradients(x, y, rng) -> dict:
    """The Hebbian write, the delta rule and the layer as gradient steps on three objectives
    (first-principles line 1232), checked against finite differences at a random Theta."""
    theta = rng.standard_normal((y.shape[1], x.shape[1]))
    lin = _fd_gradient(lambda t: -np.sum(y * (x @ t.T)), theta)
    hebb = y.T @ x  # one unit step from zero on the linear objective
    x0, y0 = x[0], y[0]
    tok = _fd_gradient(lambda t: 0.5 * np.sum((t @ x0 - y0) ** 2), theta)
    delta = np.outer(theta @ x0 - y0, x0)  # minus the delta rule's update direction
    batch = _fd_gradient(lambda t: 0.5 * np.sum((x @ t.T - y) ** 2) / len(x), theta)
    per_token = np.mean([np.outer(theta @ xi - yi, xi) for xi, yi in zip(x, y, strict=True)], 0)
    return {
        "hebbian_is_step": float(np.abs(-lin - hebb).max()),
        "delta_is_step": float(np.abs(tok - delta).max()),
        "batch_is_mean_step": float(np.abs(batch - per_token).max()),
    }


@experiment(
    grid={"d": ints(memory=True, doc="input dimension d of the regression"), "seed": seeds()},
    params={
        "m": integer(min=2, memory=True),
        "d_out": integer(min=1),
        "eta": real(gt=0),
        "layers": integer(min=2, work=True, memory=True),
        "long_layers": integer(min=1),
        "noise": real(min=0),
    },
    outputs=(
        Output(
            "one_step_fd_gap",
            "largest |-eta grad_fd L(0) - (eta/m) sum y_i x_i^T| (one step from zero)",
        ),
        Output("x", "first input coordinate of each example", dims=("example",)),
        Output("y", "label of each example", dims=("example",)),
        Output("x_q", "first query coordinate"),
        Output("slope", "first weight after l layers (gradient steps)", dims=("layer",)),
        Output("loss", "mean in-context loss (1/2m) sum r^2 after l layers", dims=("layer",)),
        Output("loss_monotone", "the loss never rises from one layer to the next (0/1)"),
        Output("ls_slope", "first least-squares weight"),
        Output("ls_loss", "least-squares floor of the mean loss"),
        Output("slot_gap", "largest |label slot - residual of Theta_l|", dims=("layer",)),
        Output("pred_gap", "|minus query slot - Theta_l x_q|", dims=("layer",)),
        Output("closed_form_gap", "largest |closed form - descent| of Theta_l", dims=("layer",)),
        Output("leak_gap", "largest token change when the query is also a key", dims=("layer",)),
        Output(
            "ls_gap_rho", "largest |Theta - least squares| after long_layers steps", dims=("rho",)
        ),
        Output("d12_gap", "largest |D12 layer output - W_k x_q| over k"),
        Output("d11_readout_gap", "|Hebbian read - linear-attention readout|"),
        Output("d11_hebbian_gap", "|eta sum y x^T - first descent step|"),
        Output("mm_pred_gap", "|minus query slot - W_k x_q|, summed loss, vector labels"),
        Output("hebbian_is_step", "|Hebbian write - unit step on -y.Theta x|"),
        Output("delta_is_step", "|delta-rule direction - token-loss gradient|"),
        Output("batch_is_mean_step", "|mean-loss gradient - mean token gradient|"),
    ),
    coords={
        "layer": coord(
            "linear-attention layers applied so far (each one gradient step)",
            lambda layers, **_: list(range(layers + 1)),
        ),
        "example": coord(
            "in-context example of the prompt (0 first)", lambda m, **_: list(range(m))
        ),
        "rho": coord(
            "step size times the largest input-covariance eigenvalue (converges below 2)",
            [1.9, 2.1],
        ),
    },
    sections=(
        "first-principles E3 (lines 1219-1266)",
        "memory-math ch. 11 (line 52 char 350 to line 54), D11, D12 (line 68)",
    ),
)
def icl_stack_gd(
    d: int,
    seed: int,
    rng,
    m: int,
    d_out: int,
    eta: float,
    layers: int,
    long_layers: int,
    noise: float,
) -> dict:
    """A random regression prompt run through the stack: x uniform on [-1, 1]^d, labels on the
    line w = (1, .., 1)/sqrt(d) plus Gaussian noise of sd ``noise``.

    Compares the label slots with gradient descent (mean loss, step eta), the closed form,
    the query-as-key variant, memory-math's summed-loss readout (D11, D12) with vector labels,
    and convergence when the largest eigenvalue of eta*Sigma is 1.9 or 2.1."""
    x = rng.uniform(-1.0, 1.0, (m, d))
    w_true = np.ones((1, d)) / np.sqrt(d)
    y = x @ w_true.T + noise * rng.standard_normal((m, 1))
    x_q = rng.uniform(-1.0, 1.0, d)
    z = tokens(x, y, x_q)
    stack = run_stack(z, layers, eta / m, d)
    theta = gd_weights(x, y, layers, eta / m)
    resid = y[None, :, 0] - np.einsum("lod,md->lm", theta, x)
    slot_gap = np.abs(stack[:, :-1, d] - resid).max(axis=1)
    pred_gap = np.abs(-stack[:, -1, d] - theta[:, 0] @ x_q)
    cf_gap = np.abs(closed_form(x, y, layers, eta) - theta).max(axis=(1, 2))
    leaky = run_stack(z, layers, eta / m, d, query_is_key=True)
    leak_gap = np.abs(leaky - stack).max(axis=(1, 2))

    # Convergence: the closed form at eta chosen so that max eig(eta Sigma) = 1.9 or 2.1.
    sigma = x.T @ x / m
    lam = np.linalg.eigvalsh(sigma)
    theta_star = np.linalg.solve(sigma, (y.T @ x / m).T).T
    conv = []
    for rho in (1.9, 2.1):
        th = closed_form(x, y, long_layers, rho / lam.max(), last_only=True)[0]
        conv.append(float(np.abs(th - theta_star).max()))

    # memory-math: summed loss, step eta_sum, vector labels; D12's output formula.
    eta_sum = eta / m
    y_vec = np.hstack([y, x @ rng.standard_normal((d, d_out - 1))]) if d_out > 1 else y
    zv = tokens(x, y_vec, x_q)
    sv = run_stack(zv, layers, eta_sum, d, d_out)
    wv = gd_weights(x, y_vec, layers, eta_sum)
    d12 = []
    for k in range(1, layers + 1):
        r = y_vec - x @ wv[k - 1].T
        out = wv[k - 1] @ x_q + eta_sum * r.T @ (x @ x_q)
        d12.append(np.abs(out - wv[k] @ x_q).max())
    hebb = eta_sum * y_vec.T @ x  # the outer-product memory of the first step
    d11 = np.abs(hebb @ x_q - eta_sum * y_vec.T @ (x @ x_q)).max()
    d11_step = np.abs(hebb - wv[1]).max()
    mm_pred_gap = np.abs(-sv[:, -1, d:] - np.einsum("lod,d->lo", wv, x_q)).max()

    # first-principles line 1224: one step from Theta_0 = 0 on the mean loss, with the gradient
    # taken by finite differences, against the printed (eta/m) sum y_i x_i^T.
    grad0 = _fd_gradient(lambda t: mean_loss(t[None], x, y)[0], np.zeros((1, d)))
    one_step_fd_gap = float(np.abs(-eta * grad0 - eta / m * y.T @ x).max())

    return {
        "one_step_fd_gap": one_step_fd_gap,
        "x": x[:, 0],
        "y": y[:, 0],
        "x_q": float(x_q[0]),
        "slope": theta[:, 0, 0],
        "loss": mean_loss(theta, x, y),
        "loss_monotone": float(np.all(np.diff(mean_loss(theta, x, y)) <= 1e-15)),
        "ls_slope": float(theta_star[0, 0]),
        "ls_loss": float(mean_loss(theta_star[None], x, y)[0]),
        "slot_gap": slot_gap,
        "pred_gap": pred_gap,
        "closed_form_gap": cf_gap,
        "leak_gap": leak_gap,
        "ls_gap_rho": np.array(conv),
        "d12_gap": float(max(d12)),
        "d11_readout_gap": float(d11),
        "d11_hebbian_gap": float(d11_step),
        "mm_pred_gap": float(mm_pred_gap),
        **three_gradients(x, y_vec, rng),
    }
