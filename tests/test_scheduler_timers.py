"""The workaround for Snakemake's multiplying re-evaluation timers (attnmem.scheduler_timers):
many requests while one timer is pending wake the scheduler once, and the next request after
that wake-up is honoured again, so the loop never loses its periodic wake-up."""

from __future__ import annotations

import threading
from types import SimpleNamespace

from attnmem.scheduler_timers import coalesce_reevaluation_timers, reevaluate_once


def test_requests_while_a_timer_is_pending_wake_the_loop_once():
    scheduler = SimpleNamespace(_open_jobs=threading.Semaphore(0))
    for _ in range(20):  # a pass per finished job, as in a build
        reevaluate_once(scheduler, 0.02)
    assert scheduler._open_jobs.acquire(timeout=5)
    assert not scheduler._open_jobs.acquire(timeout=0.3), "more than one wake-up"
    reevaluate_once(scheduler, 0.02)  # the pass that woke asks again: it must be heard
    assert scheduler._open_jobs.acquire(timeout=5), "the wake-up chain broke"


def test_snakemake_gets_the_coalescing_timer():
    from snakemake.scheduling.job_scheduler import JobScheduler

    assert coalesce_reevaluation_timers(), "this Snakemake has no re-evaluation timer to fix"
    assert JobScheduler._schedule_reevalutation is reevaluate_once
