"""Make ``docs/images/webapp.png``, the README's picture of the web app.

Serves the sample world and a few scripted runs on 127.0.0.1 with a scripted character model
(offline, no key), opens the chat in headless Chromium (Debian's ``chromium``), puts Wren Callow
at the end of book 1, asks one question and takes the picture. Run from the repository root:

    .venv/bin/python docs/images/webapp.py [--out docs/images/webapp.png]
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import tempfile
from pathlib import Path

from incanon.canon import CanonStore
from incanon.models import ScriptedModel
from incanon.sample import sample_world
from incanon.serve import BackgroundServer, ServeConfig
from incanon.testing.sample_runs import make_sample_runs

QUESTION = "Did you hear the flood bell last night?"
REPLY = ("*Wren sets the wick-trimmer down.* The flood bell? No. Nobody has rung it in my lifetime, "
         "and **the Sea-Wall has held for a hundred years**, so the crier says.\n\n"
         "What I heard last night was the Drowned Wick: Jory, Sefa and Nell toasting my win.")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).with_name("webapp.png"))
    args = parser.parse_args()
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        raise SystemExit("no Chromium found: install Debian's chromium package")
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        runs = asyncio.run(make_sample_runs(root))
        with CanonStore.open(root / "webapp-canon") as store:
            store.import_world(sample_world())
        model = ScriptedModel(default=REPLY, name="scripted")
        config = ServeConfig(canon=root / "webapp-canon", runs=runs.runs_path, model="scripted", cache=False)
        # The default method (in-canon) embeds the sample world first: about a minute on 2 cores.
        with BackgroundServer(config, model=model) as url, sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=chromium, headless=True,
                                                 args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"])
            tab = browser.new_page(viewport={"width": 1280, "height": 760}, device_scale_factor=1)
            tab.set_default_timeout(600_000)
            tab.goto(url)
            tab.wait_for_selector("[data-testid=character] option[value='Wren Callow']", state="attached")
            tab.select_option("[data-testid=character]", "Wren Callow")
            tab.get_by_role("button", name="end of book 1 (1-3)").click()
            tab.click("[data-testid=start]")
            tab.wait_for_selector("[data-testid=chat-note]")
            tab.fill("[data-testid=say]", QUESTION)
            tab.press("[data-testid=say]", "Enter")
            tab.wait_for_selector("[data-testid=turn-character]")
            tab.wait_for_timeout(500)
            tab.evaluate("window.scrollTo(0, 0)")
            tab.screenshot(path=str(args.out))
            browser.close()
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
