"""``canon build`` on a real book with a scripted stand-in helper, then everything the built store
feeds: ``/v1/models``, ``/v1`` chats at two time points, a card, the leak audit; and what a real
model would cost (the dry run). Prints figures; not a test.

The stand-in helper is written for books in general, not for one book: it splits chapters into
scenes of about ``--scene-words`` words at paragraph breaks (summary: the scene's first sentence),
lists as present the cast members the scene's text names, groups names as ``--cast`` says, picks
time points at a third and two thirds of a character's scenes, and writes each profile from the
summaries in its own prompt. The graph prompts are answered by the graph oracle from the built
characters. It measures the pipeline on real text (chapter detection, scene cover, alias dating,
scoping, serving, leaks), not a model's reading.

    .venv/bin/python benchmarks/canon_build_book.py pg35.txt \\
        --cast "the Time Traveller|Time Traveller;Filby;Weena;the Psychologist|Psychologist;the Medical Man|Medical Man" \\
        --record helper.json

``--record FILE`` writes every answer the stand-in gave as a scripted helper file (one rule per
prompt), then runs the command line on the same book with it: ``incanon canon build BOOK --helper
scripted:FILE``, ``canon card export`` and ``canon audit``, as a user would.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from fastapi.testclient import TestClient

from incanon.audit import audit_work
from incanon.canon import CanonStore
from incanon.canonbuild import BuildOptions, BuildReport, build_canon, store_world
from incanon.canonbuild.estimate import estimate_build
from incanon.cards.build import build_card
from incanon.graph import GraphBuilder, HashEmbedder, canon_chunks, oracle_model
from incanon.ingest.reader import read_book
from incanon.models import ScriptedModel, load_chat_model
from incanon.models.types import Message
from incanon.serve import ServeConfig, create_app
from incanon.templates import default_library


def _between(text: str, start: str, end: str) -> str:
    i = text.find(start)
    j = text.find(end, i + len(start)) if i >= 0 else -1
    return text[i + len(start):j] if i >= 0 and j >= 0 else ""


def _first_sentence(text: str) -> str:
    sentence = re.split(r"(?<=[.!?])[”\"’]?\s", " ".join(text.split()), maxsplit=1)[0]
    return " ".join(sentence.split()[:30])


class StandIn:
    """The stand-in helper (see the module docstring)."""

    def __init__(self, cast: list[list[str]], scene_words: int):
        self.cast = cast
        self.scene_words = scene_words
        self.patterns = [(group[0], re.compile(r"(?<!\w)(?:" + "|".join(re.escape(n) for n in group) + r")(?!\w)", re.I))
                         for group in cast]
        self.graph: ScriptedModel | None = None

    def named(self, text: str) -> list[str]:
        return [name for name, pattern in self.patterns if pattern.search(text)]

    def __call__(self, messages: Sequence[Message]) -> str:
        prompt = messages[0].content
        if len(messages) > 1 and "JSON" in messages[-1].content and self.graph is None:
            return "{}"  # a repair turn: nothing better to say
        if "Divide it into its scenes" in prompt:
            return self.split(_between(prompt, "Chapter text:\n", "\n\nAnswer with JSON only"))
        if "List who is there" in prompt:
            return json.dumps({"participants": self.named(_between(prompt, "Scene:\n", "\n\nGive the full names"))})
        if "Group the names" in prompt:
            return json.dumps({"characters": [{"name": g[0], "aliases": g[1:]} for g in self.cast]})
        if "Pick at most" in prompt:
            positions = re.findall(r"^- (\d+-\d+-\d+): ", prompt, re.M)
            picks = dict.fromkeys(positions[len(positions) * k // 3] for k in (1, 2)) if len(positions) > 2 else {}
            return json.dumps({"time_points": [{"position": p, "label": f"after scene {p}"} for p in picks]})
        if "character sheet of" in prompt:
            who = _between(prompt, "character sheet of ", " from").split(" (also called")[0]
            summaries = re.findall(r"^\[[^\]]+\] (.+)$", prompt, re.M)
            previous = _between(prompt, "Profile: ", "\n")
            lived = "; ".join(summaries[-3:])
            return json.dumps({"profile": f"{previous} Since then: {lived}".strip() if previous else
                               f"{who} in this story. What they have lived through: {lived}",
                               "personality": f"{who} as the scenes show them.",
                               "situation": summaries[-1] if summaries else ""})
        if self.graph is not None:
            return self.graph.rules_reply(messages)  # type: ignore[attr-defined]
        return "{}"

    def split(self, chapter: str) -> str:
        paragraphs = [p for p in re.split(r"\n\s*\n", chapter) if p.strip()]
        scenes, current, words = [], [], 0
        for p in paragraphs:
            current.append(p)
            words += len(p.split())
            if words >= self.scene_words:
                scenes.append(current)
                current, words = [], 0
        if current:
            if scenes and words < self.scene_words // 3:
                scenes[-1] += current
            else:
                scenes.append(current)
        out = []
        for s in scenes[:8]:
            text = "\n\n".join(s)
            ws = text.split()
            out.append({"start": " ".join(ws[:8]), "end": " ".join(ws[-8:]), "summary": _first_sentence(text),
                        "location": "", "speakers": self.named(text)})
        return json.dumps({"scenes": out})


class Recorder:
    """Keeps (last message, answer) of every call, to replay them as a scripted helper file."""

    def __init__(self, answer: StandIn):
        self.answer = answer
        self.rules: dict[str, str] = {}

    def __call__(self, messages: Sequence[Message]) -> str:
        reply = self.answer(messages)
        self.rules.setdefault(messages[-1].content, reply)
        return reply

    def write(self, path: Path) -> None:
        rules = [{"match": "^" + re.escape(prompt) + "$", "response": reply} for prompt, reply in self.rules.items()]
        path.write_text(json.dumps({"rules": rules, "default": "{}"}, ensure_ascii=False), encoding="utf-8")


def _cli(*args: str) -> tuple[int, str, str]:
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "incanon", *args], capture_output=True, text=True)
    return done.returncode, done.stdout, done.stderr


def replay(book: list[Path], rules: Path, character: str, label: str) -> None:
    """The command line on the same book with the recorded helper."""
    with tempfile.TemporaryDirectory() as tmp:
        store = str(Path(tmp) / "canon")
        t0 = time.monotonic()
        code, out, err = _cli("canon", "build", *map(str, book), "--store", store, "--helper", f"scripted:{rules}",
                              "--no-cache", "--concurrency", "1", "--json")
        if code:
            print(f"canon build (command line) exited {code}: {err.strip().splitlines()[-1:]}")
            return
        r = json.loads(out)
        print(f"canon build (command line, scripted:{rules.name}): exit 0 in {time.monotonic() - t0:.1f} s; "
              f"{r['chapters']} chapters, {r['scenes']} scenes, {r['characters']} characters, {r['aliases']} aliases, "
              f"{sum(len(v) for v in r['time_points'].values())} time points, {r['profiles']} profiles, graph "
              f"{r['graph'].get('nodes', 0)} entities / {r['graph'].get('edges', 0)} relations, helper calls "
              f"{r['helper']['calls']}, failed steps {len(r['failed_steps'])}")
        code, out, err = _cli("canon", "card", "export", "--store", store, "--work", r["work"], "--character",
                              character, "--at", label, "--out", str(Path(tmp) / "card.png"))
        print(f"canon card export {character!r} at {label!r}: exit {code}; {out.strip()[:120]}")
        code, out, err = _cli("canon", "audit", "--store", store, "--method", "in-canon", "--json")
        audit = json.loads(out) if out.strip().startswith("{") else {}
        print(f"canon audit (command line): exit {code}; {len(audit.get('points', []))} character@points, "
              f"strict leaks {audit.get('strict_leaks')}")


class GraphAnswers(ScriptedModel):
    """The graph oracle of the built world, reached through ``StandIn``."""

    def rules_reply(self, messages: Sequence[Message]) -> str:
        return self._reply(messages)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("book", nargs="+", type=Path)
    parser.add_argument("--cast", required=True, help="Name groups: 'Name|Alias|...;Other|...'")
    parser.add_argument("--scene-words", type=int, default=900)
    parser.add_argument("--main", type=int, default=3)
    parser.add_argument("--price-model", default="openai:gpt-4o-mini", help="Model spec the dry run prices.")
    parser.add_argument("--record", type=Path, help="Write the stand-in's answers as a scripted helper file and "
                                                     "replay them through the command line.")
    args = parser.parse_args()
    cast = [[n.strip() for n in group.split("|") if n.strip()] for group in args.cast.split(";") if group.strip()]
    started = time.monotonic()
    book = read_book(args.book)
    options = BuildOptions(work_id="book", main=args.main, graph=True, embedder=None, concurrency=1)
    standin = StandIn(cast, args.scene_words)
    recorder = Recorder(standin)
    model = load_chat_model(ScriptedModel(default=recorder, name="stand-in"), retry=None)
    report = BuildReport(work="book", title=book.title)
    built = await build_canon(book, model, default_library(), options, report=report)
    canon_seconds = time.monotonic() - started
    with tempfile.TemporaryDirectory() as tmp:
        store = CanonStore.open(Path(tmp) / "canon")
        store_world(store, built.world, source=str(args.book[0]))
        oracle = oracle_model(built.world)
        standin.graph = GraphAnswers(oracle.rules, name="oracle")
        builder = GraphBuilder(store, "book", model, embedder=HashEmbedder())
        graph = await builder.add(canon_chunks(store, "book"))
        builder.close()
        seconds = time.monotonic() - started
        print(f"book: {book.title!r} by {book.author or '?'}; notes: {'; '.join(book.notes) or 'none'}")
        print(f"chapters {report.chapters} in {report.books} book(s), {report.words:,} words; scenes {report.scenes}; "
              f"chunks {report.chunks}")
        print(f"characters {report.characters}; aliases {report.aliases}, dated by first use: {report.dated_aliases}")
        print(f"main: {report.main_characters}; time points: {report.time_points}; profiles {report.profiles}")
        print(f"graph: {graph.graph.get('nodes', 0)} entities, {graph.graph.get('edges', 0)} relations from "
              f"{graph.chunks_extracted} chunks")
        print(f"helper calls: {model.usage.calls} ({model.usage.cached_calls} cached); failed steps "
              f"{len(report.failed_steps)}; canon stages {canon_seconds:.1f} s, with the graph {seconds:.1f} s")
        first = built.main[0].name
        points = [tp.label for tp in store.character("book", first).time_points]
        config = ServeConfig(canon=Path(tmp) / "canon", runs=Path(tmp) / "runs.sqlite", model="stand-in", cache=False)
        chatter = ScriptedModel(default="I remember what I have lived through.", name="stand-in")
        with TestClient(create_app(config, model=load_chat_model(chatter)), base_url="http://127.0.0.1") as client:
            models = client.get("/v1/models").json()["data"]
            print(f"/v1/models: {len(models)} entries")
            for label in (points[0], points[-1]):
                r = client.post("/v1/chat/completions", json={"model": f"book/{first}@{label}",
                                                              "messages": [{"role": "user", "content": "Who are you?"}]})
                prompt = "\n".join(m.content for m in chatter.calls[-1].messages)
                print(f"/v1 chat with {first}@{label}: HTTP {r.status_code}, prompt {len(prompt.split()):,} words")
        card = build_card(store, "book", first, points[0])
        print(f"card of {first} at {points[0]!r}: {len(card.data.description.split())} words of description, "
              f"{len(card.data.character_book.entries)} lorebook entries")
        print(f"  greeting (first_mes): {card.data.first_mes[:300]!r}")
        audit = await audit_work(store, "book", methods=("in-canon",), embedder=HashEmbedder())
        print(f"leak audit: {len(audit.points)} character@points, strict leaks {audit.strict_leaks()}")
        store.close()
    estimate = estimate_build(book, BuildOptions(work_id="book", main=args.main), args.price_model, default_library())
    cost = estimate.cost
    print(f"dry run with {args.price_model}: {estimate.calls:,.0f} calls, {estimate.tokens:,.0f} tokens, "
          f"{'?' if cost is None else f'${cost:.2f}'} ({estimate.prices})")
    if args.record:
        recorder.write(args.record)
        print(f"recorded {len(recorder.rules)} answers in {args.record}")
        replay(args.book, args.record, first, points[0])


if __name__ == "__main__":
    asyncio.run(main())
