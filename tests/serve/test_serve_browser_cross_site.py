"""A page of another origin on this machine cannot make the app do anything, in a real Chromium.

The hostile page is served from a second port of 127.0.0.1 (same site, other origin) and from
``localhost:OTHERPORT`` (another site). It sends what a browser sends without asking: a
``text/plain`` form POST, ``navigator.sendBeacon`` and a ``no-cors`` fetch, to
``/v1/chat/completions`` and to ``/api/chats/ID/regenerate`` of a kept chat. Every one is
refused (403/415), the scripted model is not called, the chat is unchanged. The app's own page
still chats (``test_serve_browser.py``).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import pytest

from incanon.models import load_chat_model
from incanon.serve import BackgroundServer, ServeConfig
from incanon.testing.browser import chromium_browser, open_tab

from serve_helpers import character_model

MODEL = "lanterns/Wren Callow@1-3/zero-shot"
#: A form field named so that the text/plain body reads as the JSON a completion needs.
FORM_NAME = json.dumps({"model": MODEL, "messages": [{"role": "user", "content": "spend"}], "x": ""})[:-3]


def _hostile_page(target: str, chat_id: str) -> str:
    v1, regen = f"{target}v1/chat/completions", f"{target}api/chats/{chat_id}/regenerate"
    body = json.dumps({"model": MODEL, "messages": [{"role": "user", "content": "spend my budget"}]})
    forms = "".join(
        f'<iframe name="f{i}"></iframe><form id="form{i}" method="POST" enctype="text/plain" action="{url}" '
        f'target="f{i}"><input name=\'{FORM_NAME}\' value=\'"}}\'></form>'
        for i, url in enumerate((v1, regen)))
    return f"""<!doctype html><html><body>{forms}<script>
window.attack = async () => {{
  document.getElementById("form0").submit();
  document.getElementById("form1").submit();
  navigator.sendBeacon({json.dumps(v1)}, {json.dumps(body)});
  navigator.sendBeacon({json.dumps(regen)}, "");
  await fetch({json.dumps(v1)}, {{method: "POST", mode: "no-cors", body: {json.dumps(body)}}});
  await fetch({json.dumps(v1)}, {{method: "POST", mode: "no-cors", body: new Blob([{json.dumps(body)}])}});
  await fetch({json.dumps(regen)}, {{method: "POST", mode: "no-cors"}});
  return true;
}};
</script></body></html>"""


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    yield from chromium_browser()


class _Page(BaseHTTPRequestHandler):
    html = b""

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(self.html)))
        self.end_headers()
        self.wfile.write(self.html)

    def log_message(self, *args: object) -> None:
        pass


@pytest.mark.parametrize("hostile_host", ["127.0.0.1", "localhost"])
def test_a_page_of_another_origin_runs_nothing(browser, serve_config: ServeConfig, tmp_path: Path, hostile_host):
    scripted = character_model()
    config = replace(serve_config, chats=tmp_path / "chats.sqlite", methods=("zero-shot",))
    with BackgroundServer(config, model=load_chat_model(scripted)) as url:
        chat = httpx.post(url + "api/chats", json={"character": "Wren Callow", "at": "1-3", "method": "zero-shot"})
        assert chat.status_code == 201, chat.text
        chat_id = chat.json()["id"]
        assert httpx.post(url + f"api/chats/{chat_id}/say", json={"line": "Who rang the flood bell?"},
                          timeout=60).status_code == 200
        before, calls = httpx.get(url + f"api/chats/{chat_id}").json(), len(scripted.calls)

        page_class = type("HostilePage", (_Page,), {"html": _hostile_page(url, chat_id).encode()})
        hostile = ThreadingHTTPServer(("127.0.0.1", 0), page_class)
        threading.Thread(target=hostile.serve_forever, daemon=True).start()
        try:
            seen: list[tuple[str, int]] = []
            with open_tab(browser) as tab:
                tab.on("response", lambda r: seen.append((r.request.method + " " + r.url, r.status))
                       if r.url.startswith(url) else None)
                tab.goto(f"http://{hostile_host}:{hostile.server_address[1]}/")
                assert tab.evaluate("window.attack()") is True
                # Seven requests: 2 forms, 2 beacons, 3 fetches (beacons and forms end on their own).
                tab.wait_for_function("() => performance.getEntriesByType('resource').length >= 5")
                for _ in range(100):
                    if len(seen) >= 7:
                        break
                    tab.wait_for_timeout(100)
        finally:
            hostile.shutdown()
        assert len(seen) == 7, seen
        assert all(status in (403, 415) for _, status in seen), seen
        assert len(scripted.calls) == calls  # no completion ran
        after = httpx.get(url + f"api/chats/{chat_id}").json()
        assert after["turns"] == before["turns"]
        assert httpx.get(url + "api/completions").json() == []
