"""Work ids keep every script's letters; a different book never takes another's work; the same
book given by another path is the same build (unchanged, nothing called)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from incanon.canon import CanonStore
from incanon.canonbuild.workid import BookPrint, work_slug
from incanon.cli.main import app
from incanon.ingest.reader import BookText, ReadChapter
from incanon.testing.cli import run_main

ROOT = Path(__file__).resolve().parents[2]
BOOK = ROOT / "examples" / "book" / "saltmere.txt"
HELPER = f"scripted:{ROOT / 'examples' / 'book' / 'helper.json'}"


@pytest.mark.parametrize("title,slug", [
    ("Goede Vaêr Tromp", "goede-vaêr-tromp"),
    ("紅樓夢", "紅樓夢"),
    ("石頭記", "石頭記"),
    ("Die Verwandlung", "die-verwandlung"),
    ("Война и мир", "война-и-мир"),
    ("ＳＨＯＧＵＮ　第一部", "shogun-第一部"),  # full-width letters made plain (NFKC)
    ("Straße", "strasse"),
    ("The Clock of Saltmere!", "the-clock-of-saltmere"),
    ("— ? —", "book"),
])
def test_work_ids_keep_every_scripts_letters(title: str, slug: str) -> None:
    assert work_slug(title) == slug


def _book(title: str, *texts: str) -> BookText:
    return BookText(title=title, chapters=[ReadChapter(1, k, str(k), t, 1) for k, t in enumerate(texts, 1)])


def test_the_same_work_is_the_same_content_or_a_chapter_in_common() -> None:
    stored = BookPrint.of(_book("A", "one two", "three four")).to_json()
    assert BookPrint.of(_book("A", "one  two\n", "three four")).same_work(stored)  # whitespace only
    assert BookPrint.of(_book("A", "one two", "three four", "five")).same_work(stored)  # a chapter added
    assert not BookPrint.of(_book("A", "six", "seven")).same_work(stored)  # same title, another book
    assert BookPrint.of(_book("A", "six")).same_work({"digest": "x"})  # built before fingerprints: kept
    assert not BookPrint.of(_book("B", "six")).same_work({"digest": "x", "title": "A"})


def _build(tmp_path: Path, book: Path | str, *extra: str) -> tuple[int, dict, str]:
    result = CliRunner().invoke(app, ["canon", "build", str(book), "--store", str(tmp_path / "canon"), "--helper",
                                      HELPER, "--cache", str(tmp_path / "cache.sqlite"), "--embedder", "none",
                                      "--no-graph", "--json", *extra])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    data = json.loads(result.stdout) if result.stdout.strip().startswith("{") else {}
    return result.exit_code, data, result.stderr


def test_the_same_book_by_another_path_is_unchanged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shutil.copy(BOOK, tmp_path / "saltmere.txt")
    monkeypatch.chdir(tmp_path)
    code, first, _ = _build(tmp_path, "saltmere.txt")
    assert code == 0 and first["stored"] == "created"
    code, again, err = _build(tmp_path, BOOK.resolve())  # another path, an absolute one, same text
    assert code == 0 and again["stored"] == "unchanged" and again["work"] == first["work"]
    assert again["helper"]["calls"] == 0 and "replaced" not in err


def test_another_book_never_takes_a_works_id(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, first, _ = _build(tmp_path, BOOK, "--title", "Emma")
    assert code == 0 and first["work"] == "emma"
    other = tmp_path / "other.txt"  # every chapter differs: another book, titled the same but for case
    other.write_text(BOOK.read_text(encoding="utf-8").replace(" the ", " thé "), encoding="utf-8")
    code, second, err = _build(tmp_path, other, "--title", "EMMA!")
    assert code == 0, err
    assert second["work"] == "emma-2" and second["stored"] == "created"
    assert "work 'emma' holds another book; this one is work 'emma-2'" in err
    with CanonStore.open(tmp_path / "canon") as canon:
        assert {w.id for w in canon.works()} == {"emma", "emma-2"}
        assert canon.scenes("emma") and canon.scenes("emma-2")
    code = run_main(["canon", "build", str(other), "--store", str(tmp_path / "canon"), "--helper", HELPER,
                     "--title", "EMMA!", "--work", "emma", "--no-graph", "--embedder", "none"])
    err = capsys.readouterr().err
    assert code == 2 and "work 'emma'" in err and "holds another book ('Emma'" in err and "--fresh" in err
    code, third, _ = _build(tmp_path, other, "--title", "EMMA!")  # the second book again: its own work
    assert code == 0 and third["work"] == "emma-2" and third["stored"] == "unchanged"


def test_titles_in_other_scripts_are_two_works(tmp_path: Path) -> None:
    code, a, _ = _build(tmp_path, BOOK, "--title", "紅樓夢")
    other = tmp_path / "other.txt"
    other.write_text(BOOK.read_text(encoding="utf-8").replace(" the ", " thé "), encoding="utf-8")
    code2, b, err = _build(tmp_path, other, "--title", "石頭記")
    assert (code, code2) == (0, 0) and (a["work"], b["work"]) == ("紅樓夢", "石頭記"), err
    assert "replaced" not in err
    with CanonStore.open(tmp_path / "canon") as canon:
        assert {w.title for w in canon.works()} == {"紅樓夢", "石頭記"}


def test_a_work_another_command_made_is_left_alone_without_work(tmp_path: Path) -> None:
    store = tmp_path / "canon"
    assert CliRunner().invoke(app, ["canon", "import", str(ROOT / "examples" / "world.json"), "--store",
                                    str(store)]).exit_code == 0
    code, data, err = _build(tmp_path, BOOK, "--title", "Lanterns")
    assert code == 0 and data["work"] == "lanterns-2" and "made by another command" in err
    with CanonStore.open(store) as canon:
        assert canon.work("lanterns").title == "The Lanterns of Harrowmere"
