"""Reference-based scoring of answers against gold responses (the paper's AlignScore column).

AlignScore's weights come from a model hub, so incanon cannot ship it. The metric is a plug
point instead: anything with ``score(contexts, claims) -> list[float]`` in 0-1, as AlignScore's
own ``AlignScore.score`` is. Specs:

* ``token-f1``: a small local scorer (token-overlap F1 between gold and answer), no model;
* ``alignscore:CKPT``: AlignScore from a local checkpoint file, if the ``alignscore`` package is
  installed (``AlignScore(model="roberta-large", ckpt_path=CKPT, evaluation_mode="nli_sp")``, as
  the authors' README shows), never downloaded by incanon;
* ``module:attr``: your own scorer class or factory (called with no arguments).

Scores are reported ×100, averaged with the SEM, as in Table 5.
"""

from __future__ import annotations

import importlib
import re
from collections import Counter
from typing import Iterable, Protocol, Sequence

from incanon.bench.timechara.report import Stat, stat
from incanon.errors import ConfigError
from incanon.runs.store import RunStore


class ReferenceScorer(Protocol):
    """AlignScore's interface: one score in 0-1 per (context, claim) pair."""

    def score(self, contexts: Sequence[str], claims: Sequence[str]) -> list[float]: ...


class TokenF1:
    """Token-overlap F1 between the gold response (context) and the answer (claim)."""

    name = "token-f1"

    @staticmethod
    def _tokens(text: str) -> list[str]:
        return re.findall(r"[a-z0-9']+", text.lower())

    def score(self, contexts: Sequence[str], claims: Sequence[str]) -> list[float]:
        out = []
        for gold, answer in zip(contexts, claims):
            g, a = Counter(self._tokens(gold)), Counter(self._tokens(answer))
            common = sum((g & a).values())
            if not common:
                out.append(0.0)
                continue
            precision, recall = common / sum(a.values()), common / sum(g.values())
            out.append(2 * precision * recall / (precision + recall))
        return out


def load_scorer(spec: str) -> ReferenceScorer:
    """The scorer of ``spec`` (see the module docstring)."""
    if spec == "token-f1":
        return TokenF1()
    if spec.startswith("alignscore:"):
        try:
            from alignscore import AlignScore  # type: ignore[import-not-found]
        except ImportError:
            raise ConfigError("alignscore:CKPT needs the alignscore package (github.com/yuh-zha/AlignScore) "
                              "installed by you, with its checkpoint file on disk") from None
        return AlignScore(model="roberta-large", batch_size=32, device="cpu",
                          ckpt_path=spec.split(":", 1)[1], evaluation_mode="nli_sp")
    module, sep, attr = spec.partition(":")
    if not sep:
        raise ConfigError(f"unknown reference metric {spec!r}: use token-f1, alignscore:CKPT or module:attr")
    try:
        factory = getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError) as exc:
        raise ConfigError(f"cannot load reference metric {spec!r}: {exc}") from None
    scorer = factory()
    if not callable(getattr(scorer, "score", None)):
        raise ConfigError(f"reference metric {spec!r} has no score(contexts, claims) method")
    return scorer


def reference_stats(store: RunStore, run_ids: Iterable[str], scorer: ReferenceScorer) -> dict[str, Stat]:
    """Per run: mean ± SEM of 100 × score(gold response, answer) over items with a gold response."""
    out: dict[str, Stat] = {}
    for run_id in run_ids:
        pairs = [(s.input.get("gold_response", ""), (s.outputs or {}).get("answer", ""))
                 for s in store.samples(run_id, status="ok")]
        pairs = [(g, a) for g, a in pairs if g and isinstance(a, str)]
        scores = scorer.score([g for g, _ in pairs], [a for _, a in pairs]) if pairs else []
        bad = [v for v in scores if not isinstance(v, (int, float)) or not 0 <= float(v) <= 1]
        if bad or len(scores) != len(pairs):
            raise ConfigError(f"the reference metric returned {len(scores)} scores for {len(pairs)} pairs "
                              f"or values outside 0-1 (e.g. {bad[:1]})")
        out[run_id] = stat([float(v) for v in scores], 100.0)
    return out
