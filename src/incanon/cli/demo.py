"""``incanon demo``."""

from __future__ import annotations

import asyncio
from pathlib import Path

import typer
from rich.table import Table

from incanon import paths
from incanon.cli.output import JSON_HELP, emit_json, err, out

_NOTE = (
    "The embedded SmolLM2-135M is tiny: it answers poorly and judges no better. This run shows "
    "the pipeline, not a result. Point it at real models with --model and --judge, e.g.\n"
    "  incanon demo --model openai:gpt-4o-mini --judge openai:gpt-4o\n"
    "  incanon demo --model openai:MODEL@http://127.0.0.1:8000/v1   (vLLM, Ollama, llama.cpp server)"
)


def _clip(text: str, limit: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _embedded_ran(*specs: str) -> bool:
    """Whether the bundled SmolLM2 played a role (the "tiny model" footer is about it only)."""
    from incanon.models.spec import parse_spec

    return any(parse_spec(spec).kind == "embedded" for spec in specs)


def register(app: typer.Typer) -> None:
    """Add ``demo`` to the root app."""

    @app.command()
    def demo(
        model: str = typer.Option("embedded", "--model", help="Model under test (spec string)."),
        judge: str = typer.Option("embedded", "--judge", help="Judge model (spec string)."),
        character: str = typer.Option(None, "--character", help="Character to interview (default: chosen from the sample world)."),
        store: Path = typer.Option(None, "--store", help="Canon store folder (default: INCANON_HOME/demo-canon)."),
        runs: Path = typer.Option(None, "--runs", help="Run store file (default: INCANON_HOME/runs.sqlite)."),
        cache: Path = typer.Option(None, "--cache", help="Response cache file (default: INCANON_HOME/cache.sqlite)."),
        no_cache: bool = typer.Option(False, "--no-cache", help="Do not read or write the response cache."),
        fresh: bool = typer.Option(False, "--fresh", help="Start a new run instead of resuming the last identical one."),
        json_: bool = typer.Option(False, "--json", help=JSON_HELP),
    ) -> None:
        """Interview a sample-world character at two points of the story, offline, and judge the answers.

        Example: incanon demo --model ollama/llama3.1 --judge openai/gpt-4o-mini
        """
        from incanon.demo import demo_rows, run_demo
        from incanon.models import load_chat_model

        store_dir = store or paths.home() / "demo-canon"
        runs_path = runs or paths.default_runs_path()
        cache_arg = False if no_cache else (cache or True)
        agent_model = load_chat_model(model, cache=cache_arg)
        judge_model = agent_model if judge == model else load_chat_model(judge, cache=cache_arg)
        err.print(f"agent {model}, judge {judge}; loading the sample world into {store_dir}", style="dim")
        result, run_store, record = asyncio.run(run_demo(
            store_dir=store_dir, runs_path=runs_path, agent_model=agent_model,
            judge_model=judge_model, model_specs={"agent": model, "judge": judge},
            character=character, fresh=fresh, progress=not json_,
            # The embedded backend runs one call at a time; remote endpoints can overlap.
            concurrency=1 if "embedded" in (model, judge) or model.endswith(".gguf") else 4,
        ))
        rows = demo_rows(run_store, result.run_id)
        scored = [r["score"] for r in rows if r["score"] is not None]
        accuracy = sum(scored) / len(scored) if scored else None
        if json_:
            emit_json({"run_id": result.run_id, "run_store": str(runs_path), "canon_store": str(store_dir),
                       "character": record.name, "models": {"agent": model, "judge": judge},
                       "spatiotemporal_accuracy": accuracy, "items": rows})
            return
        table = Table(title=f"{record.name}, interviewed at two points of the story", show_lines=True)
        for col, kw in (("time point", {}), ("question type", {}), ("question", {"ratio": 2}),
                        ("answer", {"ratio": 3}), ("consistent?", {"justify": "center"})):
            table.add_column(col, overflow="fold", **kw)
        for r in rows:
            verdict = {1: "yes", 0: "no"}.get(r["score"], "?")
            answer = _clip(r["answer"] or "") if r["status"] == "ok" else f"error: {r['error']}"
            table.add_row(f"{r['at_label']} ({r['at']})", r["data_type"], r["question"], answer, verdict)
        out.print(table)
        acc = "n/a" if accuracy is None else f"{accuracy:.0%} of {len(scored)} judged"
        out.print(f"Spatiotemporal consistency: {acc}")
        out.print(f"Run {result.run_id} is stored in {runs_path}")
        out.print(f"  incanon runs show {result.run_id} --runs {runs_path}")
        if _embedded_ran(model, judge):
            out.print(_NOTE, style="yellow", highlight=False)
