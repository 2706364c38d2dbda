"""An answer its caller could not use is dropped from the response cache; usable ones stay."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from pydantic import BaseModel

from incanon.llmout.structured import HelperOutputError, ask_structured
from incanon.models import ScriptedModel
from incanon.models.accounting import AccountingModel
from incanon.models.cache import ResponseCache
from incanon.models.caching import CachingModel
from incanon.models.forget import forget_answers
from incanon.models.types import Message
from incanon.templates import default_library


class Names(BaseModel):
    participants: list[str]


def _ask(model: object) -> Names:
    return asyncio.run(ask_structured(model, default_library(), "timechara_scene_participants", Names,  # type: ignore[arg-type]
                                      work_title="W", position="1-1-1", speakers=[], known_characters=[],
                                      scene_text="Mara spoke."))


def test_an_unreadable_answer_is_asked_again_and_a_readable_one_is_kept(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "cache.sqlite")
    for attempt in range(2):
        inner = ScriptedModel(default="I cannot tell.")
        with pytest.raises(HelperOutputError):
            _ask(AccountingModel(CachingModel(inner, cache)))
        assert len(inner.calls) == 2, f"attempt {attempt + 1}: served from the cache"  # the call and its repair
    good = ScriptedModel(default='{"participants": ["Mara"]}')
    assert _ask(AccountingModel(CachingModel(good, cache))).participants == ["Mara"]
    again = ScriptedModel(default='{"participants": ["Mara"]}')
    assert _ask(AccountingModel(CachingModel(again, cache))).participants == ["Mara"] and not again.calls


def test_forgetting_without_a_cache_or_a_cached_answer_does_nothing(tmp_path: Path) -> None:
    model = ScriptedModel(default="x")
    answer = asyncio.run(model.generate([Message(role="user", content="q")]))
    assert forget_answers(model, answer) == 0
    cached = CachingModel(ScriptedModel(default="x"), ResponseCache(tmp_path / "c.sqlite"))
    stored = asyncio.run(cached.generate([Message(role="user", content="q")]))
    assert forget_answers(AccountingModel(cached), stored, None) == 1
    assert forget_answers(cached, stored) == 0  # already gone
