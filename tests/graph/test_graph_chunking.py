"""Token windows with overlap, and positions kept from books, canon chunks and text files."""

from __future__ import annotations

import pytest

from incanon.canon import Position
from incanon.errors import ConfigError, InputError, NotFoundError
from incanon.graph import book_chunks, canon_chunks, count_tokens, file_chunks, text_chunks, windows


def test_windows_have_the_size_and_share_the_overlap():
    text = " ".join(f"w{i}" for i in range(1000))
    parts = windows(text, size=300, overlap=50)
    assert all(285 <= count_tokens(p) <= 300 for p in parts[:-1])  # cuts snap to word starts
    for left, right in zip(parts, parts[1:]):
        first = right.split()[0]
        shared = left[left.index(" " + first) + 1:]
        assert right.startswith(shared) and 35 <= count_tokens(shared) <= 60
    assert parts[0].split()[0] == "w0" and parts[-1].split()[-1] == "w999"
    assert windows("short text", 300, 50) == ["short text"]
    assert windows("   ", 300, 50) == []


def test_overlap_must_be_smaller_than_the_window():
    with pytest.raises(ConfigError, match="overlap"):
        windows("a b c", size=10, overlap=10)


def test_canon_chunks_keep_positions_scenes_and_ids(store, world):
    chunks = canon_chunks(store, "lanterns")
    assert [c.id for c in chunks] == [c.id for c in store.chunks("lanterns")]
    first = chunks[0]
    assert first.position == Position.parse("1-1-1") and first.scene == "1-1-1" and first.canon_chunk == "1-1-1#0"
    small = canon_chunks(store, "lanterns", size=100, overlap=20)
    assert len(small) > len(chunks)
    assert all(c.tokens <= 100 for c in small)
    assert {c.id.split("~")[0] for c in small} == {c.id for c in chunks}
    assert all(c.position == store.chunks("lanterns")[0].position for c in small if c.id.startswith("1-1-1#0"))


def test_cjk_text_is_counted_per_character_not_per_word():
    from incanon.tokens import EstimateTokenizer

    zh = "路德维希·凡·贝多芬是德国作曲家和钢琴家。" * 100  # 2,100 characters, no spaces
    assert count_tokens(zh) >= len(zh) * 0.9  # the GGUF tokenizer, or the estimate: never 10x under
    assert EstimateTokenizer().count(zh) >= 2000
    assert len(windows(zh, 600, 100)) >= 3


def test_book_and_text_files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    book = tmp_path / "tale.md"
    book.write_text("# Book 2: Tale\n## Chapter 1: One\n<!-- scene 2-1-1 -->\nAda lit the lamp.\n"
                    "<!-- scene 2-1-2 -->\nBen saw it.\n", encoding="utf-8")
    chunks = file_chunks(book)
    assert [(c.id, str(c.position), c.scene) for c in chunks] == [
        ("tale.md:2-1-1", "2-1-1", "2-1-1"), ("tale.md:2-1-2", "2-1-2", "2-1-2")]
    notes = tmp_path / "notes.txt"
    notes.write_text("Ada is a lamplighter. " * 400, encoding="utf-8")
    plain = file_chunks(notes, size=600, overlap=100)
    expected = 1 + -(-(count_tokens(notes.read_text()) - 600) // 500)  # 600-token windows, 500-token steps
    assert len(plain) == expected and all(c.position is None for c in plain)
    placed = text_chunks("Ada.", "n", position=Position.parse("1-2"))
    assert placed[0].position == Position.parse("1-2")
    assert book_chunks("## Chapter 1\nText.\n", "b.md")[0].position == Position.parse("1-1-1")
    with pytest.raises(NotFoundError, match="does not exist"):
        file_chunks(tmp_path / "missing.txt")


def test_same_file_name_in_two_folders_is_two_documents(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "notes.txt").write_text(f"Notes of folder {folder}.", encoding="utf-8")
    ids = [c.id for f in ("a", "b") for c in file_chunks(tmp_path / f / "notes.txt")]
    assert ids == ["a/notes.txt", "b/notes.txt"]
    outside = file_chunks(tmp_path / "a" / "notes.txt")[0]
    assert outside.source == "a/notes.txt"
