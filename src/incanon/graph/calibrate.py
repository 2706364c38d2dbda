"""The similarity threshold of entity search, calibrated per embedder.

A fixed cosine threshold means different things to different embedders: with multilingual-e5
the scores of unrelated names (0.74-0.83) overlap true matches (0.85-0.89) around 0.82, so an
absent "Albus Dumbledore" retrieved another character. ``calibrate`` measures, on held-out pairs
(``data/rolerag/name_pairs.json``, an invented town none of the tests or examples use):

* positives: a variant of an entity's name (query) against that entity ("name: description"
  passage) — what must be found;
* negatives: an absent name against the best-scoring entity *of its type* — what the search,
  which filters by type, would otherwise return;

and picks the threshold with the fewest errors, halfway between the scores it separates
(ties: the highest, so that an absent entity reads "never came across" rather than a neighbour).
The result is stored per embedder identity in ``data/rolerag/thresholds.json``;
``threshold_for`` reads it, and falls back to ``DEFAULT_THRESHOLD`` (with a note) for an
embedder never calibrated. ``benchmarks/graph.py --calibrate SPEC`` writes a new entry.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from incanon.models.types import Embedder

DEFAULT_THRESHOLD = 0.82
"""Used for an embedder without a calibration (incanon's earlier fixed value)."""
PAIRS = "name_pairs.json"
THRESHOLDS = "thresholds.json"


def _data(name: str) -> Path:
    return Path(str(resources.files("incanon") / "data" / "rolerag" / name))


def embedder_identity(embedder: Embedder) -> str:
    """What a calibration is keyed by: the embedder's identity (weights or endpoint), else name."""
    from incanon.models.identity import model_identity

    return model_identity(embedder)


@dataclass(frozen=True)
class Calibration:
    """A threshold and the evidence for it."""

    embedder: str
    threshold: float
    positives: int
    negatives: int
    false_negatives: int
    false_positives: int
    positive_range: tuple[float, float]
    negative_range: tuple[float, float]

    def to_dict(self) -> dict[str, Any]:
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in asdict(self).items()}


def _pairs() -> dict[str, Any]:
    from incanon.reading import read_json

    return read_json(_data(PAIRS), "calibration pairs")


def scores(embedder: Embedder, data: dict[str, Any] | None = None) -> tuple[list[float], list[float]]:
    """(positive scores, negative scores) of the held-out pairs under ``embedder``."""
    data = data or _pairs()
    entities = data["entities"]
    passages = np.asarray(embedder.embed([f"{e['name']}: {e['description']}" for e in entities], kind="passage"),
                          dtype=np.float32)
    passages /= np.maximum(np.linalg.norm(passages, axis=1, keepdims=True), 1e-12)
    variants = [(i, v) for i, e in enumerate(entities) for v in e["variants"]]
    queries = [v for _, v in variants] + [a["name"] for a in data["absent"]]
    qv = np.asarray(embedder.embed(queries, kind="query"), dtype=np.float32)
    qv /= np.maximum(np.linalg.norm(qv, axis=1, keepdims=True), 1e-12)
    sims = qv @ passages.T
    positives = [float(sims[j, i]) for j, (i, _) in enumerate(variants)]
    types = np.array([e["type"] for e in entities])
    negatives = []
    for j, a in enumerate(data["absent"], start=len(variants)):
        same = types == a["type"]
        negatives.append(float(sims[j][same].max()))
    return positives, negatives


def choose(positives: list[float], negatives: list[float]) -> tuple[float, int, int]:
    """(threshold, false negatives, false positives) with the fewest errors; among equals, the
    highest threshold (absent names matter more than a missed variant, which the exact-name
    lookup often catches first)."""
    cuts = sorted(set(positives) | set(negatives))
    best: tuple[int, float, int, int] | None = None
    for k, low in enumerate(cuts):
        high = cuts[k + 1] if k + 1 < len(cuts) else low + 0.02
        t = (low + high) / 2  # between two observed scores
        fn = sum(p < t for p in positives)
        fp = sum(n >= t for n in negatives)
        key = (fn + fp, -t, fn, fp)
        if best is None or key < (best[0], -best[1], best[2], best[3]):
            best = (fn + fp, t, fn, fp)
    assert best is not None
    return round(best[1], 4), best[2], best[3]


def calibrate(embedder: Embedder) -> Calibration:
    """Measure the held-out pairs under ``embedder`` and choose its threshold."""
    pos, neg = scores(embedder)
    t, fn, fp = choose(pos, neg)
    return Calibration(embedder_identity(embedder), t, len(pos), len(neg), fn, fp,
                       (round(min(pos), 4), round(max(pos), 4)), (round(min(neg), 4), round(max(neg), 4)))


def stored() -> dict[str, Any]:
    """Every stored calibration, by embedder identity."""
    path = _data(THRESHOLDS)
    if not path.is_file():
        return {}
    from incanon.reading import read_json

    return dict(read_json(path, "threshold calibrations"))


def threshold_for(embedder: Embedder) -> tuple[float, str]:
    """(threshold, where it comes from) for ``embedder``."""
    found = stored().get(embedder_identity(embedder))
    if found is not None:
        return float(found["threshold"]), f"calibrated for {embedder_identity(embedder)}"
    return DEFAULT_THRESHOLD, f"default {DEFAULT_THRESHOLD} ({embedder_identity(embedder)} is not calibrated)"


def save(calibration: Calibration, path: Path | None = None) -> Path:
    """Add or replace ``calibration`` in the thresholds file (the packaged one by default)."""
    from incanon.files import write_text_atomic

    target = path or _data(THRESHOLDS)
    data = stored() if path is None else {}
    data[calibration.embedder] = calibration.to_dict()
    write_text_atomic(target, json.dumps(data, indent=2, sort_keys=True) + "\n")
    return target
