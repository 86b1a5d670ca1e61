"""Files named by the hash of what a job ran with: the rerun trigger for config edits.

An experiment's cube is computed from its config block (and the global seed), a figure module's
drawings from its settings. A small job (rules ``config_snapshot`` and ``figure_settings``)
writes ``<directory>/<key>.<hash>.json``, the JSON of that config, and the experiment or figure
job takes it as input. The path is named at parse time from the current config, so an edited
block names a file that does not exist yet and the job reruns, whatever ran or was parsed in
between; parsing and dry runs write nothing. Writing a snapshot removes the key's snapshots of
other hashes, so returning to an old config reruns the job too.

(An output of the job itself would not do: Snakemake reruns a job for a missing output only
when something asks for that output, and `snakemake results/<name>.nc` asks for the cube
alone.)
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from pathlib import Path


def text(payload: Mapping) -> str:
    """The snapshot's text: sorted keys, so equal payloads give equal files and hashes."""
    return json.dumps(payload, indent=1, sort_keys=True) + "\n"


def digest(payload: Mapping) -> str:
    """16 hex digits of the SHA-256 of the snapshot's text."""
    return hashlib.sha256(text(payload).encode()).hexdigest()[:16]


def path(directory: str | Path, key: str, payload: Mapping) -> Path:
    """``<directory>/<key>.<digest>.json``."""
    return Path(directory) / f"{key}.{digest(payload)}.json"


def key_of(snapshot: str | Path) -> str:
    """The key a snapshot path is named by (its name up to the first dot)."""
    return Path(snapshot).name.split(".", 1)[0]


def write(snapshot: str | Path, key: str, payload: Mapping) -> list[str]:
    """Write ``payload`` at ``snapshot``, which must be its path for ``key``; remove the key's
    snapshots of other payloads and return their names."""
    snapshot = Path(snapshot)
    if snapshot != path(snapshot.parent, key, payload):
        raise ValueError(
            f"{snapshot} is not the snapshot of what this job was given "
            f"({path(snapshot.parent, key, payload).name}): the config changed after the "
            "workflow was planned; run snakemake again"
        )
    snapshot.parent.mkdir(parents=True, exist_ok=True)
    removed = []
    for other in snapshot.parent.glob(f"{key}.*.json"):
        if other.name != snapshot.name and key_of(other) == key:
            other.unlink(missing_ok=True)
            removed.append(other.name)
    snapshot.write_text(text(payload), encoding="utf-8")
    return sorted(removed)
