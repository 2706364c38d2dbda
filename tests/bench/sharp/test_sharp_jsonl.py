"""Claims JSONL: atomic writes, round trip, line-numbered errors."""

from __future__ import annotations

import json

import pytest

from incanon.bench.sharp import (
    Claim,
    build_claims,
    iter_claims_jsonl,
    read_assertions,
    read_claims_jsonl,
    sample_assertions_path,
    write_claims_jsonl,
)
from incanon.errors import InputError, NotFoundError


@pytest.fixture(scope="module")
def claims():
    return build_claims(read_assertions(sample_assertions_path(), langs="en", min_weight=1.0), n=30, seed=9)


def test_round_trip(tmp_path, claims):
    path = tmp_path / "out" / "claims.jsonl"
    assert write_claims_jsonl(claims, path) == 30
    back = read_claims_jsonl(path)
    assert back == claims
    assert all(isinstance(c, Claim) for c in back)
    first = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
    assert set(first) == {"id", "text", "label", "rule", "detail", "lang", "source"}
    assert set(first["source"]) >= {"relation", "head", "tail", "weight", "assertion"}


def test_write_is_atomic_and_leaves_no_temp_files(tmp_path, claims):
    path = tmp_path / "claims.jsonl"
    path.write_text("old content\n", encoding="utf-8")

    def exploding():
        yield claims[0]
        raise RuntimeError("disk on fire")

    with pytest.raises(RuntimeError):
        write_claims_jsonl(exploding(), path)
    assert path.read_text(encoding="utf-8") == "old content\n"  # untouched
    assert sorted(p.name for p in tmp_path.iterdir()) == ["claims.jsonl"]

    write_claims_jsonl(claims[:3], path)
    assert len(read_claims_jsonl(path)) == 3
    assert sorted(p.name for p in tmp_path.iterdir()) == ["claims.jsonl"]


def test_blank_lines_are_ignored(tmp_path, claims):
    path = tmp_path / "c.jsonl"
    path.write_text("\n" + claims[0].model_dump_json() + "\n\n", encoding="utf-8")
    assert read_claims_jsonl(path) == [claims[0]]


@pytest.mark.parametrize(
    ("bad", "expected"),
    [
        ("{not json", "invalid JSON"),
        ("[1, 2]", "expected a JSON object, found list"),
        ('{"text": "A dog is an animal."}', "expected a claim: field 'id'"),
        ("LABEL", "field 'label'"),
    ],
)
def test_bad_line_is_an_input_error_with_its_line_number(tmp_path, claims, bad, expected):
    good = claims[0].model_dump_json()
    if bad == "LABEL":
        data = claims[1].model_dump()
        data["label"] = "maybe"
        bad = json.dumps(data)
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join([good, good, bad, good]) + "\n", encoding="utf-8")
    with pytest.raises(InputError) as err:
        read_claims_jsonl(path)
    message = str(err.value)
    assert "bad.jsonl (line 3" in message and expected in message
    # streaming reader yields the good lines first
    it = iter_claims_jsonl(path)
    assert next(it) == claims[0]


def test_missing_claims_file(tmp_path):
    with pytest.raises(NotFoundError):
        read_claims_jsonl(tmp_path / "none.jsonl")
