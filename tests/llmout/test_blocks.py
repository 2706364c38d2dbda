"""Finding JSON in replies: fences, prose, lenient spellings, and replies cut at the token limit."""

from incanon.llmout import balanced_span, fenced_blocks, json_objects, json_values, loads_lenient


def test_fences_with_any_tag_and_an_unclosed_last_one():
    text = 'Sure:\n```json\n{"a": 1}\n```\nand\n```\n[2]\n```\n```python\n{"cut": '
    assert fenced_blocks(text) == ['{"a": 1}\n', "[2]\n", '{"cut": ']


def test_values_come_from_fences_first_then_the_text():
    text = 'Here {not json} is it: ```{"b": 2}``` and also {"a": 1} [3, 4]'
    assert json_values(text) == [{"b": 2}, {"b": 2}, {"a": 1}, [3, 4]]
    assert json_objects(text) == [{"b": 2}, {"b": 2}, {"a": 1}]


def test_lenient_reads_what_models_write():
    assert loads_lenient("{'stance': 'FAVOR', 'reason': None}") == {"stance": "FAVOR", "reason": None}
    assert loads_lenient('{"flaws": [{"severity": 3,},], "ok": true}') == {"flaws": [{"severity": 3}], "ok": True}
    assert loads_lenient("{“a”: 1}") == {"a": 1}
    assert loads_lenient("{broken") is None
    assert json_objects("The answer: {'stance': 'AGAINST'} done.", lenient=True) == [{"stance": "AGAINST"}]
    assert json_objects("The answer: {'stance': 'AGAINST'} done.") == []


def test_a_cut_reply_still_gives_its_complete_inner_objects():
    cut = '{"flaws": [{"instance": "a {brace} in a string", "severity": 2}, {"instance": "b", "sever'
    assert json_objects(cut) == [{"instance": "a {brace} in a string", "severity": 2}]
    whole = '{"flaws": [{"severity": 1}]}'
    assert json_objects(whole) == [{"flaws": [{"severity": 1}]}]
    assert json_objects(whole, nested=True) == [{"flaws": [{"severity": 1}]}, {"severity": 1}]


def test_balanced_span_respects_strings_and_bracket_kinds():
    assert balanced_span('x {"a": "}", "b": [1]} y', 2) == '{"a": "}", "b": [1]}'
    assert balanced_span("{'a': ']'}", 0) == "{'a': ']'}"
    assert balanced_span('{"a": [1}', 0) is None
    assert balanced_span('{"a": 1', 0) is None
