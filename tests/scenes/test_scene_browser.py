"""The Scene tab in a real headless Chromium: a two-character scene at an early point with a
scripted model, under a reader's position; lines by the narrator, by a character and by the
predicted next speaker; whose scope answered; nothing after the reader on the page.

Needs Chromium, as ``tests/serve/test_serve_browser.py`` (skipped without it unless
``INCANON_REQUIRE_BROWSER=1``); one browser at a time (the ``browser`` xdist group).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from incanon.canon import CanonStore
from incanon.serve import BackgroundServer, ServeConfig
from incanon.testing.browser import chromium_browser, held_requests, open_tab, tid
from incanon.testing.worlds import mini_world

from .conftest import scripted

pytestmark = pytest.mark.xdist_group("browser")


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    yield from chromium_browser()


@pytest.fixture()
def config(tmp_path: Path) -> ServeConfig:
    with CanonStore.open(tmp_path / "canon") as store:
        store.import_world(mini_world())
    return ServeConfig(canon=tmp_path / "canon", runs=tmp_path / "runs.sqlite", model="scripted-scene", cache=False,
                       chats=tmp_path / "chats.sqlite")


def _count(tab, name: str) -> int:
    return tab.locator(tid(name)).count()


def _wait_more(tab, name: str, than: int) -> None:
    tab.wait_for_function(f"document.querySelectorAll('[data-testid={name}]').length > {than}")


def test_a_two_character_scene_at_an_early_point(browser, config):
    model = scripted(("Who acts next", "Ottilie Brand"), default="The lamps come first, child.")
    with BackgroundServer(config, model=model) as url, open_tab(browser, url + "#/scene") as tab:
        tab.wait_for_selector(f"{tid('scene-character')}[value='Wren Callow']", state="attached")
        # "I have read up to book 1, chapter 1": only what a reader there has met is sent.
        tab.select_option(f"{tid('scene-reader-box')} {tid('reader')}", "1-1")
        tab.wait_for_function("!document.querySelector(\"[data-testid=scene-character][value='Ilse Varga']\")")
        assert tab.locator(tid("scene-character")).evaluate_all("els => els.map(e => e.value)") == [
            "Wren Callow", "Ottilie Brand", "Dace Morrow", "Jory Callow", "Sefa Quill"]
        tab.check(f"{tid('scene-character')}[value='Wren Callow']")
        tab.check(f"{tid('scene-character')}[value='Ottilie Brand']")
        tab.select_option(tid("scene-setting"), "1-1-1")
        tab.click(tid("scene-start"))
        tab.wait_for_function("document.querySelector('[data-testid=scene-header]').innerText.includes('at 1-1-1')")
        assert "Wren Callow, Ottilie Brand" in tab.inner_text(tid("scene-header"))
        assert "the Lamphouse, Wick Lane" in tab.inner_text(tid("scene-header"))

        # The narrator speaks; the predicted next speaker answers from her own scope.
        tab.fill(tid("scene-say"), "Rain beats on the Lamphouse windows.")
        tab.press(tid("scene-say"), "Enter")
        _wait_more(tab, "scene-line-character", 0)
        answer = tab.locator(tid("scene-line-character")).last
        assert "Ottilie Brand · next-speaker prediction · at 1-1-1" in answer.inner_text()
        assert "The lamps come first, child." in answer.inner_text()
        tab.wait_for_selector(tid("scene-scope-who"))
        assert tab.inner_text(tid("scene-scope-who")).startswith("Ottilie Brand's knowledge scope at 1-1-1")
        assert _count(tab, "scene-evidence-call") >= 1

        # Wren speaks (written by the user), Ottilie answers; then Next lets Wren answer herself.
        before = _count(tab, "scene-line-character")
        tab.select_option(tid("scene-as"), "Wren Callow")
        tab.fill(tid("scene-say"), "Will you teach me the Tower lamp?")
        tab.press(tid("scene-say"), "Enter")
        _wait_more(tab, "scene-line-character", before + 1)
        texts = tab.locator(tid("scene-line-character")).all_inner_texts()
        assert "Wren Callow (written by you)" in texts[-2] and "Will you teach me the Tower lamp?" in texts[-2]
        before = len(texts)
        tab.click(tid("scene-next"))
        _wait_more(tab, "scene-line-character", before)
        last = tab.locator(tid("scene-line-character")).last.inner_text()
        # The predictor named Ottilie again, who had just spoken: CoSER's rule picks another.
        assert last.startswith("Wren Callow · random pick (same speaker again) · at 1-1-1")
        assert tab.inner_text(tid("scene-scope-who")).startswith("Wren Callow's knowledge scope at 1-1-1")

        # An aside is shown as heard by one.
        tab.select_option(tid("scene-as"), "")
        tab.fill(tid("scene-say"), "/to Wren Dace took the good scissors.")
        before = _count(tab, "scene-line-narrator")
        tab.press(tid("scene-say"), "Enter")
        _wait_more(tab, "scene-line-narrator", before)
        assert "aside to Wren Callow" in tab.locator(tid("scene-line-narrator")).last.inner_text()
        assert "heard by Wren Callow" in tab.locator(tid("scene-line-narrator")).last.inner_text()

        # The slider moves the whole scene (up to the reader's position: its last stop is 1-1-3).
        assert tab.evaluate("Number(document.querySelector('[data-testid=scene-timeline]').max)") == 2
        tab.focus(tid("scene-timeline"))
        tab.keyboard.press("ArrowRight")
        tab.wait_for_function("document.querySelector('[data-testid=scene-header]').innerText.includes('at 1-1-2')")
        assert "the scene is now at 1-1-2" in tab.inner_text(tid("scene-lines"))

        page = tab.content()
        for later in ("Stormwren", "the night Ottilie died", "Ilse", "The beacon", "2-3-1"):
            assert later not in page, later


def test_two_quick_steps_back_leave_the_cast_of_the_second_position(browser, config):
    # The step to 1-2 is held until the step to 1-1 has been shown; arriving last, its cast
    # (Ilse Varga comes in at 1-2) must not come back onto the page of a reader at 1-1.
    reader = f"{tid('scene-reader-box')} {tid('reader')}"
    ilse = "document.querySelector(\"[data-testid=scene-character][value='Ilse Varga']\")"
    with BackgroundServer(config, model=scripted(default="x")) as url, open_tab(browser, url + "#/scene") as tab:
        tab.wait_for_selector(f"{tid('scene-character')}[value='Wren Callow']", state="attached")
        tab.select_option(reader, "1-3")
        tab.wait_for_selector(f"{tid('scene-character')}[value='Nell Hobb']", state="attached")
        with held_requests(tab, "**/timeline*", lambda url: "reader_at=1-2" in url) as held:
            tab.click(f"{tid('scene-reader-box')} {tid('reader-back')}")
            tab.wait_for_function(f"document.querySelector(\"{reader}\").value === '1-2'")
            assert held, "the first step did not ask for its timeline"
            tab.click(f"{tid('scene-reader-box')} {tid('reader-back')}")
            tab.wait_for_function(f"!{ilse}")
        tab.wait_for_load_state("networkidle")
        tab.wait_for_timeout(300)
        assert tab.eval_on_selector(reader, "el => el.value") == "1-1"
        assert tab.evaluate(f"!{ilse}")
        assert "Ilse" not in tab.content()
