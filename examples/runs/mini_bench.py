"""A benchmark command in miniature, wired to incanon's shared run options."""
import asyncio
import functools
from pathlib import Path

import typer

from incanon.agents import CharacterAt, Turn, create_agent
from incanon.canon import Position
from incanon.cli.options import CallPattern, EstimateLine, RunOptions, method_lines, with_run_options
from incanon.models import load_chat_model, user
from incanon.runs import ItemOutcome, RunConfig, RunItem, RunStore, per_worker, run_items

app = typer.Typer(add_completion=False)
WHO = CharacterAt(work_title="The Lamp Saga", character="Ada", position=Position.parse("1"))
JUDGE_CALLS = CallPattern(calls=1, prompt_tokens=14, completion_tokens=1)  # the judge prompt below


def make_task(method: str, agent_spec: str, judge_spec: str):
    """Built in each worker from spec strings: nothing unpicklable travels."""
    agent = create_agent(method, load_chat_model(agent_spec))
    judge = load_chat_model(judge_spec)

    async def task(item: RunItem) -> ItemOutcome:
        reply = await agent.respond(WHO, [Turn(speaker="user", text=item.input["question"])])
        verdict = await judge.generate([user(f"Is this answer in character? Reply 0 or 1. {reply.text}")])
        return ItemOutcome(outputs={"answer": reply.text}, scores={"in_character": float(verdict.text == "1")})

    return task


@app.command()
@with_run_options
def main(
    model: str = typer.Option(..., "--model"),
    judge: str = typer.Option(..., "--judge"),
    method: str = typer.Option("zero-shot", "--method"),
    n: int = typer.Option(200, "--limit"),
    runs: Path = typer.Option(Path("runs.sqlite"), "--runs"),
    *,
    run_options: RunOptions,
) -> None:
    items = [RunItem(id=f"q{k:04d}", input={"question": f"Where were you on day {k}?"}) for k in range(n)]
    config = RunConfig(benchmark="mini", methods=[method], models={"agent": model, "judge": judge})
    store = RunStore(runs)
    if run_options.dry_run:
        lines = [*method_lines([method], model), EstimateLine("judge", judge, JUDGE_CALLS)]
        run_options.print_estimate(items, lines, store=store, config=config)
        return
    task = per_worker(functools.partial(make_task, method, model, judge))
    with run_options.applied():
        result = asyncio.run(run_items(items, task, store=store, config=config, progress=False))
    print(f"{result.run_id}: {result.status}, ran {result.ran}, skipped {result.skipped}, "
          f"{result.usage.calls} calls, ${result.usage.cost:.4f}")


if __name__ == "__main__":
    app()
