"""In-context linear regression learned by training (issue 13 item 3; first-principles E3,
memory-math ch. 11): linear self-attention layers trained from random weights on regression
prompts, compared with gradient descent at its best step, with least squares, and (K layers)
with K layers of the curvature-corrected descent GD++.

A prompt is m examples (x_i, w.x_i) and a query x_q, with x and w standard normal and w drawn
afresh per prompt (no label noise). Tokens are laid out as in the hand-set construction of
``in_context_regression``: example tokens (x_i, y_i), the query token (x_q, 0), keys summed over
the example tokens only, the prediction read as minus the query's label slot. Each layer has a
merged key-query matrix and a value matrix, both (d+1) x (d+1) and trained freely, so whether
the trained layer takes the construction's form (values read the label, scores read x . x_q
with one scale) is a finding, not an assumption.
"""

from __future__ import annotations

import numpy as np

from ..spec import Output, experiment, integer, ints, real, seeds
from ._torch import Adam, cosine_rates


def prompts(torch, n: int, m: int, d: int):
    """``n`` prompts drawn with torch's global generator: inputs (n, m, d), labels (n, m),
    queries (n, d) and the query's true label (n,)."""
    w = torch.randn(n, d)
    x = torch.randn(n, m, d)
    x_q = torch.randn(n, d)
    return x, (x @ w[..., None])[..., 0], x_q, (x_q * w).sum(-1)


def lsa_predict(torch, layers, x, y, x_q):
    """Minus the query's label slot after the linear self-attention layers ``layers`` (a list
    of (key-query, value) matrix pairs); keys and values are the example tokens only."""
    return _attend(torch, layers, x, y, x_q, softmax=False)


def softmax_predict(torch, layers, x, y, x_q):
    """As lsa_predict, with each token's scores over the example tokens turned into weights by
    a softmax (which sum to one, so no 1/m): softmax self-attention layers."""
    return _attend(torch, layers, x, y, x_q, softmax=True)


def _attend(torch, layers, x, y, x_q, softmax: bool):
    """The layers on the tokens (x_i, y_i) and (x_q, 0), each token reading the example
    tokens with its scores over m, or their softmax; minus the query's label slot at the end."""
    n, m, d = x.shape
    examples = torch.cat([x, y[..., None]], -1)
    query = torch.cat([x_q, torch.zeros(n, 1)], -1)[:, None]
    z = torch.cat([examples, query], 1)
    for kq, wv in layers:
        src = z[:, :m]
        scores = (z @ kq.T) @ src.transpose(1, 2)
        if softmax:
            z = z + torch.softmax(scores, dim=-1) @ (src @ wv.T)
        else:
            z = z + scores @ (src @ wv.T) / m
    return -z[:, -1, d]


def held_out(torch, n: int, m: int, d: int, models) -> tuple:
    """Two fresh sets of ``n`` prompts, as float64 arrays: one to tune a descent step on, one
    to compare on; and each of ``models`` (predict function, trained layers) read on the
    second."""
    with torch.no_grad():
        tune = [t.double().numpy() for t in prompts(torch, n, m, d)]
        x, y, x_q, y_q = prompts(torch, n, m, d)
        preds = [predict(torch, layers, x, y, x_q).double().numpy() for predict, layers in models]
    return tune, [t.double().numpy() for t in (x, y, x_q, y_q)], preds


def relative_loss(pred, y_q) -> float:
    """Mean squared query error over the mean squared label (1: predicting zero)."""
    return float(np.mean((pred - y_q) ** 2) / np.mean(y_q**2))


def relative_gap(pred, reference) -> float:
    """Mean squared difference from ``reference`` over the variance of ``reference``."""
    return float(np.mean((pred - reference) ** 2) / np.var(reference))


def gd_predict(x, y, x_q, steps: int, eta: float) -> np.ndarray:
    """Prediction after ``steps`` gradient steps of size eta on the mean in-context loss
    (1/2m) sum (theta.x_i - y_i)^2 from theta = 0."""
    m = x.shape[1]
    theta = np.zeros((x.shape[0], x.shape[2]))
    for _ in range(steps):
        resid = np.einsum("nmd,nd->nm", x, theta) - y
        theta = theta - eta / m * np.einsum("nm,nmd->nd", resid, x)
    return np.einsum("nd,nd->n", theta, x_q)


def best_eta(x, y, x_q, y_q, steps: int) -> float:
    """The step of ``steps``-step descent with the least mean squared query error on the given
    prompts (exact for one step, where the prediction is linear in eta; bounded search else)."""
    if steps == 1:
        s = gd_predict(x, y, x_q, 1, 1.0)
        return float(s @ y_q / (s @ s))
    from scipy.optimize import minimize_scalar

    res = minimize_scalar(
        lambda eta: float(np.mean((gd_predict(x, y, x_q, steps, eta) - y_q) ** 2)),
        bounds=(1e-4, 2.0),
        method="bounded",
        options={"xatol": 1e-7},
    )
    return float(res.x)


def gdpp_predict(x, y, x_q, etas, gammas) -> np.ndarray:
    """Prediction after len(etas) layers of the curvature-corrected descent GD++ (von Oswald
    et al., as memory-math ch. 11 cites it), in the token picture from theta = 0: each layer
    takes a descent step of size eta_k on the label residuals, and maps every input (examples
    and query) by I - gamma_k S, with S the layer's (1/m) sum x_i x_i^T, both read from the
    layer's input. gamma = 0 throughout is plain descent with one step size per layer."""
    return _gdpp(x, y, x_q, etas, gammas)[0]


def _gdpp(x, y, x_q, etas, gammas) -> tuple[np.ndarray, np.ndarray]:
    """gdpp_predict's prediction, and what one more step of size 1 would add to it."""
    m = x.shape[1]
    resid, pred = y, np.zeros(x.shape[0])
    x_q = x_q[:, None]  # (n, 1, d), for batched matmuls
    for eta, gamma in zip(etas, gammas, strict=True):
        grad = (x.transpose(0, 2, 1) @ resid[..., None]) / m  # (n, d, 1)
        resid = resid - eta * (x @ grad)[..., 0]
        pred = pred + eta * (x_q @ grad)[:, 0, 0]
        if gamma:
            s = x.transpose(0, 2, 1) @ x / m
            x, x_q = x - gamma * (x @ s), x_q - gamma * (x_q @ s)
    grad = (x.transpose(0, 2, 1) @ resid[..., None]) / m
    return pred, (x_q @ grad)[:, 0, 0]


def best_gdpp(x, y, x_q, y_q, layers: int, curvature: bool, starts: int = 4, seed: int = 0):
    """The per-layer steps (and, with ``curvature``, per-layer maps gamma_k) of gdpp_predict
    with the least mean squared query error on the given prompts. The last step enters the
    prediction linearly and is solved exactly; the last map never reaches the prediction and
    stays 0; the rest are searched by L-BFGS from ``starts`` starting points (the error is not
    convex in them; the first start is plain descent's best common step, with no maps).
    Returns (etas, gammas)."""
    from scipy.optimize import minimize

    def split(v):
        etas = list(v[: layers - 1])
        return etas, list(v[layers - 1 :]) if curvature else [0.0] * (layers - 1)

    def fit_last(v):
        base, more = _gdpp(x, y, x_q, *split(v))
        eta = float(more @ (y_q - base) / (more @ more))
        return eta, float(np.mean((base + eta * more - y_q) ** 2))

    n_free = (layers - 1) * (2 if curvature else 1)
    if n_free == 0:
        return [fit_last([])[0]], [0.0]
    first = np.zeros(n_free)
    first[: layers - 1] = best_eta(x, y, x_q, y_q, layers)
    rng = np.random.default_rng(seed)
    firsts = [first] + [rng.uniform(0, 1.5, n_free) for _ in range(starts - 1)]
    best = min(
        (minimize(lambda v: fit_last(v)[1], v0, method="L-BFGS-B") for v0 in firsts),
        key=lambda r: r.fun,
    ).x
    etas, gammas = split(best)
    return [*etas, fit_last(best)[0]], [*gammas, 0.0]


def least_squares_predict(x, y, x_q) -> np.ndarray:
    """Minimum-norm least-squares fit of each prompt's examples, read at its query."""
    theta = np.einsum("nde,ne->nd", np.linalg.pinv(x), y)
    return np.einsum("nd,nd->n", theta, x_q)


def construction_form(kq: np.ndarray, wv: np.ndarray) -> tuple[float, float]:
    """How far one trained layer is from the construction's form.

    The prediction is a cubic form sum_abc T_abc z_ia z_ib x_qc with T_abc = -v_a C_bc (v the
    label row of the value matrix, C the key-query columns the query's x part meets), summed
    over examples; only its part symmetric in (a, b) acts. The construction has only the
    y_i x_ij x_qj terms, all with one weight gamma. Returns gamma (the mean diagonal of that
    block) and the norm of everything else relative to the whole symmetric form."""
    d = kq.shape[0] - 1
    t = -np.einsum("a,bc->abc", wv[d], kq[:, :d])
    s = 0.5 * (t + t.transpose(1, 0, 2))
    gamma = float(np.trace(s[d, :d] + s[:d, d]) / d)
    form = np.zeros_like(s)
    form[d, :d] = form[:d, d] = 0.5 * gamma * np.eye(d)
    return gamma, float(np.linalg.norm(s - form) / np.linalg.norm(s))


def train_lsa(torch, d, m, layers, steps, batch, lr, init, predict=lsa_predict):
    """Adam with a cosine schedule on fresh prompts each step, from weights of sd ``init``;
    ``predict`` is the model (lsa_predict, or softmax_predict)."""
    params = [
        tuple((init * torch.randn(d + 1, d + 1)).requires_grad_() for _ in range(2))
        for _ in range(layers)
    ]
    flat = [p for layer in params for p in layer]
    opt = Adam(torch, flat, lr=lr)
    for rate in cosine_rates(lr, steps):
        opt.lr = rate
        x, y, x_q, y_q = prompts(torch, batch, m, d)
        loss = ((predict(torch, params, x, y, x_q) - y_q) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    return [tuple(p.detach() for p in layer) for layer in params]


def prompt_grid(**more) -> dict:
    """The grid of a training run on regression prompts: d, m, any ``more`` axes, seeds."""
    return {
        "d": ints(doc="input dimension"),
        "m": ints(doc="examples per prompt"),
        **more,
        "seed": seeds(doc="training replicates (initialisation and prompts)"),
    }


def training_params(steps_doc: str) -> dict:
    """The parameters of a training run on regression prompts, shared by the experiments."""
    return {
        "steps": integer(min=1, doc=steps_doc, work=True),
        "batch": integer(min=1, doc="fresh prompts per step"),
        "lr": real(gt=0, doc="peak Adam learning rate (cosine schedule to zero)"),
        "init": real(gt=0, doc="standard deviation of the initial weights"),
        "eval_prompts": integer(min=10, doc="held-out prompts for every comparison"),
    }


@experiment(
    own_process=True,  # trains with torch (its generator is process-wide)
    grid=prompt_grid(),
    params=training_params("Adam steps"),
    outputs=(
        Output("loss_trained", "query MSE of the trained model over mean y_q^2"),
        Output("loss_gd", "query MSE of descent at its best step over mean y_q^2"),
        Output("loss_ls", "query MSE of least squares over mean y_q^2"),
        Output("gd_eta", "best step of descent, tuned on separate prompts"),
        Output("gap_gd", "mean (trained - descent)^2 over the variance of descent's predictions"),
        Output("gap_ls", "mean (trained - least squares)^2 over the variance of least squares"),
        Output("form_gamma", "scale of the y_i x_i.x_q terms of the trained layer"),
        Output("form_residual", "norm of the trained layer's other terms relative to all"),
    ),
    sections=(
        "first-principles E3 (line 1264, trained models)",
        "memory-math ch. 11 (line 54, von Oswald et al.'s trained models)",
    ),
)
def icl_trained(
    d: int,
    m: int,
    seed: int,
    rng,
    steps: int,
    batch: int,
    lr: float,
    init: float,
    eval_prompts: int,
) -> dict:
    """Train one linear self-attention layer on prompts of m examples in d dimensions, then
    compare on held-out prompts with one descent step at its best size (tuned on other
    prompts) and with least squares, and read the trained weights' form."""
    from ._torch import seeded_torch

    del seed  # a replicate index: it only selects this point's generator
    torch = seeded_torch(rng)
    trained = train_lsa(torch, d, m, 1, steps, batch, lr, init)
    tune, (x, y, x_q, y_q), (pred_t,) = held_out(
        torch, eval_prompts, m, d, [(lsa_predict, trained)]
    )
    eta = best_eta(*tune, 1)
    pred_gd = gd_predict(x, y, x_q, 1, eta)
    pred_ls = least_squares_predict(x, y, x_q)
    kq, wv = (t.double().numpy() for t in trained[0])
    form_gamma, form_residual = construction_form(kq, wv)
    return {
        "loss_trained": relative_loss(pred_t, y_q),
        "loss_gd": relative_loss(pred_gd, y_q),
        "loss_ls": relative_loss(pred_ls, y_q),
        "gd_eta": eta,
        "gap_gd": relative_gap(pred_t, pred_gd),
        "gap_ls": relative_gap(pred_t, pred_ls),
        "form_gamma": form_gamma,
        "form_residual": form_residual,
    }


@experiment(
    own_process=True,  # trains with torch (its generator is process-wide)
    grid=prompt_grid(),
    params=training_params("Adam steps, for each of the two layers"),
    outputs=(
        Output("gap_linear", "mean (linear layer - descent)^2 over the variance of descent's"),
        Output("gap_softmax", "mean (softmax layer - descent)^2 over the variance of descent's"),
        Output("gap_excess", "gap_softmax - gap_linear: how much worse softmax agrees"),
        Output("loss_linear", "query MSE of the trained linear layer over mean y_q^2"),
        Output("loss_softmax", "query MSE of the trained softmax layer over mean y_q^2"),
        Output("loss_gd", "query MSE of one descent step at its best size over mean y_q^2"),
    ),
    sections=(
        "first-principles E3 (line 1265, one softmax layer against a linear one)",
        "memory-math ch. 11 (line 54, von Oswald et al.: softmax weakens the agreement)",
    ),
)
def icl_softmax_trained(
    d: int,
    m: int,
    seed: int,
    rng,
    steps: int,
    batch: int,
    lr: float,
    init: float,
    eval_prompts: int,
) -> dict:
    """Train one linear and one softmax self-attention layer alike (same prompts' law, steps
    and schedule) and compare each with one descent step at its best size on held-out
    prompts: does the softmax layer agree worse?"""
    from ._torch import seeded_torch

    del seed  # a replicate index: it only selects this point's generator
    torch = seeded_torch(rng)
    linear = train_lsa(torch, d, m, 1, steps, batch, lr, init)
    soft = train_lsa(torch, d, m, 1, steps, batch, lr, init, predict=softmax_predict)
    tune, (x, y, x_q, y_q), (pred_lin, pred_soft) = held_out(
        torch, eval_prompts, m, d, [(lsa_predict, linear), (softmax_predict, soft)]
    )
    pred_gd = gd_predict(x, y, x_q, 1, best_eta(*tune, 1))
    gap_lin, gap_soft = relative_gap(pred_lin, pred_gd), relative_gap(pred_soft, pred_gd)
    return {
        "gap_linear": gap_lin,
        "gap_softmax": gap_soft,
        "gap_excess": gap_soft - gap_lin,
        "loss_linear": relative_loss(pred_lin, y_q),
        "loss_softmax": relative_loss(pred_soft, y_q),
        "loss_gd": relative_loss(pred_gd, y_q),
    }


@experiment(
    own_process=True,  # trains with torch (its generator is process-wide)
    grid=prompt_grid(layers=ints(doc="linear self-attention layers K, trained together")),
    params=training_params("Adam steps"),
    outputs=(
        Output("loss_trained", "query MSE of the trained layers over mean y_q^2"),
        Output("loss_gd", "query MSE of K descent steps of one best size over mean y_q^2"),
        Output("loss_gd_free", "query MSE of K descent steps, best size per step, over mean y_q^2"),
        Output("loss_gdpp", "query MSE of K layers of GD++ at their best over mean y_q^2"),
        Output("gap_gd", "mean (trained - K steps of one size)^2 over their variance"),
        Output("gap_gd_free", "mean (trained - K steps, size per step)^2 over their variance"),
        Output("gap_gdpp", "mean (trained - GD++)^2 over the variance of GD++'s predictions"),
        Output("gdpp_advantage", "gap_gd - gap_gdpp: how much closer GD++ is than plain steps"),
        Output("gdpp_advantage_free", "gap_gd_free - gap_gdpp, against the freer plain steps"),
    ),
    sections=("memory-math ch. 11 (line 54, von Oswald et al.: K layers against GD++)",),
)
def icl_depth_trained(
    d: int,
    m: int,
    layers: int,
    seed: int,
    rng,
    steps: int,
    batch: int,
    lr: float,
    init: float,
    eval_prompts: int,
) -> dict:
    """Train K = ``layers`` linear self-attention layers together, then compare them on
    held-out prompts with K plain descent steps (one best size, or a best size per step) and
    with K layers of GD++ (a best step and input map per layer), all tuned on other prompts
    for the least query error: do the trained layers follow GD++ more closely?"""
    from ._torch import seeded_torch

    del seed  # a replicate index: it only selects this point's generator
    torch = seeded_torch(rng)
    trained = train_lsa(torch, d, m, layers, steps, batch, lr, init)
    tune, (x, y, x_q, y_q), (pred_t,) = held_out(
        torch, eval_prompts, m, d, [(lsa_predict, trained)]
    )
    preds = {
        "gd": gd_predict(x, y, x_q, layers, best_eta(*tune, layers)),
        "gd_free": gdpp_predict(x, y, x_q, *best_gdpp(*tune, layers, curvature=False)),
        "gdpp": gdpp_predict(x, y, x_q, *best_gdpp(*tune, layers, curvature=True)),
    }
    out = {"loss_trained": relative_loss(pred_t, y_q)}
    out |= {f"loss_{k}": relative_loss(p, y_q) for k, p in preds.items()}
    out |= {f"gap_{k}": relative_gap(pred_t, p) for k, p in preds.items()}
    out["gdpp_advantage"] = out["gap_gd"] - out["gap_gdpp"]
    out["gdpp_advantage_free"] = out["gap_gd_free"] - out["gap_gdpp"]
    return out
