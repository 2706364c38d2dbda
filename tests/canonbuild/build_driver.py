"""``python build_driver.py ARGS...``: ``incanon ARGS...`` with a ``recording:LOG`` embedder.

The embedder writes one line per text it embeds (kind and a hash of the text) to ``LOG``, after
waiting ``?delay=`` seconds per batch, so a test can kill a build in its embedding stages and
count what the rerun embedded again. Imported, it registers the same embedder in-process.
"""

from __future__ import annotations

import hashlib
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from incanon.models.registry import OptionInfo, embedder_backend


def text_id(text: str) -> str:
    """The short hash the log writes for ``text``."""
    return hashlib.sha256(text.encode()).hexdigest()[:16]


class RecordingEmbedder:
    """16 dimensions from a hash of the text; each embedded text logged to a file."""

    dim = 16

    def __init__(self, log: Path, delay: float = 0.0):
        self.log, self.delay = log, delay

    @property
    def name(self) -> str:
        return "recording"

    def embed(self, texts: Sequence[str], kind: str = "passage") -> np.ndarray:
        time.sleep(self.delay)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            out[i] = np.frombuffer(hashlib.sha256(text.encode()).digest()[:16], dtype=np.uint8).astype(np.float32) + 1
        with self.log.open("a", encoding="utf-8") as f:  # after the work: a logged text was embedded
            f.writelines(f"{kind} {text_id(t)}\n" for t in texts)
        return out


@embedder_backend("recording", form="recording:LOG",
                  options={"batch_size": OptionInfo(int, "texts per call"), "delay": OptionInfo(float, "seconds per call")})
def _recording(spec):  # type: ignore[no-untyped-def]
    return RecordingEmbedder(Path(spec.target or ""), spec.option("delay", 0.0))


def logged(log: Path) -> list[str]:
    """The log's lines (``kind hash``), in order; none when nothing was embedded."""
    return log.read_text(encoding="utf-8").split("\n")[:-1] if log.exists() else []


if __name__ == "__main__":
    from incanon.cli.main import main

    sys.argv = ["incanon", *sys.argv[1:]]
    main()
