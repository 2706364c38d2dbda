"""The accounting wrapper: counts calls, tokens, latency and cost, and reports them to meters."""

from __future__ import annotations

import logging
import time
from typing import Mapping, Sequence

from incanon.logs import SLOW_CALL_S
from incanon.models.types import ChatModel, Completion, GenerationParams, Message, Usage
from incanon.models.usage import record_usage

PriceTable = Mapping[str, tuple[float, float]]
"""``{model name: (USD per 1M input tokens, USD per 1M output tokens)}``."""


def price_of(prices: PriceTable | None, *names: str) -> tuple[float, float] | None:
    """The first price found for any of ``names``, trying each also without its ``kind:`` prefix."""
    if not prices:
        return None
    for name in names:
        for candidate in (name, name.partition(":")[2]):
            if candidate and candidate in prices:
                return prices[candidate]
    return None

log = logging.getLogger(__name__)


class AccountingModel:
    """The outermost wrapper: every call ends up in ``usage`` and in the active usage meters.

    Cache hits count as ``cached_calls`` with no tokens, latency or cost. A call that fails
    (after retries) counts as a call with its latency and nothing else.
    """

    def __init__(self, inner: ChatModel, *, prices: PriceTable | None = None):
        self.inner = inner
        self.prices = dict(prices or {})
        self.usage = Usage()
        """Everything this model object has spent so far."""

    @property
    def name(self) -> str:
        """The wrapped model's name."""
        return self.inner.name

    def __repr__(self) -> str:
        return f"AccountingModel({self.inner!r})"

    def _record(self, name: str, usage: Usage) -> None:
        self.usage = self.usage + usage
        record_usage(name, usage)

    async def generate(
        self, messages: Sequence[Message], params: GenerationParams | None = None
    ) -> Completion:
        """Generate and account for it."""
        name = self.name  # looked up once: it walks every wrapper below
        start = time.perf_counter()
        try:
            completion = await self.inner.generate(messages, params)
        except BaseException:
            self._record(name, Usage(calls=1, latency_s=time.perf_counter() - start))
            raise
        elapsed = time.perf_counter() - start
        if completion.cached:
            self._record(name, Usage(cached_calls=1))
            log.debug("%s: answered from the cache", name)
            return completion
        slow = elapsed >= SLOW_CALL_S
        level = logging.INFO if slow else logging.DEBUG
        if log.isEnabledFor(level):
            log.log(level, "%s: %s call, %d prompt + %d completion tokens in %.1fs", name,
                    "slow" if slow else "one", completion.prompt_tokens, completion.completion_tokens, elapsed)
        price = price_of(self.prices, completion.model, name)
        cost = 0.0
        if price is not None:
            cost = (completion.prompt_tokens * price[0] + completion.completion_tokens * price[1]) / 1e6
        self._record(
            name,
            Usage(
                calls=1,
                prompt_tokens=completion.prompt_tokens,
                completion_tokens=completion.completion_tokens,
                latency_s=time.perf_counter() - start,
                cost=cost,
            )
        )
        return completion
