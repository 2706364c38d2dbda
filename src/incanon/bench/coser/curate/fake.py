"""A deterministic stand-in for the curation model, for tests, offline demos and benchmarks.

``FakeCurator`` answers every curation prompt the way a careful model would, from the prompt
alone: plots are runs of paragraphs, quoted lines become messages of the character named in
the paragraph, narration becomes Environment, and names map through the ``aliases`` given.
Wrap it in a ``ScriptedModel`` (``fake.model()``) to get a ``ChatModel``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from incanon.bench.coser.curate.locate import sentence_spans
from incanon.models import Message, ScriptedModel

_PASSAGE = re.compile(r"=== Passage ===\n(.*)\n=== End of passage ===", re.S)
_UNFINISHED = re.compile(r"=== Unfinished plots from the previous passage ===\n(.*)$", re.S)
_QUOTE = re.compile(r"[\"“]([^\"”]+)[\"”]")


class FakeCurator:
    """Callable responder: ``fake(messages) -> answer text``."""

    def __init__(self, aliases: dict[str, str] | None = None, *, paragraphs_per_plot: int = 6,
                 truncate_last: bool = True, max_dialogues: int = 12):
        self.aliases = dict(aliases or {})
        """Mention → official name; the mentions are also what is looked for in the text."""
        self.paragraphs_per_plot = paragraphs_per_plot
        self.truncate_last = truncate_last
        self.max_dialogues = max_dialogues
        self.kinds: list[str] = []
        """Which prompt each call was (extract, repair, refine, names, profile)."""

    def model(self, name: str = "scripted:fake-curator") -> ScriptedModel:
        return ScriptedModel(default=self, name=name)

    def __call__(self, messages: Sequence[Message]) -> str:
        prompt = messages[-1].content
        if "=== Passage ===" in prompt:
            self.kinds.append("extract")
            return json.dumps(self.extract(prompt), ensure_ascii=False)
        if "cannot be read" in prompt:
            self.kinds.append("repair")
            return self.repair(prompt)
        if "=== Conversation and background ===" in prompt:
            self.kinds.append("refine")
            return json.dumps(self.refine(prompt), ensure_ascii=False)
        if "to_official_name" in prompt:
            self.kinds.append("names")
            return json.dumps(self.names(prompt), ensure_ascii=False)
        if "===Profile===" in prompt:
            self.kinds.append("profile")
            name = re.search(r"profile of (.+?) from", prompt)
            who = name.group(1) if name else "The character"
            return f"===Profile===\n{who} is a figure of the story who appears in the plots summarised here."
        self.kinds.append("other")
        return "{}"

    # --- extraction ---------------------------------------------------------------------------
    def people(self, text: str) -> list[str]:
        found: dict[str, int] = {}
        for mention in sorted(self.aliases, key=len, reverse=True):
            m = re.search(rf"\b{re.escape(mention)}\b", text)
            if m and mention not in found:
                found[mention] = m.start()
        # A mention inside a longer one found at the same place is the same person.
        keep = [m for m in found if not any(o != m and m in o and found[o] <= found[m] < found[o] + len(o)
                                            for o in found)]
        return sorted(keep, key=lambda m: found[m])

    def _plot(self, paragraphs: list[str], truncated: bool, continues: int) -> dict:
        block = "\n\n".join(paragraphs)
        spans = sentence_spans(block)
        people = self.people(block)
        dialogues = []
        for para in paragraphs:
            quotes = _QUOTE.findall(para)
            speakers = self.people(para)
            if quotes and speakers:
                speech = " ".join(q.strip() for q in quotes)
                dialogues.append({"character": speakers[0], "message": f"[{speakers[0]} chooses the words] {speech}"})
            elif not quotes:
                first = para.split(". ")[0].strip()
                dialogues.append({"character": "Environment", "message": first})
        dialogues = dialogues[: self.max_dialogues]
        speakers = list(dict.fromkeys(d["character"] for d in dialogues if d["character"] != "Environment"))
        words = block.split()
        plot = {
            "chapter_title": None,
            "first_sentence": block[spans[0][0] : spans[0][1]],
            "last_sentence": block[spans[-1][0] : spans[-1][1]],
            "prominence": 40 + 10 * min(len(people), 5),
            "summary": " ".join(words[:30]),
            "key_characters": [{"name": p, "description": f"{p} as the plot opens.", "summary": f"{p} takes part."}
                               for p in people],
            "conversation": [{
                "scenario": "As the scene opens: " + " ".join(words[:20]),
                "topic": " ".join(words[:6]),
                "key_characters": [{"name": s, "motivation": f"{s} wants to be heard."} for s in speakers],
                "dialogues": dialogues,
            }] if speakers else [],
            "state": "truncated" if truncated else "finished",
            "continues": continues,
        }
        return plot

    def extract(self, prompt: str) -> dict:
        passage = _PASSAGE.search(prompt)
        text = passage.group(1) if passage else ""
        unfinished_raw = _UNFINISHED.search(prompt)
        unfinished = unfinished_raw.group(1).strip() if unfinished_raw else "None"
        paragraphs = [p.strip() for p in re.split(r"\n\s*\n", text)
                      if p.strip() and not p.strip().startswith("#")]
        groups = [paragraphs[i : i + self.paragraphs_per_plot] for i in range(0, len(paragraphs), self.paragraphs_per_plot)]
        plots = []
        for g, group in enumerate(groups):
            last = g == len(groups) - 1
            plots.append(self._plot(group, truncated=last and self.truncate_last, continues=0 if g == 0 and unfinished != "None" else -1))
        headings = [line.strip() for line in text.splitlines() if line.startswith("## ")]
        return {"chapter_beginnings": headings, "plots": plots, "next_chunk_start": None}

    # --- other prompts ------------------------------------------------------------------------
    def repair(self, prompt: str) -> str:
        from incanon.llmout import JSONRepairError, repair_json

        body = prompt.split("=== Text ===", 1)[-1].strip()
        try:
            return json.dumps(repair_json(body).value, ensure_ascii=False)
        except JSONRepairError:
            return body  # as unreadable as it came

    def refine(self, prompt: str) -> dict:
        names = re.search(r"list exactly these characters: (.*?)\. Write", prompt, re.S)
        listed = [n.strip() for n in names.group(1).split(",")] if names else []
        return {"scenario": "A fuller setting, told before anyone speaks.",
                "key_characters": [{"name": n, "motivation": f"{n} arrives with a purpose of their own."} for n in listed]}

    def names(self, prompt: str) -> dict:
        listed = re.findall(r"^- (.+)$", prompt, re.M)
        mapping = {n: self.aliases.get(n, "impersonal") for n in listed}
        return {"named_characters": sorted({v for v in mapping.values() if v != "impersonal"}), "to_official_name": mapping}


def sample_aliases() -> dict[str, str]:
    """Mention → official name for the packaged sample world's characters."""
    from incanon.sample import sample_world

    table: dict[str, str] = {}
    for c in sample_world().characters:
        for mention in [c.name, *c.aliases]:
            table[mention] = c.name
    return table
