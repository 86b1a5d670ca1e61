"""The build's console: one progress line while Snakemake runs, the failing job's log when one
fails, and at the end one summary with the paths to open. Snakemake hands it its log records
through the logger plugin interface (snakemake_logger_plugin_attnmem, selected in the default
profile); ``--verbose`` and dry runs get Snakemake's own text instead.

Snakemake imports every logger plugin at each start, so this module imports the standard
library and attnmem.logs only."""

from __future__ import annotations

import csv
import json
import logging
import os
import shutil
import sys
import threading
import time
from collections import Counter
from pathlib import Path

from .logs import QUIET_JOBS, read_progress

# Where the console also writes its events, one JSON object a line, when this variable names a
# file (tests/conftest.py reads the build's progress from it).
EVENTS_FILE = "ATTNMEM_PROGRESS_FILE"
OPEN_THESE = ("figures/index.html", "results/claims.html")
LOG_TAIL = 60  # lines of a failing job's log shown (the whole file is named above them)
TICK = 1.0  # seconds between redraws of the progress line on a terminal
PLAIN_EVERY = 30.0  # seconds between progress lines when the console is not a terminal


def fit(text: str, width: int) -> str:
    """``text`` cut to one terminal line of ``width`` characters."""
    text = " ".join(str(text).split())
    return text if len(text) <= width else text[: max(width - 1, 0)] + "…"


def status(done: int, total: int, running: list[tuple[str, tuple[int, int] | None]]) -> str:
    """The progress line: steps done of total, and each job running with its grid points."""
    share = f"{100 * done // total}%" if total else "0%"
    jobs = ", ".join(
        f"{rule} ({grid[0]:,}/{grid[1]:,} points)" if grid else rule for rule, grid in running
    )
    return f"{done}/{total} steps ({share})" + (f", running {jobs}" if jobs else "")


def verdict_counts(claims_csv: Path) -> Counter:
    """How many rows of the claims table have each verdict."""
    with open(claims_csv, encoding="utf-8", newline="") as fh:
        return Counter(row["verdict"] for row in csv.DictReader(fh))


def summary(workdir: Path) -> list[str]:
    """What the build holds (cubes, figures, claims by verdict) and the files to open."""
    cubes = len(list((workdir / "results").glob("*.nc")))
    figures = len(list((workdir / "figures").glob("*/*.png")))
    lines = [f"Built: {cubes} cubes in results/, {figures} figures in figures/."]
    table = workdir / "results" / "claims.csv"
    if table.exists():
        counts = verdict_counts(table)
        words = ", ".join(f"{n} {v}" for v, n in counts.most_common())
        lines.append(f"Claims: {sum(counts.values())} rows: {words}.")
    there = [p for p in OPEN_THESE if (workdir / p).exists()]
    if there:
        lines.append("Open: " + " and ".join(there))
    return lines


def log_files(entries) -> list[str]:
    """The log paths of a job record (Snakemake may annotate a path: ``x.log (...)``)."""
    return [str(e).split(" (")[0] for e in entries or ()]


def failure(rule: str, jobid, logs: list[str], workdir: Path, tail: int = LOG_TAIL) -> list[str]:
    """The lines that report a failed job: its rule and the end of its log."""
    lines = [f"FAILED: rule {rule} (job {jobid})"]
    for name in logs:
        path = Path(name) if Path(name).is_absolute() else workdir / name
        try:
            text = path.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            lines.append(f"  (no log at {name})")
            continue
        cut = len(text) > tail
        lines.append(f"--- {name}" + (f" (its last {tail} lines)" if cut else "") + " ---")
        lines += text[-tail:]
        lines.append(f"--- end of {name} ---")
    return lines


def _event(record: logging.LogRecord):
    event = getattr(record, "event", None)
    return None if event is None else str(event)


def _from_snakemake(record: logging.LogRecord) -> bool:
    """A record of Snakemake's own chatter (its package or a plugin's), not of our workflow:
    logged from a package named snakemake* beside the installed Snakemake."""
    import snakemake

    packages = Path(snakemake.__file__).resolve().parents[1]
    try:
        inside = Path(record.pathname).resolve().relative_to(packages)
    except ValueError:
        return False
    return inside.parts[0].startswith("snakemake")


class Console:
    """The console's state and output; ``handle`` takes each of Snakemake's log records."""

    def __init__(self, stream=None, width=None, tty=None, quiet: bool = False):
        self.quiet = quiet  # `--quiet all`: failures, warnings and errors only
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty() if tty is None else tty
        self.width = width or shutil.get_terminal_size((100, 24)).columns - 1
        self.jobs: dict = {}  # jobid -> (rule, log files)
        self.running: list = []  # jobids, in start order
        self.done = self.total = 0
        self.workdir = Path.cwd()
        self.started = self.closed = False
        self.failed: list[str] = []  # "rule X (its log)" of each failed job
        self.before_start: list[str] = []  # Snakemake's notes before a workflow starts
        self.drawn = False  # a progress line is on the terminal, to be overwritten
        self.last_plain = 0.0
        self.lock = threading.RLock()
        self.events = os.environ.get(EVENTS_FILE)

    # ------------------------------------------------------------------ output
    def write(self, line: str, cut: bool = True) -> None:
        """A line above the progress line, cut to the terminal's width unless ``cut`` is off
        (errors and logs, which must be read whole)."""
        with self.lock:
            self._clear()
            self.stream.write((fit(line, self.width) if cut else line) + "\n")
            self.stream.flush()
            self._draw()

    def _clear(self) -> None:
        if self.tty and self.drawn:
            self.stream.write("\r\x1b[2K")
            self.drawn = False

    def _draw(self) -> None:
        if self.tty and not self.quiet and self.started and not self.closed and self.total:
            self.stream.write("\r\x1b[2K" + fit(self.status(), self.width))
            self.stream.flush()
            self.drawn = True

    def status(self) -> str:
        running = []
        for jobid in self.running:
            if jobid in self.jobs:  # Snakemake may announce a job just after starting it
                rule, logs = self.jobs[jobid]
                running.append((rule, self._grid(logs)))
        return status(self.done, self.total, running)

    def _grid(self, logs: list[str]):
        for name in logs:
            try:
                with open(self.workdir / name, "rb") as fh:
                    fh.seek(max(fh.seek(0, 2) - 2000, 0))
                    found = read_progress(fh.read().decode("utf-8", "replace"))
            except OSError:
                continue
            if found:
                return found
        return None

    def tick(self) -> None:
        """Redraw the progress line (a terminal), or print it now and then (a file or pipe)."""
        with self.lock:
            if self.closed or not self.started or self.quiet:
                return
            if self.tty:
                self._draw()
            elif self.total and time.monotonic() - self.last_plain > PLAIN_EVERY:
                self.last_plain = time.monotonic()
                self.stream.write(fit(self.status(), self.width) + "\n")
                self.stream.flush()

    def record(self, **event) -> None:
        """An event, as a line of JSON, to the events file if one was asked for."""
        if self.events:
            with open(self.events, "a", encoding="utf-8") as fh:
                fh.write(json.dumps(event) + "\n")

    # ------------------------------------------------------------------ events
    def handle(self, record: logging.LogRecord) -> None:
        event = _event(record)
        if event == "workflow_started":
            self.started = True
            self.workdir = Path(getattr(record, "cwd", None) or Path.cwd())
        elif event == "job_info":
            self.jobs[record.jobid] = (record.rule_name, log_files(record.log))
        elif event == "job_started":
            with self.lock:
                self.running += [j for j in record.jobs if j not in self.running]
            self.tick()
        elif event == "job_finished":
            with self.lock:
                if record.job_id in self.running:
                    self.running.remove(record.job_id)
        elif event == "progress":
            self.done, self.total = record.done, record.total
            self.record(event="progress", done=self.done, total=self.total)
            if not self.tty and (self.done == self.total or self.done == 1):
                self.last_plain = 0.0  # the first and last steps always show
            self.tick()
        elif event in ("job_error", "group_error"):
            self.job_failed(record)
        elif event in (None, "error"):  # "error": an exception Snakemake reports
            self.message(record)

    def job_failed(self, record: logging.LogRecord) -> None:
        if _event(record) == "group_error":
            infos = [
                (i["rule_name"], i["jobid"], log_files(i["log"])) for i in record.job_error_info
            ]
        else:
            infos = [(record.rule_name, record.jobid, log_files(record.log))]
        for rule, jobid, logs in infos:
            self.record(event="failed", rule=rule, jobid=jobid, log=logs)
            self.failed.append(f"rule {rule}" + (f" ({', '.join(logs)})" if logs else ""))
            with self.lock:
                if jobid in self.running:
                    self.running.remove(jobid)
            for line in failure(rule, jobid, logs, self.workdir):
                self.write(line, cut=False)

    def message(self, record: logging.LogRecord) -> None:
        text = record.getMessage()
        if self.quiet and record.levelno < logging.WARNING:
            return
        if "Nothing to be done" in text:
            self.write(text)
        elif record.levelno >= logging.WARNING:
            self.write(text, cut=False)
        elif not _from_snakemake(record):  # the workflow's own notes (a large grid announced)
            self.write_lines(text)
        elif not self.started:  # kept for a command that runs no workflow (--lint, ...)
            self.before_start.append(text)

    def write_lines(self, text: str) -> None:
        """A note of the workflow, each of its lines folded to the terminal's width."""
        import textwrap

        for line in text.splitlines() or [""]:
            parts = textwrap.wrap(line, self.width, subsequent_indent="  ", break_on_hyphens=False)
            for part in parts or [""]:
                self.write(part)

    def close(self) -> None:
        """The end of the run: the summary, or the jobs that failed."""
        with self.lock:
            if self.closed:
                return
            self._clear()
            self.closed = True
            if self.failed:
                lines = ["Failed: " + "; ".join(self.failed) + " (the log is above)."]
            elif self.started and not self.quiet:
                lines = summary(self.workdir)
            else:  # no workflow ran: what Snakemake said is the command's answer (--lint)
                lines = [line for text in self.before_start for line in text.splitlines()]
            for line in lines:
                self.stream.write(fit(line, self.width) + "\n")
            self.stream.flush()
            self.record(event="end", failed=bool(self.failed), done=self.done, total=self.total)


def quiet_jobs() -> None:
    """Jobs started from here on log to their log files only (attnmem.logs.setup_logging)."""
    os.environ[QUIET_JOBS] = "1"
