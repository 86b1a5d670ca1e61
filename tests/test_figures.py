"""The views (the text scan the Snakefile reads against the decorators), one name per
topic, captions, and the check of the figures' settings against the grids."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import xarray as xr

from attnmem import figure_settings, snapshots, views
from attnmem.config import load_yaml
from attnmem.grid import expand_grid
from attnmem.sources import experiment_modules

ROOT = Path(__file__).resolve().parents[1]
CONFIG = load_yaml(ROOT / "config/config.yaml")


def test_the_text_scan_equals_the_imported_decorators():
    scanned = views.groups()
    # one Snakemake job (a second of start-up) per figure module: 14 topics of the notes and
    # 4 of training at toy scale
    assert len(scanned) <= 18, "one Snakemake job (a second of start-up) per figure module"
    for module, figures in scanned.items():
        functions = views.imported(module)
        assert {f.id: f for f in figures} == {i: fn.figure for i, fn in functions.items()}, module
        in_source_order = sorted(functions.values(), key=lambda fn: fn.__code__.co_firstlineno)
        assert [f.function for f in figures] == [fn.__name__ for fn in in_source_order], module


def test_every_figure_module_is_named_after_a_science_module():
    science = set(experiment_modules().values())
    assert set(views.groups()) <= science, sorted(set(views.groups()) - science)


def test_every_figure_has_a_caption_and_reads_declared_cubes():
    declared = set(CONFIG["experiments"])
    for module in views.groups():
        for fig_id, fn in views.imported(module).items():
            assert len(views.caption(fn).split()) >= 15, f"the caption of {fig_id} is too short"
            assert set(fn.figure.cubes) <= declared, fig_id


def test_the_snakefile_side_imports_no_matplotlib_and_no_bokeh():
    code = (
        "import sys; from attnmem import views, figure_settings, interactive; "
        "views.scan(); interactive.js_files(); "
        "print('matplotlib' in sys.modules or 'bokeh' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_the_scan_reads_literal_declarations_only():
    text = '@figure("a-doc/x-one", cubes=("c",), settings={"s": ("c", "beta")})\ndef one(cubes, s):'
    (fig,) = views._scan_text("m", text)
    assert (fig.id, fig.module, fig.function, fig.cubes) == ("a-doc/x-one", "m", "one", ("c",))
    assert fig.settings == {"s": (("c", "beta"),)}
    with pytest.raises(ValueError, match="literals"):
        views._scan_text("m", '@figure(ID, cubes=("c",))\ndef two(cubes):')
    with pytest.raises(ValueError, match="not in its cubes"):
        views._scan_text("m", '@figure("a/b", settings={"s": ("c", "beta")})\ndef f(cubes, s):')


def test_a_title_is_declared_with_the_figure_or_taken_from_the_caption():
    text = '@figure("a-doc/x-one", title="Short and human")\ndef one(cubes):'
    (fig,) = views._scan_text("m", text)
    assert fig.title == "Short and human"
    assert views.heading(fig.title, "Whatever the caption says.") == "Short and human"
    assert views.heading("", "First sentence. Second one.") == "First sentence"
    long = views.heading("", "word " * 40)
    assert len(long) <= 70 and long.endswith("...")
    with pytest.raises(ValueError, match="70 characters"):
        views._scan_text("m", f'@figure("a/b", title="{"x" * 71}")\ndef f(cubes):')
    fig = views.by_id()["first-principles/A1-ruler-costs"]
    line = (
        ((views.PACKAGE_DIR / "figures") / "model_comparison.py")
        .read_text()
        .splitlines()[views.source_line(fig) - 1]
    )
    assert line.startswith(f"def {fig.function}(")


def test_the_configured_settings_fit_the_grids():
    assert figure_settings.problems(CONFIG, views.scan()) == []


def _with_grid(config, cube, dim, values):
    out = copy.deepcopy(config)
    out["experiments"][cube][dim] = values
    return out


def test_dropping_a_selected_value_from_a_grid_names_the_setting():
    config = copy.deepcopy(CONFIG)
    config["figures"]["soft_lookup"]["printed_betas"] = [0.1, 1.0, 1000]
    assert figure_settings.problems(config, views.scan()) == []
    grid = expand_grid(config["experiments"]["soft_lookup"], ("beta",))["beta"]
    narrowed = _with_grid(config, "soft_lookup", "beta", [b for b in grid if b != 1000])
    (problem,) = figure_settings.problems(narrowed, views.scan())
    assert problem.startswith("figures.soft_lookup.printed_betas = [0.1, 1.0, 1000] selects beta")
    assert "1000 of soft_lookup" in problem
    with pytest.raises(figure_settings.FigureSettingsError, match="printed_betas"):
        figure_settings.check(narrowed, views.scan())


def test_every_setting_is_checked_on_every_grid_it_selects():
    """Drop each setting's first value from each grid it selects: the check names it."""
    declared = views.module_settings(views.scan())
    for module, names in declared.items():
        for name, targets in names.items():
            value = CONFIG["figures"][module][name]
            first = value[0] if isinstance(value, list) else value
            for cube, dim in targets:
                block = CONFIG["experiments"][cube]
                if dim not in block or not isinstance(block[dim], (list, dict)):
                    continue  # a coordinate the science computes: checked when drawn
                grid = expand_grid(block, (dim,))[dim]
                narrowed = _with_grid(CONFIG, cube, dim, [v for v in grid if v != first])
                found = figure_settings.problems(narrowed, views.scan())
                assert any(p.startswith(f"figures.{module}.{name} ") for p in found), (
                    module,
                    name,
                    cube,
                )


def test_unknown_missing_and_ungridded_settings_are_named():
    config = copy.deepcopy(CONFIG)
    config["figures"]["soft_lookup"]["typo_beta"] = 1
    del config["figures"]["soft_lookup"]["table_beta"]
    config["figures"]["no_such_module"] = {"x": 1}
    found = "\n".join(figure_settings.problems(config, views.scan()))
    assert "figures.soft_lookup.typo_beta: no figure of soft_lookup selects with it" in found
    assert "figures.soft_lookup.table_beta is missing" in found
    assert "figures.no_such_module" in found
    fig = views._declare("figure", "m", "f", "d/x", ("c",), {"s": ("c", "step")})
    config = {"experiments": {"c": {"beta": [1, 2], "steps": 40}}, "figures": {"m": {"s": 3}}}
    (problem,) = figure_settings.problems(config, [fig])
    assert "neither a grid key nor a list parameter" in problem and "figures.m.s" in problem


def test_a_computed_coordinate_is_checked_against_the_cube():
    fig = views._declare("figure", "m", "f", "d/x", ("c",), {"s": [("c", "beta"), ("c", "L")]})
    cube = xr.Dataset(coords={"beta": [1.0, 2.0], "L": np.arange(0, 13)})
    assert figure_settings.coordinate_problems([fig], {"s": 2}, {"c": cube}) == []
    (problem,) = figure_settings.coordinate_problems([fig], {"s": 12}, {"c": cube})
    assert problem.startswith("d/x: setting s = 12 selects beta = 12 of c")


def test_a_snapshot_is_named_by_its_payload_and_replaces_the_keys_others(tmp_path):
    record = figure_settings.settings_record
    a = snapshots.path(tmp_path, "m", record({"s": (1, 2)}))
    b = snapshots.path(tmp_path, "m", record({"s": (1, 3)}))
    other_key = snapshots.path(tmp_path, "m_2", record({"s": (1, 3)}))
    assert a != b and a.name.startswith("m.") and snapshots.key_of(a) == "m"
    snapshots.write(other_key, "m_2", record({"s": (1, 3)}))
    assert snapshots.write(b, "m", record({"s": (1, 3)})) == []
    assert snapshots.write(a, "m", record({"s": (1, 2)})) == [b.name]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([a.name, other_key.name])
    assert json.loads(a.read_text()) == {"s": [1, 2]}
    with pytest.raises(ValueError, match="config changed after the workflow was planned"):
        snapshots.write(a, "m", record({"s": (1, 4)}))


def test_the_gallery_takes_ids_from_the_views_not_from_paths(tmp_path):
    from attnmem.cli import build_gallery

    where = tmp_path / "report" / "figures"  # a checkout under a folder named report
    where.mkdir(parents=True)
    (where / "x.png").write_bytes(b"")
    (where / "x.rst").write_text("A caption\nin two lines.\n")
    claims = tmp_path / "claims.csv"
    claims.write_text("id,verdict,figure\nd/claim-1,reproduced,first-principles/A1-x\n")
    out = where / "index.html"
    build_gallery(["first-principles/A1-x"], [where / "x.png"], [where / "x.rst"], claims, out)
    html = out.read_text()
    assert "id='first-principles/A1-x'" in html and "A caption in two lines." in html
    assert "d/claim-1" in html
