"""The one token counter of incanon: a model's tokenizer when there is one, else an estimate.

``count_tokens(text)`` and ``token_spans(text)`` use the default tokenizer:

* **gguf** (the default when llama-cpp-python and a GGUF file are there): the vocabulary of the
  embedded SmolLM2 GGUF, loaded with ``vocab_only=True`` (no weights, ~0.2 s once per process).
  It is a byte-level BPE of the GPT-2 family, the standard offline tokenizer here: tiktoken
  cannot be used, it downloads its files at run time.
* **estimate** (no GGUF, or ``INCANON_TOKENIZER=estimate``): one token per word or punctuation
  mark, and one per CJK character, since CJK text has no spaces and a BPE spends about one
  token per character on it (counting words undercounts Chinese tenfold).

``Tokenizer.name`` says which one counted, so a report can print it. Spans are character offsets
into the text, so a chunker can cut the text at token boundaries and keep its spacing.
"""

from __future__ import annotations

import functools
import os
import re
import threading
from typing import Protocol

# CJK ideographs, kana and hangul: counted one token per character by the estimate.
_CJK = "\u2e80-\u2fff\u3040-\u30ff\u3100-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
_ESTIMATE = re.compile(rf"[{_CJK}]|[^\W{_CJK}]+|[^\w\s]")
TOKENIZER_ENV = "INCANON_TOKENIZER"


class Tokenizer(Protocol):
    """Counts tokens and gives their spans."""

    name: str

    def spans(self, text: str) -> list[tuple[int, int]]:
        """(start, end) character offsets of each token of ``text``; whitespace may be left out."""
        ...

    def count(self, text: str) -> int:
        """Number of tokens of ``text``."""
        ...


class EstimateTokenizer:
    """Words, punctuation marks and single CJK characters: close to a BPE count on English
    prose and on Chinese or Japanese text alike, without any vocabulary file."""

    name = "estimate"

    def spans(self, text: str) -> list[tuple[int, int]]:
        return [m.span() for m in _ESTIMATE.finditer(text)]

    def count(self, text: str) -> int:
        return sum(1 for _ in _ESTIMATE.finditer(text))

    def weighted_spans(self, text: str) -> tuple[list[tuple[int, int]], list[int]]:
        """The spans, each one token."""
        spans = self.spans(text)
        return spans, [1] * len(spans)


class GGUFTokenizer:
    """The vocabulary of a GGUF file through llama-cpp-python (no weights are loaded)."""

    def __init__(self, path: str):
        from incanon.threads import share_cores

        share_cores()
        import llama_cpp

        from incanon.models.gguf import free_at_exit

        self.path = path
        self.name = f"gguf:{os.path.basename(path)}"
        self._lock = threading.Lock()
        self._pieces: dict[int, bytes] = {}
        with _quiet_stderr():
            self._llama = free_at_exit(llama_cpp.Llama(model_path=path, vocab_only=True, verbose=False))

    def _ids(self, text: str) -> list[int]:
        with self._lock:
            return list(self._llama.tokenize(text.encode("utf-8"), add_bos=False, special=False))

    def count(self, text: str) -> int:
        return len(self._ids(text)) if text else 0

    def spans(self, text: str) -> list[tuple[int, int]]:
        return self.weighted_spans(text)[0]

    def weighted_spans(self, text: str) -> tuple[list[tuple[int, int]], list[int]]:
        """The spans, and how many tokens each holds: a CJK character is often two or three
        byte tokens, which share its one span (a chunker that took a span for a token would cut
        windows twice too long and shrink them one re-tokenisation at a time)."""
        if not text:
            return [], []
        ids = self._ids(text)
        with self._lock:
            # A token's bytes never change: each distinct one is detokenized once per process
            # (detokenizing all 1.7M tokens of a Chinese novel one by one took 6 s).
            known = self._pieces
            pieces = [known.get(i) or known.setdefault(i, self._llama.detokenize([i])) for i in ids]
        raw = text.encode("utf-8")
        if b"".join(pieces) != raw:  # a tokenizer that rewrites text: its offsets mean nothing
            return EstimateTokenizer().weighted_spans(text)
        import numpy as np

        # byte offset -> character offset (a token may end inside a multi-byte character): the
        # character a byte belongs to is the number of character starts up to it, less one.
        data = np.frombuffer(raw, dtype=np.uint8)
        char_of = np.empty(len(raw) + 1, dtype=np.int64)
        np.cumsum((data & 0xC0) != 0x80, out=char_of[:-1])
        char_of[:-1] -= 1
        char_of[-1] = len(text)
        lengths = np.fromiter((len(p) for p in pieces), dtype=np.int64, count=len(pieces))
        ends_b = np.cumsum(lengths)
        starts, ends = char_of[ends_b - lengths], char_of[ends_b]
        # A piece inside one character belongs to the previous token's span (before the first
        # span: to the first), so a span's weight is the number of tokens it holds.
        keep = ends > starts
        if not keep.any():
            return [], []
        group = np.maximum(np.cumsum(keep) - 1, 0)
        weights = np.bincount(group, minlength=int(keep.sum()))
        out = list(zip(starts[keep].tolist(), ends[keep].tolist()))
        return out, weights.tolist()


class _quiet_stderr:
    """llama.cpp prints context warnings even with verbose=False: on fd 2, or through
    llama-cpp-python's log callback, which writes to ``sys.stderr``."""

    def __enter__(self) -> None:
        import io
        import sys

        self._py = sys.stderr
        sys.stderr = io.StringIO()
        try:
            self._saved = os.dup(2)
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 2)
            os.close(devnull)
        except OSError:
            self._saved = -1

    def __exit__(self, *exc: object) -> None:
        import sys

        sys.stderr = self._py
        if self._saved >= 0:
            os.dup2(self._saved, 2)
            os.close(self._saved)


_loaded: dict[str, Tokenizer] = {}
_loaded_lock = threading.Lock()


def default_tokenizer() -> Tokenizer:
    """The GGUF tokenizer of the default embedded model when available, else the estimate
    (``INCANON_TOKENIZER=estimate`` forces it; ``INCANON_TOKENIZER=PATH.gguf`` picks a file).
    Loaded once per process and choice: reading a vocabulary takes a moment."""
    choice = os.environ.get(TOKENIZER_ENV, "").strip()
    with _loaded_lock:
        found = _loaded.get(choice)
        if found is None:
            found = _loaded[choice] = _load(choice)
        return found


def _load(choice: str) -> Tokenizer:
    if choice == "estimate":
        return EstimateTokenizer()
    path = choice or None
    if path is None:
        try:
            from incanon.models.gguf import locate_default_gguf

            found = locate_default_gguf()
        except Exception:  # noqa: BLE001 - no model package: the estimate is the documented fallback
            found = None
        path = str(found) if found else None
    if path is None:
        return EstimateTokenizer()
    try:
        return GGUFTokenizer(path)
    except Exception:  # noqa: BLE001 - llama-cpp missing or the file unreadable: estimate instead
        return EstimateTokenizer()


def count_tokens(text: str) -> int:
    """Tokens of ``text`` by the default tokenizer (the last few thousand texts are remembered:
    a chunker counts each window it cuts, and the estimate and the graph count the same chunk
    again)."""
    return _count(default_tokenizer(), text)


@functools.lru_cache(maxsize=4096)
def _count(tokenizer: Tokenizer, text: str) -> int:
    return tokenizer.count(text)


def token_spans(text: str) -> list[tuple[int, int]]:
    """Character spans of the tokens of ``text`` by the default tokenizer."""
    return default_tokenizer().spans(text)


def weighted_token_spans(text: str) -> tuple[list[tuple[int, int]], list[int]]:
    """Character spans of ``text``'s tokens and the tokens each span holds (more than one where
    a tokenizer spends several byte tokens on one character); a tokenizer without weights
    counts one per span."""
    tokenizer = default_tokenizer()
    weighted = getattr(tokenizer, "weighted_spans", None)
    if weighted is not None:
        return weighted(text)  # type: ignore[no-any-return]
    spans = tokenizer.spans(text)
    return spans, [1] * len(spans)


def tokenizer_name() -> str:
    """Which tokenizer counts (``gguf:FILE`` or ``estimate``)."""
    return default_tokenizer().name
