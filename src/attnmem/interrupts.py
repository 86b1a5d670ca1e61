"""Ctrl-C stops the experiments that run in Snakemake's own threads (applied by
workflow/rules/common.smk).

On Ctrl-C (or SIGTERM) Snakemake's scheduler cancels its executor, and the local executor's
``cancel`` waits for its thread pool: a `run:` job in a thread (an experiment cheaper than a
process start, attnmem.costs.in_process) cannot be killed, so Snakemake went on until it ended,
deaf to more signals. This patch first asks such jobs to stop (attnmem.jobs.request_stop): each
stops at its next grid point and fails, so Snakemake keeps the old cube (an ``update`` output),
then removes its incomplete marker and its lock and exits. Script jobs are processes of their
own and receive the terminal's Ctrl-C themselves. A Snakemake without the method is left as
it is.
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
        return cancel(self, *args, **kwargs)

    cancel_stopping_threads._attnmem = True
    Executor.cancel = cancel_stopping_threads
    return True
