"""The run store: every sample of every run in one SQLite file.

WAL journal so readers (``incanon runs show`` while a run goes on) never block the writer;
samples are written in short transactions (one sample, or a batch of them from the runner's
group commit), so a killed process leaves whole samples or none; values are JSON text, never
pickle, so a store can be read by anything and shared safely.
"""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator, Sequence

from incanon.errors import InputError, NotFoundError
from incanon.models.types import Usage
from incanon.paths import default_runs_path
from incanon.runs.config import RunConfig, resume_notes, utcnow
from incanon.runs.records import RunInfo, RunSummary, SampleRecord
from incanon.runs.lease import LEASE_STALE_S, RunBusyError, alive, env_wait, holds  # noqa: F401  (re-exported)
from incanon.runs.schema import check_schema, ensure_schema
from incanon.created import holds_rows, track_new
from incanon.sqlitedb import connect, connect_read_only, require_database, use_wal
from incanon.runs.stats import summarize
from incanon.runs.sample_rows import (
    RETURNING, SAMPLE_COLUMNS_SQL, UPSERT, row_sample, sample_row, ts,
)

class RunStore:
    """SQLite store of runs and their samples (one file; safe for concurrent readers)."""

    def __init__(self, path: str | Path | None = None, *, create: bool = True, timeout: float = 30.0,
                 read_only: bool = False):
        """Open (and by default create) the store at ``path`` (default ``~/.incanon/runs.sqlite``).
        ``read_only``: an existing store, opened so that nothing can be written (commands that
        only read work on a store or folder the user may not write)."""
        self.path = Path(path).expanduser() if path is not None else default_runs_path()
        if self.path.is_dir():
            raise InputError("run store is a directory, expected a SQLite file", source=str(self.path))
        if (not create or read_only) and not self.path.is_file():
            raise NotFoundError(f"no run store at {self.path}")
        if self.path.exists():
            # Before SQLite opens it: an empty or foreign file would silently become a new store.
            require_database(self.path, "run store", wait_s=2.0)
        if read_only:
            self._open_read_only(timeout)
            return
        # A store this command creates goes again if the command fails before a sample is in it.
        track_new(self.path, keep=holds_rows(self.path, "samples"))
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # Autocommit mode: transactions are opened explicitly (BEGIN IMMEDIATE) so a writer takes
        # the lock up front instead of failing to upgrade a read lock under contention.
        self._db = connect(self.path, "run store", timeout=timeout, isolation_level=None, check_same_thread=False)
        self._lock = threading.RLock()
        try:
            self._db.execute(f"PRAGMA busy_timeout = {int(timeout * 1000)}")
            # Before anything writes: the file must be a run store already (or, when creating,
            # an empty database), never someone else's database.
            check_schema(self._db, self.path, creating=create)
            use_wal(self._db, timeout)
            # NORMAL in WAL mode: a commit survives a killed process; only power loss may drop the
            # last few commits, and never leaves a torn one.
            self._db.execute("PRAGMA synchronous = NORMAL")
            self._db.execute("PRAGMA foreign_keys = ON")
            with self._lock:
                ensure_schema(self._db, self.path)
        except BaseException:
            self._db.close()
            raise

    def _open_read_only(self, timeout: float) -> None:
        self._db = connect_read_only(self.path, "run store", timeout=timeout, isolation_level=None,
                                     check_same_thread=False)
        self._lock = threading.RLock()
        try:
            check_schema(self._db, self.path)
        except BaseException:
            self._db.close()
            raise

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction (``BEGIN IMMEDIATE`` … ``COMMIT``), rolled back on any error."""
        with self._tx() as db:
            yield db

    def close(self) -> None:
        """Close the connection."""
        with self._lock:
            self._db.close()

    def __enter__(self) -> "RunStore":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- runs ---------------------------------------------------------------------------------

    def create_or_resume(self, config: RunConfig, *, fresh: bool = False, wait_s: float | None = None) -> RunInfo:
        """Open the run ``config`` names (resuming it if it exists), or a new one if ``fresh``,
        and take its lease.

        A run has one holder at a time: when another live process holds it, this waits up to
        ``wait_s`` seconds (default ``$INCANON_RUN_WAIT``, else 0) for it to finish, then raises
        :class:`RunBusyError` naming the holder. A holder that died (its pid is gone on this
        host, or it wrote nothing for ``LEASE_STALE_S`` on another host) is taken over.
        """
        if wait_s is None:
            wait_s = env_wait()
        deadline = time.monotonic() + max(0.0, wait_s)
        while True:
            try:
                return self._take(config, fresh)
            except RunBusyError:
                if time.monotonic() >= deadline:
                    raise
                time.sleep(min(1.0, max(0.05, deadline - time.monotonic())))

    def _take(self, config: RunConfig, fresh: bool) -> RunInfo:
        from incanon.runs.ambient import current_defaults

        source = current_defaults().source
        if source is not None:
            config = config.model_copy(update={"source": RunConfig(benchmark="-", source=source).source})
        now = ts(utcnow())
        with self._tx() as db:
            run_id = config.fresh_run_id() if fresh else config.run_id
            while fresh and db.execute("SELECT 1 FROM runs WHERE id = ?", (run_id,)).fetchone():
                run_id = config.fresh_run_id()
            row = db.execute(
                "SELECT config, status, pid, host, updated FROM runs WHERE id = ?", (run_id,)
            ).fetchone()
            notes: list[str] = []
            if row is None:
                db.execute(
                    "INSERT INTO runs (id, benchmark, config, status, created, updated, pid, host)"
                    " VALUES (?, ?, ?, 'running', ?, ?, ?, ?)",
                    (run_id, config.benchmark, config.to_json(), ts(config.created), now,
                     os.getpid(), socket.gethostname()),
                )
            else:
                stored = RunConfig.model_validate_json(row[0])
                notes = resume_notes(stored, config)
                _, status, pid, host, updated = row
                if status == "running" and pid != os.getpid() and holds(pid, host, updated):
                    # Samples could not be duplicated (one row per item), but the work and its
                    # cost would be: one process at a time.
                    raise RunBusyError(
                        f"run {run_id} is being run by process {pid} on {host} (since {updated}); "
                        f"wait for it to finish or stop it, or set INCANON_RUN_WAIT=SECONDS to wait"
                    )
                if status == "running" and pid != os.getpid():
                    notes.append(f"took over run {run_id} from process {pid} on {host}, which is gone")
                merged = stored.with_templates(config.templates)
                if config.source is not None:
                    merged = merged.model_copy(update={"source": config.source})
                db.execute(
                    "UPDATE runs SET status = 'running', updated = ?, config = ?, pid = ?, host = ?"
                    " WHERE id = ?",
                    (now, merged.to_json(), os.getpid(), socket.gethostname(), run_id),
                )
        info = self.get_run(run_id)
        return info.model_copy(update={"resumed": row is not None, "notes": notes})

    def set_total(self, run_id: str, total: int | None) -> None:
        """Record how many samples the run plans (items × epochs)."""
        with self._tx() as db:
            db.execute("UPDATE runs SET total = ? WHERE id = ?", (total, run_id))

    def add_templates(self, run_id: str, used: dict[str, str]) -> None:
        """Merge template fingerprints rendered during the run into the stored config."""
        if not used:
            return
        with self._tx() as db:
            row = db.execute("SELECT config FROM runs WHERE id = ?", (run_id,)).fetchone()
            config = RunConfig.model_validate_json(row[0]).with_templates(used)
            db.execute("UPDATE runs SET config = ? WHERE id = ?", (config.to_json(), run_id))

    def finish(self, run_id: str, status: str, *, spent: Usage | None = None, elapsed_s: float = 0.0) -> None:
        """Set the run's status and add this session's usage and wall time to its totals."""
        with self._tx() as db:
            row = db.execute("SELECT totals FROM runs WHERE id = ?", (run_id,)).fetchone()
            totals = json.loads(row[0]) if row else {}
            total_spent = Usage.model_validate(totals.get("spent", {})) + (spent or Usage())
            totals["spent"] = total_spent.model_dump()
            totals["elapsed_s"] = float(totals.get("elapsed_s", 0.0)) + elapsed_s
            totals["sessions"] = int(totals.get("sessions", 0)) + 1
            db.execute(
                "UPDATE runs SET status = ?, totals = ?, updated = ? WHERE id = ?",
                (status, json.dumps(totals), ts(utcnow()), run_id),
            )

    def _info(self, row: sqlite3.Row | tuple) -> RunInfo:
        run_id, benchmark, config, status, created, updated, total, totals, pid, host = row[:10]
        ok, failed = row[10] or 0, row[11] or 0
        if status == "running" and not alive(pid, host):
            status = "interrupted"  # its process died (kill -9, crash): resumable
        return RunInfo(
            id=run_id, benchmark=benchmark, status=status, created=created, updated=updated,
            ok=ok, failed=failed, total=total, config=RunConfig.model_validate_json(config),
            totals=json.loads(totals),
        )

    _RUN_QUERY = (
        "SELECT r.id, r.benchmark, r.config, r.status, r.created, r.updated, r.total, r.totals,"
        " r.pid, r.host,"
        " (SELECT COUNT(*) FROM samples s WHERE s.run_id = r.id AND s.status = 'ok'),"
        " (SELECT COUNT(*) FROM samples s WHERE s.run_id = r.id AND s.status = 'error')"
        " FROM runs r"
    )

    def runs(self) -> list[RunInfo]:
        """Every run, newest first."""
        with self._lock:
            rows = self._db.execute(self._RUN_QUERY + " ORDER BY r.created DESC, r.id").fetchall()
        return [self._info(row) for row in rows]

    def get_run(self, run_id: str) -> RunInfo:
        """The run with exactly this id."""
        with self._lock:
            row = self._db.execute(self._RUN_QUERY + " WHERE r.id = ?", (run_id,)).fetchone()
        if row is None:
            raise self._not_found(run_id)
        return self._info(row)

    def resolve(self, ref: str) -> str:
        """The id of the run ``ref`` names: an exact id or a unique prefix of one."""
        with self._lock:
            ids = [r[0] for r in self._db.execute("SELECT id FROM runs ORDER BY created DESC")]
        if ref in ids:
            return ref
        matches = [i for i in ids if i.startswith(ref)]
        if len(matches) == 1:
            return matches[0]
        if matches:
            shown = ", ".join(matches[:5]) + (f" (and {len(matches) - 5} more)" if len(matches) > 5 else "")
            raise InputError(f"run {ref!r} is ambiguous; it matches {shown}")
        raise self._not_found(ref, ids)

    def _not_found(self, ref: str, ids: list[str] | None = None) -> NotFoundError:
        if ids is None:
            with self._lock:
                ids = [r[0] for r in self._db.execute("SELECT id FROM runs ORDER BY created DESC")]
        if not ids:
            return NotFoundError(f"no run {ref!r}: the run store {self.path} has no runs")
        known = ", ".join(ids[:5]) + (f" (and {len(ids) - 5} more)" if len(ids) > 5 else "")
        return NotFoundError(f"no run {ref!r} in {self.path}; known runs: {known}")

    # -- samples ------------------------------------------------------------------------------

    def record(self, sample: SampleRecord) -> int:
        """Write one finished sample in its own transaction; returns its attempt count.

        A sample already stored for (run, item, epoch) is replaced; its attempt count goes up
        by one, or restarts at 1 when the input changed (a different item under the same id).
        """
        row = sample_row(sample)
        with self._tx() as db:
            (attempts,) = db.execute(UPSERT + RETURNING, row).fetchone()
            db.execute("UPDATE runs SET updated = ? WHERE id = ?", (row[10] or ts(utcnow()), sample.run_id))
        return int(attempts)

    def record_many(self, samples: Sequence[SampleRecord]) -> None:
        """Write finished samples in one transaction (all or none), each as :meth:`record` would.

        The runner's group commit: one commit per batch instead of per sample, with the same
        guarantee per sample (a sample is in the store whole once its batch commits, else not
        at all, and is then run again on resume).
        """
        if not samples:
            return
        # JSON is encoded before the lock is taken: the transaction holds it for SQL only.
        rows = [sample_row(sample) for sample in samples]
        latest: dict[str, str] = {}
        for sample, row in zip(samples, rows):
            latest[sample.run_id] = max(latest.get(sample.run_id, ""), row[10] or "")
        with self._tx() as db:
            db.executemany(UPSERT, rows)
            db.executemany("UPDATE runs SET updated = ? WHERE id = ?",
                           [(stamp or ts(utcnow()), run_id) for run_id, stamp in latest.items()])

    def sample_states(self, run_id: str) -> dict[tuple[str, int], tuple[str, str]]:
        """(item id, epoch) → (status, input hash) of every stored sample: what resume needs."""
        with self._lock:
            rows = self._db.execute(
                "SELECT item_id, epoch, status, input_hash FROM samples WHERE run_id = ?", (run_id,)
            ).fetchall()
        return {(item, epoch): (status, digest) for item, epoch, status, digest in rows}

    def done_ids(self, run_id: str) -> set[tuple[str, int]]:
        """(item id, epoch) of every sample finished ``ok``."""
        return {key for key, (status, _) in self.sample_states(run_id).items() if status == "ok"}

    def samples(self, run_id: str, status: str | None = None) -> Iterator[SampleRecord]:
        """The run's samples in the order they were first recorded (streamed, not loaded at once)."""
        query = f"SELECT {SAMPLE_COLUMNS_SQL} FROM samples WHERE run_id = ?"
        args: tuple[Any, ...] = (run_id,)
        if status is not None:
            query += " AND status = ?"
            args += (status,)
        # A separate connection so a long export never holds this one's lock (read-only: it
        # works on a store nobody may write, and can never change one).
        reader = connect_read_only(self.path, "run store", timeout=30.0)
        try:
            for row in reader.execute(query + " ORDER BY rowid", args):
                yield row_sample(row)
        finally:
            reader.close()

    def sample(self, run_id: str, item_id: str, epoch: int = 0) -> SampleRecord:
        """One stored sample; ``NotFoundError`` names the run and item when there is none."""
        with self._lock:
            row = self._db.execute(
                f"SELECT {SAMPLE_COLUMNS_SQL} FROM samples WHERE run_id = ? AND item_id = ? AND epoch = ?",
                (run_id, item_id, epoch)).fetchone()
        if row is None:
            raise NotFoundError(f"run {run_id} has no sample {item_id!r} (epoch {epoch})")
        return row_sample(row)

    def sample_rows(self, run_id: str) -> Iterator[tuple[Any, ...]]:
        """The run's samples as raw rows (:data:`incanon.runs.sample_rows.SAMPLE_COLUMNS`, JSON as text), for copying."""
        reader = connect_read_only(self.path, "run store", timeout=30.0)
        try:
            yield from reader.execute(
                f"SELECT {SAMPLE_COLUMNS_SQL} FROM samples WHERE run_id = ? ORDER BY rowid", (run_id,))
        finally:
            reader.close()

    def spent_cost(self, run_id: str) -> float:
        """USD the run has spent over its sessions: the larger of the sessions' recorded totals
        and the stored samples' costs (a killed session never recorded its total)."""
        with self._lock:
            row = self._db.execute("SELECT totals FROM runs WHERE id = ?", (run_id,)).fetchone()
            (samples,) = self._db.execute(
                "SELECT COALESCE(SUM(json_extract(usage, '$.cost')), 0) FROM samples WHERE run_id = ?",
                (run_id,)).fetchone()
        totals = json.loads(row[0]) if row else {}
        recorded = float((totals.get("spent") or {}).get("cost", 0.0))
        return max(recorded, float(samples or 0.0))

    def summary(self, run_id: str) -> RunSummary:
        """Counts, mean ± SEM of each numeric score (ok samples), usage totals, errors by type."""
        info = self.get_run(run_id)
        with self._lock:
            return summarize(self._db, info)
