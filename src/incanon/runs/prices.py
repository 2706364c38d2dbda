"""Prices per model, so a run knows what it spends (``--prices FILE``, ``--max-cost``).

A price file maps a model spec or name to USD per million tokens::

    {"openai:gpt-4o-mini": {"input_per_1m": 0.15, "output_per_1m": 0.60},
     "my-vllm-model":      {"input_per_1m": 0,    "output_per_1m": 0},
     "openai:*":           {"input_per_1m": 5,    "output_per_1m": 15}}

(JSON, or TOML with one table per model). A key matches a model by its name as the model
reports it (``openai:gpt-4o-mini``, ``gguf:SmolLM2-135M-Instruct``), by that name without
its ``kind:`` prefix, or as a glob pattern; a spec's ``@BASE_URL`` and ``?options`` are ignored.
Entries of the file win over the built-in table, which prices local models (embedded, GGUF,
scripted) at 0 and has a few hosted models as dated examples.
"""

from __future__ import annotations

import fnmatch
import tomllib
from pathlib import Path
from typing import Any, Iterable, Mapping

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from incanon.errors import ConfigError, InputError
from incanon.models.types import Usage


class Price(BaseModel):
    """USD per million tokens of one model."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    input_per_1m: float = Field(ge=0)
    """USD per 1M prompt (input) tokens."""
    output_per_1m: float = Field(ge=0)
    """USD per 1M completion (output) tokens."""

    def cost(self, prompt_tokens: float, completion_tokens: float) -> float:
        """USD for that many tokens."""
        return (prompt_tokens * self.input_per_1m + completion_tokens * self.output_per_1m) / 1e6


EXAMPLE_PRICES_DATE = "2025-04"
"""When the example hosted-model prices below were the providers' list prices."""

BUILTIN_PRICES: dict[str, Price] = {
    # Local models: no per-token bill (the machine's time is not priced here).
    "embedded": Price(input_per_1m=0, output_per_1m=0),
    "gguf:*": Price(input_per_1m=0, output_per_1m=0),
    "scripted": Price(input_per_1m=0, output_per_1m=0),
    "scripted:*": Price(input_per_1m=0, output_per_1m=0),
    # EXAMPLES ONLY: OpenAI list prices as of 2025-04 (EXAMPLE_PRICES_DATE), not kept up to
    # date. Put the prices you actually pay in a --prices file; its entries win over these.
    "openai:gpt-4o-mini": Price(input_per_1m=0.15, output_per_1m=0.60),
    "openai:gpt-4o": Price(input_per_1m=2.50, output_per_1m=10.00),
    "openai:gpt-4.1": Price(input_per_1m=2.00, output_per_1m=8.00),
    "openai:gpt-4.1-mini": Price(input_per_1m=0.40, output_per_1m=1.60),
    "openai:gpt-4.1-nano": Price(input_per_1m=0.10, output_per_1m=0.40),
}


def model_key(spec_or_name: str) -> str:
    """A spec or name as models report it: no ``?options``, no ``@BASE_URL``, GGUF and scripted
    files by their stem."""
    key = spec_or_name.strip().split("?", 1)[0]
    kind, sep, rest = key.partition(":")
    if sep and kind == "openai":
        key = f"{kind}:{rest.split('@', 1)[0]}"
    elif sep and kind in ("gguf", "scripted") and rest.endswith((".gguf", ".json")):
        key = f"{kind}:{Path(rest).stem}"  # the name these backends report: the file's stem
    return key


def _is_glob(key: str) -> bool:
    return any(ch in key for ch in "*?[")


class Prices:
    """A price table: exact names, then names without their ``kind:`` prefix, then globs
    (longest first); what this table does not price is looked up in ``fallback``."""

    def __init__(self, entries: Mapping[str, Any] | None = None,
                 *, fallback: "Prices | None" = None, source: str = "prices"):
        self.source = source
        self.fallback = fallback
        self.entries: dict[str, Price] = {}
        for raw_key, value in (entries or {}).items():
            try:
                if isinstance(value, Price):
                    price = value
                elif isinstance(value, (tuple, list)) and len(value) == 2:  # models' (in, out) form
                    price = Price(input_per_1m=value[0], output_per_1m=value[1])
                else:
                    price = Price.model_validate(value)
            except ValidationError as exc:
                problem = exc.errors()[0]
                where = ".".join(str(p) for p in problem["loc"]) or "value"
                raise InputError(
                    f"price of {raw_key!r}: {where}: {problem['msg']} (expected "
                    "{\"input_per_1m\": USD, \"output_per_1m\": USD})", source=source) from None
            self.entries[model_key(raw_key)] = price
        self._globs = sorted((k for k in self.entries if _is_glob(k)), key=len, reverse=True)

    @classmethod
    def builtin(cls) -> "Prices":
        """The built-in table: local models at 0, dated examples for a few hosted models."""
        return cls(BUILTIN_PRICES, source="built-in prices")

    def own_lookup(self, name: str) -> Price | None:
        """The price of ``name`` in this table only (no fallback)."""
        name = model_key(name)
        short = name.partition(":")[2]
        for candidate in (name, short):
            if candidate and candidate in self.entries:
                return self.entries[candidate]
        for pattern in self._globs:
            if fnmatch.fnmatchcase(name, pattern) or (short and fnmatch.fnmatchcase(short, pattern)):
                return self.entries[pattern]
        return None

    def lookup(self, name: str) -> Price | None:
        """The price of the model ``name`` (a name or spec), or None when unknown."""
        price = self.own_lookup(name)
        if price is None and self.fallback is not None:
            return self.fallback.lookup(name)
        return price

    def cost(self, name: str, prompt_tokens: float, completion_tokens: float) -> float | None:
        """USD for that many tokens of ``name``; None when its price is unknown."""
        price = self.lookup(name)
        return None if price is None else price.cost(prompt_tokens, completion_tokens)

    def price_meter(self, by_model: Mapping[str, Usage]) -> tuple[Usage, list[str]]:
        """Total usage with each model's cost from this table, and the models without a price.

        A model the table does not price keeps the cost its wrapper computed; one that made
        calls and has neither counts as free and is named in the second value.
        """
        total, unpriced = Usage(), []
        for name, usage in by_model.items():
            price = self.lookup(name)
            if price is not None:
                usage = usage.model_copy(
                    update={"cost": price.cost(usage.prompt_tokens, usage.completion_tokens)})
            elif usage.calls and not usage.cost:
                unpriced.append(name)
            total = total + usage
        return total, unpriced

    def names(self) -> Iterable[tuple[str, Price, str]]:
        """(key, price, source) of every entry, this table's first."""
        for key, price in self.entries.items():
            yield key, price, self.source
        if self.fallback is not None:
            yield from ((k, p, s) for k, p, s in self.fallback.names() if k not in self.entries)


def load_prices(path: str | Path | None = None, *, builtin: bool = True) -> Prices:
    """The table in ``path`` (JSON or TOML) over the built-in one; just the built-in without a path."""
    base = Prices.builtin() if builtin else None
    if path is None:
        return base or Prices()
    from incanon.reading import parse_json, read_text

    path = Path(path).expanduser()
    if not path.exists():
        raise ConfigError(f"price file {path} does not exist")
    text = read_text(path, "price file")
    data: Any
    if path.suffix.lower() == ".toml":
        try:
            data = tomllib.loads(text)
        except (tomllib.TOMLDecodeError, RecursionError, ValueError) as exc:
            raise InputError(f"not valid TOML: {str(exc)[:200]}", source=str(path)) from None
    else:
        data = parse_json(text, str(path))
    if isinstance(data, dict) and isinstance(data.get("prices"), dict):
        data = data["prices"]  # allow {"prices": {...}} / a [prices] table
    if not isinstance(data, dict):
        raise InputError("expected an object of model → {input_per_1m, output_per_1m}", source=str(path))
    return Prices(data, fallback=base, source=str(path))


PricesArg = Prices | Mapping[str, Any] | str | Path | None
"""A table, a mapping of model → price, a price file, or None for the built-in table."""


def as_prices(value: PricesArg) -> Prices:
    """``value`` as a :class:`Prices` (mappings and files sit over the built-in table)."""
    if isinstance(value, Prices):
        return value
    if value is None:
        return Prices.builtin()
    if isinstance(value, (str, Path)):
        return load_prices(value)
    return Prices(value, fallback=Prices.builtin(), source="prices")
