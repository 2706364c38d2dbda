"""What each part of the install weighs: the distributions ``pip install incanon`` brings, and what
each extra adds, measured on the installed files of this environment (``.venv``, which ``./dev.sh``
installs with every extra from the lock).

For the core and for each extra, the requirement closure is resolved from the installed packages'
metadata (markers evaluated for this interpreter), and each distribution's size is the sum of the
file sizes its ``RECORD`` lists (what pip wrote to disk; compiled ``.pyc`` files included when
RECORD lists them). An extra's figure is what it adds on top of the core.

    .venv/bin/python benchmarks/install_size.py [--json]
"""

from __future__ import annotations

import argparse
import json
import re
from importlib import metadata

from packaging.markers import default_environment
from packaging.requirements import Requirement

EXTRAS = ("serve", "bench", "plot", "local", "ray", "hf", "all")


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _size(dist: metadata.Distribution) -> int:
    total = 0
    for file in dist.files or []:
        if file.size is not None:
            total += int(file.size)
        else:  # RECORD lists itself and some generated files without a size
            try:
                total += file.locate().stat().st_size
            except OSError:
                pass
    return total


def closure(name: str, extras: tuple[str, ...] = ()) -> set[str]:
    """Normalized names of ``name`` and everything it requires (with ``extras``), as installed."""
    env = default_environment()
    names: set[str] = set()
    visited: set[tuple[str, str]] = set()
    todo: list[tuple[str, str]] = [(name, e) for e in ("", *extras)]
    while todo:
        current, extra = todo.pop()
        if (_norm(current), extra) in visited:
            continue
        visited.add((_norm(current), extra))
        names.add(_norm(current))
        try:
            dist = metadata.distribution(current)
        except metadata.PackageNotFoundError:
            continue
        for raw in dist.requires or []:
            req = Requirement(raw)
            if req.marker is None:
                applies = extra == ""
            else:
                applies = req.marker.evaluate({**env, "extra": extra})
                # A requirement without an extra marker holds for every extra: count it once.
                applies = applies and (extra == "" or "extra" in str(req.marker))
            if applies:
                todo += [(req.name, e) for e in ("", *req.extras)]
    return names


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    sizes = {_norm(d.metadata["Name"]): _size(d) for d in metadata.distributions()}
    core = closure("incanon") - {"incanon"}
    rows = [{"part": "core (pip install incanon)", "distributions": len(core),
             "mb": round(sum(sizes.get(n, 0) for n in core) / 1e6, 1), "largest": _largest(core, sizes)}]
    for extra in EXTRAS:
        added = closure("incanon", (extra,)) - core - {"incanon"}
        rows.append({"part": f"[{extra}] adds", "distributions": len(added),
                     "mb": round(sum(sizes.get(n, 0) for n in added) / 1e6, 1), "largest": _largest(added, sizes)})
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    print(f"{'part':28} {'dists':>5} {'MB':>8}  largest")
    for row in rows:
        print(f"{row['part']:28} {row['distributions']:>5} {row['mb']:>8.1f}  {row['largest']}")


def _largest(names: set[str], sizes: dict[str, int], top: int = 3) -> str:
    ranked = sorted(names, key=lambda n: -sizes.get(n, 0))[:top]
    return ", ".join(f"{n} {sizes.get(n, 0) / 1e6:.0f}" for n in ranked)


if __name__ == "__main__":
    main()
