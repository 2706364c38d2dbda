"""How often incanon.llmjson and the json-repair package recover JSON from real model replies.

The corpus (benchmarks/data/llm_json_corpus.jsonl) holds replies of the embedded
SmolLM2-135M-Instruct to JSON-asking prompts over the sample world's chunks, made without a
grammar and with small token limits, so it has what small models really do: prose around the
JSON, fences, single quotes, missing commas, replies cut at the token limit. Each row says what
the caller expects (an object with some keys, or a list). `--regenerate` makes the corpus again.

    .venv/bin/python benchmarks/llmjson_repair.py [--regenerate]

A reply counts as recovered when the parser returns a value of the expected shape with at least
one expected key or item; `--show` prints the replies only one of the two recovers.
"""

from __future__ import annotations

import argparse
import asyncio
import json
from pathlib import Path

CORPUS = Path(__file__).parent / "data" / "llm_json_corpus.jsonl"

PROMPTS = [
    ("object", ["stance", "reason"],
     'Read the text and answer ONLY with JSON like {{"stance": "FAVOR", "reason": "..."}}.\nText: {text}'),
    ("list", ["name", "type"],
     'List the people and places in the text as a JSON array of objects with "name" and "type".\nText: {text}'),
    ("object", ["triples"],
     'Extract facts as JSON: {{"triples": [{{"head": ..., "relation": ..., "tail": ...}}]}}.\nText: {text}'),
]


async def _regenerate(limit: int) -> None:
    from incanon.models import GenerationParams, load_chat_model, user
    from incanon.sample import sample_world

    model = load_chat_model("embedded")
    chunks = [c.text[:600] for c in sample_world().chunks][:limit]
    rows = []
    for index, text in enumerate(chunks):
        shape, keys, template = PROMPTS[index % len(PROMPTS)]
        reply = await model.generate([user(template.format(text=text))],
                                     GenerationParams(max_tokens=(60, 120, 200)[index % 3], temperature=0.0))
        rows.append({"shape": shape, "keys": keys, "reply": reply.text, "finish": reply.finish_reason})
    CORPUS.parent.mkdir(parents=True, exist_ok=True)
    CORPUS.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    print(f"wrote {len(rows)} replies to {CORPUS}")


def _useful(value: object, shape: str, keys: list[str]) -> bool:
    if shape == "list":
        return isinstance(value, list) and any(isinstance(v, dict) and set(keys) & set(v) for v in value)
    return isinstance(value, dict) and bool(set(keys) & set(value))


def _ours(reply: str) -> object:
    from incanon.llmout import JSONRepairError, repair_json

    try:
        return repair_json(reply).value
    except JSONRepairError:
        return None


def _theirs(reply: str) -> object:
    import json_repair

    try:
        return json_repair.loads(reply)
    except Exception:  # noqa: BLE001 - any failure is "not recovered"
        return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--regenerate", action="store_true", help="make the corpus again with the embedded model")
    parser.add_argument("--limit", type=int, default=45, help="replies to generate")
    parser.add_argument("--show", action="store_true", help="print replies only one parser recovers")
    args = parser.parse_args()
    if args.regenerate or not CORPUS.exists():
        asyncio.run(_regenerate(args.limit))
    rows = [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines() if line.strip()]
    strict = ours = theirs = either = 0
    only: list[tuple[str, str]] = []
    for row in rows:
        try:
            strict += _useful(json.loads(row["reply"]), row["shape"], row["keys"])
        except json.JSONDecodeError:
            pass
        a = _useful(_ours(row["reply"]), row["shape"], row["keys"])
        b = _useful(_theirs(row["reply"]), row["shape"], row["keys"])
        ours += a
        theirs += b
        either += a or b
        if a != b:
            only.append(("incanon.llmjson" if a else "json-repair", row["reply"]))
    n = len(rows)
    truncated = sum(r["finish"] == "length" for r in rows)
    print(f"{n} real replies of SmolLM2-135M ({truncated} cut at the token limit)")
    for name, count in (("json.loads as is", strict), ("incanon.llmout.repair_json", ours),
                        ("json_repair.loads", theirs), ("either", either)):
        print(f"  {name:<30} {count:>3} / {n} recovered ({100 * count / max(n, 1):.0f}%)")
    if args.show:
        for who, reply in only:
            print(f"\n--- only {who}:\n{reply[:400]}")


if __name__ == "__main__":
    main()
