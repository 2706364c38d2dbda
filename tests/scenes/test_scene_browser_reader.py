"""The Scene tab when the reader steps back behind the open scene, in headless Chromium: the
scene moves back with the reader (as a chat does), so the slider, the header and the kept scenes
agree and the next line is answered; a refused line stays in the box to be fixed.

Needs Chromium, as ``tests/serve/test_serve_browser.py`` (skipped without it unless
``INCANON_REQUIRE_BROWSER=1``).
"""

from __future__ import annotations

import pytest

from incanon.serve import BackgroundServer
from incanon.testing.browser import open_tab, tid

from .conftest import scripted
from .test_scene_browser import browser, config  # noqa: F401  (fixtures)

pytestmark = pytest.mark.xdist_group("browser")

HEADER = "document.querySelector('[data-testid=scene-header]').innerText"


def test_stepping_back_behind_a_scene_moves_it_back(browser, config):  # noqa: F811
    model = scripted(("Who acts next", "Ottilie Brand"), default="The lamps come first, child.")
    with BackgroundServer(config, model=model) as url, open_tab(browser, url + "#/scene") as tab:
        tab.wait_for_selector(f"{tid('scene-character')}[value='Wren Callow']", state="attached")
        reader = f"{tid('scene-reader-box')} {tid('reader')}"
        slider = "document.querySelector('[data-testid=scene-timeline]')"
        whole = tab.evaluate(f"Number({slider}.max)")
        tab.select_option(reader, "2-4")
        tab.wait_for_function(f"Number({slider}.max) < {whole}")  # the reader's timeline is in
        tab.check(f"{tid('scene-character')}[value='Wren Callow']")
        tab.check(f"{tid('scene-character')}[value='Ottilie Brand']")
        tab.focus(tid("scene-timeline"))
        tab.keyboard.press("End")  # the last point a reader at 2-4 has read
        tab.click(tid("scene-start"))
        tab.wait_for_function(f"{HEADER}.includes('Wren Callow, Ottilie Brand')")
        assert "at 2-4" in tab.inner_text(tid("scene-header"))

        tab.click(f"{tid('scene-reader-box')} {tid('reader-back')}")  # read up to 2-3 only
        # Before, the slider showed the first stop while the header stayed at 2-4, the next line
        # was refused and the kept scenes said "none yet".
        tab.wait_for_function(f"{HEADER}.includes('at 2-3-2')")
        assert tab.inner_text(tid("scene-stop-label")).startswith("2-3-2")
        assert "the scene is now at 2-3-2" in tab.inner_text(tid("scene-lines"))
        tab.wait_for_function("document.querySelector('[data-testid=scene-kept]').options.length === 2")
        assert tab.locator(f"{tid('scene-kept')} option").nth(1).inner_text().startswith("Wren Callow, Ottilie Brand at 2-3-2")

        tab.fill(tid("scene-say"), "Rain beats on the windows.")
        tab.press(tid("scene-say"), "Enter")
        tab.wait_for_function("document.querySelectorAll('[data-testid=scene-line-character]').length > 0")
        assert tab.locator(tid("scene-error")).count() == 0

        # A refused line is not lost: it stays in the box.
        tab.fill(tid("scene-say"), "/enter Nobody Atall")
        tab.press(tid("scene-say"), "Enter")
        tab.wait_for_selector(tid("scene-error"))
        assert tab.input_value(tid("scene-say")) == "/enter Nobody Atall"
