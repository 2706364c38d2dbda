"""Kept chats in headless Chromium: a reopened chat owns the left panel (so "Restart chat"
restarts it, not the chat shown before), and the *Kept chats* list follows the reader's position
(the open chat moved back with the reader is listed; chats past it are counted).

Fixtures and the Chromium lookup come from ``test_serve_browser`` (skipped without Chromium
unless ``INCANON_REQUIRE_BROWSER=1``).
"""

from __future__ import annotations

import json
import urllib.request
from dataclasses import replace

from test_serve_browser import browser, tid  # noqa: F401  (browser is a fixture)
from test_serve_browser_app import app_tab, say, start_chat


def _post(url: str, path: str, body: dict) -> dict:
    """A request as another client (no Origin, as curl): the chat is kept by the server."""
    made = urllib.request.Request(url + path, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(made) as answer:
        return json.load(answer)


def _options(tab) -> list[str]:
    return tab.locator(f"{tid('saved-chats')} option").all_inner_texts()


def test_restart_after_reopening_restarts_the_reopened_chat(browser, serve_config, tmp_path):  # noqa: F811
    config = replace(serve_config, chats=tmp_path / "chats.sqlite")
    with app_tab(browser, config) as (tab, url):
        other = _post(url, "api/chats", {"work": "lanterns", "character": "Ottilie Brand", "at": "2-2-1",
                                         "method": "zero-shot-cot"})
        _post(url, f"api/chats/{other['id']}/say", {"line": "Who keeps the Tower lamp?"})
        start_chat(tab, method="zero-shot")  # Wren Callow at 1-3
        say(tab, "Did you hear the flood bell?")
        tab.wait_for_function("document.querySelector('[data-testid=saved-chats]').options.length === 3")
        index = next(i for i, text in enumerate(_options(tab)) if text.startswith("Ottilie Brand"))
        tab.select_option(tid("saved-chats"), index=index)
        tab.wait_for_function("document.querySelector('[data-testid=chat-header]').innerText.startsWith('Ottilie Brand')")
        # Before, the panel kept Wren Callow, zero-shot and 1-3 from the chat shown before.
        tab.wait_for_function("document.querySelector('[data-testid=character]').value === 'Ottilie Brand'")
        assert tab.eval_on_selector(tid("method"), "el => el.value") == "zero-shot-cot"
        assert tab.inner_text(tid("stop-label")).startswith("2-2-1")

        tab.click(tid("start"))  # "Restart chat"
        tab.wait_for_function("document.querySelector('[data-testid=chat-note]')?.innerText.startsWith('Ottilie Brand at 2-2-1')")
        header = tab.inner_text(tid("chat-header"))
        assert header.startswith("Ottilie Brand") and "at 2-2-1" in header and "method zero-shot-cot" in header


def test_kept_chats_list_the_chat_moved_back_and_count_those_past(browser, serve_config, tmp_path):  # noqa: F811
    config = replace(serve_config, chats=tmp_path / "chats.sqlite")
    with app_tab(browser, config) as (tab, url):
        tab.wait_for_selector(f"{tid('character')} option[value='Wren Callow']", state="attached")
        tab.select_option(tid("reader"), "2-4")
        tab.wait_for_selector("button:has-text('end of book 2 (2-4)')")
        start_chat(tab, method="zero-shot")
        tab.get_by_role("button", name="end of book 2 (2-4)").click()
        tab.wait_for_function("document.querySelector('[data-testid=chat-header]').innerText.includes('at 2-4')")
        # One step back: the open chat moves back with the reader (2-3-2) and is still kept;
        # before, the list said "no kept chats".
        tab.click(tid("reader-back"))
        tab.wait_for_function("document.querySelector('[data-testid=chat-header]').innerText.includes('at 2-3-2')")
        tab.wait_for_function("document.querySelector('[data-testid=saved-chats]').options.length === 2")
        assert _options(tab)[1].startswith("Wren Callow · at 2-3-2")

    # Every kept chat past the reader: the list says how many, not only "no kept chats".
    with app_tab(browser, replace(config, chats=tmp_path / "other.sqlite")) as (tab, url):
        _post(url, "api/chats?reader_at=2-4", {"work": "lanterns", "character": "Wren Callow", "at": "2-4",
                                               "method": "zero-shot"})
        tab.wait_for_selector(f"{tid('character')} option[value='Wren Callow']", state="attached")
        tab.select_option(tid("reader"), "2-4")
        tab.wait_for_function("document.querySelector('[data-testid=saved-chats]').options.length === 2")
        tab.click(tid("reader-back"))
        tab.wait_for_function("document.querySelector('[data-testid=saved-chats]').options.length === 1")
        tab.wait_for_function("document.querySelector('[data-testid=saved-chats]').innerText.includes('past your reading')")
        assert _options(tab) == ["no kept chats (1 past your reading)"]
