"""The shared run options (``--shard``, ``--max-cost``, ``--prices``, ``--executor``) for DialSim.

DialSim does not go through ``run_items``: a repetition replays the whole dialogue in order with
the agent's memory carried from session to session, so its sessions can be neither split
between machines nor run apart. The options therefore act on repetitions (``--runs N``):

- ``--shard i/n``: repetition ``e`` (0-based) belongs to shard ``(e mod n) + 1``, so shards are
  as even as the repetitions allow, the same on every machine, and adding repetitions never
  moves the others. The shard goes into the run config (a run of its own, as everywhere), and
  ``incanon runs merge`` joins the shards' sessions under the unsharded run's id.
- ``--max-cost``: checked after each session; once the run has spent the budget the simulation
  stops and the run is ``stopped-budget``. Sessions already done stay stored, but a repetition
  cut short is simulated again from its start on resume (memory cannot be restored halfway).
- ``--prices``: each session's tokens are priced per model.
- ``--executor ray``: each repetition runs whole on one Ray worker, which rebuilds the models,
  script and questions from spec strings and paths; the driver stores every session.
"""

from __future__ import annotations

from dataclasses import dataclass

from incanon.errors import ConfigError
from incanon.runs.ambient import current_defaults
from incanon.runs.budget import Budget
from incanon.runs.config import RunConfig
from incanon.runs.executor import Executor, LocalExecutor
from incanon.runs.prices import Prices
from incanon.runs.shard import Shard


class BudgetReached(Exception):
    """Raised from a session callback to stop a simulation once the budget is spent."""


@dataclass(frozen=True)
class Scale:
    """The run options in force for one setting."""

    shard: Shard | None = None
    max_cost: float | None = None
    prices: Prices | None = None
    executor: Executor | None = None

    @classmethod
    def current(cls) -> "Scale":
        """The options :func:`incanon.runs.run_defaults` set (``--shard`` etc. of the command)."""
        d = current_defaults()
        prices = d.prices if d.prices is not None else (Prices.builtin() if d.max_cost is not None else None)
        return cls(shard=d.shard, max_cost=d.max_cost, prices=prices, executor=d.executor)

    @property
    def remote(self) -> bool:
        """True when repetitions run on another executor's workers."""
        return self.executor is not None and not isinstance(self.executor, LocalExecutor)

    def epochs(self, runs: int) -> list[int]:
        """The repetitions (0-based) of this shard; an error when the shard gets none."""
        if self.shard is None or self.shard.count == 1:
            return list(range(runs))
        mine = [e for e in range(runs) if e % self.shard.count == self.shard.index - 1]
        if not mine:
            raise ConfigError(f"--shard {self.shard}: DialSim shards repetitions and --repetitions {runs} gives shard "
                              f"{self.shard.index} none; use at most {runs} shards (or more --runs)")
        return mine

    def config(self, config: RunConfig) -> RunConfig:
        """``config`` naming this shard's run."""
        return self.shard.config(config) if self.shard is not None and self.shard.count > 1 else config

    def budget(self, spent: float) -> Budget | None:
        """The run's budget, given what it spent in earlier sessions."""
        return Budget(self.max_cost, spent=spent) if self.max_cost is not None else None
