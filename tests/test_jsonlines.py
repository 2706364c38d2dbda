"""JSON Lines reading: bad lines name their line, or are skipped and counted when asked."""

from __future__ import annotations

import pytest

from incanon.errors import InputError
from incanon.jsonlines import iter_jsonl, skipping_bad_lines

pytestmark = pytest.mark.timeout(20)


def test_bad_lines_can_be_skipped_and_are_counted(tmp_path):
    path = tmp_path / "items.jsonl"
    path.write_bytes(b'{"id": 1}\n{broken\n{"id": 3}\n\xff\xfe\n{"id": 5, "id": 5}\n')
    with pytest.raises(InputError, match="line 2"):
        list(iter_jsonl(path))
    with skipping_bad_lines() as skipped:
        rows = [value for _, value in iter_jsonl(path)]
    assert rows == [{"id": 1}, {"id": 3}]
    assert skipped.count == 3
    assert skipped.summary() == f"skipped 3 bad lines (not UTF-8 or not JSON): {path} (3: line 2, 4, 5)"
    with skipping_bad_lines(False) as off, pytest.raises(InputError):
        list(iter_jsonl(path))
    assert off.count == 0
