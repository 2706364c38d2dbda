"""BLEU and ROUGE-L as CoSER's evaluator computes them (``calculate_bleu_rouge`` in
gca_evaluation/utils.py, called from ``gca_judging``), the default of every incanon command.

The two texts are built the reference's way:

* NSP bookkeeping messages are dropped from the simulation;
* inner thoughts (``[...]`` on one line) are removed from every message except the
  Environment's, lines are stripped and blank lines collapsed (``remove_inner_thoughts``);
* the first ``continue_from`` messages of each side are left out;
* the simulation is its messages' text joined by blank lines, **without** speaker names;
  the reference is ``Name: message`` per message, joined by blank lines.

BLEU is nltk's ``sentence_bleu`` (uniform 4-gram weights, no smoothing) over
``word_tokenize`` tokens of the lowercased texts. ROUGE-L is the F of the ``rouge`` package's
``Rouge().get_scores(simulation, reference)`` on the raw texts (case kept; the package splits
sentences on ``.`` and words on spaces, summary-level union LCS over distinct words). Both are
returned on a 0-100 scale (the reference stores fractions).

Where the reference would crash, incanon returns 0 and says why (``NgramDetail.note``): an
empty simulation or reference after thoughts are removed (``rouge`` raises "Hypothesis is
empty"). Speaker names are on one side only, exactly as in the reference, so a simulation that
prints names in its messages gains ROUGE-L from them; ``incanon``'s symmetric figures
(``sacrebleu`` / ``rouge_score`` keys) are computed next to these (see ``metrics``).
"""

from __future__ import annotations

import re
import sys
import threading
import warnings
from typing import Any, Callable, Mapping, Sequence, TypeVar

from pydantic import BaseModel

from incanon.bench.coser.formats import ENVIRONMENT
from incanon.bench.coser.nltk_words import word_tokenize
from incanon.bench.coser.scoring import NSP, message_role

_THOUGHT = re.compile(r"\[.*?\]")
_THINK_TAGS = [re.compile(rf"\s*<\s*{prefix}think(?:ing)?\s*>.*?</\s*{prefix}think(?:ing)?\s*>\s*", re.S)
               for prefix in (r"system[_\s]+", r"role[_\s]+", r"[_\s]+")]
T = TypeVar("T")


def remove_inner_thoughts(text: str) -> str:
    """``[thoughts]`` (single-line) removed, lines stripped, blank lines collapsed, and the
    ``<system_thinking>`` / ``<role_thinking>`` blocks of reasoning models removed."""
    cleaned = _THOUGHT.sub("", text)
    cleaned = "\n".join(line.strip() for line in cleaned.split("\n"))
    cleaned = re.sub(r"\n+", "\n", cleaned)
    for pattern in _THINK_TAGS:
        cleaned = pattern.sub("", cleaned).strip()
    return cleaned.strip()


def _text(message: Mapping[str, Any]) -> str:
    return str(message.get("content", message.get("message", "")) or "")


def simulation_text(simulation: Sequence[Mapping[str, Any]], continue_from: int = 0) -> str:
    """The simulation as the reference joins it: no NSP, thoughts removed, no speaker names."""
    kept = [m for m in simulation if message_role(m) != NSP]
    texts = [_text(m) if message_role(m) == ENVIRONMENT else remove_inner_thoughts(_text(m)) for m in kept]
    return "\n\n".join(t.strip("\n") for t in texts[continue_from:])


def reference_text(dialogues: Sequence[Mapping[str, Any]], continue_from: int = 0) -> str:
    """The original conversation as the reference joins it: ``Name: message``, thoughts removed."""
    lines = []
    for turn in list(dialogues)[continue_from:]:
        name = message_role(turn)
        text = _text(turn) if name == ENVIRONMENT else remove_inner_thoughts(_text(turn))
        lines.append(f"{name}: {text}".strip("\n"))
    return "\n\n".join(lines)


class NgramDetail(BaseModel):
    """The reference's BLEU and ROUGE-L (0-100) of one simulation."""

    bleu: float
    rouge_l: float
    note: str | None = None
    """Why a figure is 0 where the reference itself would have raised an error."""


def bleu(simulation: str, reference: str) -> float:
    """nltk sentence BLEU of lowercased word tokens, 0-100."""
    from nltk.translate.bleu_score import sentence_bleu

    hypothesis, references = word_tokenize(simulation.lower()), [word_tokenize(reference.lower())]
    if not hypothesis or not references[0]:
        return 0.0
    with warnings.catch_warnings():
        # nltk warns when an n-gram order has no overlap (the score is then 0, as in the reference).
        warnings.simplefilter("ignore")
        return float(sentence_bleu(references, hypothesis)) * 100.0


def _deep(call: Callable[[], T]) -> T:
    """Run ``call`` in a thread with a large stack and recursion limit: the ``rouge`` package
    rebuilds each LCS recursively, one frame per word of a sentence."""
    box: dict[str, Any] = {}

    def target() -> None:
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(limit, 200_000))
        try:
            box["value"] = call()
        except BaseException as exc:  # re-raised in the caller's thread
            box["error"] = exc
        finally:
            sys.setrecursionlimit(limit)

    old = threading.stack_size()
    threading.stack_size(512 * 1024 * 1024)
    try:
        worker = threading.Thread(target=target, name="coser-rouge")
        worker.start()
        worker.join()
    finally:
        threading.stack_size(old)
    if "error" in box:
        raise box["error"]
    return box["value"]


def rouge_l(simulation: str, reference: str) -> float:
    """The ``rouge`` package's ROUGE-L F of ``simulation`` against ``reference``, 0-100."""
    from rouge import Rouge

    try:
        return float(Rouge(metrics=["rouge-l"]).get_scores(simulation, reference)[0]["rouge-l"]["f"]) * 100.0
    except RecursionError:
        return float(_deep(lambda: Rouge(metrics=["rouge-l"]).get_scores(simulation, reference))[0]["rouge-l"]["f"]) * 100.0


def gca_ngram_scores(simulation: Sequence[Mapping[str, Any]], reference: Sequence[Mapping[str, Any]],
                     continue_from: int = 0) -> NgramDetail:
    """BLEU and ROUGE-L of ``simulation`` against the original ``reference`` dialogues, as
    ``gca_judging`` computes them."""
    hyp = simulation_text(simulation, continue_from)
    ref = reference_text(reference, continue_from)
    # The rouge package needs one non-empty piece between full stops on each side.
    empty = [side for side, text in (("simulation", hyp), ("reference", ref)) if not any(text.split("."))]
    if empty:
        return NgramDetail(bleu=bleu(hyp, ref) if hyp.strip() and ref.strip() else 0.0, rouge_l=0.0,
                           note=f"{' and '.join(empty)} has no text once thoughts are removed (the reference raises here)")
    return NgramDetail(bleu=bleu(hyp, ref), rouge_l=rouge_l(hyp, ref))
