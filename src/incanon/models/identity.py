"""Which model answers: the identity that keys the response cache.

A model's *name* is for people (``gguf:SmolLM2``, ``openai:gpt-4o``); its *identity* says which
weights or which server produce the reply, so two different models never share cached replies:

- HTTP backends: the model name plus the normalized base URL (scheme and host lowercased,
  default port, credentials, query and trailing slash dropped). Never the API key.
- GGUF files: the file stem plus the file size and the sha256 of the whole file, so two files
  that differ in any byte never share replies. The hash is computed once per file version and
  remembered by device, inode, size and mtime (:mod:`incanon.models.filehash`).
- Scripted models: a hash of the rules' content.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

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
    """``<size>-<sha256 prefix>`` of a (large) model file: the hash covers every byte and is
    remembered per (device, inode, size, mtime), so a file is read once, not once per process."""
    from incanon.models.filehash import file_sha256

    file = Path(path).resolve()
    return f"{file.stat().st_size}-{file_sha256(file)[:20]}"


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
