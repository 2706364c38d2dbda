"""The web app in a real headless Chromium (the system package, driven by Playwright): load the
app, chat one turn with the scripted model and move in story time, then browse the runs, open a
run and one of its samples.

Needs Chromium (Debian's ``chromium``, which ``./dev.sh test`` installs when it can). Without it
the test is skipped, unless ``INCANON_REQUIRE_BROWSER=1`` (CI sets it) makes that a failure.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from incanon.models import load_chat_model
from incanon.serve import BackgroundServer
from incanon.testing.browser import TIMEOUT_MS, chromium_browser, open_tab, tid

from serve_helpers import character_model

__all__ = ["TIMEOUT_MS", "browser", "tid"]  # the other browser tests' fixture and names


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    yield from chromium_browser()


@pytest.fixture
def page(browser, serve_config):
    with BackgroundServer(serve_config, model=load_chat_model(character_model())) as url, open_tab(browser, url) as tab:
        yield tab


def test_chat_one_turn_and_move_in_story_time(page):
    tab = page
    tab.wait_for_selector(f"{tid('character')} option[value='Wren Callow']", state="attached")
    # "I have read up to book 2, chapter 4": the points up to there come with their labels, and
    # nothing later is on the page at all (the server does not send it).
    tab.select_option(tid("reader"), "2-4")
    tab.wait_for_selector("button:has-text('end of book 2 (2-4)')")
    assert tab.locator(tid("time-point")).all_inner_texts() == [
        "end of book 1 (1-3)", "the night of the flood (2-3-1)", "end of book 2 (2-4)"]
    page_text = tab.content()
    assert "the night Ottilie died" not in page_text and "Lamp-Mistress" not in page_text
    assert tab.evaluate("localStorage.getItem('incanon.reader.lanterns')") == "2-4"
    tab.select_option(tid("character"), "Wren Callow")
    # Put the slider on "end of book 1" with the character's time-point button.
    tab.get_by_role("button", name="end of book 1 (1-3)").click()
    assert tab.inner_text(tid("stop-label")) == "1-3 · end of book 1"
    tab.click(tid("start"))
    tab.wait_for_selector(tid("chat-note"))
    assert "at 1-3 (end of book 1)" in tab.inner_text(tid("chat-header"))
    hidden_before = tab.inner_text(tid("scope-table"))

    tab.fill(tid("say"), "Did you hear the flood bell?")
    tab.press(tid("say"), "Enter")
    reply = tab.wait_for_selector(tid("turn-character"))
    assert "I heard the bell from the lamp-room" in reply.inner_text()
    assert tab.locator(tid("turn-user")).inner_text().endswith("Did you hear the flood bell?")
    # The evidence of the reply: its method, moment and the answering call.
    tab.wait_for_selector(tid("evidence-call"))
    assert "in-canon" in tab.inner_text(tid("evidence")) and "1-3" in tab.inner_text(tid("evidence"))

    tab.get_by_role("button", name="end of book 2 (2-4)").click()
    tab.wait_for_function("document.querySelector('[data-testid=chat-header]').innerText.includes('at 2-4')")
    assert "Wren Callow is now at 2-4" in tab.inner_text(tid("turns"))
    assert tab.inner_text(tid("scope-table")) != hidden_before
    assert tab.locator(tid("turn-character")).count() == 1  # the conversation is kept
    # One step back (‹) puts the reader at 2-3, behind the chat: it moves back with them, to the
    # last stop they have read (2-3-2).
    tab.click(tid("reader-back"))
    tab.wait_for_function("document.querySelector('[data-testid=chat-header]').innerText.includes('at 2-3-2')")
    assert tab.locator(tid("time-point")).all_inner_texts()[-1] == "the night of the flood (2-3-1)"


def test_the_timeline_starts_at_the_characters_first_time_point(page):
    tab = page
    tab.wait_for_selector(f"{tid('character')} option[value='Wren Callow']", state="attached")
    # Before, the slider started at the end of the story: "Start chat" gave the most spoiled
    # character. Now it starts at the selected character's first time point, named by its
    # position while the reader has not said how far they have read.
    tab.wait_for_function("document.querySelector('[data-testid=stop-label]').innerText.includes('1-3')")
    assert tab.inner_text(tid("stop-label")) == "1-3"
    assert "end of book 1" not in tab.inner_text(tid("marks"))
    tab.select_option(tid("character"), "Ottilie Brand")
    assert tab.inner_text(tid("stop-label")).startswith("1-1-1")
    tab.select_option(tid("character"), "Wren Callow")
    tab.click(tid("start"))
    tab.wait_for_selector(tid("chat-note"))
    assert "at 1-3 (end of book 1)" in tab.inner_text(tid("chat-header"))


def test_browse_runs_open_a_run_and_a_sample(page, served):
    tab = page
    tab.click("nav >> text=Runs")
    tab.wait_for_selector(tid("runs-table"))
    assert tab.locator(tid("run-row")).count() == 3
    tab.select_option(tid("filter-benchmark"), "timechara")
    tab.wait_for_function("document.querySelectorAll('[data-testid=run-row]').length === 2")

    run = served.timechara[0]
    tab.click(f"a[href='#/runs/{run}']")
    tab.wait_for_selector(tid("paper-table"))
    assert "Past-absence" in tab.inner_text(tid("paper-table") + " >> nth=0")
    tab.wait_for_selector(f"{tid('chart')} svg [data-testid=chart-bar]", state="attached")
    tab.wait_for_selector(tid("samples-table"))
    assert tab.locator(tid("sample-row")).count() == 5

    tab.select_option(tid("sample-type"), "future")
    tab.wait_for_function("document.querySelectorAll('[data-testid=sample-row]').length === 1")
    tab.click(tid("sample-row"))
    tab.wait_for_selector(tid("sample-title"))
    assert tab.inner_text(tid("sample-answer")) == "I have no idea what you mean."
    assert "It leaks the future" in tab.inner_text(tid("sample-rationale") + " >> nth=0")
    assert tab.locator(tid("judge-call")).count() >= 2  # the judges' own calls, prompt and reply
    assert tab.locator(tid("sample-call")).count() >= 1
    assert "spatiotemporal" in tab.inner_text(tid("sample-scores"))


def test_runs_in_progress_refresh_and_sample_filters_stay_in_the_address(browser, served, tmp_path):
    from incanon.runs import RunStore
    from incanon.runs.config import RunConfig
    from incanon.runs.records import SampleRecord
    from incanon.serve import ServeConfig

    store = RunStore(tmp_path / "live.sqlite")
    run = store.create_or_resume(RunConfig(benchmark="timechara", task="live", methods=["zero-shot"],
                                           models={"agent": "scripted"}))

    def add(i: int, status: str = "ok") -> None:
        store.record(SampleRecord(run_id=run.id, item_id=f"i{i}", input_hash="h", status=status,
                                  input={"question": f"Q{i}", "data_type": "future"}, outputs={"answer": f"A{i}"},
                                  scores={"spatiotemporal": 1.0}, error="boom" if status == "error" else None))

    add(0)
    config = ServeConfig(canon=served.canon, runs=tmp_path / "live.sqlite", cache=False)
    with BackgroundServer(config, model=load_chat_model(character_model())) as url, \
            open_tab(browser, url + "#/runs") as tab:
        tab.wait_for_selector(tid("live"))
        assert "1 / ?" in tab.inner_text(tid("run-row"))
        add(1)
        add(2, status="error")
        tab.wait_for_function("document.querySelector('[data-testid=run-row]').innerText.includes('2 + 1 failed')",
                              timeout=20_000)

        tab.goto(url + f"#/runs/{run.id}")
        tab.wait_for_selector(tid("samples-table"))
        tab.select_option(tid("sample-status"), "error")
        tab.wait_for_function("document.querySelectorAll('[data-testid=sample-row]').length === 1")
        assert "status=error" in tab.evaluate("location.hash")
        add(3, status="error")
        # The page refreshes itself and keeps the filter: both failed samples, no ok one.
        tab.wait_for_function("document.querySelectorAll('[data-testid=sample-row]').length === 2", timeout=20_000)
        assert "status=error" in tab.evaluate("location.hash")
    store.finish(run.id, "finished")
    store.close()


def test_the_page_says_the_book_is_being_prepared_and_answers_after(browser, served, tmp_path, monkeypatch):
    """A fresh canon store: the first chat with a retrieval method waits for the work's first
    embedding, and the page says so (with its progress) instead of a silent spinner."""
    import threading

    import numpy as np

    import incanon.models
    from incanon.canon import CanonStore
    from incanon.serve import ServeConfig
    from incanon.testing.worlds import mini_world

    gate = threading.Event()

    class Gated:
        name, dim = "gated-embedder", 4

        def embed(self, texts, kind="passage"):
            if kind == "passage":
                assert gate.wait(TIMEOUT_MS / 1000), "the test never opened the gate"
            return np.asarray([[1.0, len(t) % 7, 2.0, 3.0] for t in texts], dtype=np.float32)

    monkeypatch.setattr(incanon.models, "load_embedder", lambda *a, **k: Gated())
    canon = tmp_path / "canon"
    with CanonStore.open(canon) as store:
        store.import_world(mini_world())
    config = ServeConfig(canon=canon, runs=served.runs_path, model="scripted-character", cache=False, embedder="gated")
    try:
        with BackgroundServer(config, model=load_chat_model(character_model())) as url, open_tab(browser, url) as tab:
            tab.wait_for_selector(f"{tid('character')} option[value='Wren Callow']", state="attached")
            tab.select_option(tid("method"), "in-canon")
            tab.click(tid("start"))
            tab.wait_for_function("document.querySelector('[data-testid=turns]').innerText.includes('Preparing')")
            assert "embedding lanterns for retrieval" in tab.inner_text(tid("turns"))
            tab.fill(tid("say"), "Did you hear the flood bell?")
            tab.press(tid("say"), "Enter")
            tab.wait_for_function("(document.querySelector('[data-testid=pending]') || {innerText: ''})"
                                  ".innerText.includes('chunks')")
            assert tab.locator(tid("turn-character")).count() == 0
            gate.set()
            reply = tab.wait_for_selector(tid("turn-character"))
            assert "I heard the bell from the lamp-room" in reply.inner_text()
    finally:
        gate.set()
