"""The sha256 of a whole model file, computed once per file version and remembered on disk.

A GGUF's identity keys the response cache, so two files that differ anywhere must get two
identities: sampling blocks of the file is not enough (a fine-tune may differ only between the
samples, and the cache would answer with the other file's reply). Reading a large file takes a
while, so the digest is remembered in ``file-hashes.json`` beside the response cache, keyed by
device, inode, size and modification time: a file replaced, rewritten or touched is hashed again,
an unchanged one never.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import threading
from pathlib import Path

log = logging.getLogger(__name__)

MEMO_NAME = "file-hashes.json"
#: Entries kept in the memo; the oldest go first (a user rarely has more model files than this).
MEMO_LIMIT = 512
_CHUNK = 4 << 20

_lock = threading.Lock()
_process_memo: dict[str, str] = {}


def _memo_path() -> Path:
    from incanon.paths import home

    return home() / MEMO_NAME


def _key(stat: os.stat_result) -> str:
    return f"{stat.st_dev}:{stat.st_ino}:{stat.st_size}:{stat.st_mtime_ns}"


def _load(path: Path) -> dict[str, str]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}  # missing or damaged: the memo is only a shortcut, hash again
    return {k: v for k, v in data.items() if isinstance(k, str) and isinstance(v, str)} if isinstance(data, dict) else {}


def _save(path: Path, memo: dict[str, str]) -> None:
    from incanon.files import write_text_atomic

    keep = dict(list(memo.items())[-MEMO_LIMIT:])
    try:
        write_text_atomic(path, json.dumps(keep, indent=0))
    except OSError as exc:  # a read-only or full home: the next process hashes again, no harm
        log.debug("could not remember file hashes in %s: %s", path, exc)


def _digest(file: Path) -> str:
    digest = hashlib.sha256()
    with open(file, "rb") as stream:
        while chunk := stream.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def file_sha256(path: str | os.PathLike[str]) -> str:
    """The hex sha256 of the whole file at ``path``; read once per (device, inode, size, mtime),
    then answered from this process's memory or the on-disk memo."""
    file = Path(path).resolve()
    before = file.stat()
    key = _key(before)
    with _lock:
        if key in _process_memo:
            return _process_memo[key]
    memo_file = _memo_path()
    found = _load(memo_file).get(key)
    if found is None:
        if before.st_size > (1 << 30):
            log.warning("hashing %s once (%.1f GB) to key the response cache", file, before.st_size / 1e9)
        found = _digest(file)
        if _key(file.stat()) != key:
            return found  # changed while being read: right for this call, not worth remembering
        with _lock:
            memo = _load(memo_file)
            memo.pop(key, None)
            memo[key] = found
            _save(memo_file, memo)
    with _lock:
        _process_memo[key] = found
    return found
