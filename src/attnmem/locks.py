"""Say how to unlock a folder whose Snakemake was killed (checked by workflow/rules/common.smk).

Snakemake locks the folder it builds in (``.snakemake/locks``) and removes the lock when it
ends; a run killed with SIGKILL (or a power loss) leaves it behind. The next run then refuses
with a message that mentions ``--unlock``, but a dry run only says that "another Snakemake
instance is running", which is false when none is. When a lock is found before anything runs,
this looks for another Snakemake working in the same folder (Linux's /proc): when there is
none, the lock is stale and the message says so and how to remove it.
"""

from __future__ import annotations

import os
from pathlib import Path


def lock_files(workdir: str | os.PathLike = ".") -> list[Path]:
    folder = Path(workdir) / ".snakemake" / "locks"
    return sorted(folder.glob("*.lock")) if folder.is_dir() else []


def other_snakemakes(workdir: str | os.PathLike = ".") -> list[int]:
    """Process ids of the other Snakemake processes (and their script jobs) whose working
    folder is ``workdir``; empty where /proc cannot tell (then nothing is claimed)."""
    here = Path(workdir).resolve()
    mine = {os.getpid(), os.getppid()}
    found = []
    proc = Path("/proc")
    if not proc.is_dir():
        return found
    for entry in proc.iterdir():
        if not entry.name.isdigit() or int(entry.name) in mine:
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
            cwd = (entry / "cwd").resolve()
        except OSError:
            continue
        if b"snakemake" in cmdline and cwd == here:
            found.append(int(entry.name))
    return sorted(found)


def stale_lock_message(workdir: str | os.PathLike = ".") -> str | None:
    """What to tell a user who finds the folder locked (None when it is not)."""
    locks = lock_files(workdir)
    if not locks:
        return None
    others = other_snakemakes(workdir)
    if others:
        return (
            f"this folder is locked by another Snakemake still running here (process "
            f"{', '.join(map(str, others))}): wait for it, or stop it, before building"
        )
    return (
        f"this folder is locked ({len(locks)} lock file(s) in .snakemake/locks) but no other "
        "Snakemake runs in it: the lock was left by a run that was killed. Remove it with "
        "`snakemake --unlock`, then run again (the next run also reruns any job the kill "
        "interrupted)"
    )
