"""A check must be able to fail: perturb a computation and watch its claims go red."""

from __future__ import annotations

from conftest import REGISTRY, ROOT

from attnmem import claims
from attnmem.config import load_yaml
from attnmem.cube import run_experiment
from attnmem.experiments import registry, soft_lookup

CONFIG = load_yaml(ROOT / "config" / "config.yaml")


def verdicts(cubes, cube_name):
    entries = [
        e
        for e in claims.load_registry(REGISTRY)
        if any(c["cube"] == cube_name for c in claims.checks_of(e))
    ]
    return {e["id"]: claims.judge(e, cubes).verdict for e in entries}


def test_changing_one_hand_set_key_turns_the_lookup_claims_red(monkeypatch):
    exp = registry()["soft_lookup"]
    block = CONFIG["experiments"]["soft_lookup"]
    before = verdicts({"soft_lookup": run_experiment(exp, block, CONFIG["seed"])}, "soft_lookup")
    keys = soft_lookup.KEYS.copy()
    keys[1, 0] = 1.9  # cat's first slot, 1.8 in the note
    monkeypatch.setattr(soft_lookup, "KEYS", keys)
    after = verdicts({"soft_lookup": run_experiment(exp, block, CONFIG["seed"])}, "soft_lookup")
    flipped = [i for i in before if before[i] == "reproduced" and after[i] == "discrepant"]
    assert "soft-dictionary/soft-lookup/sat-row-cat" in flipped
    assert "soft-dictionary/self-attention/row-the" in flipped
    assert len(flipped) >= 10


def test_scaling_a_cube_variable_turns_its_claims_red():
    exp = registry()["soft_lookup"]
    ds = run_experiment(exp, CONFIG["experiments"]["soft_lookup"], CONFIG["seed"])
    before = verdicts({"soft_lookup": ds}, "soft_lookup")
    ds["weight"] = ds["weight"] * 1.01
    after = verdicts({"soft_lookup": ds}, "soft_lookup")
    assert before["soft-dictionary/self-attention/row-cat"] == "reproduced"
    assert after["soft-dictionary/self-attention/row-cat"] == "discrepant"
