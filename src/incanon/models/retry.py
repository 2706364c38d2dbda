"""Retry with exponential backoff and jitter; the only retry layer of the stack.

Backends translate their failures into ``RetryableError`` (429, 5xx, timeouts, lost
connections, garbled bodies) or a plain ``ModelError`` (400, 401, 404, ...), so this module
knows no backend library. The sleep function is injectable: tests record the delays instead
of waiting them out.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from typing import Awaitable, Callable, Sequence, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from incanon.logs import LONG_WAIT_S, NOTICE
from incanon.models.faults import RetryableError, RetryExhaustedError
from incanon.models.types import ChatModel, Completion, GenerationParams, Message

log = logging.getLogger(__name__)

T = TypeVar("T")


class RetryPolicy(BaseModel):
    """How often and how long to retry."""

    model_config = ConfigDict(frozen=True)

    max_attempts: int = Field(default=5, ge=1)
    """Attempts in all, the first included; 1 means no retry."""
    base_delay_s: float = Field(default=0.5, ge=0)
    """Delay after the first failure; doubled after each further one."""
    max_delay_s: float = Field(default=30.0, ge=0)
    """Cap of the exponential delay."""
    jitter: float = Field(default=0.25, ge=0, le=1)
    """Each delay is multiplied by a random factor in [1 - jitter, 1 + jitter]."""
    max_retry_after_s: float = Field(default=300.0, ge=0)
    """Cap on a server's ``Retry-After`` (a broken server must not stall a run for a day)."""

    def delay(self, failures: int, error: BaseException, rng: random.Random | None = None) -> float:
        """Seconds to wait after ``failures`` failed attempts, the last of them ``error``.

        A server's ``Retry-After`` is honoured as given (up to the cap); otherwise exponential
        backoff with jitter, so many clients that failed together do not retry together.
        """
        retry_after = getattr(error, "retry_after", None)
        if retry_after is not None:
            return min(float(retry_after), self.max_retry_after_s)
        backoff = min(self.max_delay_s, self.base_delay_s * 2 ** (failures - 1))
        factor = 1.0 + (rng or random).uniform(-self.jitter, self.jitter)
        return max(0.0, backoff * factor)


def is_retryable(error: BaseException) -> bool:
    """True for errors worth another attempt (ours, plus plain timeouts and connection errors)."""
    return isinstance(error, (RetryableError, TimeoutError, ConnectionError))


def _exhausted(name: str, errors: Sequence[BaseException]) -> RetryExhaustedError:
    last = errors[-1]
    return RetryExhaustedError(
        f"{name}: gave up after {len(errors)} attempt(s); last error: {type(last).__name__}: {last}",
        errors=list(errors),
    )


async def call_with_retry(
    name: str,
    call: Callable[[], Awaitable[T]],
    policy: RetryPolicy,
    *,
    sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
    rng: random.Random | None = None,
) -> T:
    """Await ``call()`` until it succeeds, fails for good, or the attempts run out."""
    errors: list[BaseException] = []
    for attempt in range(1, policy.max_attempts + 1):
        try:
            return await call()
        except Exception as exc:  # noqa: BLE001 - sorted below, non-retryable ones re-raised
            if not is_retryable(exc):
                raise
            errors.append(exc)
        if attempt < policy.max_attempts:
            wait = policy.delay(attempt, errors[-1], rng)
            log.log(NOTICE if wait >= LONG_WAIT_S else logging.INFO,
                    "%s: attempt %d failed (%s); retrying in %.1fs", name, attempt, errors[-1], wait)
            await sleep(wait)
    raise _exhausted(name, errors) from errors[-1]


def call_with_retry_sync(
    name: str,
    call: Callable[[], T],
    policy: RetryPolicy,
    *,
    sleep: Callable[[float], object] = time.sleep,
    rng: random.Random | None = None,
) -> T:
    """The blocking twin of ``call_with_retry`` (embedders are synchronous)."""
    errors: list[BaseException] = []
    for attempt in range(1, policy.max_attempts + 1):
        try:
            return call()
        except Exception as exc:  # noqa: BLE001
            if not is_retryable(exc):
                raise
            errors.append(exc)
        if attempt < policy.max_attempts:
            wait = policy.delay(attempt, errors[-1], rng)
            log.log(NOTICE if wait >= LONG_WAIT_S else logging.INFO,
                    "%s: attempt %d failed (%s); retrying in %.1fs", name, attempt, errors[-1], wait)
            sleep(wait)
    raise _exhausted(name, errors) from errors[-1]


class RetryingModel:
    """Retries the wrapped model's retryable failures according to a ``RetryPolicy``."""

    def __init__(
        self,
        inner: ChatModel,
        policy: RetryPolicy | None = None,
        *,
        sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
        rng: random.Random | None = None,
    ):
        self.inner = inner
        self.policy = policy or RetryPolicy()
        self._sleep = sleep
        self._rng = rng or random.Random()

    @property
    def name(self) -> str:
        """The wrapped model's name."""
        return self.inner.name

    def __repr__(self) -> str:
        return f"RetryingModel({self.inner!r}, max_attempts={self.policy.max_attempts})"

    async def generate(
        self, messages: Sequence[Message], params: GenerationParams | None = None
    ) -> Completion:
        """Generate, retrying as the policy says; ``RetryExhaustedError`` when attempts run out."""
        return await call_with_retry(
            self.name,
            lambda: self.inner.generate(messages, params),
            self.policy,
            sleep=self._sleep,
            rng=self._rng,
        )
