"""RunConfig: deterministic run ids and no secrets."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

from incanon.runs import RunConfig, is_secret_key, redact, strip_secrets


def test_run_id_is_deterministic_and_ignores_time():
    a = RunConfig(benchmark="TimeChara", models={"agent": "openai:gpt-4o"}, params={"k": 1, "b": [1, 2]})
    later = datetime.now(timezone.utc) + timedelta(days=3)
    b = RunConfig(benchmark="TimeChara", models={"agent": "openai:gpt-4o"}, params={"b": [1, 2], "k": 1},
                  created=later, package_version="9.9.9", templates={"judge": "abc"})
    assert a.run_id == b.run_id
    assert a.run_id.startswith("timechara-")
    assert len(a.run_id.split("-")[-1]) == 10


def test_run_id_changes_with_identity_fields():
    base = RunConfig(benchmark="sharp", methods=["zero-shot"], seeds=[1])
    assert base.run_id != base.model_copy(update={"seeds": [2]}).run_id
    assert base.run_id != RunConfig(benchmark="sharp", methods=["rag"], seeds=[1]).run_id
    assert base.run_id != RunConfig(benchmark="sharp", methods=["zero-shot"], seeds=[1], params={"t": 0.7}).run_id
    assert base.run_id != RunConfig(benchmark="dialsim", methods=["zero-shot"], seeds=[1]).run_id


def test_name_prefixes_the_id_and_fresh_ids_differ():
    c = RunConfig(benchmark="coser", name="My Exp")
    assert c.run_id.startswith("my-exp-coser-")
    # The name labels a run; the same settings under another label hash the same.
    assert c.run_id.endswith(RunConfig(benchmark="coser").identity_hash())
    f1, f2 = c.fresh_run_id(), c.fresh_run_id()
    assert f1 != f2 and f1.startswith(c.run_id + "-")


def test_secrets_are_stripped_from_config():
    c = RunConfig(
        benchmark="demo",
        models={"agent": "openai:gpt-4o?api_key=sk-proj-abcdefghijklmnop1234", "judge": "embedded"},
        params={
            "api_key": "sk-abcdefghijklmnopqrstuv",
            "hfToken": "hf_abcdefghijklmnopqrstuvwxyz",
            "client": {"client_secret": "s3cr3t-value", "timeout": 3},
            "headers": ["Authorization: Bearer abcdefgh12345678"],
            "max_tokens": 512,
            "keyword": "castle",
            "use_auth": True,
        },
        dataset={"path": "data.jsonl", "password": "hunter22"},
    )
    stored = c.to_json()
    for secret in ("sk-abcdef", "sk-proj", "hf_abc", "s3cr3t", "abcdefgh12345678", "hunter22"):
        assert secret not in stored
    assert c.params["max_tokens"] == 512
    assert c.params["keyword"] == "castle"
    assert c.params["use_auth"] is True
    assert c.params["client"] == {"timeout": 3}
    assert c.models["judge"] == "embedded"
    assert "params.api_key" in c.stripped and "dataset.password" in c.stripped
    assert "models.agent" in c.stripped
    # A config read back from the store is unchanged by validation.
    again = RunConfig.model_validate_json(stored)
    assert again.run_id == c.run_id and json.loads(again.to_json()) == json.loads(stored)


def test_secret_key_names():
    for name in ("api_key", "apiKey", "OPENAI_API_KEY", "hf-token", "client_secret", "password", "Authorization"):
        assert is_secret_key(name), name
    for name in ("max_tokens", "keyword", "monkey", "tokens", "sort_by", "judge"):
        assert not is_secret_key(name), name


def test_redact_patterns(monkeypatch):
    monkeypatch.setenv("MY_SERVER_API_KEY", "plainlookingvalue42")
    text = (
        "failed with key sk-ant-api03-abcdefghijklmnop, header Bearer eyJhbGciOi.xyz, "
        "url http://h/v1?api_key=abc123456&x=1, token ghp_abcdefghijklmnopqrstuvwxyz12 "
        "and plainlookingvalue42"
    )
    masked = redact(text)
    for secret in ("sk-ant", "eyJhbGciOi", "abc123456", "ghp_", "plainlookingvalue42"):
        assert secret not in masked
    assert "failed with key" in masked and "x=1" in masked
    assert redact("nothing to hide: max_tokens=512") == "nothing to hide: max_tokens=512"


def test_strip_secrets_reports_paths():
    clean, removed = strip_secrets({"a": {"token": "xyz12345"}, "b": ["sk-abcdefghijklmnopqrs"]})
    assert clean == {"a": {}, "b": ["[REDACTED]"]}
    assert removed == ["a.token", "b[0]"]
