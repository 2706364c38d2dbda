"""What the web app's labels say, at 1,280 px (a laptop): nothing cut off or clipped (the reader
menu, the placeholders, the scene's Save button, the runs table's status), /help as lines, a time
point named once per stop, a /next line as "chosen by you", known facts by their words, and a hint
why no scene of the book can be chosen yet ("none: set your reading first").

Fixtures and the Chromium lookup come from ``test_serve_browser`` (skipped without Chromium
unless ``INCANON_REQUIRE_BROWSER=1``). A screenshot of each tab is kept under the test's folder.
"""

from __future__ import annotations

from test_serve_browser import browser, tid  # noqa: F401  (browser is a fixture)
from test_serve_browser_app import app_tab, say, start_chat

# Whether an element's text (or an input's placeholder) fits its box, measured in its own font.
FITS = """(el) => {
  const style = getComputedStyle(el);
  const ctx = document.createElement('canvas').getContext('2d');
  ctx.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
  const text = el.tagName === 'SELECT' ? el.selectedOptions[0].text : (el.value || el.placeholder);
  const room = el.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - (el.tagName === 'SELECT' ? 20 : 0);
  return ctx.measureText(text).width <= room;
}"""
INSIDE = """([el, box]) => { const a = el.getBoundingClientRect(), b = box.getBoundingClientRect();
  return a.left >= b.left && a.right <= b.right; }"""


def _inside(tab, selector: str) -> bool:
    return tab.evaluate(f"({INSIDE})([document.querySelector('{selector}'), document.querySelector('{selector}').closest('.panel')])")


def test_labels_fit_and_read_well_at_1280_px(browser, serve_config, tmp_path):  # noqa: F811
    with app_tab(browser, serve_config, width=1280) as (tab, url):
        tab.wait_for_selector(f"{tid('character')} option[value='Wren Callow']", state="attached")
        assert tab.eval_on_selector(tid("reader"), FITS), "the reader menu's choice is cut off"
        assert tab.eval_on_selector(tid("say"), FITS), "the chat's placeholder is cut off"
        # No reader position: a stop names whose time point it is once, not "NAME: “1-3”" each.
        assert "“1-3”" not in tab.inner_text(tid("stop-label") + " + div")
        start_chat(tab, method="zero-shot")
        assert _inside(tab, "[data-testid=save]")
        say_help = "document.querySelectorAll('[data-testid=chat-note]').length"
        notes = tab.evaluate(say_help)
        tab.fill(tid("say"), "/help")
        tab.press(tid("say"), "Enter")
        tab.wait_for_function(f"{say_help} > {notes}")
        help_note = tab.locator(tid("chat-note")).last
        assert help_note.evaluate("el => getComputedStyle(el).whiteSpace") in ("pre-line", "pre-wrap")
        assert help_note.evaluate("el => el.getBoundingClientRect().height") > 60  # lines, not one paragraph
        tab.screenshot(path=str(tmp_path / "chat-1280.png"))

        tab.goto(url + "#/scene")
        tab.wait_for_selector(f"{tid('scene-character')}[value='Wren Callow']", state="attached")
        assert "set your reading first" in tab.inner_text(tid("scene-setting"))
        assert tab.eval_on_selector(tid("scene-setting"), FITS), "the setting hint is cut off"
        tab.check(f"{tid('scene-character')}[value='Wren Callow']")
        tab.check(f"{tid('scene-character')}[value='Ottilie Brand']")
        tab.click(tid("scene-start"))
        tab.wait_for_function("!document.querySelector('[data-testid=scene-say]').disabled")
        assert tab.eval_on_selector(tid("scene-say"), FITS), "the scene's placeholder is cut off"
        assert _inside(tab, "[data-testid=scene-save]"), "the scene's Save button is clipped"
        tab.fill(tid("scene-say"), "/next Wren")
        tab.press(tid("scene-say"), "Enter")
        tab.wait_for_selector(tid("scene-line-character"))
        who = tab.locator(f"{tid('scene-line-character')} .who").last.inner_text()
        assert who.startswith("Wren Callow · chosen by you") and "user" not in who
        tab.screenshot(path=str(tmp_path / "scene-1280.png"))

        tab.goto(url + "#/runs")
        tab.wait_for_selector(tid("runs-table"))
        lines = tab.evaluate("""() => [...document.querySelectorAll('[data-testid=run-row] td.nowrap')].map((td) => {
          const range = document.createRange(); range.selectNodeContents(td); return range.getClientRects().length; })""")
        assert lines and all(n == 1 for n in lines), lines  # "finished" on one line
