"""One module reads JSON out of model replies: fences, values anywhere, repair."""

from incanon.llmout import fenced_blocks, json_values, repair_json


def test_fences_with_and_without_a_language_and_an_unclosed_last_one():
    text = 'Sure:\n```json\n{"a": 1}\n```\nand\n```\n[2]\n```\nthen ```json\n{"b": '
    assert fenced_blocks(text) == ['{"a": 1}\n', "[2]\n", '{"b": ']


def test_values_anywhere_fenced_first_and_not_nested_twice():
    text = 'prose {"x": {"y": 1}} more [1, 2] and ```json\n{"z": 0}\n```'
    values = json_values(text)
    assert values[0] == {"z": 0} and {"x": {"y": 1}} in values and [1, 2] in values
    assert {"y": 1} not in values


def test_a_reply_cut_at_the_token_limit_keeps_its_complete_items():
    result = repair_json('{"triples": [{"head": "Ben", "relation": "job", "tail": "baker"}, {"head": "Ev')
    assert result.truncated and result.value["triples"][0]["tail"] == "baker"


def test_what_the_one_pass_repair_cannot_read_falls_back_to_json_repair():
    # Unquoted keys and a missing comma between objects: beyond the one-pass repair.
    result = repair_json('[{name: "Ilse", type: "person"} {name: "Dace", type: "person"}]')
    assert "json-repair" in result.fixes
    assert [item["name"] for item in result.value] == ["Ilse", "Dace"]
