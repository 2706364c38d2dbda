"""Deterministic shards: ``--shard i/n`` runs the items whose id hashes to shard ``i`` of ``n``.

An item's shard depends only on its id (sha256, not Python's salted ``hash``, not its position),
so every machine computes the same partition from any ordering of the same items, every item
is in exactly one shard, and adding items never moves the others. The shard is recorded in the
run's ``params`` (so it is part of the run id): shards of one run never collide in a store, and
``incanon runs merge`` puts them back together under the unsharded run's id.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import Any

from incanon.errors import ConfigError
from incanon.runs.config import RunConfig

SHARD_PARAM = "shard"
"""Key of the shard in ``RunConfig.params`` (``"2/4"``)."""

_SPEC = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")


def shard_index(item_id: str, count: int) -> int:
    """The 0-based shard of ``item_id`` among ``count`` shards."""
    digest = hashlib.sha256(item_id.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") % count


@dataclass(frozen=True)
class Shard:
    """Shard ``index`` (1-based) of ``count``."""

    index: int
    count: int

    def __post_init__(self) -> None:
        if self.count < 1:
            raise ConfigError(f"a shard count must be at least 1, got {self.count}")
        if not 1 <= self.index <= self.count:
            raise ConfigError(f"shard {self.index}/{self.count}: the index must be 1 to {self.count} "
                              "(shards are numbered from 1)")

    @classmethod
    def parse(cls, spec: "str | Shard") -> "Shard":
        """``"i/n"`` (1-based, e.g. ``1/4`` … ``4/4``) as a :class:`Shard`."""
        if isinstance(spec, Shard):
            return spec
        match = _SPEC.match(str(spec))
        if not match:
            raise ConfigError(f"--shard must look like i/n (e.g. 1/4), not {spec!r}")
        return cls(int(match[1]), int(match[2]))

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def contains(self, item_id: str) -> bool:
        """True when ``item_id`` belongs to this shard."""
        return self.count == 1 or shard_index(item_id, self.count) == self.index - 1

    def config(self, config: RunConfig) -> RunConfig:
        """``config`` naming this shard's run (the shard goes into ``params``, hence the id)."""
        params = dict(config.params)
        existing = params.get(SHARD_PARAM)
        if existing is not None and existing != str(self):
            raise ConfigError(f"the run config already names shard {existing}, not {self}")
        params[SHARD_PARAM] = str(self)
        return config.model_copy(update={"params": params})


def shard_of_config(config: RunConfig) -> Shard | None:
    """The shard a run config names, if any."""
    value: Any = config.params.get(SHARD_PARAM)
    return Shard.parse(value) if value is not None else None


def unsharded(config: RunConfig) -> RunConfig:
    """``config`` without its shard: the config (and id) of the whole run."""
    if SHARD_PARAM not in config.params:
        return config
    params = {k: v for k, v in config.params.items() if k != SHARD_PARAM}
    return config.model_copy(update={"params": params})
