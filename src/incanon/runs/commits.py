"""Group commit: the samples that finish in one turn of the event loop share one transaction.

A worker hands its finished sample to :meth:`GroupCommit.commit` and waits there until the
sample's transaction has committed; only then does it count the sample and pull the next item.
So a sample is *done* exactly when it is in the store, and the samples that are not (running,
or finished and waiting for their batch) are never more than the workers: on a kill -9 those
are the ones run again on resume, as before group commit, and none is lost or stored twice.

What changes is the number of commits: every sample that finishes before the event loop turns
goes into one ``BEGIN IMMEDIATE … COMMIT`` (:meth:`RunStore.record_many`), instead of one
transaction each, which was most of the runner's per-sample cost.
"""

from __future__ import annotations

import asyncio

from incanon.runs.records import SampleRecord
from incanon.runs.store import RunStore


class GroupCommit:
    """Batches samples from concurrent workers into single transactions of one store."""

    def __init__(self, store: RunStore, *, max_batch: int = 1024) -> None:
        self.store = store
        self.max_batch = max_batch
        """Most samples per transaction (a bound on how long one commit holds the loop)."""
        self.batches = 0
        """Transactions committed so far."""
        self.samples = 0
        """Samples committed so far."""
        self._pending: list[tuple[SampleRecord, asyncio.Future[None]]] = []
        self._scheduled = False

    async def commit(self, sample: SampleRecord) -> None:
        """Store ``sample`` with the others of this loop turn; returns once its transaction
        has committed (raises what the store raised, if it failed)."""
        loop = asyncio.get_running_loop()
        done: asyncio.Future[None] = loop.create_future()
        self._pending.append((sample, done))
        if not self._scheduled:
            # call_soon runs after every callback already queued: the workers that are ready
            # in this turn add their samples before the batch is written.
            self._scheduled = True
            loop.call_soon(self._flush)
        await done

    def flush(self) -> None:
        """Write whatever is waiting now (the runner calls it before closing a run)."""
        while self._pending:
            self._write(self._take())

    def _flush(self) -> None:
        self._scheduled = False
        self.flush()

    def _take(self) -> list[tuple[SampleRecord, asyncio.Future[None]]]:
        batch, self._pending = self._pending[: self.max_batch], self._pending[self.max_batch:]
        return batch

    def _write(self, batch: list[tuple[SampleRecord, asyncio.Future[None]]]) -> None:
        try:
            self.store.record_many([sample for sample, _ in batch])
        except Exception as exc:  # noqa: BLE001 - every waiting worker gets the store's error
            for _, done in batch:
                if not done.done():
                    done.set_exception(exc)
            return
        self.batches += 1
        self.samples += len(batch)
        for _, done in batch:
            # A worker cancelled while waiting (Ctrl-C) still had its whole sample committed.
            if not done.done():
                done.set_result(None)
