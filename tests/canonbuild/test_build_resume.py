"""A build never loses work: each chunk embedded once, a killed build's embeddings kept, a full
disk that stops the build cleanly and keeps the response cache, a failed build that keeps the
answers it paid for."""

from __future__ import annotations

import json
import os
import resource
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import pytest

from incanon.canonbuild.guard import BuildHelper
from incanon.canon import CanonStore
from incanon.errors import NoSpaceError
from incanon.models.scripted import ScriptedModel
from incanon.models.types import Completion, GenerationParams, Message
from incanon.testing.cli import run_main
from tests.canonbuild import build_driver
from tests.canonbuild.build_driver import logged, text_id

ROOT = Path(__file__).resolve().parents[2]
BOOK = ROOT / "examples" / "book" / "saltmere.txt"
RULES = ROOT / "examples" / "book" / "helper.json"
HELPER = f"scripted:{RULES}"
WORK = "the-clock-of-saltmere"
DRIVER = Path(build_driver.__file__)


def _args(tmp_path: Path, embedder: str, *extra: str) -> list[str]:
    return ["canon", "build", str(BOOK), "--store", str(tmp_path / "canon"), "--helper", HELPER,
            "--cache", str(tmp_path / "cache.sqlite"), "--embedder", embedder, *extra]


def _responses(cache: Path) -> int:
    with sqlite3.connect(f"file:{cache}?mode=ro", uri=True) as db:
        return int(db.execute("SELECT COUNT(*) FROM responses").fetchone()[0])


def test_each_chunk_is_embedded_once_for_the_graph_and_the_canon(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "embedded.log"
    assert run_main(_args(tmp_path, f"recording:{log}", "--json")) == 0
    report = json.loads(capsys.readouterr().out)
    with CanonStore.open(tmp_path / "canon") as store:
        chunks = [c.text for c in store.chunks(WORK)]
    with sqlite3.connect(tmp_path / "canon" / "canon.sqlite") as db:
        graph_vectors = db.execute("SELECT COUNT(*) FROM graph_chunk_vectors").fetchone()[0]
        canon_vectors = db.execute("SELECT COUNT(*) FROM vectors").fetchone()[0]
    assert graph_vectors == canon_vectors == len(chunks) == 7  # both stages have every chunk's vector
    counts = Counter(logged(log))
    assert all(counts[f"passage {text_id(t)}"] == 1 for t in chunks), counts  # computed once, not twice
    assert max(counts.values()) == 1
    assert report["vectors"]["embedded"] == 7 and report["vectors"]["computed"] == sum(counts.values())


def test_a_rebuild_after_a_new_chapter_embeds_only_the_new_text(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    """The store's vectors of a replaced work go with it; the texts' vectors are in the cache."""
    log = tmp_path / "embedded.log"
    assert run_main(_args(tmp_path, f"recording:{log}", "--no-graph")) == 0
    capsys.readouterr()
    first = len(logged(log))
    longer = tmp_path / "saltmere.txt"
    marker = "*** END OF THE PROJECT GUTENBERG EBOOK"
    longer.write_text(BOOK.read_text(encoding="utf-8").replace(
        marker, "V. The New Spring\n\n\nIn spring the harbour clock rang the tide-bell again.\n\n\n" + marker),
        encoding="utf-8")
    args = _args(tmp_path, f"recording:{log}", "--no-graph", "--json")
    args[2] = str(longer)
    assert run_main(args) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["stored"] == "replaced" and report["vectors"]["embedded"] == 8
    assert len(logged(log)) - first == 1  # the new chapter's one chunk


class _FullDisk:
    """A helper whose second call meets a full disk under the response cache."""

    def __init__(self) -> None:
        self.calls = 0
        self.inner = ScriptedModel([], default="{}")

    @property
    def name(self) -> str:
        return "full-disk"

    async def generate(self, messages: Sequence[Message], params: GenerationParams | None = None) -> Completion:
        self.calls += 1
        if self.calls == 2:
            raise NoSpaceError("no space left on /cache (or a file size limit)")
        return await self.inner.generate(messages, params)


async def test_a_full_disk_is_not_taken_for_the_helpers_failure() -> None:
    """Stages read a failed call as a failed step and go on; a full disk must stop the build,
    and no call is paid for after it that the cache could not keep."""
    inner = _FullDisk()
    helper = BuildHelper(inner)
    await helper.generate([Message(role="user", content="one")])
    helper.check()
    for _ in range(2):
        with pytest.raises(NoSpaceError):
            await helper.generate([Message(role="user", content="two")])
    assert inner.calls == 2
    with pytest.raises(NoSpaceError):
        helper.check()


def test_a_failed_build_keeps_the_answers_it_paid_for(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A build that ends in an error (here: the helper named nobody) removes the store it made for
    nothing, and keeps the response cache it made: the answers in it were paid for. (Here the
    participant lists, readable and empty; the splits, which place no scene, are not kept.)"""
    rules = tmp_path / "silent.json"
    rules.write_text(json.dumps({"rules": [], "default": '{"scenes": [], "participants": []}'}), encoding="utf-8")
    cache = tmp_path / "cache.sqlite"
    code = run_main(["canon", "build", str(BOOK), "--store", str(tmp_path / "canon"), "--helper",
                     f"scripted:{rules}", "--cache", str(cache), "--embedder", "none"])
    assert code == 1 and "no character was found" in capsys.readouterr().err
    assert not (tmp_path / "canon").exists()
    assert _responses(cache) > 0


def _spawn(tmp_path: Path, embedder: str, *, env: dict[str, str] | None = None,
           preexec=None) -> subprocess.Popen[str]:  # type: ignore[no-untyped-def]
    return subprocess.Popen([sys.executable, str(DRIVER), *_args(tmp_path, embedder, "--json")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, preexec_fn=preexec)


@pytest.mark.slow
@pytest.mark.timeout(240)
def test_kill_9_in_the_embedding_then_rerun_embeds_only_the_rest(tmp_path: Path) -> None:
    log = tmp_path / "embedded.log"
    # Two texts a call, 0.4 s each: 14 texts take about 3 s, the kill comes after the second call.
    proc = _spawn(tmp_path, f"recording:{log}?batch_size=2&delay=0.4")
    deadline = time.monotonic() + 120
    while len(logged(log)) < 4:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "no embedding was made"
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    before = logged(log)
    log.unlink()
    rerun = _spawn(tmp_path, f"recording:{log}?batch_size=2")
    out, err = rerun.communicate(timeout=120)
    assert rerun.returncode == 0, err
    after = logged(log)
    assert after, "the kill came after the last embedding: nothing was tested"
    assert len(set(after)) == len(after) and len(set(before)) == len(before)  # nothing twice in one run
    # Only the call in flight at the kill (its texts logged, not yet kept) may be embedded again;
    # before, the rerun embedded every canon chunk again.
    assert len(set(before) & set(after)) <= 2, (before, after)


def _limited(limit: int):  # type: ignore[no-untyped-def]
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # EFBIG from the write, not a killed process
    return apply


@pytest.mark.slow
@pytest.mark.timeout(240)
def test_a_file_size_limit_stops_the_build_in_one_line_and_the_rerun_resumes_from_the_cache(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = {**os.environ, "INCANON_HOME": str(home)}
    args = ["canon", "build", str(BOOK), "--store", str(tmp_path / "canon"), "--helper", HELPER, "--embedder",
            "none", "--json"]
    # 150 kB: the response cache takes some answers, then its next write fails (EFBIG).
    failed = subprocess.run([sys.executable, "-m", "incanon", *args], env=env, capture_output=True, text=True,
                            preexec_fn=_limited(150_000), timeout=120)
    assert failed.returncode == 2, failed.stderr
    last = failed.stderr.strip().splitlines()[-1]
    assert last.startswith("error: no space left on") and "Traceback" not in failed.stderr
    assert f"run the same command again: the helper's answers so far are in the response cache {home}" in last
    kept = _responses(home / "cache.sqlite")
    assert kept > 0  # the answers paid for are kept
    assert not (tmp_path / "canon").exists()  # the store it created held no work yet: gone
    done = subprocess.run([sys.executable, "-m", "incanon", *args], env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["helper"]["cached_calls"] >= kept


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_a_command_that_fails_before_any_answer_leaves_nothing_behind(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = {**os.environ, "INCANON_HOME": str(home)}
    failed = subprocess.run([sys.executable, "-m", "incanon", "canon", "build", str(BOOK), "--store",
                             str(tmp_path / "canon"), "--helper", HELPER, "--embedder", "none"],
                            env=env, capture_output=True, text=True, preexec_fn=_limited(20_000), timeout=120)
    assert failed.returncode == 2 and "no space left" in failed.stderr, failed.stderr
    assert not home.exists() and not (tmp_path / "canon").exists()
