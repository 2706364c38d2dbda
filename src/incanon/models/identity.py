"""Which model answers: the identity that keys the response cache.

A model's *name* is for people (``gguf:SmolLM2``, ``openai:gpt-4o``); its *identity* says which
weights or which server produce the reply, so two different models never share cached replies:

- HTTP backends: the model name plus the normalized base URL (scheme and host lowercased,
  default port, credentials, query and trailing slash dropped). Never the API key.
- GGUF files: the file stem plus the file size and a hash of its first 8 MiB (header and tensor
  table) and of 64 blocks spread over the rest of the file, memoized per (path, size, mtime).
  Two quantizations or two fine-tunes of one architecture differ there; reading ~12 MiB keeps it
  instant for a 70 GB file.
- Scripted models: a hash of the rules' content.
"""

from __future__ import annotations

import hashlib
import os
import threading
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

_HEAD_BYTES = 8 << 20
_BLOCKS = 64
_BLOCK_BYTES = 64 << 10

_memo: dict[tuple[str, int, int], str] = {}
_memo_lock = threading.Lock()


def normalize_base_url(url: str) -> str:
    """``url`` as an identity: lowercased scheme and host, no credentials, default port, query,
    fragment or trailing slash (``HTTP://u:p@Host:80/v1/`` → ``http://host/v1``)."""
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    if ":" in host:  # IPv6 literal
        host = f"[{host}]"
    port = parts.port
    if port is not None and not ((scheme == "http" and port == 80) or (scheme == "https" and port == 443)):
        host = f"{host}:{port}"
    path = parts.path.rstrip("/")
    return urlunsplit((scheme, host, path, "", ""))


def file_fingerprint(path: str | os.PathLike[str]) -> str:
    """``<size>-<sha256 prefix>`` of a (large) model file, read as the module docstring says;
    memoized per (real path, size, mtime) so each process reads a file once."""
    file = Path(path).resolve()
    stat = file.stat()
    memo_key = (str(file), stat.st_size, stat.st_mtime_ns)
    with _memo_lock:
        found = _memo.get(memo_key)
    if found is not None:
        return found
    digest = hashlib.sha256()
    size = stat.st_size
    with open(file, "rb") as stream:
        digest.update(stream.read(_HEAD_BYTES))
        if size > _HEAD_BYTES:
            span = size - _HEAD_BYTES
            for index in range(_BLOCKS):
                stream.seek(_HEAD_BYTES + span * index // _BLOCKS)
                digest.update(stream.read(_BLOCK_BYTES))
            stream.seek(max(_HEAD_BYTES, size - _BLOCK_BYTES))
            digest.update(stream.read(_BLOCK_BYTES))
    value = f"{size}-{digest.hexdigest()[:20]}"
    with _memo_lock:
        _memo[memo_key] = value
    return value


def content_hash(data: bytes | str) -> str:
    """A short sha256 of ``data`` (rules files, prompts)."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    return hashlib.sha256(raw).hexdigest()[:20]


def model_identity(model: object) -> str:
    """The identity of the backend under any wrappers: its ``identity`` if it has one, else its
    ``name`` (a user-written backend without an identity keys the cache by name)."""
    while True:
        identity = getattr(type(model), "identity", None)
        if identity is not None:
            return str(getattr(model, "identity"))
        inner = getattr(model, "inner", None)
        if inner is None:
            return str(getattr(model, "name"))
        model = inner
