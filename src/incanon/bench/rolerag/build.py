"""Build a RoleRAG question set from a canon store, without a model.

Per character (at a position, default the end of the story):

* **specific, in scope**: about the character's relations and the facts they know at that
  position, taken from the canon (so every such question has an answer in the story);
* **general, in scope**: interests, values and attitudes, asked in the paper's style;
* **out of scope**: about things outside the character's world and era (modern technology,
  real-world history, other fictions), which an in-character answer declines.

Draws are seeded, so the same store and seed give the same set.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from incanon.bench.rolerag.items import RoleRAGQuestion
from incanon.canon.store import CanonStore
from incanon.retrieval import end_of_story

GENERAL = (
    "What do you enjoy doing most when you have a free moment?",
    "What do you value most in a friend?",
    "What are you most afraid of?",
    "What does your work mean to you?",
    "Who are the people you trust most, and why?",
    "What place feels most like home to you?",
    "What do you think makes a person good?",
    "What would you change about the town you live in, if you could?",
)
OUT_OF_SCOPE = (
    "What do you think of the Apollo 11 moon landing?",
    "Which smartphone do you use to keep in touch with your friends?",
    "How did the Second World War change your family?",
    "What is your favourite film by Alfred Hitchcock?",
    "Can you explain how the internet works?",
    "What was it like to study at Hogwarts?",
    "How do you invest in cryptocurrency?",
    "Which football team did you support in the last World Cup?",
)
_RELATION_QUESTIONS = (
    "What is your relationship with {other}?",
    "How would you describe {other} to a stranger?",
    "What has {other} meant in your life?",
)


def build_questions(store: CanonStore, work: str, *, characters: Sequence[str] | None = None,
                    at: str | None = None, per_kind: int = 3, seed: int = 0) -> list[RoleRAGQuestion]:
    """``per_kind`` specific, general and out-of-scope questions per character."""
    rng = random.Random(seed)
    info = store.work(work)
    chosen = [store.character(work, c) for c in characters] if characters else store.characters(work)
    out: list[RoleRAGQuestion] = []
    for ch in chosen:
        pos = store.resolve_position(work, at, ch) if at else end_of_story(info.axis)
        scope = store.scope(work, ch, pos)
        specific: list[str] = []
        names = {ch.name, *ch.aliases}
        for r in scope.relations():
            other = r.target if r.source in names else r.source if r.target in names else None
            if other is not None and other not in names:
                specific.append(rng.choice(_RELATION_QUESTIONS).format(other=other))
        for f in scope.facts():
            if f.subject == ch.name and f.scene is not None:
                scene = store.scene(work, f.scene)
                if scene.title:
                    specific.append(f"What happened at {scene.title[0].lower() + scene.title[1:]}?")
        specific = list(dict.fromkeys(specific))
        rng.shuffle(specific)
        picks = ([("specific", "in", q) for q in specific[:per_kind]]
                 + [("general", "in", q) for q in rng.sample(GENERAL, min(per_kind, len(GENERAL)))]
                 + [("specific", "out", q) for q in rng.sample(OUT_OF_SCOPE, min(per_kind, len(OUT_OF_SCOPE)))])
        at_text = at if at else None
        for kind, scope_, question in picks:
            out.append(RoleRAGQuestion(character=ch.name, question=question, scope=scope_, kind=kind,  # type: ignore[arg-type]
                                       work=work, at=at_text, description=ch.profile or None).with_id())
    return out
