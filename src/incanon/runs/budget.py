"""A run's spending limit (``--max-cost``): stop starting samples once it is reached.

The limit is on the run, over all its sessions: a run stopped at $5 and resumed with
``--max-cost 8`` spends about $3 more. Samples already in flight when the limit is reached
finish and are recorded, so a run overshoots by at most what its in-flight samples cost.
"""

from __future__ import annotations

from dataclasses import dataclass

from incanon.errors import ConfigError


@dataclass
class Budget:
    """``max_cost`` USD for a run that has already spent ``spent``."""

    max_cost: float
    spent: float = 0.0

    def __post_init__(self) -> None:
        if self.max_cost < 0:
            raise ConfigError(f"--max-cost must be zero or more, got {self.max_cost}")

    def add(self, cost: float) -> None:
        """Count ``cost`` USD spent."""
        self.spent += cost

    @property
    def exhausted(self) -> bool:
        """True once the spending reached the limit: no new sample may start.

        Nothing spent is never exhausted, so ``--max-cost 0`` still runs free (local) models.
        """
        return self.spent > 0 and self.spent >= self.max_cost

    def describe(self) -> str:
        """``$spent of $max`` for messages."""
        return f"${self.spent:,.4f} of ${self.max_cost:,.4f}"
