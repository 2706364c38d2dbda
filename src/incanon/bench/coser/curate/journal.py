"""A per-book journal of finished curation steps, so an interrupted run resumes where it stopped.

One JSON line per finished step (a chunk's extraction, a conversation's refinement, the name
mapping, a profile), appended and fsynced as soon as the step ends: an interruption loses at
most the step in flight. The first line records what the steps depend on (the book's text, the
chunking and the model); a journal written for anything else is set aside, not reused.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any


class Journal:
    """Keyed results of finished steps, backed by an append-only JSONL file."""

    def __init__(self, path: str | os.PathLike[str], fingerprint: dict[str, Any]):
        self.path = Path(path)
        self.fingerprint = fingerprint
        self.entries: dict[str, Any] = {}
        self.set_aside: Path | None = None
        self._load()

    def _load(self) -> None:
        if not self.path.is_file():
            return
        lines = self.path.read_text(encoding="utf-8").splitlines()
        try:
            header = json.loads(lines[0]) if lines else None
        except json.JSONDecodeError:
            header = None
        if not isinstance(header, dict) or header.get("fingerprint") != self.fingerprint:
            self.set_aside = self.path.with_name(self.path.name + ".stale")
            os.replace(self.path, self.set_aside)
            return
        for line in lines[1:]:
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                break  # a line cut by a crash: everything before it is good
            self.entries[record["key"]] = record["value"]

    def get(self, key: str) -> Any:
        return self.entries.get(key)

    def __contains__(self, key: str) -> bool:
        return key in self.entries

    def put(self, key: str, value: Any) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        new = not self.path.is_file() or self.path.stat().st_size == 0
        with open(self.path, "a", encoding="utf-8") as fh:
            if new:
                fh.write(json.dumps({"fingerprint": self.fingerprint}, ensure_ascii=False) + "\n")
            fh.write(json.dumps({"key": key, "value": value}, ensure_ascii=False) + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        self.entries[key] = value

    def drop(self, predicate: Any) -> int:
        """Forget entries whose key satisfies ``predicate`` (rewrites the file atomically)."""
        keep = {k: v for k, v in self.entries.items() if not predicate(k)}
        dropped = len(self.entries) - len(keep)
        if dropped:
            tmp = self.path.with_name(self.path.name + ".tmp")
            with open(tmp, "w", encoding="utf-8") as fh:
                fh.write(json.dumps({"fingerprint": self.fingerprint}, ensure_ascii=False) + "\n")
                for k, v in keep.items():
                    fh.write(json.dumps({"key": k, "value": v}, ensure_ascii=False) + "\n")
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, self.path)
            self.entries = keep
        return dropped
