"""docs/sharp-claims.md: every Python block runs, and prints what the page says it prints."""

from __future__ import annotations

import contextlib
import gzip
import io
import json
import re
from pathlib import Path

import pytest

from incanon.bench.sharp import read_claims_jsonl, sample_assertions_path, templates

DOC = Path(__file__).resolve().parents[3] / "docs" / "sharp-claims.md"
DUMP_PATH = 'Path("~/data/conceptnet-assertions-5.7.0.csv.gz")'


def blocks() -> list[tuple[str, str | None]]:
    """(python code, the text block right after it or None)."""
    text = DOC.read_text(encoding="utf-8")
    found = []
    for m in re.finditer(r"```python\n(.*?)```\n(?:\n```text\n(.*?)```)?", text, re.S):
        found.append((m.group(1), m.group(2)))
    return found


def run(code: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, str(DOC), "exec"), {"__name__": "__doc_example__"})
    return out.getvalue()


def test_doc_has_the_examples():
    codes = [code for code, _ in blocks()]
    assert len(codes) == 3
    assert DUMP_PATH in codes[1]


def test_sample_example_prints_what_the_doc_shows(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, expected = blocks()[0]
    assert run(code) == expected
    assert len(read_claims_jsonl(tmp_path / "claims.jsonl")) == 40


def test_dump_example_runs_on_a_gzipped_dump(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    dump = tmp_path / "conceptnet-assertions-5.7.0.csv.gz"
    dump.write_bytes(gzip.compress(sample_assertions_path().read_bytes()))
    code, _ = blocks()[1]
    out = run(code.replace(DUMP_PATH, f"Path({str(dump)!r})"))
    lines, kept, bad = (int(x) for x in out.split()[:3])
    assert lines > kept > 100 and bad == 0
    written = read_claims_jsonl(tmp_path / "sharp-claims-en.jsonl")
    assert 100 <= len(written) <= 1000  # the sample cannot give 1000; a dump can


def test_language_example(monkeypatch):
    code, expected = blocks()[2]
    try:
        assert run(code) == expected
    finally:
        templates._REGISTRY.pop("fr", None)


def test_claim_json_in_the_doc_is_a_valid_claim():
    from incanon.bench.sharp import Claim

    text = DOC.read_text(encoding="utf-8")
    raw = re.search(r"```json\n(.*?)```", text, re.S).group(1)
    claim = Claim.model_validate(json.loads(raw))
    assert claim.rule == "substitute" and claim.label == "counterfactual"
    from incanon.bench.sharp import build_claims, read_assertions

    edges = read_assertions(sample_assertions_path(), langs="en", min_weight=1.0)
    assert claim in build_claims(edges, n=40, seed=7)  # the example is real output


@pytest.mark.parametrize("name", ["sample_assertions.csv"])
def test_doc_mentions_the_shipped_file(name):
    assert name in DOC.read_text(encoding="utf-8")


def test_rules_table_examples_are_real_output():
    from incanon.bench.sharp import (
        RULE_FUNCTIONS,
        KnowledgeIndex,
        build_claims,
        edge_to_claim,
        read_assertions,
    )

    edges = list(read_assertions(sample_assertions_path(), langs="en", min_weight=1.0))
    index = KnowledgeIndex(edges)
    drawn = {c.text for c in build_claims(edges, n=40, seed=7)}
    by_fact = {}
    for e in edges:
        fact = edge_to_claim(e)
        if fact is not None:
            by_fact.setdefault(fact.text, []).append(e)
    rows = re.findall(r"^\| `(\w+)` \| (.*?) \|", DOC.read_text(encoding="utf-8"), re.M)
    assert {name for name, _ in rows} == set(RULE_FUNCTIONS)
    checked = 0
    for name, cell in rows:
        for fact_text, cf_text in re.findall(r"([^|/]+?\.) → ([^|/]+?\.)", cell):
            fact_text, cf_text = fact_text.strip(), cf_text.strip()
            if name == "substitute":
                assert cf_text in drawn
            else:
                made = {getattr(RULE_FUNCTIONS[name](e, index), "text", None) for e in by_fact[fact_text]}
                assert cf_text in made, (name, fact_text, made)
            checked += 1
    assert checked >= 7
