"""DialSim's memory strategies as role-play methods (imported by the agent registry)."""

from incanon.bench.dialsim.agents.memory import DEFAULT_CONTEXT_TOKENS, MemoryAgent, Unit, estimate_tokens
from incanon.bench.dialsim.agents.strategies import (
    STRATEGIES,
    TOP_K,
    OracleAgent,
    RecentContextAgent,
    RetrievalAgent,
)

__all__ = [
    "DEFAULT_CONTEXT_TOKENS",
    "STRATEGIES",
    "TOP_K",
    "MemoryAgent",
    "OracleAgent",
    "RecentContextAgent",
    "RetrievalAgent",
    "Unit",
    "estimate_tokens",
]
