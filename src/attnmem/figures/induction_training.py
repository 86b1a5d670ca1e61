"""Figures of the induction heads trained at toy scale (first-principles E4, memory-math ch. 11)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from ..views import figure
from . import style


@figure(
    "first-principles/E4-induction-training",
    title="Induction heads appear in training at toy scale",
    cubes=("induction_training",),
)
def induction_training(cubes):
    """Induction heads trained at toy scale on repeated random segments. Left: the in-context
    learning score (loss on the last 3 positions minus the first 3) over training steps, one line
    per seed, for two-layer models and for the one-layer control. Right: the prefix-matching
    score of the best head (weight on the token after the earlier occurrence of the current token)
    and its copying score (eigenvalues of its OV circuit), for the same runs. In two layers the
    ICL score drops a second time when a layer-2 head becomes a prefix matcher; one layer stays
    on the first plateau."""
    ds = cubes["induction_training"]
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.6), layout="constrained")
    steps = ds["step"].values
    colours = {1: style.GREY, 2: style.STORED}
    for layers in ds["layers"].values:
        d = ds.sel(layers=layers)
        for i, seed in enumerate(d["seed"].values):
            label = f"{int(layers)} layer{'s' if layers > 1 else ''}" if i == 0 else None
            s = d.sel(seed=seed)
            left.plot(steps, s["icl_score"], color=colours[int(layers)], lw=1.2, label=label)
            pm = s["prefix_matching"].stack(h=("layer_index", "head"))
            top = int(np.argmax(pm.isel(step=-1).fillna(-1).values))
            right.plot(steps, pm.isel(h=top), color=colours[int(layers)], lw=1.2, label=label)
            cp = s["copying"].stack(h=("layer_index", "head")).isel(h=top)
            right.plot(steps, cp, color=colours[int(layers)], lw=0.8, ls=":")
    left.axhline(0, color=style.GREY, lw=0.6)
    left.set_xlabel("training step")
    left.set_ylabel("ICL score (nats)")
    right.set_xlabel("training step")
    right.set_ylabel("best head: prefix matching (solid),\ncopying (dotted)")
    right.legend(fontsize=style.SMALL, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return fig
