"""Credentials in URLs and headers never reach the run store, exports, reports or error lines."""

from __future__ import annotations

import json

import pytest

from incanon.runs import ItemOutcome, RunConfig, RunItem, RunStore, run
from incanon.secrets import REDACTED, redact
from incanon.testing.cli import run_cli

URL = "http://alice:hunter2-s3cret@127.0.0.1:9/v1"


@pytest.mark.parametrize(
    ("text", "gone"),
    [
        (f"openai:m@{URL}", "hunter2-s3cret"),
        ("https://user:pw12345678@api.example.com/v1?x=1", "pw12345678"),
        ("GET /v1/models?key=AIzaSyZZZZZZZZZZZZZZZZZ&alt=json", "AIzaSyZZZZZZZZZZZZZZZZZ"),
        ("Authorization: Basic YWxpY2U6aHVudGVyMg==", "YWxpY2U6aHVudGVyMg=="),
        ("url?access_token=abcdef123456", "abcdef123456"),
    ],
)
def test_redact_masks_credentials_in_urls_and_headers(text, gone):
    masked = redact(text)
    assert gone not in masked and REDACTED in masked


def test_redact_keeps_what_is_not_a_credential():
    text = "openai:m@http://127.0.0.1:8000/v1?key_env=MY_KEY&timeout=5 max_tokens=5"
    assert redact(text) == text


def test_a_url_with_credentials_never_reaches_the_run_store_or_its_export(tmp_path):
    config = RunConfig(benchmark="secret-test", models={"agent": f"openai:m@{URL}"})

    async def task(item: RunItem) -> ItemOutcome:
        raise RuntimeError(f"connection to {URL} failed; sent Authorization: Basic YWxpY2U6aHVudGVyMg==")

    store_path = tmp_path / "runs.sqlite"
    with RunStore(store_path) as store:
        result = run([RunItem(id="a", input={"q": 1})], task, store=store, config=config, progress=False)
    raw = b"".join(p.read_bytes() for p in tmp_path.glob("runs.sqlite*"))
    assert b"hunter2-s3cret" not in raw and b"YWxpY2U6aHVudGVyMg==" not in raw
    exported = run_cli(
        ["runs", "export", result.run_id, "--runs", str(store_path)],
    )
    assert exported.returncode == 0 and "hunter2-s3cret" not in exported.stdout
    shown = run_cli(
        ["runs", "show", result.run_id, "--runs", str(store_path), "--json"],
    )
    assert "hunter2-s3cret" not in shown.stdout and json.loads(shown.stdout)


def test_an_error_line_never_shows_a_url_credential(tmp_path):
    res = run_cli(
        ["demo", "--model", f"openai:m@{URL}?api_key=sk-abcdefghijklmnop",
         "--store", str(tmp_path / "s"), "--runs", str(tmp_path / "r.sqlite")], timeout=120,
    )
    assert res.returncode == 2
    assert "hunter2-s3cret" not in res.stderr and "sk-abcdefghijklmnop" not in res.stderr
    assert "key_env" in res.stderr
