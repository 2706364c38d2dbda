"""Retry against the fake server, one test per fault kind; delays asserted via injected sleep."""

from __future__ import annotations

import email.utils
import random
import time

import pytest

from incanon.errors import ModelError
from incanon.models import (
    GenerationParams,
    MalformedResponseError,
    RetryableError,
    RetryExhaustedError,
    RetryPolicy,
    load_chat_model,
    metered,
    parse_retry_after,
    user,
)
from incanon.testing import Disconnect, Hang, HTTPError, Malformed, RateLimited, ServerError, SlowBody

POLICY = RetryPolicy(max_attempts=3, base_delay_s=1.0, jitter=0.0)


def model_for(server, sleeps, *, options="", policy=POLICY):
    query = f"?{options}" if options else ""
    return load_chat_model(f"openai:fake@{server.base_url}{query}", retry=policy, sleep=sleeps)


async def test_rate_limit_honours_retry_after_seconds(server, sleeps):
    server.enqueue(RateLimited(retry_after="7"))
    completion = await model_for(server, sleeps).generate([user("hi")])
    assert completion.text == "echo: hi"
    assert sleeps.delays == [7.0]
    assert [r.status for r in server.chat_requests] == [429, 200]


async def test_rate_limit_honours_retry_after_http_date(server, sleeps):
    when = email.utils.formatdate(time.time() + 30, usegmt=True)
    server.enqueue(RateLimited(retry_after=when), ServerError(503, retry_after="2"))
    await model_for(server, sleeps).generate([user("hi")])
    assert 20 < sleeps.delays[0] <= 30
    assert sleeps.delays[1] == 2.0


async def test_server_error_then_success_backs_off(server, sleeps):
    server.enqueue(ServerError(500), ServerError(502))
    completion = await model_for(server, sleeps).generate([user("hi")])
    assert completion.text == "echo: hi"
    assert sleeps.delays == [1.0, 2.0]  # exponential, no jitter in this policy


async def test_timeout_then_success(server, sleeps):
    server.enqueue(Hang(seconds=10))
    completion = await model_for(server, sleeps, options="timeout=0.5").generate([user("hi")])
    assert completion.text == "echo: hi"
    assert len(sleeps.delays) == 1 and len(server.chat_requests) == 2


async def test_malformed_bodies_are_retried(server, sleeps):
    server.enqueue(Malformed(), Malformed.no_choices())
    completion = await model_for(server, sleeps).generate([user("hi")])
    assert completion.text == "echo: hi"
    assert len(server.chat_requests) == 3


async def test_dropped_connection_is_retried(server, sleeps):
    server.enqueue(Disconnect())
    assert (await model_for(server, sleeps).generate([user("hi")])).text == "echo: hi"
    assert len(sleeps.delays) == 1


async def test_slow_body_within_timeout_succeeds(server, sleeps):
    server.enqueue(SlowBody(pieces=4, interval=0.05, text="slow but sure"))
    completion = await model_for(server, sleeps, options="timeout=5").generate([user("hi")])
    assert completion.text == "slow but sure"
    assert sleeps.delays == [] and len(server.chat_requests) == 1


async def test_exhaustion_is_a_model_error_with_the_cause(server, sleeps):
    server.enqueue(ServerError(500), ServerError(503), ServerError(500))
    model = model_for(server, sleeps)
    with metered() as meter, pytest.raises(RetryExhaustedError) as info:
        await model.generate([user("hi")])
    error = info.value
    assert isinstance(error, ModelError)
    assert "gave up after 3 attempt(s)" in str(error) and "HTTP 500" in str(error)
    assert [e.status for e in error.errors] == [500, 503, 500]
    assert isinstance(error.__cause__, RetryableError) and error.__cause__ is error.last_error
    assert len(sleeps.delays) == 2
    assert meter.total.calls == 1 and meter.total.prompt_tokens == 0


@pytest.mark.parametrize("status", [400, 401, 404])
async def test_client_errors_are_not_retried(server, sleeps, status):
    server.enqueue(HTTPError(status, "nope"))
    with pytest.raises(ModelError) as info:
        await model_for(server, sleeps).generate([user("hi")])
    assert not isinstance(info.value, RetryableError)
    assert f"HTTP {status}" in str(info.value)
    assert sleeps.delays == [] and len(server.chat_requests) == 1


async def test_params_reach_the_server(server, sleeps):
    params = GenerationParams(
        temperature=0.4, top_p=0.9, max_tokens=33, stop=("END",), seed=5,
        response_format={"type": "json_object"},
    )
    await model_for(server, sleeps).generate([user("hi")], params)
    body = server.chat_requests[0].body
    assert body["model"] == "fake"
    assert (body["temperature"], body["top_p"], body["max_tokens"], body["stop"], body["seed"]) == (
        0.4, 0.9, 33, ["END"], 5
    )
    assert body["response_format"] == {"type": "json_object"}
    assert body["messages"] == [{"role": "user", "content": "hi"}]
    assert server.chat_requests[0].headers["x-stainless-retry-count"] == "0"


async def test_usage_comes_from_the_server(server, sleeps):
    completion = await model_for(server, sleeps).generate([user("one two three")])
    assert (completion.prompt_tokens, completion.completion_tokens) == (3, 4)
    assert completion.model == "fake" and completion.finish_reason == "stop"


def test_policy_backoff_is_capped_and_jittered():
    policy = RetryPolicy(base_delay_s=1, max_delay_s=5, jitter=0.5)
    rng = random.Random(1)
    delays = [policy.delay(n, RuntimeError(), rng) for n in range(1, 8)]
    assert all(0.5 <= d <= 1.5 for d in delays[:1])
    assert all(d <= 7.5 for d in delays)
    assert RetryPolicy(jitter=0, max_retry_after_s=10).delay(1, RetryableError("x", retry_after=99)) == 10


@pytest.mark.parametrize(
    "header, expected",
    [("3", 3.0), ("0.5", 0.5), ("-4", 0.0), ("", None), (None, None), ("soon", None), ("inf", None)],
)
def test_parse_retry_after_seconds(header, expected):
    assert parse_retry_after(header) == expected


def test_parse_retry_after_http_date():
    now = 1_700_000_000.0
    header = email.utils.formatdate(now + 120, usegmt=True)
    assert parse_retry_after(header, now=now) == pytest.approx(120)
    assert parse_retry_after(email.utils.formatdate(now - 60, usegmt=True), now=now) == 0.0


async def test_non_retryable_scripted_errors_pass_through(sleeps):
    from incanon.models import ScriptedModel

    backend = ScriptedModel(queue=[MalformedResponseError("garbled"), TimeoutError("slow"), "fine"])
    model = load_chat_model(backend, retry=POLICY, sleep=sleeps)
    assert (await model.generate([user("x")])).text == "fine"
    assert sleeps.delays == [1.0, 2.0]
