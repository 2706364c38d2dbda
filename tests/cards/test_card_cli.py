"""``incanon canon card export / import`` from the command line."""

from __future__ import annotations

import base64
import json
import os
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from incanon.cards.png import placeholder_png, read_chara
from incanon.cli.main import app
from incanon.sample import sample_world
from incanon.testing.cli import run_cli

runner = CliRunner()


@pytest.fixture(scope="module")
def store_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("card-cli")
    world = root / "world.json"
    world.write_text(sample_world().model_dump_json(), encoding="utf-8")
    result = runner.invoke(app, ["canon", "import", str(world), "--store", str(root / "canon")])
    assert result.exit_code == 0, result.output
    return root / "canon"


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return run_cli(args,
                   env=dict(os.environ), timeout=120)


def test_export_png_then_import(store_dir: Path, tmp_path: Path) -> None:
    card = tmp_path / "wren.png"
    result = runner.invoke(app, ["canon", "card", "export", "--store", str(store_dir), "--work", "lanterns",
                                 "--character", "Stormwren", "--at", "end of book 1", "--out", str(card)])
    assert result.exit_code == 0, result.output
    assert "Wren Callow at end of book 1 (1-3)" in result.stdout
    doc = json.loads(read_chara(card.read_bytes(), str(card))[0])
    assert doc["spec"] == "chara_card_v2" and doc["data"]["extensions"]["incanon"]["at"] == "1-3"

    result = runner.invoke(app, ["canon", "card", "import", str(card), "--store", str(tmp_path / "cards"),
                                 "--work", "wren", "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["card_version"] == 2 and summary["character"] == "Wren Callow" and summary["facts"] > 10


def test_export_json_with_image_is_refused_and_picture_kept(store_dir: Path, tmp_path: Path) -> None:
    picture = tmp_path / "face.png"
    picture.write_bytes(placeholder_png(5, 7))
    out = tmp_path / "dace.png"
    result = runner.invoke(app, ["canon", "card", "export", "--store", str(store_dir), "--work", "lanterns",
                                 "--character", "Dace", "--at", "1-3", "--out", str(out), "--image", str(picture),
                                 "--json"])
    assert result.exit_code == 0, result.output
    assert out.read_bytes()[:33] == picture.read_bytes()[:33]  # same signature and IHDR: the picture is kept
    assert json.loads(result.stdout)["extensions"]["character"] == "Dace Morrow"


@pytest.mark.parametrize("content, words", [
    (b"this is not json", "invalid JSON"),
    (json.dumps({"spec": "chara_card_v2", "spec_version": "2.0", "data": {"name": 3}}).encode(), "(data.name)"),
    (placeholder_png(2, 2), "no 'chara' or 'ccv3' text chunk"),
    (placeholder_png(2, 2)[:-12] + b"\x00\x00\x00\x0ctEXtchara\x00!!!!!!" + b"\x00" * 4 + placeholder_png(2, 2)[-12:],
     "CRC"),
])
def test_bad_cards_exit_2_and_write_nothing(tmp_path: Path, content: bytes, words: str) -> None:
    card = tmp_path / "bad.png"
    card.write_bytes(content)
    store = tmp_path / "never"
    proc = _cli("canon", "card", "import", str(card), "--store", str(store), "--work", "x")
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and str(card) in lines[0] and words in lines[0], proc.stderr
    assert not store.exists()


def test_bad_base64_names_the_chunk(tmp_path: Path) -> None:
    import struct
    import zlib

    body = b"chara\0" + b"%%%" + base64.b64encode(b"{}")
    chunk = struct.pack(">I", len(body)) + b"tEXt" + body + struct.pack(">I", zlib.crc32(b"tEXt" + body))
    png = placeholder_png(2, 2)
    card = tmp_path / "b64.png"
    card.write_bytes(png[:-12] + chunk + png[-12:])
    proc = _cli("canon", "card", "import", str(card), "--store", str(tmp_path / "s"), "--work", "x")
    assert proc.returncode == 2 and "(chara): the 'chara' chunk is not valid base64" in proc.stderr


def test_export_unknown_character_and_bad_out(store_dir: Path, tmp_path: Path) -> None:
    proc = _cli("canon", "card", "export", "--store", str(store_dir), "--work", "lanterns", "--character", "Nobody",
                "--at", "1-3", "--out", str(tmp_path / "n.json"))
    assert proc.returncode == 2 and "unknown character 'Nobody'" in proc.stderr
    proc = _cli("canon", "card", "export", "--store", str(store_dir), "--work", "lanterns", "--character", "Wren",
                "--at", "1-3", "--out", str(tmp_path / "n.txt"))
    assert proc.returncode == 2 and ".json or .png" in proc.stderr
    assert not (tmp_path / "n.json").exists() and not (tmp_path / "n.txt").exists()
