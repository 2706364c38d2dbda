"""``incanon runs merge``: shard run stores back into one run store.

Runs are grouped by their configuration without the shard, so the shards ``1/4`` … ``4/4`` of
a run become that run under the id the unsharded command would have given it: running the
command again without ``--shard`` on the merged store resumes it (and fills any missing shard).

The same (item, epoch) in two sources is a duplicate: with the same input hash one copy is
kept (an ``ok`` sample over a failed one, else the first source) and the duplicate reported;
with different inputs the merge stops with an error naming both, before anything is written.
Everything is written in one transaction: the output store gets the whole merge or nothing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from pydantic import BaseModel, Field

from incanon.errors import InputError, NotFoundError
from incanon.models.types import Usage
from incanon.runs.config import RunConfig, utcnow
from incanon.runs.records import RunInfo
from incanon.runs.shard import shard_of_config, unsharded
from incanon.runs.sample_rows import SAMPLE_COLUMNS
from incanon.runs.store import RunStore

_MAX_SHOWN = 5
_ITEM, _EPOCH = SAMPLE_COLUMNS.index("item_id"), SAMPLE_COLUMNS.index("epoch")


class Duplicate(BaseModel):
    """One (item, epoch) found in more than one source with the same input."""

    item_id: str
    epoch: int
    kept: str
    dropped: str


class MergedRun(BaseModel):
    """What the merge did for one run."""

    run_id: str
    sources: list[str]
    """``store:run`` of every source run merged."""
    existing: str | None = None
    """``store:run`` of the output's own copy of the run, when it had one (merged again)."""
    samples: int
    duplicates: list[Duplicate] = Field(default_factory=list)
    shards: list[str] = Field(default_factory=list)
    missing_shards: list[str] = Field(default_factory=list)
    status: str
    notes: list[str] = Field(default_factory=list)


class MergeReport(BaseModel):
    """Every run merged into ``out``."""

    out: str
    runs: list[MergedRun]


@dataclass
class _Member:
    store: RunStore
    info: RunInfo
    label: str
    own: bool = False  # the output store's existing copy of the run


@dataclass
class _Group:
    run_id: str
    config: RunConfig
    members: list[_Member] = field(default_factory=list)


def _groups(sources: list[RunStore], out: RunStore | None) -> dict[str, _Group]:
    groups: dict[str, _Group] = {}
    for store in ([out] if out is not None else []) + sources:
        for info in store.runs():
            base = unsharded(info.config)
            group = groups.setdefault(base.run_id, _Group(base.run_id, base))
            group.members.append(_Member(store, info, f"{store.path.name}:{info.id}", own=store is out))
    return {k: g for k, g in groups.items() if any(not m.own for m in g.members)}


def _pick(groups: dict[str, _Group], ref: str) -> _Group:
    if ref in groups:
        return groups[ref]
    hits = {g.run_id for g in groups.values()
            if g.run_id.startswith(ref) or any(m.info.id.startswith(ref) for m in g.members)}
    if len(hits) == 1:
        return groups[hits.pop()]
    if hits:
        raise InputError(f"run {ref!r} is ambiguous; it matches {', '.join(sorted(hits)[:_MAX_SHOWN])}")
    raise NotFoundError(f"no run {ref!r} in the shard stores; runs there: "
                        + ", ".join(sorted(groups)[:_MAX_SHOWN]))


def _plan(group: _Group) -> tuple[dict[tuple[str, int], tuple[int, Any]], list[Duplicate]]:
    """Winner per (item, epoch) → (member index, its status); duplicates; raises on conflicts."""
    seen: dict[tuple[str, int], tuple[int, str, str]] = {}
    duplicates: list[Duplicate] = []
    conflicts: list[str] = []
    holder: dict[tuple[str, int], int] = {}  # first source (not the output's copy) with the key
    for index, member in enumerate(group.members):
        for key, (status, digest) in member.store.sample_states(member.info.id).items():
            if key not in seen:
                seen[key] = (index, digest, status)
            else:
                first, first_digest, first_status = seen[key]
                if first_digest != digest:
                    conflicts.append(f"item {key[0]!r} epoch {key[1]}: input {first_digest} in "
                                     f"{group.members[first].label}, {digest} in {member.label}")
                    continue
                if first_status != "ok" and status == "ok":
                    seen[key] = (index, digest, status)
            if member.own:
                continue
            earlier = holder.setdefault(key, index)
            if earlier != index:
                winner = seen[key][0]
                loser = index if winner != index else earlier
                duplicates.append(Duplicate(item_id=key[0], epoch=key[1], kept=group.members[winner].label,
                                            dropped=group.members[loser].label))
    if conflicts:
        more = f" (and {len(conflicts) - _MAX_SHOWN} more)" if len(conflicts) > _MAX_SHOWN else ""
        raise InputError(f"cannot merge run {group.run_id}: the same item has different inputs in two "
                         f"sources: {'; '.join(conflicts[:_MAX_SHOWN])}{more}")
    return {key: (index, status) for key, (index, _, status) in seen.items()}, duplicates


def _run_row(group: _Group, winners: dict[tuple[str, int], tuple[int, Any]]) -> tuple[dict[str, Any], MergedRun]:
    shards = {m.info.config.params.get("shard") for m in group.members if not m.own} - {None}
    counts = {int(str(s).split("/")[1]) for s in shards}
    notes, missing = [], []
    if len(counts) > 1:
        notes.append(f"shards of different counts were merged: {', '.join(sorted(map(str, shards)))}")
    elif counts:
        n = counts.pop()
        missing = [f"{i}/{n}" for i in range(1, n + 1) if f"{i}/{n}" not in shards]
        if missing:
            notes.append(f"shards {', '.join(missing)} are missing; run the command without --shard "
                         "on the merged store to fill them in")
    members = [m for m in group.members if not m.own]
    complete = not missing and all(m.info.status == "finished" for m in members)
    own = next((m for m in group.members if m.own), None)
    # Spending per source run, so merging the same shard again replaces rather than adds.
    merged_from = dict((own.info.totals.get("merged_from") or {}) if own else {})
    for m in members:
        merged_from[m.info.id] = {"spent": m.info.totals.get("spent", {}),
                                  "elapsed_s": m.info.totals.get("elapsed_s", 0.0),
                                  "sessions": m.info.totals.get("sessions", 0)}
    spent = sum((Usage.model_validate(v["spent"]) for v in merged_from.values()), Usage())
    totals = {"spent": spent.model_dump(), "merged_from": merged_from,
              "elapsed_s": sum(float(v["elapsed_s"]) for v in merged_from.values()),
              "sessions": sum(int(v["sessions"]) for v in merged_from.values())}
    sharded = [m for m in members if shard_of_config(m.info.config) is not None]
    total = None
    if sharded and not missing and len(sharded) == len(members) and all(m.info.total is not None for m in sharded):
        total = sum(m.info.total or 0 for m in sharded)
    config = group.config
    for m in group.members:
        config = config.with_templates(m.info.config.templates)
    row = {"id": group.run_id, "benchmark": config.benchmark, "config": config.to_json(),
           "status": "finished" if complete else "interrupted", "created": config.created.isoformat(),
           "total": total, "totals": json.dumps(totals)}
    report = MergedRun(run_id=group.run_id, sources=[m.label for m in members], existing=own.label if own else None,
                       samples=len(winners),
                       shards=sorted(map(str, shards)), missing_shards=missing, status=row["status"], notes=notes)
    return row, report


_INSERT_SAMPLE = (
    f"INSERT INTO samples ({', '.join(SAMPLE_COLUMNS)}) VALUES ({', '.join('?' * len(SAMPLE_COLUMNS))})"
    " ON CONFLICT (run_id, item_id, epoch) DO UPDATE SET "
    + ", ".join(f"{c} = excluded.{c}" for c in SAMPLE_COLUMNS if c not in ("run_id", "item_id", "epoch"))
)


def merge_stores(out: str | Path, sources: Sequence[str | Path], *, run: str | None = None) -> MergeReport:
    """Merge the runs of the ``sources`` stores into the store ``out`` (created if needed).

    Every run found is merged unless ``run`` names one (the whole run's id, a shard run's id,
    or a unique prefix of either). The output's own copy of a run takes part like a source, so
    merging again after re-running a shard updates the run.
    """
    out_path = Path(out).expanduser()
    paths = [Path(p).expanduser() for p in sources]
    if not paths:
        raise InputError("give at least one shard run store to merge")
    for path in paths:
        if path.resolve() == out_path.resolve():
            raise InputError(f"{path} is both the output and a source")
    existed = out_path.is_file()
    opened = [RunStore(p, create=False) for p in paths]
    target = RunStore(out_path)
    try:
        groups = _groups(opened, target)
        chosen = [_pick(groups, run)] if run is not None else sorted(groups.values(), key=lambda g: g.run_id)
        if not chosen:
            raise NotFoundError("the shard stores hold no runs")
        plans = [(group, *_plan(group)) for group in chosen]  # every check before any write
        reports: list[MergedRun] = []
        now = utcnow().isoformat()
        with target.transaction() as db:
            for group, winners, duplicates in plans:
                row, report = _run_row(group, winners)
                report.duplicates = duplicates
                db.execute(
                    "INSERT INTO runs (id, benchmark, config, status, created, updated, total, totals)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET config = excluded.config,"
                    " status = excluded.status, updated = excluded.updated, total = excluded.total,"
                    " totals = excluded.totals, pid = NULL, host = NULL",
                    (row["id"], row["benchmark"], row["config"], row["status"], row["created"], now,
                     row["total"], row["totals"]))
                for index, member in enumerate(group.members):
                    if member.own:
                        continue  # its samples are in place already; winners from others replace them
                    batch = [(group.run_id, *r[1:]) for r in member.store.sample_rows(member.info.id)
                             if winners[(r[_ITEM], r[_EPOCH])][0] == index]
                    db.executemany(_INSERT_SAMPLE, batch)
                reports.append(report)
    except BaseException:
        target.close()
        if not existed:
            for suffix in ("", "-wal", "-shm"):
                Path(str(out_path) + suffix).unlink(missing_ok=True)
        raise
    finally:
        for store in opened:
            store.close()
    target.close()
    return MergeReport(out=str(out_path), runs=reports)
