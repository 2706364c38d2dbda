"""The ConceptNet assertion reader: URIs, gzip, streaming, filters, malformed lines."""

from __future__ import annotations

import gzip
import json
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path

import pytest
from sharp_helpers import cn_line

from incanon.bench.sharp import (
    parse_concept_uri,
    read_assertions,
    relation_name,
    sample_assertions_path,
)
from incanon.errors import IncanonError, InputError, NotFoundError



@pytest.fixture
def write_file(tmp_path: Path) -> Callable[..., Path]:
    """write_file(lines, name="a.csv", gz=False) → path; lines may be str or bytes."""

    def write(lines: Iterable[str | bytes], name: str = "assertions.csv", gz: bool = False) -> Path:
        data = b"".join((x if isinstance(x, bytes) else x.encode("utf-8")) + b"\n" for x in lines)
        path = tmp_path / name
        path.write_bytes(gzip.compress(data) if gz else data)
        return path

    return write


# -- concept URIs ------------------------------------------------------------------------------


def test_parse_concept_uri_with_pos_and_sense():
    c = parse_concept_uri("/c/en/ice_cream/n/wn/food")
    assert (c.lang, c.text, c.pos, c.sense) == ("en", "ice cream", "n", "wn/food")
    assert c.uri == "/c/en/ice_cream/n/wn/food"


def test_parse_concept_uri_without_pos():
    c = parse_concept_uri("/c/en/cut_bread")
    assert (c.lang, c.text, c.pos, c.sense) == ("en", "cut bread", None, None)


def test_parse_concept_uri_non_ascii_and_trailing_slash():
    c = parse_concept_uri("/c/es/frío/a/")
    assert (c.lang, c.text, c.pos) == ("es", "frío", "a")
    assert parse_concept_uri("/c/ja/猫").text == "猫"


@pytest.mark.parametrize("bad", ["", "/c/en", "/c/en/", "/r/IsA", "c/en/dog", "http://dbpedia.org/x", "/c//dog"])
def test_parse_concept_uri_rejects_non_concepts(bad):
    with pytest.raises(ValueError):
        parse_concept_uri(bad)


def test_relation_name():
    assert relation_name("/r/IsA") == "IsA"
    assert relation_name("IsA") == "IsA"
    assert relation_name("/r/dbpedia/genre/") == "dbpedia/genre"


# -- plain and gzip ----------------------------------------------------------------------------

LINES = [
    cn_line("IsA", "dog/n", "animal/n", 2.0, surfaceText="[[a dog]] is [[an animal]]"),
    cn_line("UsedFor", "knife/n", "cut_bread/v", 1.0),
]


@pytest.mark.parametrize(
    ("name", "gz"),
    [("a.csv", False), ("a.csv.gz", True), ("gz_named_csv.csv", True), ("plain_named.gz", False)],
)
def test_plain_and_gzip_detected_by_magic_bytes(write_file, name, gz):
    path = write_file(LINES, name=name, gz=gz)
    assert path.read_bytes()[:2] == (b"\x1f\x8b" if gz else b"/a")
    edges = list(read_assertions(path))
    assert [e.key for e in edges] == [("IsA", "dog", "animal"), ("UsedFor", "knife", "cut bread")]
    first = edges[0]
    assert first.weight == 2.0
    assert first.surface_text == "[[a dog]] is [[an animal]]"
    assert first.uri == "/a/[/r/IsA/,/c/en/dog/n/,/c/en/animal/n/]"
    assert first.dataset == "/d/test"
    assert (first.head.pos, first.tail.pos) == ("n", "n")


def test_truncated_gzip_is_an_input_error(write_file, tmp_path):
    full = write_file(LINES * 2000, name="full.gz", gz=True).read_bytes()
    cut = tmp_path / "cut.gz"
    cut.write_bytes(full[: len(full) // 2])
    with pytest.raises(InputError, match=r"cut.gz \(after line \d+\): the gzip stream is damaged or truncated"):
        list(read_assertions(cut))


def test_missing_file_is_not_found(tmp_path):
    with pytest.raises(NotFoundError):
        read_assertions(tmp_path / "nope.csv")


# -- streaming ---------------------------------------------------------------------------------


def test_streaming_stops_early_without_reading_the_rest(write_file):
    # 20k good lines, then garbage: reading 10 edges must neither reach nor parse the garbage.
    lines = [cn_line("IsA", f"thing_{i}/n", "object/n", 1.0) for i in range(20_000)]
    lines.append("this line is not an assertion")
    for gz in (False, True):
        path = write_file(lines, name=f"big{int(gz)}.csv", gz=gz)
        reader = read_assertions(path, max_edges=10)
        edges = list(reader)
        assert len(edges) == 10
        assert reader.gzipped is gz
        assert reader.stats.lines == 10
        assert reader.stats.edges == 10
        with pytest.raises(InputError, match="line 20001"):
            list(read_assertions(path))


def test_reader_is_lazy_and_can_be_closed(write_file):
    path = write_file(LINES + ["garbage"])
    reader = read_assertions(path)  # nothing read yet
    assert reader.stats.lines == 0
    assert next(reader).head.text == "dog"
    reader.close()
    assert list(reader) == []


def test_max_edges_zero_reads_nothing(write_file):
    assert list(read_assertions(write_file(LINES), max_edges=0)) == []


# -- filters -----------------------------------------------------------------------------------

MIXED = [
    cn_line("IsA", "dog/n", "animal/n", 2.0),
    cn_line("IsA", "/c/fr/chien/n", "/c/fr/animal/n", 2.0),
    cn_line("Synonym", "dog/n", "/c/fr/chien/n", 2.0),  # mixed languages
    cn_line("CapableOf", "dog/n", "bark/v", 0.5),
    cn_line("HasProperty", "ice/n", "cold/a", 3.0),
    cn_line("ExternalURL", "dog/n", "http://dbpedia.org/resource/Dog", 1.0),
    "",
]


def test_language_filter_needs_both_ends(write_file):
    reader = read_assertions(write_file(MIXED), langs="en")
    keys = [e.key for e in reader]
    assert keys == [("IsA", "dog", "animal"), ("CapableOf", "dog", "bark"), ("HasProperty", "ice", "cold")]
    assert reader.stats.skipped["language"] == 3  # fr edge, en-fr synonym, ExternalURL
    assert reader.stats.skipped["blank"] == 1
    fr = [e.key for e in read_assertions(write_file(MIXED), langs=["fr"])]
    assert fr == [("IsA", "chien", "animal")]
    both = list(read_assertions(write_file(MIXED), langs="en,fr"))
    assert len(both) == 5


def test_relation_filter_accepts_names_and_uris(write_file):
    path = write_file(MIXED)
    assert {e.relation for e in read_assertions(path, relations=["IsA", "/r/HasProperty"])} == {"IsA", "HasProperty"}
    reader = read_assertions(path, relations="CapableOf")
    assert [e.key for e in reader] == [("CapableOf", "dog", "bark")]
    assert reader.stats.skipped["relation"] == 5


def test_min_weight_and_max_edges(write_file):
    path = write_file(MIXED)
    reader = read_assertions(path, langs="en", min_weight=1.0)
    assert [e.relation for e in reader] == ["IsA", "HasProperty"]
    assert reader.stats.skipped["weight"] == 1
    assert len(list(read_assertions(path, max_edges=2))) == 2


def test_non_concept_ends_are_skipped_not_errors(write_file):
    reader = read_assertions(write_file(MIXED))
    edges = list(reader)
    assert len(edges) == 5
    assert reader.stats.skipped["not_concept"] == 1


# -- malformed lines ---------------------------------------------------------------------------

GOOD = cn_line("IsA", "dog/n", "animal/n")


@pytest.mark.parametrize(
    ("bad", "expected"),
    [
        ("only\tthree\tcolumns", "expected 5 tab-separated columns"),
        (GOOD.replace("/a/[", "/x/["), "assertion URI starting with /a/"),
        (GOOD.replace("\t/r/IsA\t", "\tIsA\t"), "relation URI like /r/IsA"),
        (GOOD.rsplit("\t", 1)[0] + "\t{not json", "invalid JSON"),
        (GOOD.rsplit("\t", 1)[0] + "\t[1, 2]", "JSON object in column 5, found list"),
        (GOOD.rsplit("\t", 1)[0] + "\t" + json.dumps({"dataset": "/d/x"}), 'numeric "weight"'),
        (GOOD.rsplit("\t", 1)[0] + "\t" + json.dumps({"weight": "heavy"}), 'numeric "weight"'),
        (GOOD.replace("\t/c/en/dog/n\t", "\t/c/en\t"), "not a concept URI"),
        (b"/a/x\t/r/IsA\t/c/en/\xff\t/c/en/y\t{}", "not valid UTF-8"),
    ],
)
def test_malformed_line_names_file_line_and_expectation(write_file, bad, expected):
    path = write_file([GOOD, GOOD, bad, GOOD], name="broken.csv")
    with pytest.raises(InputError) as err:
        list(read_assertions(path))
    message = str(err.value)
    assert "broken.csv" in message
    assert "(line 3)" in message
    assert expected in message
    assert err.value.where == "line 3"
    assert isinstance(err.value, IncanonError) and err.value.exit_code == 2
    assert "\n" not in message


def test_skip_bad_counts_and_continues(write_file):
    no_json = GOOD.rsplit("\t", 1)[0] + "\t{oops"
    path = write_file([GOOD, "garbage", no_json, "a\tb", GOOD.replace("dog", "cat")])
    reader = read_assertions(path, skip_bad=True)
    assert [e.head.text for e in reader] == ["dog", "cat"]
    assert reader.stats.bad == 3
    assert reader.stats.lines == 5
    assert reader.stats.bad_examples[0].startswith("line 2: expected 5 tab-separated columns")


def test_gzip_line_numbers_are_reported_too(write_file):
    path = write_file([GOOD] * 5 + ["broken"], name="b.csv.gz", gz=True)
    with pytest.raises(InputError, match=r"b\.csv\.gz \(line 6\)"):
        list(read_assertions(path))


# -- the shipped sample ------------------------------------------------------------------------


def test_sample_file_reads_cleanly_and_exercises_the_filters():
    path = sample_assertions_path()
    assert path.is_file()
    reader = read_assertions(path)
    edges = list(reader)
    assert reader.stats.bad == 0
    assert 300 <= len(edges) <= 600
    by_rel = Counter(e.relation for e in edges)
    for rel in ("IsA", "UsedFor", "CapableOf", "HasProperty", "AtLocation", "PartOf", "HasA", "MadeOf",
                "Causes", "Desires", "HasPrerequisite", "CausesDesire", "MotivatedByGoal",
                "ReceivesAction", "CreatedBy", "Antonym"):
        assert by_rel[rel] >= 2, rel
    assert by_rel["Antonym"] >= 20
    langs = {e.head.lang for e in edges} | {e.tail.lang for e in edges}
    assert {"en", "fr", "de", "es", "ja", "zh"} <= langs
    assert sum(e.weight < 1.0 for e in edges) >= 8
    assert reader.stats.skipped["not_concept"] == 2
    english = list(read_assertions(path, langs="en", min_weight=1.0))
    assert all(e.weight >= 1.0 and e.head.lang == e.tail.lang == "en" for e in english)
    assert len(english) < len(edges)
    # ConceptNet dumps are sorted by assertion URI; so is the sample.
    uris = [line.split("\t", 1)[0] for line in path.read_text(encoding="utf-8").splitlines()]
    assert uris == sorted(uris)
