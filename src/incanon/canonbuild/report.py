"""The closing report of ``canon build``: what each stage made, what failed, what to check."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from incanon.canon.world import World
    from incanon.canonbuild.cast import Cast, CastMember
    from incanon.canonbuild.profiles import SheetResult
    from incanon.canonbuild.scenes import SceneStep
    from incanon.canonbuild.timepoints import PointsResult
    from incanon.ingest.reader import BookText


@dataclass
class StepCount:
    made: int = 0
    failed: int = 0
    seconds: float = 0.0


@dataclass
class BuildReport:
    """Counts and problems of one build (``--json`` prints it whole)."""

    work: str
    title: str = ""
    author: str = ""
    sources: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    books: int = 0
    chapters: int = 0
    words: int = 0
    scenes: int = 0
    chapters_kept_whole: list[str] = field(default_factory=list)
    chapters_split: int = 0
    """Chapters the scene splitter was asked to split (those without the author's scene marks)."""
    scenes_without_participants: list[str] = field(default_factory=list)
    """Scenes whose participant list the helper's answer did not give: witnessed by nobody."""
    scenes_unsure: list[str] = field(default_factory=list)
    """Scenes whose participants include a name the helper did not place among the characters."""
    characters: int = 0
    main_characters: list[str] = field(default_factory=list)
    aliases: int = 0
    dated_aliases: dict[str, dict[str, str]] = field(default_factory=dict)
    names_unsure: list[str] = field(default_factory=list)
    time_points: dict[str, list[str]] = field(default_factory=dict)
    profiles: int = 0
    profile_scenes_cut: int = 0
    """Scenes whose text a profile call read cut short or as its summary only (--profile-tokens)."""
    chunks: int = 0
    store: str = ""
    stored: str = ""
    """``created``, ``replaced`` or ``unchanged``."""
    graph: dict[str, Any] = field(default_factory=dict)
    vectors: dict[str, Any] = field(default_factory=dict)
    steps: dict[str, StepCount] = field(default_factory=dict)
    failed_steps: list[dict[str, str]] = field(default_factory=list)
    helper: dict[str, Any] = field(default_factory=dict)
    """Calls made, calls answered from the cache, tokens, cost."""
    seconds: float = 0.0

    def add_step(self, name: str, count: StepCount, seconds: float) -> None:
        count.seconds = round(seconds, 3)
        self.steps[name] = count

    def fill_canon(self, book: "BookText", step: "SceneStep", cast: "Cast", main: list["CastMember"],
                   points: dict[str, "PointsResult"], sheets: dict[str, list["SheetResult"]], world: "World") -> None:
        """Counts of the canon stages."""
        self.author, self.sources, self.notes = book.author, list(book.sources), list(book.notes)
        self.books = len({c.book for c in book.chapters})
        self.chapters, self.words = len(book.chapters), book.words
        self.scenes = len(step.scenes)
        self.chapters_kept_whole = list(step.whole_chapters)
        self.chapters_split = len(book.chapters) - step.authored
        self.scenes_without_participants = [s.id for s in step.scenes if s.participants is None]
        unsure = {n.casefold() for n in cast.unsure}
        self.scenes_unsure = [s.id for s in step.scenes
                              if any(p.casefold() in unsure for p in (s.participants or []))]
        self.characters = len(cast.members)
        self.main_characters = [m.name for m in main]
        self.aliases = sum(len(m.aliases) for m in cast.members)
        self.dated_aliases = {m.name: dict(m.alias_from) for m in cast.members if m.alias_from}
        self.names_unsure = list(cast.unsure)
        self.time_points = {name: [p.position for p in r.points] for name, r in points.items()}
        self.profiles = sum(r.sheet is not None for rs in sheets.values() for r in rs)
        self.profile_scenes_cut = sum(r.scenes_cut for rs in sheets.values() for r in rs)
        self.chunks = len(world.chunks)
        for p in step.problems:
            self.failed_steps.append({"step": p.step, "where": p.where, "error": p.error})
        if cast.helper_failed:
            self.failed_steps.append({"step": "characters", "where": "all names", "error": cast.helper_failed})
        for name, r in points.items():
            if r.failed:
                self.failed_steps.append({"step": "time_points", "where": name,
                                          "error": r.failed + " (the character's scenes were cut in equal parts)"})
            if r.rejected:
                self.failed_steps.append({"step": "time_points", "where": name,
                                          "error": f"positions not among the character's scenes: {', '.join(r.rejected)}"})
        for name, rs in sheets.items():
            for r in rs:
                if r.sheet is None:
                    self.failed_steps.append({"step": "profile", "where": f"{name} at {r.point.position}",
                                              "error": r.error})

    def fill_graph(self, graph: dict[str, Any]) -> None:
        """The graph stage's counts, its failed chunks listed as failed steps."""
        failed = graph.pop("failed_chunks", [])
        self.graph = graph
        for issue in failed:
            self.failed_steps.append({"step": "graph", "where": issue["chunk"], "error": issue["note"]})

    def stages_failed(self) -> list[str]:
        """Stages where every helper step failed (each a line): the build then exits non-zero,
        and a rerun asks the helper again for exactly those steps (their answers were not cached)."""
        out: list[str] = []
        steps = [s["step"] for s in self.failed_steps]
        split = self.steps.get("scenes")
        if split is not None and self.chapters_split and len(self.chapters_kept_whole) == self.chapters_split:
            out.append(f"scenes: no chapter could be split ({self.chapters_split} of {self.chapters_split} kept whole)")
        if "characters" in steps:
            out.append("characters: the helper's grouping of names could not be used")
        points = self.steps.get("time points")
        if points is not None and points.failed and points.failed == len(self.time_points):
            out.append(f"time points: {points.failed} of {points.failed} characters' time points could not be chosen")
        profiles = self.steps.get("profiles")
        if profiles is not None and profiles.failed and not profiles.made:
            out.append(f"profiles: 0 of {profiles.failed} written")
        tried, failed = self.graph.get("chunks_tried", 0), self.graph.get("chunks_failed", 0)
        if tried and failed == tried:
            out.append(f"graph: {failed} of {tried} chunks failed")
        return out

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["stages_failed"] = self.stages_failed()
        return data

    def lines(self) -> list[str]:
        """The report as text lines (stdout)."""
        out = [f"{self.title!r} → work {self.work!r} in {self.store} ({self.stored})",
               f"  {self.chapters} chapters in {self.books} book(s), {self.words:,} words; {self.scenes} scenes, "
               f"{self.chunks} chunks",
               f"  {self.characters} characters, {self.aliases} aliases "
               f"({sum(len(v) for v in self.dated_aliases.values())} dated by first use); "
               f"main: {', '.join(self.main_characters)}"]
        for name, positions in self.time_points.items():
            out.append(f"  time points of {name}: {', '.join(positions)}")
        out.append(f"  profiles: {self.profiles}")
        if self.graph:
            out.append(f"  graph: {self.graph.get('nodes', 0)} entities, {self.graph.get('edges', 0)} relations "
                       f"from {self.graph.get('chunks_extracted', 0)} chunks extracted "
                       f"({self.graph.get('chunks_failed', 0)} failed, {self.graph.get('chunks_empty', 0)} empty)")
        if self.vectors:
            out.append(f"  vectors: {self.vectors.get('embedded', 0)} chunks embedded with {self.vectors.get('embedder')}"
                       f" ({self.vectors.get('already', 0)} already); the embedder computed "
                       f"{self.vectors.get('computed', 0)} texts for the whole build, "
                       f"{self.vectors.get('reused', 0)} reused from the cache or an earlier stage")
        h = self.helper
        if h:
            out.append(f"  helper: {h.get('calls', 0)} calls made, {h.get('cached_calls', 0)} from the cache, "
                       f"{h.get('tokens', 0):,} tokens" + (f", ${h['cost']:.4f}" if h.get("cost") else "")
                       + f"; {self.seconds:.1f} s")
        return out

    def warnings(self) -> list[str]:
        """Lines for stderr: what the user should check."""
        out: list[str] = []
        if self.chapters_kept_whole:
            out.append(f"{len(self.chapters_kept_whole)} chapters kept as one scene (the helper's split could not "
                       f"be used): {', '.join(self.chapters_kept_whole[:10])}")
        if self.scenes_without_participants:
            out.append(f"{len(self.scenes_without_participants)} scenes have no participant list and are witnessed "
                       f"by nobody: {', '.join(self.scenes_without_participants[:10])}")
        if self.scenes_unsure:
            out.append(f"{len(self.scenes_unsure)} scenes list a name the helper did not place among the characters "
                       f"(check them): {', '.join(self.scenes_unsure[:10])}")
        if self.profile_scenes_cut:
            out.append(f"{self.profile_scenes_cut} scenes reached a profile call cut short or as their summary only "
                       "(raise --profile-tokens to give it more)")
        if self.failed_steps:
            out.append(f"{len(self.failed_steps)} helper steps failed (listed in --json under failed_steps); their "
                       "answers were not kept in the response cache, so the same command asks for them again")
        return out


__all__ = ["BuildReport", "StepCount"]
