"""The response cache: one SQLite file (WAL) shared by every process of a machine.

Values are JSON for chat completions and raw little-endian float32 for embedding vectors;
never pickle. Every write is one short autocommit statement and readers never block writers
(WAL), so parallel runs can share one file; the busy timeout absorbs the brief write locks.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Iterator, Mapping, Sequence

import numpy as np
from pydantic import BaseModel

from incanon.models.types import Completion, GenerationParams, Message

CACHE_VERSION = 2
"""Bumped when the meaning of a cached value or of a key changes; old entries then miss.
2: keys name the model's identity (base URL, file content) instead of its display name."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY, model TEXT NOT NULL, value TEXT NOT NULL, created REAL NOT NULL);
CREATE INDEX IF NOT EXISTS responses_model ON responses(model);
CREATE TABLE IF NOT EXISTS embeddings (
    key TEXT PRIMARY KEY, model TEXT NOT NULL, kind TEXT NOT NULL, dim INTEGER NOT NULL,
    vector BLOB NOT NULL, created REAL NOT NULL);
CREATE INDEX IF NOT EXISTS embeddings_model ON embeddings(model);
"""

# Hits and misses of this process, per cache file, however many ResponseCache objects share it.
_counters: dict[str, Counter[str]] = {}
_counters_lock = threading.Lock()


def _canonical(doc: object) -> bytes:
    return json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def cache_key(model: str, messages: Sequence[Message], params: GenerationParams) -> str:
    """sha256 of everything that changes the output, and of nothing else.

    In: cache version, model identity (:mod:`incanon.models.identity`), messages, every field of ``params``. The epoch only counts
    when temperature > 0: a greedy generation is the same in every epoch. Out: API key,
    timeouts, concurrency (they are not part of ``params`` or the identity at all).
    """
    sampling = params.model_dump(mode="json")
    epoch = sampling.pop("epoch")
    if params.temperature > 0:
        sampling["epoch"] = epoch
    doc = {
        "v": CACHE_VERSION,
        "model": model,
        "messages": [{"role": m.role, "content": m.content} for m in messages],
        "params": sampling,
    }
    return hashlib.sha256(_canonical(doc)).hexdigest()


def embedding_key(model: str, kind: str, text: str) -> str:
    """sha256 of (cache version, embedder name, kind, text)."""
    return hashlib.sha256(_canonical([CACHE_VERSION, model, kind, text])).hexdigest()


class ModelCacheStats(BaseModel):
    """Entries of one model name."""

    entries: int = 0
    bytes: int = 0


class CacheStats(BaseModel):
    """What ``ResponseCache.stats()`` reports."""

    path: str
    """The cache file."""
    entries: int
    """Chat responses plus embedding vectors stored."""
    responses: int
    """Chat responses stored."""
    embeddings: int
    """Embedding vectors stored."""
    bytes: int
    """Bytes of stored values."""
    file_bytes: int
    """Bytes on disk (database plus WAL)."""
    models: dict[str, ModelCacheStats]
    """Per model (or embedder) name."""
    hits: int
    """Lookups answered from the cache in this process."""
    misses: int
    """Lookups not found in this process."""


class ResponseCache:
    """Chat completions and embedding vectors keyed by content hash, in one SQLite file."""

    def __init__(self, path: str | Path, *, busy_timeout_s: float = 60.0):
        self.path = Path(path).expanduser()
        self.busy_timeout_s = busy_timeout_s
        self._conn: sqlite3.Connection | None = None
        self._pid = 0
        self._lock = threading.RLock()
        self._stored = False
        """True once this process committed an answer or a vector here."""
        key = str(self.path.resolve())
        with _counters_lock:
            self._counter = _counters.setdefault(key, Counter())

    def __repr__(self) -> str:
        return f"ResponseCache({str(self.path)!r})"

    def _db(self) -> sqlite3.Connection:
        # A connection must not cross a fork, so a child process opens its own.
        if self._conn is None or self._pid != os.getpid():
            from incanon.errors import InputError
            from incanon.sqlitedb import DamagedStoreError, connect, require_database, use_wal

            if self.path.is_dir():
                raise InputError("response cache is a directory, expected a SQLite file", source=str(self.path))
            if self.path.exists():
                require_database(self.path, "response cache", wait_s=2.0)
            from incanon.created import track_new

            # A cache this command creates goes again if the command fails while it is still
            # empty, and only then: once it holds an answer it is what makes the rerun free (a
            # build that failed on a full disk after 30 minutes of helper calls had deleted them
            # all), and another process may be writing into it.
            track_new(self.path, keep=lambda: self._stored or _worth_keeping(self.path, unreadable=False))
            self.path.parent.mkdir(parents=True, exist_ok=True)
            conn = connect(self.path, "response cache", timeout=self.busy_timeout_s, isolation_level=None,
                           check_same_thread=False)
            try:
                conn.execute(f"PRAGMA busy_timeout={int(self.busy_timeout_s * 1000)}")
                tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
                if tables and "responses" not in tables:
                    raise DamagedStoreError("is a SQLite file but not an incanon response cache; nothing was changed",
                                            source=str(self.path))
                use_wal(conn, self.busy_timeout_s)
                conn.execute("PRAGMA synchronous=NORMAL")
                conn.executescript(_SCHEMA)
            except BaseException:
                conn.close()
                raise
            self._conn, self._pid = conn, os.getpid()
        return self._conn

    def close(self) -> None:
        """Close the connection (it reopens on the next use)."""
        with self._lock:
            if self._conn is not None and self._pid == os.getpid():
                self._conn.close()
            self._conn = None

    def _count(self, hit: bool, n: int = 1) -> None:
        if n:
            with _counters_lock:
                self._counter["hits" if hit else "misses"] += n

    # -- chat completions -------------------------------------------------------------------

    def get(self, key: str) -> dict | None:
        """The JSON value stored under ``key``, or None (counts a hit or a miss)."""
        with self._lock:
            row = self._db().execute("SELECT value FROM responses WHERE key=?", (key,)).fetchone()
        self._count(row is not None)
        return None if row is None else json.loads(row[0])

    def put(self, key: str, model: str, value: Mapping) -> None:
        """Store a JSON ``value`` under ``key`` (replacing any)."""
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
        with self._lock:
            self._db().execute(
                "INSERT OR REPLACE INTO responses(key, model, value, created) VALUES (?,?,?,?)",
                (key, model, text, time.time()),
            )
            self._stored = True

    def get_completion(self, key: str) -> Completion | None:
        """A cached completion (marked ``cached=True``), or None."""
        value = self.get(key)
        if value is None:
            return None
        return Completion.model_validate({**value, "cached": True})

    def put_completion(self, key: str, model: str, completion: Completion) -> None:
        """Store a completion."""
        self.put(key, model, completion.model_dump(mode="json", exclude={"cached"}))

    def forget(self, key: str) -> bool:
        """Drop the answer stored under ``key`` (one a caller could not use), so the same call
        is asked again next time; True when there was one."""
        with self._lock:
            return self._db().execute("DELETE FROM responses WHERE key=?", (key,)).rowcount > 0

    # -- embedding vectors ------------------------------------------------------------------

    def get_vectors(self, model: str, kind: str, texts: Sequence[str]) -> dict[str, np.ndarray]:
        """Cached vectors of those ``texts`` that have one."""
        found: dict[str, np.ndarray] = {}
        keys = {embedding_key(model, kind, t): t for t in texts}
        with self._lock:
            for chunk in _chunks(list(keys), 500):  # stay under SQLite's variable limit
                marks = ",".join("?" * len(chunk))
                for key, blob in self._db().execute(
                    f"SELECT key, vector FROM embeddings WHERE key IN ({marks})", chunk
                ):
                    found[keys[key]] = np.frombuffer(blob, dtype="<f4").astype(np.float32)
        unique = len(keys)
        self._count(True, len(found))
        self._count(False, unique - len(found))
        return found

    def put_vectors(self, model: str, kind: str, vectors: Mapping[str, np.ndarray]) -> None:
        """Store vectors by text."""
        now = time.time()
        rows = [
            (embedding_key(model, kind, text), model, kind, int(v.shape[-1]),
             np.asarray(v, dtype="<f4").tobytes(), now)
            for text, v in vectors.items()
        ]
        with self._lock:
            db = self._db()
            db.execute("BEGIN IMMEDIATE")
            try:
                db.executemany(
                    "INSERT OR REPLACE INTO embeddings(key, model, kind, dim, vector, created) "
                    "VALUES (?,?,?,?,?,?)",
                    rows,
                )
                db.execute("COMMIT")
                self._stored = True
            except BaseException:
                db.execute("ROLLBACK")
                raise

    # -- upkeep -----------------------------------------------------------------------------

    def stats(self) -> CacheStats:
        """Entries, bytes and per-model counts on disk; hits and misses of this process."""
        models: dict[str, ModelCacheStats] = {}
        totals = {"responses": 0, "embeddings": 0}
        with self._lock:
            db = self._db()
            for table, column in (("responses", "value"), ("embeddings", "vector")):
                for model, n, size in db.execute(
                    f"SELECT model, COUNT(*), COALESCE(SUM(LENGTH({column})),0) FROM {table} GROUP BY model"
                ):
                    entry = models.setdefault(model, ModelCacheStats())
                    entry.entries += n
                    entry.bytes += size
                    totals[table] += n
        file_bytes = sum(
            p.stat().st_size
            for p in (self.path, Path(f"{self.path}-wal"))
            if p.exists()
        )
        with _counters_lock:
            hits, misses = self._counter["hits"], self._counter["misses"]
        return CacheStats(
            path=str(self.path),
            entries=totals["responses"] + totals["embeddings"],
            responses=totals["responses"],
            embeddings=totals["embeddings"],
            bytes=sum(m.bytes for m in models.values()),
            file_bytes=file_bytes,
            models=dict(sorted(models.items())),
            hits=hits,
            misses=misses,
        )

    def clear(self, model: str | None = None) -> int:
        """Delete every entry, or only those of ``model`` (an identity as :meth:`stats` shows it, or
        a model name such as ``gguf:SmolLM2`` for all its identities); returns how many were deleted."""
        with self._lock:
            db = self._db()
            db.execute("BEGIN IMMEDIATE")
            try:
                removed = 0
                for table in ("responses", "embeddings"):
                    if model is None:
                        removed += db.execute(f"DELETE FROM {table}").rowcount
                    else:
                        # An identity as in stats, or a display name for all of its identities.
                        removed += db.execute(
                            f"DELETE FROM {table} WHERE model=? OR substr(model, 1, length(?) + 1) IN (? || '#', ? || '@')",
                            (model, model, model, model),
                        ).rowcount
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
        return removed


def _worth_keeping(path: Path, *, unreadable: bool = True) -> bool:
    """Whether a cache file a failed command created must stay: it holds an answer or a vector,
    or it cannot be read to tell and ``unreadable`` (the caller cannot vouch that nothing was
    stored: deleting a cache full of paid answers costs far more than leaving an empty file).
    The cache itself passes False, since it knows whether this process stored anything and
    nobody else writes into a file this command just created."""
    from urllib.parse import quote

    if not path.is_file():
        return False
    wal = Path(f"{path}-wal")
    wal_empty = not wal.exists() or wal.stat().st_size == 0
    if path.stat().st_size == 0 and wal_empty:
        return False
    # With nothing in the WAL the file alone says it all, and reading it as immutable takes no
    # lock and writes no shared memory (a plain read-only open fails under the same full disk
    # or file size limit that made the command fail).
    flags = "?mode=ro&immutable=1" if wal_empty else "?mode=ro"
    try:
        conn = sqlite3.connect(f"file:{quote(str(path))}{flags}", uri=True, timeout=2.0)
        try:
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            return any(conn.execute(f"SELECT 1 FROM {t} LIMIT 1").fetchone() is not None
                       for t in ("responses", "embeddings") if t in tables)
        finally:
            conn.close()
    except sqlite3.Error:
        return unreadable


def _chunks(items: list[str], size: int) -> Iterator[list[str]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def open_cache(cache: "ResponseCache | str | Path | bool | None") -> ResponseCache | None:
    """A cache from what callers pass: an instance, a path, True (the default file) or None/False."""
    if cache is None or cache is False:
        return None
    if cache is True:
        from incanon.paths import default_cache_path

        return ResponseCache(default_cache_path())
    if isinstance(cache, ResponseCache):
        return cache
    return ResponseCache(cache)
