"""Character style transfer: a question said in the asking character's own voice (LLM, cached).

The rewritten question must keep every name, date and number of the original; a rewrite that
drops one (small models do) is not used, and the question is asked in its plain wording, with
the reason recorded. Results are cached in a JSON file keyed by model, template, asker and
question, so a repeated simulation restyles nothing.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path

from incanon.models.types import ChatModel, GenerationParams, Message
from incanon.templates import PromptLibrary, default_library, fingerprint

_QUESTION_WORDS = {"Who", "What", "Where", "When", "How", "Which", "Why", "Is", "Was", "Did", "Does", "By", "The", "That", "In", "On"}


def must_keep(question: str) -> set[str]:
    """Names, dates and numbers a rewrite must keep (capitalized words, digits)."""
    words = set(re.findall(r"\b[A-Z][a-z]+\b|\b\d+\b", question))
    return words - _QUESTION_WORDS


@dataclass(frozen=True)
class Styled:
    text: str
    styled: bool
    """False when the plain question is used."""
    note: str = ""


class StyleTransfer:
    """Rewrites questions in a character's voice with ``model``; cached in ``cache_path``."""

    def __init__(self, model: ChatModel, *, cache_path: str | Path | None = None, prompts: PromptLibrary | None = None) -> None:
        self.model = model
        self.prompts = prompts or default_library()
        self.cache_path = Path(cache_path).expanduser() if cache_path else None
        self._cache: dict[str, str] = {}
        if self.cache_path is not None and self.cache_path.is_file():
            try:
                self._cache = json.loads(self.cache_path.read_text(encoding="utf-8"))
            except ValueError:
                self._cache = {}
        self.calls = 0

    def _key(self, prompt: str) -> str:
        text = f"{self.model.name}\n{fingerprint(self.prompts.source('dialsim_style')[0])}\n{prompt}"
        return hashlib.sha256(text.encode()).hexdigest()[:24]

    async def restyle(self, question: str, asker: str, personality: str = "") -> Styled:
        prompt = self.prompts.render("dialsim_style", asker=asker, personality=personality, question=question)
        key = self._key(prompt)
        if key not in self._cache:
            self.calls += 1
            completion = await self.model.generate([Message(role="user", content=prompt)], GenerationParams(max_tokens=120))
            self._cache[key] = completion.text.strip().strip('"').strip()
            if self.cache_path is not None:
                self.cache_path.parent.mkdir(parents=True, exist_ok=True)
                tmp = self.cache_path.with_suffix(".tmp")
                tmp.write_text(json.dumps(self._cache, ensure_ascii=False, indent=0), encoding="utf-8")
                tmp.replace(self.cache_path)
        return check(question, self._cache[key])


def check(question: str, rewrite: str) -> Styled:
    """The rewrite if it keeps the question's names, dates and numbers, else the question."""
    rewrite = " ".join(rewrite.split())
    if not rewrite:
        return Styled(question, False, "empty rewrite")
    if len(rewrite) > 3 * len(question) + 80:
        return Styled(question, False, "rewrite too long")
    missing = sorted(w for w in must_keep(question) if not re.search(rf"\b{re.escape(w)}\b", rewrite))
    if missing:
        return Styled(question, False, "rewrite dropped " + ", ".join(missing))
    return Styled(rewrite, True)
