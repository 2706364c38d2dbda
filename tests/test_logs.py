"""Nothing long happens in silence: waits, retries and calls reach stderr and the log file."""

from __future__ import annotations

import asyncio
import logging

import pytest

from incanon.logs import configure
from incanon.models import load_chat_model, user
from incanon.testing import FakeOpenAIServer, RateLimited
from incanon.testing.cli import run_cli


@pytest.fixture(autouse=True)
def _reset_logging():
    yield
    configure(0)
    logger = logging.getLogger("incanon")
    for handler in list(logger.handlers):
        logger.removeHandler(handler)


async def _no_sleep(seconds: float) -> None:
    return None


def _call_through_a_429(retry_after: str) -> None:
    with FakeOpenAIServer(default="fine") as server:
        server.enqueue(RateLimited(retry_after))
        model = load_chat_model(f"openai:m@{server.base_url}", sleep=_no_sleep)
        assert asyncio.run(model.generate([user("hello")])).text == "fine"


def test_a_long_retry_after_wait_is_shown_by_default(capsys):
    configure(0)
    _call_through_a_429("16")
    err = capsys.readouterr().err
    assert "retrying in 16.0s" in err and "429" in err


def test_short_retries_show_only_with_verbose(capsys):
    configure(0)
    _call_through_a_429("1")
    assert "retrying" not in capsys.readouterr().err
    configure(1)
    _call_through_a_429("1")
    assert "retrying in 1.0s" in capsys.readouterr().err


def test_the_log_file_holds_every_call_and_no_secret(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("MY_TEST_KEY", "sk-very-secret-key-value-123")
    log = tmp_path / "incanon.log"
    configure(0, log)
    with FakeOpenAIServer(default="fine") as server:
        server.enqueue(RateLimited("1"))
        model = load_chat_model(f"openai:m@{server.base_url}?key_env=MY_TEST_KEY", sleep=_no_sleep)
        asyncio.run(model.generate([user("hello")]))
    text = log.read_text()
    assert "retrying in 1.0s" in text and "completion tokens" in text
    assert "sk-very-secret-key-value-123" not in text and "sk-very-secret" not in capsys.readouterr().err


def test_cli_flags_configure_logging(tmp_path):
    log = tmp_path / "run.log"
    res = run_cli(["-vv", "--log-file", str(log), "models", "--json"])
    assert res.returncode == 0 and log.exists()


def test_a_warning_during_a_progress_bar_prints_above_it():
    # The bar's Live display routes sys.stderr above itself; the log handler must write to the
    # stream of the moment, not the one it saw when logging was set up.
    import io

    from rich.console import Console

    from incanon.runs.progress import RunProgress

    configure(0)
    buf = io.StringIO()
    progress = RunProgress(console=Console(file=buf, force_terminal=True, width=120, markup=False))
    progress.start("zero-shot", total=4)
    progress.advance(True)
    logging.getLogger("incanon.models.retry").warning("m: attempt 1 failed (429); retrying in 3.0s")
    progress.advance(True)
    progress.stop()
    lines = buf.getvalue().splitlines()
    (said,) = [line for line in lines if "retrying in 3.0s" in line]
    # A line of its own: no bar, label or counts around the message.
    assert "zero-shot" not in said and "/4" not in said and "━" not in said
    assert said.strip().endswith("incanon: m: attempt 1 failed (429); retrying in 3.0s")
