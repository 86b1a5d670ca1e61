"""The Ctrl-C patch (attnmem.interrupts) reaches into Snakemake's local executor and its
incomplete markers: it is installed only on a Snakemake that still looks as it was written
for (else one warning), and it works on Snakemake's real objects in a real build."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import pytest
from snakemake.executors.local import Executor

from attnmem import interrupts


def test_the_installed_snakemake_is_the_one_the_patch_was_written_for():
    assert interrupts._params(Executor, "cancel") == []
    assert interrupts.persistence_layout(interrupts._persistence_class()) in ("keyed", "folders")


class _NewCancel(Executor):
    def cancel(self, force=False):  # a Snakemake whose cancel changed
        pass


class _Known:
    def _unmark_incomplete(self, key):
        pass

    def _get_key(self, f):
        pass


class _Unknown:
    def _delete_record(self, key):  # 9.16's one-argument form, without the keyed methods
        pass


def _install(executor, persistence, monkeypatch):
    """(installed?, warning messages) of installing three times (a Snakefile read thrice)."""
    monkeypatch.setattr(interrupts, "_warned", set())
    monkeypatch.setattr(executor, "cancel", executor.__dict__["cancel"])  # restored after
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        done = [interrupts.stop_threads_on_cancel(executor, persistence) for _ in range(3)]
    return done[0], [str(w.message) for w in caught]


def test_a_changed_cancel_leaves_snakemake_unpatched_with_one_warning(monkeypatch):
    installed, messages = _install(_NewCancel, _Known, monkeypatch)
    assert not installed and not getattr(_NewCancel.cancel, "_attnmem", False)
    assert len(messages) == 1 and "besides self" in messages[0], messages


def test_unknown_incomplete_markers_are_named_once_when_installing(monkeypatch):
    class Local(Executor):
        cancel = Executor.__dict__["cancel"]

    installed, messages = _install(Local, _Unknown, monkeypatch)
    assert installed and getattr(Local.cancel, "_attnmem", False)
    assert len(messages) == 1 and "incomplete markers" in messages[0], messages
    assert interrupts._unmarker(_Unknown()) is None  # never called with the wrong arguments


SNAKEFILE = """
import json
from attnmem.interrupts import clear_atomic_markers, stop_threads_on_cancel

INSTALLED = stop_threads_on_cancel()

def marked():
    # whether the running job's incomplete marker is on disk (both layouts of Snakemake 9)
    import os
    key_of = next(iter(workflow.scheduler.running)).output[0]  # the running job's, as Ctrl-C
    p = workflow.persistence
    key = p._get_key(key_of) if hasattr(p, "_get_key") else key_of  # 9.16+: keyed by text
    return os.path.exists(p._record_path(p._incomplete_path, key))

def marked_soon(seconds=10.0):
    # the marker may be written just after a threaded job starts: wait for it
    import time
    end = time.monotonic() + seconds
    while not marked() and time.monotonic() < end:
        time.sleep(0.05)
    return marked()

rule cube:
    output: update("cube.txt")
    run:
        executor = workflow.scheduler._executor
        before = marked_soon()
        removed = clear_atomic_markers(executor)
        record = {"installed": INSTALLED, "executor": type(executor).__name__,
                  "wrapped": getattr(type(executor).cancel, "_attnmem", False),
                  "before": before, "removed": removed, "after": marked()}
        open(output[0], "w").write(json.dumps(record))
"""


def test_the_patch_finds_and_clears_a_running_cubes_marker_in_a_real_build(tmp_path):
    """A running job with an ``update`` output, in Snakemake's own thread: the real executor
    carries the wrapped cancel, and clearing the markers (what Ctrl-C does) removes its
    incomplete marker through the real persistence; the build then ends normally."""
    (tmp_path / "Snakefile").write_text(textwrap.dedent(SNAKEFILE))
    exe = Path(sys.executable).with_name("snakemake")
    done = subprocess.run(
        # run: jobs in Snakemake's threads, as the default profile asks (Snakemake 9.15 spawns
        # them as processes otherwise, where no scheduler runs)
        [str(exe), "--cores", "1", "--quiet", "--force-use-threads"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    record = json.loads((tmp_path / "cube.txt").read_text())
    assert record == {
        "installed": True,
        "executor": "Executor",
        "wrapped": True,
        "before": True,
        "removed": 1,
        "after": False,
    }, record


pytestmark = pytest.mark.filterwarnings("error::UserWarning")
