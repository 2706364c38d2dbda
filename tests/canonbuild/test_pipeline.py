"""The canon stages through the library API: a build killed halfway resumes from the response
cache, and what each stage may read (profiles see only the character's own scenes so far)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

import pytest

from incanon.canonbuild import BuildOptions, build_canon
from incanon.ingest.reader import read_book
from incanon.models import ScriptedModel, load_chat_model
from incanon.models.types import Completion, GenerationParams, Message
from incanon.templates import default_library

ROOT = Path(__file__).resolve().parents[2]
BOOK = ROOT / "examples" / "book" / "saltmere.txt"
RULES = ROOT / "examples" / "book" / "helper.json"


class Crash(BaseException):
    """A kill: not an error any step would catch and record."""


class CrashingModel:
    """The scripted helper, killed at its ``after``-th call."""

    def __init__(self, after: int):
        self.inner = ScriptedModel.from_file(RULES)
        self.after = after
        self.calls = 0

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def identity(self) -> str:
        return self.inner.identity

    async def generate(self, messages: Sequence[Message], params: GenerationParams | None = None) -> Completion:
        self.calls += 1
        if self.calls == self.after:
            raise Crash()
        return await self.inner.generate(messages, params)


def _options() -> BuildOptions:
    return BuildOptions(work_id="saltmere", graph=False, embedder=None, concurrency=1)


def test_a_build_killed_halfway_resumes_from_the_cache(tmp_path: Path) -> None:
    book = read_book([BOOK])
    cache = tmp_path / "cache.sqlite"
    crashing = CrashingModel(after=15)
    with pytest.raises(Crash):
        asyncio.run(build_canon(book, load_chat_model(crashing, cache=cache, retry=None), default_library(), _options()))
    assert crashing.calls == 15
    resumed = load_chat_model(CrashingModel(after=10_000), cache=cache, retry=None)
    built = asyncio.run(build_canon(book, resumed, default_library(), _options()))
    # The 14 answers given before the kill come from the cache; only the rest are asked again.
    assert resumed.usage.cached_calls == 14
    assert resumed.usage.calls == 30 - 14  # 7 of them mark the scenes for perception
    assert [m.name for m in built.main] == ["Mara Quill", "Tobias Venn", "Idris Hale"]


def test_profile_prompts_hold_only_the_characters_own_scenes_so_far() -> None:
    model = ScriptedModel.from_file(RULES)
    asyncio.run(build_canon(read_book([BOOK]), model, default_library(), _options()))
    profiles = [c.messages[0].content for c in model.calls if "character sheet of" in c.messages[0].content]
    mara_early = next(p for p in profiles if "sheet of Mara Quill" in p and "after finding the letter" in p.split("\n")[0])
    # Mara was not at the tavern (1-2-2) and the storm (2-1) is later: neither reaches her sheet.
    for later_or_missed in ("purse of silver", "cargo is worth", "storm came", "Harbour Keeper", "[1-2-2"):
        assert later_or_missed not in mara_early
    assert "[1-2-1" in mara_early and "green wax" in mara_early
    tobias_end_1 = next(p for p in profiles if "sheet of Tobias Venn" in p and "end of book 1" in p.split("\n")[0])
    assert "cargo is worth" in tobias_end_1 and "green wax" not in tobias_end_1  # he missed the tower


def test_names_without_a_letter_or_naming_nobody_are_no_characters() -> None:
    from incanon.bench.timechara.scenes import ExtractedScene
    from incanon.canonbuild.cast import build_cast, scene_names

    scene = ExtractedScene(1, 1, 0, 10, "Ann met Bo.", "", ["...", "Ann"], participants=["Ann", "Everyone", "Bo", "—"])
    counts = scene_names([scene])
    assert set(counts) == {"Ann", "Bo"}
    assert [m.name for m in build_cast(counts, [], [scene], "helper failed").members] == ["Ann", "Bo"]
