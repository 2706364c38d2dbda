"""Keep secrets out of everything incanon stores, prints or reports.

Two guards: ``strip_secrets`` removes config entries whose *name* says they hold a credential,
and ``redact`` masks anything that *looks* like one inside free text (error messages, model
specs with ``?api_key=`` in them). Run stores get shared and exported, so both err on the side of
removing too much.
"""

from __future__ import annotations

import os
import re
from typing import Any

REDACTED = "[REDACTED]"

# Words that, as a part of a config key, mark its (string) value as a credential. Matching is on
# whole words of the key ("api_key", "apiKey", "hf-token"), so "max_tokens" or "keyword" survive.
_SECRET_WORDS = frozenset(
    {
        "key",
        "apikey",
        "token",
        "secret",
        "secrets",
        "password",
        "passwd",
        "auth",
        "authorization",
        "credential",
        "credentials",
        "bearer",
        "cookie",
    }
)

# Known credential shapes; the first group (when present) is kept so the text stays readable.
_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"(Bearer\s+)[A-Za-z0-9._~+/\-]{8,}=*", re.IGNORECASE), r"\1" + REDACTED),
    (re.compile(r"(Basic\s+)[A-Za-z0-9+/]{6,}=*", re.IGNORECASE), r"\1" + REDACTED),
    # Credentials in a URL's userinfo: scheme://user:password@host
    (re.compile(r"(\b[A-Za-z][A-Za-z0-9+.\-]*://)[^/\s@?#]+@"), r"\1" + REDACTED + "@"),
    # Key-like query values: ?key=..., &access_token=..., &sig=...
    (re.compile(r"([?&](?:key|api[_-]?key|apikey|access[_-]?token|token|sig|signature|auth|password|secret)=)[^&\s\"'#]+",
                re.IGNORECASE), r"\1" + REDACTED),
    (
        re.compile(
            r"((?:api[_-]?key|access[_-]?token|auth[_-]?token|token|secret|password|passwd)"
            r"[\"']?\s*[=:]\s*[\"']?)[^\s\"'&,;]{6,}",
            re.IGNORECASE,
        ),
        r"\1" + REDACTED,
    ),
    (re.compile(r"\bsk-[A-Za-z0-9_\-]{12,}"), REDACTED),  # OpenAI / Anthropic style
    (re.compile(r"\b(?:ghp|gho|ghu|ghs|ghr|github_pat)_[A-Za-z0-9_]{20,}"), REDACTED),
    (re.compile(r"\bhf_[A-Za-z0-9]{20,}"), REDACTED),
    (re.compile(r"\bAKIA[0-9A-Z]{16}\b"), REDACTED),
    (re.compile(r"\bAIza[0-9A-Za-z_\-]{35}"), REDACTED),
    (re.compile(r"\bxox[abprs]-[A-Za-z0-9\-]{10,}"), REDACTED),
    (re.compile(r"\beyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"), REDACTED),
]


def _key_words(name: str) -> set[str]:
    # Split snake_case, kebab-case, dotted and camelCase names into lowercase words.
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    return {w for w in re.split(r"[^A-Za-z0-9]+", spaced.lower()) if w}


def is_secret_key(name: str) -> bool:
    """True when a config key's name says its value is a credential (``api_key``, ``hfToken``)."""
    return bool(_key_words(str(name)) & _SECRET_WORDS)


# Stricter than config keys: SSH_AUTH_SOCK or GPG_AGENT_INFO hold paths, not credentials.
_ENV_SECRET_WORDS = frozenset({"key", "apikey", "token", "secret", "password", "passwd"})


def _env_secret_values() -> list[str]:
    # The literal values of credential-looking environment variables: whatever their shape,
    # they must never reach the store (a self-hosted server's key can look like anything).
    values = []
    for name, value in os.environ.items():
        if len(value) < 8 or not (_key_words(name) & _ENV_SECRET_WORDS):
            continue
        if value.startswith(("/", "~", ".")) or os.path.exists(value):
            continue  # a path to a key file is not the key
        values.append(value)
    return sorted(values, key=len, reverse=True)


def redact(text: str) -> str:
    """Mask credential-looking substrings of ``text`` (and values of secret env variables)."""
    if not text:
        return text
    for value in _env_secret_values():
        if value in text:
            text = text.replace(value, REDACTED)
    for pattern, replacement in _PATTERNS:
        text = pattern.sub(replacement, text)
    return text


def strip_secrets(value: Any, path: str = "") -> tuple[Any, list[str]]:
    """Return ``value`` without credential entries, and the dotted paths that were removed.

    A mapping entry is removed when its key names a credential and its value is text or a
    container (numbers and booleans under such names, e.g. ``max_token: 5``, are kept); every
    remaining string is passed through :func:`redact`.
    """
    removed: list[str] = []
    if isinstance(value, dict):
        clean: dict[str, Any] = {}
        for key, item in value.items():
            here = f"{path}.{key}" if path else str(key)
            if is_secret_key(str(key)) and isinstance(item, (str, bytes, dict, list, tuple)) and item:
                removed.append(here)
                continue
            clean[key], inner = strip_secrets(item, here)
            removed.extend(inner)
        return clean, removed
    if isinstance(value, (list, tuple)):
        items = []
        for index, item in enumerate(value):
            cleaned, inner = strip_secrets(item, f"{path}[{index}]")
            items.append(cleaned)
            removed.extend(inner)
        return (type(value)(items) if isinstance(value, tuple) else items), removed
    if isinstance(value, str):
        masked = redact(value)
        if masked != value:
            removed.append(path or "<value>")
        return masked, removed
    return value, removed
