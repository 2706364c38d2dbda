"""Driving incanon's web pages in a real headless Chromium (the system package, through
Playwright) from tests: finding and launching it, naming elements, and holding answers back.

Without Chromium a test is skipped, unless ``INCANON_REQUIRE_BROWSER=1`` (CI sets it) makes that
a failure: a suite that silently skipped its browser tests would prove nothing.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

#: Flags for a sandboxed machine with no network: no background connections, no GPU.
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"]
#: How long a page may take to show what a test waits for (a busy 2-core machine is slow).
TIMEOUT_MS = 60_000
REQUIRE_ENV = "INCANON_REQUIRE_BROWSER"


def chromium_executable() -> str | None:
    """The Chromium to drive: ``INCANON_CHROMIUM``, else the first browser on ``PATH``."""
    for candidate in (os.environ.get("INCANON_CHROMIUM"), "chromium", "chromium-browser", "google-chrome"):
        if candidate and shutil.which(candidate):
            return shutil.which(candidate)
    return None


def chromium_browser() -> Iterator[Any]:
    """A pytest fixture body: yields a launched headless Chromium, closed afterwards.

    Skips the test without Chromium or Playwright, or fails it under ``INCANON_REQUIRE_BROWSER=1``.
    """
    import pytest

    executable = chromium_executable()
    if executable is None:
        if os.environ.get(REQUIRE_ENV) == "1":
            pytest.fail(f"{REQUIRE_ENV}=1 but no Chromium was found (install Debian's chromium package)")
        pytest.skip("no Chromium on this machine (install Debian's chromium package, or set INCANON_CHROMIUM)")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS, headless=True)
        yield chromium
        chromium.close()


@contextmanager
def open_tab(browser: Any, url: str | None = None, *, width: int = 1400, downloads: bool = False) -> Iterator[Any]:
    """A page in a browser context of its own (no storage shared with other tests), at ``url``
    when given; closed afterwards. A script error the page raised fails the test at the end."""
    context = browser.new_context(viewport={"width": width, "height": 1000}, accept_downloads=downloads)
    tab = context.new_page()
    tab.set_default_timeout(TIMEOUT_MS)
    errors: list[str] = []
    tab.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        if url is not None:
            tab.goto(url)
        yield tab
    finally:
        context.close()
    assert errors == [], f"the page raised: {errors}"


def tid(name: str) -> str:
    """The selector of the element the web app marks ``data-testid=name``."""
    return f"[data-testid={name}]"


@contextmanager
def held_requests(page: Any, pattern: str, hold: Callable[[str], bool]) -> Iterator[list[Any]]:
    """Hold back the requests of ``page`` to ``pattern`` whose URL ``hold`` accepts, until the block
    ends; the others go through (to the page's other routes, if any, else to the server). Yields
    the held requests, so a test can check one was made.

    This puts an answer behind a later one on purpose: what a page shows must not depend on the
    order its answers arrive in.
    """
    held: list[Any] = []
    holding = True

    def route(request: Any) -> None:
        if holding and hold(request.request.url):
            held.append(request)
        else:
            request.fallback()

    page.route(pattern, route)
    try:
        yield held
    finally:
        holding = False
        for request in held:
            request.fallback()
