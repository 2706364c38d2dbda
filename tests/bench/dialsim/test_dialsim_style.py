"""Style transfer keeps names, dates and numbers, or falls back to the plain question."""

from __future__ import annotations

from incanon.bench.dialsim import StyleTransfer
from incanon.bench.dialsim.style import check, must_keep
from incanon.models import ScriptedModel


def test_what_a_rewrite_must_keep():
    assert must_keep("Who did Jory Callow report to on March 22, 1187?") == {"Jory", "Callow", "March", "22", "1187"}


def test_a_rewrite_that_drops_a_name_or_date_is_not_used():
    q = "Who was Jory engaged to on March 22, 1187?"
    assert check(q, "Oi, who was our Jory promised to, back on March 22, 1187?").styled
    dropped = check(q, "Oi, who was he promised to back then?")
    assert not dropped.styled and dropped.text == q and "Jory" in dropped.note
    assert not check(q, "").styled
    assert not check(q, "word " * 200).styled


async def test_rewrites_are_cached_per_asker(tmp_path):
    model = ScriptedModel(default=lambda m: "By the silt, who's Jory seeing these days?")
    cache = tmp_path / "style.json"
    style = StyleTransfer(model, cache_path=cache)
    first = await style.restyle("Who is Jory seeing?", "Nell Hobb", "warm, calls everyone 'duck'")
    assert first.styled and first.text == "By the silt, who's Jory seeing these days?"
    assert "Nell Hobb" in model.calls[0].messages[0].content and "duck" in model.calls[0].messages[0].content
    await style.restyle("Who is Jory seeing?", "Nell Hobb", "warm, calls everyone 'duck'")
    again = StyleTransfer(model, cache_path=cache)
    await again.restyle("Who is Jory seeing?", "Nell Hobb", "warm, calls everyone 'duck'")
    assert len(model.calls) == 1
    await again.restyle("Who is Jory seeing?", "Pell", "")
    assert len(model.calls) == 2
