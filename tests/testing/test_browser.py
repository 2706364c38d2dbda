"""``incanon.testing.browser``: a page's script error fails the test that opened it, and a held
request waits until its block ends while the others go through."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from incanon.testing.browser import chromium_browser, held_requests, open_tab


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    yield from chromium_browser()


def test_a_script_error_on_the_page_fails_the_test(browser):
    with pytest.raises(AssertionError, match="the page raised: .*boom"):
        with open_tab(browser, "data:text/html,<script>throw new Error('boom')</script>") as tab:
            tab.wait_for_timeout(300)


def test_a_quiet_page_passes(browser):
    with open_tab(browser, "data:text/html,<p>quiet</p>") as tab:
        assert tab.inner_text("p") == "quiet"


def test_held_requests_wait_for_the_end_of_their_block(browser):
    with open_tab(browser) as tab:
        tab.route("**/data/*", lambda route: route.fulfill(body=route.request.url.rsplit("/", 1)[1]))
        tab.goto("http://127.0.0.1:9/data/page")  # fulfilled by the route: no server is asked
        # Not awaited by evaluate (the function returns nothing): the held fetch would block it.
        fetch = "(name) => { fetch('/data/' + name).then(r => r.text()).then(t => { window.got = (window.got || []).concat(t); }); }"
        with held_requests(tab, "**/data/first", lambda url: url.endswith("/first")) as held:
            tab.evaluate(f"({fetch})('first')")
            tab.evaluate(f"({fetch})('second')")
            tab.wait_for_function("(window.got || []).length === 1")
            assert len(held) == 1 and tab.evaluate("window.got") == ["second"]
        tab.wait_for_function("window.got.length === 2")
        assert tab.evaluate("window.got") == ["second", "first"]
