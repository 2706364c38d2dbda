"""Resuming a DialSim repetition from its last saved session, not from its first.

A simulation is sequential: what the agent remembers at session *k* is everything it stored
before (utterances, whole sessions, summaries its model wrote, minus updates dropped for being
late). So each stored session sample also keeps the memory that session added (its units, and
the text each was indexed under); a repetition interrupted after session *k* (Ctrl-C, ``kill -9``,
a crash) is resumed by putting those units back, in order, and simulating from session *k + 1*.
The questions are the same (the plan depends on the seed alone), and no model is asked again for
what is already stored. Samples written before this existed carry no memory: their repetition
starts again from its first session, as it always did.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from incanon.bench.dialsim.agents.memory import MemoryAgent, Unit
from incanon.runs import SampleRecord

MEMORY_KEY = "memory"
"""Key of a session sample's ``extra`` holding the memory units the session added."""


class MemoryJournal:
    """Watches an agent's memory so each finished session's new units can be stored with it."""

    def __init__(self, agent: MemoryAgent) -> None:
        self.agent = agent
        self.saved = 0
        self._indexed: dict[int, str] = {}
        store = getattr(agent, "_store", None)
        if callable(store):
            # Retrieval strategies index a unit under a text of its own (an utterance without its
            # date stamp): remember it, so a restored index ranks exactly as the original did.
            def recording(unit: Unit, indexed_text: str | None = None) -> Any:
                self._indexed[unit.order] = indexed_text or unit.text
                return store(unit, indexed_text)

            agent._store = recording  # type: ignore[attr-defined]

    def take(self) -> list[dict[str, Any]]:
        """The units stored since the last call (or since :func:`restore`), as JSON data."""
        units = self.agent.units[self.saved:]
        self.saved = len(self.agent.units)
        return [{"order": u.order, "session": u.session, "date": u.date, "text": u.text,
                 "indexed": self._indexed.get(u.order, u.text)} for u in units]

    def restore(self, chunks: Iterable[list[dict[str, Any]]]) -> None:
        """Put back the units of the stored sessions, in order (the agent was just reset)."""
        store = getattr(self.agent, "_store", None)
        for chunk in chunks:
            for raw in chunk:
                unit = Unit(int(raw["order"]), str(raw["session"]), str(raw["date"]), str(raw["text"]))
                if callable(store):
                    store(unit, raw.get("indexed"))
                else:
                    self.agent.units.append(unit)
        self.saved = len(self.agent.units)


@dataclass
class ResumePoint:
    """Where a repetition picks up: the index of its first session to simulate, and the memory
    the sessions before it added."""

    start: int = 0
    memory: list[list[dict[str, Any]]] = field(default_factory=list)


def resume_point(samples: Iterable[SampleRecord], sessions: list[str], epoch: int) -> ResumePoint:
    """The longest run of the repetition's first sessions stored ``ok`` with their memory."""
    stored = {s.item_id: s for s in samples if s.epoch == epoch}
    point = ResumePoint()
    for session in sessions[:-1]:  # a repetition whose every session is stored is not resumed
        sample = stored.get(session)
        memory = (sample.extra or {}).get(MEMORY_KEY) if sample is not None else None
        if sample is None or sample.status != "ok" or not isinstance(memory, list):
            break
        point.memory.append(memory)
        point.start += 1
    return point
