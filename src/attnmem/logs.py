"""Logging for the command line and the Snakemake jobs: one format, a job's records in its
log file (the one Snakemake points to on failure), and failures logged with their traceback."""

from __future__ import annotations

import logging
import os
import re
import sys
import threading
from contextlib import contextmanager
from pathlib import Path

log = logging.getLogger("attnmem")

LOG_FORMAT = "%(asctime)s %(name)s: %(message)s"

# Set by the console (snakemake_logger_plugin_attnmem) in Snakemake's process, and so inherited
# by its jobs: a job with a log file then writes its records there only, not on the terminal.
QUIET_JOBS = "ATTNMEM_QUIET_JOBS"

# A job's progress over its grid, one log line at a time; the console reads the last one.
PROGRESS_FORMAT = "%s: %d/%d grid points, %.1f s"
_PROGRESS = re.compile(r": (\d+)/(\d+) (?:new )?grid points, [\d.]+ s$")


def log_progress(name: str, done: int, total: int, seconds: float) -> None:
    """Log how many of a job's grid points are done (the console shows the latest)."""
    log.info(PROGRESS_FORMAT, name, done, total, seconds)


def read_progress(text: str) -> tuple[int, int] | None:
    """The (done, total) grid points of the last progress line in a job's log text."""
    for line in reversed(text.splitlines()):
        found = _PROGRESS.search(line)
        if found:
            return int(found.group(1)), int(found.group(2))
    return None


def setup_logging(log_file: str | None = None) -> None:
    """Records to ``log_file`` and to stderr; to the file only when the console asked for quiet
    jobs (QUIET_JOBS) and there is a file."""
    quiet = bool(log_file) and bool(os.environ.get(QUIET_JOBS))
    handlers: list[logging.Handler] = [] if quiet else [logging.StreamHandler(sys.stderr)]
    if log_file:
        Path(log_file).parent.mkdir(parents=True, exist_ok=True)
        handlers.append(logging.FileHandler(log_file, mode="w"))
    logging.basicConfig(
        level=logging.INFO,
        format=LOG_FORMAT,
        handlers=handlers,
        force=True,
    )


@contextmanager
def thread_log(log_file: str | Path):
    """Write the records logged by this thread (and only this one: other jobs run in other
    threads of the same process) to ``log_file`` while the block runs."""
    Path(log_file).parent.mkdir(parents=True, exist_ok=True)
    handler = logging.FileHandler(log_file, mode="w")
    handler.setFormatter(logging.Formatter(LOG_FORMAT))
    me = threading.get_ident()
    handler.addFilter(lambda record: record.thread == me)
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    try:
        yield
    finally:
        log.removeHandler(handler)
        handler.close()


@contextmanager
def logged_failure():
    """Put the traceback of a failing job (and the grid point it failed at) into the job's
    log file, which Snakemake points to, not only on the terminal."""
    try:
        yield
    except Exception:
        log.exception("the job failed")
        raise
