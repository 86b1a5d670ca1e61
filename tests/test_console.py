"""The build's console (attnmem.console, the default profile's Snakemake logger plugin): one
progress line, lines no wider than a terminal, the failing job's log, and a summary at the end
that says where to look."""

from __future__ import annotations

import io
import logging
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import snakemake
from conftest import ROOT, copy_built, snakemake_in

from attnmem.console import OPEN_THESE, Console, fit, status
from attnmem.logs import PROGRESS_FORMAT, QUIET_JOBS, read_progress

WIDTH = 120  # no line of a build's console may be wider (a terminal's line, at most)


def record(event: str | None, msg: str = "", level: int = logging.INFO, **fields):
    """A log record as Snakemake's logger hands it to a plugin."""
    rec = logging.LogRecord("snakemake.logging", level, __file__, 1, msg, None, None)
    if event is not None:
        fields["event"] = event
    rec.__dict__.update(fields)
    return rec


def console(tmp_path: Path, width: int = 80) -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    con = Console(stream=out, width=width, tty=False)
    con.handle(record("workflow_started", cwd=str(tmp_path)))
    return con, out


def test_progress_line_names_steps_the_running_job_and_its_grid_points(tmp_path):
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs/big.log").write_text(
        "started\n" + PROGRESS_FORMAT % ("big", 1200, 3400, 5.0) + "\n"
    )
    con, out = console(tmp_path)
    con.handle(record("job_info", jobid=7, rule_name="big", log=["logs/big.log"]))
    con.handle(record("job_started", jobs=[7]))
    con.handle(record("progress", done=1, total=183))
    assert out.getvalue().splitlines()[-1] == "1/183 steps (0%), running big (1,200/3,400 points)"
    con.handle(record("job_finished", job_id=7))
    assert con.status() == "1/183 steps (0%)"


def test_snakemake_chatter_is_dropped_and_the_workflows_notes_kept_within_a_line(tmp_path):
    con, out = console(tmp_path, width=60)
    chatter = record(None, "Select jobs to execute...")
    chatter.pathname = str(Path(snakemake.__file__).parent / "scheduling/job_scheduler.py")
    con.handle(chatter)
    con.handle(record("job_info", jobid=1, rule_name="r", log=[], input=["a" * 8000]))
    con.handle(record("run_info", "Job stats:\n" + "rule x 1\n" * 100))
    note = "big: 500,000 grid points, 400,000 to compute, " + "about 90 CPU-seconds " * 5
    con.handle(record(None, note))
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("big: 500,000 grid points") and all(len(x) <= 60 for x in lines)
    assert " ".join(lines).split() == note.split()  # folded, nothing lost


def test_a_failed_job_shows_its_log_and_the_end_names_it(tmp_path):
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs/r.log").write_text("Traceback ...\nRuntimeError: broken on purpose\n")
    con, out = console(tmp_path)
    con.handle(record("job_error", "Error in rule r", logging.ERROR, rule_name="r", jobid=3,
                      log=["logs/r.log"]))  # fmt: skip
    con.close()
    text = out.getvalue()
    assert "RuntimeError: broken on purpose" in text and "--- logs/r.log ---" in text
    assert text.splitlines()[-1].startswith("Failed: rule r (logs/r.log)")
    assert "Built:" not in text


def test_the_summary_counts_cubes_figures_and_verdicts_and_names_the_pages(tmp_path):
    for path in ("results/a.nc", "results/b.nc", "figures/doc/A1-x.png", *OPEN_THESE):
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text("")
    (tmp_path / "results/claims.csv").write_text(
        "id,verdict\na,reproduced\nb,discrepant\nc,reproduced\n"
    )
    con, out = console(tmp_path)
    con.close()
    lines = out.getvalue().splitlines()
    assert lines[0] == "Built: 2 cubes in results/, 1 figures in figures/."
    assert lines[1] == "Claims: 3 rows: 2 reproduced, 1 discrepant."
    assert lines[2] == "Open: figures/index.html and results/claims.html"


def test_fit_and_status_stay_within_the_width():
    assert fit("a   b\n c", 80) == "a b c"
    assert len(fit("x" * 500, 80)) == 80
    assert status(0, 0, []) == "0/0 steps (0%)"


def test_read_progress_takes_the_last_count_of_either_form():
    text = "x: 1/10 grid points, 1.0 s\nx: 3/7 new grid points, 2.5 s\nwrote results/x.nc\n"
    assert read_progress(text) == (3, 7)
    assert read_progress("nothing here\n") is None


def test_a_job_under_the_console_logs_to_its_file_only(tmp_path):
    """Jobs inherit QUIET_JOBS from the console: their records go to the log file, not to the
    terminal, where Snakemake would interleave them with the progress line."""
    code = (
        "from attnmem.logs import setup_logging, log\n"
        f"setup_logging({str(tmp_path / 'job.log')!r})\n"
        "log.info('a record of the job')\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), QUIET_JOBS: "1"}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == "" and "a record of the job" in (tmp_path / "job.log").read_text()


def test_the_plugin_is_found_and_set_in_the_default_profile():
    from snakemake_interface_logger_plugins.registry import LoggerPluginRegistry

    assert LoggerPluginRegistry().is_installed("attnmem")
    profile = (ROOT / "workflow/profiles/default/config.yaml").read_text()
    assert "logger: [attnmem]" in profile


# ----------------------------------------------------------------------------- real builds


def _lines(proc: subprocess.CompletedProcess) -> list[str]:
    return (proc.stdout + proc.stderr).splitlines()


@pytest.mark.pipeline
def test_a_build_console_is_short_lines_and_ends_with_the_summary(built_template, tmp_path):
    """A small build (an experiment, its figures, the claims table and the gallery rerun in a
    copy of the built project): every line fits a terminal, and the last lines count what was
    built and name the two pages to open."""
    project = copy_built(built_template, tmp_path / "project")
    proc = snakemake_in(project, "--cores", "2", "--forcerun", "soft_lookup", "claims", "gallery")
    lines = _lines(proc)
    assert proc.returncode == 0, "\n".join(lines[-60:])
    wide = [line for line in lines if len(line) > WIDTH]
    assert not wide, f"{len(wide)} lines wider than {WIDTH}, the widest {max(map(len, wide))}"
    assert len(lines) < 40, "\n".join(lines)
    assert lines[-3].startswith("Built: ") and lines[-2].startswith("Claims: ")
    assert lines[-1] == "Open: figures/index.html and results/claims.html"


@pytest.mark.pipeline
def test_a_failing_job_prints_its_log(built_template, tmp_path):
    """An experiment run as a job of its own (a script job, whose output the console keeps off
    the terminal) fails: its log, with the traceback, is printed, and the last line names it."""
    project = copy_built(built_template, tmp_path / "project")
    science = project / "src/attnmem/experiments/score_saturation.py"
    text = science.read_text()
    body = re.search(r'def score_saturation\(.*?\) -> dict:\n    """.*?"""\n', text, re.S)
    assert body, "the experiment's function moved"
    cut = body.end()
    science.write_text(text[:cut] + '    raise RuntimeError("broken on purpose")\n' + text[cut:])
    proc = snakemake_in(project, "--cores", "2", "results/score_saturation.nc")
    lines = _lines(proc)
    assert proc.returncode != 0, "\n".join(lines[-60:])
    shown = "\n".join(lines)
    assert "--- logs/score_saturation.log" in shown, shown[-3000:]
    assert "attnmem: the job failed" in shown and "broken on purpose" in shown, shown[-3000:]
    assert lines[-1].startswith("Failed: rule score_saturation (logs/score_saturation.log)")
