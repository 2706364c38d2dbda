"""Imports point one way: the canon layer imports nothing above it, the product imports no
benchmark, and benchmarks do not reach into the command line. Every import counts, those inside
functions too (a lazy import is still a dependency)."""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "incanon"

#: Packages and modules of the product that must not import a benchmark.
PRODUCT = ("canon", "canonbuild", "cards", "chat", "retrieval", "serve", "audit", "graph", "ingest", "llmout",
           "models", "scenes", "sizing", "tokens", "templates")
#: What the canon layer may import from incanon (besides itself).
CANON_MAY = ("incanon.errors", "incanon.printable", "incanon.sentences", "incanon.paths", "incanon.sqlitedb",
             "incanon.oserrors", "incanon.files", "incanon.created", "incanon.jsonlines", "incanon.prompts",
             "incanon.reading")
#: Known exceptions (file, imported module), each with its reason.
ALLOWED = {
    # The agent registry loads the benchmarks' agents on first use (a plug-in point, by design).
    ("agents/registry.py", "incanon.bench"),
}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return {m for m in found if m == "incanon" or m.startswith("incanon.")}


def _files(part: str) -> list[Path]:
    target = SRC / part
    return sorted(target.rglob("*.py")) if target.is_dir() else [SRC / f"{part}.py"]


def _violations(parts: tuple[str, ...], forbidden: Callable[[str], bool]) -> list[str]:
    bad = []
    for part in parts:
        for path in _files(part):
            if not path.exists():
                continue
            rel = path.relative_to(SRC).as_posix()
            bad += [f"{rel} imports {m}" for m in sorted(_imports(path)) if forbidden(m) and (rel, m) not in ALLOWED]
    return bad


def test_the_canon_layer_imports_nothing_above_it() -> None:
    def above(module: str) -> bool:
        return not module.startswith("incanon.canon") and not module.startswith(CANON_MAY) and module != "incanon"

    assert _violations(("canon",), above) == []


def test_the_product_imports_no_benchmark() -> None:
    assert _violations(PRODUCT, lambda m: m.startswith("incanon.bench")) == []


def test_the_core_imports_no_front_end() -> None:
    # The command line and the server are front ends: nothing below them imports them.
    core = ("canon", "canonbuild", "cards", "chat", "retrieval", "audit", "graph", "ingest", "llmout", "models",
            "agents", "bench")
    def front(module: str) -> bool:
        return module.startswith(("incanon.cli", "incanon.serve"))

    found = _violations(core, front)
    # Known: the audit reads the server's listing and timeline (they are surfaces it audits).
    known = [v for v in found if v.startswith("audit/")]
    assert sorted(set(found) - set(known)) == []


def test_the_benchmarks_reach_no_command_line() -> None:
    # Every benchmark's commands live in incanon/cli; no module under bench/ imports them back.
    assert _violations(("bench",), lambda m: m.startswith("incanon.cli")) == []


def test_the_run_layer_imports_no_benchmark() -> None:
    # The driver runs any Benchmark it is given; the benchmarks import the run layer, not the reverse.
    assert _violations(("runs",), lambda m: m.startswith(("incanon.bench", "incanon.cli", "incanon.serve"))) == []


def test_the_layer_checks_see_a_planted_import(tmp_path, monkeypatch) -> None:
    # A check is trusted when it has been seen to fail: a bench module importing the CLI (inside a
    # function, as a lazy import) and a runs module importing a benchmark are both caught.
    (tmp_path / "bench" / "mine").mkdir(parents=True)
    (tmp_path / "bench" / "mine" / "cli_mine.py").write_text(
        "def register(app):\n    from incanon.cli.options import with_run_options\n", encoding="utf-8")
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "driver.py").write_text("import incanon.bench.registry\n", encoding="utf-8")
    monkeypatch.setitem(globals(), "SRC", tmp_path)  # the checks read the tree at SRC
    assert _violations(("bench",), lambda m: m.startswith("incanon.cli")) == [
        "bench/mine/cli_mine.py imports incanon.cli.options"]
    assert _violations(("runs",), lambda m: m.startswith("incanon.bench")) == ["runs/driver.py imports incanon.bench.registry"]
