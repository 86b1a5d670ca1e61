"""The science, one module per topic, and the registry of experiments the pipeline can run.

Each topic module lists its experiments in ``EXPERIMENTS``; add a module to ``_TOPICS`` to
make its experiments runnable (and give each a block in config/config.yaml and the schema).
"""

from __future__ import annotations

from importlib import import_module

from ..spec import Experiment

_TOPICS = (
    "soft_lookup",
    "unified_view",
    "in_context_regression",
    "induction_circuit",
    "attention_dictionary",
    "ngram",
    "single_head",
    "head_cost",
    "score_scale",
    "softmax_capacity",
    "true_process",
    "bag_of_words",
    "hmm",
    "copy_rule",
    "pair_mixture",
    "model_comparison",
    "latent_pointer",
    "set_functions",
    "recurrent_state",
    "random_key_memory",
    "head_algebra",
    "score_saturation",
    "residual_block",
    "layer_cost",
    "store_writes",
    "score_capacity",
    "store_budgets",
    "fast_weights",
    "toylang_readers",
    "matrix_readings",
    "toylang_machine",
)


def registry() -> dict[str, Experiment]:
    """Every experiment by name."""
    out: dict[str, Experiment] = {}
    for topic in _TOPICS:
        for exp in import_module(f"{__name__}.{topic}").EXPERIMENTS:
            if exp.name in out:
                raise ValueError(f"experiment {exp.name!r} is defined twice")
            out[exp.name] = exp
    return out


def experiment(name: str) -> Experiment:
    """One experiment, importing only the module that declares it (a job should not pay for
    importing every topic's science). Falls back to the full registry."""
    from ..sources import experiment_modules

    module = experiment_modules().get(name)
    if module in _TOPICS:
        for exp in import_module(f"{__name__}.{module}").EXPERIMENTS:
            if exp.name == name:
                return exp
    return registry()[name]
