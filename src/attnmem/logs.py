"""Logging for the command line and the Snakemake jobs: one format, a job's records in its
log file (the one Snakemake points to on failure), and failures logged with their traceback."""

from __future__ import annotations

import logging
import sys
import threading
from contextlib import contextmanager
from pathlib import Path

log = logging.getLogger("attnmem")

LOG_FORMAT = "%(asctime)s %(name)s: %(message)s"


def setup_logging(log_file: str | None = None) -> None:
    handlers: list[logging.Handler] = [logging.StreamHandler(sys.stderr)]
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
