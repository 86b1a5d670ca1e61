"""Ctrl-C stops the experiments that run in Snakemake's own threads (applied by
workflow/rules/common.smk).

On Ctrl-C (or SIGTERM) Snakemake's scheduler cancels its executor, and the local executor's
``cancel`` waits for its thread pool: a `run:` job in a thread (an experiment cheaper than a
process start, attnmem.costs.in_process) cannot be killed, so Snakemake went on until it ended,
deaf to more signals. This patch first asks such jobs to stop (attnmem.jobs.request_stop): each
stops at its next grid point and fails, so Snakemake keeps the old cube (an ``update`` output)
and removes its lock; then the incomplete markers of the interrupted experiment jobs, whose
cubes are written atomically, are removed (``clear_atomic_markers``). Script jobs are
processes of their own and receive the terminal's Ctrl-C themselves. A Snakemake without the
method is left as it is.
"""

from __future__ import annotations


def stop_threads_on_cancel() -> bool:
    """Wrap the local executor's ``cancel`` so that it first stops the in-thread jobs; False
    when this Snakemake has no such executor (then nothing is changed)."""
    try:
        from snakemake.executors.local import Executor
    except ImportError:
        return False
    cancel = getattr(Executor, "cancel", None)
    if not callable(cancel) or getattr(cancel, "_attnmem", False):
        return bool(cancel)

    def cancel_stopping_threads(self, *args, **kwargs):
        from .jobs import request_stop

        request_stop()
        try:
            return cancel(self, *args, **kwargs)
        finally:
            clear_atomic_markers(self)

    cancel_stopping_threads._attnmem = True
    Executor.cancel = cancel_stopping_threads
    return True


def clear_atomic_markers(executor) -> int:
    """Remove the incomplete markers of the interrupted jobs whose outputs are all ``update``
    outputs (the cubes: written to a temporary file and renamed, so an interrupted job leaves
    the old cube whole, and a marker would only make the next run redo it). Other jobs keep
    theirs (a figure job stopped halfway may have left a partial PNG: the next run redraws
    it). Returns how many markers were removed; nothing is done with --keep-incomplete."""
    from snakemake.io import is_flagged

    workflow = getattr(executor, "workflow", None)
    persistence = getattr(workflow, "persistence", None)
    scheduler = getattr(workflow, "_scheduler", None) or getattr(workflow, "scheduler", None)
    unmark = _unmarker(persistence)
    if getattr(executor, "keepincomplete", False) or unmark is None:
        return 0
    removed = 0
    for job in list(getattr(scheduler, "running", ()) or ()):
        outputs = list(getattr(job, "output", ()))
        if outputs and all(is_flagged(f, "update") for f in outputs):
            removed += sum(bool(unmark(f)) for f in outputs)
    return removed


def _unmarker(persistence):
    """A function removing one output's incomplete marker through ``persistence``, for both
    layouts of Snakemake 9 (up to 9.15: ``_delete_record(folder, file)``; later: a store keyed
    by ``_get_key(file)`` with ``_unmark_incomplete(key)``), or None (with a warning) for a
    Snakemake that has neither: the markers then stay and the next run redoes the cubes."""
    if persistence is None:
        return None
    unmark, key = (getattr(persistence, n, None) for n in ("_unmark_incomplete", "_get_key"))
    if callable(unmark) and callable(key):
        return lambda f: unmark(key(f)) is None  # it returns nothing: count the call
    delete = getattr(persistence, "_delete_record", None)
    folder = getattr(persistence, "_incomplete_path", None)
    if callable(delete) and folder is not None:
        return lambda f: delete(folder, f)
    import warnings

    warnings.warn(
        "attnmem.interrupts: this Snakemake's incomplete markers are not known; "
        "an interrupted cube is recomputed by the next run",
        stacklevel=2,
    )
    return None
