"""`canon build --dry-run` on a Chinese book against a Latin-script book of the same byte size,
before and after the chunker that tokenizes once (issue 50), in one run.

The graph chunker cut each window by spans and shrank it one span at a time, re-tokenizing it
each time; a CJK character is two or three byte tokens of the embedded tokenizer, so each window
started twice too long and took hundreds of re-tokenisations (a 2.6 MB Chinese dry run: about 6
minutes of CPU), and the next window started by spans, leaving a third of the text in no chunk.
Now each span carries its token count and windows are cut by cumulative counts.

Measured, each as a child process (CPU = user + system of the child):

1. ``before`` (the source of ``--before``, default the commit before the change, through
   ``benchtools.commit_source``) and ``after`` (this tree) on the first ``--before-fraction`` of
   each book, so the slow code finishes in minutes;
2. ``after`` on the whole books: the target is a Chinese dry run within 3x the CPU of a Latin
   one of the same bytes;
3. the graph chunks of the Chinese sample by both versions: how many, their largest token count,
   and the share of the text they cover.

Books are generated (seeded: a Chinese novel's common characters and punctuation in sentences,
and Dutch-like words, both as markdown with ``##`` chapters of ~20,000 characters), or given:

    .venv/bin/python benchmarks/cjk_chunking.py [--mb 2.6] [--before REV] [--before-fraction 0.1]
    .venv/bin/python benchmarks/cjk_chunking.py --zh /tmp/realbooks/hlm.txt --latin /tmp/realbooks/nl.txt
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchtools import ROOT, commit_source

BEFORE = "813d555"
"""The last commit with the span-by-span chunker."""
_HAN = ("的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年得就那要下以生会自着去之过家学对可她里后小么心多天"
        "而能好都然没日于起还发成事只作当想看文无开手十用主行方又如前所本见经头面公同三已老从动两长知民样现分将外但身些"
        "与高意进把法此实回二理美点月明其种声全工己话儿者向情部正名定女问力机给等几很业最间新什打便位因重被走电四第门相"
        "次东海口使教西再平真听世气信北少关并内加化由却代军产入先山五太水万市眼体别处总才场师书比住员九笑性通目华报立马"
        "命张活难神数件安表原车白应路期叫死常提感金何更反合放做系计或司利受光王果亲界及今京务制解各任至清物台象记边共风"
        "战干接它许八特觉望直服毛林题建南度统色字请交爱让认算论百吃义科怎元社术结六功指思非流每青管夫连远资队跟带花快条"
        "院变联言权往展该领传近留红治决周保达办运武半候七必城父强步完革深区即求品士转量空甚众技轻程告江语英基派满式李息"
        "写呢识极令黄德收脸钱党倒未持取设始版双历越史商千片容研像找友孩站广改议形委早房音火际则首单据导影失拿网香似斯专"
        "石若兵弟谁校读志飞观争究包组造落视济喜离虽坏兴切母按复楼梦贾宝玉黛钗凤姐袭")
_DUTCH = ("de het een en van in op met dat die niet hij zij ik je wij aan voor als maar om door over bij uit tot ook "
          "zijn was had heeft werd worden kan zou moest schip zee kapitein vloot haven wind storm matroos dek zeil "
          "kanon vijand admiraal Tromp Holland Engeland Spanje koning stad huis vader moeder zoon jongen dag nacht "
          "morgen avond water land kust eiland brief woord hand hoofd oog hart tijd jaar leven dood strijd vrede "
          "groot klein oud jong goed slecht sterk zwak snel langzaam hoog laag ver dicht nieuw eerste laatste").split()
CHAPTER_CHARS = 20_000


def _chinese(target: int, rng: random.Random) -> str:
    parts = ["# 紅樓試\n\n"]
    size, n = len(parts[0].encode()), 0
    while size < target:
        n += 1
        chapter = [f"## 第{n}回\n\n"]
        length = 0
        while length < CHAPTER_CHARS // 2:  # ~3 bytes a character
            sentences = []
            for _ in range(rng.randint(3, 8)):
                words = "".join(rng.choice(_HAN) for _ in range(rng.randint(5, 25)))
                sentences.append(words + rng.choice("，。：？！、") + ("“" + words[:4] + "”。" if rng.random() < .2 else ""))
            paragraph = "".join(sentences) + "\n\n"
            chapter.append(paragraph)
            length += len(paragraph)
        text = "".join(chapter)
        parts.append(text)
        size += len(text.encode())
    return "".join(parts)


def _latin(target: int, rng: random.Random) -> str:
    parts = ["# Een Proefboek\n\n"]
    size, n = len(parts[0]), 0
    while size < target:
        n += 1
        chapter = [f"## Hoofdstuk {n}\n\n"]
        length = 0
        while length < CHAPTER_CHARS:
            sentences = []
            for _ in range(rng.randint(3, 8)):
                words = [rng.choice(_DUTCH) for _ in range(rng.randint(5, 18))]
                sentences.append(" ".join(words).capitalize() + rng.choice(".,;!?"))
            paragraph = " ".join(sentences) + "\n\n"
            chapter.append(paragraph)
            length += len(paragraph)
        text = "".join(chapter)
        parts.append(text)
        size += len(text.encode())
    return "".join(parts)


def _head(path: Path, fraction: float, dest: Path) -> Path:
    """The first ``fraction`` of a book's bytes, cut at a paragraph break."""
    text = path.read_text(encoding="utf-8")
    cut = text.rfind("\n\n", 0, int(len(text) * fraction)) or len(text)
    dest.write_text(text[:cut] + "\n", encoding="utf-8")
    return dest


def _dry_run(book: Path, src: Path) -> dict[str, float]:
    """CPU and wall seconds of one ``canon build BOOK --dry-run`` under the source ``src``."""
    env = {**os.environ, "PYTHONPATH": str(src), "INCANON_NO_UPDATE_CHECK": "1"}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "incanon", "canon", "build", str(book), "--dry-run", "--json",
                           "--helper", "openai:gpt-4o-mini"], env=env, capture_output=True, text=True)
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"dry run of {book} failed: {done.stderr[-800:]}")
    data = json.loads(done.stdout)
    chunks = next((r["calls"] for r in data["estimate"]["rows"] if r["label"].startswith("extraction")), 0)
    progress = sum("dry run:" in line for line in done.stderr.splitlines())
    return {"cpu": (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), "wall": wall,
            "extraction_calls": chunks, "progress_lines": progress}


_CHUNKS = """
import json, sys
from incanon.graph.chunking import windows
from incanon.tokens import count_tokens
text = open(sys.argv[1], encoding="utf-8").read()
chapters = [c.split("\\n", 1)[1] for c in ("\\n" + text).split("\\n## ")[1:]]
covered = chunks = largest = 0
for chapter in chapters:
    pos = 0
    for p in windows(chapter):  # characters inside some window (in text order, overlapping)
        chunks += 1
        largest = max(largest, count_tokens(p))
        at = chapter.find(p, max(0, pos - len(p)))
        if at >= 0:
            covered += max(0, at + len(p) - max(at, pos))
            pos = max(pos, at + len(p))
print(json.dumps({"chunks": chunks, "max_tokens": largest,
                  "covered": covered / max(1, sum(len(c.strip()) for c in chapters))}))
"""


def _chunk_figures(book: Path, src: Path) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": str(src)}
    done = subprocess.run([sys.executable, "-c", _CHUNKS, str(book)], env=env, capture_output=True, text=True,
                          check=True)
    return json.loads(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=float, default=2.6, help="size of each generated book in MB")
    parser.add_argument("--zh", type=Path, help="a Chinese book instead of the generated one")
    parser.add_argument("--latin", type=Path, help="a Latin-script book instead of the generated one")
    parser.add_argument("--before", default=BEFORE, help="the commit to measure as 'before'")
    parser.add_argument("--before-fraction", type=float, default=0.1,
                        help="share of each book the 'before' code is timed on (it is slow)")
    args = parser.parse_args()
    rng = random.Random(50)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        zh = args.zh or work / "zh.md"
        latin = args.latin or work / "latin.md"
        if args.zh is None:
            zh.write_text(_chinese(int(args.mb * 1e6), rng), encoding="utf-8")
        if args.latin is None:
            latin.write_text(_latin(int(args.mb * 1e6), rng), encoding="utf-8")
        old_src, new_src = commit_source(args.before, work / "before"), ROOT / "src"
        print(f"books: Chinese {zh.stat().st_size / 1e6:.2f} MB, Latin {latin.stat().st_size / 1e6:.2f} MB; "
              f"before = {args.before}")
        zh_part = _head(zh, args.before_fraction, work / "zh_part.md")
        latin_part = _head(latin, args.before_fraction, work / "latin_part.md")
        print(f"\n1. dry run on the first {args.before_fraction:.0%} (CPU seconds, extraction calls priced)")
        print(f"   {'':8} {'Chinese':>18} {'Latin':>18} {'ratio':>7}")
        for name, src in (("before", old_src), ("after", new_src)):
            a, b = _dry_run(zh_part, src), _dry_run(latin_part, src)
            print(f"   {name:8} {a['cpu']:9.1f} s {a['extraction_calls']:6.0f} {b['cpu']:9.1f} s "
                  f"{b['extraction_calls']:6.0f} {a['cpu'] / b['cpu']:6.1f}x")
        a, b = _dry_run(zh, new_src), _dry_run(latin, new_src)
        print("\n2. after, whole books (target: Chinese within 3x the CPU of Latin; progress every 5 s)")
        print(f"   Chinese {a['cpu']:.1f} s CPU ({a['wall']:.1f} s wall, {a['progress_lines']:.0f} progress lines); "
              f"Latin {b['cpu']:.1f} s CPU ({b['wall']:.1f} s wall, {b['progress_lines']:.0f} progress lines); "
              f"ratio {a['cpu'] / b['cpu']:.1f}x")
        print(f"\n3. graph chunks of the Chinese {args.before_fraction:.0%} (600-token windows, 100 shared)")
        for name, src in (("before", old_src), ("after", new_src)):
            f = _chunk_figures(zh_part, src)
            print(f"   {name:8} {f['chunks']:5.0f} chunks, largest {f['max_tokens']:.0f} tokens, "
                  f"{f['covered']:.0%} of the text in some chunk")


if __name__ == "__main__":
    main()
