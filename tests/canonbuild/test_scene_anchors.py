"""Scenes placed by their openings and closings in Chinese (characters, no spaces) and in Dutch
(words), whatever the helper did to whitespace, width and quote marks; the split prompt asks for
characters or words as the chapter's script needs; a split whose scenes are all unplaceable is
not kept in the response cache."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Sequence
from pathlib import Path

from incanon.canonbuild.scene_extract import locate_bounds
from incanon.canonbuild.scenes import find_scenes
from incanon.ingest.reader import BookText, ReadChapter
from incanon.models import ScriptedModel
from incanon.models.cache import ResponseCache
from incanon.models.caching import CachingModel
from incanon.models.types import Message
from incanon.templates import default_library

ZH_SCENES = [
    "却说宝玉因见黛玉又病了，心里放不下，饭也懒去吃，不时来问。黛玉只怕他有个好歹，只得一面劝他，一面自己也伤感起来。",
    "次日一早，凤姐便打发人来请宝玉过去。宝玉到了那边，只见凤姐正坐在炕上，手里拿着一张单子，笑道：「你来得正好，这里有件事要托你。」",
    "到了晚间，袭人伺候宝玉睡下，自己坐在灯下做针线。窗外风声渐紧，雨点打在窗纸上，她不觉叹了一口气，心中想着明日的事。",
]
NL_SCENES = [
    "Het was een koude morgen toen het schip van Tromp de haven van Hellevoetsluis verliet, en de matrozen zongen.",
    "Twee dagen later zag de uitkijk in het want de Engelse vloot aan de einder, en de kapitein riep iedereen aan dek.",
    "In de avond, toen het gevecht voorbij was, schreef Tromp een brief aan zijn vrouw over alles wat er gebeurd was.",
]


def _messy(quote: str) -> str:
    """What a helper does to a quote: half-width punctuation, other quote marks, spaces."""
    table = str.maketrans({"，": ",", "。": ".", "：": ":", "「": "“", "」": "”"})
    return " ".join(quote.translate(table))


def _zh_split(messages: Sequence[Message]) -> str:
    text = re.search(r"Chapter text:\n(.*?)\n\nAnswer with JSON only", messages[-1].content, re.S).group(1)
    scenes = [{"start": _messy(p[:18]), "end": _messy(p[-16:]), "summary": "s", "speakers": ["宝玉"]}
              for p in text.split("\n\n") if p.strip()]
    return json.dumps({"scenes": scenes}, ensure_ascii=False)


def _nl_split(messages: Sequence[Message]) -> str:
    text = re.search(r"Chapter text:\n(.*?)\n\nAnswer with JSON only", messages[-1].content, re.S).group(1)
    scenes = [{"start": " ".join(p.split()[:8]), "end": " ".join(p.split()[-8:]).upper(), "summary": "s",
               "speakers": ["Tromp"]} for p in text.split("\n\n") if p.strip()]
    return json.dumps({"scenes": scenes})


def _book(title: str, paragraphs: list[str]) -> BookText:
    return BookText(title=title, chapters=[ReadChapter(1, 1, "一", "\n\n".join(paragraphs), 1)])


def test_a_chinese_chapter_is_split_by_quoted_openings_and_closings() -> None:
    model = ScriptedModel([(r"Chapter text:", _zh_split)], default=json.dumps({"participants": ["宝玉"]}))
    step = asyncio.run(find_scenes(_book("紅樓夢", ZH_SCENES), model, default_library()))
    assert [s.text for s in step.scenes] == ZH_SCENES and not step.problems and not step.whole_chapters
    prompt = next(c for c in model.calls if "Chapter text:" in c.messages[-1].content).messages[-1].content
    assert "the first 15 to 20 characters" in prompt and "eight words" not in prompt


def test_a_dutch_chapter_is_still_split_by_words() -> None:
    model = ScriptedModel([(r"Chapter text:", _nl_split)], default=json.dumps({"participants": ["Tromp"]}))
    step = asyncio.run(find_scenes(_book("Goede Vaêr Tromp", NL_SCENES), model, default_library()))
    assert [s.text for s in step.scenes] == NL_SCENES and not step.problems
    prompt = next(c for c in model.calls if "Chapter text:" in c.messages[-1].content).messages[-1].content
    assert "the first eight words" in prompt and "characters of the scene" not in prompt


def test_anchors_ignore_width_quotes_and_spaces_but_not_the_characters() -> None:
    text = "\n\n".join(ZH_SCENES)
    span = locate_bounds(text, "次日一早, 凤姐便打发人来请宝玉过去.", "“你来得正好,这里有件事要托你.”")
    assert span is not None and text[span[0]:span[1]] == ZH_SCENES[1]
    assert locate_bounds(text, "次日一晚，凤姐便打发人来请宝玉过去。", "有件事要托你。") is None  # another character
    full = "ＴＲＯＭＰ　ｓａｉｌｅｄ ａｔ ｄａｗｎ ｗｉｔｈ ｔｈｅ ｆｌｅｅｔ"  # full-width Latin letters
    assert locate_bounds("Tromp sailed at dawn with the fleet.", full, full) == (0, 36)


def test_a_split_that_places_no_scene_is_not_kept_in_the_cache(tmp_path: Path) -> None:
    """Readable JSON whose quotes are not in the chapter is as unusable as bad JSON: a rerun asks
    again (the participant answers, usable, are kept)."""
    invented = json.dumps({"scenes": [{"start": "从前有座山，山里有座庙，庙里有个老和尚", "end": "老和尚讲故事", "summary": "s"}]},
                          ensure_ascii=False)
    cache = ResponseCache(tmp_path / "cache.sqlite")
    for attempt in range(2):
        inner = ScriptedModel([(r"Chapter text:", invented)], default=json.dumps({"participants": []}))
        step = asyncio.run(find_scenes(_book("紅樓夢", ZH_SCENES), CachingModel(inner, cache), default_library()))
        assert step.whole_chapters == ["1-1"]
        asked = [c for c in inner.calls if "Chapter text:" in c.messages[-1].content]
        assert len(asked) == 1, f"attempt {attempt + 1}: the split was served from the cache"
