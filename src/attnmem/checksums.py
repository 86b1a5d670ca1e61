"""A record of every cube as it was written, checked wherever a cube is read.

``write_cube`` records, beside each cube ``results/x.nc``, its SHA-256, size and modification
time in ``results/.x.nc.sha256`` (a JSON line). A cube that is truncated, overwritten with
garbage or replaced by another valid cube no longer matches its record:

- ``damaged_cubes`` (stdlib only, so the Snakefile checks every cube at each start) compares
  the size with the record and hashes a cube only when its size and time are not those of its
  last good hash (a cache under .snakemake/), so an intact build costs one stat per cube;
- ``verify`` hashes the file, and ``attnmem.cube.read_cube`` calls it before it opens a cube.

Either way the message names the cube, the job that rebuilds it and how. A cube without a
record (written before records were kept, or by hand) is not judged.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

CHUNK = 1 << 20


class DamagedCube(RuntimeError):
    """A cube that is unreadable or differs from what its job wrote."""


def record_path(cube: str | os.PathLike) -> Path:
    cube = Path(cube)
    return cube.with_name(f".{cube.name}.sha256")


def digest(path: str | os.PathLike) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(CHUNK):
            h.update(chunk)
    return h.hexdigest()


def record(cube: str | os.PathLike) -> None:
    """Write the record of ``cube`` as it is now (after its atomic rename), atomically."""
    cube = Path(cube)
    st = cube.stat()
    text = json.dumps({"sha256": digest(cube), "size": st.st_size, "mtime_ns": st.st_mtime_ns})
    out = record_path(cube)
    tmp = out.with_name(out.name + f".{os.getpid()}.tmp")
    tmp.write_text(text + "\n", encoding="utf-8")
    os.replace(tmp, out)


def _read(cube: Path) -> dict | None:
    try:
        return json.loads(record_path(cube).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def rebuild_hint(cube: str | os.PathLike, job: str | None = None) -> str:
    """How to rebuild a cube: the job that writes it and the command."""
    cube = Path(cube)
    job = job or f"the job of experiment {cube.stem} (rule {cube.stem})"
    return (
        f"{job} rebuilds it: delete {cube} and run `snakemake --cores all` (only that cube "
        "and what reads it are rebuilt)"
    )


def damaged(cube: str | os.PathLike, job: str | None = None) -> str | None:
    """Why ``cube`` is not what its job wrote (None when it is, or when it has no record):
    its size and time are compared with the record, and its content only if they differ."""
    cube = Path(cube)
    rec = _read(cube)
    if rec is None or not cube.exists():
        return None
    st = cube.stat()
    if st.st_size == rec.get("size") and st.st_mtime_ns == rec.get("mtime_ns"):
        return None
    if st.st_size == rec.get("size") and digest(cube) == rec.get("sha256"):
        return None  # the same bytes with a new time (a copy, a touch)
    return (
        f"{cube} is damaged: it is not the cube its job wrote ({st.st_size:,} bytes, "
        f"{rec.get('size', 0):,} when written; its checksum differs); {rebuild_hint(cube, job)}"
    )


def damaged_cubes(cubes: dict, cache: str | os.PathLike) -> list[str]:
    """``damaged`` for many cubes (path -> the job that rebuilds it) at each start of the
    workflow, cheaply: a size that differs from the record is damage at once; otherwise the
    file is hashed only if its size and time are not those of its last hash that matched the
    record, kept in ``cache`` (under .snakemake/, never results/; Snakemake touches a job's
    outputs after the job, so the recorded time is not the final one)."""
    cache = Path(cache)
    try:
        seen = json.loads(cache.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        seen = {}
    found, fresh = [], {}
    for path, job in cubes.items():
        cube = Path(path)
        rec = _read(cube)
        if rec is None or not cube.exists():
            continue
        st = cube.stat()
        key = [st.st_size, st.st_mtime_ns, rec.get("sha256")]
        if st.st_size == rec.get("size") and seen.get(str(cube)) == key:
            fresh[str(cube)] = key
            continue
        if st.st_size == rec.get("size") and digest(cube) == rec.get("sha256"):
            fresh[str(cube)] = key
            continue
        found.append(
            f"{cube} is damaged: it is not the cube its job wrote ({st.st_size:,} bytes, "
            f"{rec.get('size', 0):,} when written; its checksum differs); "
            f"{rebuild_hint(cube, job)}"
        )
    if fresh != seen:
        cache.parent.mkdir(parents=True, exist_ok=True)
        cache.write_text(json.dumps(fresh), encoding="utf-8")
    return found


def verify(cube: str | os.PathLike, job: str | None = None) -> None:
    """Raise ``DamagedCube`` if ``cube`` has a record and its content differs from it."""
    cube = Path(cube)
    rec = _read(cube)
    if rec is None or not cube.exists():
        return
    if digest(cube) != rec.get("sha256"):
        raise DamagedCube(
            f"{cube} is damaged: its content differs from what its job wrote (checksum "
            f"recorded in {record_path(cube).name}); {rebuild_hint(cube, job)}"
        )
