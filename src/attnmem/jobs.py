"""How an experiment runs as a Snakemake job: from its config snapshot to its cube, in a
process of its own (a script job, with worker processes when it has several threads), in a
thread of Snakemake (cheap experiments), or as shards and their gathering. Every job computes
only the grid points the store of computed points lacks (attnmem.points).

This is plumbing that a cube's numbers depend on (BLAS threads, which block is run), so every
experiment rule has this file as an input (attnmem.sources.PLUMBING): editing it reruns them.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Mapping
from pathlib import Path

from .logs import log, logged_failure, setup_logging, thread_log
from .points import STORE  # the computed points, in the jobs' working directory


def run_experiment(
    name: str,
    block: Mapping,
    global_seed: int,
    out: str | Path,
    store: str | Path | None = None,
    workers: int = 1,
    should_stop=None,
) -> None:
    """Compute an experiment's cube and write it to ``out``. With a ``store`` (the pipeline's
    jobs: STORE), only the grid points it lacks are computed, by up to
    ``workers`` processes, and the cube is assembled from it; without one, every point is
    computed here (``python -m attnmem run``, tests). ``should_stop``: asked before each point
    (a job in a thread of Snakemake, which can be stopped no other way)."""
    from .cube import provenance, write_cube
    from .cube import run_experiment as run
    from .experiments import experiment
    from .grid import expand_grid
    from .points import compute
    from .shards import science_block

    exp = experiment(name)
    block = science_block(block)
    log.info("running %s over %s", name, dict(block))
    if store is None:
        ds = run(exp, block, global_seed, should_stop)
    else:
        ds = compute(exp, block, global_seed, store, workers, should_stop)[0]
        ds.attrs.update(provenance(exp, block, global_seed, expand_grid(block, exp.grid)))
    write_cube(ds, out)
    log.info("wrote %s (%s)", out, ", ".join(f"{k}={v}" for k, v in ds.sizes.items()))


def experiment_job(smk) -> None:
    """A script job: its own process, with as many worker processes as Snakemake gave it
    threads (BLAS held to one thread in each, whatever Snakemake set for the job)."""
    setup_logging(smk.log[0] if smk.log else None)
    name, block, seed = _configured(smk)
    _one_blas_thread()
    with logged_failure():
        run_experiment(name, block, seed, smk.output[0], STORE, smk.threads)


# One in-process experiment at a time. Two at once crashed Snakemake (a segmentation fault in
# netCDF/HDF5: one thread closing its cube while another wrote; the HDF5 library is not
# thread-safe), and science code need not be written for threads. These jobs are short; the
# other core keeps running script jobs meanwhile.
_ONE_AT_A_TIME = threading.Lock()
IN_PROCESS_MARK = "running in a thread of Snakemake's own process"
# Set when Snakemake cancels its jobs (Ctrl-C: attnmem.interrupts). A thread cannot be killed,
# and Snakemake waits for its job threads before it exits: a job in a thread stops at its next
# grid point instead, and fails, so that Snakemake keeps the old cube and removes its lock.
_STOP = threading.Event()


def request_stop() -> None:
    """Ask every experiment running (or waiting to run) in a thread to stop at its next grid
    point."""
    _STOP.set()


_BLAS_LIMIT: list = []  # the threadpoolctl limit in force (kept referenced)


def experiment_in_thread(config: str, out: str, log_file: str) -> None:
    """An experiment job that Snakemake runs in one of its own threads (a `run:` job: those
    cheaper than a process start, attnmem.costs.in_process): the work of experiment_job, one
    such job at a time, with this thread's log records in the job's log file and BLAS held to
    one thread, as Snakemake holds it in a script job, so the cube is the same bit for bit."""
    with _ONE_AT_A_TIME:
        _one_blas_thread()
        with thread_log(log_file), logged_failure():
            log.info(IN_PROCESS_MARK)  # benchmarks/costs.py: this job's time has no start-up
            name, block, seed = _snapshot(config)
            # never forks Snakemake's process; stops at its next point on Ctrl-C
            run_experiment(name, block, seed, out, STORE, should_stop=_STOP.is_set)


# What Snakemake sets for a script job with one thread (snakemake/shell.py).
_THREAD_VARIABLES = (
    "OMP_NUM_THREADS",
    "GOTO_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
    "NUMEXPR_NUM_THREADS",
)


def _one_blas_thread() -> None:
    """BLAS and OpenMP to one thread in this process, as in a script job: the libraries loaded
    already, through threadpoolctl (again before each job: the limit is process-wide and cheap
    to set), and those a job loads later (scipy's own OpenBLAS, on the first import of
    scipy.optimize) through the variables they read when they load. Without the variables,
    scipy's BLAS ran with two threads and SLSQP's result moved in its ninth digit."""
    from threadpoolctl import threadpool_limits

    for name in _THREAD_VARIABLES:
        os.environ[name] = "1"
    _BLAS_LIMIT[:] = [threadpool_limits(limits=1)]


def _configured(smk) -> tuple[str, dict, int]:
    """The experiment of a job, its config block and the global seed: its config snapshot."""
    return _snapshot(smk.input.config)


def _snapshot(path) -> tuple[str, dict, int]:
    snapshot = json.loads(Path(path).read_text(encoding="utf-8"))
    return snapshot["experiment"], snapshot["block"], snapshot["seed"]


def shard_job(smk) -> None:
    """One shard: the points of its sub-block (those the store lacks computed, by as many
    worker processes as the job has threads), written as a partial cube."""
    setup_logging(smk.log[0] if smk.log else None)
    from .cube import write_cube
    from .experiments import experiment
    from .points import compute

    exp = experiment(smk.wildcards.experiment)
    log.info("running %s shard %s over %s", exp.name, smk.wildcards.shard, dict(smk.params.block))
    _one_blas_thread()
    with logged_failure():
        ds = compute(exp, smk.params.block, smk.params.seed, STORE, smk.threads)[0]
        write_cube(ds, smk.output[0])


def gather_job(smk) -> None:
    """The shards of an experiment joined into its cube."""
    setup_logging(smk.log[0] if smk.log else None)
    from .cube import gather, read_cube, write_cube
    from .experiments import experiment

    name, block, seed = _configured(smk)
    parts = [read_cube(p) for p in smk.input.shards]
    ds = gather(experiment(name), block, seed, parts)
    write_cube(ds, smk.output[0])
    log.info("gathered %d shards into %s", len(parts), smk.output[0])
