"""The web app in headless Chromium, feature by feature: evidence as snippets, replies in
Markdown (and never as markup), regenerate, one move per settled slider, runs that fit a
1,280 px window with a question column and the judges' calls, and interactive charts.

Fixtures and the Chromium lookup come from ``test_serve_browser`` (skipped without Chromium
unless ``INCANON_REQUIRE_BROWSER=1``).
"""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path

from incanon.models import ScriptedModel, load_chat_model
from incanon.serve import BackgroundServer, ServeConfig
from incanon.testing.browser import held_requests, open_tab

from serve_helpers import character_model
from test_serve_browser import browser, tid  # noqa: F401  (browser is a fixture)

MARKDOWN_REPLY = ("**x** and *y* and `z`\n\n- one\n- two\n\n"
                  "<script>window.pwned = 1</script><img src=x onerror=\"window.pwned = 2\">")


@contextmanager
def app_tab(browser, config, model=None, width=1400):  # noqa: F811
    with BackgroundServer(config, model=load_chat_model(model or character_model())) as url, \
            open_tab(browser, url, width=width, downloads=True) as tab:
        yield tab, url


def start_chat(tab, method="in-canon"):
    tab.wait_for_selector(f"{tid('character')} option[value='Wren Callow']", state="attached")
    tab.select_option(tid("character"), "Wren Callow")
    tab.select_option(tid("method"), method)
    tab.click(tid("start"))
    tab.wait_for_selector(tid("chat-note"))


def say(tab, line):
    count = tab.locator(tid("turn-character")).count()
    tab.fill(tid("say"), line)
    tab.press(tid("say"), "Enter")
    tab.wait_for_function(f"document.querySelectorAll('[data-testid=turn-character]').length > {count}")


def test_evidence_shows_snippets_that_open_to_the_whole_chunk(browser, serve_config):  # noqa: F811
    with app_tab(browser, serve_config) as (tab, _):
        start_chat(tab)
        say(tab, "Did you hear the flood bell?")
        tab.wait_for_selector(tid("evidence-call"))
        assert tab.locator(tid("evidence-chunk")).count() >= 3
        # Before, every chunk printed whole: the page grew to thousands of pixels after one reply.
        assert tab.evaluate("document.scrollingElement.scrollHeight") <= 1100
        snippet = tab.locator(tid("chunk-snippet")).first
        assert len(snippet.inner_text()) <= 201 and snippet.inner_text().endswith("…")
        full = tab.locator(tid("chunk-full")).first
        assert not full.is_visible()
        tab.locator(f"{tid('chunk-more')} summary").first.click()
        assert full.is_visible() and len(full.inner_text()) > 1000


def test_replies_render_markdown_safely_and_regenerate(browser, serve_config):  # noqa: F811
    model = ScriptedModel([], default="Nothing more.", name="scripted-character")
    model.queue.extend([MARKDOWN_REPLY, "A second try."])
    with app_tab(browser, serve_config, model) as (tab, _):
        start_chat(tab, method="zero-shot")
        say(tab, "Tell me in markup")
        reply = tab.locator(tid("turn-character"))
        assert reply.locator("strong").inner_text() == "x"
        assert reply.locator("em").inner_text() == "y" and reply.locator("code").inner_text() == "z"
        assert reply.locator("li").all_inner_texts() == ["one", "two"]
        # Markup in a reply is text: no element is made and no handler runs.
        assert reply.locator("script, img").count() == 0
        assert "<script>window.pwned = 1</script>" in reply.inner_text()
        assert '<img src=x onerror="window.pwned = 2">' in reply.inner_text()
        assert tab.evaluate("window.pwned") is None

        tab.click(tid("regenerate"))
        tab.wait_for_function("document.querySelector('[data-testid=turn-character]').innerText.includes('A second try.')")
        assert tab.locator(tid("turn-character")).count() == 1 and tab.locator(tid("turn-user")).count() == 1
        assert "**x**" not in tab.inner_text(tid("turns")) and "pwned" not in tab.inner_text(tid("turns"))
        # The model was asked the same line again, without the reply it replaced.
        messages = model.calls[-1].messages
        assert messages[-1].content == "Tell me in markup"
        assert all("pwned" not in m.content for m in messages)


def test_quick_steps_on_the_timeline_are_one_move(browser, serve_config):  # noqa: F811
    with app_tab(browser, serve_config) as (tab, _):
        start_chat(tab, method="zero-shot")
        start = tab.evaluate("Number(document.querySelector('[data-testid=timeline]').value)")
        tab.focus(tid("timeline"))
        for _ in range(5):
            tab.keyboard.press("ArrowRight")
        tab.wait_for_function("document.querySelector('[data-testid=turns]').innerText.includes('is now at')")
        tab.wait_for_timeout(1500)  # any late move would show by now
        assert tab.inner_text(tid("turns")).count("is now at") == 1
        stops = tab.evaluate("Number(document.querySelector('[data-testid=timeline]').value)")
        assert stops == start + 5
        label = tab.inner_text(tid("stop-label")).split(" · ")[0]
        assert f"is now at {label}" in tab.inner_text(tid("turns"))
        assert f"at {label}" in tab.inner_text(tid("chat-header"))


def wide_runs(path: Path) -> str:
    """A run store with a run whose names are long (a local model's path, long questions)."""
    from incanon.runs import RunStore
    from incanon.runs.config import RunConfig
    from incanon.runs.records import SampleRecord

    store = RunStore(path)
    model = "llama-cpp:/home/researcher/models/Qwen2.5-7B-Instruct-GGUF/qwen2.5-7b-instruct-q4_k_m-00001-of-00002.gguf"
    run = store.create_or_resume(RunConfig(benchmark="timechara", task="wide", methods=["narrative-experts-rag-cutoff"],
                                           models={"agent": model, "judge": model}))
    question = "Were you there when " + "the lamp-lighters of the lower harbour walked " * 8 + "to the gate?"
    for i in range(3):
        store.record(SampleRecord(run_id=run.id, item_id=f"item-{i:05d}-{'x' * 40}", input_hash="h", status="ok",
                                  input={"question": question, "data_type": "future"},
                                  outputs={"answer": "I cannot say " * 30},
                                  scores={"spatiotemporal": 1.0, "temporal": 1.0, "personality": 5.0, "spatial": 1.0}))
    store.finish(run.id, "finished")
    store.close()
    return run.id


def test_runs_fit_1280_pixels_with_a_question_column(browser, served, tmp_path):  # noqa: F811
    run_id = wide_runs(tmp_path / "wide.sqlite")
    config = ServeConfig(canon=served.canon, runs=tmp_path / "wide.sqlite", cache=False)
    with app_tab(browser, config, width=1280) as (tab, url):
        tab.goto(url + "#/runs")
        tab.wait_for_selector(tid("runs-table"))
        assert tab.evaluate("document.scrollingElement.scrollWidth") <= 1280
        assert tab.evaluate("(t => t.scrollWidth <= t.clientWidth && t.getBoundingClientRect().right <= 1280)"
                            "(document.querySelector('[data-testid=runs-table]'))")
        tab.click(f"a[href='#/runs/{run_id}']")
        tab.wait_for_selector(tid("samples-table"))
        assert tab.evaluate("document.scrollingElement.scrollWidth") <= 1280
        assert "question" in tab.locator(f"{tid('samples-table')} thead").inner_text()
        cell = tab.locator(tid("sample-question")).first
        assert cell.inner_text().startswith("Were you there when the lamp-lighters") and cell.inner_text().endswith("…")
        assert cell.get_attribute("title").endswith("walked to the gate?")


def test_a_slow_first_page_does_not_cover_the_page_the_address_moved_to(browser, serve_config):  # noqa: F811
    # The chat page waits for its works; hold that answer until the address is on the runs.
    with BackgroundServer(serve_config, model=load_chat_model(character_model())) as url, open_tab(browser) as tab:
        with held_requests(tab, "**/api/works", lambda _: True) as held:
            tab.goto(url)
            tab.goto(url + "#/runs")
            tab.wait_for_timeout(200)
            assert held, "the chat page did not ask for its works"
        tab.wait_for_function("document.body.dataset.ready === 'runs'")
        tab.wait_for_load_state("networkidle")
        assert tab.locator(tid("runs-table")).is_visible()
        assert tab.locator(tid("character")).count() == 0


def test_the_sample_drill_down_shows_the_judges_calls(browser, serve_config, served):  # noqa: F811
    run = served.timechara[0]
    with app_tab(browser, serve_config) as (tab, url):
        tab.goto(url + f"#/runs/{run}/sample?item=00000&epoch=0")
        tab.wait_for_selector(tid("sample-judge"))
        judges = tab.locator(tid("sample-judge")).all_inner_texts()
        assert [j.splitlines()[0] for j in judges] == ["temporal score 1", "personality score 5", "spatial score 1"]
        assert tab.locator(tid("judge-call")).count() == 3
        tab.locator(f"{tid('judge-call')} summary").first.click()
        call = tab.locator(tid("judge-call")).first.inner_text()
        assert "role-playing answer stays consistent" in call and "Hermione Granger" in call and "Score: 1" in call


def test_charts_show_values_on_hover_zoom_and_download_their_table(browser, serve_config, served):  # noqa: F811
    run = served.timechara[0]
    with app_tab(browser, serve_config) as (tab, url):
        tab.goto(url + f"#/runs/{run}")
        chart = tab.locator(tid("chart")).first
        chart.wait_for()
        assert "by data type" in chart.inner_text()
        bars = chart.locator(tid("chart-bar"))
        assert bars.count() == 4
        bars.nth(1).hover()
        assert chart.locator(tid("chart-tip")).is_visible()
        assert chart.locator(tid("chart-tip")).inner_text() == "Past-absence · zero-shot: 100"

        chart.locator(tid("chart-zoom-in")).click()
        assert bars.count() == 2 and chart.locator(tid("chart-window")).inner_text() == "2 of 4 shown"
        chart.locator(tid("chart-zoom-out")).click()
        assert bars.count() == 4
        chart.locator(tid("chart-svg")).hover()
        tab.mouse.wheel(0, -100)
        tab.wait_for_function("document.querySelector('[data-testid=chart-window]').innerText === '2 of 4 shown'")
        assert bars.count() == 2

        with tab.expect_download() as download:
            chart.locator(tid("chart-csv")).click()
        assert download.value.suggested_filename == "spatiotemporal-consistency-by-data-type.csv"
        text = Path(download.value.path()).read_text()
        assert text.splitlines()[0] == "category,zero-shot,zero-shot SEM"
        assert "Future,0,\n" in text and "Past-absence,100," in text and "Past-only,100,0\n" in text


def test_a_chat_survives_a_server_restart(browser, serve_config, tmp_path):  # noqa: F811
    from dataclasses import replace

    config = replace(serve_config, chats=tmp_path / "chats.sqlite")
    with app_tab(browser, config) as (tab, _):
        start_chat(tab, method="zero-shot")
        say(tab, "Did you hear the flood bell?")
        tab.wait_for_function("document.querySelector('[data-testid=saved-chats]').options.length === 2")
    with app_tab(browser, config) as (tab, _):  # a new server process state, a new browser profile
        kept = tab.locator(f"{tid('saved-chats')} option")
        tab.wait_for_function("document.querySelector('[data-testid=saved-chats]')?.options.length === 2")
        assert "Wren Callow · at" in kept.nth(1).inner_text()
        tab.select_option(tid("saved-chats"), index=1)
        tab.wait_for_selector(tid("turn-character"))
        assert tab.locator(tid("turn-user")).inner_text().endswith("Did you hear the flood bell?")
        say(tab, "And then?")
        assert tab.locator(tid("turn-character")).count() == 2


def test_two_quick_steps_back_show_the_second_positions_timeline(browser, serve_config):  # noqa: F811
    # The first step's timeline is held until the second step's has been shown; arriving last,
    # it must not bring back the point the reader has just stepped behind (2-3-1).
    with app_tab(browser, serve_config) as (tab, _):
        tab.wait_for_selector(f"{tid('character')} option[value='Wren Callow']", state="attached")
        tab.select_option(tid("reader"), "2-4")
        tab.wait_for_selector("button:has-text('end of book 2 (2-4)')")
        with held_requests(tab, "**/timeline*", lambda url: "reader_at=2-3" in url) as held:
            tab.click(tid("reader-back"))
            tab.wait_for_function("document.querySelector('[data-testid=reader]').value === '2-3'")
            assert held, "the first step did not ask for its timeline"
            tab.click(tid("reader-back"))
            tab.wait_for_function("!document.body.innerText.includes('end of book 2 (2-4)')")
            assert tab.locator(tid("time-point")).all_inner_texts() == ["end of book 1 (1-3)"]
        tab.wait_for_load_state("networkidle")
        tab.wait_for_timeout(300)
        assert tab.eval_on_selector(tid("reader"), "el => el.value") == "2-2"
        assert tab.evaluate("localStorage.getItem('incanon.reader.lanterns')") == "2-2"
        assert tab.locator(tid("time-point")).all_inner_texts() == ["end of book 1 (1-3)"]


def test_leaving_a_run_while_its_samples_load_goes_where_the_person_clicked(browser, serve_config, served):  # noqa: F811
    # Before, the samples' late answer wrote the run's address back over "#/runs", and the
    # router, reading it, showed the run again: the click was lost.
    run = served.timechara[0]
    with app_tab(browser, serve_config) as (tab, url):
        with held_requests(tab, "**/samples?*", lambda _: True) as held:
            tab.goto(url + f"#/runs/{run}")
            tab.wait_for_selector(f"h1:has-text('{run}')")  # the run is shown; its samples wait
            for _ in range(100):
                if held:
                    break
                tab.wait_for_timeout(100)
            assert held, "the run page did not ask for its samples"
            tab.click("a[href='#/runs']")
            tab.wait_for_timeout(200)
        tab.wait_for_function("document.body.dataset.ready === 'runs'")
        tab.wait_for_load_state("networkidle")
        assert tab.evaluate("location.hash") == "#/runs"
        assert tab.locator(tid("runs-table")).is_visible()
        assert tab.locator(tid("samples-table")).count() == 0


def test_kept_chats_follow_the_readers_position(browser, serve_config, tmp_path):  # noqa: F811
    # A chat kept at 2-4 (made elsewhere) is listed for a reader at 2-4, and no longer once the
    # reader steps back to 2-3: before, the list was only asked for when the page loaded.
    import json
    import urllib.request
    from dataclasses import replace

    config = replace(serve_config, chats=tmp_path / "chats.sqlite")
    with app_tab(browser, config) as (tab, url):
        body = json.dumps({"work": "lanterns", "character": "Wren Callow", "at": "2-4", "method": "zero-shot"})
        made = urllib.request.Request(url + "api/chats?reader_at=2-4", data=body.encode(),
                                      headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(made) as answer:
            assert json.load(answer)["at"] == "2-4"
        tab.wait_for_selector(f"{tid('character')} option[value='Wren Callow']", state="attached")
        tab.select_option(tid("reader"), "2-4")
        tab.wait_for_function("document.querySelector('[data-testid=saved-chats]').options.length === 2")
        assert "Wren Callow · at 2-4" in tab.locator(f"{tid('saved-chats')} option").nth(1).inner_text()
        tab.click(tid("reader-back"))
        tab.wait_for_function("document.querySelector('[data-testid=saved-chats]').options.length === 1")
        assert "at 2-4" not in tab.inner_text(tid("saved-chats"))
