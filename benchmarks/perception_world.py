"""A hand-written canon world of Mary Shelley's *Frankenstein* (public domain), made from the
book's real text, for the perception trial and the audit figures in docs/audit.md.

Chapters become scenes (the scene table below is ours: titles, places, summaries, who is
present), paragraphs become chunks, Walton's letters are told by Walton, the creature's tale is
told to Victor, the rest by Victor. The book is not in the repository: give a plain-text copy
(Project Gutenberg #84 without its header, "Letter 1" ... "Chapter 24" headings).

    .venv/bin/python benchmarks/perception_world.py frankenstein.txt world.json [--third-person]

``--third-person`` writes the planted form: the same world with no narrator (a first-person
book read as third person), in which the narrator's thoughts reach everyone present.
"""
import json, re, sys
from pathlib import Path

if len(sys.argv) < 3:
    sys.exit(__doc__)
t = Path(sys.argv[1]).read_text(encoding="utf-8")
parts = [p for p in re.split(r"\n(?=(?:Chapter|Letter) \d+ *\n)", t) if p.strip()]
assert len(parts) == 28, len(parts)

V, E, A, J, C, K, W = ("Victor Frankenstein", "Elizabeth Lavenza", "Alphonse Frankenstein", "Justine Moritz",
                       "Henry Clerval", "the creature", "Robert Walton")
# chapter index (1..28: Letters 1-4, Chapters 1-24) -> (title, location, summary, participants)
SCENES = {
    1: ("Petersburgh", "St. Petersburgh", "Walton writes to his sister of his voyage to the pole.", [W]),
    2: ("Archangel", "Archangel", "Walton hires a ship and longs for a friend.", [W]),
    3: ("Under way", "at sea", "Walton writes that he is safe and far north.", [W]),
    4: ("The stranger on the ice", "the ship in the ice", "Walton's crew takes a dying stranger aboard from the ice; he begins to tell his story.", [W, V]),
    5: ("Childhood", "Geneva", "Victor's parents adopt Elizabeth, who grows up with him.", [V, A, E]),
    6: ("Natural philosophy", "Geneva", "Victor reads the old alchemists and sees lightning destroy a tree; Clerval is his friend.", [V, E, C, A]),
    7: ("Ingolstadt", "Geneva and Ingolstadt", "Victor's mother dies of scarlet fever; he leaves for the university at Ingolstadt.", [V, E, A, C]),
    8: ("The secret", "Ingolstadt", "Victor studies and discovers how to bestow life on dead matter.", [V]),
    9: ("The creation", "Ingolstadt", "Victor animates the creature, flees it in horror, and falls ill; Clerval arrives.", [V, K, C]),
    10: ("Recovery", "Ingolstadt", "Clerval nurses Victor; a letter from Elizabeth tells of Justine.", [V, C]),
    11: ("The storm", "Geneva and Plainpalais", "Victor learns that his brother William was murdered, sees the creature in a storm, and hears that Justine is accused.", [V, A, E, K]),
    12: ("The trial", "the court at Geneva", "Justine is tried for William's murder and condemned; Victor, sure the creature is the murderer, stays silent; Justine is hanged.", [V, A, E, J]),
    13: ("Chamounix", "Geneva and Chamounix", "Victor despairs and travels to the valley of Chamounix.", [V, E, A]),
    14: ("The glacier", "Montanvert", "On the glacier the creature meets Victor and asks to be heard.", [V, K]),
    15: ("First days", "the forest", "The creature tells of its first days: cold, light, fire and hunger.", [K, V]),
    16: ("The cottagers", "the hovel by the cottage", "The creature watches the De Lacey family from its hovel.", [K, V]),
    17: ("Safie", "the hovel by the cottage", "The creature learns language as Safie is taught.", [K, V]),
    18: ("The De Laceys' story", "the hovel by the cottage", "The creature learns how the De Laceys came to exile.", [K, V]),
    19: ("The books", "the hovel by the cottage", "The creature reads Paradise Lost and Victor's journal.", [K, V]),
    20: ("Rejection", "the cottage and Geneva", "The cottagers drive the creature away; it kills William and frames Justine.", [K, V]),
    21: ("A companion", "Montanvert", "The creature demands a female companion and Victor agrees.", [V, K]),
    22: ("Departure", "Geneva", "Alphonse urges Victor to marry Elizabeth; Victor leaves for England with Clerval.", [V, A, E, C]),
    23: ("England and Scotland", "England and Scotland", "Victor and Clerval travel; Victor goes alone to the Orkneys to work.", [V, C]),
    24: ("The broken promise", "the Orkneys", "Victor destroys the unfinished female; the creature vows to be with him on his wedding night.", [V, K]),
    25: ("Ireland", "Ireland", "Clerval is found strangled and Victor is accused of the murder.", [V, A]),
    26: ("The wedding", "Geneva", "Victor returns to Geneva and marries Elizabeth.", [V, E, A]),
    27: ("The wedding night", "Evian", "Elizabeth is murdered by the creature on her wedding night.", [V, E, K]),
    28: ("The end", "the ship in the ice", "Victor pursues the creature north and dies aboard Walton's ship; the creature mourns him and leaves.", [W, V, K]),
}
TEXT_CHAPTERS = range(1, 29)  # every chapter carries its text

chunks, scenes = [], []
for idx, (title, where, summary, present) in SCENES.items():
    pos = f"1-{idx}-1"
    scenes.append({"id": f"s{idx}", "position": pos, "title": title, "location": where, "summary": summary,
                   "participants": present})
    if idx in TEXT_CHAPTERS:
        paras = [x.strip() for x in re.split(r"\n\s*\n", parts[idx - 1]) if x.strip()][1:]
        walton_again = next((k for k, x in enumerate(paras) if x.startswith("Walton, in continuation")), 10**6)
        for k, para in enumerate(paras):
            chunk = {"id": f"c{idx}-{k}", "position": pos, "scene": f"s{idx}", "text": para}
            if idx <= 4 or (idx == 28 and k >= walton_again):  # Walton's letters
                chunk["narrator"] = W
            if 15 <= idx <= 20:  # the creature's tale, told to Victor on the glacier
                chunk["units"] = [{"text": para, "mode": "narration", "by": K, "audience": "private", "known_by": [V]}]
            chunks.append(chunk)
# Alphonse's death: a scene of its own after the wedding night.
scenes.append({"id": "s27b", "position": "1-27-2", "title": "A father's grief", "location": "Geneva",
               "summary": "Alphonse Frankenstein dies of grief a few days after Elizabeth's murder.", "participants": [V, A]})
scenes.sort(key=lambda s: [int(x) for x in s["position"].split("-")])

world = {
    "work": {"id": "frankenstein", "title": "Frankenstein", "author": "Mary Wollstonecraft Shelley",
             "axis": "chapter", "narrator": V},
    "characters": [
        {"name": V, "aliases": ["Victor", "Frankenstein"], "first_position": "1-4-1",
         "profile": "Victor Frankenstein is a young scientist of Geneva who gives life to a creature and abandons it. He dies aboard Walton's ship in the Arctic.",
         "time_points": [{"label": "at Ingolstadt", "position": "1-8-1"}, {"label": "after the creation", "position": "1-9-1"},
                         {"label": "the trial", "position": "1-12-1"}, {"label": "on the glacier", "position": "1-14-1"},
                         {"label": "after the tale", "position": "1-21-1"}, {"label": "the Orkneys", "position": "1-24-1"},
                         {"label": "in prison", "position": "1-25-1"}, {"label": "the wedding night", "position": "1-27-1"},
                         {"label": "the pursuit", "position": "1-28-1"}]},
        {"name": E, "aliases": ["Elizabeth", "my cousin"], "first_position": "1-5-1",
         "profile": "Elizabeth Lavenza is the adopted cousin of Victor, gentle and devoted to her family. She is murdered by the creature on her wedding night.",
         "time_points": [{"label": "childhood", "position": "1-5-1"}, {"label": "her aunt's death", "position": "1-7-1"},
                         {"label": "the trial", "position": "1-12-1"}, {"label": "Chamounix", "position": "1-13-1"},
                         {"label": "Victor's departure", "position": "1-22-1"}, {"label": "the wedding", "position": "1-26-1"}]},
        {"name": A, "aliases": ["Alphonse", "my father"], "first_position": "1-5-1",
         "profile": "Alphonse Frankenstein is a respected magistrate of Geneva and a loving father. He dies of grief soon after Elizabeth's murder.",
         "time_points": [{"label": "the adoption", "position": "1-5-1"}, {"label": "William's death", "position": "1-11-1"},
                         {"label": "the trial", "position": "1-12-1"}, {"label": "after the trial", "position": "1-13-1"},
                         {"label": "the marriage urged", "position": "1-22-1"}, {"label": "in Ireland", "position": "1-25-1"},
                         {"label": "the wedding", "position": "1-26-1"}]},
        {"name": J, "aliases": ["Justine"], "first_position": "1-10-1",
         "profile": "Justine Moritz is a servant of the Frankenstein household, cheerful and loved by the family. She is wrongly condemned for William's murder and hanged.",
         "time_points": [{"label": "the trial", "position": "1-12-1"}]},
        {"name": C, "aliases": ["Clerval", "Henry"], "first_position": "1-6-1",
         "profile": "Henry Clerval is Victor's loyal friend from boyhood, who loves poetry. He is strangled by the creature in Ireland.",
         "time_points": [{"label": "boyhood", "position": "1-6-1"}, {"label": "at Ingolstadt", "position": "1-9-1"},
                         {"label": "nursing Victor", "position": "1-10-1"}, {"label": "the journey", "position": "1-22-1"},
                         {"label": "in Scotland", "position": "1-23-1"}]},
        {"name": K, "aliases": [{"name": "the daemon", "from": "1-14-1"}, "the monster", "the wretch"], "first_position": "1-9-1",
         "profile": "The creature is the being Victor made, abandoned at its first waking. It murders William, Clerval and Elizabeth.",
         "time_points": [{"label": "waking", "position": "1-9-1"}, {"label": "the storm", "position": "1-11-1"},
                         {"label": "the glacier", "position": "1-14-1"}, {"label": "the cottagers", "position": "1-18-1"},
                         {"label": "the demand", "position": "1-21-1"}, {"label": "the Orkneys", "position": "1-24-1"},
                         {"label": "the wedding night", "position": "1-27-1"}, {"label": "the end", "position": "1-28-1"}]},
        {"name": W, "aliases": ["Walton", "R. Walton"], "first_position": "1-1-1",
         "profile": "Robert Walton is an English explorer sailing for the North Pole, who writes to his sister Margaret. He takes the dying Victor aboard and hears his story.",
         "time_points": [{"label": "Petersburgh", "position": "1-1-1"}, {"label": "the stranger", "position": "1-4-1"}]},
    ],
    "scenes": scenes,
    "chunks": chunks,
    "relations": [
        {"source": A, "target": V, "type": "father", "description": "Alphonse is Victor's father."},
        {"source": E, "target": V, "type": "cousin", "description": "Elizabeth was brought up with Victor as his cousin."},
        {"source": C, "target": V, "type": "friend", "description": "Clerval is Victor's closest friend."},
        {"source": J, "target": A, "type": "servant", "description": "Justine serves in the Frankenstein household.", "valid_from": "1-10-1"},
        {"source": V, "target": E, "type": "husband", "description": "Victor marries Elizabeth.", "valid_from": "1-27-1"},
    ],
}
if "--third-person" in sys.argv:
    world["work"].pop("narrator")
    for c in chunks:
        c.pop("narrator", None)
        c.pop("units", None)
out = Path(sys.argv[2])
out.write_text(json.dumps(world, ensure_ascii=False, indent=1))
print(f"{out}: {len(scenes)} scenes, {len(chunks)} chunks, {sum(len(c['text'].split()) for c in chunks)} words, "
      f"{len(world['characters'])} characters, {sum(len(c['time_points']) for c in world['characters'])} time points")
