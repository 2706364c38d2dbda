"""Statistics of ShareGPT SFT files, to set ``incanon coser export-sft`` output beside CoSER's
released ``data/train/sft_sharegpt.json``.

    .venv/bin/python benchmarks/coser_sft_stats.py FILE [FILE...]

Per file: samples by kind (a next-speaker sample ends with ``<END CHAT>``; an Environment
sample's first assistant turn starts with ``Environment:``), turns by role, the mean number of
turns and of assistant turns, the share of character samples whose assistant turns hold
``[thoughts]``, the mean system-prompt length in words, the first human turns, and the keys
used (samples and turns).
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from pathlib import Path
from statistics import mean


def kind(sample: dict) -> str:
    turns = sample["conversations"]
    if turns and turns[-1]["value"] == "<END CHAT>":
        return "nsp"
    first = next((t["value"] for t in turns if t["from"] == "assistant"), "")
    return "environment" if first.startswith("Environment:") else "character"


def load(path: Path) -> list[dict]:
    text = path.read_text(encoding="utf-8")
    return json.loads(text) if path.suffix == ".json" else [json.loads(line) for line in text.splitlines() if line]


def stats(samples: list[dict]) -> dict:
    kinds = Counter(kind(s) for s in samples)
    chars = [s for s in samples if kind(s) == "character"]
    thought = sum(any(re.search(r"\[[^\]\n]+\]", t["value"]) for t in s["conversations"] if t["from"] == "assistant")
                  for s in chars)
    return {
        "samples": len(samples), **{k: kinds[k] for k in ("character", "environment", "nsp")},
        "roles": dict(Counter(t["from"] for s in samples for t in s["conversations"])),
        "sample keys": sorted({k for s in samples for k in s}),
        "turn keys": sorted({k for s in samples for t in s["conversations"] for k in t}),
        "turns/sample": round(mean(len(s["conversations"]) for s in samples), 2),
        "assistant turns/sample": round(mean(sum(t["from"] == "assistant" for t in s["conversations"]) for s in samples), 2),
        "character samples with [thoughts]": f"{thought}/{len(chars)}",
        "system words": round(mean(len(s["conversations"][0]["value"].split()) for s in samples), 1),
        "first human turn": dict(Counter(s["conversations"][1]["value"][:24] for s in samples).most_common(2)),
    }


def main(paths: list[str]) -> None:
    for path in paths:
        print(f"== {path}")
        for key, value in stats(load(Path(path))).items():
            print(f"  {key:36} {value}")


if __name__ == "__main__":
    main(sys.argv[1:])
