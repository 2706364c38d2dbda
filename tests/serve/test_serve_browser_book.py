"""The web app in Chromium on a book built by ``canon build`` (the example book, the recorded
helper), at an early and a late point: the timeline names each point once ("end of the story",
never "end" or the axis' 2047), the scope panel counts the built graph, and at the early point
nothing of the scene the character missed or of later chapters is on the page.

Fixtures and the Chromium lookup come from ``test_serve_browser`` (skipped without Chromium unless
``INCANON_REQUIRE_BROWSER=1``)."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from typer.testing import CliRunner

from incanon.canon import CanonStore
from incanon.cli.main import app
from incanon.models import ScriptedModel, load_chat_model
from incanon.serve import BackgroundServer, ServeConfig

from incanon.testing.browser import open_tab

from test_serve_browser import browser, tid  # noqa: F401  (browser is a fixture)

ROOT = Path(__file__).resolve().parents[2]
BOOK = ROOT / "examples" / "book" / "saltmere.txt"
HELPER = f"scripted:{ROOT / 'examples' / 'book' / 'helper.json'}"
WORK, MAIN = "the-clock-of-saltmere", "Mara Quill"
#: Text of the scene Mara missed (1-2-2) and of later chapters.
MISSED_OR_LATER = ("purse of silver", "cargo is worth", "storm came", "Harbour Keeper", "confess")

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    store = tmp_path_factory.mktemp("built-browser") / "canon"
    # In a thread of its own: Playwright's sync API keeps an event loop running in this one.
    with ThreadPoolExecutor(1) as pool:
        result = pool.submit(CliRunner().invoke, app, ["canon", "build", str(BOOK), "--store", str(store),
                                                        "--helper", HELPER, "--no-cache"]).result()
    assert result.exit_code == 0, result.output
    return store


@pytest.fixture
def tab(browser, built: Path, tmp_path: Path) -> Iterator[object]:  # noqa: F811
    model = ScriptedModel(default="I mend clocks.", name="scripted-character")
    config = ServeConfig(canon=built, runs=tmp_path / "runs.sqlite", model="scripted-character", cache=False,
                         chats=False)
    with BackgroundServer(config, model=load_chat_model(model)) as url, open_tab(browser, url) as page:
        page.wait_for_selector(f"{tid('character')} option[value='{MAIN}']", state="attached")
        yield page


def _points(built: Path) -> list[tuple[str, str]]:
    with CanonStore.open(built) as store:
        return [(tp.label, str(tp.position)) for tp in store.character(WORK, MAIN).time_points]


def _graph_entities(page) -> int:
    """The scope panel's count of the graph's entities the character may know."""
    rows = [line.split("\t") for line in page.inner_text(tid("scope-table")).splitlines()]
    return next(int(row[1]) for row in rows if row[0].strip() == "graph entities")


def _start(page, button: str, header: str) -> None:
    page.get_by_role("button", name=button).click()
    page.click(tid("start"))
    page.wait_for_function(
        f"document.querySelector('[data-testid=chat-header]').innerText.includes({header!r})")


def test_an_early_point_of_a_built_book_shows_nothing_later(tab, built: Path) -> None:
    points = _points(built)
    first_label, first_at = points[0]
    chapter = ".".join(first_at.split("-")[:2]).replace(".", "-")
    # A reader who has read up to the first point's chapter sees the points up to there only.
    tab.select_option(tid("reader"), chapter)
    tab.wait_for_selector(f"button:has-text('{first_label} ({first_at})')")
    shown = tab.locator(tid("time-point")).all_inner_texts()
    assert shown and all(text.endswith(")") for text in shown)
    assert f"{first_label} ({first_at})" in shown
    assert not any("end of the story" in text for text in shown)
    tab.select_option(tid("character"), MAIN)
    _start(tab, f"{first_label} ({first_at})", f"at {first_at}")
    tab.wait_for_selector(tid("chat-note"))
    assert _graph_entities(tab) > 0  # the built graph is counted, not "0 | 0"
    page = tab.content()
    assert not [text for text in MISSED_OR_LATER if text in page]
    assert "2047" not in page


def test_the_last_point_is_the_end_of_the_story_on_every_part_of_the_page(tab, built: Path) -> None:
    last_label, last_at = _points(built)[-1]
    assert last_label == "end of the story"
    options = tab.locator(f"{tid('reader')} option").evaluate_all("els => els.map(e => e.value)")
    tab.select_option(tid("reader"), options[-1])  # read to the end
    tab.wait_for_selector(f"button:has-text('end of the story ({last_at})')")
    tab.select_option(tid("character"), MAIN)
    _start(tab, f"end of the story ({last_at})", f"at {last_at} (end of the story)")
    assert tab.inner_text(tid("stop-label")) == f"{last_at} · end of the story"
    page = tab.locator("body").inner_text()
    assert "2047" not in page and "end (" not in page
    assert _graph_entities(tab) > 0
