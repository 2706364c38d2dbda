"""BLEU and ROUGE-L of a simulation against the original conversation (CoSER Table 2).

``bleu`` and ``rouge_l`` are the reference's figures (``gca_ngrams``: nltk sentence BLEU,
the ``rouge`` package's ROUGE-L, speaker names on the reference side only), the default
everywhere. incanon's own symmetric figures stay available next to them as ``sacrebleu`` and
``rouge_score``; they are described below.

For the symmetric figures both sides are rendered the same way, ``Name: message`` per message, with inner thoughts
removed from every character message (the Environment's text is kept as is) and the first
``continue_from`` messages left out, since those were copied from the original. CoSER's
evaluator prefixed names on the reference only; here both carry them, so names neither help
nor hurt.

BLEU is sacrebleu's sentence BLEU (lowercased, exponential smoothing, ``13a`` tokens; ``zh``
tokens when the text is mostly CJK). ROUGE-L is rouge-score's F-measure with a tokenizer that
keeps CJK characters (its default one drops every non-ASCII word). Both are on a 0-100 scale.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, Mapping, Sequence

from pydantic import BaseModel

from incanon.bench.coser.formats import ENVIRONMENT, remove_thoughts
from incanon.bench.coser.scoring import NSP, message_role

_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")
_TOKEN = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]|[^\W_]+", re.UNICODE)


def message_text(message: Mapping[str, Any]) -> str:
    """A message's text (``content`` in simulations, ``message`` in CoSER's dialogues)."""
    return str(message.get("content", message.get("message", "")) or "")


def visible(role: str, text: str) -> str:
    """What others see of a message: a character's thoughts removed, the Environment's kept."""
    return text.strip() if role == ENVIRONMENT else remove_thoughts(text)


def strip_name(role: str, text: str) -> str:
    """``text`` without a leading ``role:`` (some files and models prefix the speaker)."""
    for sep in (":", "："):
        prefix = f"{role}{sep}"
        if text.lstrip().startswith(prefix):
            return text.lstrip()[len(prefix):].strip()
    return text.strip()


def transcript(messages: Sequence[Mapping[str, Any]], *, thoughts: bool = False, start: int = 0) -> str:
    """``Name: message`` blocks separated by blank lines; NSP bookkeeping dropped."""
    lines = []
    for message in [m for m in messages if message_role(m) != NSP][start:]:
        role = message_role(message)
        text = strip_name(role, message_text(message))
        text = text if thoughts else visible(role, text)
        lines.append(f"{role}: {text}".strip())
    return "\n\n".join(lines)


class NgramScores(BaseModel):
    """BLEU and ROUGE-L (0-100) of one simulation: the reference's and incanon's."""

    bleu: float
    """CoSER's BLEU (nltk sentence BLEU, as ``calculate_bleu_rouge``)."""
    rouge_l: float
    """CoSER's ROUGE-L (the ``rouge`` package's F, as ``calculate_bleu_rouge``)."""
    sacrebleu: float | None = None
    """incanon's symmetric sentence BLEU (sacrebleu, names on both sides)."""
    rouge_score: float | None = None
    """incanon's symmetric ROUGE-L (rouge-score, names on both sides)."""
    note: str | None = None
    """Why the reference's figures are 0 where its own code would have raised."""

    def as_scores(self) -> dict[str, float | None]:
        """The score keys stored per case."""
        return {"bleu": self.bleu, "rouge_l": self.rouge_l, "sacrebleu": self.sacrebleu,
                "rouge_score": self.rouge_score}


def _is_cjk(text: str) -> bool:
    return len(_CJK.findall(text)) > 0.05 * max(1, len(text))


class _Tokenizer:
    """Lowercased words, one token per CJK character (for rouge-score)."""

    def tokenize(self, text: str) -> list[str]:
        return _TOKEN.findall(text.lower())


@lru_cache(maxsize=2)
def _bleu(tokenize: str) -> Any:
    from sacrebleu.metrics import BLEU

    return BLEU(lowercase=True, tokenize=tokenize, effective_order=True)


@lru_cache(maxsize=1)
def _rouge() -> Any:
    from rouge_score.rouge_scorer import RougeScorer

    return RougeScorer(["rougeL"], tokenizer=_Tokenizer())


def bleu(hypothesis: str, reference: str) -> float:
    """Sentence BLEU of ``hypothesis`` against one ``reference``, 0-100."""
    if not hypothesis.strip() or not reference.strip():
        return 0.0
    metric = _bleu("zh" if _is_cjk(reference) else "13a")
    return float(metric.sentence_score(hypothesis, [reference]).score)


def rouge_l(hypothesis: str, reference: str) -> float:
    """ROUGE-L F-measure of ``hypothesis`` against ``reference``, 0-100."""
    if not hypothesis.strip() or not reference.strip():
        return 0.0
    return float(_rouge().score(reference, hypothesis)["rougeL"].fmeasure * 100.0)


def ngram_scores(simulation: Sequence[Mapping[str, Any]], reference: Sequence[Mapping[str, Any]],
                 continue_from: int = 0) -> NgramScores:
    """BLEU and ROUGE-L of ``simulation`` against ``reference`` after the first
    ``continue_from`` messages of each, thoughts removed: the reference's figures as ``bleu`` /
    ``rouge_l``, incanon's symmetric ones as ``sacrebleu`` / ``rouge_score``."""
    from incanon.bench.coser.gca_ngrams import gca_ngram_scores

    gca = gca_ngram_scores(simulation, reference, continue_from)
    hyp = transcript(simulation, start=continue_from)
    ref = transcript(reference, start=continue_from)
    return NgramScores(bleu=gca.bleu, rouge_l=gca.rouge_l, sacrebleu=bleu(hyp, ref), rouge_score=rouge_l(hyp, ref),
                       note=gca.note)
