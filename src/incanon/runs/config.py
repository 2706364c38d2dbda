"""What a run is: the configuration that names it.

The run id is derived from the configuration, so running the same command twice lands in the
same run and resumes it, instead of starting over or scattering results across runs.
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets as _random
from datetime import datetime, timezone
from typing import Any, Mapping

from pydantic import BaseModel, ConfigDict, Field, model_validator

from incanon import __version__
from incanon.secrets import redact, strip_secrets

# Facts recorded about a run that do not make it a different run: when it started, what the
# user called it (already the id's prefix), which incanon version and template files produced it
# (upgrading incanon mid-run must not orphan finished work; a changed template is reported on
# resume instead), and which secret keys were dropped.
_NOT_IDENTITY = frozenset({"created", "name", "package_version", "templates", "stripped", "source"})


def utcnow() -> datetime:
    """The current time, timezone-aware UTC."""
    return datetime.now(timezone.utc)


def slug(text: str) -> str:
    """``text`` reduced to characters safe in a run id (lowercase letters, digits, ``._-``)."""
    cleaned = re.sub(r"[^a-z0-9._-]+", "-", text.strip().lower()).strip("-.")
    return cleaned or "run"


def canonical_json(value: Any) -> str:
    """Compact JSON with sorted keys: equal values give equal text (and equal hashes)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


class RunConfig(BaseModel):
    """Everything that defines a benchmark run; its identity fields determine the run id."""

    model_config = ConfigDict(extra="forbid")

    benchmark: str
    """Benchmark name, e.g. ``timechara``; the first part of the run id."""
    name: str | None = None
    """Optional user-chosen label; prefixes the run id (``myexp-timechara-1a2b3c4d5e``)."""
    task: str = ""
    """Free-text description of the task (split, subset, variant)."""
    dataset: dict[str, Any] = Field(default_factory=dict)
    """Where the items come from (path, content hash, item count, filters)."""
    models: dict[str, str] = Field(default_factory=dict)
    """Role → model spec (``agent``, ``judge``, ...)."""
    methods: list[str] = Field(default_factory=list)
    """Role-play methods evaluated (``zero-shot``, ``rag-cutoff``, ...)."""
    seeds: list[int] = Field(default_factory=list)
    """Random seeds the run uses."""
    params: dict[str, Any] = Field(default_factory=dict)
    """Any other setting that changes results (free-form JSON)."""
    package_version: str = __version__
    """The incanon version that created the run."""
    templates: dict[str, str] = Field(default_factory=dict)
    """Prompt template name → source fingerprint, for every template rendered."""
    created: datetime = Field(default_factory=utcnow)
    """When this configuration was made (not part of the identity)."""
    stripped: list[str] = Field(default_factory=list)
    """Paths of entries removed because they looked like credentials (values never kept)."""
    source: dict[str, Any] | None = None
    """The resolved run-configuration section that started the run (``incanon run``); not part
    of the identity, so a file and the equivalent command line give the same run."""

    @model_validator(mode="before")
    @classmethod
    def _drop_secrets(cls, data: Any) -> Any:
        # Done before validation so a credential never lives in the model, even briefly.
        if not isinstance(data, Mapping):
            return data
        data = dict(data)
        removed: list[str] = list(data.get("stripped") or [])
        for field in ("dataset", "models", "params", "source"):
            if isinstance(data.get(field), Mapping):
                data[field], gone = strip_secrets(dict(data[field]), field)
                removed.extend(gone)
        for field in ("task", "name"):
            if isinstance(data.get(field), str):
                masked = redact(data[field])
                if masked != data[field]:
                    removed.append(field)
                    data[field] = masked
        data["stripped"] = sorted(set(removed))
        return data

    def identity(self) -> dict[str, Any]:
        """The fields that make two runs the same run, as plain JSON values."""
        return self.model_dump(mode="json", exclude=set(_NOT_IDENTITY))

    def identity_hash(self, length: int = 10) -> str:
        """Short sha256 of :meth:`identity` in canonical JSON."""
        digest = hashlib.sha256(canonical_json(self.identity()).encode("utf-8")).hexdigest()
        return digest[:length]

    @property
    def run_id(self) -> str:
        """Deterministic id: ``[name-]benchmark-hash``; the same config always gives the same id."""
        parts = [slug(self.name)] if self.name else []
        parts += [slug(self.benchmark), self.identity_hash()]
        return "-".join(parts)

    def fresh_run_id(self) -> str:
        """A new id for the same config (``fresh=True``): the usual id plus time and a nonce."""
        stamp = self.created.astimezone(timezone.utc).strftime("%Y%m%dT%H%M%S")
        return f"{self.run_id}-{stamp}-{_random.token_hex(2)}"

    def with_templates(self, used: Mapping[str, str]) -> "RunConfig":
        """A copy with the fingerprints in ``used`` added to :attr:`templates`."""
        return self.model_copy(update={"templates": {**self.templates, **dict(used)}})

    def to_json(self) -> str:
        """The config as stored: canonical JSON."""
        return canonical_json(self.model_dump(mode="json"))


def resume_notes(stored: RunConfig, current: RunConfig) -> list[str]:
    """Differences worth telling a user who resumes a run made by ``stored``."""
    notes: list[str] = []
    if stored.package_version != current.package_version:
        notes.append(
            f"run was started with incanon {stored.package_version}, resuming with "
            f"{current.package_version}"
        )
    changed = sorted(
        name
        for name, digest in current.templates.items()
        if name in stored.templates and stored.templates[name] != digest
    )
    if changed:
        notes.append(f"prompt templates changed since the run started: {', '.join(changed)}")
    return notes
