"""Where DialSim keeps its side files in a canon store directory: ``<store>/dialsim/<work>/``."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class DialsimFiles:
    """The TKG, its extraction cache, the fan quiz, published questions and the style cache of a work."""

    root: Path

    @classmethod
    def of(cls, store_path: str | Path, work: str) -> "DialsimFiles":
        return cls(Path(store_path).expanduser() / "dialsim" / work)

    @property
    def tkg(self) -> Path:
        return self.root / "tkg.json"

    @property
    def tkg_cache(self) -> Path:
        return self.root / "tkg_cache.json"

    @property
    def fan_quiz(self) -> Path:
        return self.root / "fan_quiz.json"

    @property
    def published(self) -> Path:
        return self.root / "published_questions.jsonl"

    @property
    def style_cache(self) -> Path:
        return self.root / "style_cache.json"
