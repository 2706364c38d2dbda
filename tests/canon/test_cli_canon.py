"""``incanon canon``: import, export, show, scope; user errors exit 2 with one line."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from incanon.canon import CanonStore, World
from incanon.cli.main import app
from incanon.testing.cli import run_cli

from .fixtures import canonical_harbor_data, harbor_data

runner = CliRunner()


@pytest.fixture
def world_file(tmp_path: Path) -> Path:
    path = tmp_path / "harbor.json"
    path.write_text(json.dumps(harbor_data(), indent=2), encoding="utf-8")
    return path


@pytest.fixture
def store_dir(tmp_path: Path, world_file: Path) -> Path:
    store = tmp_path / "canon"
    result = runner.invoke(app, ["canon", "import", str(world_file), "--store", str(store)])
    assert result.exit_code == 0, result.output
    return store


def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run the real entry point (the spine turns user errors into exit code 2)."""
    return run_cli(
        [*args],
        env={**os.environ, **(env or {})}, timeout=60,
    )


def test_import_json(tmp_path: Path, world_file: Path) -> None:
    result = runner.invoke(app, ["canon", "import", str(world_file), "--store", str(tmp_path / "s"), "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["work"]["id"] == "harbor"
    assert doc["counts"]["scenes"] == 5 and doc["counts"]["messages"] == 4


def test_import_human(store_dir: Path, world_file: Path) -> None:
    result = runner.invoke(app, ["canon", "import", str(world_file), "--store", str(store_dir), "--fresh"])
    assert result.exit_code == 0
    assert "imported harbor" in result.stdout


def test_export_writes_the_world(store_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "exported" / "harbor.json"
    result = runner.invoke(app, ["canon", "export", "harbor", "--store", str(store_dir), "--out", str(out)])
    assert result.exit_code == 0, result.output
    expected = World.model_validate(canonical_harbor_data()).model_dump(mode="json")
    assert json.loads(out.read_text(encoding="utf-8")) == expected
    assert result.stdout == ""  # the note goes to stderr


def test_export_to_stdout(store_dir: Path) -> None:
    result = runner.invoke(app, ["canon", "export", "harbor", "--store", str(store_dir), "--out", "-"])
    assert json.loads(result.stdout)["work"]["id"] == "harbor"


def test_show_works_and_one_work(store_dir: Path) -> None:
    listing = runner.invoke(app, ["canon", "show", "--store", str(store_dir), "--json"])
    doc = json.loads(listing.stdout)
    assert [w["id"] for w in doc["works"]] == ["harbor"]
    assert doc["works"][0]["counts"]["facts"] == 6
    detail = json.loads(runner.invoke(app, ["canon", "show", "harbor", "--store", str(store_dir), "--json"]).stdout)
    alice = detail["characters"][0]
    assert alice["aliases"] == ["Alice", "Miss Reed"]
    assert alice["time_points"][1]["label"] == "End of book 1"
    human = runner.invoke(app, ["canon", "show", "harbor", "--store", str(store_dir)])
    assert human.exit_code == 0
    assert "Miss Reed" in human.stdout and "End of book 1 (1)" in human.stdout


def test_scope_json(store_dir: Path) -> None:
    result = runner.invoke(app, [
        "canon", "scope", "--store", str(store_dir), "--work", "harbor", "--character", "alice",
        "--at", "end of book 1", "--json",
    ])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["scope"]["character"] == "Alice Reed" and doc["scope"]["at"] == "1"
    # Visible: witnessed scenes only; the missed one is listed as hidden, never in both.
    assert [s["id"] for s in doc["scenes"]] == ["s1"]
    assert [(s["id"], s["label"]) for s in doc["missed_scenes"]] == [("s2", "before now, not witnessed")]
    assert [f["id"] for f in doc["facts"]] == ["f1", "f3", "f4"]
    # Alice's own membership names an organization she has not come across by then: hidden.
    assert [r["type"] for r in doc["relations"]] == ["friend"]
    assert [r["type"] for r in doc["hidden_relations"]] == ["member_of"]


def test_scope_visible_and_hidden_parts_never_overlap(tmp_path: Path) -> None:
    from incanon.sample import sample_world

    canon = tmp_path / "canon"
    with CanonStore.open(canon) as store:
        store.import_world(sample_world())
        scenes = {s.id: s for s in store.scenes("lanterns")}
        chunk_scene = {c.id: c.scene for c in store.chunks("lanterns")}
    result = runner.invoke(app, ["canon", "scope", "--store", str(canon), "--work", "lanterns", "--character", "Wren",
                                 "--at", "end of book 1", "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    missed = {s["id"] for s in doc["missed_scenes"]}
    assert missed == {"1-2-1", "1-2-3"}
    # Before: the chunks of 1-2-1 and 1-2-3 were visible, and "accuser (1-2-3)" was a relation.
    assert not {chunk_scene[c] for c in doc["chunks"]} & missed
    assert all(scenes[chunk_scene[c]].position <= scenes["1-3-3"].position for c in doc["chunks"] if chunk_scene[c])
    shown = {(r["source"], r["type"], r["target"]) for r in doc["relations"]}
    hidden = {(r["source"], r["type"], r["target"]) for r in doc["hidden_relations"]}
    assert not shown & hidden
    assert ("Ilse Varga", "accuser", "Aldric Hame") in hidden
    assert ("Aldric Hame", "secret owner", "Marrow Timber Company") in hidden
    visible, gone = doc["scope"]["visible"], doc["scope"]["hidden"]
    assert gone["chunks_not_witnessed"] == 4 and visible["chunks"] == len(doc["chunks"])


def test_scope_human(store_dir: Path) -> None:
    result = runner.invoke(app, ["canon", "scope", "--store", str(store_dir), "--work", "harbor",
                                 "--character", "Bob", "--at", "2-3"])
    assert result.exit_code == 0, result.output
    assert "Bob at 2-3" in result.stdout
    assert "not witnessed" in result.stdout and "Bob owns a boat." in result.stdout


def test_malformed_json_exits_2_naming_the_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{\n  "work": {"id": "x",\n    "title": }\n}\n', encoding="utf-8")
    proc = _cli("canon", "import", str(bad), "--store", str(tmp_path / "s"))
    assert proc.returncode == 2
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1
    assert "bad.json" in lines[0] and "line 3, column 14" in lines[0]


def test_bad_reference_exits_2_with_the_path(tmp_path: Path) -> None:
    data = harbor_data()
    data["scenes"][3]["participants"][1] = "Zed"
    path = tmp_path / "w.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    proc = _cli("canon", "import", str(path), "--store", str(tmp_path / "s"))
    assert proc.returncode == 2
    assert "scenes[3].participants[1]: unknown character 'Zed'" in proc.stderr


@pytest.mark.parametrize(
    "args, piece",
    [
        (["canon", "show", "nowork"], "unknown work 'nowork'"),
        (["canon", "scope", "--work", "harbor", "--character", "Zed", "--at", "1"], "unknown character 'Zed'"),
        (["canon", "scope", "--work", "harbor", "--character", "Bob", "--at", "someday"], "unknown story position 'someday'"),
        (["canon", "export", "harbor", "--out", "x.json"], None),
    ],
)
def test_user_errors_exit_2(store_dir: Path, tmp_path: Path, args: list[str], piece: str | None) -> None:
    if piece is None:  # a store that does not exist is reported, never created by a reading command
        missing = tmp_path / "missing"
        proc = _cli(*args, "--store", str(missing))
        assert proc.returncode == 2 and "no canon store at" in proc.stderr
        assert not missing.exists()
        return
    proc = _cli(*args, "--store", str(store_dir))
    assert proc.returncode == 2, proc.stderr
    assert piece in proc.stderr


def test_store_from_environment(store_dir: Path) -> None:
    proc = _cli("canon", "show", "--json", env={"INCANON_CANON": str(store_dir)})
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["works"][0]["id"] == "harbor"


def test_export_through_a_symlink_keeps_the_link(store_dir: Path, tmp_path: Path) -> None:
    (tmp_path / "synced").mkdir()
    real = tmp_path / "synced" / "world.json"
    real.write_text("old\n")
    link = tmp_path / "world.json"
    link.symlink_to(real)
    result = _cli("canon", "export", "harbor", "--store", str(store_dir), "--out", str(link))
    assert result.returncode == 0, result.stderr
    assert link.is_symlink() and json.loads(real.read_text())["work"]["id"] == "harbor"


def test_export_to_a_full_device_is_no_space_not_wrote(store_dir: Path, tmp_path: Path) -> None:
    """``--out /dev/full`` said "wrote ..." and replaced the device (as root) with a regular file."""
    import stat

    full = tmp_path / "full"
    try:
        os.mknod(full, 0o666 | stat.S_IFCHR, os.makedev(1, 7))
        with open(full, "wb"):
            pass
    except OSError as exc:
        pytest.skip(f"cannot make or open a copy of /dev/full here (needs root, a mount without nodev): {exc}")
    result = _cli("canon", "export", "harbor", "--store", str(store_dir), "--out", str(full))
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: no space left on the device") and "wrote" not in lines[0]
    assert stat.S_ISCHR(os.lstat(full).st_mode)
