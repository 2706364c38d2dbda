"""Who plays whom: the interaction graph of a work, its main character and the partner roles.

SHARP evaluates a script's main character, "since they possess the highest degree centrality in
the social network", against the roles that "interact with the main character frequently". The
social network here is built from the canon store's scenes and dialogue sessions: two characters
interact once for every scene (or session) in which both speak (``unit="scenes"``), or once for
every pair of consecutive utterances they exchange (``unit="turns"``).

Degree centrality is the number of distinct characters someone interacts with, over n - 1
(Zhang and Luo, 2017); ties go to the larger interaction total, then to the name.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from itertools import combinations
from typing import Literal

from incanon.canon.position import Position
from incanon.canon.store import CanonStore
from incanon.errors import ConfigError, NotFoundError

Unit = Literal["scenes", "turns"]


@dataclass
class InteractionGraph:
    """Undirected weighted graph: ``weights[a][b]`` interactions between characters a and b."""

    nodes: set[str] = field(default_factory=set)
    weights: dict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    unit: Unit = "scenes"

    def add(self, a: str, b: str, count: int = 1) -> None:
        """Record ``count`` interactions between ``a`` and ``b`` (self-loops are ignored)."""
        self.nodes.update((a, b))
        if a != b:
            self.weights[a][b] += count
            self.weights[b][a] += count

    def interactions(self, a: str, b: str) -> int:
        """How often ``a`` and ``b`` interacted."""
        return self.weights.get(a, Counter()).get(b, 0)

    def degree(self, name: str) -> int:
        """Distinct characters ``name`` interacted with."""
        return sum(1 for count in self.weights.get(name, Counter()).values() if count > 0)

    def strength(self, name: str) -> int:
        """Total interactions of ``name`` (weighted degree)."""
        return sum(self.weights.get(name, Counter()).values())

    def degree_centrality(self) -> dict[str, float]:
        """degree / (n - 1) for every node (0 for a graph of one node)."""
        n = len(self.nodes)
        return {v: (self.degree(v) / (n - 1) if n > 1 else 0.0) for v in sorted(self.nodes)}

    def ranking(self) -> list[str]:
        """Nodes by degree centrality, then interaction total, then name."""
        return sorted(self.nodes, key=lambda v: (-self.degree(v), -self.strength(v), v))

    def partners(self, name: str) -> list[tuple[str, int]]:
        """Everyone ``name`` interacted with and how often, most frequent first (then by name)."""
        return sorted(((b, c) for b, c in self.weights.get(name, Counter()).items() if c > 0),
                      key=lambda bc: (-bc[1], bc[0]))


def interaction_graph(
    store: CanonStore,
    work: str,
    *,
    until: Position | None = None,
    unit: Unit = "scenes",
    characters_only: bool = True,
) -> InteractionGraph:
    """The interaction graph of ``work`` from its scenes and sessions at or before ``until``
    (None: the whole work). Speakers are the scene's speaking characters; with
    ``characters_only`` names that are not characters of the work (an unnamed crowd) are left out.
    """
    if unit not in ("scenes", "turns"):
        raise ConfigError(f"unknown interaction unit {unit!r} (expected scenes or turns)")
    known = {c.name for c in store.characters(work)}
    graph = InteractionGraph(unit=unit)
    graph.nodes.update(known)
    for scene in store.scenes(work):
        if until is not None and scene.position > until:
            continue
        keep = (lambda n: n in known) if characters_only else (lambda n: bool(n))
        if unit == "scenes":
            speakers = sorted({s for s in scene.speakers if keep(s)})
            for a, b in combinations(speakers, 2):
                graph.add(a, b)
        else:
            previous: str | None = None
            for message in store.messages(work, scene.id):
                speaker = message.speaker
                if not keep(speaker):
                    previous = None
                    continue
                if previous is not None and previous != speaker:
                    graph.add(previous, speaker)
                previous = speaker
    return graph


def main_character(graph: InteractionGraph) -> str:
    """The character with the highest degree centrality (ties: most interactions, then name)."""
    ranking = [v for v in graph.ranking() if graph.degree(v) > 0]
    if not ranking:
        raise NotFoundError("no two characters of the work speak in the same scene: no interaction graph to "
                            "choose a main character from (name one with --character)")
    return ranking[0]
